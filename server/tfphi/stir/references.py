"""Strict reference resolution: every reference resolves, or it is an ``undefined-reference``.

Also ``missing-argument``: a module call that omits a child variable with no default.
Results are plain ``Finding`` records, sorted by position, so two runs report the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Mapping

from ..syntax.expr import Span
from ..syntax.references import Reference
from .model import Module
from .workspace import ModuleTree

# Roots that name no declaration of the module.
_BUILTIN_ROOTS = frozenset({"each", "count", "self", "path", "terraform"})


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    span: Span
    message: str
    related: tuple[tuple[Span, str], ...] = ()


def check_module(
    module: Module,
    modules: Mapping[str, Module],
    tree: ModuleTree,
    refs_of: Callable[[str], list[Reference]],
    is_bound: Callable[[Reference], bool],
) -> list[Finding]:
    """Undefined references and missing arguments in one module.

    ``refs_of(path)`` lists a file's references; ``is_bound(ref)`` is asked only about the
    ones that do not resolve (a ``for`` variable or a name in ``lifecycle`` is no reference).
    """
    findings: list[Finding] = []
    for path in module.files:
        for ref in refs_of(path):
            finding = _resolve(ref, module, modules, tree)
            if finding is not None and not is_bound(ref):
                findings.append(finding)
    findings.extend(_missing_arguments(module, modules, tree))
    findings.extend(_unresolved_sources(module, tree))
    findings.extend(_call_cycles(module, tree))
    findings.sort(key=lambda f: (f.span.file, f.span.start, f.span.end, f.code, f.message))
    return findings


def _resolve(ref: Reference, module: Module, modules, tree) -> Finding | None:
    root, names = ref.root, ref.names
    if root in _BUILTIN_ROOTS:
        return None
    first = names[0]
    if root == "var":
        if first not in module.variables:
            return _undefined(ref, 1, f"var.{first}", "no variable block declares it")
    elif root == "local":
        if first not in module.locals:
            return _undefined(ref, 1, f"local.{first}", "no locals block declares it")
    elif root == "module":
        if first not in module.calls:
            return _undefined(ref, 1, f"module.{first}", "no module block declares it")
        target = tree.targets.get((module.dir, first))
        if len(names) > 1 and target is not None and target.dir is not None:
            child = modules.get(target.dir)
            if child is not None and names[1] not in child.outputs:
                where = target.dir or "."
                return _undefined(ref, 2, f"module.{first}.{names[1]}", f"the module in {where} has no output {names[1]!r}")
    elif root == "data":
        if len(names) > 1 and f"{first}.{names[1]}" not in module.data:
            return _undefined(ref, 2, f"data.{first}.{names[1]}", "no data block declares it")
    elif "::" not in root and f"{root}.{first}" not in module.resources:
        return _undefined(ref, 1, f"{root}.{first}", "no resource block declares it")
    return None


def _undefined(ref: Reference, names_used: int, name: str, why: str) -> Finding:
    """The finding's range covers the reference itself (``var.x``, ``module.m.out``), not what follows."""
    span = Span(ref.span.file, ref.span.start, ref.name_ends[names_used])
    return Finding("undefined-reference", span, f"undefined reference to {name}: {why}")


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


_callees_cache: list = [None, {}]  # (tree, module dir -> dirs it calls), rebuilt when the tree changes


def _callees(tree: ModuleTree) -> dict[str, set[str]]:
    if _callees_cache[0] is not tree:
        callees: dict[str, set[str]] = {}
        for (dir, _), target in tree.targets.items():
            if target.dir is not None:
                callees.setdefault(dir, set()).add(target.dir)
        _callees_cache[:] = [tree, callees]
    return _callees_cache[1]


def _call_cycles(module: Module, tree: ModuleTree) -> Iterator[Finding]:
    """A module call that leads back to the calling module (``source = "./"``, or a -> b -> a)."""
    callees = _callees(tree)
    for name, call in sorted(module.calls.items()):
        target = tree.targets.get((module.dir, name))
        if target is None or target.dir is None:
            continue
        seen: set[str] = set()
        stack = [target.dir]
        while stack and module.dir not in seen:
            d = stack.pop()
            if d not in seen:
                seen.add(d)
                stack.extend(callees.get(d, ()))
        if module.dir in seen:
            where = "this module itself" if target.dir == module.dir else f"the module in {target.dir or '.'}, which calls back to this module"
            span = call.source_attr.expr.span if call.source_attr is not None else call.label_span
            yield Finding("undefined-reference", span, f"module.{name} calls {where}: a module call cycle, which Terraform cannot load")
