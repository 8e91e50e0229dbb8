"""The picture of a trace (SPEC section 6): the field's data flow as a graph, and its Graphviz DOT.

Built from the trace result's branches and their typed steps (``trace.steps``): one node per
place a value passes through (the field, variables, locals, module arguments and outputs,
conditionals, functions and operators, iterators, the literals), one edge per hop, drawn in
the direction the value flows (from the literal to the field). Every node and edge records
which branches pass through it, so each branch's path can be coloured.

Steps declared somewhere (a variable, a module argument...) are one node wherever they are
reached from; steps that are part of an expression (a conditional, a call, a literal) belong
to the node that reads them, so the true and false arms of one conditional meet in one node.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..addrs import InputVariable, ModuleCall, ModuleCallOutput
from ..analysis import Analysis
from ..records import record, field
from ..trace import steps as S
from ..trace.result import RESOLVED, UNBOUNDED, TraceResult
from ..values.value import to_display
from .locations import condition_text, location

# Branch colours: distinct on light and dark backgrounds (the webview and DOT use the same).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")


@record
class GraphNode:
    id: str
    kind: str  # field | variable | local | module_argument | module_output | default | validation | universe
    #           | conditional | function | operator | template | collection | access | iterator | data | literal
    #           | type | unbounded | step
    label: str
    location: str | None = None  # "file:line", relative to the workspace folder
    branches: list[int] = field(default_factory=list)


@record
class GraphEdge:
    source: str  # the node the value comes from
    target: str  # the node that reads it
    label: str | None = None  # "true" / "false" for a conditional's arms, an argument's key
    branches: list[int] = field(default_factory=list)


@record
class GraphBranch:
    index: int
    value: str  # in Terraform's syntax
    condition: str  # the gate as HCL, "true" for a resolved field
    address: str  # the field instance the branch belongs to (several call paths: several fields)
    nodes: list[str] = field(default_factory=list)  # from the field to the literal


@record
class TraceGraph:
    title: str
    kind: str  # resolved | bounded | unbounded (the widest of the results)
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    branches: list[GraphBranch]
    unbounded: list[str]  # the reasons, one per unbounded result

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "kind": self.kind,
            "nodes": [vars(n) | {"branches": list(n.branches)} for n in self.nodes],
            "edges": [vars(e) | {"branches": list(e.branches)} for e in self.edges],
            "branches": [vars(b) | {"nodes": list(b.nodes), "color": PALETTE[b.index % len(PALETTE)]} for b in self.branches],
            "unbounded": list(self.unbounded),
            "palette": list(PALETTE),
        }


def trace_graph(analysis: Analysis, results: Sequence[TraceResult], title: str | None = None) -> TraceGraph:
    """The graph of one field's trace (several results: one per call path reaching the field)."""
    builder = _Builder(analysis)
    for result in results:
        builder.add_result(result)
    kinds = {r.kind for r in results}
    kind = UNBOUNDED if UNBOUNDED in kinds else RESOLVED if kinds == {RESOLVED} else "bounded"
    heading = title or (f"Trace graph: {results[0].address}" if len(results) == 1 else "Trace graph")
    return TraceGraph(heading, kind, list(builder.nodes.values()), list(builder.edges.values()), builder.branches,
                      builder.unbounded)


