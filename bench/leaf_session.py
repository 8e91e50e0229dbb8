"""The leaf session of bench/run.py, again and again, with what the server did during its slowest keystrokes.

    python bench/leaf_session.py --modules 1000 [--runs 10] [--edits 200] [--first 10] [--plain]
        [--switch-interval SECONDS] [--root]

Each run is ``edit_session``'s leaf half: a fresh ``tfphi serve`` over stdio; as soon as its first
diagnostics arrive, the leaf's ``main.tf`` is opened and the ``value`` shape of bench/shapes.py is
typed and taken back ``--edits`` times, back to back, each keystroke timed from the didChange
written to the arrival of the diagnostics of its version. Printed per run: the first ``--first``
keystrokes, p50 / p99, and what the server's log holds inside each keystroke over ``--slow-ms``.

The server is started through this file (``--serve LOG``), which leaves it unchanged but writes to
LOG, with ``time.perf_counter`` (CLOCK_MONOTONIC: one clock for both processes): every garbage
collection longer than 1 ms (``gc.callbacks``: its generation, its time, what it found), every
full collection of ``QuietCollector`` and every ``malloc_trim`` of ``HeapTrimmer`` with its time,
the end of every analysis pass, every loop step longer than 10 ms (wall and loop-thread CPU), and
when the first analysis ended (its work-done progress); and each module's diagnostics made and
the loop's waits in its selector while modules are pending (kept in memory, written at exit).
``--plain`` starts ``tfphi serve`` itself (nothing wrapped), to check the wrapping changes nothing.

Also printed per run: the messages the client read between a keystroke's send and its answer
(what else the server wrote that the client had to parse first), the publishes of other files the
server wrote meanwhile, and how many other modules the background analysis finished while the
keystrokes were typed. ``--switch-interval S`` runs the server with ``transport.READER_SWITCH_INTERVAL``
set to S (an A/B of the reader thread's wait for the interpreter lock: docs/performance.md, "Leaf
keystrokes during the first analysis, session 13"). ``--root`` types bench/run.py's root session
instead (every root shape in turn in ``main.tf``, each typed and taken back) and cuts it per shape.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from edit_cpu import percentile  # noqa: E402


# ---- the server side (``--serve``) -------------------------------------------------------------

def serve_logged(log_path: str) -> None:
    from tfphi.cli import entry
    from tfphi.lsp import collector, scheduler, server, transport

    if os.environ.get("TFPHI_BENCH_SWITCH_INTERVAL"):  # --switch-interval: the reader's wait for the lock, A/B
        transport.READER_SWITCH_INTERVAL = float(os.environ["TFPHI_BENCH_SWITCH_INTERVAL"])

    log = open(log_path, "a", buffering=1)
    import tfphi
    log.write(f"# tfphi from {Path(tfphi.__file__).parent}\n")
    started: list[float] = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            took = time.perf_counter() - started[0]
            if took > 0.001:
                log.write(f"gc {started[0]:.6f} {took * 1000:.2f} gen{info['generation']} found {info['collected']}\n")

    gc.callbacks.append(on_gc)

    def timed(owner, name: str, label: str, always: bool = False) -> None:
        original = getattr(owner, name)

        def wrapper(self, *args, **kwargs):
            t = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                took = time.perf_counter() - t
                if always or took > 0.001:
                    log.write(f"{label} {t:.6f} {took * 1000:.2f}\n")

        setattr(owner, name, wrapper)

    timed(collector.QuietCollector, "collect", "collect", always=True)
    timed(collector.QuietCollector, "pass_done", "pass_done", always=True)  # a pass finished (and the trimmer ran)

    trim_of_process = collector.HeapTrimmer.of_this_process.__func__

    def logged_trimmer(cls):
        trimmer = trim_of_process(cls)
        if trimmer._trim is not None:
            trim = trimmer._trim

            def logged_trim(pad: int) -> int:
                t, before = time.perf_counter(), collector._resident_bytes()
                try:
                    return trim(pad)
                finally:
                    log.write(f"trim {t:.6f} {(time.perf_counter() - t) * 1000:.2f} "
                              f"{before / 2**20:.1f} -> {collector._resident_bytes() / 2**20:.1f} MiB\n")

            trimmer._trim = logged_trim
        return trimmer

    collector.HeapTrimmer.of_this_process = classmethod(logged_trimmer)

    run_handle = asyncio.events.Handle._run

    def timed_run(handle) -> None:
        t, cpu = time.perf_counter(), time.thread_time()
        try:
            return run_handle(handle)
        finally:
            wall = time.perf_counter() - t
            if wall > 0.010:
                log.write(f"step {t:.6f} {wall * 1000:.2f} cpu {(time.thread_time() - cpu) * 1000:.2f}\n")

    asyncio.events.Handle._run = timed_run
    note_arrival = scheduler.AnalysisScheduler.note_arrival

    def logged_arrival(self) -> None:
        log.write(f"arrival {time.perf_counter():.6f}\n")
        note_arrival(self)

    scheduler.AnalysisScheduler.note_arrival = logged_arrival
    send = server.TfphiServer._send_diagnostics

    def logged_send(self, uri, version, items) -> None:
        t = time.perf_counter()
        send(self, uri, version, items)
        where = "/".join(uri.rsplit("/", 3)[-3:])
        log.write(f"sent {t:.6f} {(time.perf_counter() - t) * 1000:.3f} v{version} {len(items)} {where}\n")

    server.TfphiServer._send_diagnostics = logged_send
    dir_diagnostics = scheduler.dir_diagnostics

    def logged_dir_diagnostics(snapshot, dir):
        t = time.perf_counter()
        try:
            return dir_diagnostics(snapshot, dir)
        finally:
            log.write(f"module {t:.6f} {(time.perf_counter() - t) * 1000:.3f} {dir or '.'}\n")

    scheduler.dir_diagnostics = logged_dir_diagnostics  # (a module's diagnostics: the last step of its analysis)
    # The loop's waits in its selector while modules are pending (kept in memory, written at exit:
    # a write per wait would hand the lock to the reader): idle time the background could have used.
    import atexit

    from loop_steps import time_selects

    schedulers: list = []
    init = scheduler.AnalysisScheduler.__init__

    def kept_init(self, *args, **kwargs) -> None:
        init(self, *args, **kwargs)
        schedulers.append(self)

    scheduler.AnalysisScheduler.__init__ = kept_init
    waits: list[tuple[float, float]] = []

    def waited(t: float, wait: float, timeout) -> None:
        if schedulers and any(f.pending_dirs for f in schedulers[0].ws.folders):
            waits.append((t, wait))

    time_selects(waited)
    atexit.register(lambda: log.writelines(f"idle {t:.6f} {w * 1000:.3f}\n" for t, w in waits))
    sys.argv = ["tfphi", "serve"]
    entry()


# ---- the client side ---------------------------------------------------------------------------

def leaf_run(ws: Path, file: str, edits: int, log_path: Path | None, outdir: Path, steady: bool = False,
             pause: float = 0.0, server: Path | None = None, shapes: tuple = ()) -> tuple[list[tuple], float]:
    """One fresh server, bench/run.py's leaf session (``shapes``: typed in turn instead of the leaf's
    ``value``, as its root session does); returns (sent, received) per keystroke and when the first
    analysis ended (the client's clock; inf when it had not by the last keystroke)."""
    import lspsession
    from run import open_document
    from shapes import LEAF_SHAPES, end_of_insert, keystroke, locate

    saved, child_env = list(lspsession.TFPHI), lspsession.child_env
    if log_path is not None:
        lspsession.TFPHI[:] = [sys.executable, str(Path(__file__).resolve()), "--serve", str(log_path)]
    if server is not None:
        lspsession.child_env = lambda: {**child_env(), "PYTHONPATH": str(server.resolve())}
    try:
        client, _, t_init = lspsession.start_server(ws, outdir, "leaf", 300)
    finally:
        lspsession.TFPHI[:], lspsession.child_env = saved, child_env
    try:
        if steady:
            indexed = t_init + lspsession.wait_indexed(client, t_init, 300)["index_s"]
        else:
            lspsession.wait_first_diagnostics(client, t_init, 300)
        uri, _, _ = open_document(client, ws / file, 300)
        client.drain()
        text = (ws / file).read_text(encoding="utf-8")
        carets = [(shape, locate(shape, text)) for shape in (shapes or [s for s in LEAF_SHAPES if s.name == "value"])]
        rows, read_between = [], []  # (the client's messages read between a keystroke's send and its answer)
        if not steady:
            indexed = float("inf")
        for i in range(edits + edits % 2):
            if pause:
                time.sleep(pause)
            version, insert = i + 2, i % 2 == 0
            shape, start = carets[(i // 2) % len(carets)]  # each keystroke typed, then taken back
            typed = end_of_insert(start, shape.insert)
            future = client.expect_diagnostics(uri, version)
            sent = client.notify("textDocument/didChange", keystroke(uri, version, shape, start, typed, insert))
            received, _ = future.result(300)
            rows.append((sent, received))
            arrived = client.drain()
            read_between.append(sum(sent <= t < received for t, _ in arrived))
            for t, msg in arrived:
                if msg.get("method") == "$/progress" and ((msg.get("params") or {}).get("value") or {}).get("kind") == "end":
                    indexed = min(indexed, t)
        print(f"    messages the client read between a keystroke's send and its diagnostics: "
              f"p50 {percentile(read_between, 50)}, max {max(read_between)}, total {sum(read_between)}")
        return rows, indexed
    finally:
        client.close()


def parts(log_path: Path, rows: list[tuple]) -> list[tuple]:
    """Per keystroke, in ms: send -> the reader thread's note, -> its diagnostics written (the
    server's loop), -> the client's read; and the publishes of other versions written meanwhile."""
    arrivals, published, sent = [], {}, []
    for line in log_path.read_text().splitlines():
        if line.startswith("#"):
            continue
        kind, stamp, *rest = line.split()
        if kind == "arrival":
            arrivals.append(float(stamp))
        elif kind == "sent":
            sent.append(float(stamp))
            if rest[1] != "vNone":
                published[int(rest[1][1:])] = float(stamp)
    out = []
    for k, (t_send, t_recv) in enumerate(rows):
        arrival = arrivals[bisect.bisect(arrivals, t_send)]
        out_t = published.get(k + 2, t_recv)
        others = sum(t_send <= t <= out_t for t in sent) - 1
        out.append((round((arrival - t_send) * 1000, 1), round((out_t - arrival) * 1000, 1),
                    round((t_recv - out_t) * 1000, 1), others))
    return out


def background_modules(log_path: Path, rows: list[tuple], edited: str) -> tuple[int, int, float]:
    """How many other modules' analyses ended while the keystrokes were typed, and after them (a
    background analysis under way, or over: the two states a keystroke at 1,000 modules may meet),
    and how long the loop waited in its selector meanwhile with modules pending (ms)."""
    begin, end = rows[0][0], rows[-1][1]
    during = after = 0
    idle = 0.0
    for line in log_path.read_text().splitlines():
        kind, stamp, *rest = line.split()
        if kind == "module" and rest[1] != edited:
            during += begin <= float(stamp) <= end
            after += float(stamp) > end
        elif kind == "idle" and begin <= float(stamp) <= end:
            idle += float(rest[0])
    return during, after, round(idle, 1)


def events_between(log_path: Path, begin: float, end: float) -> list[str]:
    """The server log's lines (other than arrivals) that overlap [begin, end], with their start made
    relative to ``begin`` (ms)."""
    out = []
    for line in log_path.read_text().splitlines():
        if line.startswith("#"):
            continue
        kind, stamp, *rest = line.split()
        if kind in ("arrival", "module", "idle"):
            continue
        t = float(stamp)
        if t <= end and t + float(rest[0]) / 1000 >= begin:
            out.append(f"{kind} +{(t - begin) * 1000:.1f} ms: {' '.join(rest)}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--first", type=int, default=10, help="keystrokes printed from the first on")
    ap.add_argument("--slow-ms", type=float, default=20.0, help="keystrokes over this are explained from the log")
    ap.add_argument("--steady", action="store_true", help="open the leaf once the first analysis is over")
    ap.add_argument("--pause", type=float, default=0.0, help="seconds between a keystroke's diagnostics and the next")
    ap.add_argument("--server", type=Path, action="append", default=[],
                    help="a checkout's server/ directory to run instead of this one's (repeat it to alternate the runs "
                         "between them: an A/B on the same minutes)")
    ap.add_argument("--switch-interval", type=float,
                    help="the server's transport.READER_SWITCH_INTERVAL (seconds) instead of its own, for an A/B")
    ap.add_argument("--root", action="store_true",
                    help="bench/run.py's root session instead: every root shape of bench/shapes.py in turn in main.tf")
    ap.add_argument("--plain", action="store_true", help="an unwrapped `tfphi serve` (no server log)")
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args(argv)
    if args.switch_interval is not None:
        os.environ["TFPHI_BENCH_SWITCH_INTERVAL"] = str(args.switch_interval)
    from generate import generate
    from shapes import ROOT_SHAPES

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-leaf-session-"))
    ws = workdir / f"ws{args.modules}"
    summary = generate(ws, args.modules)
    file = "main.tf" if args.root else summary["probes"]["leaf_edit"]["file"]
    shapes = ROOT_SHAPES if args.root else ()
    p50s, p99s = [], []
    by_server: dict[str, list] = {}
    for run in range(args.runs):
        log_path = None if args.plain else workdir / f"leaf{run}.log"
        if log_path is not None:
            log_path.unlink(missing_ok=True)
        server = args.server[run % len(args.server)] if args.server else None
        rows, indexed = leaf_run(ws, file, args.edits, log_path, workdir, args.steady, args.pause, server, shapes)
        ms = [(received - sent) * 1000 for sent, received in rows]
        p50s.append(percentile(ms, 50))
        p99s.append(percentile(ms, 99))
        by_server.setdefault(str(server or "this checkout"), []).append((ms[0], p50s[-1], p99s[-1]))
        during = sum(sent < indexed for sent, _ in rows)
        if log_path is not None and indexed < float("inf"):
            end = next((k for k, (sent, _) in enumerate(rows) if sent >= indexed), len(rows))
            print(f"    the first analysis ended (its progress) before keystroke {end + 1}; around it: "
                  f"{[round(x, 1) for x in ms[max(0, end - 5):end + 5]]}")
        print(f"run {run + 1}{f' ({server})' if server else ''}: first {[round(x, 1) for x in ms[:args.first]]}, p50 {p50s[-1]:.1f}, p99 {p99s[-1]:.1f}, "
              f"max {max(ms):.1f}; typed during the first analysis: {during} of {len(rows)}")
        if log_path is not None:
            cut = parts(log_path, rows)
            for i, name in enumerate(("send -> reader", "reader -> written", "written -> client")):
                xs = [c[i] for c in cut]
                print(f"    {name:<18} p50 {percentile(xs, 50):6.1f}  p95 {percentile(xs, 95):6.1f}  p99 {percentile(xs, 99):6.1f}"
                      f"  max {max(xs):6.1f}  first {[c[i] for c in cut[:args.first]]}")
            for j, shape in enumerate(shapes):  # per shape, typed and taken back: send -> reader, end to end
                mine = [k for k in range(len(rows)) if (k // 2) % len(shapes) == j]
                print(f"    {shape.name:<8} send -> reader p50 {percentile([cut[k][0] for k in mine], 50):.2f}, "
                      f"keystroke p50 {percentile([ms[k] for k in mine], 50):.2f}")
            during, after, idle = background_modules(log_path, rows, str(Path(file).parent))
            print(f"    other modules analysed while the keystrokes were typed: {during}; after them: {after}; "
                  f"the loop idle in its selector with modules pending, meanwhile: {idle} ms")
            others = [c[3] for c in cut]
            print(f"    other publishes written between a keystroke's send and its diagnostics: p50 {percentile(others, 50)}, "
                  f"max {max(others)}, total {sum(others)}")
            for k, (sent, received) in enumerate(rows):
                if ms[k] > args.slow_ms:
                    print(f"    keystroke {k + 1}: {ms[k]:.1f} ms = {cut[k][0]} to the reader + {cut[k][1]} to its "
                          f"diagnostics written + {cut[k][2]} to the client's read ({cut[k][3]} other publishes)")
                    for event in events_between(log_path, sent, received):
                        print(f"        {event}")
        sys.stdout.flush()
    for server, rows in by_server.items():
        print(f"{server}: first keystroke {[round(r[0], 1) for r in rows]}, p50 {[round(r[1], 1) for r in rows]}, "
              f"p99 {[round(r[2], 1) for r in rows]} ms")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--serve":  # (lspsession appends ``serve``)
        serve_logged(sys.argv[2])
    else:
        sys.exit(main())
