"""Go to definition, find references and document symbols for var/local/module/output/resource/data."""

from __future__ import annotations

from ..addrs import InputVariable, LocalValue, ModuleCall, OutputValue, Resource
from ..records import record

from ..analysis import Analysis
from ..stir.model import Module
from ..stir.workspace import module_dir_of
from ..syntax.expr import AttrStep, IndexStep, ScopeTraversalExpr, Span, SplatStep
from ..syntax.hclfile import Block, Body
from .cursor import contains, innermost_traversal, tfvars_variable
from ..syntax.expr import walk

# A declaration: (kind, module dir, name); kind is var | local | module | output | resource | data.
Decl = tuple[str, str, str]


@record(frozen=True)
class Symbol:
    """One outline entry: ``span`` is the whole declaration, ``selection_span`` its name."""

    name: str
    kind: str  # variable | local | resource | data | module | output | provider | block
    span: Span
    selection_span: Span
    children: tuple["Symbol", ...] = ()


# ---- definition -------------------------------------------------------------------------------


def definition(analysis: Analysis, path: str, offset: int) -> list[Span]:
    """Where the reference (or module argument name) at ``offset`` is declared."""
    dir = module_dir_of(path)
    module = analysis.modules.get(dir)
    if path in analysis.tfvars:
        var = tfvars_variable(analysis, path, offset)
        return [var.label_span] if var is not None else []
    if module is None or path not in analysis.files:
        return []
    source = _source_at(analysis, module, path, offset)
    if source is not None:
        return [source]
    argument = _argument_at(analysis, module, path, offset)
    if argument is not None:
        span = declaration_span(analysis, argument)
        return [span] if span is not None else []
    found = _reference_at(analysis, path, offset)
    if found is None:
        return []
    expr = found
    decl = resolve(analysis, module, expr, offset)
    if decl is None:
        return _iterator_definition(analysis, module, path, expr, offset)
    span = declaration_span(analysis, decl)
    return [span] if span is not None else []


def _iterator_definition(analysis: Analysis, module: Module, path: str, expr: ScopeTraversalExpr, offset: int) -> list[Span]:
    """``each.*``/``count.index`` lead to the enclosing block's ``for_each``/``count``."""
    if expr.root not in ("each", "count"):
        return []
    meta = "for_each" if expr.root == "each" else "count"
    for block in analysis.files[path].body.blocks:
        if contains(block.span, offset) and meta in block.body.attributes:
            return [block.body.attributes[meta].name_span]
    return []


def _reference_at(analysis: Analysis, path: str, offset: int):
    for attr in _file_attributes(analysis.files[path].body):
        if contains(attr.span, offset):
            found = innermost_traversal(attr.expr, offset)
            if found is not None:
                return found
    return None


def _source_at(analysis: Analysis, module: Module, path: str, offset: int) -> Span | None:
    """A module block's ``source`` leads to the start of the called module's first file."""
    for call in module.calls.values():
        if call.source_attr is not None and call.span.file == path and contains(call.source_attr.expr.span, offset):
            target = analysis.tree.targets.get((module.dir, call.name))
            child = analysis.modules.get(target.dir) if target is not None and target.dir is not None else None
            if child is not None and child.files:
                first = next((f for f in child.files if f.endswith("/main.tf") or f == "main.tf"), child.files[0])
                return Span(first, 0, 0)
    return None


def _argument_at(analysis: Analysis, module: Module, path: str, offset: int) -> Decl | None:
    """A module block's argument name under the cursor, as the child variable it sets."""
    for call in module.calls.values():
        if call.span.file != path or not contains(call.span, offset):
            continue
        for name, attr in call.arguments.items():
            if contains(attr.name_span, offset):
                target = analysis.tree.targets.get((module.dir, call.name))
                if target is not None and target.dir is not None:
                    return ("var", target.dir, name)
    return None


def resolve(analysis: Analysis, module: Module, expr: ScopeTraversalExpr, offset: int | None = None) -> Decl | None:
    """The declaration a traversal names (``module.m.out`` names the output when the cursor is on ``out``)."""
    steps = expr.steps
    first = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
    if first is None:
        return None
    dir = module.dir
    if expr.root == "var":
        return ("var", dir, first) if first in module.variables else None
    if expr.root == "local":
        return ("local", dir, first) if first in module.locals else None
    if expr.root == "module":
        if first not in module.calls:
            return None
        output = _output_step(steps)
        target = analysis.tree.targets.get((dir, first))
        if output is not None and target is not None and target.dir is not None:
            on_output = offset is None or offset >= output.span.start
            child = analysis.modules.get(target.dir)
            if on_output and child is not None and output.name in child.outputs:
                return ("output", target.dir, output.name)
        return ("module", dir, first)
    if expr.root == "data":
        second = steps[1].name if len(steps) > 1 and isinstance(steps[1], AttrStep) else None
        key = f"{first}.{second}"
        return ("data", dir, key) if second and key in module.data else None
    if expr.root == "resource":  # resource.<type>.<name> (Terraform 1.4+) is <type>.<name>
        second = steps[1].name if len(steps) > 1 and isinstance(steps[1], AttrStep) else None
        key = f"{first}.{second}"
        return ("resource", dir, key) if second and key in module.resources else None
    key = f"{expr.root}.{first}"
    return ("resource", dir, key) if key in module.resources else None


