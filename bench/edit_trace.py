"""Where a keystroke's time goes in the real server: the edit's path cut at the server's own clock.

    python bench/edit_trace.py --modules 1000 [--edit leaf|root] [--shape value] [--edits 200] [--runs 3] [--steady]
        [--profile FILE] [--time-calls module:Qualified.name,...]

A fresh ``tfphi serve`` per run, started through this file (``--serve``), which wraps four
of the server's functions, unchanged otherwise, to write timestamps: when the transport's reader thread
notes a message's bytes (``AnalysisScheduler.note_arrival``), when the loop's didChange handler
runs (``schedule`` with the edited URI), when the versioned diagnostics are written
(``_send_diagnostics``), and every loop step (asyncio handle) longer than ``--step-ms`` after
the first diagnostics, with the loop thread's CPU time, the process's, and the loop thread's
voluntary and involuntary context switches (a step long in wall time with little CPU and no
voluntary switch is time the process was not run). While such a step runs, a watcher thread
samples every thread's stack each 5 ms into the log (it wakes the interpreter that often: a
small perturbation, the price of seeing what held the loop).
``time.perf_counter`` is CLOCK_MONOTONIC on Linux: the client's and the server's clocks are one.
As bench/run.py, the edits start as soon as the first diagnostics are out (``--steady``: once
the first analysis is over) and type a shape of bench/shapes.py (``--shape``, ``value`` by
default) and take it back. Every publishDiagnostics the server sends is logged too (its list's
length, its bytes, the time its encoding and write took), so that each keystroke says how many
files it republished and what writing them cost; ``--profile FILE`` writes a cProfile (CPU time)
of the server's loop thread from the first keystroke's diagnostics to the end (pstats format, one
file per run: FILE.N); ``--time-calls`` adds up the wall and loop thread CPU time of the functions
named (``tfphi.lsp.documents:Document.parse``, ``tfphi.syntax.parsers:HclParser.parse``, ...) and
prints them per keystroke (from the first keystroke's diagnostics on: over the edits after it). Without ``--steady`` it says how many keystrokes were typed before
the first analysis ended (the client sees its work-done progress end).

``--between`` keeps every loop step (and each wait in the selector) in memory, written at exit (a write per
step would hand the interpreter lock to the reader thread, which changes what is measured), and the loop
thread's place as the reader thread notes each arrival; it prints, per keystroke, what its arrival -> handled
waited for: the rest of the step under way at the arrival, and the steps after it up to the handler, by what
they ran (coroutine and line).

Per edit: send -> arrival (the pipe, then the reader thread waiting for the interpreter lock
while the loop thread holds it), arrival -> handled (the loop reaching the message: the rest of
the background step under way), handled -> published (the edit's own analysis), published ->
client (encoding, the pipe, the client's parse). Linux only (``/proc`` for the switches).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from edit_cpu import percentile  # noqa: E402
from loop_steps import step_name, time_selects  # noqa: E402

PARTS = ("send->arrival", "arrival->handled", "handled->published", "published->client")


# ---- the server side (``--serve``) -------------------------------------------------------------

def _switches() -> tuple[int, int]:
    """The calling thread's voluntary and involuntary context switches so far (0 where /proc has none)."""
    found = {}
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/status") as status:
            for line in status:
                if "ctxt_switches" in line:
                    name, value = line.split(":")
                    found[name] = int(value)
    except OSError:
        pass
    return found.get("voluntary_ctxt_switches", 0), found.get("nonvoluntary_ctxt_switches", 0)


def time_calls(names: list[str], log) -> None:
    """Wraps each ``module:Qualified.name`` to add up its wall and thread CPU time once the edits have begun
    (``timing``); the totals and call counts go to the log at exit as ``calls NAME COUNT WALL_MS CPU_MS``."""
    import atexit
    import importlib

    totals: dict[str, list] = {}
    for name in names:
        module_name, _, qualified = name.partition(":")
        owner = importlib.import_module(module_name)
        *path, attr = qualified.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, attr)
        total = totals[name] = [0, 0.0, 0.0]

        def timed(*args, _original=original, _total=total, **kwargs):
            if not timing:
                return _original(*args, **kwargs)
            t, cpu = time.perf_counter(), time.thread_time()
            try:
                return _original(*args, **kwargs)
            finally:
                _total[0] += 1
                _total[1] += time.perf_counter() - t
                _total[2] += time.thread_time() - cpu

        setattr(owner, attr, staticmethod(timed) if isinstance(owner.__dict__.get(attr), staticmethod) else timed)
    atexit.register(lambda: [log.write(f"calls {name} {n} {wall * 1000:.3f} {cpu * 1000:.3f}\n")
                             for name, (n, wall, cpu) in totals.items()])


