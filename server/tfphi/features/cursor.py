"""What the cursor is on: a field, a module argument, an output, a local, a variable label or a reference.

Shared by hover, the trace view and navigation. Locating is pure syntax (the file's own
blocks and spans); tracing a located target goes through the analysis's tracer, once per
call path of the module, with the iterators (``each``, ``count``, dynamic blocks) in scope.
"""

from __future__ import annotations

from typing import Mapping

from ..addrs import InputVariable, LocalValue, ModuleCall, OutputValue
from ..records import record, replace

from ..analysis import Analysis
from ..config import FieldSpec
from ..stir.model import Module, Resource, Variable
from ..stir.workspace import CallPath, module_dir_of
from ..syntax.expr import AttrStep, Expr, ForExpr, ScopeTraversalExpr, Span, iter_subexpressions
from ..syntax.hclfile import Attribute, Block, Body
from ..trace.result import TraceResult
from ..trace.env import Env, Iteration, block_iterators
from ..values.value import Value

# Roots whose traversals name something the tracer can follow.
TRACEABLE_ROOTS = frozenset({"var", "local", "module", "each", "count", "data"})


@record(frozen=True)
class Scope:
    """Where an expression stands: its module, the block whose for_each/count is in scope, dynamic iterators."""

    dir: str
    body: Body | None = None  # resource or module-call body (for ``each``/``count``)
    dynamics: tuple[tuple[str, Attribute], ...] = ()  # (iterator name, dynamic block's for_each)


@record(frozen=True)
class Target:
    """A traceable thing under the cursor.

    ``kind`` is one of ``field``, ``argument``, ``output``, ``local``, ``variable``, ``reference``.
    ``expr`` is what gets traced; ``span`` is the range the cursor is on (the hover range).
    """

    kind: str
    label: str  # a Terraform address-like name: ``aws_db_instance.app.engine_version``, ``var.x``
    span: Span
    expr: Expr
    scope: Scope
    resource: Resource | None = None
    field_path: tuple[str, ...] = ()
    variable: tuple[str, str] | None = None  # (dir, name) for variable targets


class _ExprAttribute:
    """The little of ``Attribute`` the tracer needs, for tracing a bare expression."""

    __slots__ = ("expr", "span")

    def __init__(self, expr: Expr):
        self.expr = expr
        self.span = expr.span


def contains(span: Span, offset: int) -> bool:
    """Whether ``offset`` is inside ``span`` (the end counts: a cursor just after a word is on it)."""
    return span.start <= offset <= span.end


def innermost_traversal(expr: Expr, offset: int) -> ScopeTraversalExpr | None:
    """The smallest scope traversal containing ``offset`` (names bound by ``for`` expressions excluded)."""
    best: ScopeTraversalExpr | None = None
    stack: list[tuple[Expr, frozenset[str]]] = [(expr, frozenset())]
    while stack:
        current, bound = stack.pop()
        if not contains(current.span, offset):
            continue
        if isinstance(current, ForExpr):
            inner = bound | {current.value_var} | ({current.key_var} if current.key_var else set())
            stack.append((current.collection, bound))
            stack.extend((sub, inner) for sub in (current.key_result, current.value_result, current.condition) if sub is not None)
            continue
        if isinstance(current, ScopeTraversalExpr) and current.root not in bound:
            if best is None or current.span.end - current.span.start <= best.span.end - best.span.start:
                best = current
        stack.extend((sub, bound) for sub in iter_subexpressions(current))
    return best


def locate(analysis: Analysis, path: str, offset: int) -> Target | None:
    """The traceable target at ``offset`` of ``path``, or None."""
    dir = module_dir_of(path)
    module = analysis.modules.get(dir)
    if path in analysis.tfvars:
        var = tfvars_variable(analysis, path, offset)
        return variable_target(var, dir, _tfvars_name_span(analysis, path, var.name)) if var is not None else None
    hcl = analysis.files.get(path)
    if hcl is None or module is None:
        return None
    for block in hcl.body.blocks:
        if contains(block.span, offset):
            return _in_block(analysis, module, block, offset)
    return None


