"""Edit -> diagnostics in-process, timed in CPU time: figures that a shared machine's load does not inflate.

    python bench/edit_cpu.py --modules 1000 [--edit leaf|root] [--shape value] [--edits 200] [--steady]

The language server's own objects (``LiveWorkspace``, ``DiagnosticPublisher``,
``AnalysisScheduler``, its full garbage collections when quiet: ``QuietCollector``) on one
asyncio loop, without JSON-RPC. Edits are the ones
``bench/run.py`` makes (an edit shape of ``bench/shapes.py``, ``value`` by default: one
keystroke typed and taken back again), and, as there, they start as soon as the first diagnostics of the folder are out,
while the rest of the first analysis runs (``--steady``: after it). A second thread plays the
server's reader thread: it notes each change's arrival (``AnalysisScheduler.note_arrival``, which
interrupts background tracing: ``cancellation.Interrupt``), hands it to the loop with ``call_soon_threadsafe`` and waits for the versioned diagnostics of that document. Per edit it records the loop thread's
CPU time from the hand-over to the publication (what the latency is on an idle machine: the
background work the edit waited for, and its own) and the wall time. What it leaves out:
JSON encoding and the pipe (about 1 ms at these sizes).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import importlib
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

from tfphi.lsp.collector import QuietCollector
from tfphi.lsp.documents import TextChange
from tfphi.lsp.main import import_analysis_modules
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

sys.path.insert(0, str(Path(__file__).parent))
from generate import generate  # noqa: E402
from shapes import LEAF_SHAPES, ROOT_SHAPES, end_of_insert, locate  # noqa: E402


# The steps of a keystroke's path whose loop-thread CPU ``--phases`` prints (inclusive: a step's
# figure holds the steps it calls), as (module, qualified name).
PHASES = (
    ("tfphi.lsp.documents", "Document.apply"),  # the text, its line index and the tree edited
    ("tfphi.lsp.documents", "Document.parse"),  # tree-sitter's incremental parse, the splice of the items
    ("tfphi.analysis", "AnalysisHost.snapshot"),  # the host's pass over what changed, and the snapshot
    ("tfphi.analysis", "AnalysisHost._advance"),  # modules built again, the module tree, what is stale
    ("tfphi.analysis", "Snapshot.__init__"),  # the snapshot: the host's tables frozen (tables.Table), its tracer
    ("tfphi.analysis", "Snapshot.findings"),  # a module's name table, file findings and call checks
    ("tfphi.stir.references", "name_table"),
    ("tfphi.stir.file_findings", "file_findings"),
    ("tfphi.stir.workspace", "build_module_tree"),
    ("tfphi.lsp.snapshots", "SnapshotBoard.offer"),
    ("tfphi.lsp.publish", "DiagnosticPublisher.publish_dir"),  # the diagnostics converted and sent
)


def time_phases(totals: dict[str, float]) -> None:
    """Wraps each step of ``PHASES`` to add its loop-thread CPU seconds to ``totals`` (outermost
    calls only); a bench's instrument, never the server's."""
    for module_name, qualified in PHASES:
        owner = importlib.import_module(module_name)
        *path, name = qualified.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, name)
        key = f"{module_name.rsplit('.', 1)[-1]}.{qualified}"

        def timed(*args, _original=original, _key=key, _depth=[0], **kwargs):
            if _depth[0]:
                return _original(*args, **kwargs)
            _depth[0] += 1
            start = time.thread_time()
            try:
                return _original(*args, **kwargs)
            finally:
                _depth[0] -= 1
                totals[_key] = totals.get(_key, 0.0) + time.thread_time() - start

        setattr(owner, name, functools.wraps(original)(timed))
        for module in list(sys.modules.values()):  # (the modules that imported a function by name)
            if not path and getattr(module, name, None) is original:
                setattr(module, name, getattr(owner, name))


def measure(ws_dir: Path, file: str, shape, edits: int, steady: bool,
            gap: float = 0.0002, profile: cProfile.Profile | None = None,
            phases: dict[str, float] | None = None) -> list[tuple[float, float]]:
    """(wall seconds, loop-thread CPU seconds) per edit: `shape` typed into `file` and taken back;
    `profile`, when given, profiles the loop thread from each edit's hand-over to its diagnostics;
    `phases` (filled by ``time_phases``' wrappers) is emptied when the first edit is sent."""
    published: dict = {}
    cond = threading.Condition()
    ws = LiveWorkspace()

    def send(uri, version, items):
        with cond:
            published.setdefault("any", None)
            if version is not None:
                published[(uri, version)] = (time.perf_counter(), time.thread_time())
                if profile is not None and uri == edited_uri:
                    profile.disable()
            cond.notify_all()

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, DiagnosticPublisher(ws, send), progress, lambda m: print(m, file=sys.stderr))
    scheduler.collect_when_quiet(QuietCollector())  # as the server does (lsp/main.py)
    path = ws_dir / file
    uri, text = path.as_uri(), path.read_text()
    edited_uri = uri
    start = locate(shape, text)
    caret = (start["line"], start["character"])
    typed_end = end_of_insert(start, shape.insert)
    typed = (typed_end["line"], typed_end["character"])
    results: list[tuple[float, float]] = []

    def wait(key):
        with cond:
            while key not in published:
                cond.wait()
            return published[key]

    def client(loop: asyncio.AbstractEventLoop) -> None:
        clock = time.pthread_getcpuclockid(threading.main_thread().ident)
        wait("any")
        if steady:
            asyncio.run_coroutine_threadsafe(scheduler.idle(), loop).result()
        loop.call_soon_threadsafe(lambda: (ws.open(uri, 1, text, "terraform"), scheduler.schedule({uri})))
        wait((uri, 1))
        if phases is not None:
            phases.clear()  # (what the first analysis and the open cost is not an edit's)
        for i in range(edits + edits % 2):
            time.sleep(gap)
            version, insert = i + 2, i % 2 == 0
            change = TextChange(shape.insert if insert else "", (caret, caret if insert else typed))
            t0, c0 = time.perf_counter(), time.clock_gettime(clock)
            scheduler.note_arrival()  # as the server's reader thread does when it reads a message (lsp/transport.py)
            loop.call_soon_threadsafe(lambda v=version, c=change: (profile and profile.enable(), ws.change(uri, v, [c]), scheduler.schedule({uri}), scheduler.message_handled()))
            t1, c1 = wait((uri, version))
            if i < edits:
                results.append((t1 - t0, c1 - c0))
        loop.call_soon_threadsafe(lambda: setattr(scheduler, "stopped", True))

    run_with_client(ws, ws_dir, scheduler, client)
    return results


