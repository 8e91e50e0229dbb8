"""``check --format json``: ``{"diagnostics": [...]}`` (SPEC section 1)."""

from __future__ import annotations

import json

from ..analysis import Analysis
from ..diagnostics import Diagnostic
from ..features.locations import human_range
from ..workspace_output import check_json_entry
from .report import CheckReport, diagnostic_range


def diagnostic_json(analysis: Analysis, d: Diagnostic, roots: list[str]) -> dict:
    """One entry: file, range, severity, code, message (``text``: summary, detail, fixes), roots, related."""
    (sl, sc), (el, ec) = diagnostic_range(analysis, d)
    entry = {
        "file": d.file,
        "range": {"start": {"line": sl, "column": sc}, "end": {"line": el, "column": ec}},
        "severity": d.severity,
        "code": d.code,
        "message": d.text,
        "related": [
            {"file": r.span.file, "line": human_range(analysis, r.span)[0][0], "message": r.message} for r in d.related
        ],
    }
    return check_json_entry(entry, roots)


def render(report: CheckReport) -> str:
    entries = [diagnostic_json(report.analysis, d, report.roots(d)) for d in report.diagnostics]
    return json.dumps({"diagnostics": entries}, indent=2, ensure_ascii=False) + "\n"
