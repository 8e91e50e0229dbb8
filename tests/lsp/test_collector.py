"""The server's full garbage collections (lsp/collector.py): never on an allocation; what lives at
the end of an analysis pass is frozen, never walked again; once no client message came for
QUIET_SECONDS after a pass and no analysis runs, a full collection walks what came after it."""

from __future__ import annotations

import asyncio
import gc

import pytest

from tfphi.lsp.collector import QuietCollector


@pytest.fixture
def collector(monkeypatch):
    saved = gc.get_threshold()
    monkeypatch.setattr(QuietCollector, "QUIET_SECONDS", 0.01)
    try:
        yield QuietCollector()
    finally:
        gc.unfreeze()
        gc.set_threshold(*saved)


def test_generation_two_never_runs_on_an_allocation(collector):
    young, middle, _ = gc.get_threshold()
    assert gc.get_threshold() == (young, middle, 1 << 30)  # the young generations as before


@pytest.mark.parametrize("what, collected", [
    ("quiet", 1),
    ("a message came", 0),
    ("analysis runs", 0),
])
def test_a_full_collection_waits_for_a_quiet_moment(collector, what, collected):
    async def run():
        collector.pass_done(lambda: what == "analysis runs")
        if what == "a message came":
            collector.note_arrival()
        await asyncio.sleep(0.05)

    asyncio.run(run())
    assert collector.collections == collected


def test_what_lives_at_a_pass_end_is_frozen_and_what_came_after_is_collected_when_quiet(collector):
    kept = [[n] for n in range(1000)]  # what the pass leaves
    cycle: list = []

    async def run():
        collector.pass_done(lambda: False)
        assert not gc.is_tracked(kept) or gc.get_freeze_count() >= len(kept)  # frozen at the pass's end
        cycle.append(cycle)  # garbage made after the pass (a request's, a notification's)
        del cycle[:]
        await asyncio.sleep(0.05)

    asyncio.run(run())
    assert collector.collections == 1 and gc.get_freeze_count() >= len(kept)
    assert not any(o is kept for o in gc.get_objects())  # not among what a collection walks
