"""A module's findings as diagnostics, each made once per finding and kept for the next edit.

A finding (``stir.references.Finding``) of an edited file is the same object from keystroke to
keystroke while its block's text and the name it looks up do not change (``stir.file_findings``:
its span is relative to its block's anchor, so a block an edit moved keeps it too), and one
that a change of names let go comes back as that object when the names do (a call's label typed
into, then taken back). Its diagnostic is a function of the finding alone, the span the same
object (placed in lines only when it is published: ``lsp.convert``), so it is made once and
found again by the finding's identity. The host keeps one ``FindingDiagnostics`` per module
directory (``analysis.Snapshot.finding_diagnostics``): the diagnostics of the module's last two
lists of findings, nothing of findings that are gone from both.
"""

from __future__ import annotations

from typing import Iterable

from ..diagnostics import Diagnostic, Related
from .references import Finding


def finding_diagnostic(finding: Finding) -> Diagnostic:
    """The diagnostic of an undefined reference, a missing argument, a duplicate declaration..."""
    span, related = finding.span, finding.related
    if related:
        related = tuple([Related(at, message) for at, message in related])
    return Diagnostic(span.file, span, finding.severity, finding.code, finding.message, related)


class FindingDiagnostics:
    """The diagnostics of one module's findings, by the finding's identity (each held with its
    finding, so an id is never another finding's while it is here): those of the last list
    asked for and of the one before it (a keystroke taken back asks for the list before the
    last again). Like ``lsp.publish.ConvertedDiagnostics``, the list before stays when the
    same findings are asked for twice."""

    __slots__ = ("_last", "_before")

    def __init__(self) -> None:
        self._last: dict[int, tuple[Finding, Diagnostic]] = {}
        self._before: dict[int, tuple[Finding, Diagnostic]] = {}

    def diagnostics(self, findings: Iterable[Finding]) -> list[Diagnostic]:
        """The diagnostic of each of ``findings``, in order: the one made before for the same
        finding object, else made now."""
        last, before = self._last, self._before
        now: dict[int, tuple[Finding, Diagnostic]] = {}
        out: list[Diagnostic] = []
        for finding in findings:
            key = id(finding)
            held = last.get(key) or before.get(key)
            if held is None or held[0] is not finding:
                held = (finding, finding_diagnostic(finding))
            now[key] = held
            out.append(held[1])
        self._last, self._before = (now, before) if now.keys() == last.keys() else (now, last)
        return out

    @property
    def empty(self) -> bool:
        """Whether it holds nothing (the host lets it go)."""
        return not self._last and not self._before
