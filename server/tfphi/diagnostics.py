"""Structured diagnostics, on the model of HCL's ``hcl.Diagnostic``.

A diagnostic is data: a one-sentence ``message`` (HCL's summary), a ``detail`` that
explains it, the ``span`` it is about (HCL's subject), ``related`` locations, and
``fixes``. The CLI, the server and the specializer render these fields; nothing parses a
rendered message back. ``text`` is the one rendering shared by every plain-text consumer
(the LSP message, ``check``'s JSON ``message``): summary, detail, then one fix per line.
"""

from __future__ import annotations

from typing import Any

from .records import record, field
from .syntax.expr import Span

SEVERITY_RANK = {"error": 0, "warning": 1, "information": 2, "hint": 3}

FIXES_HEADING = "Fix (any one works):"


@record(frozen=True, slots=True)
class Related:
    """Another place the diagnostic is about, with what it is (``var.engine is declared here``)."""

    span: Span
    message: str


@record(frozen=True, slots=True)
class Fix:
    """One way to make the diagnostic go away, as a full sentence.

    ``kind`` says which fix it is (``default``, ``validation``, ``hardcode``, ``universe``,
    ``limit``, ``plan-time``, ``init``, ``narrow``, ``upstream``); code actions build their edits from the
    diagnostic's ``data``, not from this text.
    """

    kind: str
    text: str


@record(frozen=True, slots=True)
class Diagnostic:
    """``span`` is a byte range; ``position`` (1-based line, code-point column) stands in when there is no span."""

    file: str
    span: Span
    severity: str
    code: str
    message: str  # the summary: one full sentence
    related: tuple[Related, ...] = ()
    data: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    position: tuple[int, int] | None = None
    detail: str = ""
    fixes: tuple[Fix, ...] = ()

    @property
    def text(self) -> str:
        """Summary, detail and fixes as plain text, one fix per line."""
        lines = [self.message]
        if self.detail:
            lines.append(self.detail)
        lines += fix_lines(self.fixes)
        return "\n".join(lines)


def fix_lines(fixes: tuple[Fix, ...] | list[Fix]) -> list[str]:
    """``Fix (any one works):`` then ``1. ...`` per fix, or nothing."""
    if not fixes:
        return []
    if len(fixes) == 1:
        return [f"Fix: {fixes[0].text}"]
    return [FIXES_HEADING] + [f"  {i}. {fix.text}" for i, fix in enumerate(fixes, 1)]


def sort_key(d: Diagnostic):
    return (d.file, d.position or (0, 0), d.span.start, d.span.end, d.code, d.message)
