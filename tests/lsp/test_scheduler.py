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


def _edit_at(text: str, needle: str) -> tuple[int, int]:
    at = text.index(needle)
    return text[:at].count("\n"), at - text.rfind("\n", 0, at) - 1


async def test_a_replaced_snapshot_is_freed_without_the_cyclic_collector(tmp_path: Path):
    """The scheduler freezes the heap (``gc.freeze``) while analysis runs, and frozen objects are
    never collected: a snapshot in a reference cycle (its tracer read text through it) that was
    frozen while current was never freed, one per keystroke with its copies of the workspace's
    tables. A replaced snapshot must go by reference counting alone."""
    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
    folder = ws.folders[0]
    first = weakref.ref(folder.host.snapshot())
    gc.freeze()  # what the scheduler does after a long pass: the current snapshot is frozen
    try:
        line, col = _edit_at(text, "locals")
        for version in range(2, 6):
            ws.change(main, version, [TextChange("\n" if version % 2 == 0 else "", ((line, col), (line + version % 2, 0)))])
            scheduler.schedule({main})
            await scheduler.idle()
        assert [v for u, v, _ in sent if u == main][-1] == 5
        assert first() is None, "a replaced snapshot is kept alive (a reference cycle frozen with it)"
    finally:
        gc.unfreeze()


async def test_no_collection_starts_between_a_message_and_its_diagnostics(tmp_path: Path):
    """``note_arrival`` (the transport's reader thread) switches the cyclic collector off until the
    edit's diagnostics are out; background work that follows runs with it on again, and so does
    everything once the pass ends. A message that starts no pass switches it on at once."""
    root, ws, scheduler, sent = _setup(tmp_path)
    collector_on: dict[tuple[str, int | None], bool] = {}
    send = scheduler.publisher._send

    def recording_send(uri, version, items):
        collector_on.setdefault((uri, version), gc.isenabled())
        send(uri, version, items)

    scheduler.publisher._send = recording_send
    scheduler.schedule()
    await scheduler.idle()
    main = from_fs_path(str(root / "main.tf"))
    text = (root / "main.tf").read_text()
    ws.open(main, 1, text)
    scheduler.schedule({main})
    await scheduler.idle()
    try:
        scheduler.note_arrival()  # a message that starts no pass (a hover, say)
        assert not gc.isenabled()
        scheduler.message_handled()
        assert gc.isenabled()

        # a change to the root re-traces its children: they are published after the edit, in the background
        line, col = _edit_at(text, "var.cache_node_type")
        published = len(sent)
        scheduler.note_arrival()
        ws.change(main, 2, [TextChange('"a"', ((line, col), (line, col + len("var.cache_node_type"))))])
        scheduler.schedule({main})
        scheduler.message_handled()  # (a pass is to run: the collector stays off until the edit is published)
        assert not gc.isenabled()
        await scheduler.idle()
        assert gc.isenabled()
        after = [(u, v) for u, v, _ in sent[published:]]
        assert after[0] == (main, 2) and collector_on[(main, 2)] is False
        children = [key for key in after[1:] if key[0] != main]
        assert children and all(collector_on[key] for key in children), "background work ran with the collector off"
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
    preempt. ``import_analysis_modules`` runs before the server reads a message; the first
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


def _count_background_hops(monkeypatch) -> list[int]:
    """Counts the references background tracing follows (a trace that a client message may preempt)."""
    import tfphi.trace.tracer as tracer_module

    hop, hops = tracer_module.Tracer.hop, [0]

    def counting_hop(self, *args):
        if self.preempt is not None:
            hops[0] += 1
        return hop(self, *args)

    monkeypatch.setattr(tracer_module.Tracer, "hop", counting_hop)
    return hops


