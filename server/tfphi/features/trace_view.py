"""The "Show Trace" document (SPEC section 6): every branch of the trace at the cursor, with its full path."""

from __future__ import annotations

from ..analysis import Analysis
from ..stir.workspace import module_dir_of
from .cursor import locate, trace_target
from .hover import render_trace


def trace_document(analysis: Analysis, path: str, offset: int) -> tuple[str, str] | None:
    """(title, Markdown) of the full trace of the field or reference at ``offset``, or None."""
    target = locate(analysis, path, offset)
    if target is None:
        return None
    results = trace_target(analysis, target)
    if not results:
        return None
    title = f"Trace: {results[0].address if len(results) == 1 else target.label}"
    return title, render_trace(analysis, target, results, full=True, base=module_dir_of(path))
