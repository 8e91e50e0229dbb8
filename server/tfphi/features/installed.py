"""Diagnostics about modules the user does not own, reported where the user can act (SPEC section 2).

A module that ``terraform init`` installed (under ``.terraform/``) is analysed like any other,
but its files are not the user's to edit. A diagnostic about one of its fields is moved to
the *hand-off*: the module call in the user's code through which the field's call path enters
installed code. There it is placed on the argument of that call that decides the value (the
one whose installed variable the field's trace reads, and whose value is what blocks, or
carries the unsupported value), else on the call's label. The message names the field by
its address from the root and the installed file where it is set; that place is also given
as related information. A nested call that ``modules.json`` does not list (a partial or older
``terraform init``) is a ``module-not-installed`` on the hand-off call, likewise.

Pure: reads an ``Analysis``.
"""

from __future__ import annotations

from typing import Iterator

from ..addrs import InputVariable, ModuleCall as ModuleCallAddr
from ..analysis import Analysis, FieldTrace
from ..diagnostics import Diagnostic, Related
from ..records import record
from ..stir.model import ModuleCall
from ..stir.workspace import CallPath, init_command, is_foreign_dir, is_installed_dir
from ..syntax.expr import Span
from ..syntax.hclfile import Attribute
from ..trace.result import RESOLVED, UNBOUNDED
from ..trace.env import Env, block_iterators
from ..values.value import value_key
from .locations import human_position


@record(frozen=True, slots=True)
class Handoff:
    """Where a call path leaves the user's code: ``call`` of the module in ``caller_dir`` leads
    into the installed module ``dir``; ``depth`` is that frame's index in the call path."""

    caller_dir: str
    call: ModuleCall
    dir: str
    depth: int


def foreign(analysis: Analysis, dir: str) -> bool:
    """Whether the module in ``dir`` is not the user's (installed, or outside the editor's folder)."""
    return is_foreign_dir(dir, analysis.config.owned_outside)


def foreign_kind(dir: str) -> str:
    """How a message names the kind of module the user does not own that ``dir`` holds."""
    return "the installed module" if is_installed_dir(dir) else "the module outside the workspace folder"


def foreign_module(dir: str) -> str:
    """How a message names a module the user does not own: ``the installed module .terraform/...``."""
    return f"the installed module {dir}" if is_installed_dir(dir) else f"the module {dir}, outside the workspace folder"


def handoff_of(analysis: Analysis, call_path: CallPath) -> Handoff | None:
    """The first hop of ``call_path`` from a module the user owns into an installed one."""
    for depth in range(1, len(call_path)):
        caller_dir, (name, dir) = call_path[depth - 1][1], call_path[depth]
        if foreign(analysis, dir) and not foreign(analysis, caller_dir):
            caller = analysis.modules.get(caller_dir)
            call = caller.calls.get(name) if caller is not None else None
            return Handoff(caller_dir, call, dir, depth) if call is not None else None
    return None


def installed_dirs_reached(analysis: Analysis, dir: str) -> list[str]:
    """The installed modules that the calls of the module in ``dir`` reach, directly or through
    other installed modules, in a stable order."""
    module = analysis.modules.get(dir)
    if module is None:
        return []
    found: list[str] = []
    tree = analysis.tree
    # (only a call leading to an installed module or out of the folder can reach a foreign one)
    targets = [d for _, d in reversed(tree.calls_beyond(dir, module.calls)) if foreign(analysis, d)]
    while targets:
        current = targets.pop()
        if current in found:
            continue
        found.append(current)
        child = analysis.modules.get(current)
        for _, target in reversed(tree.calls_beyond(current, child.calls if child is not None else ())):
            if foreign(analysis, target):
                targets.append(target)
    return found


def field_address(trace: FieldTrace) -> str:
    """The field's address from its root (``module.db.module.db_instance.aws_db_instance.this.engine_version``)."""
    calls = "".join(f"{ModuleCallAddr(name)}." for name, _ in trace.result.call_path[1:])
    return f"{calls}{trace.resource.address}.{trace.field_name}"


def where(analysis: Analysis, span: Span) -> str:
    line, _ = human_position(analysis, span.file, span.start)
    return f"{span.file}:{line}"


