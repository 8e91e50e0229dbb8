"""The specializer: one count-gated module per distinct value of a traced field (SPEC section 7).

Pure: it reads the analysis snapshot and returns text; it never writes files.

Shape of the output, for a field of resource ``T.N`` declared in module directory ``H`` (the
*host*):

* the resource block is replaced, in place, by one ``module "<name>"`` block per distinct branch
  value, each sourcing a generated sub-module ``H/.tfphi/specialized/<name>`` that holds a copy
  of the resource with the field's expression replaced by the branch value. Everything else the
  resource reads from ``H`` (variables, locals, other resources, module outputs, data sources,
  ``path.module``) is passed in as a module argument, so the copy reads exactly what the
  original read. A resource that already has ``count``/``for_each`` keeps it inside the
  sub-module (the seed's synthetic module wrapping): the wrapper is gated, the inner iteration
  is untouched.
* each module is gated ``count = <gate> ? 1 : 0`` where ``<gate>`` is the branch condition
  materialized (normalized) in ``H``'s scope. When a condition atom lives in an ancestor module
  on the call path (the usual case: the root decides, a child declares the resource), the
  values the atom reads are *threaded* down the call path as new module arguments/variables
  named like the originals (``var.customer_env`` stays ``var.customer_env``), so the gate text
  reads like the vendor's own condition.
* references to ``T.N`` elsewhere in ``H`` are rewritten onto the branch modules: with one gated
  module ``module.x[0].attr`` (the ``[0]`` splice right after the root reference); with several,
  ``one(concat(module.a[*].attr, module.b[*].attr))`` - exactly one branch has ``count = 1``, so
  ``one`` yields its value and never needs the inactive branch (a conditional over
  ``module.a[0].attr`` would fail on the inactive branch's empty list). ``depends_on`` entries
  naming ``T.N`` list every branch module.
* ``moved`` blocks: Terraform accepts one ``moved`` block per ``from`` address, and which branch
  a deployment takes is only known at its plan. So a Resolved field gets its single ``moved``
  block inline, and a Bounded field gets, per deployment of the root, a root-module file
  ``moved/<deployment>.tf`` (``specialize.moves``) with the move to the branch it activates.
* provenance: an inline comment above each module and a JSON record per specialization.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Iterable

from ..addrs import NO_KEY, ROOT_MODULE, AbsResource, InputVariable, ModuleCall, ModuleInstance, Resource as ResourceAddr
from .. import __version__
from ..analysis import Analysis
from ..features.locations import human_position, location
from ..records import record, field
from ..stir.model import Module, Resource
from ..records import replace
from ..syntax.expr import AttrStep, Expr, IndexStep, ScopeTraversalExpr, Span, TupleExpr, walk
from ..trace import printer as P
from ..trace.lift import substitute
from ..syntax.hclfile import Attribute, Body
from ..trace import conditions as C
from ..trace import steps as S
from ..trace.result import RESOLVED, UNBOUNDED, Branch, TraceResult
from ..values.value import hcl_string, to_hcl, to_json, value_key
from .fmt import align

COMPILER_VERSION = f"tfphi {__version__}"
SPECIALIZED_DIR = ".tfphi/specialized"
GATES_FILE = "tfphi_gates.tf"
GUARDS_FILE = "tfphi_guards.tf"
INDENT = "  "


@record(frozen=True)
class Specialization:
    """One distinct value of the field, its coalesced condition and its generated module."""

    name: str
    value: Any
    cond: C.Cond  # TRUE for a Resolved field
    gate: str | None  # materialized in the host module's scope; None when ungated
    branches: tuple[Branch, ...]
    source_dir: str  # workspace-relative directory of the generated sub-module
    moved_from: str | None  # root-module addresses of the move (None for a data source)
    moved_to: str | None


@record
class Plan:
    """What the specializer produced for one field (or why it produced nothing)."""

    address: str
    field: str
    kind: str
    resource: Resource | None = None
    host_dir: str = ""
    call_path: tuple[tuple[str, str], ...] = ()
    specializations: list[Specialization] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # workspace-relative path -> full text
    provenance: list[dict] = field(default_factory=list)
    blocked: str | None = None  # why there is no output
    notes: list[str] = field(default_factory=list)


class NotSpecializable(Exception):
    pass


# ---- naming -----------------------------------------------------------------------------------


def sanitize(value: Any) -> str:
    """A value as an identifier fragment: ``"15.4"`` -> ``15_4``, ``"db.t4g.medium"`` -> ``db_t4g_medium``."""
    text = value if isinstance(value, str) else to_hcl(value)
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return slug or "empty"


def base_name(resource_name: str, value: Any) -> str:
    """``<resource name>_v<value>`` for values that start with a digit (versions), else ``<resource name>_<value>``."""
    slug = sanitize(value)
    return f"{resource_name}_v{slug}" if slug[0].isdigit() else f"{resource_name}_{slug}"


def specialization_names(resource_name: str, values: Iterable[Any], taken: Iterable[str] = ()) -> list[str]:
    """Deterministic, collision-free module names, in the order of ``values`` (``_2``, ``_3``... on clashes)."""
    used = set(taken)
    names = []
    for value in values:
        name = base_name(resource_name, value)
        candidate, n = name, 2
        while candidate in used:
            candidate, n = f"{name}_{n}", n + 1
        used.add(candidate)
        names.append(candidate)
    return names


def group_branches(trace: TraceResult) -> list[tuple[Any, C.Cond, tuple[Branch, ...]]]:
    """Branches with equal values deduplicated (conditions joined with ``Or``), in trace order."""
    groups: dict[str, list[Branch]] = {}
    for branch in trace.branches:
        groups.setdefault(value_key(branch.value), []).append(branch)
    out = []
    for members in groups.values():
        cond = C.disjoin([b.cond for b in members]) if trace.kind != RESOLVED else C.TRUE
        out.append((members[0].value, cond, tuple(members)))
    if len(out) == 1:
        value, _, members = out[0]
        out = [(value, C.TRUE, members)]  # one value: no gate (the conditions cover every case)
    return out


def names_for(analysis: Analysis, trace: TraceResult, resource: Resource) -> list[str]:
    """The module names a specialization of ``trace`` would use (for code lenses and titles)."""
    host = analysis.modules.get(trace.call_path[-1][1]) if trace.call_path else None
    taken = set(host.calls) if host else set()
    return specialization_names(resource.name, [v for v, _, _ in group_branches(trace)], taken)


# ---- entry point ------------------------------------------------------------------------------


def specialize(analysis: Analysis, trace: TraceResult, resource: Resource, field_name: str) -> Plan:
    plan = Plan(trace.address, field_name, trace.kind, resource)
    if trace.kind == UNBOUNDED:
        plan.blocked = trace.reason or "the field is unbounded"
        return plan
    try:
        _Builder(analysis, trace, resource, field_name, plan).build()
    except NotSpecializable as exc:
        plan.blocked = str(exc)
        plan.specializations, plan.files, plan.provenance = [], {}, []
    return plan


# ---- the builder ---------------------------------------------------------------------------------


def _body_attributes(body: Body) -> Iterable[Attribute]:
    yield from body.attributes.values()
    for block in body.blocks:
        yield from _body_attributes(block.body)


def _printed(expr: Expr, what: str) -> str:
    """A gate's expression as one line of Terraform (``printer``), never the source text."""
    try:
        return P.print_expr(expr)
    except P.NotPrintable:
        raise NotSpecializable(f"the condition {what} cannot be written as a gate") from None


