"""Every step of the server's loop during indexing and the first analysis, in CPU time.

    python bench/loop_steps.py --modules 1000 [--open leaf|root|none] [--over 5] [--profile 3]

The language server's own objects (``LiveWorkspace``, ``DiagnosticPublisher``,
``AnalysisScheduler``) on one asyncio loop, without JSON-RPC, as ``bench/edit_cpu.py`` runs them:
the folder is added, a document is opened at once (a leaf module's file by default, as a user
opening a file starts the server; full collections as the server's ``QuietCollector`` runs them),
and every loop step (asyncio handle) is timed in the loop
thread's CPU until the first analysis is over (the index's progress ended, no pass running).
A step is what a client message that arrives meanwhile waits for. Printed: the number of steps,
the longest before the folder's first diagnostics and after them, and every step over ``--over``
ms with the coroutine it ran; ``--profile N`` profiles every step and prints the top functions of
the N longest (a profiled step is about twice as long: read the functions, not the times).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path

from tfphi.lsp.collector import QuietCollector
from tfphi.lsp.main import import_analysis_modules
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

sys.path.insert(0, str(Path(__file__).parent))
from generate import generate  # noqa: E402


def _what(handle: asyncio.Handle) -> str:
    """The coroutine (or callback) a loop step ran, by name."""
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    coro = task.get_coro() if isinstance(task, asyncio.Task) else None
    if coro is not None:
        frame = getattr(coro, "cr_frame", None)
        where = f":{frame.f_lineno}" if frame is not None else ""
        return f"{coro.__qualname__}{where}"
    return getattr(callback, "__qualname__", repr(callback))


def trace(ws_dir: Path, open_file: str | None, profile_top: int) -> dict:
    """Runs the first analysis of ``ws_dir`` with ``open_file`` opened first; returns its loop steps."""
    import_analysis_modules()
    ws = LiveWorkspace()
    first_diagnostics: list[float] = []

    def send(uri, version, items):
        if not first_diagnostics:
            first_diagnostics.append(time.perf_counter())

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, DiagnosticPublisher(ws, send), progress, lambda m: print(m, file=sys.stderr))
    scheduler.collect_when_quiet(QuietCollector())  # as the server does (lsp/main.py)
    steps: list[tuple[float, float, float, str, pstats.Stats | None]] = []  # (start, wall, cpu, what, profile)
    run_handle = asyncio.events.Handle._run

    def timed_run(handle) -> None:
        what = _what(handle)
        profile = cProfile.Profile(time.thread_time) if profile_top else None
        t, cpu = time.perf_counter(), time.thread_time()
        if profile is not None:
            profile.enable()
        try:
            return run_handle(handle)
        finally:
            if profile is not None:
                profile.disable()
            spent = time.thread_time() - cpu
            kept = profile if profile is not None and spent > 0.002 else None
            steps.append((t, time.perf_counter() - t, spent, what, kept))

    async def run() -> float:
        ws.add_folder(ws_dir.as_uri(), ws_dir.name)
        if open_file is not None:
            path = ws_dir / open_file
            ws.open(path.as_uri(), 1, path.read_text(), "terraform")
            scheduler.schedule({path.as_uri()})
        else:
            scheduler.schedule()
        t0 = time.perf_counter()
        await asyncio.sleep(0.01)
        while not all(f.indexed for f in ws.folders) or scheduler._busy():
            await asyncio.sleep(0.01)
        return t0

    asyncio.events.Handle._run = timed_run
    try:
        t0 = asyncio.run(run())
    finally:
        asyncio.events.Handle._run = run_handle
    return {"t0": t0, "steps": steps, "first": first_diagnostics[0] if first_diagnostics else None,
            "passes": scheduler.passes}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--open", choices=["leaf", "root", "none"], default="leaf")
    ap.add_argument("--over", type=float, default=5.0, help="steps with more CPU than this (ms) are listed")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="profile every step; print the N longest's top functions")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--workdir", type=Path, help="where to generate the workspace (default: a temporary directory)")
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-loop-steps-"))
    summary = generate(ws_dir, args.modules)
    open_file = {"leaf": summary["probes"]["leaf_edit"]["file"], "root": "main.tf", "none": None}[args.open]
    for run in range(args.runs):
        result = trace(ws_dir, open_file, args.profile)
        steps, first, t0 = result["steps"], result["first"], result["t0"]
        before = [s for s in steps if first is None or s[0] < first]
        after = [s for s in steps if first is not None and s[0] >= first]
        end = max(s[0] + s[1] for s in steps)
        print(f"run {run + 1}: {args.modules} modules, {args.open} open: {len(steps)} loop steps in {end - t0:.2f} s "
              f"(first diagnostics at {(first - t0) if first else float('nan'):.2f} s), loop CPU {sum(s[2] for s in steps):.2f} s")
        for name, part in (("before the first diagnostics", before), ("after them", after)):
            if part:
                top = max(part, key=lambda s: s[2])
                print(f"    {name}: {len(part)} steps, {sum(s[2] for s in part):.2f} s of CPU, the most CPU "
                      f"{top[2] * 1000:.1f} ms ({top[1] * 1000:.1f} ms wall): {top[3]}")
        long = [s for s in steps if s[2] * 1000 > args.over]
        print(f"    steps over {args.over:g} ms of CPU: {len(long)}; the {min(len(long), 20)} with the most CPU:")
        for start, wall, cpu, what, _ in sorted(sorted(long, key=lambda s: -s[2])[:20]):
            print(f"      at {start - t0:6.3f} s  cpu {cpu * 1000:6.1f} ms  wall {wall * 1000:6.1f} ms  {what}")
        for start, wall, cpu, what, profile in sorted((s for s in steps if s[4] is not None), key=lambda s: -s[2])[:args.profile]:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).strip_dirs().sort_stats("cumulative").print_stats(25)
            print(f"--- step at {start - t0:.3f} s, cpu {cpu * 1000:.1f} ms (profiled), {what}\n{out.getvalue()}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
