#!/usr/bin/env python3
"""tfphi benchmark: cold analysis, live editing through the real server, hover, and a peer.

    python bench/run.py [--sizes 10,100,1000] [--edits 200] [--hovers 100] [--runs 3]
                        [--no-peer] [--big 10000] [--soak-minutes 0]
                        [--json bench/out/results.json] [--workdir bench/out/work]

Phases (each one's failure is recorded in "errors" and the others still run):
 1. generate  the synthetic workspaces (bench/generate.py, seed 0) under --workdir;
 2. cold      `python -m tfphi check DIR --format json --fail-on never` per size, as a
              child process: wall time (best of --runs) and the child's peak RSS (max over
              the runs; read with os.wait4, which reports the reaped child's own rusage);
              diagnostics counted from the JSON output;
 3. lsp       `python -m tfphi serve` over stdio (bench/lspclient.py) in the largest and the
              smallest workspace, three fresh servers each: one indexes the workspace (index
              time, its resident memory then, textDocument/hover latency); one edits a leaf
              module and one the root module, starting as soon as the server's first
              publishDiagnostics arrive (the initial analysis still running): didChange ->
              versioned publishDiagnostics latency per keystroke, for every edit shape of
              bench/shapes.py (a value, a new line between blocks, a `#`, a block label, a
              space), each keystroke taken back by the next; ratios largest/smallest;
              then the first hover: a fresh server, a leaf's file opened right after
              `initialized`, seconds from didOpen to the first hover with contents;
 3b. big      with --big N (default 10,000; 0 skips): that workspace's cold check against
              a bare tree-sitter parse of its files, and the server's RSS after indexing it;
 3c. soak     with --soak-minutes M: bench/soak.py on the largest workspace;
 4. peer      python-hcl2 parsing every .tf file of the largest workspace in-process (best of
              --runs), against tfphi's full cold analysis of the same workspace (--no-peer skips);
 5. corpus    with --corpus DIR (real module repositories): cold `tfphi check DIR` against a
              bare tree-sitter parse of the same files (bench/bareparse.py), both child
              processes; and `tfphi check` of DIR/terraform-aws-rds/examples/complete-postgres
              against Checkov's variable rendering of it (bench/checkov_render.py, run by the
              Python that has checkov); both ratios in wall time (the targets) and in CPU time
              (user + system of each child: a busy machine moves it less);
 6. targets   every goal of issues 23 and 15 beside its figure with PASS / MISS ("not
              measured: ..." when its input is missing).

Prints a table and writes everything as JSON. Exit 0 when every phase ran, 1 otherwise;
a MISS does not change the exit code.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import threading
import time
import traceback
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from generate import generate  # noqa: E402
from lspclient import LspClient  # noqa: E402
from lspsession import (TFPHI, child_env, server_rss_mb, start_server, wait_first_diagnostics,  # noqa: E402
                        wait_indexed, with_server_stderr)
from shapes import LEAF_SHAPES, ROOT_SHAPES, end_of_insert, locate  # noqa: E402
from soak import run_soak  # noqa: E402


TARGETS = {
    "cold_wall_s": 3.0,        # cold analysis of 1,000 modules, seconds (<=)
    "cold_rss_mb": 250.0,      # its peak RSS, MiB (<=)
    "edit_p50_ms": 15.0,       # edit -> diagnostics at 1,000 modules (<=)
    "edit_p99_ms": 60.0,
    "edit_ratio": 1.5,         # 1,000-module figure / 10-module figure (<=)
    "hover_p99_ms": 20.0,      # (<=)
    "peer_ratio": 5.0,         # hcl2 parse time / tfphi full analysis time (>=)
    "server_rss_mb": 250.0,    # the server's resident memory after indexing 1,000 modules (<=)
    "corpus_ratio": 1.5,       # cold check of a real corpus / bare tree-sitter parse of its files (<=)
    "checkov_ratio": 40.0,     # Checkov's variable rendering / tfphi check, terraform-aws-rds example (>=)
}

TARGETS_23 = {  # issue 23 ("One renovation")
    "shape_p50_ms": 10.0,      # root edit -> diagnostics at 1,000 modules, every shape (<=)
    "shape_p99_ms": 60.0,
    "shape_ratio": 1.5,        # p50 at 1,000 modules / p50 at 10, every shape (<=)
    "leaf_p50_ms": 5.0,        # leaf edit -> diagnostics at 1,000 modules (<=)
    "first_hover_s": 1.0,      # didOpen of a leaf's file -> first hover with contents, fresh server, 1,000 modules
    "big_ratio": 3.0,          # cold check of 10,000 modules / bare tree-sitter parse of its files (<=)
    "big_rss_mb": 400.0,       # that check's peak RSS (<=)
    "big_server_rss_mb": 500.0,  # the server's RSS after indexing 10,000 modules (<=)
    "soak_growth_pct": 10.0,   # RSS growth after the first minute of the soak (<=)
    "soak_failures": 0,        # error responses, timeouts, server exit (<=)
}



def compile_bytecode() -> str:
    """Compiles tfphi's modules to bytecode before anything is timed, as ``pip install`` of a
    wheel does. A source checkout run with PYTHONDONTWRITEBYTECODE (this project's machines
    set it) would otherwise compile every module again in every child process: about a
    third of a small ``check``'s start-up, which no installed tfphi pays."""
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "server" / "tfphi")],
                          capture_output=True, text=True, env=child_env())
    return "compiled ahead" if done.returncode == 0 else f"not compiled: {done.stderr.strip()[:200]}"