class _Builder:
    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        self.nodes: dict[tuple, GraphNode] = {}
        self.edges: dict[tuple[str, str, str | None], GraphEdge] = {}
        self.branches: list[GraphBranch] = []
        self.unbounded: list[str] = []
        self._keys: dict[str, tuple] = {}

    def where(self, span) -> str | None:
        return location(self.analysis, span) if span is not None else None

    def node(self, key: tuple, kind: str, label: str, where: str | None, branch: GraphBranch) -> GraphNode:
        node = self.nodes.get(key)
        if node is None:
            node = GraphNode(f"n{len(self.nodes)}", kind, label, where)
            self.nodes[key] = node
            self._keys[node.id] = key
        if branch.index not in node.branches:
            node.branches.append(branch.index)
        if node.id not in branch.nodes:
            branch.nodes.append(node.id)
        return node

    def edge(self, source: GraphNode, target: GraphNode, label: str | None, branch: GraphBranch) -> None:
        key = (source.id, target.id, label)
        edge = self.edges.get(key)
        if edge is None:
            edge = self.edges[key] = GraphEdge(source.id, target.id, label)
        if branch.index not in edge.branches:
            edge.branches.append(branch.index)

    def add_result(self, result: TraceResult) -> None:
        field_key = ("field", result.address)
        where = self.where(result.expr_span)
        if result.unbounded is not None:
            self.unbounded.append(result.unbounded.reason)
        if not result.branches:
            # Nothing to follow: the field, and why it stops.
            probe = GraphBranch(-1, "", "", result.address)
            field_node = self.node(field_key, "field", result.address, where, probe)
            field_node.branches.clear()
            if result.unbounded is not None:
                stop = GraphNode(f"n{len(self.nodes)}", "unbounded", result.unbounded.reason,
                                 self.where(result.unbounded.span))
                self.nodes[("unbounded", result.address)] = stop
                self.edges[(stop.id, field_node.id, None)] = GraphEdge(stop.id, field_node.id, None)
            return
        for b in result.branches:
            branch = GraphBranch(
                index=len(self.branches),
                value=to_display(b.value),
                condition="true" if result.kind == RESOLVED else condition_text(b.cond),
                address=result.address,
            )
            self.branches.append(branch)
            path = tuple(b.path)
            if path and isinstance(path[0], S.FieldStep):
                path = path[1:]
            field_node = self.node(field_key, "field", result.address, where, branch)
            last = self.chain(path, field_node, None, branch)
            if last is not field_node and last.kind == "literal" and last.location is None:
                last.location = self.where(b.source)
        if result.unbounded is not None and result.branches:
            # Bounded values were found, but some paths stop: show where, once.
            key = ("unbounded", result.address)
            if key not in self.nodes:
                stop = GraphNode(f"n{len(self.nodes)}", "unbounded", result.unbounded.reason,
                                 self.where(result.unbounded.span))
                self.nodes[key] = stop
                field_node = self.nodes[field_key]
                self.edges[(stop.id, field_node.id, None)] = GraphEdge(stop.id, field_node.id, None)

    def chain(self, path: tuple[S.Step, ...], reader: GraphNode, label: str | None, branch: GraphBranch) -> GraphNode:
        """Adds the steps of one linear stretch of a path after ``reader``; returns its last node."""
        # The instance of an iterator is chosen before its collection is read (as steps.words does).
        iters = [s for s in path if isinstance(s, S.Iter) and not s.aside]
        if iters:
            path = tuple(iters) + tuple(s for s in path if not isinstance(s, S.Iter))
        i = 0
        while i < len(path):
            step = path[i]
            i += 1
            if step.aside:
                continue
            if isinstance(step, S.Arm):
                # Both arms of one conditional are one node: keyed by the condition, not the arm.
                key = ("Arm", step.condition, self._keys.get(reader.id, reader.id))
                node = self.node(key, "conditional", f"{step.condition or 'condition'} ?", None, branch)
                self.edge(node, reader, label, branch)
                reader, label = node, ("true" if step.true else "false") + (" (always)" if step.constant else "")
                continue
            if isinstance(step, S.Op) and step.sizes:
                parts, i = step.operands(path, i)
                if isinstance(step, S.Build) and step.picked is not None and step.picked in step.keys:
                    # Reading one element of a constructed object: only that element's path matters.
                    reader = self.chain(parts[step.keys.index(step.picked)], reader, label, branch)
                    label = None
                    continue
                node = self.step_node(step, reader, branch)
                self.edge(node, reader, label, branch)
                keys = step.keys if isinstance(step, S.Build) and len(step.keys) == len(parts) else None
                for n, part in enumerate(parts):
                    if all(s.aside for s in part):
                        continue
                    self.chain(part, node, keys[n] if keys else None, branch)
                reader, label = node, None
                continue
            node = self.step_node(step, reader, branch)
            self.edge(node, reader, label, branch)
            reader, label = node, None
        return reader

    def key(self, step: S.Step, reader: GraphNode) -> tuple:
        """Declared steps are the same node wherever they are reached; expression steps belong to their reader."""
        span = step.span
        if span is not None and isinstance(step, (S.NameRef, S.ModCall, S.Default, S.Output, S.Validation, S.TypeBool)):
            return (type(step).__name__, str(step), span.file, span.start)
        return (type(step).__name__, str(step), self._keys.get(reader.id, reader.id))

    def step_node(self, step: S.Step, reader: GraphNode, branch: GraphBranch) -> GraphNode:
        kind, label = describe(step)
        return self.node(self.key(step, reader), kind, label, self.where(step.span), branch)