def _output_step(steps) -> AttrStep | None:
    rest = list(steps[1:])
    while rest and isinstance(rest[0], (IndexStep, SplatStep)):
        rest.pop(0)
    return rest[0] if rest and isinstance(rest[0], AttrStep) and rest[0].name else None


def declaration_span(analysis: Analysis, decl: Decl) -> Span | None:
    """The name span of a declaration: a block label, or a local's attribute name."""
    kind, dir, name = decl
    module = analysis.modules.get(dir)
    if module is None:
        return None
    if kind == "var" and name in module.variables:
        return module.variables[name].label_span
    if kind == "local" and name in module.locals:
        return module.locals[name].attribute.name_span
    if kind == "module" and name in module.calls:
        return module.calls[name].label_span
    if kind == "output" and name in module.outputs:
        return module.outputs[name].label_span
    table = module.resources if kind == "resource" else module.data if kind == "data" else {}
    resource = table.get(name)
    if resource is not None:
        return resource.label_spans[-1]
    return None


# ---- references ---------------------------------------------------------------------------------


def _declared_name(analysis: Analysis, decl: tuple) -> str:
    """The name a reference to the declaration ends with (a resource's own name, not its type)."""
    kind, dir, key = decl[:3]
    if kind in ("resource", "data"):
        module = analysis.modules.get(dir)
        resource = (module.data if kind == "data" else module.resources).get(key) if module is not None else None
        if resource is not None:
            return resource.name
    return key


def references(analysis: Analysis, path: str, offset: int, include_declaration: bool) -> list[Span]:
    """Every use of the declaration at or referenced at ``offset``, across the workspace."""
    decl = _declaration_at(analysis, path, offset)
    if decl is None:
        return []
    spans: list[Span] = []
    if include_declaration:
        span = declaration_span(analysis, decl)
        if span is not None:
            spans.append(span)
    for dir, module in sorted(analysis.modules.items()):
        for file in module.files:
            hcl = analysis.files.get(file)
            if hcl is None:
                continue
            needle = _declared_name(analysis, decl).encode("utf-8")
            for attr in _file_attributes(hcl.body):
                if needle not in hcl.source[attr.span.start : attr.span.end]:
                    continue  # cheap text filter: most attributes never need converting
                for expr in _traversals(attr.expr):
                    span = _matching_span(analysis, module, expr, decl)
                    if span is not None:
                        spans.append(span)
    if decl[0] == "var":  # module arguments that set the variable, in every caller
        for caller_dir, call_name in analysis.tree.callers.get(decl[1], ()):
            call = analysis.modules[caller_dir].calls.get(call_name)
            argument = call.arguments.get(decl[2]) if call else None
            if argument is not None:
                spans.append(argument.name_span)
        for tfvars_path, hcl in analysis.tfvars.items():  # assignments in the module's tfvars files
            attr = hcl.body.attributes.get(decl[2])
            if attr is not None and module_dir_of(tfvars_path) == decl[1]:
                spans.append(attr.name_span)
    return sorted(set(spans), key=lambda s: (s.file, s.start, s.end))


def _declaration_at(analysis: Analysis, path: str, offset: int) -> Decl | None:
    dir = module_dir_of(path)
    module = analysis.modules.get(dir)
    if path in analysis.tfvars:
        var = tfvars_variable(analysis, path, offset)
        return ("var", dir, var.name) if var is not None else None
    if module is None or path not in analysis.files:
        return None
    for var in module.variables.values():
        if var.label_span.file == path and contains(var.label_span, offset):
            return ("var", dir, var.name)
    for local in module.locals.values():
        if local.attribute.name_span.file == path and contains(local.attribute.name_span, offset):
            return ("local", dir, local.name)
    for call in module.calls.values():
        if call.label_span.file == path and contains(call.label_span, offset):
            return ("module", dir, call.name)
    for output in module.outputs.values():
        if output.label_span.file == path and contains(output.label_span, offset):
            return ("output", dir, output.name)
    for kind, table in (("resource", module.resources), ("data", module.data)):
        for key, resource in table.items():
            if any(s.file == path and contains(s, offset) for s in resource.label_spans):
                return (kind, dir, key)
    argument = _argument_at(analysis, module, path, offset)
    if argument is not None:
        return argument
    found = _reference_at(analysis, path, offset)
    return resolve(analysis, module, found, offset) if found is not None else None


