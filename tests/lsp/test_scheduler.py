"""The analysis scheduler in-process: changes that arrive while busy are coalesced, stale passes are dropped."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from pygls.uris import from_fs_path

from tfphi.lsp.documents import TextChange
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

from lsp_helpers import EXAMPLE


def _setup(tmp_path: Path):
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    ws = LiveWorkspace("utf-16")
    ws.add_folder(from_fs_path(str(root)), "ws")
    sent: list[tuple[str, int | None, list]] = []
    publisher = DiagnosticPublisher(ws, lambda uri, version, items: sent.append((uri, version, items)))

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, publisher, progress, lambda message: None)
    return root, ws, scheduler, sent


async def test_changes_that_arrive_together_are_analysed_once(tmp_path: Path):
    root, ws, scheduler, sent = _setup(tmp_path)
    scheduler.schedule()
    await scheduler.idle()
    main = from_fs_path(str(root / "main.tf"))
    text = (root / "main.tf").read_text()
    ws.open(main, 1, text)
    scheduler.schedule({main})
    await scheduler.idle()
    passes = scheduler.passes
    line = text[: text.index("locals")].count("\n")
    for version in range(2, 32):  # 30 keystrokes before the loop gets a chance to run
        ws.change(main, version, [TextChange("x", ((line, 0), (line, 0)))])
        scheduler.schedule({main})
    await scheduler.idle()
    assert scheduler.passes == passes + 1
    versions = [v for u, v, _ in sent if u == main]
    assert versions[-1] == 31 and 2 not in versions
    assert ws.documents.get(main).text.count("x" * 30 + "locals") == 1


async def test_a_newer_change_cancels_the_rest_of_a_stale_pass(tmp_path: Path):
    root, ws, scheduler, sent = _setup(tmp_path)
    scheduler.schedule()
    await scheduler.idle()
    main = from_fs_path(str(root / "main.tf"))
    text = (root / "main.tf").read_text()
    ws.open(main, 1, text)
    scheduler.schedule({main})
    await scheduler.idle()
    # a change to the root re-traces every module; interrupt the pass after its first directory
    at = text.index("var.cache_node_type")
    line = text[:at].count("\n")
    col = at - text.rfind("\n", 0, at) - 1
    before = scheduler.passes
    ws.change(main, 2, [TextChange('"a"', ((line, col), (line, col + len("var.cache_node_type"))))])
    scheduler.schedule({main})
    for _ in range(2):  # let the pass start and publish the edited document's directory
        await asyncio.sleep(0)
    assert any(u == main and v == 2 for u, v, _ in sent), "the edited document comes first"
    ws.change(main, 3, [TextChange("var.cache_node_type", ((line, col), (line, col + 3)))])
    scheduler.schedule({main})
    await scheduler.idle()
    assert scheduler.passes == before + 1, "the stale pass ran to its end"
    cache = from_fs_path(str(root / "modules/cache/main.tf"))
    # the final state is right: the child's diagnostic is back (published by the newer pass)
    last = [items for u, _, items in sent if u == cache][-1]
    assert [d.code for d in last] == ["unbounded-field"]
    assert [v for u, v, _ in sent if u == main][-1] == 3


async def test_an_edit_goes_ahead_of_background_work_inside_a_module(tmp_path: Path, monkeypatch):
    """Background tracing yields between two fields (here after every one): an edit that arrives
    in the middle of a module's tracing is published before that module's diagnostics."""
    import tfphi.lsp.scheduler as scheduler_module

    monkeypatch.setattr(scheduler_module, "SLICE_SECONDS", 0.0)
    root, ws, scheduler, sent = _setup(tmp_path)
    main = from_fs_path(str(root / "main.tf"))
    text = (root / "main.tf").read_text()
    ws.open(main, 1, text)
    scheduler.schedule({main})
    folder = ws.folders[0]
    for _ in range(10_000):  # until a module's tracing is half done in the background
        await asyncio.sleep(0)
        latest = folder.host._latest
        if latest is not None and latest._derived.partial:
            break
    else:
        raise AssertionError("no module was traced in steps")
    halfway = sorted(latest._derived.partial)
    published_before = {u for u, _, _ in sent}
    line = text[: text.index("locals")].count("\n")
    ws.change(main, 2, [TextChange("\n", ((line, 0), (line, 0)))])
    scheduler.schedule({main})
    await scheduler.idle()
    order = [u for u, v, _ in sent]
    edited = next(i for i, (u, v, _) in enumerate(sent) if u == main and v == 2)
    halfway_files = {from_fs_path(str(root / dir / "main.tf")) for dir in halfway} - published_before
    assert halfway_files, "the module traced halfway has a diagnostic to publish"
    assert all(order.index(uri) > edited for uri in halfway_files), "the module traced halfway was published before the edit"
    assert not folder.pending_dirs


async def test_a_client_message_preempts_a_background_trace_and_the_results_stay_the_same(tmp_path: Path, monkeypatch):
    """``AnalysisScheduler.arrived`` (set by the transport's reader thread when bytes come in)
    stops a background field's trace at its next reference; the field is traced again later.
    Here a message "arrives" at every third reference a background trace follows: the folder
    still gets every diagnostic, the same as a pass that nothing preempted."""
    import tfphi.trace.tracer as tracer_module

    def final(sent, root):  # the last diagnostics of each file, the folder's location left out
        last = {}
        for uri, _, items in sent:
            last[uri.replace(from_fs_path(str(root)), "")] = repr(items).replace(from_fs_path(str(root)), "").replace(str(root), "")
        return last

    quiet_root, ws, scheduler, quiet = _setup(tmp_path / "quiet")
    scheduler.schedule()
    await scheduler.idle()

    root, ws, scheduler, sent = _setup(tmp_path / "busy")
    hop, preempted, hops = tracer_module.Tracer.hop, [], [0]

    def hop_with_messages(self, *args):
        if self.preempt is not None:
            hops[0] += 1
            if hops[0] % 3 == 0:
                self.preempt[0] = True  # as the reader thread does when the client writes
        try:
            return hop(self, *args)
        except tracer_module.Preempted:
            preempted.append(1)
            raise

    monkeypatch.setattr(tracer_module.Tracer, "hop", hop_with_messages)
    scheduler.schedule()
    await scheduler.idle()
    assert preempted, "no background trace was preempted"
    assert final(sent, root) == final(quiet, quiet_root) and final(sent, root)
    assert not ws.folders[0].pending_dirs and not ws.folders[0].host.snapshot().failures