def percentile(samples: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100)."""
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def latency_stats(samples_s: list[float], timeouts: int = 0, pcts=(50, 95, 99)) -> dict:
    out = {"n": len(samples_s), "timeouts": timeouts}
    for p in pcts:
        v = percentile(samples_s, p)
        out[f"p{p}_ms"] = None if v is None else round(v * 1000, 3)
    out["mean_ms"] = round(sum(samples_s) / len(samples_s) * 1000, 3) if samples_s else None
    out["max_ms"] = round(max(samples_s) * 1000, 3) if samples_s else None
    return out


# --------------------------------------------------------------------------- cold analysis

def run_measured(cmd: list[str], stdout_path: Path, stderr_path: Path, cwd: Path,
                 timeout: float, peaks: dict | None = None) -> tuple[float, float, int]:
    """Run `cmd`; return (wall seconds, peak RSS in MiB, exit code).

    os.wait4 returns the rusage of exactly this child (plus the descendants it reaped), so
    its ru_maxrss is this run's peak, independent of the other runs in this process. That is
    the largest single process's peak: a command that forks a helper process (tfphi's check
    no longer does; the measure stays honest if one ever does) has two at once, so the sum of the process tree's RSS is also sampled every few
    milliseconds (pages the two share are counted twice: an upper bound) and the larger
    figure is reported; `peaks`, when given, receives both ("single_mb", "tree_mb") and the
    child's CPU seconds, user + system, from the same rusage ("cpu_s": what a loaded machine
    changes far less than the wall time; the corpus and Checkov rows report both ratios)."""
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd, env=child_env())
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        tree_peak = [0]
        sampler = threading.Thread(target=_sample_tree_rss, args=(proc.pid, tree_peak), daemon=True)
        sampler.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - t0
        sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    rss_kb = usage.ru_maxrss / (1024 if sys.platform == "darwin" else 1)  # bytes on macOS, KiB on Linux
    if peaks is not None:
        peaks.update(single_mb=round(rss_kb / 1024, 1), tree_mb=round(tree_peak[0] / (1 << 20), 1),
                     cpu_s=usage.ru_utime + usage.ru_stime)
    return wall, max(rss_kb / 1024, tree_peak[0] / (1 << 20)), proc.returncode


def _sample_tree_rss(pid: int, peak: list[int], every: float = 0.005) -> None:
    """Keeps in ``peak[0]`` the largest sum of RSS bytes of ``pid`` and its descendants seen,
    until it exits (Linux's /proc; elsewhere nothing is sampled)."""
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

    def tree_rss(p: int) -> int:
        with open(f"/proc/{p}/statm", "rb") as f:
            total = int(f.read().split()[1]) * page
        try:
            with open(f"/proc/{p}/task/{p}/children", "rb") as f:
                children = [int(c) for c in f.read().split()]
        except OSError:
            children = []
        for child in children:
            try:
                total += tree_rss(child)
            except (OSError, ValueError, IndexError):
                pass  # it exited meanwhile
        return total

    while True:
        try:
            total = tree_rss(pid)
        except (OSError, ValueError, IndexError):
            return
        if total == 0:
            return  # a zombie: it exited
        peak[0] = max(peak[0], total)
        time.sleep(every)


def measure_cold(ws: Path, runs: int, outdir: Path, timeout: float) -> dict:
    cmd = TFPHI + ["check", str(ws), "--format", "json", "--fail-on", "never"]
    walls, rsss, singles, trees, cpus = [], [], [], [], []
    stdout_path, stderr_path = outdir / f"check_{ws.name}.json", outdir / f"check_{ws.name}.stderr"
    for _ in range(runs):
        peaks: dict = {}
        wall, rss, rc = run_measured(cmd, stdout_path, stderr_path, REPO, timeout, peaks)
        singles.append(peaks["single_mb"])
        trees.append(peaks["tree_mb"])
        cpus.append(peaks["cpu_s"])
        if rc != 0:
            tail = stderr_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"`{' '.join(cmd[1:])}` exited {rc}:\n{tail}")
        walls.append(wall)
        rsss.append(rss)
    report = json.loads(stdout_path.read_text())
    diags = report["diagnostics"]
    by_code: dict[str, int] = {}
    by_severity: dict[str, int] = {}
    for d in diags:
        by_code[d.get("code")] = by_code.get(d.get("code"), 0) + 1
        by_severity[d.get("severity")] = by_severity.get(d.get("severity"), 0) + 1
    return {
        "wall_s_best": round(min(walls), 4),
        "wall_s_runs": [round(w, 4) for w in walls],
        "cpu_s_best": round(min(cpus), 4), "cpu_s_runs": [round(c, 4) for c in cpus],
        "peak_rss_mb": round(max(rsss), 1),
        "peak_rss_mb_runs": [round(r, 1) for r in rsss],
        # the two figures the peak is the larger of: the largest single process (wait4), and
        # the sum over the process tree sampled every 5 ms (a forked child's shared pages twice)
        "peak_rss_mb_single": max(singles), "peak_rss_mb_tree": max(trees),
        "diagnostics": len(diags),
        "diagnostics_by_code": dict(sorted(by_code.items(), key=lambda kv: str(kv[0]))),
        "diagnostics_by_severity": dict(sorted(by_severity.items(), key=lambda kv: str(kv[0]))),
    }


# --------------------------------------------------------------------------- LSP

def open_document(client: LspClient, path: Path, timeout: float) -> tuple[str, list[str], float]:
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8")
    fut = client.expect_diagnostics(uri, 1)
    t0 = client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "terraform", "version": 1, "text": text}})
    try:
        t1, _ = fut.result(timeout)
    except FutureTimeout:
        client.cancel_expectation(fut)
        raise TimeoutError(f"no publishDiagnostics with version 1 for {path.name} within {timeout:.0f} s "
                           "after didOpen (the server must include `version`)")
    return uri, text.splitlines(), t1 - t0


