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

At the end of each pass, ``HeapTrimmer`` also gives the C heap's free pages back to the system
once the process grew by ``GROWTH_BYTES`` since it last did: glibc returns only the top of its
main heap, and a transient peak (a keystroke that leaves a large file broken parses the whole
text, 15-25 MiB of tree-sitter's recovery, before reading it piece by piece) leaves its pages
free but resident below what lives on. Measured in the server (bench/README.md, "Issue 23:
soak, session 11"): after 5 minutes of the soak, the heap held 22 MiB free against 17 in use
while Python's objects and the C heap in use stayed flat; ``malloc_trim(0)`` took 1.1 ms and
gave back 11-16 MiB of resident memory.
"""

from __future__ import annotations

import asyncio
import ctypes
import mmap
import gc
import sys
from typing import Callable


class QuietCollector:
    QUIET_SECONDS = 0.5
    GROWTH = 1.25  # CPython's rule: a full collection once the long-lived objects grew by a quarter

    def __init__(self, trimmer: "HeapTrimmer | None" = None) -> None:
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, 1 << 30)  # generation 2: never on an allocation
        self._size = sys.getallocatedblocks()  # the heap after the last full collection
        self._arrivals = 0
        self.collections = 0  # (for tests and benchmarks)
        self.trimmer = trimmer if trimmer is not None else HeapTrimmer.of_this_process()

    def note_arrival(self) -> None:
        """Client bytes came in (the reader thread): the server is not quiet."""
        self._arrivals += 1

    def pass_done(self, busy: Callable[[], bool]) -> None:
        """An analysis pass finished (on the loop): collect if the server is still quiet
        ``QUIET_SECONDS`` from now and the heap grew enough."""
        self.trimmer.pass_done()
        arrivals = self._arrivals
        asyncio.get_running_loop().call_later(self.QUIET_SECONDS, self._when_quiet, arrivals, busy)

    def _when_quiet(self, arrivals: int, busy: Callable[[], bool]) -> None:
        if arrivals == self._arrivals and not busy() and sys.getallocatedblocks() > self._size * self.GROWTH:
            self.collect()

    def collect(self) -> None:
        gc.collect()
        self._size = sys.getallocatedblocks()
        self.collections += 1


class HeapTrimmer:
    """Gives the C heap's free pages back to the system (glibc's ``malloc_trim``) at the end of
    an analysis pass once the resident memory grew by ``GROWTH_BYTES`` since the last time (see
    the module's docstring): about 1 ms, a few times a minute under a stream of keystrokes
    that break and mend a large file, never while pages are only in use. Where the C library
    has no ``malloc_trim`` or ``/proc/self/statm`` is missing, it does nothing."""

    GROWTH_BYTES = 8 << 20

    def __init__(self, trim: "Callable[[int], int] | None", resident: "Callable[[], int | None]") -> None:
        """``trim``: glibc's ``malloc_trim`` (None: nothing to call); ``resident``: the process's
        resident bytes (None when unknown). ``of_this_process`` gives the real ones."""
        self._trim = trim
        self._resident = resident
        self._floor = resident() if trim is not None else None
        self.trims = 0  # (for tests and benchmarks)

    @classmethod
    def of_this_process(cls) -> "HeapTrimmer":
        return cls(_malloc_trim(), _resident_bytes)

    def pass_done(self) -> None:
        if self._trim is None or self._floor is None:
            return
        now = self._resident()
        if now is not None and now > self._floor + self.GROWTH_BYTES:
            self._trim(0)
            self.trims += 1
            self._floor = self._resident()  # (what lives on: the next trim waits for as much growth again)


def _malloc_trim() -> "Callable[[int], int] | None":
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc (or no C library to ask)
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def _resident_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * mmap.PAGESIZE
    except OSError:
        return None
