"""Hover (SPEC section 6): the phi branches of the field or reference under the cursor, as Markdown."""

from __future__ import annotations

import posixpath
from ..addrs import InputVariable, ModuleCall
from ..records import record

from ..analysis import Analysis
from ..stir.deployments import root_deployments
from ..stir.workspace import CallPath, module_dir_of
from ..syntax.expr import Span
from ..trace.result import BOUNDED, RESOLVED, UNBOUNDED, TraceResult
from ..trace.steps import Default, FieldStep, ModCall, NameRef, Output, Step, Validation, words
from ..values.value import to_display, value_key
from .cursor import Target, field_spec, locate, trace_target
from ..analysis import FieldTrace
from ..config import FieldSpec
from .code_actions import field_values
from .diagnostics import blocker_of, fix_texts, may_hardcode, unbounded_fixes
from .locations import condition_text, human_position

MAX_HOVER_BRANCHES = 12  # table rows per call path in a hover; the trace view shows them all
MAX_VALUE_WIDTH = 80


@record(frozen=True, slots=True)
class Hover:
    """Markdown for the editor and the byte range it describes."""

    markdown: str
    span: Span


def hover_at(analysis: Analysis, path: str, offset: int) -> Hover | None:
    """The hover for the field, argument, output, local, variable label or reference at ``offset``."""
    target = locate(analysis, path, offset)
    if target is None:
        return None
    results = trace_target(analysis, target)
    if not results:
        return None
    return Hover(render_trace(analysis, target, results, full=False, base=module_dir_of(path)), target.span)


# ---- rendering (shared with the trace view) ---------------------------------------------------


def render_trace(analysis: Analysis, target: Target, results: list[TraceResult], full: bool, base: str = "") -> str:
    """Markdown for a target's traces: summary, value | condition table, paths, reasons, fixes, deployments.

    Links point relative to the ``base`` directory (the hovered file's), so Markdown viewers resolve them.
    """
    title = results[0].address if len(results) == 1 else target.label
    if _is_root_input(target, results):
        lines = [f"**`{title}`** ({_describe(target)})", "", "**input** · chosen by each deployment", ""]
        lines += [f"`{target.label}` is an input of the root module with no default value: Terraform takes its value "
                  "from the deployment (a variable file, `-var`, or `TF_VAR_` in the environment). Fields whose value "
                  "depends on it are diagnosed where they are set.", ""]
        lines += _render_deployments(analysis, target, results)
        while lines and lines[-1] == "":
            lines.pop()
        return "\n".join(lines)
    lines = [f"**`{title}`** ({_describe(target)})", "", summary(results), ""]
    groups = group_results(results)
    if len(groups) == 1:
        if len(results) > 1:
            lines += ["Same result from every call path: " + "; ".join(instance_label(r.call_path) for r in results) + ".", ""]
        lines += _render_one(analysis, base, target, results[0], full)
    else:
        for group in groups:
            lines += [f"#### {'; '.join(instance_label(r.call_path) for r in group)}", "", summary(group[:1]), ""]
            lines += _render_one(analysis, base, target, group[0], full)
    lines += _render_deployments(analysis, target, results)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines)


def group_results(results: list[TraceResult]) -> list[list[TraceResult]]:
    """Results grouped by root module, then identical answers merged: each group is shown once
    with every call path that gives it (a module shared by several roots is not repeated)."""
    groups: dict[tuple, list[TraceResult]] = {}
    for result in sorted(results, key=lambda r: (r.call_path[0][1] if r.call_path else "", r.call_path)):
        groups.setdefault(_answer(result), []).append(result)
    return list(groups.values())


def _answer(result: TraceResult) -> tuple:
    """What a reader sees of a result: its kind, values and gates, or why it is unbounded."""
    if result.unbounded is not None:
        return (result.kind, result.unbounded.cause, result.unbounded.reason)
    return (result.kind, tuple((value_key(b.value), condition_text(b.cond)) for b in result.branches))


