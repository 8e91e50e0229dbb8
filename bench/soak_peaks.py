#!/usr/bin/env python3
"""Each step's transient peak: which edits and hovers of the soak's stream raise the allocators' high
water, and which functions of the analysis hold that memory.

    python bench/soak_peaks.py [--modules 1000] [--edits 1000] [--functions] [--top 30]

The stream of ``bench/soak_inprocess.py`` (the server's own objects on one loop, no protocol, the
hovers on), with ``tracemalloc`` on: before each step its peak is reset, after it (the step's
diagnostics out and the scheduler idle) the peak above the memory traced before the step is the
step's transient (Python's allocator, and tree-sitter's trees: py-tree-sitter allocates through
``PyMem_Malloc``). The steps are grouped by shape: hover; the edit's document (the root's
``main.tf``, another root file, a module's file); and its syntax before and after (``ok`` or
``broken``: tree-sitter's whole-text tree has an error): ``ok>broken`` breaks the document,
``broken>ok`` mends it. Printed per group: steps, peak p50 / p90 / max, and how many steps
peaked over 1 MiB and 4 MiB.

With ``--functions``, a profile function on the loop's thread also records, for every Python
function, the most memory traced above its entry while it ran (its children's included): the
top functions by their largest such peak and by their peaks summed over the steps, and for each
peak over 1 MiB the innermost frame that holds it (no single callee holds 80 % of it). The
profile slows the loop about tenfold; the steps' figures hold the same. tracemalloc counts every
thread: the shapes' own parses on the client's thread (before each step's window) may show under
the loop's ``EpollSelector.select``.

A step's peak is where the allocators' high water comes from: a pool or arena that a transient
took stays with the process while any block in it lives on (bench/README.md, "Issue 23: the
soak's other transients, session 15").
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import tracemalloc
from collections import defaultdict
from pathlib import Path

from tree_sitter import Parser

from tfphi.syntax.language import hcl_language

sys.path.insert(0, str(Path(__file__).parent))
from generate import generate  # noqa: E402
from soak_inprocess import soak  # noqa: E402

MIB = 2**20


class FunctionPeaks:
    """A ``sys.setprofile`` function: per code object, its calls and the most traced memory above
    its entry while it ran. At every call and return, tracemalloc's peak since the last event is
    folded into the running frame, then reset; a returning frame folds its high water into its
    caller's."""

    def __init__(self) -> None:
        self.stack: list[list] = []  # [code, start, high]
        self.largest: dict = defaultdict(int)
        self.summed: dict = defaultdict(int)
        self.calls: dict = defaultdict(int)
        self.over_1mib: dict = defaultdict(int)
        self.owners: dict = {}  # call path -> its largest peak, where the innermost frame holds it
        self.owner_counts: dict = defaultdict(int)
        self.absolute = 0  # the most traced at once since the caller last set it to 0

    def __call__(self, frame, event, arg) -> None:
        if event == "call":
            current, peak = tracemalloc.get_traced_memory()
            if peak > self.absolute:
                self.absolute = peak
            if self.stack:
                top = self.stack[-1]
                if peak > top[2]:
                    top[2] = peak
            self.stack.append([frame.f_code, current, current, 0])
            tracemalloc.reset_peak()
        elif event == "return":
            if not self.stack:
                return
            current, peak = tracemalloc.get_traced_memory()
            if peak > self.absolute:
                self.absolute = peak
            code, start, high, child_above = self.stack.pop()
            if peak > high:
                high = peak
            above = high - start
            if above > MIB and child_above < 0.8 * above:  # this frame holds its peak, not one callee
                path = tuple(frame[0] for frame in self.stack[-10:]) + (code,)
                self.owners[path] = max(self.owners.get(path, 0), above)
                self.owner_counts[path] += 1
            self.calls[code] += 1
            self.summed[code] += above
            if above > self.largest[code]:
                self.largest[code] = above
            if above > MIB:
                self.over_1mib[code] += 1
            if self.stack:
                caller = self.stack[-1]
                if high > caller[2]:
                    caller[2] = high
                if above > caller[3]:
                    caller[3] = above
            tracemalloc.reset_peak()

    def report(self, top: int) -> None:
        def name(code) -> str:
            where = code.co_filename.rsplit("/tfphi/", 1)[-1] if "/tfphi/" in code.co_filename else code.co_filename.rsplit("/", 1)[-1]
            return f"{code.co_qualname} ({where}:{code.co_firstlineno})"

        print(f"\nfunctions by their largest peak above entry (top {top}):")
        print(f"  {'largest MiB':>11} {'summed MiB':>10} {'calls':>8} {'>1 MiB':>7}  function")
        for code in sorted(self.largest, key=lambda c: -self.largest[c])[:top]:
            print(f"  {self.largest[code] / MIB:>11.2f} {self.summed[code] / MIB:>10.1f} {self.calls[code]:>8,} "
                  f"{self.over_1mib[code]:>7,}  {name(code)}")
        print("\nwho holds the peaks over 1 MiB (the innermost frame no single callee of which holds 80 % of it):")
        for path in sorted(self.owners, key=lambda p: -self.owners[p])[:top]:
            print(f"  {self.owners[path] / MIB:.2f} MiB, {self.owner_counts[path]} times:")
            for code in path[-7:]:
                print(f"      {name(code)}")
        print(f"\nfunctions by their peaks summed over the calls (top {top}):")
        for code in sorted(self.summed, key=lambda c: -self.summed[c])[:top]:
            print(f"  {self.largest[code] / MIB:>11.2f} {self.summed[code] / MIB:>10.1f} {self.calls[code]:>8,} "
                  f"{self.over_1mib[code]:>7,}  {name(code)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=1000)
    ap.add_argument("--functions", action="store_true", help="also the functions' peaks (a profile function on the loop)")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-soak-peaks-"))
    if not (ws_dir / "main.tf").exists():
        generate(ws_dir, args.modules)
    ws_dir = ws_dir.resolve()
    root_dir = ws_dir
    parser = Parser(hcl_language())
    broken_cache: dict[str, bool] = {}

    def broken(text: str) -> bool:
        if text not in broken_cache:
            if len(broken_cache) > 4096:
                broken_cache.clear()
            broken_cache[text] = parser.parse(text.encode("utf-8")).root_node.has_error
        return broken_cache[text]

    groups: dict[str, list[int]] = defaultdict(list)
    state = {"before": 0}
    profile = FunctionPeaks() if args.functions else None

    def around_step(phase: str, step) -> None:
        kind, path, old, new = step
        if phase == "before":
            if kind == "edit":  # (the shape's own parses before the step's window: they run on this thread)
                where = "root main.tf" if path == root_dir / "main.tf" else "root file" if path.parent == root_dir else "module file"
                state["shape"] = f"edit {where} {'broken' if broken(old) else 'ok'}>{'broken' if broken(new) else 'ok'}"
            state["before"] = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            if profile is not None:
                profile.absolute = 0
            return
        peak = tracemalloc.get_traced_memory()[1]
        if profile is not None:
            peak = max(peak, profile.absolute)
        peak -= state["before"]
        if kind == "hover":
            groups["hover"].append(peak)
            return
        groups[state["shape"]].append(peak)
        groups["edit (all)"].append(peak)

    def start_profile() -> None:
        sys.setprofile(profile)

    tracemalloc.start(1)
    soak(ws_dir, 1, args.edits, True, seed=args.seed, around_step=around_step,
         on_loop_start=start_profile if profile is not None else None)
    print("\nsteps by shape: the peak of memory traced above the step's start, MiB")
    print(f"  {'steps':>6} {'p50':>6} {'p90':>6} {'max':>6} {'>1MiB':>6} {'>4MiB':>6}  shape")
    for name in sorted(groups, key=lambda g: -max(groups[g])):
        peaks = sorted(groups[name])
        print(f"  {len(peaks):>6} {statistics.median(peaks) / MIB:>6.2f} {peaks[int(0.9 * (len(peaks) - 1))] / MIB:>6.2f} "
              f"{peaks[-1] / MIB:>6.2f} {sum(p > MIB for p in peaks):>6} {sum(p > 4 * MIB for p in peaks):>6}  {name}")
    if profile is not None:
        profile.report(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
