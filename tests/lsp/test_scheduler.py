"""The analysis scheduler in-process: changes that arrive while busy are coalesced, stale passes are dropped."""

from __future__ import annotations

import asyncio
import gc
import shutil
import subprocess
import sys
import weakref

import pytest
from pathlib import Path

from pygls.uris import from_fs_path

from tfphi.lsp.documents import TextChange
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

from lsp_helpers import EXAMPLE, REPO


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


async def _root_opened(tmp_path: Path):
    """The example workspace indexed, then its root ``main.tf`` opened and analysed: the workspace,
    the scheduler, what it sent, the root's URI and its text."""
    root, ws, scheduler, sent = _setup(tmp_path)
    scheduler.schedule()
    await scheduler.idle()
    main = from_fs_path(str(root / "main.tf"))
    text = (root / "main.tf").read_text()
    ws.open(main, 1, text)
    scheduler.schedule({main})
    await scheduler.idle()
    return root, ws, scheduler, sent, main, text


async def test_changes_that_arrive_together_are_analysed_once(tmp_path: Path):
    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
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
    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
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
        latest = folder.host._latest() if folder.host._latest is not None else None  # (held weakly)
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


def _final(sent, root):
    """The last diagnostics published for each file that has some, the folder's location left out."""
    last = {}
    for uri, _, items in sent:
        last[uri.replace(from_fs_path(str(root)), "")] = repr(items).replace(from_fs_path(str(root)), "").replace(str(root), "")
    return {uri: items for uri, items in last.items() if items != "[]"}


def _messages_while_tracing(monkeypatch, every: int) -> list[int]:
    """Makes a client message "arrive" (``Interrupt.waiting``, as the transport's reader thread sets
    it) at every ``every``-th reference a background trace follows; returns [interruptions]."""
    import tfphi.trace.tracer as tracer_module
    from tfphi.cancellation import Cancelled

    hop, hops, interrupted = tracer_module.Tracer.hop, [0], [0]

    def hop_with_messages(self, *args):
        interrupt = getattr(getattr(self.check, "__self__", None), "interrupt", None)  # the snapshot's cancellation check
        if interrupt is not None and interrupt.armed:
            hops[0] += 1
            if hops[0] % every == 0:
                interrupt.waiting = True
        try:
            return hop(self, *args)
        except Cancelled:
            interrupted[0] += 1
            raise

    monkeypatch.setattr(tracer_module.Tracer, "hop", hop_with_messages)
    return interrupted


@pytest.mark.parametrize("every", [3, 1])
async def test_a_client_message_interrupts_a_background_trace_and_the_results_stay_the_same(tmp_path: Path, monkeypatch,
                                                                                             every: int):
    """A waiting client message (the host's ``Interrupt``, set by the transport's reader thread when
    bytes come in) stops a background field's trace at its next reference (``Cancelled``); the
    field is traced again after the loop read the message. Here a message "arrives" at every third
    reference a background trace follows, or at every one (a client that never pauses: the field
    interrupted is traced to its end the next time, so the analysis cannot starve): the folder
    still gets every diagnostic, the same as a pass that nothing interrupted."""
    quiet_root, ws, scheduler, quiet = _setup(tmp_path / "quiet")
    scheduler.schedule()
    await scheduler.idle()

    root, ws, scheduler, sent = _setup(tmp_path / "busy")
    interrupted = _messages_while_tracing(monkeypatch, every)
    scheduler.schedule()
    await scheduler.idle()
    assert interrupted[0], "no background trace was interrupted"
    assert _final(sent, root) == _final(quiet, quiet_root) and _final(sent, root)
    assert not ws.folders[0].pending_dirs and not ws.folders[0].host.snapshot().failures