def describe(step: S.Step) -> tuple[str, str]:
    """(kind, label) of the node a step draws."""
    if isinstance(step, S.NameRef):
        return ("variable" if step.root == "var" else "local"), f"{step.root}.{step.name}"
    if isinstance(step, S.ModCall):
        return "module_argument", f"{ModuleCall(step.call)}\n{step.argument} ="
    if isinstance(step, S.Output):
        return "module_output", str(ModuleCallOutput(step.call, step.output))
    if isinstance(step, S.Default):
        return "default", f"default of {InputVariable(step.variable)}"
    if isinstance(step, S.Validation):
        return "validation", f"validation of {InputVariable(step.variable)}"
    if isinstance(step, S.Universe):
        return "universe", f"universe {step.label}"
    if isinstance(step, S.TypeBool):
        return "type", "bool"
    if isinstance(step, S.Prim):
        return "literal", step.text
    if isinstance(step, S.Iter):
        return "iterator", f"{step.label} [{step.key}]"
    if isinstance(step, S.Data):
        return "data", step.text
    if isinstance(step, S.Build):
        return "collection", "{ … }" if step.text == "ObjectExpr" else "[ … ]"
    if isinstance(step, S.Op):
        kind, _, rest = step.text.partition(" ")
        if kind == "Call":
            return "function", f"{rest.split(' ')[0]}(…)"
        if kind in ("BinaryOp", "UnaryOp"):
            return "operator", rest
        if kind == "GetAttr":
            return "access", f".{rest}"
        if kind == "Index":
            return "access", "[…]"
        if kind == "Splat":
            return "access", "[*]"
        if kind == "TemplateExpr":
            return "template", '"${…}"'
        if kind == "TemplateJoinExpr":
            return "template", '"%{ for }"'
        if kind == "ForExpr":
            return "collection", "for"
        return "operator", step.text
    return "step", str(step)


# ---- Graphviz DOT -------------------------------------------------------------------------------

_FILL = {
    "field": "#c8e6c9",
    "variable": "#e3f2fd",
    "local": "#e3f2fd",
    "module_argument": "#fff3e0",
    "module_output": "#fff3e0",
    "default": "#f3e5f5",
    "validation": "#f3e5f5",
    "universe": "#f3e5f5",
    "type": "#f3e5f5",
    "conditional": "#fffde7",
    "literal": "#ffffff",
    "unbounded": "#ffcdd2",
}
_SHAPE = {"conditional": "diamond", "literal": "note", "function": "ellipse", "operator": "circle", "unbounded": "octagon"}


def to_dot(graph: TraceGraph) -> str:
    """The graph in Graphviz DOT: the field on the right (as the seed draws STIR graphs), each branch's colour."""
    lines = [
        "digraph trace {",
        f"  label={_quote(graph.title)};",
        "  labelloc=t;",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for node in graph.nodes:
        label = node.label + (f"\n{node.location}" if node.location else "")
        attrs = [f"label={_quote(label)}", f"fillcolor={_quote(_FILL.get(node.kind, '#eceff1'))}"]
        if node.kind in _SHAPE:
            attrs.append(f"shape={_SHAPE[node.kind]}")
        if node.kind == "field":
            attrs.append("penwidth=2")
        lines.append(f"  {node.id} [{', '.join(attrs)}];  // {node.kind}")
    for edge in graph.edges:
        colors = ":".join(PALETTE[b % len(PALETTE)] for b in sorted(edge.branches)) or "#9e9e9e"
        attrs = [f"color={_quote(colors)}"]
        if edge.label:
            attrs.append(f"label={_quote(edge.label)}")
        if not edge.branches:
            attrs.append("style=dashed")
        lines.append(f"  {edge.source} -> {edge.target} [{', '.join(attrs)}];")
    if graph.branches:
        rows = "".join(
            f'<tr><td><font color="{PALETTE[b.index % len(PALETTE)]}">&#9632;</font></td>'
            f"<td align=\"left\">{_html(b.value)}</td><td align=\"left\">{_html(b.condition)}</td></tr>"
            for b in graph.branches
        )
        lines.append(
            f'  legend [shape=plaintext, style="", label=<<table border="0" cellborder="0" cellspacing="2">'
            f'<tr><td></td><td align="left"><b>value</b></td><td align="left"><b>condition</b></td></tr>{rows}</table>>];'
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