def _in_block(analysis: Analysis, module: Module, block: Block, offset: int) -> Target | None:
    dir = module.dir
    labels = block.labels
    if block.type in ("resource", "data") and len(labels) == 2:
        table = module.resources if block.type == "resource" else module.data
        resource = table.get(f"{labels[0]}.{labels[1]}")
        if resource is None or resource.span != block.span:
            return None
        return _in_resource(resource, block.body, offset, dir)
    if block.type == "module" and len(labels) == 1:
        call = module.calls.get(labels[0])
        if call is None or call.span != block.span:
            return None
        scope = Scope(dir, call.body)
        for name, attr in call.arguments.items():
            if contains(attr.span, offset):
                ref = _reference_target(attr.expr, offset, scope)
                if ref is not None:
                    return ref
                span = attr.name_span if contains(attr.name_span, offset) else attr.expr.span
                return Target("argument", f"{ModuleCall(call.name)}.{name}", span, attr.expr, scope)
        for attr in call.body.attributes.values():  # count / for_each
            if contains(attr.span, offset):
                return _reference_target(attr.expr, offset, Scope(dir))
        return None
    if block.type == "output" and len(labels) == 1:
        output = module.outputs.get(labels[0])
        if output is None or output.value is None or output.span != block.span:
            return None
        value = output.value
        if contains(value.span, offset):
            ref = _reference_target(value.expr, offset, Scope(dir))
            if ref is not None:
                return ref
            span = value.name_span if contains(value.name_span, offset) else value.expr.span
            return Target("output", str(OutputValue(output.name)), span, value.expr, Scope(dir))
        if contains(output.label_span, offset):
            return Target("output", str(OutputValue(output.name)), output.label_span, value.expr, Scope(dir))
        return None
    if block.type == "locals":
        for name, attr in block.body.attributes.items():
            if contains(attr.span, offset):
                ref = _reference_target(attr.expr, offset, Scope(dir))
                if ref is not None:
                    return ref
                span = attr.name_span if contains(attr.name_span, offset) else attr.expr.span
                return Target("local", str(LocalValue(name)), span, attr.expr, Scope(dir))
        return None
    if block.type == "variable" and len(labels) == 1:
        var = module.variables.get(labels[0])
        if var is None or var.span != block.span:
            return None
        if contains(var.label_span, offset) or contains(block.type_span, offset):
            return variable_target(var, dir, var.label_span)
        for attr in _all_attributes(block.body):
            if contains(attr.span, offset) and attr.name != "type":
                return _reference_target(attr.expr, offset, Scope(dir))
        return None
    for attr in _all_attributes(block.body):  # provider, terraform, moved... blocks: references only
        if contains(attr.span, offset):
            return _reference_target(attr.expr, offset, Scope(dir))
    return None


def _in_resource(resource: Resource, body: Body, offset: int, dir: str) -> Target | None:
    """A field of a resource (nested and dynamic blocks included), or a reference inside one."""
    field_path: list[str] = []
    dynamics: list[tuple[str, Attribute]] = []
    while True:
        scope = Scope(dir, resource.body, tuple(dynamics))
        for name, attr in body.attributes.items():
            if not contains(attr.span, offset):
                continue
            top_meta = not field_path and name in ("count", "for_each", "depends_on", "provider")
            ref = _reference_target(attr.expr, offset, Scope(dir) if top_meta else scope, whole_is_field=not top_meta)
            if ref is not None or top_meta:
                return ref
            full = tuple(field_path) + (name,)
            span = attr.name_span if contains(attr.name_span, offset) else attr.expr.span
            return Target("field", f"{resource.address}.{'.'.join(full)}", span, attr.expr, scope, resource, full)
        inner = next((b for b in body.blocks if contains(b.span, offset)), None)
        if inner is None or inner.type in ("lifecycle", "provisioner", "connection"):
            return None
        if inner.type == "dynamic" and inner.labels:
            name = inner.labels[0]
            for_each = inner.body.attributes.get("for_each")
            if for_each is not None and contains(for_each.span, offset):
                return _reference_target(for_each.expr, offset, scope)
            content = next((b for b in inner.body.blocks if b.type == "content" and contains(b.span, offset)), None)
            if content is None or for_each is None:
                return None
            dynamics.append((inner.iterator_name(), for_each))
            field_path.append(name)
            body = content.body
        else:
            field_path.append(inner.type)
            body = inner.body


