"""The first analysis in short steps (issue 23, point 8): a client message never waits for a batch
of files or for the whole folder's modules.

The server's scheduler in-process, on a generated folder, a leaf module's file opened as the
server starts. The index reads the folder a file a step and builds its modules a module a step
(``AnalysisHost.build_steps``), giving way between two steps when a client message waits, so that
the folder's first snapshot assembles only the module tree. Counted in steps of the loop, not
timed: before, the index read 25 files a step and built every module of the folder in the step
that took its first snapshot.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

from pygls.uris import from_fs_path

from tfphi.features.hover import hover_at
from tfphi.lsp import scheduler as scheduler_module
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace
from tfphi.trace.memo import MemoStore

from lsp_helpers import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import generate  # noqa: E402

MODULES = 60


def started(root: Path, rel: str, published: list[str]):
    """The scheduler on ``root`` with ``rel`` opened as the server starts (the URIs it publishes
    diagnostics for go to ``published``): workspace, folder, scheduler, URI."""
    ws = LiveWorkspace("utf-16")
    folder = ws.add_folder(from_fs_path(str(root)), root.name)
    publisher = DiagnosticPublisher(ws, lambda uri, version, items: published.append(uri))

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, publisher, progress, lambda message: None)
    uri = from_fs_path(str(root / rel))
    ws.open(uri, 1, (root / rel).read_text(encoding="utf-8"))
    scheduler.schedule({uri})
    return ws, folder, scheduler, uri


def offset_of(text: str, line: int, character: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line]) + character  # (ASCII: bytes = characters)


async def test_each_step_of_the_index_reads_one_file_or_builds_one_module(tmp_path: Path, monkeypatch):
    """With no time slice, the index gives way after every step: each turn of the loop shows one."""
    monkeypatch.setattr(scheduler_module, "SLICE_SECONDS", 0.0)
    summary = generate(tmp_path, MODULES, seed=0)
    ws, folder, scheduler, _ = started(tmp_path, summary["probes"]["leaf_edit"]["file"], [])
    host = folder.host
    seen: list[tuple[int, int]] = []  # (files read, modules built) at each turn of the loop
    while not folder.indexed:
        seen.append((len(host.files), host.modules_built))
        await asyncio.sleep(0)
    seen.append((len(host.files), host.modules_built))
    scheduler.stopped = True
    await scheduler.idle()
    files = sum(1 for p in tmp_path.rglob("*.tf"))
    modules = len(folder.snapshot().modules)
    assert seen[-1][0] == files and seen[-1][1] >= modules
    steps = list(zip(seen, seen[1:]))
    assert max(b[0] - a[0] for a, b in steps) == 1  # one file a step
    assert max(b[1] - a[1] for a, b in steps) == 1  # one module a step
    # the loop turned while the modules were built: every module in a step of its own
    assert sum(1 for a, b in steps if b[1] == a[1] + 1) >= modules


async def test_a_hover_sent_while_the_folders_modules_are_built_is_answered_before_the_first_analysis_ends(tmp_path: Path):
    """A hover on the open leaf, sent by a client thread (as the transport's reader thread hands
    messages over) once the folder's modules are being built: the loop reads it between two steps,
    the open module's roots (``lsp/focus.py``) answer it, as the complete index does later."""
    summary = generate(tmp_path, MODULES, seed=0)
    probe = summary["probes"]["hover"]
    published: list[str] = []
    ws, folder, scheduler, uri = started(tmp_path, probe["file"], published)
    loop = asyncio.get_running_loop()
    offset = offset_of((tmp_path / probe["file"]).read_text(encoding="utf-8"), probe["line"], probe["character"])
    building, answered = threading.Event(), asyncio.Event()
    found: dict[str, object] = {}

    async def hover() -> None:
        await scheduler.board.wait(uri)
        _, rel, snapshot = scheduler.board.answer(uri)
        found.update(hover=hover_at(snapshot, rel, offset), published=set(published))
        answered.set()

    def client() -> None:
        if building.wait(60):
            scheduler.note_arrival()
            loop.call_soon_threadsafe(lambda: (loop.create_task(hover()), scheduler.message_handled()))

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    while not folder.indexed and not building.is_set():
        if 0 < folder.host.modules_built:
            building.set()
        await asyncio.sleep(0)
    assert building.is_set(), "the folder's modules were built in one step"
    await asyncio.wait_for(answered.wait(), 60)
    await scheduler.idle()
    _, rel, complete = scheduler.board.answer(uri)
    assert found["published"] < set(published)  # before the first analysis ended (its diagnostics)
    assert found["hover"] is not None and found["hover"] == hover_at(complete, rel, offset)


async def test_a_message_handed_over_late_is_still_waited_for(tmp_path: Path, monkeypatch):
    """A keystroke's bytes came in (the reader thread set ``Interrupt.waiting``) while the first
    analysis traces the folder in the background, but the reader thread hands the message to the
    loop only after more turns of the loop than a pass gives way for (it waits for the interpreter
    lock): the pass gives way again at its next check, and the message is handled after at most a
    reference or two traced anew, not after the rest of a slice. (Before, the pass took the message
    as read once it had given way: at 1,000 modules a root keystroke waited 1.6 ms p50 so.) With no
    time slice to end the background work, here the rest of the first analysis ran first."""
    monkeypatch.setattr(scheduler_module, "SLICE_SECONDS", 3600.0)  # only a waiting message makes the pass give way
    traced = [0]  # references traced anew (memoized), all along
    keep = MemoStore.keep

    def counted_keep(self, key, entry):
        traced[0] += 1
        return keep(self, key, entry)

    monkeypatch.setattr(MemoStore, "keep", counted_keep)
    summary = generate(tmp_path, MODULES, seed=0)
    published: list[str] = []
    ws, folder, scheduler, _ = started(tmp_path, "main.tf", published)
    loop = asyncio.get_running_loop()
    while not published:  # the first diagnostics: the rest of the first analysis runs in the background
        await asyncio.sleep(0)
    handled = asyncio.Event()
    at: dict[str, int] = {}

    def hand_over(turns: int) -> None:
        if turns:
            loop.call_soon(hand_over, turns - 1)  # one more turn of the loop
            return
        at["handled"] = traced[0]
        at["pending"] = len(folder.pending_dirs)
        scheduler.message_handled()
        handled.set()

    at["arrival"] = traced[0]
    scheduler.note_arrival()
    hand_over(2 * scheduler_module.GIVE_WAY_ITERATIONS)
    await asyncio.wait_for(handled.wait(), 60)
    await scheduler.idle()
    assert at["pending"] > 0, "the first analysis was over before the message was handled"
    assert at["handled"] - at["arrival"] <= 2, at
    assert not folder.pending_dirs and summary["probes"]