def shape_latencies(client: LspClient, uri: str, text: str, shapes, edits: int, timeout: float) -> dict:
    """Every shape's keystroke typed at its place and taken back by the next change, shape
    after shape (round robin, so each shape meets the start-up tail alike); each didChange
    timed until the publishDiagnostics carrying that document version arrives. `edits`
    changes per shape (rounded up to even: the text returns to the original). Returns
    {shape name: latency stats}."""
    carets = [(shape, locate(shape, text)) for shape in shapes]
    samples: dict[str, list[float]] = {shape.name: [] for shape in shapes}
    timeouts = dict.fromkeys(samples, 0)
    version = 1

    def change(start: dict, end: dict, new_text: str) -> tuple[float, object]:
        nonlocal version
        version += 1
        fut = client.expect_diagnostics(uri, version)
        t = client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": start, "end": end}, "text": new_text}]})
        return t, fut

    for i in range((edits + edits % 2) // 2):
        for shape, start in carets:
            typed_end = end_of_insert(start, shape.insert)
            for start_, end_, new_text in ((start, start, shape.insert), (start, typed_end, "")):
                t_send, fut = change(start_, end_, new_text)
                try:
                    t_recv, _ = fut.result(timeout)
                    if len(samples[shape.name]) < edits:
                        samples[shape.name].append(t_recv - t_send)
                except FutureTimeout:
                    client.cancel_expectation(fut)
                    timeouts[shape.name] += 1
                    if sum(timeouts.values()) >= 5:
                        raise TimeoutError(f"{sum(timeouts.values())} edits without versioned diagnostics "
                                           f"within {timeout:.0f} s each ({timeouts})")
                client.drain()
    out = {}
    for shape, start in carets:
        stats = latency_stats(samples[shape.name], timeouts[shape.name])
        stats["first_ms"] = [round(x * 1000, 1) for x in samples[shape.name][:5]]  # where the start-up tail shows
        stats["at"] = f"{start['line'] + 1}:{start['character'] + 1}"
        stats["insert"] = shape.insert
        out[shape.name] = stats
    return out


def hover_latencies(client: LspClient, uri: str, line: int, character: int, count: int, timeout: float) -> dict:
    samples, empty = [], 0
    params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    for _ in range(count):
        t_send, fut = client.request_async("textDocument/hover", params)
        t_recv, msg = fut.result(timeout)
        if "error" in msg:
            raise RuntimeError(f"hover failed: {msg['error']}")
        if not msg.get("result"):
            empty += 1
        samples.append(t_recv - t_send)
    stats = latency_stats(samples, pcts=(50, 95, 99))
    stats["empty_results"] = empty
    return stats


PAUSE_S = 0.7  # a person's pause between two keystrokes: longer than the server's quiet moment (lsp/collector.py)
# Keystrokes typed PAUSE_S apart after the back-to-back ones: at 1,000 modules the first analysis
# ends during the first few (it goes on in the pauses), and the next meets whatever the server does
# once it is quiet: before session 12, a full collection of the heap (134-726 ms).
PAUSED_KEYSTROKES = 8


def edit_session(ws: Path, file: str, shapes, doc: str, edits: int, outdir: Path, timeout: float,
                 paused: int = 0) -> dict:
    """A fresh server; as soon as its first diagnostics arrive (the initial analysis of the
    rest of the workspace still running), open `file` and type every shape `edits` times.
    `paused` > 0: then `paused` keystrokes of the first shape, each `PAUSE_S` after the last one's
    diagnostics (``paused_ms``)."""
    client, init_s, t_init = start_server(ws, outdir, doc, timeout)
    try:
        first = wait_first_diagnostics(client, t_init, timeout)
        uri, lines, open_s = open_document(client, ws / file, timeout)
        client.drain()
        text = (ws / file).read_text(encoding="utf-8")
        per_shape = shape_latencies(client, uri, text, shapes, edits, timeout)
        out = {"file": file, "first_diagnostics_s": round(first, 4), "open_ms": round(open_s * 1000, 3),
               "initialize_s": round(init_s, 4), "shapes": per_shape}
        if paused:
            version = 2 * ((edits + edits % 2) // 2) * len(shapes) + 1  # (every shape's keystrokes, taken back)
            start = locate(shapes[0], text)
            samples = []
            for i in range(paused + paused % 2):
                time.sleep(PAUSE_S)
                version += 1
                fut = client.expect_diagnostics(uri, version)
                end = start if i % 2 == 0 else end_of_insert(start, shapes[0].insert)
                sent = client.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": start, "end": end}, "text": shapes[0].insert if i % 2 == 0 else ""}]})
                samples.append(round((fut.result(timeout)[0] - sent) * 1000, 1))
                client.drain()
            out["paused_ms"] = samples
        return out
    except Exception as exc:
        raise with_server_stderr(exc, outdir / f"serve_{ws.name}_{doc}.stderr") from exc
    finally:
        client.close()


def index_session(ws: Path, probe: dict, hovers: int, outdir: Path, timeout: float) -> dict:
    """A fresh server left to index the whole workspace: index time, resident memory after
    it (and after a full collection would not matter: CPython returns little to the OS), hovers."""
    client, init_s, t_init = start_server(ws, outdir, "index", timeout)
    try:
        indexed = wait_indexed(client, t_init, timeout)
        result = {"initialize_s": round(init_s, 4), **indexed, "rss_after_index_mb": server_rss_mb(client)}
        client.drain()
        uri, _, open_s = open_document(client, ws / probe["file"], timeout)
        result["open_ms"] = round(open_s * 1000, 3)
        client.drain()
        result["hover"] = hover_latencies(client, uri, probe["line"], probe["character"], hovers, timeout)
        result["hover"]["target"] = f"{probe['file']}:{probe['line'] + 1}"
        result["rss_after_hovers_mb"] = server_rss_mb(client)
        return result
    except Exception as exc:
        raise with_server_stderr(exc, outdir / f"serve_{ws.name}_index.stderr") from exc
    finally:
        client.close()


def measure_lsp(ws: Path, summary: dict, edits: int, hovers: int, outdir: Path, timeout: float) -> dict:
    """Three fresh servers: one indexes (index time, RSS, hover); one edits the leaf module and
    one the root module, each from its first diagnostics on (the tail users feel on opening a
    folder), every edit shape of bench/shapes.py in turn. `leaf_edit` and `root_edit` are the
    `value` shape's figures (the shape issue 15 measured), with the session's own figures."""
    probes = summary["probes"]
    result = index_session(ws, probes["hover"], hovers, outdir, timeout)
    for doc, file, shapes in (("leaf", probes["leaf_edit"]["file"], LEAF_SHAPES), ("root", "main.tf", ROOT_SHAPES)):
        session = edit_session(ws, file, shapes, doc, edits, outdir, timeout, PAUSED_KEYSTROKES if doc == "leaf" else 0)
        result[f"{doc}_shapes"] = session["shapes"]
        result[f"{doc}_edit"] = {**session["shapes"]["value"], "target": f"{file}:{session['shapes']['value']['at']}",
                                 **{k: v for k, v in session.items() if k not in ("shapes", "file")}}
    return result


def measure_first_hover(ws: Path, probe: dict, outdir: Path, timeout: float, pause: float = 0.01) -> dict:
    """A fresh server; right after `initialized`, didOpen the probe's file (a leaf module's
    main.tf) and ask for a hover on its `var.engine_version` again and again (one request at
    a time, `pause` s apart) until one has contents: seconds from didOpen to that response.
    Then, once the workspace is indexed, the same hover again: `complete` says whether the
    first answer was already the final one."""
    client, init_s, t_init = start_server(ws, outdir, "first_hover", timeout)
    try:
        path = ws / probe["file"]
        uri = path.as_uri()
        t_open = client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "terraform", "version": 1, "text": path.read_text(encoding="utf-8")}})
        params = {"textDocument": {"uri": uri}, "position": {"line": probe["line"], "character": probe["character"]}}
        attempts = empty = errors = 0
        first = None
        while first is None:
            if time.perf_counter() - t_open > timeout:
                raise TimeoutError(f"no hover with contents within {timeout:.0f} s of didOpen "
                                   f"({attempts} attempts, {empty} empty, {errors} errors)")
            _, fut = client.request_async("textDocument/hover", params)
            t_recv, msg = fut.result(timeout)
            attempts += 1
            if "error" in msg:
                errors += 1
            elif hover_text(msg.get("result")):
                first = (t_recv, hover_text(msg["result"]))
                break
            else:
                empty += 1
            time.sleep(pause)
        indexed = wait_indexed(client, t_init, timeout)
        final = hover_text(client.request("textDocument/hover", params, timeout=timeout))
        return {"first_hover_s": round(first[0] - t_open, 4), "attempts": attempts, "empty": empty,
                "errors": errors, "complete": first[1] == final, "index_s": indexed["index_s"],
                "initialize_s": round(init_s, 4), "target": f"{probe['file']}:{probe['line'] + 1}",
                "first_answer": first[1][:200], "final_answer": final[:200]}
    except Exception as exc:
        raise with_server_stderr(exc, outdir / f"serve_{ws.name}_first_hover.stderr") from exc
    finally:
        client.close()


