#!/usr/bin/env python3
"""The soak's edit stream without the protocol: is the growth the analysis' or the server's?

    python bench/soak_inprocess.py [--modules 1000] [--rounds 5] [--edits 2000] [--hovers]

The language server's own objects (``LiveWorkspace``, ``DiagnosticPublisher``,
``AnalysisScheduler`` with the server's ``QuietCollector``) on one asyncio loop, as in
``bench/edit_cpu.py``, fed the stream of ``bench/soak.py``: one character of its alphabet typed
at a random place of a random file of a pool of 20 (the root's ``main.tf`` and 19 drawn by the
seed), or an earlier one taken back (at most 64 outstanding), each waiting for its versioned
diagnostics; with ``--hovers``, a hover (``features.hover.hover_at`` on the folder's snapshot)
after a third of the edits. After every round all the edits are taken back (the texts are the
files' again) and the process's RSS, Python's allocated blocks and glibc's heap in use are
printed, with Python's arenas (held, ever allocated, the most at once) and the free space in them:
the same texts at every checkpoint, so what grows between them is kept by the analysis;
and the host's memo (its entries, and those under a call path the module tree no longer has,
``lsp.memory_sampler.memo_paths``), line indexes and the block texts its ``CleanSources`` holds.
What the protocol keeps per message (pygls' futures of notifications, 2 KiB per keystroke until
session 10) never shows here: ``tests/lsp/test_protocol_memory.py`` asks the real server.
"""
from __future__ import annotations

import argparse
import asyncio
import ctypes
import random
import sys
import tempfile
import threading
from pathlib import Path

from tfphi.features.hover import hover_at
from tfphi.lsp.collector import QuietCollector
from tfphi.lsp.documents import TextChange
from tfphi.lsp.memory_sampler import memo_paths, pymalloc_stats
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

sys.path.insert(0, str(Path(__file__).parent))
from edit_cpu import run_with_client  # noqa: E402
from generate import generate  # noqa: E402
from soak import ALPHABET  # noqa: E402


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def heap_in_use_mib() -> float:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    return libc.mallinfo2().uordblks / 2**20


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def utf16_position(text: str, index: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index), len(text[line_start:index].encode("utf-16-le")) // 2


