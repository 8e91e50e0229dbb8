"""Suppression comments (SPEC 5): ``# tfphi:ignore <code>[, <code>...]`` on a diagnostic's line or
the line above it silences those codes there; ``# tfphi:ignore`` alone silences every code.

``//`` comments work too (HCL allows both). Only comment text counts: the marker must follow
``#`` or ``//`` on that line, and what follows it is a comma- or space-separated list of codes.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..analysis import Analysis
from ..diagnostics import Diagnostic
from .locations import source_of
from ..lazy_re import lazy_compile

_MARKER = re.compile(r"(?:#|//)\s*tfphi:ignore\b([^\n]*)")
_CODE = lazy_compile(r"[a-z][a-z0-9-]*")
ALL = "*"
_WORD = b"tfphi:ignore"  # (in every marker ``_MARKER`` matches)


def ignored_codes(line: str) -> frozenset[str]:
    """The codes a line's suppression comment names (``{"*"}`` for all), or none."""
    match = _MARKER.search(line)
    if match is None:
        return frozenset()
    codes = frozenset(_CODE.findall(match.group(1).split("#")[0]))
    return codes or frozenset({ALL})


def _lines_around(source: bytes, offset: int) -> tuple[str, str]:
    """The text of the line holding ``offset`` and of the line above it."""
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    line = source[start : end if end >= 0 else len(source)]
    above_start = source.rfind(b"\n", 0, max(start - 1, 0)) + 1 if start > 0 else start
    above = source[above_start : start - 1] if start > 0 else b""
    return line.decode("utf-8", "replace"), above.decode("utf-8", "replace")


def suppressed_in(source: bytes, offset: int, code: str) -> bool:
    """Whether a suppression comment of ``source`` silences ``code`` at byte ``offset``. The two
    lines are decoded and read only when their bytes hold the marker's word (found in C, nothing
    copied): most diagnostics have no comment near them."""
    start = source.rfind(b"\n", 0, max(source.rfind(b"\n", 0, offset), 0)) + 1
    end = source.find(b"\n", offset)
    if source.find(_WORD, start, end if end >= 0 else len(source)) < 0:
        return False
    for text in _lines_around(source, offset):
        codes = ignored_codes(text)
        if ALL in codes or code in codes:
            return True
    return False


def unsuppressed(analysis: Analysis, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics no suppression comment silences (each file's source found once)."""
    sources: dict[str, bytes | None] = {}
    out = []
    for d in diagnostics:
        if d.code != "config-error" and d.position is None:
            file = d.span.file
            source = sources[file] if file in sources else sources.setdefault(file, source_of(analysis, file))
            if source is not None and suppressed_in(source, d.span.start, d.code):
                continue
        out.append(d)
    return out
