"""The progress line of a long ``tfphi check`` on a terminal (stderr): files read, then modules
analysed. It appears only once the run has lasted ``DELAY`` seconds, only when stderr is a
terminal, never with ``--quiet``; it rewrites one line (``\\r``) at most ``RATE`` times a second
and erases it at the end, so a terminal keeps only the output. It writes nothing to stdout: the
machine formats are the same bytes with or without it.

The run calls it from its own loops (no thread: the loader forks a parsing worker only when
no other thread runs).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

DELAY = 1.0
RATE = 10


class Progress:
    """``step(what, done, total)`` from the run's loops; ``close()`` at the end."""

    def __init__(self, stream: TextIO | None = None, enabled: bool = True, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and _is_terminal(self.stream)
        self.clock = clock
        self.start = clock()
        self.last = 0.0
        self.shown = False

    def step(self, what: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < DELAY or (now - self.last < 1 / RATE and done != total):
            return
        self.last = now
        self.stream.write(f"\r\x1b[Ktfphi: {what} {done:,}/{total:,} ({now - self.start:.0f} s)")
        self.stream.flush()
        self.shown = True

    def files(self, done: int, total: int) -> None:
        self.step("reading files", done, total)

    def modules(self, done: int, total: int) -> None:
        self.step("analysing modules", done, total)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