def _apply_edits(source: bytes, start: int, end: int, edits: list[tuple[int, int, str]]) -> str:
    """``source[start:end]`` with each (abs_start, abs_end, replacement) applied; edits must not overlap."""
    out = bytearray()
    pos = start
    for s, e, repl in sorted(edits):
        if s < pos:
            continue  # nested inside an earlier edit (e.g. a reference inside the replaced field)
        out += source[pos:s]
        out += repl.encode("utf-8")
        pos = e
    out += source[pos:end]
    return out.decode("utf-8")


class _Builder:
    def __init__(self, analysis: Analysis, trace: TraceResult, resource: Resource, field_name: str, plan: Plan):
        self.a = analysis
        self.trace = trace
        self.res = resource
        self.field = field_name
        self.plan = plan
        self.path = trace.call_path or (("", posixpath.dirname(resource.span.file)),)
        self.host_dir = self.path[-1][1]
        self.host: Module = analysis.modules[self.host_dir]
        plan.host_dir = self.host_dir
        plan.call_path = tuple(self.path)
        self.iterated = resource.count is not None or resource.for_each is not None
        self.edits: dict[str, list[tuple[int, int, str]]] = {}  # file -> edits on the original text
        self.threaded: dict[tuple[int, str], str] = {}  # (frame, reference text) -> variable name
        self.new_vars: dict[int, list[tuple[str, str | None]]] = {}  # frame -> [(name, type text)]

    # -- helpers --

    def text(self, span: Span) -> str:
        return self.a.text(span)

    def source(self, path: str) -> bytes:
        return self.a.files[path].source

    def lines(self, span: Span) -> str:
        first = human_position(self.a, span.file, span.start)[0]
        last = human_position(self.a, span.file, max(span.start, span.end - 1))[0]
        return f"{span.file}:{first}-{last}" if last != first else f"{span.file}:{first}"

    def edit(self, path: str, start: int, end: int, text: str) -> None:
        self.edits.setdefault(path, []).append((start, end, text))

    # -- steps --

    def build(self) -> None:
        groups = group_branches(self.trace)
        names = specialization_names(self.res.name, [v for v, _, _ in groups], set(self.host.calls))
        gated = len(groups) > 1
        specs: list[Specialization] = []
        for (value, cond, members), name in zip(groups, names):
            gate = self.gate_text(cond) if gated else None
            source_dir = posixpath.join(self.host_dir, SPECIALIZED_DIR, name) if self.host_dir else f"{SPECIALIZED_DIR}/{name}"
            moved_from = moved_to = None
            if self.res.mode == "managed":
                here = ModuleInstance.of_calls(call for call, _ in self.path[1:])
                resource = ResourceAddr(self.res.mode, self.res.type, self.res.name)
                moved_from = str(AbsResource(here, resource))
                moved_to = str(AbsResource(here.child(name, 0 if gated else NO_KEY), resource))
            specs.append(Specialization(name, value, cond, gate, members, source_dir, moved_from, moved_to))
        self.plan.specializations = specs
        inputs, outputs = self.interface()
        self.replace_resource(specs, inputs)
        self.rewrite_references(specs, outputs)
        if gated:
            self.guard_universe()
        for spec in specs:
            self.plan.files[posixpath.join(spec.source_dir, "main.tf")] = self.submodule(spec, inputs, outputs)
        self.thread_edits()
        files: dict[str, str] = {}
        for path in sorted(self.edits):
            source = self.source(path)
            files[path] = _apply_edits(source, 0, len(source), self.edits[path])
        gates = self.gates_file()
        if gates:
            files[posixpath.join(self.host_dir, GATES_FILE)] = gates
        files.update(self.plan.files)
        self.plan.files = {path: align(text) for path, text in files.items()}
        self.plan.provenance = [self.record(spec) for spec in specs]

    # -- the universe guard --

    def guard_universe(self) -> None:
        """SPEC 7: branches that come from a universe (configured, or given by the service
        compiler) which the configuration does not enforce leave every other value of the
        selector with no branch at all: a plan in which every specialization has ``count = 0``.
        So the selector is guarded: a ``validation`` block on the root variable that selects,
        else an output's ``precondition`` in the root module with the same condition."""
        allowed: dict[str, tuple[C.Eq, list[Any]]] = {}
        for branch in self.trace.branches:
            if not any(isinstance(step, S.Universe) for step in branch.path):
                continue
            for atom in C.atoms(branch.cond):
                if isinstance(atom, C.Eq) and not atom.iteration and atom.scope.is_root:
                    entry = allowed.setdefault(atom.selector, (atom, []))
                    if all(value_key(v) != atom.value_key for v in entry[1]):
                        entry[1].append(atom.value)
        root_dir = self.path[0][1]
        root = self.a.modules[root_dir]
        outputs: list[str] = []
        for selector, (atom, values) in allowed.items():
            listed = "[" + ", ".join(to_hcl(v) for v in values) + "]"
            condition = f"contains({listed}, {selector})"
            message = hcl_string(
                f"The specialization of {self.trace.address} has a module for each of {', '.join(to_hcl(v) for v in values)} "
                f"only: any other value of {selector} would create no {self.res.address}."
            )
            guard = f"{INDENT}{{kind}} {{{{\n{INDENT * 2}condition = {condition}\n{INDENT * 2}error_message = {message}\n{INDENT}}}}}\n"
            var = root.variables.get(atom.expr[1]) if isinstance(atom.expr, tuple) and atom.expr[:1] == ("var",) else None
            if var is not None:
                close = var.span.end - 1
                before = self.source(var.span.file)[close - 1:close]
                comment = f"{INDENT}# Added by tfphi: the values {self.trace.address} is specialized for.\n"
                self.edit(var.span.file, close, close, ("" if before == b"\n" else "\n") + comment + guard.format(kind="validation"))
            else:
                name = "tfphi_universe_" + re.sub(r"[^A-Za-z0-9_]", "_", selector)
                outputs.append(f'output "{name}" {{\n{INDENT}value = {selector}\n\n' + guard.format(kind="precondition") + "}\n")
        if outputs:
            header = f"# Generated by tfphi: the values {self.trace.address} is specialized for.\n"
            self.plan.files[posixpath.join(root_dir, GUARDS_FILE)] = header + "\n".join(outputs)

    # -- gates --

    def gate_text(self, cond: C.Cond) -> str | None:
        return C.materialize(self.rescope(cond), normalize=True)

    def rescope(self, cond: C.Cond) -> C.Cond:
        """The condition with every atom rewritten into the host module's scope (threading as needed)."""
        if isinstance(cond, C.Not):
            return C.Not(self.rescope(cond.inner))
        if isinstance(cond, C.And):
            return C.And(tuple(self.rescope(i) for i in cond.items))
        if isinstance(cond, C.Or):
            return C.Or(tuple(self.rescope(i) for i in cond.items))
        if isinstance(cond, C.Existing):
            expr = cond.expr
            if not isinstance(expr, Expr):
                raise NotSpecializable(f"the condition {cond.text} has no source expression to gate on")
            frame = self.frame_of_dir(posixpath.dirname(expr.span.file), cond.text)
            if frame == len(self.path) - 1:
                # Written in the host itself: the gate is the atom's own expression, printed from its tree.
                return C.Existing(cond.text, None, cond.precedence, root_expr=expr)
            return C.Existing(cond.text, None, cond.precedence, root_expr=self.thread_expr(expr, frame))
        if isinstance(cond, C.Eq):
            return self.rescope_eq(cond)
        return cond

    def frame_of_dir(self, dir: str, what: str) -> int:
        for i in range(len(self.path) - 1, -1, -1):
            if self.path[i][1] == dir:
                return i
        raise NotSpecializable(
            f"the condition {what} is decided inside module directory {dir or '.'}, which is not on the call path of "
            f"{self.trace.address}; a count gate next to the resource cannot read it"
        )

    def rescope_eq(self, cond: C.Eq) -> C.Cond:
        expr = cond.expr
        if cond.iteration:
            raise NotSpecializable(
                f"the branches differ by instance ({cond.selector}); one resource's instances cannot be split into "
                "count-gated modules - make the value independent of the instance key to specialize it"
            )
        if isinstance(expr, tuple) and expr[:1] == ("var",):
            frame = self.frame_of_variable(expr[1])
            if frame == len(self.path) - 1:
                return cond
            name = self.thread_reference(frame, str(InputVariable(expr[1])), self.var_type(frame, expr[1]))
            return C.Eq(str(InputVariable(name)), cond.value_key, cond.value)
        if isinstance(expr, Expr):
            frame = self.frame_of_dir(posixpath.dirname(expr.span.file), cond.selector)
            if frame == len(self.path) - 1:
                return cond
            threaded = self.thread_expr(expr, frame)
            return C.Eq(_printed(threaded, cond.selector), cond.value_key, cond.value, root_selector=threaded)
        raise NotSpecializable(f"the selector {cond.selector} has no source expression to gate on")

    def frame_of_variable(self, name: str) -> int:
        """The frame whose ``var.<name>`` an ``Eq`` atom tests: the root's, unless only a deeper module declares it."""
        declaring = [i for i, (_, dir) in enumerate(self.path) if name in self.a.modules[dir].variables]
        if not declaring:
            raise NotSpecializable(f"{InputVariable(name)} is not declared on the call path of {self.trace.address}")
        return declaring[0]

    def var_type(self, frame: int, name: str) -> str | None:
        var = self.a.modules[self.path[frame][1]].variables.get(name)
        return self.text(var.type_expr.span) if var is not None and var.type_expr is not None else None

    def thread_expr(self, expr: Expr, frame: int) -> Expr:
        """``expr`` (a tree) with each scope reference replaced by a variable threaded down from ``frame``."""
        module = self.a.modules[self.path[frame][1]]

        def thread(ref: ScopeTraversalExpr) -> Expr:
            steps = tuple(replace(s, key=self.thread_expr(s.key, frame)) if isinstance(s, IndexStep) else s for s in ref.steps)
            prefix = self.reference_prefix(ref, module)
            if prefix is None or prefix[1] == "static":
                return replace(ref, steps=steps)
            kind = prefix[1]
            if kind == "iterator":
                raise NotSpecializable(f"the condition reads {self.text(ref.span)}, which differs per instance")
            named = 2 if kind == "data" else 1
            ref_text = ref.root + "".join(f".{s.name}" for s in ref.steps[:named])  # type: ignore[union-attr]
            type_text = self.var_type(frame, ref.steps[0].name) if kind == "var" else None  # type: ignore[union-attr]
            name = self.thread_reference(frame, ref_text, type_text)
            return ScopeTraversalExpr(P.NOWHERE, "var", P.NOWHERE, (AttrStep(name, P.NOWHERE),) + steps[named:])

        threaded = substitute(expr, frozenset(), thread)
        if threaded is None:
            raise NotSpecializable(f"the condition {self.text(expr.span)} cannot be written in the module that holds the resource")
        return threaded

    def reference_prefix(self, ref: ScopeTraversalExpr, module: Module) -> tuple[int, str] | None:
        """How much of a reference names a declaration of ``module`` (end offset) and its kind."""
        steps = ref.steps
        first = steps[0] if steps and isinstance(steps[0], AttrStep) else None
        if ref.root in ("var", "local") and first:
            return first.span.end, ref.root
        if ref.root == "module" and first:
            return first.span.end, "module"
        if ref.root == "data" and len(steps) >= 2 and all(isinstance(s, AttrStep) for s in steps[:2]):
            return steps[1].span.end, "data"
        if ref.root == "path" and first and first.name == "module":
            return first.span.end, "path"
        if ref.root in ("path", "terraform"):
            return ref.root_span.end, "static"  # the same in every module
        if ref.root in ("each", "count", "self"):
            return ref.root_span.end, "iterator"
        if first and f"{ref.root}.{first.name}" in module.resources:
            return first.span.end, "resource"
        return None

    def thread_reference(self, frame: int, ref_text: str, type_text: str | None) -> str:
        """A variable of the host carrying ``ref_text`` (evaluated in ``frame``) down the call path."""
        key = (frame, ref_text)
        if key in self.threaded:
            return self.threaded[key]
        parts = ref_text.split(".")
        base = parts[1] if parts[0] in ("var", "local") else "_".join(parts)
        base = re.sub(r"[^A-Za-z0-9_]", "_", base)
        taken = set(self.threaded.values())
        for i in range(frame + 1, len(self.path)):
            module = self.a.modules[self.path[i][1]]
            taken |= set(module.variables) | set(module.locals)
            caller = self.a.modules[self.path[i - 1][1]]
            call = caller.calls.get(self.path[i][0])
            if call is not None:
                taken |= set(call.body.attributes)
        name = base if base not in taken else f"tfphi_{base}"
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name}_{n}", n + 1
        self.threaded[key] = candidate
        return candidate

    def thread_edits(self) -> None:
        """Arguments on every module call between the atom's frame and the host, variables below it."""
        per_call: dict[int, list[str]] = {}
        for (frame, ref_text), name in sorted(self.threaded.items()):
            type_text = self.var_type(frame, ref_text.split(".")[1]) if ref_text.startswith("var.") else None
            for i in range(frame + 1, len(self.path)):
                value = ref_text if i == frame + 1 else str(InputVariable(name))
                per_call.setdefault(i, []).append(f"{name} = {value}")
                self.new_vars.setdefault(i, []).append((name, type_text))
        for i, args in sorted(per_call.items()):
            caller = self.a.modules[self.path[i - 1][1]]
            call = caller.calls[self.path[i][0]]
            close = call.span.end - 1
            text = "".join(f"{INDENT}{arg}  # threaded by tfphi for a specialization gate\n" for arg in args)
            self.edit(call.span.file, close, close, text)
        for i, variables in self.new_vars.items():
            if i != len(self.path) - 1:
                dir = self.path[i][1]
                self.plan.files[posixpath.join(dir, GATES_FILE)] = self.variables_text(variables)
        if len(self.path) > 1 and self.threaded:
            callers = self.a.tree.callers.get(self.host_dir, ()) if hasattr(self.a.tree, "callers") else ()
            if len(tuple(callers)) > 1:
                self.plan.notes.append(f"{self.host_dir} has other callers; they must pass the threaded gate variables too")

    def variables_text(self, variables: list[tuple[str, str | None]]) -> str:
        parts = ["# Generated by tfphi: values a specialization gate reads, threaded down from the caller.\n"]
        for name, type_text in variables:
            parts.append(_variable_block(name, type_text))
        return _join_blocks(parts)

    def gates_file(self) -> str | None:
        variables = self.new_vars.get(len(self.path) - 1)
        return self.variables_text(variables) if variables else None

    # -- the sub-module interface --

    def interface(self) -> tuple[dict[str, tuple[str, str | None]], list[str]]:
        """Inputs (name -> (parent expression, type)) the resource needs, and outputs the host reads."""
        inputs: dict[str, tuple[str, str | None]] = {}
        self.inner_edits: list[tuple[int, int, str]] = []
        field_span = self.trace.expr_span
        source = self.source(self.res.span.file)
        for attr in _body_attributes(self.res.body):
            if attr.name in ("provider", "depends_on") and attr in self.res.body.attributes.values():
                continue
            for ref in (e for e in walk(attr.expr) if isinstance(e, ScopeTraversalExpr)):
                if field_span and field_span.start <= ref.span.start and ref.span.end <= field_span.end:
                    continue
                prefix = self.reference_prefix(ref, self.host)
                if prefix is None:
                    continue
                end, kind = prefix
                if kind in ("static", "iterator"):
                    continue
                ref_text = source[ref.span.start:end].decode("utf-8")
                parts = ref_text.split(".")
                if kind == "var":
                    name, type_text = parts[1], self.var_type(len(self.path) - 1, parts[1])
                else:
                    name, type_text = re.sub(r"[^A-Za-z0-9_]", "_", "_".join(parts)), None
                inputs.setdefault(name, (ref_text, type_text))
                if kind != "var":
                    self.inner_edits.append((ref.span.start, end, str(InputVariable(name))))
        outputs: list[str] = []
        for ref, _ in self.host_references():
            out = self.output_for(ref)
            if out not in outputs:
                outputs.append(out)
        return dict(sorted(inputs.items())), outputs

    def host_references(self) -> Iterable[tuple[ScopeTraversalExpr, Attribute]]:
        """References to the resource from the rest of the host module (not from the resource itself)."""
        root, name = (self.res.type, self.res.name) if self.res.mode == "managed" else ("data", None)
        for path in self.host.files:
            hcl = self.a.files[path]
            for attr in self._file_attributes(hcl.body):
                if attr.span.file == self.res.span.file and self.res.span.start <= attr.span.start < self.res.span.end:
                    continue
                for ref in (e for e in walk(attr.expr) if isinstance(e, ScopeTraversalExpr)):
                    if self.refers_to_resource(ref):
                        yield ref, attr

    def _file_attributes(self, body: Body) -> Iterable[Attribute]:
        for block in body.blocks:
            if block.type in ("moved", "import", "removed"):
                continue
            yield from _body_attributes(block.body)

    def refers_to_resource(self, ref: ScopeTraversalExpr) -> bool:
        steps = ref.steps
        if self.res.mode == "data":
            return (ref.root == "data" and len(steps) >= 2 and all(isinstance(s, AttrStep) for s in steps[:2])
                    and steps[0].name == self.res.type and steps[1].name == self.res.name)
        return ref.root == self.res.type and bool(steps) and isinstance(steps[0], AttrStep) and steps[0].name == self.res.name

    def resource_steps(self) -> int:
        return 2 if self.res.mode == "data" else 1

    def output_for(self, ref: ScopeTraversalExpr) -> str:
        n = self.resource_steps()
        rest = ref.steps[n:]
        if not self.iterated and rest and isinstance(rest[0], AttrStep):
            return rest[0].name
        return "this"

    # -- host edits --

    def module_ref(self, specs: list[Specialization], output: str) -> str:
        if len(specs) == 1:
            gated = specs[0].gate is not None
            return f"{ModuleCall(specs[0].name)}{'[0]' if gated else ''}.{output}"
        return "one(concat(" + ", ".join(f"{ModuleCall(s.name)}[*].{output}" for s in specs) + "))"

    def rewrite_references(self, specs: list[Specialization], outputs: list[str]) -> None:
        n = self.resource_steps()
        for ref, attr in self.host_references():
            if attr.name == "depends_on" and isinstance(attr.expr, TupleExpr) and any(item is ref for item in attr.expr.items):
                self.edit(ref.span.file, ref.span.start, ref.span.end, ", ".join(str(ModuleCall(s.name)) for s in specs))
                continue
            output = self.output_for(ref)
            rest = ref.steps[n:]
            end = rest[0].span.end if output != "this" else ref.steps[n - 1].span.end
            self.edit(ref.span.file, ref.span.start, end, self.module_ref(specs, output))

    def replace_resource(self, specs: list[Specialization], inputs: dict[str, tuple[str, str | None]]) -> None:
        blocks = []
        provider = self.res.body.attributes.get("provider")
        depends = self.res.body.attributes.get("depends_on")
        for spec in specs:
            lines = [self.comment(spec)]
            lines.append(f'module "{spec.name}" {{')
            if spec.gate is not None:
                lines.append(f"{INDENT}count  = {spec.gate} ? 1 : 0")
            rel = posixpath.relpath(spec.source_dir, self.host_dir or ".")
            lines.append(f"{INDENT}source = {hcl_string('./' + rel)}")
            if provider is not None:
                text = _printed(provider.expr, "provider")
                lines.append(f"{INDENT}providers = {{ {text.split('.')[0]} = {text} }}")
            if inputs:
                lines.append("")
                width = max(len(k) for k in inputs)
                for name, (expr, _) in inputs.items():
                    lines.append(f"{INDENT}{name.ljust(width)} = {expr}")
            if depends is not None:
                lines.append("")
                lines.append(f"{INDENT}depends_on = {_printed(depends.expr, 'depends_on')}")
            lines.append("}")
            if spec.gate is None and spec.moved_from is not None:  # the same move in every deployment: inline
                moved_to = str(AbsResource(ROOT_MODULE.child(spec.name), ResourceAddr(self.res.mode, self.res.type, self.res.name)))
                lines += ["", "moved {", f"{INDENT}from = {self.res.address}", f"{INDENT}to   = {moved_to}", "}"]
            blocks.append("\n".join(lines))
        self.edit(self.res.span.file, self.res.span.start, self.res.span.end, "\n\n".join(blocks))

    def comment(self, spec: Specialization) -> str:
        gate = "none (resolved)" if spec.gate is None else str(spec.cond)
        return f"# phi: {self.field} ({self.res.address}) - gate: {gate} - trace: {self.lines(self.res.span)} - {COMPILER_VERSION}"

    # -- generated files --

    def submodule(self, spec: Specialization, inputs, outputs: list[str]) -> str:
        source = self.source(self.res.span.file)
        edits = list(self.inner_edits)
        if self.trace.expr_span is not None:
            edits.append((self.trace.expr_span.start, self.trace.expr_span.end, to_hcl(spec.value)))
        for meta in ("provider", "depends_on"):
            attr = self.res.body.attributes.get(meta)
            if attr is not None:
                start, end = _line_extent(source, attr.span)
                edits.append((start, end, ""))
        resource_text = _apply_edits(source, self.res.span.start, self.res.span.end, edits)
        parts = [
            f"# Generated by {COMPILER_VERSION}: {self.res.address} specialized for {self.field} = {to_hcl(spec.value)}.\n"
            f"# gate: {'none (resolved)' if spec.gate is None else spec.cond} - trace: {self.lines(self.res.span)}\n"
        ]
        for name, (_, type_text) in inputs.items():
            parts.append(_variable_block(name, type_text))
        parts.append(resource_text + "\n")
        address = self.res.address
        for out in outputs:
            value = address if out == "this" else f"{address}.{out}"
            parts.append(f'output "{out}" {{\n{INDENT}value = {value}\n}}\n')
        return _join_blocks(parts)

    def record(self, spec: Specialization) -> dict:
        first = spec.branches[0]
        return {
            "module": spec.name,
            "address": str(ModuleInstance.of_calls([*(call for call, _ in self.path[1:]), spec.name])),
            "source_field": f"{self.res.address}.{self.field}",
            "branch_value": to_json(spec.value),
            "gate": None if spec.gate is None else str(spec.cond),
            "gate_hcl": spec.gate,
            "trace_path": [str(step) for step in first.path],
            "trace_paths": [[str(step) for step in b.path] for b in spec.branches] if len(spec.branches) > 1 else None,
            "source_span": self.lines(self.res.span),
            "value_source": _location(self.a, first.source),
            "module_source": spec.source_dir,
            "moved": None if spec.moved_from is None else {"from": spec.moved_from, "to": spec.moved_to},
            "compiler_version": COMPILER_VERSION,
        }


