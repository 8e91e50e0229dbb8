"""Byte spans to human positions (1-based line and code-point column), through the line index the host keeps per file."""

from __future__ import annotations

from ..analysis import Analysis
from ..syntax.expr import Span
from ..trace.conditions import NotExpressible, materialize, root_gate


def source_of(analysis: Analysis, path: str) -> bytes | None:
    hcl = analysis.files.get(path) or analysis.tfvars.get(path) or analysis.terragrunt.get(path)
    return hcl.source if hcl is not None else None


def human_position(analysis: Analysis, path: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a byte offset, columns in Unicode code points."""
    index = analysis.line_index(path)
    if index is None:
        return (1, 1)
    line, column = index.position(offset, "utf-32")
    return line + 1, column + 1


def human_range(analysis: Analysis, span: Span) -> tuple[tuple[int, int], tuple[int, int]]:
    return human_position(analysis, span.file, span.start), human_position(analysis, span.file, span.end)


def location(analysis: Analysis, span: Span | None) -> str | None:
    """``file:line:column`` of the start of a span."""
    if span is None:
        return None
    line, column = human_position(analysis, span.file, span.start)
    return f"{span.file}:{line}:{column}"


def condition_text(cond) -> str:
    """A branch condition for people: the root-scope gate as normalized HCL (``var.env != "prod"``).

    Falls back to the condition in its own module's scope when it cannot be written in the
    root, and keeps iteration atoms (``each.key == "jobs"``) when only the iteration decides.
    """
    try:
        gate = root_gate(cond)
    except NotExpressible:
        gate = None
    if gate is None:
        try:
            gate = materialize(cond, normalize=True)
        except NotExpressible:
            gate = str(cond)
    return gate or "true"