timing: list = []  # non-empty once the first keystroke's diagnostics are out


def _place(frame) -> str:
    """Where a thread is, from its stack: the innermost scheduler function and the two innermost
    tfphi functions below it, or the innermost function when no tfphi function runs."""
    names = []
    innermost = f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}" if frame is not None else "?"
    while frame is not None:
        code = frame.f_code
        if "/tfphi/" in code.co_filename:
            names.append(f"{Path(code.co_filename).stem}.{code.co_name}")
        frame = frame.f_back
    if not names:
        return innermost
    lsp = next((i for i, name in enumerate(names) if name.startswith("scheduler.")), len(names))
    return "<".join(names[:min(lsp, 2)] + names[lsp:lsp + 1])


def serve_traced(log_path: str, step_ms: float, profile_path: str = "", timed: str = "", between: bool = False) -> None:
    """``tfphi serve`` with the timestamps of the module's docstring written to ``log_path``."""
    import atexit
    import cProfile

    from tfphi.cli import entry
    from tfphi.lsp import scheduler, server, transport

    if os.environ.get("TFPHI_BENCH_SWITCH_INTERVAL"):  # bench/leaf_session.py --switch-interval's A/B, here too
        transport.READER_SWITCH_INTERVAL = float(os.environ["TFPHI_BENCH_SWITCH_INTERVAL"])
    log = open(log_path, "a", buffering=1)
    published = threading.Event()
    run_handle = asyncio.events.Handle._run

    def timed_run(handle) -> None:
        if not published.is_set():
            return run_handle(handle)
        t, cpu, process, (voluntary, involuntary) = time.perf_counter(), time.thread_time(), time.process_time(), _switches()
        running[0] = t
        what = step_name(handle) if between else ""
        try:
            return run_handle(handle)
        finally:
            running[0] = None
            wall = time.perf_counter() - t
            if between:  # (kept in memory, written at exit: a write per step would hand the interpreter lock over)
                ran.append((t, wall, time.thread_time() - cpu, what))
            if wall * 1000 > step_ms:
                now_voluntary, now_involuntary = _switches()
                log.write(f"step {t:.6f} {wall * 1000:.2f} {(time.thread_time() - cpu) * 1000:.2f} "
                          f"{(time.process_time() - process) * 1000:.2f} {now_voluntary - voluntary} {now_involuntary - involuntary}\n")
                for sample in samples:
                    log.write(f"  {sample}\n")
            samples.clear()

    running: list = [None]
    samples: list[str] = []
    ran: list[tuple] = []
    if between:
        def waited(t: float, wait: float, timeout) -> None:
            if published.is_set() and threading.get_ident() == loop_thread:
                ran.append((t, wait, 0.0, f"select(timeout={'none' if timeout is None else round(timeout, 4)})"))

        time_selects(waited)
        atexit.register(lambda: log.writelines(f"run {t:.6f} {wall * 1000:.3f} {cpu * 1000:.3f} {what}\n"
                                               for t, wall, cpu, what in ran))
    loop_thread = threading.get_ident()

    def watch() -> None:
        """While a loop step runs long, what every other thread of the server is doing."""
        while True:
            time.sleep(0.005)
            start = running[0]
            if start is not None and time.perf_counter() - start > step_ms / 1000:
                for ident, frame in sys._current_frames().items():
                    if ident != threading.get_ident():
                        where = []
                        while frame is not None and len(where) < 6:
                            where.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}:{frame.f_lineno}")
                            frame = frame.f_back
                        samples.append(("loop " if ident == loop_thread else "other ") + " < ".join(where))

    threading.Thread(target=watch, daemon=True).start()

    note_arrival, schedule, send = (scheduler.AnalysisScheduler.note_arrival, scheduler.AnalysisScheduler.schedule,
                                    server.TfphiServer._send_diagnostics)

    def timed_note_arrival(self) -> None:
        if between:  # where the loop thread is (it is the reader thread that holds the interpreter lock now)
            log.write(f"place {_place(sys._current_frames().get(loop_thread))}\n")
        log.write(f"arrival {time.perf_counter():.6f}\n")
        note_arrival(self)

    profiler = cProfile.Profile(time.thread_time) if profile_path else None

    def timed_schedule(self, forced=()) -> None:
        if forced:
            log.write(f"handled {time.perf_counter():.6f}\n")
        schedule(self, forced)

    if timed:
        time_calls(timed.split(","), log)

    def timed_send(self, uri, version, items) -> None:
        published.set()
        if version is not None and version >= 2 and not timing:
            timing.append(True)
        if profiler is not None and version is not None and version >= 2 and not profiling:
            profiling.append(True)  # the first keystroke's diagnostics: from now on (the loop thread)
            profiler.enable()
            atexit.register(lambda: (profiler.disable(), profiler.dump_stats(profile_path)))
        t = time.perf_counter()
        if version is not None:
            log.write(f"published {t:.6f} {version}\n")
        writes.clear()
        send(self, uri, version, items)
        log.write(f"sent {t:.6f} {(time.perf_counter() - t) * 1000:.3f} {len(items)} {sum(writes)} {version}\n")

    profiling: list = []
    writes: list[int] = []
    from pygls.io_ import StdoutWriter
    write = StdoutWriter.write

    def counted_write(self, data: bytes) -> None:
        writes.append(len(data))
        write(self, data)

    StdoutWriter.write = counted_write

    asyncio.events.Handle._run = timed_run
    scheduler.AnalysisScheduler.note_arrival = timed_note_arrival
    scheduler.AnalysisScheduler.schedule = timed_schedule
    server.TfphiServer._send_diagnostics = timed_send
    sys.argv = ["tfphi", "serve"]
    entry()


