"""Smoke tests for the benchmark: the workspace generator and run.py's JSON shape.

No timing is asserted anywhere: figures depend on the machine.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"


def _load_generate():
    spec = importlib.util.spec_from_file_location("bench_generate", BENCH / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


generate_mod = _load_generate()


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# ---- a tiny static checker for the generated (regularly formatted) HCL ----------

TOP_BLOCK = re.compile(r'^(\w+)((?: "[^"]*")*) \{', re.MULTILINE)


def _top_blocks(text: str):
    """(keyword, labels, body) of every top-level block; the generator closes them at column 0."""
    for m in TOP_BLOCK.finditer(text):
        labels = re.findall(r'"([^"]*)"', m.group(2))
        if m.group(0).endswith("{}"):
            yield m.group(1), labels, ""
            continue
        end = text.find("\n}", m.end())
        yield m.group(1), labels, text[m.end():end]


def _module_info(moddir: Path) -> dict:
    info = {"vars": {}, "locals": set(), "modules": {}, "outputs": set(), "resources": set(),
            "data": set(), "text": ""}
    for tf in sorted(moddir.glob("*.tf")):
        text = tf.read_text()
        info["text"] += text
        for kw, labels, body in _top_blocks(text):
            if kw == "variable":
                info["vars"][labels[0]] = "default" in re.findall(r"^  (\w+)\s*=", body, re.MULTILINE)
            elif kw == "locals":
                info["locals"] |= set(re.findall(r"^  (\w+)\s*=", body, re.MULTILINE))
            elif kw == "module":
                args = set(re.findall(r"^  (\w+)\s*=", body, re.MULTILINE))
                source = re.search(r'^  source\s*=\s*"([^"]+)"', body, re.MULTILINE).group(1)
                info["modules"][labels[0]] = (source, args)
            elif kw == "output":
                info["outputs"].add(labels[0])
            elif kw == "resource":
                info["resources"].add(tuple(labels))
            elif kw == "data":
                info["data"].add(tuple(labels))
    return info


def _check_references(ws: Path) -> list[str]:
    moddirs = [ws] + sorted(p for p in (ws / "modules").iterdir() if p.is_dir())
    infos = {d: _module_info(d) for d in moddirs}
    problems = []
    for d, info in infos.items():
        # keep only the interpolations of string literals (error messages, descriptions hold no references)
        text = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: " ".join(re.findall(r"\$\{([^}]*)\}", m.group(0))),
                      info["text"])
        for name in re.findall(r"\bvar\.(\w+)", text):
            if name not in info["vars"]:
                problems.append(f"{d.name}: undefined var.{name}")
        for name in re.findall(r"\blocal\.(\w+)", text):
            if name not in info["locals"]:
                problems.append(f"{d.name}: undefined local.{name}")
        for typ, name in re.findall(r"(?<![\w.])(aws_\w+)\.(\w+)", text):
            if (typ, name) not in info["resources"]:
                problems.append(f"{d.name}: undefined {typ}.{name}")
        for typ, name in re.findall(r"\bdata\.(\w+)\.(\w+)", text):
            if (typ, name) not in info["data"]:
                problems.append(f"{d.name}: undefined data.{typ}.{name}")
        for call, out in re.findall(r"\bmodule\.(\w+)\.(\w+)", text):
            if call not in info["modules"]:
                problems.append(f"{d.name}: undefined module.{call}")
                continue
            child = infos[(d / info["modules"][call][0]).resolve()]
            if out not in child["outputs"]:
                problems.append(f"{d.name}: module.{call} has no output {out}")
        for call, (source, args) in info["modules"].items():
            child = infos.get((d / source).resolve())
            if child is None:
                problems.append(f"{d.name}: module.{call} source {source} missing")
                continue
            for var, has_default in child["vars"].items():
                if not has_default and var not in args:
                    problems.append(f"{d.name}: module.{call} misses argument {var}")
            for arg in args - {"source", "count", "for_each", "depends_on", "providers"}:
                if arg not in child["vars"]:
                    problems.append(f"{d.name}: module.{call} passes unknown argument {arg}")
    return problems


# ---- tests ------------------------------------------------------------------------

def test_generate_10_modules_shape_and_determinism(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    summary = generate_mod.generate(a, 10, seed=0)
    summary_b = generate_mod.generate(b, 10, seed=0)
    assert summary == summary_b
    assert _digest(a) == _digest(b), "generation must be byte-for-byte deterministic"

    moddirs = sorted(p for p in (a / "modules").iterdir() if p.is_dir())
    assert summary["modules"] == 10 == 1 + len(moddirs)
    assert summary["services"] + summary["leaves"] == len(moddirs)
    assert sum(1 for d in moddirs if d.name.startswith("svc_")) == summary["services"]
    assert sum(1 for d in moddirs if d.name.startswith("leaf_")) == summary["leaves"]
    for name in ("main.tf", "variables.tf", "outputs.tf", "terraform.tfvars"):
        assert (a / name).is_file()
    for d in moddirs:
        assert {p.name for p in d.glob("*.tf")} == {"main.tf", "variables.tf", "outputs.tf"}, d

    files = [p for p in a.rglob("*") if p.is_file()]
    assert summary["files"] == len(files)
    assert summary["tf_files"] == sum(1 for p in files if p.suffix == ".tf")
    assert summary["bytes"] == sum(p.stat().st_size for p in files)
    assert summary["registered_fields"] > 0
    assert summary["open_field_calls"] >= 1

    # every service calls 3-5 leaves, every leaf is called
    called = set()
    for d in moddirs:
        if d.name.startswith("svc_"):
            sources = re.findall(r'source\s*=\s*"\.\./(leaf_\d+)"', (d / "main.tf").read_text())
            assert 3 <= len(sources) <= 5, d
            called |= set(sources)
    assert called == {d.name for d in moddirs if d.name.startswith("leaf_")}

    # the probe positions point where run.py expects them
    probes = summary["probes"]
    leaf_line = (a / probes["leaf_edit"]["file"]).read_text().splitlines()[probes["leaf_edit"]["line"]]
    assert leaf_line[probes["leaf_edit"]["character"]:].startswith('gres"')
    root_line = (a / "main.tf").read_text().splitlines()[probes["root_edit"]["line"]]
    assert root_line[probes["root_edit"]["character"]:].startswith('5.4"')
    hover_line = (a / probes["hover"]["file"]).read_text().splitlines()[probes["hover"]["line"]]
    assert hover_line[probes["hover"]["character"]:].startswith("engine_version")

    generate_mod.generate(tmp_path / "c", 10, seed=1)
    assert _digest(tmp_path / "c") != _digest(a), "the seed must matter"


@pytest.mark.parametrize("modules", [10, 100])
def test_generated_workspace_is_valid(tmp_path, modules):
    """Every reference is declared and every required module argument is passed."""
    summary = generate_mod.generate(tmp_path / "ws", modules)
    assert summary["modules"] == modules
    assert _check_references(tmp_path / "ws") == []

    ts = pytest.importorskip("tree_sitter")
    ts_hcl = pytest.importorskip("tree_sitter_hcl")
    parser = ts.Parser(ts.Language(ts_hcl.language()))
    for tf in sorted((tmp_path / "ws").rglob("*.tf")):
        assert not parser.parse(tf.read_bytes()).root_node.has_error, tf


def test_generate_cli(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / "generate.py"), str(tmp_path / "ws"), "--modules", "10"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["modules"] == 10


def test_run_py_json_shape(tmp_path):
    out_json = tmp_path / "x.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--sizes", "10", "--edits", "5", "--hovers", "5",
         "--no-peer", "--big", "20", "--soak-minutes", "0.05",
         "--json", str(out_json), "--workdir", str(tmp_path / "work")],
        capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(out_json.read_text())
    assert set(data) >= {"meta", "workspaces", "cold", "lsp", "ratios", "peer", "targets", "errors"}
    assert data["errors"] == []
    cold = data["cold"]["10"]
    assert {"wall_s_best", "wall_s_runs", "peak_rss_mb", "diagnostics", "diagnostics_by_code"} <= set(cold)
    assert isinstance(cold["diagnostics"], int)
    lsp = data["lsp"]["10"]
    for key in ("leaf_edit", "root_edit"):
        assert lsp[key]["n"] == 5 and lsp[key]["timeouts"] == 0
        assert {"p50_ms", "p95_ms", "p99_ms"} <= set(lsp[key])
        # edits start at the first diagnostics of a fresh server: the first ones are kept apart
        assert len(lsp[key]["first_ms"]) == 5 and lsp[key]["first_diagnostics_s"] > 0
    assert lsp["hover"]["n"] == 5 and {"p50_ms", "p99_ms"} <= set(lsp["hover"])
    assert lsp["rss_after_index_mb"] > 0
    assert data["peer"] is None and data["corpus"] is None and data["checkov"] is None
    # issue 23: every edit shape in both documents, the first hover, the big check, the soak
    assert set(lsp["root_shapes"]) == {"value", "newline", "comment", "label", "space"}
    assert set(lsp["leaf_shapes"]) == {"value"}
    for stats in [*lsp["root_shapes"].values(), *lsp["leaf_shapes"].values()]:
        assert stats["n"] == 5 and stats["timeouts"] == 0
        assert all(isinstance(stats[k], float) for k in ("p50_ms", "p95_ms", "p99_ms"))
    assert lsp["root_edit"]["p50_ms"] == lsp["root_shapes"]["value"]["p50_ms"]
    first = data["first_hover"]
    assert first["first_hover_s"] > 0 and first["attempts"] >= 1 and first["complete"] is True
    assert "engine_version" in first["final_answer"]
    big = data["big"]
    assert big["modules"] == 20 and big["files"] == 61
    assert big["ratio"] > 0 and big["check"]["peak_rss_mb"] > 0 and big["server_rss_after_index_mb"] > 0
    soak = data["soak"]
    assert soak["edits"] > 0 and soak["hovers"] > 0 and soak["texts_restored"] is True
    assert soak["failures"] == 0 and isinstance(soak["growth_pct"], float)
    assert soak["rss_after_index_mb"] > 0 and soak["rss_end_mb"] > 0 and len(soak["rss_curve"]) >= 3
    for t in data["targets"]:
        assert {"name", "value", "target", "status"} <= set(t)
        assert t["status"] in ("PASS", "MISS") or t["value"] is None
    # every goal of issue 15 has its row; the corpus ones say how to measure them
    names = [(t["goal"], t["name"]) for t in data["targets"]]
    assert names == [
        ("issue 15", "leaf edit->diagnostics p50 ms (10)"), ("issue 15", "leaf edit->diagnostics p99 ms (10)"),
        ("issue 15", "root edit->diagnostics p50 ms (10)"), ("issue 15", "root edit->diagnostics p99 ms (10)"),
        ("first plan", "cold check wall s (10)"), ("issue 15", "cold check peak RSS MiB (10)"),
        ("issue 15", "server RSS after indexing MiB (10)"), ("issue 15", "hover p99 ms (10)"),
        ("issue 15", "corpus check / bare parse"), ("issue 15", "checkov render / tfphi check (rds)"),
        *[("issue 23", f"root {shape} {p} ms (10)") for shape in ("value", "newline", "comment", "label", "space")
          for p in ("p50", "p99")],
        ("issue 23", "leaf edit p50 ms (10)"), ("issue 23", "first hover after didOpen s (10)"),
        ("issue 23", "cold check / bare parse (20)"), ("issue 23", "cold check peak RSS MiB (20)"),
        ("issue 23", "server RSS after indexing MiB (20)"), ("issue 23", "soak RSS growth after warm-up %"),
        ("issue 23", "soak failures")]
    assert all(isinstance(t["value"], (int, float)) for t in data["targets"] if t["goal"] == "issue 23")
    assert {t["name"]: t["status"] for t in data["targets"] if t["value"] is None} == {
        "corpus check / bare parse": "not measured: pass --corpus DIR",
        "checkov render / tfphi check (rds)": "not measured: pass --corpus DIR"}


def test_bareparse_counts_the_files_tfphi_reads(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "main.tf").write_text('variable "x" {}\n')
    (tmp_path / "b.tfvars").write_text('x = 1\n')
    (tmp_path / ".terraform").mkdir()
    (tmp_path / ".terraform" / "skip.tf").write_text("junk {\n")
    (tmp_path / "README.md").write_text("no")
    proc = subprocess.run([sys.executable, str(BENCH / "bareparse.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["files"], out["bytes"]) == (2, len('variable "x" {}\n') + len('x = 1\n'))


def test_the_corpus_phase_gives_wall_and_cpu_ratios(tmp_path):
    """run.py's corpus phase on a hand-made two-file corpus: both children's wall and CPU times
    (user + system from wait4's rusage; a busy machine moves CPU less) and both ratios."""
    run = _load_bench("run")
    corpus = tmp_path / "corpus"
    (corpus / "m").mkdir(parents=True)
    (corpus / "main.tf").write_text('module "m" {\n  source = "./m"\n  x      = "a"\n}\n')
    (corpus / "m" / "main.tf").write_text('variable "x" {}\noutput "y" { value = var.x }\n')
    (tmp_path / "work").mkdir()
    res = run.measure_corpus(corpus, 2, tmp_path / "work", 120)
    assert (res["files"], len(res["bare_parse_cpu_s_runs"]), len(res["check"]["cpu_s_runs"])) == (2, 2, 2)
    assert res["bare_parse_cpu_s_best"] > 0 and res["check"]["cpu_s_best"] > 0
    # (the ratios are of the unrounded times)
    assert res["cpu_ratio"] == pytest.approx(res["check"]["cpu_s_best"] / res["bare_parse_cpu_s_best"], rel=0.01)
    assert res["ratio"] == pytest.approx(res["check"]["wall_s_best"] / res["bare_parse_s_best"], rel=0.01)
    assert res["check"]["diagnostics"] == 0


def _load_bench(name):
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _apply(text: str, start: dict, end: dict, new: str) -> str:
    """An LSP range change applied to `text` (UTF-16 characters), written apart from bench/shapes.py."""
    lines = text.split("\n")

    def offset(pos):
        before = sum(len(line) + 1 for line in lines[:pos["line"]])
        units, i, line = 0, 0, lines[pos["line"]]
        while units < pos["character"]:
            units += 2 if ord(line[i]) > 0xFFFF else 1
            i += 1
        return before + i

    return text[:offset(start)] + new + text[offset(end):]


@pytest.mark.parametrize("modules", [10, 100])
def test_edit_shapes_find_their_place_and_are_taken_back(tmp_path, modules):
    shapes = _load_bench("shapes")
    generate_mod.generate(tmp_path / "ws", modules)
    root = (tmp_path / "ws" / "main.tf").read_text()
    leaf = (tmp_path / "ws" / "modules" / "leaf_001" / "main.tf").read_text()
    typed = {}
    for doc, text, table in (("root", root, shapes.ROOT_SHAPES), ("leaf", leaf, shapes.LEAF_SHAPES)):
        for shape in table:
            start = shapes.locate(shape, text)
            changed = _apply(text, start, start, shape.insert)
            end = shapes.end_of_insert(start, shape.insert)
            assert _apply(changed, start, end, "") == text, shape.name
            line = changed.split("\n")[start["line"]:start["line"] + 2]
            line = [re.sub(r"(\S) +=", r"\1 =", x) for x in line]  # the alignment depends on the size
            typed[f"{doc} {shape.name}"] = line[0] if shape.insert != "\n" else line
    assert typed == {
        "root value": '  engine_version = var.env == "prod" ? "1x5.4" : "14.9"',
        "root newline": ["}", ""],
        "root comment": '#  engine_version = var.env == "prod" ? "15.4" : "14.9"',
        "root label": 'module "svc_001x" {',
        "root space": '  engine_version = var.env == "prod" ? "15.4" : "14.9" ',
        "leaf value": '  engine = "postxgres"',
    }


def test_utf16_positions_count_surrogate_pairs():
    shapes = _load_bench("shapes")
    text = "a😀b\nxé"
    assert shapes.utf16_position(text, 2) == {"line": 0, "character": 3}
    assert shapes.utf16_position(text, 6) == {"line": 1, "character": 2}
    assert shapes.end_of_insert({"line": 3, "character": 4}, "😀") == {"line": 3, "character": 6}
    assert shapes.end_of_insert({"line": 3, "character": 4}, "\n") == {"line": 4, "character": 0}


def test_soak_cli_restores_the_texts_and_reports_numbers(tmp_path):
    out_json = tmp_path / "soak.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "soak.py"), "--modules", "10", "--seconds", "3", "--seed", "1",
         "--workdir", str(tmp_path / "work"), "--json", str(out_json)],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    soak = json.loads(out_json.read_text())
    assert soak["seed"] == 1 and soak["failures"] == 0 and soak["texts_restored"] is True
    assert soak["typed"] == soak["taken_back"] > 0 and soak["hovers"] > 0
    for key in ("rss_after_index_mb", "rss_warm_mb", "rss_end_mb", "growth_pct", "edit_p50_ms"):
        assert isinstance(soak[key], float), key
    assert "growth after the warm-up" in proc.stdout


