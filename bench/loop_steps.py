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

``--edits N --shape S`` types a shape of bench/shapes.py into the open document from the first
diagnostics on, as bench/run.py does (each keystroke as soon as the last one's diagnostics are out,
taken back by the next), from a second thread that plays the server's reader thread (as
``bench/edit_cpu.py``): it notes each keystroke's arrival (``AnalysisScheduler.note_arrival``), and
hands it to the loop. Printed: the wait from arrival to the loop running the keystroke's handler
(p50, p95, max), and, per place the loop was at the arrival (the innermost functions of its stack,
sampled by that thread as it notes the arrival), how many keystrokes found it there and their waits:
what a keystroke waits for while the first analysis runs. The keystrokes reach the loop as the
server's do: that thread hands each one to a coroutine on the loop awaiting an executor's read.

``--pieces`` times the uninterruptible pieces of the background work: the time between two points
where a client message that waits would be noticed (a check of ``cancellation.Interrupt`` by armed
background work, the scheduler's ``_due``, and the ends of a loop step), inside the steps of the
index and of the passes. Printed: their distribution before and after the first diagnostics, and
the longest by the places they run between (a piece ``A -> B`` starts at A and ends at B).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
import queue
import tempfile
import threading
import time
from pathlib import Path

from tfphi import cancellation
from tfphi.lsp import scheduler as scheduler_module
from tfphi.lsp.collector import QuietCollector
from tfphi.lsp.documents import TextChange
from tfphi.lsp.main import import_analysis_modules
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

sys.path.insert(0, str(Path(__file__).parent))
from edit_cpu import percentile  # noqa: E402
from generate import generate  # noqa: E402
from shapes import LEAF_SHAPES, ROOT_SHAPES, end_of_insert, locate  # noqa: E402


def step_name(handle: asyncio.Handle) -> str:
    """The coroutine (and its line) or callback a loop step ran, by name, without spaces (a log field)."""
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    coro = task.get_coro() if isinstance(task, asyncio.Task) else None
    if coro is not None:
        frame = getattr(coro, "cr_frame", None)
        where = f":{frame.f_lineno}" if frame is not None else ""
        return f"{coro.__qualname__}{where}"
    return getattr(callback, "__qualname__", type(callback).__name__).replace(" ", "_")


def time_selects(after) -> None:
    """Times every wait of the loop in its selector: ``after(started, seconds, timeout)`` once each
    returns (the loop's idle time, where a log of its steps has none)."""
    import selectors

    select = selectors.DefaultSelector.select

    def timed_select(self, timeout=None):
        t = time.perf_counter()
        try:
            return select(self, timeout)
        finally:
            after(t, time.perf_counter() - t, timeout)

    selectors.DefaultSelector.select = timed_select


def _place(frame) -> str:
    """Where the loop thread is, from its stack: the innermost scheduler function and the two
    innermost tfphi functions below it (``idle`` when no tfphi function runs: between steps)."""
    names = []
    while frame is not None:
        code = frame.f_code
        if "/tfphi/" in code.co_filename:
            names.append((Path(code.co_filename).stem, code.co_name))
        frame = frame.f_back
    if not names:
        return "idle (between steps)"
    lsp = next((i for i, (stem, _) in enumerate(names) if stem == "scheduler"), len(names))
    inner = [f"{stem}.{name}" for stem, name in names[:lsp]][-2:] if lsp else []
    outer = [f"{stem}.{name}" for stem, name in names[lsp:lsp + 1]]
    return " > ".join(outer + inner[::-1][-2:])


async def reader(scheduler: AnalysisScheduler, messages: queue.Queue, arrivals: list) -> None:
    """The server's reader, as ``lsp/transport.py`` reads: an executor's thread waits for the next
    message, notes its arrival with the loop thread's place (``_place``), and hands it to this coroutine,
    which runs it (None: the end)."""
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()

    def read():
        message = messages.get()
        if message is not None:
            arrivals.append((time.perf_counter(), _place(sys._current_frames().get(loop_thread))))
            scheduler.note_arrival()
        return message

    while (message := await loop.run_in_executor(None, read)) is not None:
        message()
        scheduler.message_handled()


def keystrokes(ws: LiveWorkspace, loop: asyncio.AbstractEventLoop, scheduler: AnalysisScheduler, path: Path, shape,
               edits: int, published: dict, cond: threading.Condition, waits: list[tuple[float, str]]) -> None:
    """The client's keystrokes (``--edits``), from a thread of its own: each one handed to ``reader``, and
    its diagnostics awaited; ``waits`` gets (arrival -> handler seconds, the loop's place at the arrival)."""
    messages: queue.Queue = queue.Queue()
    arrivals: list[tuple[float, str]] = []
    asyncio.run_coroutine_threadsafe(reader(scheduler, messages, arrivals), loop)
    uri, text = path.as_uri(), path.read_text()
    start = locate(shape, text)
    caret, end = (start["line"], start["character"]), end_of_insert(start, shape.insert)
    typed = (end["line"], end["character"])
    with cond:
        while "first" not in published:
            cond.wait()
    for i in range(edits + edits % 2):
        version, insert = i + 2, i % 2 == 0
        change = TextChange(shape.insert if insert else "", (caret, caret if insert else typed))
        handled: list[float] = []

        def handle(version=version, change=change, handled=handled) -> None:
            handled.append(time.perf_counter())
            ws.change(uri, version, [change])
            scheduler.schedule({uri})

        messages.put(handle)
        with cond:
            while (uri, version) not in published:
                cond.wait()
        if i < edits:
            arrival, place = arrivals[-1]
            waits.append((handled[0] - arrival, place))
    messages.put(None)


def watch_pieces(marks: list[tuple[float, str]]):
    """Records in ``marks`` each point where background work notices a client message that waits
    (``--pieces``): an armed ``Cancellation.check``, ``AnalysisScheduler._due``; returns what undoes it."""
    Scheduler = scheduler_module.AnalysisScheduler
    check, due, in_steps = cancellation.Cancellation.check, Scheduler._due, Scheduler._in_steps
    clock = time.thread_time  # (the loop thread's CPU: a piece is work, not the machine's other processes)

    def where(frame) -> str:
        return f"{frame.f_code.co_name}:{frame.f_lineno}"

    def marked_check(self) -> None:
        if self.interrupt.armed:
            marks.append((clock(), "check in " + where(sys._getframe(1)), time.perf_counter()))
        return check(self)

    def marked_due(self, folder) -> bool:
        marks.append((clock(), "_due in " + where(sys._getframe(1)), time.perf_counter()))
        return due(self, folder)

    def marked_steps(steps):
        """Each step of ``_in_steps`` (which tests ``Interrupt.waiting`` between two) marked."""
        try:
            while True:
                value = next(steps)
                marks.append((clock(), f"{getattr(steps, '__qualname__', type(steps).__name__)} step", time.perf_counter()))
                yield value
        except StopIteration as done:
            return done.value

    def marked_in_steps(self, folder, steps):
        return in_steps(self, folder, marked_steps(steps))

    cancellation.Cancellation.check, Scheduler._due, Scheduler._in_steps = marked_check, marked_due, marked_in_steps
    return lambda: (setattr(cancellation.Cancellation, "check", check), setattr(Scheduler, "_due", due),
                    setattr(Scheduler, "_in_steps", in_steps))


def pieces_of(steps: list[tuple], marks: list[tuple[float, str, float]]) -> list[tuple[float, float, str, str, float, float]]:
    """The uninterruptible pieces of the index's and the passes' steps: (its step's start, CPU seconds,
    from, to, wall start, wall end)."""
    found = []
    k = 0
    for step_start, wall, cpu, what, _, cpu_start in steps:
        start, end = cpu_start, cpu_start + cpu
        while k < len(marks) and marks[k][0] < start:
            k += 1
        if not what.startswith(("AnalysisScheduler._run", "AnalysisScheduler._index")):
            continue
        last, label, last_wall = start, "step start", step_start
        while k < len(marks) and marks[k][0] <= end:
            found.append((step_start, marks[k][0] - last, label, marks[k][1], last_wall, marks[k][2]))
            last, label, last_wall = marks[k]
            k += 1
        found.append((step_start, end - last, label, "step end", last_wall, step_start + wall))
    return found


def sampler(samples: list[tuple[float, str]], stop: threading.Event) -> None:
    """Samples the loop thread's stack (the five innermost functions) every 0.2 ms until ``stop``."""
    loop_thread = threading.main_thread().ident
    while not stop.wait(0.0002):
        frame = sys._current_frames().get(loop_thread)
        names = []
        while frame is not None and len(names) < 5:
            names.append(f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}:{frame.f_lineno}")
            frame = frame.f_back
        samples.append((time.perf_counter(), " < ".join(names)))


def trace(ws_dir: Path, open_file: str | None, profile_top: int, shape=None, edits: int = 0, pieces: bool = False,
          sample: int = 0) -> dict:
    """Runs the first analysis of ``ws_dir`` with ``open_file`` opened first; returns its loop steps
    (with ``edits``, what each keystroke of ``shape`` typed meanwhile waited for; with ``pieces``,
    the uninterruptible pieces of the background work)."""
    import_analysis_modules()
    ws = LiveWorkspace()
    first_diagnostics: list[float] = []
    published: dict = {}
    cond = threading.Condition()
    waits: list[tuple[float, str]] = []

    def send(uri, version, items):
        if not first_diagnostics:
            first_diagnostics.append(time.perf_counter())
        with cond:
            published.setdefault("first", None)
            if version is not None:
                published[(uri, version)] = True
            cond.notify_all()

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, DiagnosticPublisher(ws, send), progress, lambda m: print(m, file=sys.stderr))
    scheduler.collect_when_quiet(QuietCollector())  # as the server does (lsp/main.py)
    steps: list[tuple[float, float, float, str, pstats.Stats | None]] = []  # (start, wall, cpu, what, profile)
    run_handle = asyncio.events.Handle._run

    def timed_run(handle) -> None:
        what = step_name(handle)
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
            steps.append((t, time.perf_counter() - t, spent, what, kept, cpu))

    async def run() -> float:
        ws.add_folder(ws_dir.as_uri(), ws_dir.name)
        client = None
        if edits:
            client = threading.Thread(target=keystrokes, daemon=True, args=(
                ws, asyncio.get_running_loop(), scheduler, ws_dir / open_file, shape, edits, published, cond, waits))
            client.start()
        if open_file is not None:
            path = ws_dir / open_file
            ws.open(path.as_uri(), 1, path.read_text(), "terraform")
            scheduler.schedule({path.as_uri()})
        else:
            scheduler.schedule()
        t0 = time.perf_counter()
        await asyncio.sleep(0.01)
        while not all(f.indexed for f in ws.folders) or scheduler._busy() or (client is not None and client.is_alive()):
            await asyncio.sleep(0.01)
        return t0

    marks: list[tuple[float, str, float]] = []
    unwatch = watch_pieces(marks) if pieces else lambda: None
    samples: list[tuple[float, str]] = []
    stop = threading.Event()
    if sample:
        interval = sys.getswitchinterval()
        sys.setswitchinterval(0.0001)
        threading.Thread(target=sampler, args=(samples, stop), daemon=True).start()
    asyncio.events.Handle._run = timed_run
    try:
        t0 = asyncio.run(run())
    finally:
        asyncio.events.Handle._run = run_handle
        unwatch()
        if sample:
            stop.set()
            sys.setswitchinterval(interval)
    return {"t0": t0, "steps": steps, "first": first_diagnostics[0] if first_diagnostics else None,
            "passes": scheduler.passes, "waits": waits, "pieces": pieces_of(steps, marks) if pieces else [],
            "samples": samples}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--open", choices=["leaf", "root", "none"], default="leaf")
    ap.add_argument("--over", type=float, default=5.0, help="steps with more CPU than this (ms) are listed")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="profile every step; print the N longest's top functions")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--edits", type=int, default=0, help="keystrokes typed from the first diagnostics on (see above)")
    ap.add_argument("--shape", default="newline", help="the edit shape of bench/shapes.py they type (root: value, "
                    "newline, comment, label, space; leaf: value)")
    ap.add_argument("--pieces", action="store_true", help="time the uninterruptible pieces of the background work (see above)")
    ap.add_argument("--sample", type=int, default=0, metavar="N", help="with --pieces: sample the loop thread's stack "
                    "every 0.2 ms (a switch interval of 0.1 ms) and print the N places most seen in the pieces over 0.5 ms")
    ap.add_argument("--workdir", type=Path, help="where to generate the workspace (default: a temporary directory)")
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-loop-steps-"))
    summary = generate(ws_dir, args.modules)
    open_file = {"leaf": summary["probes"]["leaf_edit"]["file"], "root": "main.tf", "none": None}[args.open]
    shape = next((s for s in (ROOT_SHAPES if args.open == "root" else LEAF_SHAPES) if s.name == args.shape), None)
    if args.edits and (open_file is None or shape is None):
        ap.error("--edits needs --open leaf or root, and a shape of that document")
    for run in range(args.runs):
        result = trace(ws_dir, open_file, args.profile, shape, args.edits, args.pieces, args.sample)
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
        for start, wall, cpu, what, *_ in sorted(sorted(long, key=lambda s: -s[2])[:20]):
            print(f"      at {start - t0:6.3f} s  cpu {cpu * 1000:6.1f} ms  wall {wall * 1000:6.1f} ms  {what}")
        for start, wall, cpu, what, profile, _ in sorted((s for s in steps if s[4] is not None), key=lambda s: -s[2])[:args.profile]:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).strip_dirs().sort_stats("cumulative").print_stats(25)
            print(f"--- step at {start - t0:.3f} s, cpu {cpu * 1000:.1f} ms (profiled), {what}\n{out.getvalue()}")
        if result["pieces"]:
            for name, part in (("before the first diagnostics", [p for p in result["pieces"] if first is None or p[0] < first]),
                               ("after them", [p for p in result["pieces"] if first is not None and p[0] >= first])):
                if not part:
                    continue
                ms = [p[1] * 1000 for p in part]
                print(f"    uninterruptible pieces {name}: {len(part)}, p50 {percentile(ms, 50):.3f}, p99 "
                      f"{percentile(ms, 99):.3f}, max {max(ms):.2f} ms; over 0.5 ms: {sum(1 for x in ms if x > 0.5)} "
                      f"({sum(x for x in ms if x > 0.5):.0f} ms); the longest by where they start and end:")
                by_places: dict[str, list[float]] = {}
                for _, seconds, start, end, *_ in part:
                    by_places.setdefault(f"{start} -> {end}", []).append(seconds * 1000)
                for places, xs in sorted(by_places.items(), key=lambda kv: -max(kv[1]))[:12]:
                    print(f"      {len(xs):6d}  p50 {percentile(xs, 50):6.3f}  max {max(xs):7.2f} ms  {places}")
                if result["samples"]:
                    long = [p for p in part if p[1] > 0.0005]
                    found: dict[str, int] = {}
                    k = 0
                    samples = result["samples"]
                    for piece in sorted(long, key=lambda p: p[4]):
                        while k < len(samples) and samples[k][0] < piece[4]:
                            k += 1
                        j = k
                        while j < len(samples) and samples[j][0] <= piece[5]:
                            found[samples[j][1]] = found.get(samples[j][1], 0) + 1
                            j += 1
                    print(f"    the loop thread's stack sampled in the pieces over 0.5 ms ({sum(found.values())} samples), the most seen:")
                    for where, n in sorted(found.items(), key=lambda kv: -kv[1])[:args.sample]:
                        print(f"      {n:5d}  {where}")
        waits = result["waits"]
        if waits:
            ms = [w * 1000 for w, _ in waits]
            print(f"    {len(waits)} {args.shape} keystrokes typed from the first diagnostics on: arrival -> handler "
                  f"p50 {percentile(ms, 50):.2f}, p95 {percentile(ms, 95):.2f}, max {max(ms):.2f} ms; by where the loop was:")
            places: dict[str, list[float]] = {}
            for wait, place in waits:
                places.setdefault(place, []).append(wait * 1000)
            for place, xs in sorted(places.items(), key=lambda kv: -sum(kv[1])):
                print(f"      {len(xs):4d}  p50 {percentile(xs, 50):6.2f}  max {max(xs):6.2f} ms  {place}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
