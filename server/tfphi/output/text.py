"""``check --format text``: ``file:line:col: severity[code]: message``, then the indented details
(SPEC section 1). The summary line (``tfphi: 1 warning``) is the CLI's, on stderr."""

from __future__ import annotations

from ..diagnostics import SEVERITY_RANK, Diagnostic
from ..workspace_output import text_roots_line
from .report import CheckReport, diagnostic_range


def render(report: CheckReport) -> str:
    lines: list[str] = []
    for d in report.diagnostics:
        (line, column), _ = diagnostic_range(report.analysis, d)
        lines.append(f"{d.file}:{line}:{column}: {d.severity}[{d.code}]: {d.message}")
        lines.extend(f"    {more}" for more in d.text.split("\n")[1:] + text_roots_line(report.roots(d)))
    return "".join(f"{line}\n" for line in lines)


def summary(diagnostics: list[Diagnostic]) -> str:
    """``tfphi: 1 error, 2 warnings`` or ``tfphi: no problems found``."""
    counts = {s: sum(1 for d in diagnostics if d.severity == s) for s in SEVERITY_RANK}
    parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n]
    return "tfphi: " + (", ".join(parts) if parts else "no problems found")