def instance_label(path: CallPath) -> str:
    """``examples/postgres: module.db → module.db_instance`` (the root module, then the calls)."""
    root = (path[0][1] or ".") if path else "."
    calls = " → ".join(str(ModuleCall(call)) for call, _ in path[1:])
    return f"{root}: {calls}" if calls else f"{root} (root module)"


def _is_root_input(target: Target, results: list[TraceResult]) -> bool:
    """A root-module variable that nothing bounds: its deployment chooses it, there is nothing to fix here."""
    if target.kind not in ("variable", "reference") or target.variable is None or len(results) != 1:
        return False
    blocked = results[0].unbounded
    return (blocked is not None and blocked.cause == "variable" and blocked.variable == target.variable
            and len(results[0].call_path) <= 1)


def summary(results: list[TraceResult]) -> str:
    """``**bounded** · 2 values`` over one or several call paths (values are unioned)."""
    kinds = {r.kind for r in results}
    values: dict[str, object] = {}
    for r in results:
        for b in r.branches:
            values.setdefault(value_key(b.value), b.value)
    count = f"{len(values)} value{'s' if len(values) != 1 else ''}"
    if kinds == {UNBOUNDED}:
        return "**unbounded**"
    if UNBOUNDED in kinds:
        return f"**unbounded** on some call paths · {count} on the others"
    kind = RESOLVED if kinds == {RESOLVED} and len(values) == 1 else BOUNDED
    return f"**{kind}** · {count}"


def _describe(target: Target) -> str:
    return {
        "field": "field",
        "argument": "module argument",
        "output": "output value",
        "local": "local value",
        "variable": "variable",
        "reference": "reference",
    }.get(target.kind, target.kind)


def _render_one(analysis: Analysis, base: str, target: Target, result: TraceResult, full: bool) -> list[str]:
    if result.kind == UNBOUNDED:
        return _render_unbounded(analysis, base, target, result)
    lines = ["| value | condition |", "|---|---|"]
    shown = result.branches if full else result.branches[:MAX_HOVER_BRANCHES]
    for branch in shown:
        gate = "always" if result.kind == RESOLVED else f"`{_cell(condition_text(branch.cond))}`"
        lines.append(f"| `{_cell(_short(to_display(branch.value)))}` | {gate} |")
    if len(shown) < len(result.branches):
        lines.append(f"| … | {len(result.branches) - len(shown)} more (Show Trace lists them all) |")
    lines.append("")
    if result.selector and result.kind == BOUNDED:
        lines += [f"Selector: `{result.selector}`", ""]
    if full:
        for branch in result.branches:
            lines.append(f"**Trace of `{_short(to_display(branch.value))}`**")
            if result.kind != RESOLVED:
                lines.append(f"condition: `{branch.cond}`")
            lines.append("")
            for i, (step, span) in enumerate(step_locations(analysis, result.call_path, _own_steps(target, branch.path)), 1):
                where = f" ({link(analysis, base, span)})" if span is not None else ""
                lines.append(f"{i}. `{step}`{where}")
            if branch.source is not None:
                lines.append(f"{len(_own_steps(target, branch.path)) + 1}. value from {link(analysis, base, branch.source)}")
            lines.append("")
    else:
        lines.append("**Trace**")
        lines.append("")
        for branch in shown:
            chain = words(branch.path, where=lambda span: link(analysis, base, span))
            origin = f" — from {link(analysis, base, branch.source)}" if branch.source is not None else ""
            lines.append(f"- `{_short(to_display(branch.value))}`: {chain}{origin}")
        lines.append("")
    return lines


