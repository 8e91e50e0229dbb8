"""Strict reference resolution: every reference resolves, or it is an ``undefined-reference``.

Also ``missing-argument``: a module call that omits a child variable with no default.
Results are plain ``Finding`` records, sorted by position, so two runs report the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping

from ..syntax.expr import AttrStep, Expr, ForExpr, IndexStep, ScopeTraversalExpr, Span, SplatStep, iter_subexpressions
from ..syntax.hclfile import Attribute, Block, Body
from .model import Module
from .workspace import ModuleTree

# Roots that name no declaration of the module.
_BUILTIN_ROOTS = frozenset({"each", "count", "self", "path", "terraform"})
# Attributes that hold names or types, not expressions to resolve.
_SKIPPED_ATTRIBUTES = frozenset({"type", "provider", "providers", "ignore_changes", "replace_triggered_by"})
_SKIPPED_BLOCKS = frozenset({"terraform", "moved", "import", "removed", "check", "required_providers", "backend", "cloud"})


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    span: Span
    message: str
    related: tuple[tuple[Span, str], ...] = ()


def check_module(module: Module, modules: Mapping[str, Module], tree: ModuleTree) -> list[Finding]:
    """Undefined references and missing arguments in one module."""
    findings: list[Finding] = []
    for expr, bound in _expressions(module):
        findings.extend(_check_expr(expr, bound, module, modules, tree))
    findings.extend(_missing_arguments(module, modules, tree))
    findings.extend(_unresolved_sources(module, tree))
    findings.sort(key=lambda f: (f.span.file, f.span.start, f.span.end, f.code, f.message))
    return findings


def _expressions(module: Module) -> Iterator[tuple[Expr, frozenset[str]]]:
    """Every expression of the module, with the iterator names bound where it stands."""
    for var in module.variables.values():
        if var.default is not None:
            yield var.default.expr, frozenset()
        for validation in var.validations:
            yield validation.condition, frozenset()
    for local in module.locals.values():
        yield local.attribute.expr, frozenset()
    for resource in list(module.resources.values()) + list(module.data.values()):
        yield from _body_expressions(resource.body, frozenset())
    for call in module.calls.values():
        yield from _body_expressions(call.body, frozenset(), skip={"source", "version"})
    for output in module.outputs.values():
        if output.value is not None:
            yield output.value.expr, frozenset()


def _body_expressions(body: Body, bound: frozenset[str], skip: set[str] | frozenset[str] = frozenset()) -> Iterator[tuple[Expr, frozenset[str]]]:
    for name, attr in body.attributes.items():
        if name in _SKIPPED_ATTRIBUTES or name in skip:
            continue
        yield attr.expr, bound
    for block in body.blocks:
        if block.type in _SKIPPED_BLOCKS or block.type == "lifecycle":
            if block.type == "lifecycle":
                for pre in block.body.blocks:
                    yield from _body_expressions(pre.body, bound)
            continue
        if block.type == "dynamic":
            yield from _dynamic_expressions(block, bound)
        else:
            yield from _body_expressions(block.body, bound)


def _dynamic_expressions(block: Block, bound: frozenset[str]) -> Iterator[tuple[Expr, frozenset[str]]]:
    name = block.labels[0] if block.labels else "dynamic"
    iterator = block.body.attributes.get("iterator")
    if iterator is not None and isinstance(iterator.expr, ScopeTraversalExpr):
        name = iterator.expr.root
    for attr_name, attr in block.body.attributes.items():
        if attr_name not in ("iterator",):
            yield attr.expr, bound
    inner = bound | {name}
    for sub in block.body.blocks:
        yield from _body_expressions(sub.body, inner) if sub.type == "content" else _body_expressions(sub.body, inner)


def _check_expr(expr: Expr, bound: frozenset[str], module: Module, modules, tree) -> Iterator[Finding]:
    stack: list[tuple[Expr, frozenset[str]]] = [(expr, bound)]
    while stack:
        current, names = stack.pop()
        if isinstance(current, ForExpr):
            stack.append((current.collection, names))
            inner = names | {current.value_var} | ({current.key_var} if current.key_var else set())
            for sub in (current.key_result, current.value_result, current.condition):
                if sub is not None:
                    stack.append((sub, inner))
            continue
        if isinstance(current, ScopeTraversalExpr):
            finding = _resolve(current, names, module, modules, tree)
            if finding is not None:
                yield finding
        stack.extend((sub, names) for sub in iter_subexpressions(current))


def _resolve(expr: ScopeTraversalExpr, bound: frozenset[str], module: Module, modules, tree) -> Finding | None:
    root, steps = expr.root, expr.steps
    if root in bound or root in _BUILTIN_ROOTS:
        return None
    first = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
    if root == "var":
        if first is not None and first not in module.variables:
            return _undefined(expr, f"var.{first}", "no variable block declares it")
    elif root == "local":
        if first is not None and first not in module.locals:
            return _undefined(expr, f"local.{first}", "no locals block declares it")
    elif root == "module":
        if first is None:
            return None
        if first not in module.calls:
            return _undefined(expr, f"module.{first}", "no module block declares it")
        rest = [s for s in steps[1:] if not isinstance(s, (IndexStep, SplatStep))]
        target = tree.targets.get((module.dir, first))
        if rest and isinstance(rest[0], AttrStep) and target is not None and target.dir is not None:
            child = modules.get(target.dir)
            if child is not None and rest[0].name not in child.outputs:
                where = target.dir or "."
                return _undefined(expr, f"module.{first}.{rest[0].name}", f"the module in {where} has no output {rest[0].name!r}")
    elif root == "data":
        second = steps[1].name if len(steps) > 1 and isinstance(steps[1], AttrStep) else None
        if first is not None and second is not None and f"{first}.{second}" not in module.data:
            return _undefined(expr, f"data.{first}.{second}", "no data block declares it")
    elif first is not None and "::" not in root:
        if f"{root}.{first}" not in module.resources:
            return _undefined(expr, f"{root}.{first}", "no resource block declares it")
    return None


def _undefined(expr: ScopeTraversalExpr, name: str, why: str) -> Finding:
    """The finding's range covers the reference itself (``var.x``, ``module.m.out``), not what follows."""
    parts_left = name.count(".")
    end = expr.root_span.end
    for step in expr.steps:
        if parts_left == 0:
            break
        end = step.span.end
        if isinstance(step, AttrStep):
            parts_left -= 1
    return Finding("undefined-reference", Span(expr.span.file, expr.span.start, end), f"undefined reference to {name}: {why}")


def _missing_arguments(module: Module, modules, tree) -> Iterator[Finding]:
    for name, call in module.calls.items():
        target = tree.targets.get((module.dir, name))
        if target is None or target.dir is None:
            continue
        child = modules.get(target.dir)
        if child is None:
            continue
        passed = call.arguments
        for var in child.variables.values():
            if var.default is None and var.name not in passed:
                yield Finding(
                    "missing-argument",
                    call.label_span,
                    f"module.{name} does not set {var.name}, which the module in {target.dir or '.'} requires (no default)",
                    ((var.label_span, f"var.{var.name} is declared here"),),
                )


def _unresolved_sources(module: Module, tree: ModuleTree) -> Iterator[Finding]:
    """A local module source that leads nowhere is an undefined reference to that module."""
    for name, call in module.calls.items():
        target = tree.targets.get((module.dir, name))
        if target is None or target.dir is not None or call.source is None:
            continue
        if call.source.startswith(("./", "../")) and call.source_attr is not None:
            yield Finding("undefined-reference", call.source_attr.expr.span, target.opaque_reason or "module source not found")