def soak(ws_dir: Path, rounds: int, edits: int, hovers: bool, seed: int = 0, after_checkpoint=None,
         around_step=None, on_loop_start=None) -> None:
    """``after_checkpoint(done, ws)``, if given, runs on the client's thread after each checkpoint's line
    (bench/soak_survivors.py: what the round allocated and is still alive). ``around_step(phase, step)``,
    if given, runs on the client's thread before (``phase`` "before") and after ("after") each step of
    the stream once the files are open: ``step`` is ``("edit", path, old_text, new_text)`` or
    ``("hover", path, None, None)`` (bench/soak_peaks.py: each step's peak). ``on_loop_start()`` runs
    once on the loop before the stream (where a profiler of the loop's thread is installed)."""
    rng = random.Random(seed)
    all_tf = sorted(ws_dir.rglob("*.tf"))
    root = ws_dir / "main.tf"
    pool = [root] + rng.sample([p for p in all_tf if p != root], 19)
    texts = {p: p.read_text(encoding="utf-8") for p in pool}
    versions = {p: 1 for p in pool}
    published: set = set()
    cond = threading.Condition()
    ws = LiveWorkspace()

    def send(uri, version, items):
        with cond:
            published.add("any")
            if version is not None:
                published.add((uri, version))
            cond.notify_all()

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, DiagnosticPublisher(ws, send), progress, lambda message: None)
    scheduler.collect_when_quiet(QuietCollector())  # as the server does (lsp/main.py)

    def wait(key) -> None:
        with cond:
            while key not in published:
                cond.wait()

    stepping = False  # (the files' opening and the checkpoints' take-backs are not steps)

    def client(loop: asyncio.AbstractEventLoop) -> None:
        nonlocal stepping

        def on_loop(coroutine):
            return asyncio.run_coroutine_threadsafe(coroutine, loop).result()

        def change(path: Path, start: int, end: int, new: str) -> None:
            text = texts[path]
            edit = TextChange(new, (utf16_position(text, start), utf16_position(text, end)))
            texts[path] = text[:start] + new + text[end:]
            versions[path] += 1
            uri, version = path.as_uri(), versions[path]
            if stepping:
                around_step("before", ("edit", path, text, texts[path]))
            scheduler.note_arrival()  # as the server's reader thread does
            loop.call_soon_threadsafe(lambda: (ws.change(uri, version, [edit]), scheduler.schedule({uri}),
                                               scheduler.message_handled()))
            wait((uri, version))
            if stepping:
                on_loop(scheduler.idle())  # (the pass's other documents too)
                around_step("after", ("edit", path, text, texts[path]))

        outstanding: list[list] = []  # [path, offset, char]

        def take_back(i: int) -> None:
            path, offset, _ = outstanding.pop(i)
            change(path, offset, offset + 1, "")
            for typed in outstanding:
                if typed[0] == path and typed[1] > offset:
                    typed[1] -= 1

        async def hover(path: Path, offset: int):
            [folder] = ws.folders
            return hover_at(folder.snapshot(), str(path.relative_to(ws_dir)), offset)

        def checkpoint(done: int) -> None:
            nonlocal stepping
            was_stepping, stepping = stepping, False
            while outstanding:
                take_back(rng.randrange(len(outstanding)))
            stepping = was_stepping
            on_loop(scheduler.idle())
            [folder] = ws.folders
            host = folder.host
            memo = memo_paths(host)
            py = pymalloc_stats()
            print(f"{done:>7} edits: RSS {rss_mib():6.1f} MiB, allocated blocks {sys.getallocatedblocks():>9,}, "
                  f"C heap in use {heap_in_use_mib():5.1f} MiB; memo {len(host._trace_memo.memo):,} entries "
                  f"({memo.get('memo.dead_keys', 0)} under call paths gone), line indexes {len(host._line_indexes)}, "
                  f"clean block texts {len(host.clean_sources._blocks._kept)}; Python's arenas {py.get('arenas', -1)} "
                  f"(ever {py.get('arenas_total', -1)}, the most at once {py.get('highwater', -1)}), in blocks "
                  f"{py.get('used', -1):.1f} MiB, free in pools {py.get('free', -1):.1f}, empty pools {py.get('empty', -1):.1f}",
                  flush=True)
            if after_checkpoint is not None:
                on_loop(_call(after_checkpoint, done, ws))

        wait("any")
        on_loop(scheduler.idle())
        for path in pool:
            loop.call_soon_threadsafe(lambda p=path: (ws.open(p.as_uri(), 1, texts[p], "terraform"), scheduler.schedule({p.as_uri()})))
            wait((path.as_uri(), 1))
        checkpoint(0)
        if on_loop_start is not None:
            on_loop(_call(on_loop_start))
        stepping = around_step is not None
        done = 0
        for _ in range(rounds):
            for _ in range(edits):
                if not outstanding or (len(outstanding) < 64 and rng.random() < 0.5):
                    path = rng.choice(pool)
                    offset, char = rng.randint(0, len(texts[path])), rng.choice(ALPHABET)
                    for typed in outstanding:
                        if typed[0] == path and typed[1] >= offset:
                            typed[1] += 1
                    outstanding.append([path, offset, char])
                    change(path, offset, offset, char)
                else:
                    take_back(rng.randrange(len(outstanding)))
                done += 1
                if hovers and rng.random() < 1 / 3:
                    path = rng.choice(pool)
                    text = texts[path]
                    if stepping:
                        around_step("before", ("hover", path, None, None))
                    on_loop(hover(path, len(text[: rng.randint(0, len(text))].encode("utf-8"))))
                    if stepping:
                        around_step("after", ("hover", path, None, None))
            checkpoint(done)
        loop.call_soon_threadsafe(lambda: setattr(scheduler, "stopped", True))

    run_with_client(ws, ws_dir, scheduler, client)


async def _call(function, *args):
    return function(*args)  # (on the loop: nothing else runs while it looks)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--edits", type=int, default=2000, help="edits per round")
    ap.add_argument("--hovers", action="store_true")
    ap.add_argument("--workdir", type=Path, help="where to generate the workspace (default: a temporary directory)")
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-soak-inprocess-"))
    generate(ws_dir, args.modules)
    soak(ws_dir.resolve(), args.rounds, args.edits, args.hovers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