async def _root_open_while_listening(tmp_path: Path, monkeypatch, limit: float):
    """An indexed workspace with the root ``main.tf`` open, listening after each edit for 5 s at
    most ``limit`` s in a row; returns the workspace, the scheduler, what it sent, the root's URI,
    the counted background hops and ``keystroke(version)``: an even version replaces
    ``var.cache_node_type`` (whose children the background traces again) by ``"a"``, an odd one
    puts it back."""
    import tfphi.lsp.scheduler as scheduler_module

    monkeypatch.setattr(scheduler_module, "LISTEN_SECONDS", 5.0)
    monkeypatch.setattr(scheduler_module, "LISTEN_LIMIT_SECONDS", limit)
    # Every keystroke here is one the module is built for (an early answer, which these keystrokes
    # in a value would get, is tested apart: test_a_burst_is_answered_early_and_built_once).
    monkeypatch.setattr(scheduler_module, "diagnostics_after_edit", lambda *args: None)
    hops = _count_background_hops(monkeypatch)
    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
    line, col = _edit_at(text, "var.cache_node_type")

    def keystroke(version: int) -> None:
        if version % 2 == 0:
            ws.change(main, version, [TextChange('"a"', ((line, col), (line, col + len("var.cache_node_type"))))])
        else:
            ws.change(main, version, [TextChange("var.cache_node_type", ((line, col), (line, col + 3)))])
        scheduler.schedule({main})

    return root, ws, scheduler, sent, main, hops, keystroke


async def test_the_next_keystroke_finds_the_server_listening_not_tracing(tmp_path: Path, monkeypatch):
    """After an edit's diagnostics the pass listens for the client's next message before background
    work resumes (``LISTEN_SECONDS``, made long here): a keystroke that comes then is handled with
    no background tracing in between, and the background work is done afterwards."""
    root, ws, scheduler, sent, main, hops, keystroke = await _root_open_while_listening(tmp_path, monkeypatch, 5.0)
    loop = asyncio.get_running_loop()
    at_publication: list[int] = []
    send = scheduler.publisher._send

    def recording_send(uri, version, items):
        send(uri, version, items)
        if (uri, version) == (main, 2):
            at_publication.append(hops[0])
            loop.call_later(0.05, keystroke, 3)  # long after the pass gave way, within the listening

    scheduler.publisher._send = recording_send
    keystroke(2)
    for _ in range(1000):
        await asyncio.sleep(0.01)
        if any(u == main and v == 3 for u, v, _ in sent):
            break
    assert at_publication and hops[0] == at_publication[0], "background tracing ran before the next keystroke"
    scheduler.message_handled()  # (as a client message would: stop listening after v3)
    await scheduler.idle()
    cache = from_fs_path(str(root / "modules/cache/main.tf"))
    assert [d.code for d in [items for u, _, items in sent if u == cache][-1]] == ["unbounded-field"]
    assert hops[0] > at_publication[0] and not ws.folders[0].pending_dirs


async def test_a_client_that_never_pauses_does_not_starve_the_analysis(tmp_path: Path, monkeypatch):
    """Keystrokes that always come within the listening window would keep background work waiting
    forever: once LISTEN_LIMIT_SECONDS passed since the first listen without a background step
    completing, the pass goes on with background work after an edit (which the next keystroke
    preempts as usual), then listens again."""
    root, ws, scheduler, sent, main, hops, keystroke = await _root_open_while_listening(tmp_path, monkeypatch, 0.05)
    loop = asyncio.get_running_loop()
    last = 40
    hops_at: dict[int, int] = {}
    send = scheduler.publisher._send

    def recording_send(uri, version, items):
        send(uri, version, items)
        if uri == main and version is not None and version not in hops_at:
            hops_at[version] = hops[0]
            if version < last:
                loop.call_later(0.01, keystroke, version + 1)  # every edit comes 10 ms after the last one's diagnostics

    scheduler.publisher._send = recording_send
    keystroke(2)
    for _ in range(3000):
        await asyncio.sleep(0.01)
        if last in hops_at:
            break
    assert last in hops_at
    assert hops_at[last] > hops_at[2], "no background tracing while the keystrokes came"
    scheduler.message_handled()
    await scheduler.idle()
    assert not ws.folders[0].pending_dirs


