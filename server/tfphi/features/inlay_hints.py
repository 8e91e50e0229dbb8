"""Inlay hints (SPEC section 6): the values of each traced registered field, after its value expression."""

from __future__ import annotations

from ..records import record

from ..analysis import Analysis
from ..stir.workspace import module_dir_of
from ..trace.result import UNBOUNDED
from ..values.value import to_display, value_key

MAX_HINT_VALUES = 6
MAX_HINT_VALUE_WIDTH = 40


@record(frozen=True, slots=True)
class InlayHint:
    """A label shown at a byte offset."""

    offset: int  # byte offset the hint stands at (just after the value expression)
    label: str


def inlay_hints(analysis: Analysis, path: str, start: int, end: int) -> list[InlayHint]:
    """Hints for the registered fields of ``path`` whose value expression ends in ``[start, end]``."""
    if not analysis.config.inlay_hints or path not in analysis.files:
        return []
    by_field: dict[tuple[str, tuple[str, ...]], tuple[int, dict[str, str], bool]] = {}
    for trace in analysis.field_traces(module_dir_of(path)):
        span = trace.result.expr_span
        if span is None or span.file != path or not (start <= span.end <= end):
            continue
        key = (trace.resource.address, trace.field_path)
        offset, values, unbounded = by_field.get(key, (span.end, {}, False))
        if trace.result.kind == UNBOUNDED:
            unbounded = True
        for branch in trace.result.branches:  # several call paths: the union of their values
            values.setdefault(value_key(branch.value), _short(to_display(branch.value)))
        by_field[key] = (offset, values, unbounded)
    hints = [InlayHint(offset, hint_label(list(values.values()), unbounded)) for offset, values, unbounded in by_field.values()]
    hints.sort(key=lambda h: h.offset)
    return hints


def hint_label(values: list[str], unbounded: bool) -> str:
    """``⟵ "15.4" | "14.9"``; ``⟵ unbounded``; more than six values end in ``| …``."""
    shown = values[:MAX_HINT_VALUES]
    parts = shown + (["…"] if len(values) > MAX_HINT_VALUES else [])
    if unbounded:
        parts.append("unbounded")
    return "⟵ " + " | ".join(parts)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_HINT_VALUE_WIDTH else text[: MAX_HINT_VALUE_WIDTH - 1] + "…"