# ---- the client side ---------------------------------------------------------------------------

def edit_run(ws: Path, file: str, edits: int, steady: bool, log_path: Path, step_ms: float, shape_name: str = "value",
             profile_path: str = "", timed: str = "", between: bool = False) -> list[tuple]:
    """One fresh server; returns (version, sent, received) per edit."""
    import lspsession
    from run import open_document
    from shapes import LEAF_SHAPES, ROOT_SHAPES, end_of_insert, keystroke, locate

    lspsession.TFPHI[:] = [sys.executable, str(Path(__file__).resolve()), "--serve", str(log_path), str(step_ms), profile_path,
                            timed, "between" if between else ""]
    client, _, t_init = lspsession.start_server(ws, log_path.parent, "trace", 300)
    try:
        if steady:
            lspsession.wait_indexed(client, t_init, 300)
        else:
            lspsession.wait_first_diagnostics(client, t_init, 300)
        uri, _, _ = open_document(client, ws / file, 300)
        client.drain()
        text = (ws / file).read_text(encoding="utf-8")
        shape = next(s for s in (ROOT_SHAPES if file == "main.tf" else LEAF_SHAPES) if s.name == shape_name)
        start = locate(shape, text)
        typed = end_of_insert(start, shape.insert)
        rows = []
        indexed = [None if not steady else 0.0]

        def note_index_end(messages) -> None:
            for t, msg in messages:
                if (msg.get("method") == "$/progress" and ((msg.get("params") or {}).get("value") or {}).get("kind") == "end"
                        and indexed[0] is None):
                    indexed[0] = t
        for i in range(edits + edits % 2):
            version, insert = i + 2, i % 2 == 0
            future = client.expect_diagnostics(uri, version)
            sent = client.notify("textDocument/didChange", keystroke(uri, version, shape, start, typed, insert))
            received, _ = future.result(300)
            rows.append((version, sent, received))
            note_index_end(client.drain())
        if indexed[0] is None:  # still indexing after the last edit
            indexed[0] = float("inf")
        return rows, indexed[0]
    finally:
        client.close()