def hover_text(result) -> str:
    """A hover result's contents as one string ("" for none): MarkupContent, MarkedString or a list."""
    if not result:
        return ""
    contents = result.get("contents")
    items = contents if isinstance(contents, list) else [contents]
    return "\n".join((c.get("value", "") if isinstance(c, dict) else str(c or "")) for c in items).strip()


def measure_big(ws: Path, modules: int, runs: int, outdir: Path, timeout: float) -> dict:
    """The `modules`-module workspace (bench/generate.py, seed 0): cold `tfphi check` against a
    bare tree-sitter parse of the same files (bench/bareparse.py), both child processes, best
    of `runs`; then a fresh server left to index it: index time and its resident memory."""
    summary = generate(ws, modules, seed=0)
    corpus = measure_corpus(ws, runs, outdir, timeout)
    client, init_s, t_init = start_server(ws, outdir, "big_index", timeout)
    try:
        indexed = wait_indexed(client, t_init, timeout)
        rss = server_rss_mb(client)
    except Exception as exc:
        raise with_server_stderr(exc, outdir / f"serve_{ws.name}_big_index.stderr") from exc
    finally:
        client.close()
    return {"modules": summary["modules"], "files": summary["files"], "bytes": summary["bytes"],
            "bare_parse_s_best": corpus["bare_parse_s_best"], "bare_parse_s_runs": corpus["bare_parse_s_runs"],
            "check": corpus["check"], "ratio": corpus["ratio"],
            "server_index_s": indexed["index_s"], "server_rss_after_index_mb": rss}


# --------------------------------------------------------------------------- peer

def measure_peer(ws: Path, runs: int) -> dict:
    try:
        import hcl2
    except ImportError as exc:
        raise RuntimeError("python-hcl2 is not installed: pip install python-hcl2 (or --no-peer)") from exc
    files = sorted(ws.rglob("*.tf"))
    times, failures = [], 0
    for _ in range(runs):
        failures = 0
        t0 = time.perf_counter()
        for path in files:
            with open(path, encoding="utf-8") as fh:
                try:
                    hcl2.load(fh)
                except Exception:
                    failures += 1
        times.append(time.perf_counter() - t0)
    return {"tool": f"python-hcl2 {getattr(hcl2, '__version__', '?')}", "files": len(files),
            "parse_s_best": round(min(times), 4), "parse_s_runs": [round(t, 4) for t in times],
            "parse_failures": failures}


# --------------------------------------------------------------------------- real corpus

RDS_EXAMPLE = Path("terraform-aws-rds") / "examples" / "complete-postgres"


