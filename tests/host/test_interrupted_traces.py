"""Background traces that give way to client messages and resume (``Snapshot.field_steps``,
``cancellation.Interrupt``): a message waits for one reference traced anew at most, and the
analysis that resumed is the one an uninterrupted analysis gives, however the messages come.

The server's background analysis traces each module's fields with the host's ``Interrupt`` armed;
while a client message waits, the trace stops at its next check (``Cancelled``), the loop reads the
message, and the trace resumes. Before, the unit a message had interrupted was traced to its end,
disarmed, the next time: the next keystroke, typed while it ran, waited for all of it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfphi import cancellation
from tfphi.analysis import AnalysisHost, SetSource
from tfphi.cancellation import Cancelled
from tfphi.trace import tracer as tracer_module

from host_support import LAYOUTS, everything, fresh

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import generate  # noqa: E402


def _generated(modules: int, seed: int) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), modules, seed=seed)
        return {p.relative_to(tmp).as_posix(): p.read_text(encoding="utf-8") for p in sorted(Path(tmp).rglob("*.tf"))}


WORKSPACES = {**LAYOUTS, "generated, 4 modules": _generated(4, 0), "generated, 6 modules": _generated(6, 3)}


class Client:
    """Client messages arriving at chosen checks of the background trace (``arrives``: one bool per
    check made while no message waits, cycled; all True: a client that never pauses), and what each
    one waited for: the references traced for the first time between its arrival and the trace
    giving way."""

    def __init__(self, arrives: list[bool]):
        self.arrives = arrives
        self.background = False  # the background work runs (armed or not: a message may come in at any time)
        self.checks = 0
        self.first_traced: set[tuple] = set()  # every reference (memo key) traced so far
        self.arrival_mark: int | None = None  # len(first_traced) when the waiting message arrived
        self.waited: list[int] = []  # per message: references traced anew before the trace gave way

    def install(self, monkeypatch) -> None:
        check, hop = cancellation.Cancellation.check, tracer_module.Tracer.hop
        client = self

        def arriving_check(self) -> None:
            interrupt = self.interrupt
            if client.background and not interrupt.waiting:
                client.checks += 1
                if client.arrives[client.checks % len(client.arrives)]:
                    interrupt.waiting = True  # (the transport's reader thread, as bytes come in)
                    client.arrival_mark = len(client.first_traced)
            return check(self)

        def noting_hop(self, key, label, depth, stack, span, compute):
            def noted(*args):
                client.first_traced.add(key)
                return compute(*args)
            return hop(self, key, label, depth, stack, span, noted)

        monkeypatch.setattr(cancellation.Cancellation, "check", arriving_check)
        monkeypatch.setattr(tracer_module.Tracer, "hop", noting_hop)

    def handled(self, host: AnalysisHost) -> None:
        """The loop read the message (``AnalysisScheduler.message_handled``)."""
        if host.interrupt.waiting:
            self.waited.append(len(self.first_traced) - self.arrival_mark)
        host.interrupt.waiting = False


def traced_in_background(texts: dict[str, str], client: Client) -> tuple[dict, int]:
    """Every module traced as the server's background does (``AnalysisScheduler._in_background``),
    giving way to ``client``'s messages; returns the analysis and how many times it gave way."""
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    snapshot = host.snapshot()
    gave_way = 0
    for dir in snapshot.dirs():
        while True:
            try:
                client.background = True
                for _ in snapshot.field_steps(dir):
                    pass
                break
            except Cancelled:
                client.background = False
                gave_way += 1
                assert gave_way < 200_000, "the analysis starves"
                client.handled(host)
        client.background = False
    client.handled(host)
    return everything(snapshot), gave_way


@pytest.mark.parametrize("name", sorted(WORKSPACES))
def test_a_client_that_never_pauses_waits_one_reference_at_most_and_the_analysis_is_the_same(name, monkeypatch):
    """A message at every check: each one waits for at most one reference traced for the first
    time (before, the interrupted field's whole trace, disarmed), and the analysis completes,
    equal to a fresh one."""
    texts = WORKSPACES[name]
    expected = everything(fresh(texts))
    client = Client([True])
    client.install(monkeypatch)
    got, gave_way = traced_in_background(texts, client)
    assert got == expected
    assert gave_way > 0 and max(client.waited) <= 1, sorted(client.waited)[-10:]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(WORKSPACES)), arrives=st.lists(st.booleans(), min_size=1, max_size=12))
def test_messages_at_any_checks_leave_the_analysis_as_a_fresh_one(name, arrives, monkeypatch):
    """Messages arriving at any pattern of checks: the same analysis as a fresh host's, and no
    message waits for more than one reference traced anew."""
    texts = WORKSPACES[name]
    with monkeypatch.context() as patch:
        client = Client(arrives)
        client.install(patch)
        got, _ = traced_in_background(texts, client)
    assert got == everything(fresh(texts))
    assert max(client.waited, default=0) <= 1
