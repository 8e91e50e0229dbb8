"""Full garbage collections that walk only what is new, never the heap the analysis keeps.

A full collection (generation 2) walks every container object it tracks: at 1,000 modules,
0.24-0.86 s once the first analysis is over (up to 1.4 s as the heap grows), and what it finds
is next to nothing, because the analysis keeps no reference cycles by design
(tests/syntax/test_views_without_cycles.py): 97 objects of garbage against a heap of about a
hundred MiB (bench/README.md, "Issue 23: a keystroke after a pause, session 12"). Such a walk on
an allocation lands in the middle of a keystroke (session 9: the two slowest of 1,000 root
keystrokes, 532 and 984 ms, each waited for one); run when the server is quiet, it lands on the
next keystroke a user types after a pause (session 12: the first keystroke 0.7 s after the last
took 134-726 ms, waiting for the collection; 21-51 ms now, as the keystrokes after it).

So the server never walks what it keeps. CPython's own full collections are off (the young
generations are collected as before: most garbage cycles never get old). At the end of every
analysis pass, whatever lives is frozen (``gc.freeze``, constant time): the snapshot, its memos,
what was published; what the next edits drop of it is freed by reference counting, as everything
the analysis holds is. Once no client message came for ``QUIET_SECONDS`` after a pass and no
analysis runs, a full collection walks only what came after the pass (what requests and
notifications left), then freezes it too. What the frozen heap could lose to the collector is a
cycle formed among objects alive at a pass's end: tests/lsp/test_quiet_collector_walks_new.py
collects everything after the first analysis and after every keystroke shape with hovers, and
finds none (it found the one there was: a host and its latest snapshot, which the host now holds
weakly; at 1,000 modules, the focus host dropped after the first index was 186,583 objects).

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
from typing import Callable


class QuietCollector:
    QUIET_SECONDS = 0.5

    def __init__(self, trimmer: "HeapTrimmer | None" = None) -> None:
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, 1 << 30)  # generation 2: never on an allocation
        gc.freeze()  # the modules, classes and functions imported: they live as long as the process
        self._arrivals = 0
        self.collections = 0  # (for tests and benchmarks)
        self.trimmer = trimmer if trimmer is not None else HeapTrimmer.of_this_process()

    def note_arrival(self) -> None:
        """Client bytes came in (the transport): the server is not quiet."""
        self._arrivals += 1

    def pass_done(self, busy: Callable[[], bool]) -> None:
        """An analysis pass finished (on the loop): what lives is frozen; a full collection of
        what comes after runs if the server is still quiet ``QUIET_SECONDS`` from now."""
        gc.freeze()
        self.trimmer.pass_done()
        arrivals = self._arrivals
        asyncio.get_running_loop().call_later(self.QUIET_SECONDS, self._when_quiet, arrivals, busy)

    def _when_quiet(self, arrivals: int, busy: Callable[[], bool]) -> None:
        if arrivals == self._arrivals and not busy():
            self.collect()

    def collect(self) -> None:
        """A full collection of what is not frozen (what came after the last pass), then frozen."""
        gc.collect()
        gc.freeze()
        self.collections += 1


class HeapTrimmer:
    """Gives the C heap's free pages back to the system (glibc's ``malloc_trim``) at the end of
    an analysis pass once the resident memory grew by ``GROWTH_BYTES`` since the last time (see
    the module's docstring): about 1 ms, several times a minute under a stream of keystrokes
    that break and mend a large file, never while pages are only in use. Where the C library
    has no ``malloc_trim`` or ``/proc/self/statm`` is missing, it does nothing."""

    # 2 MiB (8 until session 14): the free pages left resident between two trims are a band the
    # server's RSS wanders in, and where a 30-minute soak ends in it was most of its "growth"
    # (session 13's two runs: glibc's heap 4-9 MiB resident above what it had in use at the end).
    # At 2 MiB the trims come about four times as often (~1 ms each, after a pass's diagnostics are
    # out): bench/README.md, "Session 14: soak6".
    GROWTH_BYTES = 2 << 20

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