def measure_corpus(corpus: Path, runs: int, outdir: Path, timeout: float) -> dict:
    """Cold `tfphi check` of a real corpus against a bare tree-sitter parse of the same files,
    both child processes (bench/bareparse.py), best of `runs`."""
    bare_cmd = [sys.executable, str(BENCH / "bareparse.py"), str(corpus)]
    bare_walls, bare_cpus, bare = [], [], None
    for _ in range(runs):
        out, err = outdir / "bareparse.json", outdir / "bareparse.stderr"
        peaks: dict = {}
        wall, rss, rc = run_measured(bare_cmd, out, err, REPO, timeout, peaks)
        if rc != 0:
            raise RuntimeError(f"bareparse exited {rc}: {err.read_text(errors='replace')[-2000:]}")
        bare_walls.append(wall)
        bare_cpus.append(peaks["cpu_s"])
        bare = json.loads(out.read_text())
    cold = measure_cold(corpus, runs, outdir, timeout)
    best_bare = min(bare_walls)
    return {"dir": str(corpus), "files": bare["files"], "bytes": bare["bytes"],
            "bare_parse_s_best": round(best_bare, 4), "bare_parse_s_runs": [round(w, 4) for w in bare_walls],
            "bare_parse_cpu_s_best": round(min(bare_cpus), 4),
            "bare_parse_cpu_s_runs": [round(c, 4) for c in bare_cpus],
            "check": cold, "ratio": round(cold["wall_s_best"] / best_bare, 3),
            "cpu_ratio": round(cold["cpu_s_best"] / min(bare_cpus), 3)}


def checkov_python(explicit: str | None) -> str | None:
    """The interpreter that has checkov: --checkov-python, else the one of a `checkov` script
    beside this Python or on PATH (checkov pins its own python-hcl2 fork, so it usually lives
    in a virtual environment of its own)."""
    if explicit:
        return explicit
    import shutil

    for candidate in (Path(sys.executable).parent / "checkov", shutil.which("checkov")):
        if candidate and Path(candidate).is_file():
            first = Path(candidate).read_bytes()[:200].split(b"\n", 1)[0]
            if first.startswith(b"#!"):
                return first[2:].decode().strip().split()[0]
    return None


def measure_checkov(example: Path, runs: int, outdir: Path, timeout: float, python: str | None) -> dict:
    """`tfphi check` of the example against Checkov building its graph with variables rendered
    (bench/checkov_render.py, a child process of checkov's interpreter), best of `runs` each."""
    tfphi = measure_cold(example, runs, outdir, timeout)
    result = {"example": str(example), "tfphi": tfphi}
    if python is None:
        result["checkov"] = None
        result["note"] = "checkov not installed: pip install -e '.[bench-checkov]' (or --checkov-python)"
        return result
    cmd = [python, str(BENCH / "checkov_render.py"), str(example)]
    walls, rsss, cpus = [], [], []
    out, err = outdir / "checkov_render.json", outdir / "checkov_render.stderr"
    for _ in range(runs):
        peaks: dict = {}
        wall, rss, rc = run_measured(cmd, out, err, REPO, timeout, peaks)
        if rc != 0:
            raise RuntimeError(f"checkov exited {rc}: {err.read_text(errors='replace')[-2000:]}")
        walls.append(wall)
        rsss.append(rss)
        cpus.append(peaks["cpu_s"])
    rendered = json.loads(out.read_text())
    result["checkov"] = {"wall_s_best": round(min(walls), 4), "wall_s_runs": [round(w, 4) for w in walls],
                         "cpu_s_best": round(min(cpus), 4), "cpu_s_runs": [round(c, 4) for c in cpus],
                         "peak_rss_mb": round(max(rsss), 1), "version": rendered.get("version"),
                         "engine": rendered.get("engine")}
    result["ratio"] = round(min(walls) / tfphi["wall_s_best"], 2)
    result["cpu_ratio"] = round(min(cpus) / tfphi["cpu_s_best"], 2)
    return result


# --------------------------------------------------------------------------- targets and output

def evaluate_targets(res: dict, large: int, small: int) -> list[dict]:
    """Every goal of issue 15 beside its figure (and two of the first plan's, marked as such); a
    figure that was not measured says why."""
    L = str(large)
    cold = res["cold"].get(L) or {}
    lsp = res["lsp"].get(L) or {}
    rows = []

    def row(name, value, target, op, why=None, goal="issue 15"):
        ok = None if value is None else (value <= target if op == "<=" else value >= target)
        rows.append({"name": name, "value": value, "target": f"{op} {target:g}", "goal": goal,
                     "status": (why or "n/a") if ok is None else ("PASS" if ok else "MISS")})

    for doc in ("leaf", "root"):
        stats = lsp.get(f"{doc}_edit") or {}
        row(f"{doc} edit->diagnostics p50 ms ({large})", stats.get("p50_ms"), TARGETS["edit_p50_ms"], "<=")
        row(f"{doc} edit->diagnostics p99 ms ({large})", stats.get("p99_ms"), TARGETS["edit_p99_ms"], "<=")
        if large != small:
            row(f"{doc} edit p50 ratio {large}/{small}", res["ratios"].get(f"{doc}_edit_p50"),
                TARGETS["edit_ratio"], "<=")
    row(f"cold check wall s ({large})", cold.get("wall_s_best"), TARGETS["cold_wall_s"], "<=", goal="first plan")
    row(f"cold check peak RSS MiB ({large})", cold.get("peak_rss_mb"), TARGETS["cold_rss_mb"], "<=")
    row(f"server RSS after indexing MiB ({large})", lsp.get("rss_after_index_mb"), TARGETS["server_rss_mb"], "<=")
    row(f"hover p99 ms ({large})", (lsp.get("hover") or {}).get("p99_ms"), TARGETS["hover_p99_ms"], "<=")
    corpus = res.get("corpus") or {}
    row("corpus check / bare parse", corpus.get("ratio"), TARGETS["corpus_ratio"], "<=",
        why=None if corpus else "not measured: pass --corpus DIR")
    checkov = res.get("checkov") or {}
    why = None
    if not checkov:
        why = "not measured: pass --corpus DIR"
    elif checkov.get("checkov") is None:
        why = "not measured: " + checkov.get("note", "checkov missing")
    row("checkov render / tfphi check (rds)", checkov.get("ratio"), TARGETS["checkov_ratio"], ">=", why=why)
    if res["peer"] is not None:
        row(f"hcl2 parse / tfphi check ({large})", res["peer"].get("ratio"), TARGETS["peer_ratio"], ">=", goal="first plan")

    # issue 23
    g = "issue 23"
    for name in (shape.name for shape in ROOT_SHAPES):
        stats = (lsp.get("root_shapes") or {}).get(name) or {}
        row(f"root {name} p50 ms ({large})", stats.get("p50_ms"), TARGETS_23["shape_p50_ms"], "<=", goal=g)
        row(f"root {name} p99 ms ({large})", stats.get("p99_ms"), TARGETS_23["shape_p99_ms"], "<=", goal=g)
        if large != small:
            row(f"root {name} p50 ratio {large}/{small}", res["ratios"].get(f"root_{name}_p50"),
                TARGETS_23["shape_ratio"], "<=", goal=g)
    row(f"leaf edit p50 ms ({large})", (lsp.get("leaf_edit") or {}).get("p50_ms"), TARGETS_23["leaf_p50_ms"], "<=",
        goal=g)
    first = res.get("first_hover") or {}
    row(f"first hover after didOpen s ({large})", first.get("first_hover_s"), TARGETS_23["first_hover_s"], "<=",
        why=None if first else "not measured (the phase failed)", goal=g)
    big = res.get("big") or {}
    why = None if big else ("not measured: --big 0" if res["meta"].get("big") == 0 else "not measured (the phase failed)")
    n = big.get("modules") or res["meta"].get("big") or 10000
    row(f"cold check / bare parse ({n})", big.get("ratio"), TARGETS_23["big_ratio"], "<=", why=why, goal=g)
    row(f"cold check peak RSS MiB ({n})", (big.get("check") or {}).get("peak_rss_mb"), TARGETS_23["big_rss_mb"],
        "<=", why=why, goal=g)
    row(f"server RSS after indexing MiB ({n})", big.get("server_rss_after_index_mb"),
        TARGETS_23["big_server_rss_mb"], "<=", why=why, goal=g)
    soak = res.get("soak") or {}
    why = None if soak else ("not measured: --soak-minutes 0" if not res["meta"].get("soak_minutes")
                             else "not measured (the phase failed)")
    row("soak RSS growth after warm-up %", soak.get("growth_pct"), TARGETS_23["soak_growth_pct"], "<=", why=why,
        goal=g)
    row("soak failures", soak.get("failures"), TARGETS_23["soak_failures"], "<=", why=why, goal=g)
    return rows


