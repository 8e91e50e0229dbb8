"""What every format renders: the diagnostics of one ``tfphi check`` run and where they come from."""

from __future__ import annotations

from typing import Mapping

from ..analysis import Analysis
from ..check_scope import RootsKey, roots_key
from ..diagnostic_roots import diagnostic_roots
from ..diagnostics import Diagnostic
from ..features.locations import human_range


class CheckReport:
    """The diagnostics of one run, sorted (SPEC: file, position, code), with ``dir`` (the
    directory their ``file`` is relative to, as given on the command line) and ``shard``
    (``(K, N)`` for ``--shard K/N``, else None)."""

    __slots__ = ("analysis", "diagnostics", "dir", "shard", "known_roots")

    def __init__(self, analysis: Analysis, diagnostics: list[Diagnostic], dir: str, shard: tuple[int, int] | None = None,
                 known_roots: Mapping[RootsKey, list[str]] | None = None):
        self.analysis, self.diagnostics, self.dir, self.shard = analysis, diagnostics, dir, shard
        # ``check_scope.check_diagnostics``'s ``known_roots``: a batch check has released the traces they are read from
        self.known_roots = known_roots or {}

    def roots(self, d: Diagnostic) -> list[str]:
        """The roots the diagnostic holds in (``roots`` of the JSON, the text's ``Roots:`` line)."""
        key = roots_key(d)
        known = self.known_roots.get(key)
        return known if known is not None else diagnostic_roots(self.analysis, *key)


def diagnostic_range(analysis: Analysis, d: Diagnostic) -> tuple[tuple[int, int], tuple[int, int]]:
    """1-based (line, column) of the diagnostic's start and end (columns in code points)."""
    if d.position is not None:
        return d.position, d.position
    return human_range(analysis, d.span)
