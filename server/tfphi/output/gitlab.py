"""``check --format gitlab``: a GitLab Code Quality report (SPEC section 1), the JSON array that a
job's ``artifacts: reports: codequality`` uploads for the merge request widget.

GitLab's documentation requires, per issue: ``description``, ``check_name``, ``fingerprint``
(unique per issue, stable across runs: the SARIF fingerprint, which survives unrelated edits),
``severity`` (``info``, ``minor``, ``major``, ``critical`` or ``blocker``) and ``location.path``
(relative to the repository root) with ``location.lines.begin``.
tests/core/test_cli_formats.py checks the output against a schema written from that page.
"""

from __future__ import annotations

import json

from ..diagnostics import Diagnostic
from .paths import repository_path, repository_root
from .report import CheckReport, diagnostic_range
from .fingerprints import fingerprint, occurrence_key

# An error stops `terraform plan` (a syntax error, an undefined reference): major. A warning
# is a value the service compiler cannot specialize: minor. Information (a module to install): info.
SEVERITIES = {"error": "major", "warning": "minor", "information": "info", "hint": "info"}


def issue(report: CheckReport, d: Diagnostic, path: str, occurrence: int) -> dict:
    (line, _), (end_line, _) = diagnostic_range(report.analysis, d)
    return {
        "type": "issue",
        "engine_name": "tfphi",
        "check_name": d.code,
        "description": d.message,
        "content": {"body": d.text},
        "categories": ["Bug Risk"],
        "severity": SEVERITIES.get(d.severity, "minor"),
        "fingerprint": fingerprint(report.analysis, d, path, occurrence),
        "location": {"path": path, "lines": {"begin": line, "end": end_line}},
    }


def render(report: CheckReport) -> str:
    root = repository_root(report.dir)
    seen: dict[tuple, int] = {}
    issues = []
    for d in report.diagnostics:
        key = occurrence_key(report.analysis, d)
        seen[key] = seen.get(key, 0) + 1
        issues.append(issue(report, d, repository_path(root, report.dir, d.file), seen[key]))
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