def _own_steps(target: Target, steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """The trace steps, without the tracer's ``Field <label>`` head for things that are not fields."""
    if target.kind != "field" and steps and isinstance(steps[0], FieldStep):
        return steps[1:]
    return steps


def _render_unbounded(analysis: Analysis, base: str, target: Target, result: TraceResult) -> list[str]:
    blocked = result.unbounded
    assert blocked is not None
    block = blocker_of(analysis, blocked)
    where = f" ({link(analysis, base, block.declared)})" if block.declared is not None else ""
    if blocked.cause in ("variable", "missing", "apply-time"):
        lines = [f"**Why:** {block.subject}{where} {block.why}.", ""]
    else:
        lines = [f"**Why:** {blocked.reason}{where}.", ""]
    fixes = _fixes(analysis, target, result)
    if fixes:
        lines += ["**Fix** (any one works):", ""]
        lines += [f"{i}. {fix}" for i, fix in enumerate(fixes, 1)]
        lines.append("")
    return lines


def _fixes(analysis: Analysis, target: Target, result: TraceResult) -> list[str]:
    blocked = result.unbounded
    assert blocked is not None
    if target.kind == "field" and target.resource is not None:
        kind, field = target.resource.type, ".".join(target.field_path)
        spec = field_spec(analysis, target) or FieldSpec()
        trace = FieldTrace(target.resource, tuple(target.field_path), spec, result)
        return [f.text for f in unbounded_fixes(analysis, kind, field, blocked, values=field_values(analysis, trace),
                                                 hardcode=may_hardcode(analysis, target.resource.span.file))]
    if blocked.cause in ("data", "apply-time"):
        return []
    return [f for f in fix_texts("", target.label, blocked) if not f.startswith("hardcode")]


def _render_deployments(analysis: Analysis, target: Target, results: list[TraceResult]) -> list[str]:
    """The value each deployment of the results' roots gives (SPEC 6): the deployments ``trace``
    lists (variable files, ``env/`` folders, Terragrunt units), each traced with its values."""
    roots = sorted({r.call_path[0][1] if r.call_path else target.scope.dir for r in results})
    several = len(results) > 1
    rows: list[str] = []
    for root in roots:
        for deployment in root_deployments(analysis, root):
            under = trace_target(analysis, target, deployment.assignment)
            for result in under:
                if (result.call_path[0][1] if result.call_path else target.scope.dir) != root:
                    continue
                where = f"{instance_label(result.call_path)} | " if several else ""
                row = f"| {where}`{deployment.name}` | {_deployment_value(result, deployment.assignment)} |"
                if row not in rows:
                    rows.append(row)
    if not rows:
        return []
    head = ["| call path | deployment | value |", "|---|---|---|"] if several else ["| deployment | value |", "|---|---|"]
    return ["**Deployments** (each sets the root's variables; they do not narrow the trace):", ""] + head + rows + [""]


def _deployment_value(result: TraceResult, assignment) -> str:
    """A deployment's value as a table cell: the value, else why its values do not decide it."""
    blocked = result.unbounded
    root = result.call_path[0][1] if result.call_path else None
    if blocked is not None and blocked.variable is not None and blocked.variable[0] == root and blocked.variable[1] not in assignment:
        return f"not decided: it does not set `{InputVariable(blocked.variable[1])}`"
    if result.exists is None:
        return "not created"
    if result.kind == RESOLVED:
        return f"`{_cell(_short(to_display(result.branches[0].value)))}`"
    if result.kind == BOUNDED:
        values = {value_key(b.value): b.value for b in result.branches}
        listed = ", ".join(f"`{_cell(_short(to_display(v)))}`" for v in values.values())
        return f"not decided by its values: one of {listed}"
    return f"not decided by its values: {_cell(result.reason or 'unbounded')}"


# ---- trace steps and links ------------------------------------------------------------------


def step_locations(analysis: Analysis, call_path: CallPath, steps: tuple[Step, ...]) -> list[tuple[str, Span | None]]:
    """Each trace step (in the seed's names) with the declaration it stands for."""
    return [(str(step), step.span if isinstance(step, _DECLARED) else None) for step in steps]


# Steps that stand for a declaration the trace view links to.
_DECLARED = (NameRef, Default, Validation, ModCall, Output)


def link(analysis: Analysis, base: str, span: Span) -> str:
    """``[modules/db/main.tf:6](db/main.tf#L6)``: the workspace path as text, the target relative to the ``base`` directory."""
    line, _ = human_position(analysis, span.file, span.start)
    target = posixpath.relpath(span.file, base) if base else span.file
    return f"[{span.file}:{line}]({target}#L{line})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _short(text: str) -> str:
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= MAX_VALUE_WIDTH else text[: MAX_VALUE_WIDTH - 1] + "…"
