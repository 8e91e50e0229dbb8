"""The server's full garbage collections run when it is quiet (lsp/collector.py): never on an
allocation, and once no client message came for QUIET_SECONDS after a pass, no analysis runs
and the heap grew by a quarter."""

from __future__ import annotations

import asyncio
import gc
import sys

import pytest

from tfphi.lsp.collector import QuietCollector


@pytest.fixture
def collector(monkeypatch):
    saved = gc.get_threshold()
    monkeypatch.setattr(QuietCollector, "QUIET_SECONDS", 0.01)
    try:
        yield QuietCollector()
    finally:
        gc.set_threshold(*saved)


def test_generation_two_never_runs_on_an_allocation(monkeypatch):
    saved = gc.get_threshold()
    try:
        QuietCollector()
        assert gc.get_threshold() == (saved[0], saved[1], 1 << 30)  # the young generations as before
    finally:
        gc.set_threshold(*saved)


@pytest.mark.parametrize("what, collected", [
    ("quiet, grown", 1),
    ("a message came", 0),
    ("analysis runs", 0),
    ("not grown", 0),
])
def test_a_full_collection_waits_for_a_quiet_moment(collector, what, collected):
    async def run():
        busy = what == "analysis runs"
        if what != "not grown":
            collector._size = sys.getallocatedblocks() // 2  # as if the heap had doubled since the last one
        collector.pass_done(lambda: busy)
        if what == "a message came":
            collector.note_arrival()
        await asyncio.sleep(0.05)

    asyncio.run(run())
    assert collector.collections == collected