async def test_a_request_is_never_interrupted(tmp_path: Path):
    """Only background work gives way to a waiting message: a request (the loop runs one at a time)
    reads its snapshot to the end even while one waits."""
    from tfphi.features.hover import hover_at

    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
    folder = ws.folders[0]
    folder.host.interrupt.waiting = True
    snapshot = folder.host.snapshot()
    at = text.index("var.cache_node_type")
    assert hover_at(snapshot, "main.tf", at) is not None
    assert snapshot.field_traces("") and snapshot.findings("") is not None


def _edit_at(text: str, needle: str) -> tuple[int, int]:
    at = text.index(needle)
    return text[:at].count("\n"), at - text.rfind("\n", 0, at) - 1


async def test_a_replaced_snapshot_is_freed_without_the_cyclic_collector(tmp_path: Path):
    """A snapshot in a reference cycle (its tracer read text through it, or checked cancellation
    through it) waits for the cyclic collector, one per keystroke with its copies of the
    workspace's tables: a replaced snapshot must go by reference counting alone."""
    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
    folder = ws.folders[0]
    first = weakref.ref(folder.host.snapshot())
    gc.disable()
    try:
        line, col = _edit_at(text, "locals")
        for version in range(2, 6):
            ws.change(main, version, [TextChange("\n" if version % 2 == 0 else "", ((line, col), (line + version % 2, 0)))])
            scheduler.schedule({main})
            await scheduler.idle()
        assert [v for u, v, _ in sent if u == main][-1] == 5
        assert first() is None, "a replaced snapshot is kept alive (a reference cycle)"
    finally:
        gc.enable()


async def test_background_directories_go_in_sorted_order_and_a_restarted_pass_goes_on_where_the_last_stopped(
        tmp_path: Path, monkeypatch):
    """Pending directories are kept in a heap: a pass takes them in sorted order, and the pass an
    edit restarts takes the edited document's directory first, then the rest from where the
    stopped pass was, each directory once."""
    import tfphi.lsp.scheduler as scheduler_module

    monkeypatch.setattr(scheduler_module, "SLICE_SECONDS", 0.0)  # give way after every step
    root, ws, scheduler, sent = _setup(tmp_path)
    done: list[str] = []
    publish_dir = scheduler.publisher.publish_dir

    def recording_publish_dir(folder, dir, diags, forced):
        done.append(dir)
        publish_dir(folder, dir, diags, forced)

    scheduler.publisher.publish_dir = recording_publish_dir
    main = from_fs_path(str(root / "main.tf"))
    text = (root / "main.tf").read_text()
    ws.open(main, 1, text)
    scheduler.schedule({main})
    for _ in range(10_000):  # until the first background directory is published
        await asyncio.sleep(0)
        if len(done) >= 2:
            break
    line, col = _edit_at(text, "locals")
    ws.change(main, 2, [TextChange("\n", ((line, col), (line, col)))])
    scheduler.schedule({main})
    await scheduler.idle()
    dirs = sorted(ws.folders[0].host.snapshot().dirs())
    assert done[0] == "" and len(dirs) > 2
    edited = done.index("", 1)  # the edited document's directory, first in the restarted pass
    assert done[1:edited] == dirs[1:edited], "background directories in sorted order"
    assert done[edited + 1:] == dirs[edited:], "the restarted pass goes on where the last stopped, each directory once"
    assert not ws.folders[0].pending_dirs


def test_the_server_imports_before_serving_what_the_first_analysis_imports(tmp_path: Path):
    """Modules imported on first use (trace functions with PyYAML, strategies, deployments) were
    imported in the middle of the server's first analysis: a 0.1-0.2 s step no message could
    interrupt. ``import_analysis_modules`` runs before the server reads a message; the first
    analysis of the bench's workspace (which calls functions and has deployments) then imports nothing."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_generate", REPO / "bench" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.generate(tmp_path / "ws", 10)
    code = """
import asyncio, sys
from pygls.uris import from_fs_path
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.main import create_server, import_analysis_modules
from tfphi.lsp.workspace import LiveWorkspace

create_server()
import_analysis_modules()
before = set(sys.modules)