def installed_place(analysis: Analysis, trace: FieldTrace) -> str:
    """``the installed module .terraform/modules/db (main.tf:3), from terraform-aws-modules/rds/aws``."""
    result = trace.result
    handoff = handoff_of(analysis, result.call_path)
    assert result.expr_span is not None
    installed = handoff is not None and handoff.call.source and is_installed_dir(handoff.dir)
    source = f", installed from {handoff.call.source}" if installed else ""
    return f"{where(analysis, result.expr_span)}{source}"


# ---- which argument decides -------------------------------------------------------------------


def deciding_argument(analysis: Analysis, trace: FieldTrace, handoff: Handoff,
                      outside: frozenset[str] = frozenset()) -> tuple[str, Attribute] | None:
    """The argument of the hand-off call that decides the field: one whose installed variable
    the field's trace reads, and whose value (traced in the caller) is what blocks the field
    (Unbounded for the same reason), or, with ``outside``, gives one of those values (else one a
    deployment's variables decide). None when no argument does (the installed module itself decides)."""
    result = trace.result
    path = result.call_path
    _, touched = analysis.tracer.trace_field(path, trace.resource, trace.field_path, trace.spec.universe)
    env = Env(path[: handoff.depth])
    env = env.with_iterators(block_iterators(handoff.call.body, env))
    fallback = None
    for name, argument in sorted(handoff.call.arguments.items()):
        if (handoff.dir, str(InputVariable(name))) not in touched:
            continue
        traced, _ = analysis.tracer.trace_attribute(f"{ModuleCallAddr(handoff.call.name)}.{name}", argument, env, trace.spec.universe)
        if outside:
            if any(value_key(b.value) in outside for b in traced.branches):
                return name, argument
            if traced.kind != RESOLVED:  # not fixed here: a deployment's values decide it
                fallback = fallback or (name, argument)
            continue
        if traced.kind != UNBOUNDED or traced.unbounded is None or result.unbounded is None:
            continue
        if traced.unbounded.reason == result.unbounded.reason or (
                result.unbounded.variable is not None and traced.unbounded.variable == result.unbounded.variable):
            return name, argument
        fallback = fallback or (name, argument)
    return fallback


# ---- the diagnostics ------------------------------------------------------------------------------


def relocated(analysis: Analysis, dir: str, diagnostic_of) -> Iterator[Diagnostic]:
    """The diagnostics about the installed modules that ``dir``'s calls reach, placed in ``dir``
    (``diagnostic_of(trace, handoff)`` builds each field's, or None)."""
    if foreign(analysis, dir):
        return
    seen: set[tuple] = set()
    for installed in installed_dirs_reached(analysis, dir):
        for trace in analysis.field_traces(installed):
            handoff = handoff_of(analysis, trace.result.call_path)
            if handoff is None or handoff.caller_dir != dir:
                continue
            for diagnostic in diagnostic_of(trace, handoff):
                key = (diagnostic.file, diagnostic.span, diagnostic.code, diagnostic.message)
                if key not in seen:
                    seen.add(key)
                    yield diagnostic
        yield from _not_installed(analysis, dir, installed, seen)


def _not_installed(analysis: Analysis, dir: str, installed: str, seen: set[tuple]) -> Iterator[Diagnostic]:
    """A call of an installed module that ``modules.json`` does not list: ``module-not-installed``
    on each hand-off call of ``dir`` that reaches it."""
    module = analysis.modules.get(installed)
    if module is None:
        return
    for name in sorted(module.calls):
        target = analysis.tree.targets.get((installed, name))
        if target is None or target.dir is not None:
            continue
        call = module.calls[name]
        for path in analysis.tree.call_paths(installed):
            handoff = handoff_of(analysis, path)
            if handoff is None or handoff.caller_dir != dir:
                continue
            calls = "".join(f"{ModuleCallAddr(c)}." for c, _ in path[1:])
            message = (f"{calls}{ModuleCallAddr(name)} (source {call.source!r}, called at {where(analysis, call.label_span)}) is not "
                       "installed: .terraform/modules/modules.json does not list it, so its outputs are unknown until "
                       f"`{init_command(analysis.modules[dir].files if dir in analysis.modules else ())}` installs it "
                       "(tfphi never downloads it)")
            span = handoff.call.label_span
            key = (span.file, span, "module-not-installed", message)
            if key in seen:
                continue
            seen.add(key)
            yield Diagnostic(span.file, span, "information", "module-not-installed", message,
                             (Related(call.label_span, f"{ModuleCallAddr(name)} is called here, in the installed module {installed}"),))

