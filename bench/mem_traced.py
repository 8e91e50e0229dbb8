#!/usr/bin/env python3
"""What the server keeps after indexing, traced in one process.

    python bench/mem_traced.py [--modules 1000] [--workdir DIR] [--top 25] [--by lineno|filename]

The language server's own objects (``LiveWorkspace``, ``DiagnosticPublisher``,
``AnalysisScheduler``) index ``bench/generate.py``'s workspace on one asyncio loop, as
``bench/edit_cpu.py`` does (every file read from disk, every module analysed, its diagnostics
published and ``Snapshot.release`` after each, as the scheduler does), then a full collection
(``gc.collect()``) and tracemalloc's total of what is still allocated, with the largest
allocation sites. About 9 MiB of the server's RSS at 10,000 modules per MiB traced at 1,000
(bench/README.md, "Issue 23: server memory at 10,000 modules, session 10").
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import threading
import tracemalloc
from pathlib import Path

from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

sys.path.insert(0, str(Path(__file__).parent))
from edit_cpu import run_with_client  # noqa: E402
from generate import generate  # noqa: E402


def index(ws_dir: Path) -> LiveWorkspace:
    """The workspace after the server's first analysis of ``ws_dir`` (kept alive for the caller)."""
    published = threading.Event()
    ws = LiveWorkspace()

    def send(uri, version, items):
        published.set()

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, DiagnosticPublisher(ws, send), progress, lambda m: print(m, file=sys.stderr))

    def client(loop: asyncio.AbstractEventLoop) -> None:
        published.wait()
        asyncio.run_coroutine_threadsafe(scheduler.idle(), loop).result()
        loop.call_soon_threadsafe(lambda: setattr(scheduler, "stopped", True))

    run_with_client(ws, ws_dir, scheduler, client)
    return ws


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--workdir", type=Path, help="where to generate the workspace (default: a temporary directory)")
    ap.add_argument("--top", type=int, default=25, help="how many allocation sites to print")
    ap.add_argument("--by", default="lineno", choices=["lineno", "filename"])
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-mem-"))
    if not (ws_dir / "main.tf").exists():
        generate(ws_dir, args.modules)
    tracemalloc.start()
    ws = index(ws_dir)
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    total = sum(stat.size for stat in snapshot.statistics("filename"))
    print(f"traced after indexing {args.modules} modules: {total / 2**20:.1f} MiB")
    for stat in snapshot.statistics(args.by)[: args.top]:
        frame = stat.traceback[0]
        print(f"{stat.size / 2**20:7.2f} MiB {stat.count:9,d}  {frame.filename.split('tfphi/')[-1]}:{frame.lineno}")
    del ws
    return 0


if __name__ == "__main__":
    sys.exit(main())