async def test_a_burst_is_answered_early_and_built_once(tmp_path: Path, monkeypatch):
    """Keystrokes in a value of the open root (a module call's argument that no traced field of the
    root reads) are answered from the module's last diagnostics (``features.edit_diagnostics``)
    while the burst lasts, each with its version; the module is built once, for the last text,
    and publishes nothing new for the root: the early list was the analysis's."""
    import tfphi.lsp.scheduler as scheduler_module

    monkeypatch.setattr(scheduler_module, "LISTEN_SECONDS", 5.0)  # a burst: the next keystroke always comes first
    root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
    host = ws.folders[0].host
    built = host.files["main.tf"]
    line, col = _edit_at(text, "var.cache_node_type")
    for version in range(2, 6):
        ws.change(main, version, [TextChange("x", ((line, col + 4), (line, col + 4)))])  # var.x...cache_node_type
        scheduler.schedule({main})
        for _ in range(1000):
            await asyncio.sleep(0.002)
            if any(u == main and v == version for u, v, _ in sent):
                break
        assert any(u == main and v == version for u, v, _ in sent), version
        assert host.files["main.tf"] is built  # answered before the module was built again
    early = [items for u, _, items in sent if u == main][-1]
    assert [(d.code, d.message) for d in early if d.code == "undefined-reference"] == [
        ("undefined-reference", "undefined reference to var.xxxxcache_node_type: no variable block declares it")]
    scheduler.message_handled()  # the burst is over: stop waiting for the next keystroke
    await scheduler.idle()
    assert host.files["main.tf"] is not built and host.files["main.tf"].source == ws.documents.get(main).source
    assert [items for u, _, items in sent if u == main][-1] is early  # the build found the same list


@pytest.mark.parametrize("seed", range(3))
async def test_every_early_answer_is_what_the_built_module_publishes(tmp_path: Path, seed: int):
    """Random keystrokes in the open root, mostly in argument values: after each one's publication
    the module is built for it (the wait for a next keystroke ended), and the build publishes
    nothing new for the root: an early answer, when there was one, was the analysis's list."""
    import random
    import re

    import tfphi.lsp.scheduler as scheduler_module

    answers = 0
    early = scheduler_module.AnalysisScheduler._publish_edit_early

    def counting(self):
        nonlocal answers
        answered = early(self)
        answers += answered
        return answered

    scheduler_module.AnalysisScheduler._publish_edit_early = counting
    try:
        root, ws, scheduler, sent, main, text = await _root_opened(tmp_path)
        rng = random.Random(seed)
        original, undo = text, None
        for version in range(2, 42):
            if undo is not None:  # every other keystroke takes the last one back
                at, end_at, typed = undo
                undo = None
            else:
                values = [m.span(1) for m in re.finditer(r"^ +[a-z_]+ += (.+)$", text, re.M)]
                if rng.random() < 0.9:
                    start, end = rng.choice(values)
                    at = rng.randint(start, end)
                else:
                    at = rng.randint(0, len(text))
                typed = rng.choice(["x", "x", "1", " ", "var.nope", "local.x", '"', "\n"])
                end_at = min(len(text), at + rng.choice([0, 0, 1, 2]))
                undo = (at, at + len(typed), text[at:end_at])
            line, col = text[:at].count("\n"), at - text.rfind("\n", 0, at) - 1
            end_line, end_col = text[:end_at].count("\n"), end_at - text.rfind("\n", 0, end_at) - 1
            ws.change(main, version, [TextChange(typed, ((line, col), (end_line, end_col)))])
            text = text[:at] + typed + text[end_at:]
            scheduler.schedule({main})
            for _ in range(2000):
                if any(u == main and v == version for u, v, _ in sent):
                    break
                await asyncio.sleep(0.001)
            published = len([1 for u, _, _ in sent if u == main])
            scheduler.message_handled()  # no next keystroke: the module is built for this one
            await scheduler.idle()
            assert len([1 for u, _, _ in sent if u == main]) == published, (version, typed, at)
            assert ws.folders[0].host.files["main.tf"].source == text.encode()
        assert text == original
        assert answers > 5  # the early answer was exercised
    finally:
        scheduler_module.AnalysisScheduler._publish_edit_early = early
