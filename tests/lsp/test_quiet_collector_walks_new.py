"""A full garbage collection in the server walks only what came after the last analysis pass, never
the heap the analysis keeps (lsp/collector.py; bench/README.md, "Issue 23: a keystroke after a
pause, session 12").

The server's scheduler in-process on a generated folder with the server's ``QuietCollector``, the
root's ``main.tf`` and a leaf's opened as the server starts; once the first analysis is over,
every keystroke shape of bench/shapes.py typed into them and taken back, with a hover after each,
as an editor sends them. Before, the collection the server ran when quiet walked every object the
analysis keeps (at 1,000 modules 0.24-0.48 s, on the next keystroke after a pause); now what a
pass leaves is frozen at its end. The design's premise is the second test: what the frozen heap
drops is freed by reference counting (the first analysis, the edits and the hovers leave no cyclic
garbage).
"""

from __future__ import annotations

import asyncio
import gc
import sys
from collections import Counter
from pathlib import Path

import pytest
from pygls.uris import from_fs_path

from tfphi.features.hover import hover_at
from tfphi.lsp.collector import QuietCollector
from tfphi.lsp.documents import TextChange
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import Folder, LiveWorkspace

from lsp_helpers import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import generate  # noqa: E402
from shapes import LEAF_SHAPES, ROOT_SHAPES, end_of_insert, locate  # noqa: E402

MODULES = 40


@pytest.fixture
def collector(monkeypatch):
    """The server's collector, its quiet moment shortened; the process's collector as it was, after."""
    monkeypatch.setattr(QuietCollector, "QUIET_SECONDS", 0.02)
    saved = gc.get_threshold()
    gc.collect()
    try:
        yield QuietCollector()
    finally:
        gc.set_debug(0)
        gc.unfreeze()
        gc.set_threshold(*saved)
        gc.garbage.clear()
        gc.collect()


def cyclic_garbage() -> Counter:
    """The types of what a full collection of everything (the frozen heap too) finds, freed after."""
    gc.unfreeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    gc.collect()  # (what DEBUG_SAVEALL kept, freed now)
    gc.freeze()
    return found


class Session:
    """The scheduler on a generated folder, two documents open from its start, edited as a client does."""

    def __init__(self, root: Path, collector: QuietCollector):
        summary = generate(root, MODULES, seed=0)
        self.root = root
        self.ws = LiveWorkspace("utf-16")
        self.folder: Folder = self.ws.add_folder(from_fs_path(str(root)), root.name)

        async def progress() -> Progress:
            return Progress()

        self.scheduler = AnalysisScheduler(self.ws, DiagnosticPublisher(self.ws, lambda uri, version, items: None),
                                           progress, lambda message: None)
        self.scheduler.collect_when_quiet(collector)
        self.documents = [("main.tf", ROOT_SHAPES), (summary["probes"]["leaf_edit"]["file"], LEAF_SHAPES)]
        self.texts = {rel: (root / rel).read_text(encoding="utf-8") for rel, _ in self.documents}
        self.versions = dict.fromkeys(self.texts, 1)
        for rel, _ in self.documents:
            self.ws.open(self.uri(rel), 1, self.texts[rel], "terraform")

    def uri(self, rel: str) -> str:
        return from_fs_path(str(self.root / rel))

    async def first_analysis(self) -> None:
        self.scheduler.schedule()
        while not self.folder.indexed:
            await asyncio.sleep(0.01)
        await self.scheduler.idle()

    def change(self, rel: str, start: dict, end: dict, new: str) -> None:
        self.versions[rel] += 1
        self.scheduler.note_arrival()  # as the transport's reader thread does
        span = ((start["line"], start["character"]), (end["line"], end["character"]))
        self.ws.change(self.uri(rel), self.versions[rel], [TextChange(new, span)])
        self.scheduler.schedule({self.uri(rel)})
        self.scheduler.message_handled()

    async def type_every_shape(self) -> None:
        """Every shape typed and taken back (each keystroke's pass to its end), a hover after each."""
        for rel, shapes in self.documents:
            for shape in shapes:
                start = locate(shape, self.texts[rel])
                self.change(rel, start, start, shape.insert)
                await self.scheduler.idle()
                self.change(rel, start, end_of_insert(start, shape.insert), "")
                await self.scheduler.idle()
                text = self.texts[rel]
                offset = sum(len(line) + 1 for line in text.split("\n")[: start["line"]]) + start["character"]
                hover_at(self.folder.snapshot(), rel, offset)

    @staticmethod
    async def quiet_moment(collector: QuietCollector) -> None:
        collections = collector.collections
        while collector.collections == collections:
            await asyncio.sleep(0.01)


async def test_a_full_collection_after_the_first_analysis_walks_what_came_after_the_last_pass(tmp_path: Path, collector):
    session = Session(tmp_path, collector)
    await session.first_analysis()
    for _ in range(3):
        await session.type_every_shape()
        walked, frozen = len(gc.get_objects()), gc.get_freeze_count()  # a full collection walks what is not frozen
        assert walked < frozen / 100, (walked, frozen)  # before: the whole heap, nothing frozen
        await asyncio.wait_for(Session.quiet_moment(collector), 10)


async def test_the_first_analysis_edits_and_hovers_leave_no_cyclic_garbage_for_the_frozen_heap_to_keep(tmp_path: Path, collector):
    session = Session(tmp_path, collector)
    cyclic_garbage()  # (what the tests before left)
    await session.first_analysis()
    # The host that analysed the open documents' roots first (lsp/focus.py), dropped once the folder is
    # indexed: it and its latest snapshot pointed at each other (``AnalysisHost._latest``), a cycle of
    # 186,583 objects (16 MiB and more) at 1,000 modules that the frozen heap would have kept for good.
    assert cyclic_garbage() == Counter()
    for _ in range(3):
        await session.type_every_shape()
        assert cyclic_garbage() == Counter()