async def main():
    ws = LiveWorkspace()
    ws.add_folder(from_fs_path(sys.argv[1]), "ws")
    sent = []
    async def progress():
        return Progress()
    scheduler = AnalysisScheduler(ws, DiagnosticPublisher(ws, lambda *message: sent.append(message)), progress, print)
    scheduler.schedule()
    while not ws.folders[0].indexed:
        await asyncio.sleep(0.01)
    await scheduler.idle()
    assert any(items for _, _, items in sent)  # (the analysis ran)

asyncio.run(main())
from tfphi.evaluate.functions import deferred as functions
deferred = [value._name for value in vars(functions).values() if type(value).__name__ == "_Deferred"]
assert deferred and all(name in before for name in deferred), deferred  # (imported on a function's first use)
print(sorted(set(sys.modules) - before))
"""
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "ws")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"



@pytest.mark.parametrize("seed", range(3))
async def test_random_keystrokes_publish_what_a_fresh_server_publishes(tmp_path: Path, monkeypatch, seed: int):
    """Random keystrokes anywhere in the open root and an open child module (each taken back later;
    some in bursts that cut passes short, while client messages interrupt background traces): once
    the server is idle, every file's last published diagnostics are those a fresh server publishes
    for the final texts (incremental = fresh, through the scheduler)."""
    import random

    rng = random.Random(seed)
    _messages_while_tracing(monkeypatch, 5)
    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path / "edited")
    child = from_fs_path(str(root / "modules/cache/main.tf"))
    texts = {main: text, child: (root / "modules/cache/main.tf").read_text()}
    ws.open(child, 1, texts[child])
    scheduler.schedule({child})
    await scheduler.idle()
    versions = {main: 1, child: 1}
    undo: list[tuple[str, int, int, str]] = []
    for _ in range(40):
        if undo and rng.random() < 0.4:
            uri, at, end, typed = undo.pop()
        else:
            uri = rng.choice([main, child])
            at = rng.randint(0, len(texts[uri]))
            end = min(len(texts[uri]), at + rng.choice([0, 0, 1, 3]))
            typed = rng.choice(["x", "1", " ", "\n", '"', "{", "}", "#", "var.nope", "=", "."])
            undo.append((uri, at, at + len(typed), texts[uri][at:end]))
        old = texts[uri]
        versions[uri] += 1
        ws.change(uri, versions[uri], [TextChange(typed, (_position(old, at), _position(old, end)))])
        texts[uri] = old[:at] + typed + old[end:]
        scheduler.schedule({uri})
        if rng.random() < 0.5:
            await scheduler.idle()
        else:
            for _ in range(rng.randint(0, 5)):  # the next keystroke comes while the pass runs
                await asyncio.sleep(0)
    await scheduler.idle()
    for uri in texts:
        assert ws.documents.get(uri).text == texts[uri]
        assert [v for u, v, _ in sent if u == uri][-1] == versions[uri]

    fresh_root, fresh_ws, fresh_scheduler, fresh_sent = _setup(tmp_path / "fresh")
    for uri, final in texts.items():
        (fresh_root / uri[len(from_fs_path(str(root))) + 1:]).write_text(final)
    fresh_scheduler.schedule()
    await fresh_scheduler.idle()
    for uri, final in texts.items():
        fresh_uri = uri.replace(from_fs_path(str(root)), from_fs_path(str(fresh_root)))
        fresh_ws.open(fresh_uri, 1, final)
        fresh_scheduler.schedule({fresh_uri})
    await fresh_scheduler.idle()
    assert _final(sent, root) == _final(fresh_sent, fresh_root)


def _position(text: str, at: int) -> tuple[int, int]:
    """The (line, UTF-16 column) of an offset of ``text``."""
    line_start = text.rfind("\n", 0, at) + 1
    return text.count("\n", 0, at), len(text[line_start:at].encode("utf-16-le")) // 2