def _reference_target(expr: Expr, offset: int, scope: Scope, whole_is_field: bool = False) -> Target | None:
    """A ``var``/``local``/``module``/``each``/``count``/``data`` reference (or a dynamic iterator) at ``offset``."""
    found = innermost_traversal(expr, offset)
    if found is None:
        return None
    dynamic_names = {name for name, _ in scope.dynamics}
    named = bool(found.steps) and isinstance(found.steps[0], AttrStep)  # resource.x.attr, path.module...
    if found.root not in TRACEABLE_ROOTS and found.root not in dynamic_names and not named:
        return None
    if whole_is_field and found is expr:
        return None  # the reference is the whole value: the field's own trace says more (universe)
    label = " ".join(analysis_text_of(found).split()) or found.root
    return Target("reference", label, found.span, found, scope)


def analysis_text_of(expr: ScopeTraversalExpr) -> str:
    """The dotted form of a traversal, rebuilt from its steps (``module.m.out``; indexes as ``[…]``)."""
    parts = [expr.root]
    for step in expr.steps:
        parts.append(f".{step.name}" if isinstance(step, AttrStep) else "[…]" if hasattr(step, "key") else "[*]")
    return "".join(parts)


def variable_target(var: Variable, dir: str, span: Span) -> Target:
    """The values of a variable, traced as a ``var.x`` reference in its own module."""
    expr = ScopeTraversalExpr(var.label_span, "var", var.label_span, (AttrStep(var.name, var.label_span),))
    return Target("variable", str(InputVariable(var.name)), span, expr, Scope(dir), variable=(dir, var.name))


def tfvars_variable(analysis: Analysis, path: str, offset: int) -> Variable | None:
    """The root-module variable a tfvars assignment at ``offset`` sets."""
    hcl = analysis.tfvars.get(path)
    module = analysis.modules.get(module_dir_of(path))
    if hcl is None or module is None:
        return None
    for name, attr in hcl.body.attributes.items():
        if contains(attr.span, offset):
            return module.variables.get(name)
    return None


def _tfvars_name_span(analysis: Analysis, path: str, name: str) -> Span:
    return analysis.tfvars[path].body.attributes[name].name_span


def _all_attributes(body: Body):
    stack = [body]
    while stack:
        current = stack.pop()
        yield from current.attributes.values()
        stack.extend(b.body for b in current.blocks)


def call_paths(analysis: Analysis, dir: str) -> list[CallPath]:
    """Every call path of a module directory (a lone root frame when nothing reaches it)."""
    return analysis.tree.call_paths(dir) or [(("", dir),)]


def field_spec(analysis: Analysis, target: Target) -> FieldSpec | None:
    """The registered spec of a field target, or None."""
    if target.kind != "field" or target.resource is None:
        return None
    return analysis.config.field_spec(target.resource.type, ".".join(target.field_path))


def trace_target(analysis: Analysis, target: Target, assignment: Mapping[str, Value] | None = None) -> list[TraceResult]:
    """The target traced once per call path of its module (a field with its configured universe;
    ``assignment``: with the root variables set as a deployment sets them)."""
    tracer = analysis.tracer if assignment is None else analysis.tracer.under(assignment)
    spec = field_spec(analysis, target)
    universe = spec.universe if spec else ()
    results: list[TraceResult] = []
    for path in call_paths(analysis, target.scope.dir):
        if target.kind == "field" and target.resource is not None:
            result, _ = tracer.trace_field(path, target.resource, target.field_path, universe)
        else:
            env = scoped_env(Env(path), target.scope)
            result, _ = tracer.trace_attribute(target.label, _ExprAttribute(target.expr), env, universe, target.label)  # type: ignore[arg-type]
        results.append(replace(result, address=instance_address(path, target.label)))
    return results


def scoped_env(env: Env, scope: Scope) -> Env:
    """``env`` with the scope's ``each``/``count`` and dynamic-block iterators bound."""
    found: dict[str, Iteration] = block_iterators(scope.body, env) if scope.body is not None else {}
    inner = env.with_iterators(found)
    for name, for_each in scope.dynamics:
        found[name] = Iteration("dynamic", for_each, inner)
        inner = inner.with_iterators({name: found[name]})
    return env.with_iterators(found)


def instance_address(path: CallPath, label: str) -> str:
    """``module.a.module.b.<label>`` for a call path."""
    prefix = "".join(f"{ModuleCall(call)}." for call, _ in path[1:])
    return prefix + label


def via(path: CallPath) -> str:
    """``module.a -> module.b`` (or ``the root module``) for a call path."""
    if len(path) <= 1:
        return f"the root module ({path[0][1] or '.'})"
    return " -> ".join(str(ModuleCall(call)) for call, _ in path[1:])
