#!/usr/bin/env python3
"""Soak: does the server's memory stay flat under a long stream of random edits and hovers?

    python bench/soak.py [--modules 1000] [--minutes 30 | --seconds S] [--seed 0]
                         [--files 20] [--sample-every 10] [--json PATH] [--workdir bench/out/work]
                         [--memory-sample SECONDS]

A fresh `tfphi serve` on the generated workspace (bench/generate.py, seed 0), left to index
it; then, until the time is up, one step at a time (each waits for its answer):

- an edit: one character (any: letters, digits, punctuation, quotes, braces, `#`, a space,
  a tab, a new line, non-ASCII letters, an emoji) inserted at a random place of a random
  `.tf` file of a pool of --files files (the root's main.tf and files drawn by the seed),
  the file opened on its first edit; or the taking back of one earlier edit, drawn at
  random from those not yet taken back (a stack undone in random order). The text need not
  stay valid. Every didChange waits for the publishDiagnostics of its version;
- a hover at a random place of a random open document (a quarter of the steps).

At the end every edit left is taken back (the texts return to the files' bytes). The
server's resident memory (psutil) is sampled every --sample-every seconds from the end of
indexing. Reports the RSS after indexing, after the warm-up (the first minute; half the run
when it is shorter than two minutes), at the end, the growth after the warm-up in %, the
numbers of edits and hovers, and the failures: error responses, timeouts (--timeout s per
wait) and the server's exit. The steps depend on --seed alone (how many run depends on the
machine's speed).

With --memory-sample S, the server logs where its memory is every S seconds
(``TFPHI_MEMORY_SAMPLE``, server/tfphi/lsp/memory_sampler.py: RSS by mapping, Python's arenas,
glibc's heap, the host's tables); the report prints the first and last of those lines, and the
JSON holds them all (``memory_samples``).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from generate import generate  # noqa: E402
from lspsession import TFPHI, start_server, wait_indexed, with_server_stderr  # noqa: E402
from shapes import utf16_position  # noqa: E402

# what a user may type: printable ASCII, tab, new line, two non-ASCII letters and an emoji
# (two UTF-16 code units: a position after it counts 2); no "\r", a line break of its own in LSP
ALPHABET = [chr(c) for c in range(32, 127)] + ["\t", "\n", "é", "中", "😀"]


@dataclass
class Typed:
    """One character typed and not yet taken back: where it stands now (code points)."""
    doc: "Document"
    offset: int
    char: str


@dataclass
class Document:
    path: Path
    uri: str
    original: str
    text: str
    version: int = 0
    typed: list[Typed] = field(default_factory=list)


class Failures:
    def __init__(self) -> None:
        self.errors = self.timeouts = 0
        self.server_exit = False
        self.first: list[str] = []  # the first few, for the report

    def note(self, kind: str, what: str) -> None:
        if kind == "error":
            self.errors += 1
        else:
            self.timeouts += 1
        if len(self.first) < 10:
            self.first.append(f"{kind}: {what}")

    @property
    def total(self) -> int:
        return self.errors + self.timeouts + int(self.server_exit)


class RssSampler(threading.Thread):
    """The server's RSS in MiB every `every` seconds from `t0`: [(seconds, MiB)]."""

    def __init__(self, pid: int, t0: float, every: float) -> None:
        super().__init__(name="rss-sampler", daemon=True)
        import psutil

        self.proc = psutil.Process(pid)
        self.t0, self.every = t0, every
        self.samples: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def sample(self) -> float | None:
        try:
            mb = self.proc.memory_info().rss / 2**20
        except Exception:
            return None
        self.samples.append((round(time.perf_counter() - self.t0, 2), round(mb, 1)))
        return mb

    def run(self) -> None:
        k = 1
        while not self.stop.wait(max(0.0, self.t0 + k * self.every - time.perf_counter())):
            self.sample()
            k += 1


