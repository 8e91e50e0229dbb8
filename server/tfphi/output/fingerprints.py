"""Fingerprints that survive unrelated edits, for code-scanning UIs (SARIF ``partialFingerprints``,
GitLab's ``fingerprint``): they hash the code, the file, the text of the flagged line and the
flagged expression, never line numbers, and count repeats of the same key in one run."""

from __future__ import annotations

import hashlib

from ..analysis import Analysis
from ..diagnostics import Diagnostic
from ..features.locations import source_of


def _line_text(analysis: Analysis, d: Diagnostic) -> str:
    source = source_of(analysis, d.span.file)
    if source is None:
        return ""
    start = source.rfind(b"\n", 0, d.span.start) + 1
    end = source.find(b"\n", d.span.start)
    return source[start : end if end >= 0 else len(source)].decode("utf-8", "replace").strip()


def _span_text(analysis: Analysis, d: Diagnostic) -> str:
    source = source_of(analysis, d.span.file)
    return "" if source is None else source[d.span.start : d.span.end].decode("utf-8", "replace")


def occurrence_key(analysis: Analysis, d: Diagnostic) -> tuple:
    """What two diagnostics share when only their occurrence number tells their fingerprints apart."""
    return (d.code, d.file, _line_text(analysis, d), _span_text(analysis, d))


def fingerprint(analysis: Analysis, d: Diagnostic, path: str, occurrence: int) -> str:
    """Stable across edits elsewhere in the file: no line numbers (the message has some), only the
    code, the file (``path``, as the report names it), the flagged line's text and the flagged expression."""
    key = "\0".join([d.code, path, _line_text(analysis, d), _span_text(analysis, d), str(occurrence)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