def split(rows: list[tuple], log_path: Path) -> tuple[list[tuple], list[tuple], list[tuple], list[list[tuple]]]:
    """Per edit its four parts in ms (from the server's log), the long loop steps during the edits,
    per edit the publishDiagnostics sent from its arrival to the next edit's: (count, items, bytes, ms),
    and (``--between``) per edit the loop steps from its arrival to its handler: (start, wall ms, CPU ms,
    what), the first one the step under way at the arrival."""
    arrivals, handled, published, steps, sent, runs, places = [], [], {}, [], [], [], {}
    place = ""
    for line in log_path.read_text().splitlines():
        kind, stamp, *rest = line.split()
        if kind == "place":
            place = stamp
        elif kind == "arrival":
            places[float(stamp)] = place
            arrivals.append(float(stamp))
        elif kind == "handled":
            handled.append(float(stamp))
        elif kind == "published":
            published[int(rest[0])] = float(stamp)
        elif kind.startswith(("loop", "other")):
            continue
        elif kind == "step":
            steps.append((float(stamp), *map(float, rest)))
        elif kind == "calls":
            continue
        elif kind == "run":
            runs.append((float(stamp), float(rest[0]), float(rest[1]), rest[2] if len(rest) > 2 else ""))
        elif kind == "sent":
            sent.append((float(stamp), float(rest[0]), int(rest[1]), int(rest[2])))
    parts, publishes, waited = [], [], []
    for k, (version, _, _) in enumerate(rows):
        begin = rows[k][1]
        end = rows[k + 1][1] if k + 1 < len(rows) else float("inf")
        mine = [x for x in sent if begin <= x[0] < end]
        publishes.append((len(mine), sum(x[2] for x in mine), sum(x[3] for x in mine), round(sum(x[1] for x in mine), 3)))
    for version, sent, received in rows:
        arrival = arrivals[bisect.bisect(arrivals, sent)]  # the first note after the write
        handle = handled[bisect.bisect(handled, arrival)]
        out = published[version]
        parts.append(tuple(round(x * 1000, 2) for x in (arrival - sent, handle - arrival, out - handle, received - out)))
        if runs:
            k = max(bisect.bisect([r[0] for r in runs], arrival) - 1, 0)  # the step under way at the arrival
            waited.append((arrival, handle, places.get(arrival, ""), [r for r in runs[k:] if r[0] < handle and r[0] + r[1] / 1000 > arrival]))
    first, last = rows[0][1], rows[-1][2]
    return parts, [s for s in steps if first <= s[0] <= last], publishes, waited


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--edit", choices=["leaf", "root"], default="leaf")
    ap.add_argument("--shape", default="value", help="a shape of bench/shapes.py (root: value, newline, comment, label, space)")
    ap.add_argument("--profile", default="", help="cProfile of the loop thread during the edits, to FILE.<run>")
    ap.add_argument("--time-calls", default="", help="comma-separated module:Qualified.name whose wall time per edit "
                    "is added up (e.g. tfphi.lsp.publish:DiagnosticPublisher.publish_config)")
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steady", action="store_true", help="start editing once the first analysis is done")
    ap.add_argument("--step-ms", type=float, default=10.0, help="loop steps longer than this are listed")
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--between", action="store_true", help="log every loop step; print what each keystroke's arrival "
                    "-> handled waited for: the step under way at its arrival (the rest of it), by coroutine and line")
    args = ap.parse_args(argv)
    from generate import generate

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-edit-trace-"))
    ws = workdir / f"ws{args.modules}"
    summary = generate(ws, args.modules)
    file = "main.tf" if args.edit == "root" else summary["probes"]["leaf_edit"]["file"]
    for run in range(args.runs):
        log_path = workdir / f"trace{run}.log"
        log_path.unlink(missing_ok=True)
        rows, indexed = edit_run(ws, file, args.edits, args.steady, log_path, args.step_ms, args.shape,
                        f"{args.profile}.{run}" if args.profile else "", args.time_calls, args.between)
        parts, steps, publishes, waited = split(rows, log_path)
        total = [sum(p) for p in parts]
        print(f"run {run + 1}: {args.edit} {args.shape} edits{' (steady)' if args.steady else ''}, ms: first ten "
              f"{[round(t, 1) for t in total[:10]]}, p50 {percentile(total, 50):.1f}, p99 {percentile(total, 99):.1f}, max {max(total):.1f}")
        for i, name in enumerate(PARTS):
            xs = [p[i] for p in parts]
            print(f"    {name:<19} p50 {percentile(xs, 50):6.2f}  p95 {percentile(xs, 95):6.2f}  max {max(xs):7.2f}")
        if not args.steady:
            during = [t for t, (_, sent, _) in zip(total, rows) if sent < indexed]
            after = [t for t, (_, sent, _) in zip(total, rows) if sent >= indexed]
            print(f"    typed during the first analysis: {len(during)} of {len(total)} edits"
                  + (f", p50 {percentile(during, 50):.2f}" if during else "")
                  + (f"; after it p50 {percentile(after, 50):.2f}" if after else ""))
        for i, name in enumerate(("publishes", "their items", "their bytes", "their encode+write ms")):
            xs = [p[i] for p in publishes]
            print(f"    {name:<21} p50 {percentile(xs, 50):8.2f}  p95 {percentile(xs, 95):8.2f}  max {max(xs):8.2f}")
        worst = sorted(range(len(parts)), key=lambda k: -total[k])[:3]
        print("    slowest: " + "; ".join(f"edit {k + 1}: {total[k]:.1f} = " + " + ".join(f"{x:.1f}" for x in parts[k])
                                        for k in worst))
        for line in log_path.read_text().splitlines():
            if line.startswith("calls "):
                _, name, count, wall, cpu = line.split()
                timed = max(len(rows) - 1, 1)  # (from the first keystroke's diagnostics on: the edits after it)
                print(f"    {name}: {int(count)} calls, per edit {float(wall) / timed:.3f} ms wall, "
                      f"{float(cpu) / timed:.3f} ms CPU")
        if waited:
            # The step under way at the arrival (what is left of it), by what it ran; the steps after it up to the handler.
            under_way: dict[str, list[float]] = {}
            after: list[float] = []
            later: dict[str, list[float]] = {}  # the steps after it, by what they ran: per edit, the time they took
            gaps: list[float] = []  # neither in a step nor in the selector: the loop thread waiting for the interpreter lock
            by_place: dict[str, list[float]] = {}
            for arrival, handle, place, window in waited:
                by_place.setdefault(place, []).append((handle - arrival) * 1000)
                covered = sum(min(r[0] + r[1] / 1000, handle) - max(r[0], arrival) for r in window)
                gaps.append((handle - arrival - covered) * 1000)
                if window and window[0][0] <= arrival:
                    start, wall, _, what = window[0]
                    under_way.setdefault(what, []).append((start + wall / 1000 - arrival) * 1000)
                    window = window[1:]
                else:
                    under_way.setdefault("(between two steps)", []).append(0.0)
                after.append(sum(r[1] for r in window))
                mine: dict[str, float] = {}
                for r in window:
                    mine[r[3]] = mine.get(r[3], 0.0) + r[1]
                for what, ms in mine.items():
                    later.setdefault(what, []).append(ms)
            print(f"    arrival -> handled: the rest of the step under way, by what it ran (count, p50, max ms); then "
                  f"the steps up to the handler, p50 {percentile(after, 50):.2f}, max {max(after):.2f} ms")
            for what, xs in sorted(under_way.items(), key=lambda kv: -sum(kv[1]))[:8]:
                print(f"      {len(xs):4d}  p50 {percentile(xs, 50):6.2f}  max {max(xs):6.2f}  {what}")
            print("    the steps after it up to the handler, by what they ran (edits, p50 and max ms per edit, total ms):")
            for what, xs in sorted(later.items(), key=lambda kv: -sum(kv[1]))[:8]:
                print(f"      {len(xs):4d}  p50 {percentile(xs, 50):6.2f}  max {max(xs):6.2f}  total {sum(xs):7.1f}  {what}")
            print("    arrival -> handled by where the loop thread was at the arrival (edits, p50, max ms, total):")
            for place, xs in sorted(by_place.items(), key=lambda kv: -sum(kv[1]))[:10]:
                print(f"      {len(xs):4d}  p50 {percentile(xs, 50):6.2f}  max {max(xs):6.2f}  total {sum(xs):7.1f}  {place}")
            print(f"    and outside any step or select (the loop thread without the interpreter lock): p50 "
                  f"{percentile(gaps, 50):.2f}, p95 {percentile(gaps, 95):.2f}, max {max(gaps):.2f} ms")
        if steps:
            longest = max(steps, key=lambda s: s[2])
            slowest = max(steps, key=lambda s: s[1])
            print(f"    loop steps over {args.step_ms:g} ms during the edits: {len(steps)}; the most CPU: "
                  f"{longest[2]:.1f} ms CPU in {longest[1]:.1f} ms; the longest: {slowest[1]:.1f} ms, loop thread CPU "
                  f"{slowest[2]:.1f} ms, process CPU {slowest[3]:.1f} ms, switches {int(slowest[4])} voluntary, "
                  f"{int(slowest[5])} involuntary")
        else:
            print(f"    loop steps over {args.step_ms:g} ms during the edits: none")
        sys.stdout.flush()
        (workdir / f"edits{run}.json").write_text(json.dumps({"rows": rows, "parts": parts, "steps": steps, "publishes": publishes}))
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 7 and sys.argv[1] == "--serve":  # (lspsession appends ``serve``)
        serve_traced(sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6] == "between")
    else:
        sys.exit(main())
