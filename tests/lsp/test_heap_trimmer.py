"""The server gives the C heap's free pages back once its resident memory grew by
``HeapTrimmer.GROWTH_BYTES`` since the last time (lsp/collector.py; bench/README.md, "Issue 23:
soak, session 11"), at the end of an analysis pass, and not again until it grew as much again."""

from __future__ import annotations

import ctypes
import gc
import sys

from tfphi.lsp.collector import HeapTrimmer, QuietCollector

MIB = 1 << 20


def test_the_heap_is_trimmed_once_per_growth_past_the_bound():
    resident = [100 * MIB]
    calls = []

    def trim(pad: int) -> int:
        calls.append(pad)
        resident[0] -= 6 * MIB  # what the trim gave back
        return 1

    trimmer = HeapTrimmer(trim, lambda: resident[0])
    trimmer.GROWTH_BYTES = 8 * MIB  # (the table below is in steps of this bound; the server's is 2 MiB)
    seen = []
    for grown in (4, 4, 1, 2, 9, 1, 1):  # MiB grown before each pass's end
        resident[0] += grown * MIB
        trimmer.pass_done()
        seen.append((resident[0] // MIB, len(calls)))
    # 100 -> 109 MiB: trimmed once to 103 (the floor); 103 -> 114: again, to 108; no more
    assert seen == [(104, 0), (108, 0), (103, 1), (105, 1), (108, 2), (109, 2), (110, 2)]
    assert calls == [0, 0] and trimmer.trims == 2


def test_nothing_is_trimmed_where_the_platform_cannot_say_or_do_it():
    HeapTrimmer(None, lambda: 1 << 40).pass_done()  # no malloc_trim: nothing to call
    trimmer = HeapTrimmer(lambda pad: 1 / 0, lambda: None)  # no resident size: never called
    trimmer.pass_done()
    assert trimmer.trims == 0


def test_the_server_trims_through_glibc_on_linux():
    if not sys.platform.startswith("linux"):
        return
    saved = gc.get_threshold()
    try:
        trimmer = QuietCollector().trimmer
    finally:
        gc.set_threshold(*saved)
    assert isinstance(trimmer._trim, ctypes._CFuncPtr) and trimmer._floor > 0