def fmt(v, nd=1) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def print_report(res: dict, large: int, small: int) -> None:
    m = res["meta"]
    print(f"\ntfphi benchmark - python {m['python']}, {m['platform']}, {m['cpus']} CPUs, commit {m['commit']}\n")
    print(f"{'workspace':>10} {'modules':>8} {'files':>6} {'lines':>8} {'MiB':>6} {'registered':>11} {'open':>5}")
    for size, s in res["workspaces"].items():
        print(f"{size:>10} {s['modules']:>8} {s['files']:>6} {s['lines']:>8} {s['bytes'] / 2**20:>6.2f} "
              f"{s['registered_fields']:>11} {s['open_field_calls']:>5}")
    print(f"\ncold analysis: {m['tfphi']} check DIR --format json --fail-on never "
          f"(best of {m['runs']} wall, max peak RSS; bytecode {m.get('bytecode', 'as found')})")
    print(f"{'size':>10} {'wall s':>8} {'RSS MiB':>8} {'diags':>6}  by code")
    for size, c in res["cold"].items():
        if c is None:
            print(f"{size:>10} {'failed':>8}")
            continue
        codes = ", ".join(f"{k}={v}" for k, v in c["diagnostics_by_code"].items()) or "-"
        print(f"{size:>10} {c['wall_s_best']:>8.3f} {c['peak_rss_mb']:>8.1f} {c['diagnostics']:>6}  {codes}")
    print(f"\nlanguage server: {m['tfphi']} serve over stdio ({m['edits']} edits per document, "
          f"{m['hovers']} hovers; ms)")
    print(f"{'size':>10} {'index s':>8} {'leaf p50/p95/p99':>20} {'root p50/p95/p99':>20} {'hover p50/p99':>14}")
    for size, l in res["lsp"].items():
        if l is None:
            print(f"{size:>10} {'failed':>8}")
            continue
        le, ro, ho = l["leaf_edit"], l["root_edit"], l["hover"]
        leaf = "/".join(fmt(le[k]) for k in ("p50_ms", "p95_ms", "p99_ms"))
        root = "/".join(fmt(ro[k]) for k in ("p50_ms", "p95_ms", "p99_ms"))
        hover = "/".join(fmt(ho[k]) for k in ("p50_ms", "p99_ms"))
        lost = f"  timeouts leaf {le['timeouts']}, root {ro['timeouts']}" if le["timeouts"] or ro["timeouts"] else ""
        print(f"{size:>10} {fmt(l['index_s'], 3):>8} {leaf:>20} {root:>20} {hover:>14}{lost}")
    if res["ratios"]:
        print(f"\nratios {large}/{small}: " + ", ".join(f"{k} {fmt(v, 2)}" for k, v in res["ratios"].items()))
    for size, l in res["lsp"].items():
        if l is None:
            continue
        print(f"{size:>10} first edits after the first diagnostics, ms: leaf {l['leaf_edit'].get('first_ms')}, "
              f"root {l['root_edit'].get('first_ms')}; server RSS after indexing {fmt(l.get('rss_after_index_mb'))} MiB")
        print(f"{size:>10} leaf keystrokes {PAUSE_S} s apart after those, ms: {l['leaf_edit'].get('paused_ms')}")
    if res.get("corpus"):
        c = res["corpus"]
        print(f"\ncorpus {c['dir']}: {c['files']} files, {c['bytes'] / 2**20:.1f} MiB; bare tree-sitter parse "
              f"{fmt(c['bare_parse_s_best'], 3)} s; tfphi check {fmt(c['check']['wall_s_best'], 3)} s, "
              f"{fmt(c['check']['peak_rss_mb'])} MiB peak; ratio {fmt(c['ratio'], 2)}x; CPU (user + system, best) "
              f"{fmt(c.get('bare_parse_cpu_s_best'), 3)} vs {fmt(c['check'].get('cpu_s_best'), 3)} s, "
              f"{fmt(c.get('cpu_ratio'), 2)}x")
    if res.get("checkov"):
        k = res["checkov"]
        ck = k.get("checkov") or {}
        print(f"\n{k['example']}: tfphi check {fmt(k['tfphi']['wall_s_best'], 3)} s, "
              f"{fmt(k['tfphi']['peak_rss_mb'])} MiB; checkov {ck.get('version', '-')} render "
              f"{fmt(ck.get('wall_s_best'), 3)} s, {fmt(ck.get('peak_rss_mb'))} MiB; ratio {fmt(k.get('ratio'), 1)}x"
              + (f" (CPU {fmt(ck.get('cpu_s_best'), 3)} vs {fmt(k['tfphi'].get('cpu_s_best'), 3)} s, "
                 f"{fmt(k.get('cpu_ratio'), 1)}x)" if ck else "")
              + (f"; checkov's engine: {ck.get('engine')}" if ck else f" ({k.get('note')})"))
    if res["peer"]:
        p = res["peer"]
        print(f"\npeer: {p['tool']} parses {p['files']} files in {fmt(p['parse_s_best'], 3)} s (best of "
              f"{m['runs']}); tfphi full analysis {fmt(p.get('tfphi_s'), 3)} s; ratio {fmt(p.get('ratio'), 2)}x")
    print_issue23(res, large, small)
    for goal, title in (("issue 23", "goal (issue 23)"), ("issue 15", "goal (issue 15)"),
                        ("first plan", "kept from the first plan (not issue 15's)")):
        print(f"\n{title:<44} {'value':>10} {'target':>8}  status")
        for t in res["targets"]:
            if t["goal"] == goal:
                print(f"{t['name']:<44} {fmt(t['value'], 2):>10} {t['target']:>8}  {t['status']}")
    if res["errors"]:
        print(f"\n{len(res['errors'])} phase(s) failed:")
        for e in res["errors"]:
            print(f"- {e['phase']}: {e['error'].splitlines()[0] if e['error'] else ''}")


