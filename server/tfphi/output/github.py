"""``check --format github``: one GitHub Actions workflow command per diagnostic (SPEC section 1),
which the Actions runner turns into an annotation on the file and line of the pull request:

    ::warning file=modules/cache/main.tf,line=8,col=26,endLine=8,title=unbounded-field::can't determine...

``file`` is relative to the repository root (the checkout), as annotations need. Values are
escaped as the runner reads them (actions/toolkit ``command.ts``): ``%``, CR and LF in the
message; those and ``:`` and ``,`` in a property.
"""

from __future__ import annotations

from .paths import repository_path, repository_root
from .report import CheckReport, diagnostic_range

LEVELS = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


def escape_data(text: str) -> str:
    """A command's message: ``%`` first, so that the escapes themselves survive."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property's value: the message's escapes, and the separators ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: CheckReport) -> str:
    root = repository_root(report.dir)
    lines = []
    for d in report.diagnostics:
        (line, column), (end_line, _) = diagnostic_range(report.analysis, d)
        properties = [
            ("file", repository_path(root, report.dir, d.file)),
            ("line", str(line)),
            ("col", str(column)),
            ("endLine", str(end_line)),
            ("title", d.code),
        ]
        spelled = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        lines.append(f"::{LEVELS.get(d.severity, 'warning')} {spelled}::{escape_data(d.text)}\n")
    return "".join(lines)
