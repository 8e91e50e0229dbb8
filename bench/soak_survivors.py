#!/usr/bin/env python3
"""What an edit leaves behind: the objects a round of the soak's edits allocated that are still
alive once every edit is taken back.

    python bench/soak_survivors.py [--modules 1000] [--edits 1000] [--hovers] [--top 25] [--depth 12]

The stream of ``bench/soak_inprocess.py`` (the server's own objects on one loop, no protocol):
a warm-up round, then ``tracemalloc`` starts and a second round runs; at its checkpoint (every
edit taken back, the analysis idle: the texts are the files' again, as at the first checkpoint),
every block still traced was allocated during the round and outlived it. A long-lived object
born among an edit's transient ones pins the allocator's pool (Python) or heap page (C) it
lies in: pymalloc's free space in pools and glibc's heap grow while the live objects stay flat
(bench/README.md, "Session 14: soak6"). The report groups those survivors by their allocation's
first tfphi frame (then by the whole traceback for the largest groups).
"""
from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from generate import generate  # noqa: E402
from soak_inprocess import soak  # noqa: E402


def last_tfphi_frame(trace) -> str:
    for frame in reversed(trace.traceback):  # (tracemalloc orders a traceback oldest first)
        if "/tfphi/" in frame.filename:
            return f"{frame.filename.split('/tfphi/', 1)[1]}:{frame.lineno}"
    frame = trace.traceback[-1]
    return f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"


def report(snapshot: tracemalloc.Snapshot, top: int, label: str) -> None:
    groups: dict[str, list[int]] = {}
    for trace in snapshot.traces:
        entry = groups.setdefault(last_tfphi_frame(trace), [0, 0])
        entry[0] += 1
        entry[1] += trace.size
    blocks = sum(c for c, _ in groups.values())
    size = sum(s for _, s in groups.values())
    print(f"{label}: {blocks:,} blocks ({size / 2**20:.2f} MiB) allocated in the round and alive at its checkpoint")
    for where, (count, nbytes) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"  {count:>8,} blocks {nbytes / 1024:>9.1f} KiB  {where}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=1000, help="edits per round")
    ap.add_argument("--rounds", type=int, default=2, help="rounds after the warm-up (one report each)")
    ap.add_argument("--hovers", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--depth", type=int, default=30, help="frames kept per allocation")
    ap.add_argument("--tracebacks", type=int, default=0, help="also print the N largest groups' whole tracebacks")
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-soak-survivors-"))
    if not (ws_dir / "main.tf").exists():
        generate(ws_dir, args.modules)

    def after_checkpoint(done: int, ws) -> None:
        gc.collect()
        if tracemalloc.is_tracing():
            snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
            tracemalloc.stop()
            report(snapshot, args.top, f"round to {done} edits")
            if args.tracebacks:
                stats = snapshot.statistics("traceback")[: args.tracebacks]
                for stat in stats:
                    print(f"-- {stat.count:,} blocks, {stat.size / 1024:.1f} KiB")
                    for line in stat.traceback.format()[-2 * args.depth:]:
                        print("   " + line)
        tracemalloc.start(args.depth)  # the next round's allocations

    soak(ws_dir.resolve(), 1 + args.rounds, args.edits, args.hovers, after_checkpoint=after_checkpoint)
    return 0


if __name__ == "__main__":
    sys.exit(main())