def run_with_client(ws: LiveWorkspace, ws_dir: Path, scheduler: AnalysisScheduler, client) -> None:
    """The folder ``ws_dir`` indexed on an asyncio loop while ``client(loop)`` runs on a thread of
    its own (as the server's reader thread hands messages over); returns when the client does."""
    import_analysis_modules()  # as the server does before it reads a message (else a ~13 ms import step lands in the first analysis)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        ws.add_folder(ws_dir.as_uri(), ws_dir.name)
        scheduler.schedule()
        thread = threading.Thread(target=client, args=(loop,), daemon=True)
        thread.start()
        while thread.is_alive():
            await asyncio.sleep(0.01)

    asyncio.run(run())


def percentile(xs: list[float], p: float) -> float:
    ordered = sorted(xs)
    return ordered[max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--edit", choices=["leaf", "root"], default="leaf")
    ap.add_argument("--shape", default="value", help="an edit shape of bench/shapes.py for that document "
                    f"(root: {', '.join(s.name for s in ROOT_SHAPES)}; leaf: {', '.join(s.name for s in LEAF_SHAPES)})")
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--steady", action="store_true", help="start editing once the first analysis is done")
    ap.add_argument("--workdir", type=Path, help="where to generate the workspace (default: a temporary directory)")
    ap.add_argument("--phases", action="store_true", help="print the loop-thread CPU per edit of each step of PHASES (inclusive)")
    ap.add_argument("--profile", type=Path, help="write the loop thread's cProfile stats of the edits (hand-over to diagnostics) to this file "
                    "(and print the top functions by cumulative and own time)")
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-edit-cpu-"))
    summary = generate(ws_dir, args.modules)
    shape = {s.name: s for s in (ROOT_SHAPES if args.edit == "root" else LEAF_SHAPES)}.get(args.shape)
    if shape is None:
        ap.error(f"no {args.edit} shape {args.shape!r}")
    file = "main.tf" if args.edit == "root" else summary["probes"]["leaf_edit"]["file"]
    profile = cProfile.Profile(time.thread_time) if args.profile else None  # CPU time, as the figures
    phases: dict[str, float] | None = {} if args.phases else None
    if phases is not None:
        import_analysis_modules()
        time_phases(phases)
    results = measure(ws_dir, file, shape, args.edits, args.steady, profile=profile, phases=phases)
    if phases is not None:
        for key, seconds in sorted(phases.items(), key=lambda kv: -kv[1]):
            print(f"  {key:45s} {seconds / args.edits * 1000:7.3f} ms per edit")
    if profile is not None:
        profile.dump_stats(args.profile)
        stats = pstats.Stats(profile).strip_dirs()
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(30)
    wall, cpu = [w * 1000 for w, _ in results], [c * 1000 for _, c in results]
    print(f"{args.modules} modules, {args.edit} {shape.name} edit{' (steady)' if args.steady else ''}, "
          f"{len(results)} edits: "
          f"CPU p50/p95/p99 {percentile(cpu, 50):.1f}/{percentile(cpu, 95):.1f}/{percentile(cpu, 99):.1f} ms, "
          f"wall p50/p99 {percentile(wall, 50):.1f}/{percentile(wall, 99):.1f} ms; first five CPU {[round(c, 1) for c in cpu[:5]]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