def _location(analysis: Analysis, span: Span | None) -> str | None:
    return location(analysis, span)


def _line_extent(source: bytes, span: Span) -> tuple[int, int]:
    """The span widened to whole lines when it sits alone on its line (so removing it leaves no blank
    line), and to the blank line before it when it is the last thing in its block."""
    start = source.rfind(b"\n", 0, span.start) + 1
    end = source.find(b"\n", span.end)
    end = len(source) if end < 0 else end + 1
    if source[start:span.start].strip() or source[span.end:end].strip():
        return span.start, span.end
    before = source.rfind(b"\n", 0, max(start - 1, 0)) + 1
    next_end = source.find(b"\n", end)
    next_line = source[end:len(source) if next_end < 0 else next_end].strip()
    if start > 0 and not source[before:start].strip() and next_line.startswith(b"}"):
        start = before
    return start, end


def _variable_block(name: str, type_text: str | None) -> str:
    """``variable "name" { type = T }`` laid out as terraform fmt does (``{}`` when untyped)."""
    return f'variable "{name}" {{\n{INDENT}type = {type_text}\n}}\n' if type_text else f'variable "{name}" {{}}\n'


def _join_blocks(parts: list[str]) -> str:
    return "\n".join(p if p.endswith("\n") else p + "\n" for p in parts)