def print_issue23(res: dict, large: int, small: int) -> None:
    """Issue 23's phases: edit shapes side by side at both sizes, first hover, the big cold
    check, the soak."""
    sizes = [str(n) for n in ([small, large] if small != large else [large]) if res["lsp"].get(str(n))]
    if sizes:
        print(f"\nedit shapes -> versioned diagnostics, ms p50/p95/p99 ({res['meta']['edits']} changes per shape, "
              "each keystroke taken back by the next; from the first diagnostics of a fresh server)")
        print(f"{'document shape':<22}" + "".join(f"{n + ' modules':>24}" for n in sizes)
              + (f"{'p50 ratio':>10}" if len(sizes) == 2 else ""))
        for doc in ("root", "leaf"):
            for name in (res["lsp"][sizes[-1]].get(f"{doc}_shapes") or {}):
                cells = []
                for n in sizes:
                    st = (res["lsp"][n].get(f"{doc}_shapes") or {}).get(name) or {}
                    cell = "/".join(fmt(st.get(k)) for k in ("p50_ms", "p95_ms", "p99_ms"))
                    cells.append(cell + (f" ({st['timeouts']} lost)" if st.get("timeouts") else ""))
                ratio = res["ratios"].get(f"{doc}_{name}_p50")
                print(f"{doc + ' ' + name:<22}" + "".join(f"{c:>24}" for c in cells)
                      + (f"{fmt(ratio, 2):>10}" if len(sizes) == 2 else ""))
    first = res.get("first_hover")
    if first:
        print(f"\nfirst hover ({large} modules, fresh server, didOpen right after initialized): "
              f"{fmt(first['first_hover_s'], 3)} s after didOpen ({first['attempts']} requests, {first['empty']} "
              f"empty, {first['errors']} errors; {'the complete answer' if first['complete'] else 'NOT the final answer'}"
              f"; workspace indexed at {fmt(first['index_s'], 2)} s)")
    big = res.get("big")
    if big:
        c = big["check"]
        print(f"\n{big['modules']} modules ({big['files']} files, {big['bytes'] / 2**20:.1f} MiB): cold check "
              f"{fmt(c['wall_s_best'], 2)} s, peak {fmt(c['peak_rss_mb'])} MiB (largest process "
              f"{fmt(c.get('peak_rss_mb_single'))}, process tree {fmt(c.get('peak_rss_mb_tree'))}); bare tree-sitter parse "
              f"{fmt(big['bare_parse_s_best'], 2)} s; ratio {fmt(big['ratio'], 2)}x; server indexed in "
              f"{fmt(big['server_index_s'], 1)} s, RSS then {fmt(big['server_rss_after_index_mb'])} MiB")
    soak = res.get("soak")
    if soak:
        print(f"\nsoak ({soak['modules']} modules, {fmt(soak['seconds'] / 60, 1)} min, seed {soak['seed']}): RSS after "
              f"indexing {fmt(soak['rss_after_index_mb'])} MiB, at {fmt(soak['warm_s'], 0)} s "
              f"{fmt(soak['rss_warm_mb'])} MiB, at the end {fmt(soak['rss_end_mb'])} MiB (growth "
              f"{fmt(soak['growth_pct'])}%); {soak['edits']} edits, {soak['hovers']} hovers, "
              f"{soak['failures']} failures")


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, timeout=10).stdout.strip() or "?"
    except Exception:
        return "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="tfphi benchmark (see bench/README.md)")
    ap.add_argument("--sizes", default="10,100,1000", help="workspace sizes in modules (default 10,100,1000)")
    ap.add_argument("--edits", type=int, default=200, help="changes per edit shape and document (default 200)")
    ap.add_argument("--hovers", type=int, default=100, help="hover requests (default 100)")
    ap.add_argument("--runs", type=int, default=3, help="repetitions for cold analysis and the peer (default 3)")
    ap.add_argument("--no-peer", action="store_true", help="skip the python-hcl2 comparison")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="a directory of real Terraform (e.g. cloned module repositories): cold check vs a bare "
                         "parse; its terraform-aws-rds/examples/complete-postgres is compared with Checkov")
    ap.add_argument("--checkov-python", default=None,
                    help="the Python that has checkov (default: the one of a `checkov` script beside this "
                         "Python or on PATH)")
    ap.add_argument("--json", type=Path, default=BENCH / "out" / "results.json")
    ap.add_argument("--workdir", type=Path, default=BENCH / "out" / "work")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per wait (default 300)")
    ap.add_argument("--cmd", default=os.environ.get("TFPHI_BENCH_CMD"),
                    help='command that runs tfphi (default: $TFPHI_BENCH_CMD, else "<this python> -m tfphi")')
    ap.add_argument("--big", type=int, default=10000,
                    help="modules of the big workspace for the cold check against a bare parse and the server's "
                         "RSS after indexing it (default 10000; 0 skips)")
    ap.add_argument("--big-runs", type=int, default=1, help="repetitions of the big cold check (default 1)")
    ap.add_argument("--big-timeout", type=float, default=1800.0, help="seconds per wait in the big phase")
    ap.add_argument("--soak-minutes", type=float, default=0.0,
                    help="minutes of bench/soak.py on the largest workspace (default 0: not run)")
    args = ap.parse_args(argv)
    if args.cmd:
        TFPHI[:] = shlex.split(args.cmd)

    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    large, small = max(sizes), min(sizes)
    args.workdir.mkdir(parents=True, exist_ok=True)
    res: dict = {
        "meta": {"python": platform.python_version(), "platform": f"{platform.system()} {platform.machine()}",
                 "cpus": os.cpu_count(), "commit": git_commit(), "sizes": sizes, "edits": args.edits,
                 "hovers": args.hovers, "runs": args.runs, "seed": 0,
                 "big": args.big, "soak_minutes": args.soak_minutes,
                 "tfphi": "python -m tfphi" if TFPHI[0] == sys.executable else shlex.join(TFPHI),
                 "bytecode": compile_bytecode()},
        "workspaces": {}, "cold": {}, "lsp": {}, "ratios": {}, "peer": None, "targets": [], "errors": [],
    }

    def phase(name, fn):
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            return fn()
        except Exception as exc:
            res["errors"].append({"phase": name, "error": f"{exc}",
                                  "traceback": traceback.format_exc()})
            print(f"[bench] {name} FAILED: {exc}", file=sys.stderr, flush=True)
            return None

    workspaces = {}
    for n in sizes:
        workspaces[n] = args.workdir / f"ws_{n}"
        res["workspaces"][str(n)] = phase(f"generate {n}", lambda n=n: generate(workspaces[n], n, seed=0))
    for n in sizes:
        res["cold"][str(n)] = phase(f"cold {n}", lambda n=n: measure_cold(workspaces[n], args.runs,
                                                                          args.workdir, args.timeout))
    for n in ([large, small] if large != small else [large]):
        summary = res["workspaces"][str(n)]
        res["lsp"][str(n)] = phase(f"lsp {n}", lambda n=n, summary=summary: measure_lsp(
            workspaces[n], summary, args.edits, args.hovers, args.workdir, args.timeout))

    big, little = res["lsp"].get(str(large)), res["lsp"].get(str(small))
    if large != small and big and little:
        for doc in ("leaf", "root"):
            for p in ("p50", "p99"):
                a, b = big[f"{doc}_edit"][f"{p}_ms"], little[f"{doc}_edit"][f"{p}_ms"]
                res["ratios"][f"{doc}_edit_{p}"] = round(a / b, 3) if a is not None and b else None
        for doc in ("leaf", "root"):
            for name, stats in big[f"{doc}_shapes"].items():
                a, b = stats["p50_ms"], (little[f"{doc}_shapes"].get(name) or {}).get("p50_ms")
                res["ratios"][f"{doc}_{name}_p50"] = round(a / b, 3) if a is not None and b else None

    res["first_hover"] = phase(f"first hover {large}", lambda: measure_first_hover(
        workspaces[large], res["workspaces"][str(large)]["probes"]["hover"], args.workdir, args.timeout))
    res["big"] = None
    if args.big:
        res["big"] = phase(f"big {args.big}", lambda: measure_big(
            args.workdir / f"ws_{args.big}", args.big, args.big_runs, args.workdir, args.big_timeout))
    res["soak"] = None
    if args.soak_minutes:
        res["soak"] = phase("soak", lambda: run_soak(
            workspaces[large], seconds=args.soak_minutes * 60, seed=0, outdir=args.workdir, timeout=args.timeout))

    if not args.no_peer:
        peer = phase(f"peer {large}", lambda: measure_peer(workspaces[large], args.runs))
        if peer is not None:
            tfphi_s = (res["cold"].get(str(large)) or {}).get("wall_s_best")
            peer["tfphi_s"] = tfphi_s
            peer["ratio"] = round(peer["parse_s_best"] / tfphi_s, 3) if tfphi_s else None
            res["peer"] = peer

    res["corpus"] = res["checkov"] = None
    if args.corpus is not None:
        corpus = args.corpus.resolve()
        res["corpus"] = phase("corpus", lambda: measure_corpus(corpus, args.runs, args.workdir, args.timeout))
        example = corpus / RDS_EXAMPLE
        if example.is_dir():
            res["checkov"] = phase("checkov", lambda: measure_checkov(
                example, args.runs, args.workdir, args.timeout, checkov_python(args.checkov_python)))
        else:
            res["errors"].append({"phase": "checkov", "error": f"{example} is missing", "traceback": ""})

    res["targets"] = evaluate_targets(res, large, small)
    print_report(res, large, small)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(res, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 1 if res["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