def _matching_span(analysis: Analysis, module: Module, expr: ScopeTraversalExpr, decl: Decl) -> Span | None:
    """The part of ``expr`` that names ``decl`` (``var.x``, ``module.m``, ``module.m.out``...), or None."""
    kind, dir, name = decl
    steps = expr.steps
    first = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
    if first is None:
        return None
    start = expr.span.start
    if kind in ("var", "local", "module") and module.dir == dir and expr.root == kind and first == name:
        return Span(expr.span.file, start, steps[0].span.end)
    if kind == "output" and expr.root == "module":
        target = analysis.tree.targets.get((module.dir, first))
        output = _output_step(steps)
        if target is not None and target.dir == dir and output is not None and output.name == name:
            return Span(expr.span.file, start, output.span.end)
    if module.dir != dir:
        return None
    if kind == "data" and expr.root == "data" and len(steps) > 1 and isinstance(steps[1], AttrStep):
        if f"{first}.{steps[1].name}" == name:
            return Span(expr.span.file, start, steps[1].span.end)
    if kind == "resource" and f"{expr.root}.{first}" == name:
        return Span(expr.span.file, start, steps[0].span.end)
    if kind == "resource" and expr.root == "resource" and len(steps) > 1 and isinstance(steps[1], AttrStep):
        if f"{first}.{steps[1].name}" == name:  # resource.<type>.<name>
            return Span(expr.span.file, start, steps[1].span.end)
    return None


def _traversals(expr):
    for sub in walk(expr):
        if isinstance(sub, ScopeTraversalExpr):
            yield sub


def _file_attributes(body: Body):
    """Every attribute of a file, nested blocks included; a variable's ``type`` is a type, not references."""
    stack = [(body, False)]
    while stack:
        current, in_variable = stack.pop()
        yield from (a for a in current.attributes.values() if not (in_variable and a.name == "type"))
        stack.extend((b.body, b.type == "variable" and current is body) for b in current.blocks)


# ---- document symbols -------------------------------------------------------------------------------


def document_symbols(analysis: Analysis, path: str) -> list[Symbol]:
    """The outline of one file: its declarations by Terraform address, nested blocks as children."""
    hcl = analysis.files.get(path)
    if hcl is None:
        return []
    symbols: list[Symbol] = []
    for block in hcl.body.blocks:
        labels = block.labels
        selection = block.label_spans[-1] if block.label_spans else block.type_span
        if block.type == "variable" and len(labels) == 1:
            symbols.append(Symbol(str(InputVariable(labels[0])), "variable", block.span, selection))
        elif block.type == "locals":
            for name, attr in block.body.attributes.items():
                symbols.append(Symbol(str(LocalValue(name)), "local", attr.span, attr.name_span))
        elif block.type == "resource" and len(labels) == 2:
            symbols.append(Symbol(f"{labels[0]}.{labels[1]}", "resource", block.span, selection, _child_blocks(block.body)))
        elif block.type == "data" and len(labels) == 2:
            symbols.append(Symbol(str(Resource('data', labels[0], labels[1])), "data", block.span, selection, _child_blocks(block.body)))
        elif block.type == "module" and len(labels) == 1:
            symbols.append(Symbol(str(ModuleCall(labels[0])), "module", block.span, selection))
        elif block.type == "output" and len(labels) == 1:
            symbols.append(Symbol(str(OutputValue(labels[0])), "output", block.span, selection))
        elif block.type == "provider" and labels:
            alias = block.body.attributes.get("alias")
            alias_text = analysis.text(alias.expr.span).strip('"') if alias is not None else ""
            name = f"provider.{labels[0]}" + (f".{alias_text}" if alias_text else "")
            symbols.append(Symbol(name, "provider", block.span, selection))
        else:
            symbols.append(Symbol(" ".join((block.type,) + labels), "block", block.span, selection, _child_blocks(block.body)))
    return symbols


def _child_blocks(body: Body) -> tuple[Symbol, ...]:
    return tuple(_block_symbol(b) for b in body.blocks)


def _block_symbol(block: Block) -> Symbol:
    name = " ".join((block.type,) + block.labels)
    selection = block.label_spans[-1] if block.label_spans else block.type_span
    return Symbol(name, "block", block.span, selection, _child_blocks(block.body))