def test_soak_inprocess_prints_a_checkpoint_per_round(tmp_path):
    """bench/soak_inprocess.py: the soak's stream without the protocol, a checkpoint (every edit
    taken back) per round; hovers included."""
    proc = subprocess.run(
        [sys.executable, str(BENCH / "soak_inprocess.py"), "--modules", "10", "--rounds", "2", "--edits", "30",
         "--hovers", "--workdir", str(tmp_path / "ws")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(" edits:")[0].strip() for line in lines] == ["0", "30", "60"]
    assert all(re.search(r"RSS +[\d.]+ MiB, allocated blocks +[\d,]+, C heap in use +[\d.]+ MiB; memo [\d,]+ entries "
                         r"\(0 under call paths gone\), line indexes \d+, clean block texts \d+; Python's arenas \d+ \(ever \d+, "
                         r"the most at once \d+\), in blocks [\d.]+ MiB, free in pools [\d.]+, empty pools [\d.]+$", line)
               for line in lines), lines


def test_soak_peaks_prints_each_shape_and_the_frames_holding_peaks(tmp_path):
    """bench/soak_peaks.py: the soak's stream with tracemalloc, each step's peak grouped by shape;
    with --functions, the functions' peaks (a profile function on the loop)."""
    proc = subprocess.run(
        [sys.executable, str(BENCH / "soak_peaks.py"), "--modules", "10", "--edits", "40", "--functions", "--top", "5",
         "--workdir", str(tmp_path / "ws")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"^ +40 +[\d.]+ +[\d.]+ +[\d.]+ +\d+ +\d+  edit \(all\)$", out, re.M), out
    assert re.search(r"^ +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +\d+ +\d+  edit (root main\.tf|root file|module file) (ok|broken)>(ok|broken)$", out, re.M), out
    assert "functions by their largest peak above entry (top 5):" in out
    assert re.search(r"AnalysisScheduler\._pass \(lsp/scheduler\.py:\d+\)", out), out


def test_edit_trace_cuts_every_edit_into_four_parts(tmp_path):
    """bench/edit_trace.py: a traced server's timestamps split each edit (send -> arrival -> handled
    -> published -> client); the four parts add up to the edit's latency (nothing timed here); each
    edit's publications are counted (the edited file's, once), and the functions asked for timed."""
    proc = subprocess.run(
        [sys.executable, str(BENCH / "edit_trace.py"), "--modules", "10", "--edits", "6", "--runs", "1",
         "--edit", "root", "--shape", "value", "--steady", "--time-calls", "tfphi.lsp.documents:Document.apply",
         "--workdir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert re.match(r"run 1: root value edits \(steady\), ms: first ten \[[\d., ]+\], p50 [\d.]+, p99 [\d.]+, max [\d.]+$", lines[0]), lines[0]
    assert [line.split()[0] for line in lines[1:5]] == ["send->arrival", "arrival->handled", "handled->published",
                                                        "published->client"]
    assert [line.split(" p50 ")[0].strip() for line in lines[5:9]] == ["publishes", "their items", "their bytes",
                                                                       "their encode+write ms"]
    assert lines[9].startswith("    slowest: edit ")
    assert re.match(r"    tfphi.lsp.documents:Document.apply: 5 calls, per edit [\d.]+ ms wall, [\d.]+ ms CPU$", lines[10]), lines[10]
    assert lines[11].startswith("    loop steps over 10 ms")
    edits = json.loads((tmp_path / "edits0.json").read_text())
    assert [row[0] for row in edits["rows"]] == [2, 3, 4, 5, 6, 7]
    for (_, sent, received), parts in zip(edits["rows"], edits["parts"]):
        assert len(parts) == 4 and all(part >= 0 for part in parts[:3])
        assert abs(sum(parts) - (received - sent) * 1000) < 0.05  # (each part rounded to 0.01 ms)
    assert [count for count, *_ in edits["publishes"]] == [1] * 6  # the edited main.tf's versioned list alone


def test_region_edit_bench_reads_every_file_s_keystrokes_as_regions(tmp_path, capsys):
    """bench/region_edit.py at 10 modules: every shape found in every file, and every
    keystroke's parse reads its region alone, the first too (LF and CRLF, heredocs and comments)."""
    bench = _load_bench("region_edit")
    assert bench.main(["--modules", "10", "--edits", "3", "--tokens", "1", "--workdir", str(tmp_path)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if "/6" in line]
    assert [(row[0], row[2], row[5]) for row in rows] == [
        (file, shape, "6/6") for file in ("root", "root-crlf", "heredocs", "heredocs-crlf")
        for shape in ("value", "newline", "comment", "label")]
