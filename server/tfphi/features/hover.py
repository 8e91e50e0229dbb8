"""Hover (SPEC section 6): the phi branches of the field or reference under the cursor, as Markdown."""

from __future__ import annotations

import posixpath
import re
from ..records import record

from ..analysis import Analysis
from ..stir.workspace import CallPath, module_dir_of
from ..syntax.expr import Span
from ..trace.conditions import materialize
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
_VAR_NAME = re.compile(r"\bvar\.([A-Za-z_][A-Za-z0-9_-]*)")


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
    """Markdown for a target's traces: summary, value | condition table, paths, reasons, fixes, tfvars.

    Links point relative to the ``base`` directory (the hovered file's), so Markdown viewers resolve them.
    """
    title = results[0].address if len(results) == 1 else target.label
    if _is_root_input(target, results):
        lines = [f"**`{title}`** ({_describe(target)})", "", "**input** · chosen by each deployment", ""]
        lines += [f"`{target.label}` is an input of the root module with no default value: Terraform takes its value "
                  "from the deployment (a variable file, `-var`, or `TF_VAR_` in the environment). Fields whose value "
                  "depends on it are diagnosed where they are set.", ""]
        lines += _render_tfvars(analysis, base, target, results)
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
    lines += _render_tfvars(analysis, base, target, results)
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
    calls = " → ".join(f"module.{call}" for call, _ in path[1:])
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


def _render_tfvars(analysis: Analysis, base: str, target: Target, results: list[TraceResult]) -> list[str]:
    """Values that tfvars files assign to the root-module variables this trace involves."""
    wanted: dict[str, set[str]] = {}  # root dir -> variable names
    for result in results:
        root = result.call_path[0][1] if result.call_path else target.scope.dir
        names = wanted.setdefault(root, set())
        texts = [result.reason or ""]
        for branch in result.branches:
            texts.append(materialize(branch.cond) or "")
            texts.extend(map(str, branch.path))
        for text in texts:
            names.update(_VAR_NAME.findall(text))
        if result.unbounded is not None and result.unbounded.variable is not None and result.unbounded.variable[0] == root:
            names.add(result.unbounded.variable[1])
        if target.variable is not None and target.variable[0] == root:
            names.add(target.variable[1])
    lines: list[str] = []
    for root, names in sorted(wanted.items()):
        for assignment in tfvars_assignments(analysis, root, names):
            path, name, text, span = assignment
            lines.append(f"- {path.rsplit('/', 1)[-1]} sets {name} = {_short(text)} ({link(analysis, base, span)})")
    if lines:
        return ["**Set in tfvars** (the customer's values decide at deployment; they do not narrow the trace):", ""] + lines + [""]
    return []


def tfvars_assignments(analysis: Analysis, root: str, names: set[str]) -> list[tuple[str, str, str, Span]]:
    """(tfvars path, variable, value text, span) for each assignment to ``names`` in the root's tfvars files."""
    out = []
    module = analysis.modules.get(root)
    for path, hcl in sorted(analysis.tfvars.items()):
        if module_dir_of(path) != root:
            continue
        for name, attr in hcl.body.attributes.items():
            if name in names and (module is None or name in module.variables):
                out.append((path, name, " ".join(analysis.text(attr.expr.span).split()), attr.span))
    return out


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