def run_soak(ws: Path, seconds: float, seed: int = 0, outdir: Path | None = None, timeout: float = 60.0,
             files: int = 20, sample_every: float | None = None, warmup: float | None = None,
             hover_share: float = 0.25, max_typed: int = 64, log=None) -> dict:
    """Soak the server on the workspace `ws` for `seconds` (see the module's docstring)."""
    outdir = Path(outdir or BENCH / "out" / "work")
    outdir.mkdir(parents=True, exist_ok=True)
    sample_every = sample_every or min(10.0, max(0.5, seconds / 10))
    warmup = warmup if warmup is not None else (60.0 if seconds >= 120 else seconds / 2)
    rng = random.Random(seed)
    all_tf = sorted(p for p in ws.rglob("*.tf") if p.is_file())
    pool_paths = [ws / "main.tf"] + rng.sample([p for p in all_tf if p != ws / "main.tf"],
                                               min(files - 1, len(all_tf) - 1))
    pool = [Document(p, p.as_uri(), p.read_text(encoding="utf-8"), p.read_text(encoding="utf-8"))
            for p in pool_paths]
    opened: list[Document] = []
    stack: list[Typed] = []
    failures = Failures()
    counts = {"edits": 0, "undos": 0, "hovers": 0, "opens": 0}
    edit_ms: list[float] = []
    stderr_path = outdir / f"serve_{ws.name}_soak.stderr"
    client, _, t_init = start_server(ws, outdir, "soak", timeout)
    sampler = None
    try:
        indexed = wait_indexed(client, t_init, timeout)
        client.drain()
        t0 = time.perf_counter()
        sampler = RssSampler(client.proc.pid, t0, sample_every)
        rss_after_index = sampler.sample()
        sampler.samples[0] = (0.0, sampler.samples[0][1])
        sampler.start()

        def alive() -> bool:
            if client.closed.is_set() or client.proc.poll() is not None:
                failures.server_exit = True
                return False
            return True

        def wait_diagnostics(doc: Document, fut, t_send: float, what: str, timed: bool = True) -> None:
            try:
                t_recv, _ = fut.result(timeout)
                if timed:
                    edit_ms.append((t_recv - t_send) * 1000)
            except FutureTimeout:
                client.cancel_expectation(fut)
                failures.note("timeout", f"no diagnostics for {doc.path.relative_to(ws)} v{doc.version} ({what})")
            except ConnectionError:
                alive()
            client.drain()

        def open_doc(doc: Document) -> None:
            doc.version = 1
            fut = client.expect_diagnostics(doc.uri, 1)
            t = client.notify("textDocument/didOpen", {"textDocument": {
                "uri": doc.uri, "languageId": "terraform", "version": 1, "text": doc.text}})
            opened.append(doc)
            counts["opens"] += 1
            wait_diagnostics(doc, fut, t, "didOpen", timed=False)  # an open is no edit

        def change(doc: Document, start: int, end: int, new: str, what: str) -> None:
            """Replace code points [start, end) of the document's text by `new`, as a didChange."""
            rng_ = {"start": utf16_position(doc.text, start), "end": utf16_position(doc.text, end)}
            doc.text = doc.text[:start] + new + doc.text[end:]
            doc.version += 1
            fut = client.expect_diagnostics(doc.uri, doc.version)
            t = client.notify("textDocument/didChange", {
                "textDocument": {"uri": doc.uri, "version": doc.version},
                "contentChanges": [{"range": rng_, "text": new}]})
            wait_diagnostics(doc, fut, t, what)

        def type_one() -> None:
            doc = rng.choice(pool)
            offset, char = rng.randint(0, len(doc.text)), rng.choice(ALPHABET)
            if doc not in opened:
                open_doc(doc)
            for t in doc.typed:
                if t.offset >= offset:
                    t.offset += 1
            typed = Typed(doc, offset, char)
            doc.typed.append(typed)
            stack.append(typed)
            counts["edits"] += 1
            change(doc, offset, offset, char, f"typed {char!r}")

        def take_back(typed: Typed) -> None:
            doc = typed.doc
            assert doc.text[typed.offset] == typed.char, "the soak lost track of its own edits"
            doc.typed.remove(typed)
            stack.remove(typed)
            for t in doc.typed:
                if t.offset > typed.offset:
                    t.offset -= 1
            counts["undos"] += 1
            change(doc, typed.offset, typed.offset + 1, "", f"took back {typed.char!r}")

        def hover() -> None:
            doc = rng.choice(opened)
            pos = utf16_position(doc.text, rng.randint(0, len(doc.text)))
            counts["hovers"] += 1
            _, fut = client.request_async("textDocument/hover", {"textDocument": {"uri": doc.uri}, "position": pos})
            try:
                _, msg = fut.result(timeout)
                if "error" in msg:
                    failures.note("error", f"hover {doc.path.relative_to(ws)}:{pos}: {msg['error']}")
            except FutureTimeout:
                failures.note("timeout", f"hover {doc.path.relative_to(ws)}:{pos}")
            except ConnectionError:
                alive()

        end = t0 + seconds
        last_log = t0
        edits_at_warm = None  # (how far the stream got in the warm-up: a loaded machine's first minute is shorter)
        while time.perf_counter() < end and alive():
            if edits_at_warm is None and time.perf_counter() - t0 >= warmup:
                edits_at_warm = counts["edits"] + counts["undos"]
            if opened and rng.random() < hover_share:
                hover()
            elif not stack or (len(stack) < max_typed and rng.random() < 0.5):
                type_one()
            else:
                take_back(stack[rng.randrange(len(stack))])
            if log and time.perf_counter() - last_log >= 60:
                last_log = time.perf_counter()
                log(f"[soak] {last_log - t0:.0f} s: {counts}, RSS {sampler.samples[-1][1]} MiB, "
                    f"{failures.total} failures")
        ran = time.perf_counter() - t0
        while stack and alive():
            take_back(stack[rng.randrange(len(stack))])
        restored = all(doc.text == doc.original for doc in pool)
        sampler.stop.set()
        sampler.join()
        rss_end = sampler.sample() if alive() else None
        curve = sampler.samples
        warm = next(((t, mb) for t, mb in curve if t >= warmup), curve[-1])
        growth = None if rss_end is None else round((rss_end - warm[1]) / warm[1] * 100, 1)
        return {
            "modules": sum(1 for p in (ws / "modules").iterdir()) + 1, "seconds": round(ran, 1), "seed": seed,
            "files": len(pool), "index_s": indexed["index_s"],
            "rss_after_index_mb": round(rss_after_index, 1) if rss_after_index else None,
            "warm_s": warm[0], "rss_warm_mb": warm[1], "edits_at_warm": edits_at_warm, "rss_end_mb": round(rss_end, 1) if rss_end else None,
            "rss_max_mb": max(mb for _, mb in curve), "growth_pct": growth,
            "edits": counts["edits"] + counts["undos"], "typed": counts["edits"], "taken_back": counts["undos"],
            "hovers": counts["hovers"], "opened": counts["opens"], "texts_restored": restored,
            "failures": failures.total, "errors": failures.errors, "timeouts": failures.timeouts,
            "server_exit": failures.server_exit, "first_failures": failures.first,
            "edit_p50_ms": round(sorted(edit_ms)[len(edit_ms) // 2], 2) if edit_ms else None,
            "edit_p99_ms": round(sorted(edit_ms)[min(len(edit_ms) - 1, int(len(edit_ms) * 0.99))], 2) if edit_ms else None,
            "rss_curve": curve,
            "memory_samples": memory_samples(stderr_path),
        }
    except Exception as exc:
        raise with_server_stderr(exc, stderr_path) from exc
    finally:
        if sampler is not None:
            sampler.stop.set()
        client.close()


def memory_samples(stderr_path: Path) -> list[str]:
    """The lines the server's memory sampler wrote (``TFPHI_MEMORY_SAMPLE``), if it ran."""
    try:
        text = stderr_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.startswith("tfphi memory ")]


def print_soak(r: dict) -> None:
    print(f"soak: {r['modules']} modules, {r['seconds'] / 60:.1f} min, seed {r['seed']}, {r['files']} files "
          f"in the pool ({r['opened']} opened); indexed in {r['index_s']} s")
    print(f"RSS MiB: after indexing {r['rss_after_index_mb']}, at {r['warm_s']:.0f} s {r['rss_warm_mb']} "
          f"({r.get('edits_at_warm')} edits in), "
          f"at the end {r['rss_end_mb']} (max {r['rss_max_mb']}); growth after the warm-up {r['growth_pct']}%")
    print(f"{r['edits']} edits ({r['typed']} typed, {r['taken_back']} taken back; texts restored: "
          f"{r['texts_restored']}), {r['hovers']} hovers; edit -> diagnostics p50 {r['edit_p50_ms']} ms, "
          f"p99 {r['edit_p99_ms']} ms")
    print(f"failures: {r['failures']} ({r['errors']} error responses, {r['timeouts']} timeouts, "
          f"server exit: {r['server_exit']})" + "".join(f"\n  {f}" for f in r["first_failures"]))
    print("RSS curve (s, MiB): " + ", ".join(f"{t:.1f} {mb:.0f}" for t, mb in r["rss_curve"]))
    samples = r.get("memory_samples") or []
    for line in samples[:1] + samples[-1:] if len(samples) > 1 else samples:
        print(line)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="tfphi soak: memory under random edits and hovers")
    ap.add_argument("--modules", type=int, default=1000, help="workspace size (default 1000)")
    ap.add_argument("--minutes", type=float, default=30.0, help="how long to soak (default 30)")
    ap.add_argument("--seconds", type=float, default=None, help="how long to soak, in seconds (overrides --minutes)")
    ap.add_argument("--seed", type=int, default=0, help="the steps' random seed (default 0)")
    ap.add_argument("--files", type=int, default=20, help="files in the pool edited (default 20)")
    ap.add_argument("--sample-every", type=float, default=None, help="seconds between RSS samples (default 10)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per wait before it counts as a failure")
    ap.add_argument("--workdir", type=Path, default=BENCH / "out" / "work")
    ap.add_argument("--json", type=Path, default=None, help="also write the result as JSON")
    ap.add_argument("--memory-sample", type=float, default=None, metavar="SECONDS",
                    help="the server logs where its memory is every SECONDS (TFPHI_MEMORY_SAMPLE)")
    ap.add_argument("--cmd", default=None, help='command that runs tfphi (default "<this python> -m tfphi")')
    args = ap.parse_args(argv)
    if args.cmd:
        import shlex

        TFPHI[:] = shlex.split(args.cmd)
    if args.memory_sample:
        os.environ["TFPHI_MEMORY_SAMPLE"] = str(args.memory_sample)  # (the server inherits the environment)
    ws = args.workdir / f"ws_{args.modules}"
    generate(ws, args.modules, seed=0)
    result = run_soak(ws, args.seconds if args.seconds is not None else args.minutes * 60, seed=args.seed,
                      outdir=args.workdir, timeout=args.timeout, files=args.files, sample_every=args.sample_every,
                      log=lambda m: print(m, file=sys.stderr, flush=True))
    print_soak(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["failures"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
