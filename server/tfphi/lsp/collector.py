"""Full garbage collections when the server is quiet, not in the middle of a keystroke.

A full collection (generation 2) walks every container object of the process: 0.05-1.4 s as
the first analysis of the 1,000-module workspace grows the heap, and CPython starts one on
whatever allocation comes next once the long-lived objects grew by a quarter. Measured in
session 9 (bench/README.md, "Issue 23: root edits cost what they touch"): of 1,000 root
keystrokes typed from the first diagnostics on, the slowest two (532 and 984 ms, against a
p50 of 4 ms) each waited for such a collection (513 and 968 ms, logged with their times); the
newline shape's p99 of 87 and 225 ms in session 8 were the same. An edit touches a block; a
collection touches the heap: it is the one cost that does not follow what the edit touched.

So the server turns CPython's own full collections off (the young generations are collected
as before: most garbage cycles never get old) and runs one itself, by CPython's own rule (the
heap grew by a quarter since the last one), once no client message came for
``QUIET_SECONDS`` and no analysis runs. What waits for it is small: the full collection at
the end of that session (1,000 keystrokes typed without a pause, the first analysis running
meanwhile) found 434 objects of garbage; the heap's growth was the analysis' own.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Callable


class QuietCollector:
    QUIET_SECONDS = 0.5
    GROWTH = 1.25  # CPython's rule: a full collection once the long-lived objects grew by a quarter

    def __init__(self) -> None:
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, 1 << 30)  # generation 2: never on an allocation
        self._size = sys.getallocatedblocks()  # the heap after the last full collection
        self._arrivals = 0
        self.collections = 0  # (for tests and benchmarks)

    def note_arrival(self) -> None:
        """Client bytes came in (the reader thread): the server is not quiet."""
        self._arrivals += 1

    def pass_done(self, busy: Callable[[], bool]) -> None:
        """An analysis pass finished (on the loop): collect if the server is still quiet
        ``QUIET_SECONDS`` from now and the heap grew enough."""
        arrivals = self._arrivals
        asyncio.get_running_loop().call_later(self.QUIET_SECONDS, self._when_quiet, arrivals, busy)

    def _when_quiet(self, arrivals: int, busy: Callable[[], bool]) -> None:
        if arrivals == self._arrivals and not busy() and sys.getallocatedblocks() > self._size * self.GROWTH:
            self.collect()

    def collect(self) -> None:
        gc.collect()
        self._size = sys.getallocatedblocks()
        self.collections += 1
