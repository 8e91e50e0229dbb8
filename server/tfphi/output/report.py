"""What every format renders: the diagnostics of one ``tfphi check`` run and where they come from."""

from __future__ import annotations

from ..analysis import Analysis
from ..diagnostics import Diagnostic
from ..features.locations import human_range


class CheckReport:
    """The diagnostics of one run, sorted (SPEC: file, position, code), with ``dir`` (the
    directory their ``file`` is relative to, as given on the command line) and ``shard``
    (``(K, N)`` for ``--shard K/N``, else None)."""

    __slots__ = ("analysis", "diagnostics", "dir", "shard")

    def __init__(self, analysis: Analysis, diagnostics: list[Diagnostic], dir: str, shard: tuple[int, int] | None = None):
        self.analysis, self.diagnostics, self.dir, self.shard = analysis, diagnostics, dir, shard


def diagnostic_range(analysis: Analysis, d: Diagnostic) -> tuple[tuple[int, int], tuple[int, int]]:
    """1-based (line, column) of the diagnostic's start and end (columns in code points)."""
    if d.position is not None:
        return d.position, d.position
    return human_range(analysis, d.span)
