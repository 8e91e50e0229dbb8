"""A batch check reports exactly what a host that keeps everything reports.

``tfphi check`` loads its workspace into a batch host (``retention.BATCH``): it keeps
none of the state an edit would reuse, analyses the modules depth first from the roots
(``check_scope.batch_schedule``) and releases each module's traces, memoized values and
on-demand views once its subtree's diagnostics are taken (``Snapshot.release``), the roots of each
diagnostic recorded before. Whatever it releases is derived again, the same, when read: these
tests compare the whole output of every format, on generated workspaces (with defects added)
and on the example and test workspaces, with the output of an editor's kind of host, which
keeps everything and works the roots out when the report is written.
"""

from __future__ import annotations

import importlib.util
import io
import random
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from tfphi.check_scope import batch_schedule, check_diagnostics
from tfphi.cli import main
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.loader import load_workspace
from tfphi.output import CheckReport, formatter
from tfphi.retention import BATCH, EDITOR, Retention

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
FORMATS = ("json", "sarif", "text")


def _generate():
    spec = importlib.util.spec_from_file_location("bench_generate", REPO / "bench" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate


def _reports(root: Path, retention: Retention) -> dict[str, str]:
    """Every format's report of a check of ``root``: on a batch host as ``tfphi check`` runs it
    (roots recorded as the check goes), else on a host that keeps everything (roots worked out
    when the report is written, from the traces it kept)."""
    analysis = load_workspace(root, retention=retention)
    known: dict | None = {} if retention.releases_traces else None
    diagnostics = check_diagnostics(analysis, known_roots=known)
    return {fmt: formatter(fmt)(CheckReport(analysis, diagnostics, str(root), None, known)) for fmt in FORMATS}


def _with_defects(root: Path, seed: int) -> None:
    """Adds what the generator never writes, in a few modules drawn by ``seed``: undefined
    references, a module call missing its arguments, an unclosed block (a file with a syntax
    error keeps its tree), a variable set in a tfvars file that no root declares."""
    rng = random.Random(seed)
    modules = sorted(p for p in (root / "modules").iterdir())
    for i, module in enumerate(rng.sample(modules, 4)):
        with open(module / "main.tf", "a", encoding="utf-8") as handle:
            handle.write(f'\nlocals {{\n  broken_{i} = var.nope_{i}\n  other_{i} = aws_s3_bucket.none.id\n}}\n')
    leaf = next(m for m in modules if m.name.startswith("leaf_"))
    with open(root / "main.tf", "a", encoding="utf-8") as handle:
        handle.write(f'\nmodule "orphan" {{\n  source = "./modules/{leaf.name}"\n}}\n')
    (rng.choice(modules) / "broken.tf").write_text('resource "aws_s3_bucket" "half" {\n  bucket = "x"\n', encoding="utf-8")
    with open(root / "terraform.tfvars", "a", encoding="utf-8") as handle:
        handle.write('\nnobody_declares_this = "x"\n')


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_batch_check_of_a_generated_workspace_equals_a_check_that_keeps_everything(tmp_path, seed):
    root = tmp_path / "ws"
    _generate()(root, 40, seed=seed)
    if seed:
        _with_defects(root, seed)
    kept = _reports(root, EDITOR)
    assert _reports(root, BATCH) == kept
    if seed:  # (the defects are reported: the comparison covers findings, syntax errors, variable files)
        codes = kept["json"]
        assert all(code in codes for code in ("undefined-reference", "missing-argument", "syntax-error", "undeclared-variable"))


def test_an_editor_host_releasing_each_module_as_the_server_does_reports_the_same(tmp_path):
    """The server releases each module once its diagnostics are published (``Snapshot.release`` on
    an editor's host: the on-demand views of the files not open); the reports do not change."""
    root = tmp_path / "ws"
    _generate()(root, 30, seed=2)
    _with_defects(root, 2)
    analysis = load_workspace(root)
    for dir in analysis.dirs():
        dir_diagnostics(analysis, dir)
        analysis.release(dir)
    assert analysis._derived.fields and analysis._host._findings_of_files  # (kept for the next edit)
    diagnostics = check_diagnostics(analysis)
    released = {fmt: formatter(fmt)(CheckReport(analysis, diagnostics, str(root), None, None)) for fmt in FORMATS}
    assert released == _reports(root, EDITOR) == _reports(root, BATCH)


WORKSPACES = [REPO / "examples" / "vendor-stack"] + sorted(
    p for group in (HERE / "repos", HERE / "layouts") for p in group.iterdir() if p.is_dir())


@pytest.mark.parametrize("root", WORKSPACES, ids=lambda p: p.name)
def test_a_batch_check_of_the_test_workspaces_equals_a_check_that_keeps_everything(root):
    assert _reports(root, BATCH) == _reports(root, EDITOR)


def test_the_command_line_checks_on_a_batch_host_with_the_same_output(tmp_path, monkeypatch):
    root = tmp_path / "ws"
    _generate()(root, 30, seed=3)
    _with_defects(root, 3)
    hosts = []
    real = load_workspace

    def spy(*args, **kwargs):
        hosts.append(kwargs.get("retention", EDITOR))
        return real(*args, **kwargs)

    monkeypatch.setattr("tfphi.cli.load_workspace", spy)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["check", str(root), "--format", "json", "--fail-on", "never"]) == 0
    assert hosts == [BATCH]
    assert out.getvalue() == _reports(root, EDITOR)["json"]


def test_a_batch_check_releases_every_module_and_keeps_no_edit_state(tmp_path):
    root = tmp_path / "ws"
    _generate()(root, 30, seed=0)
    kept, batch = load_workspace(root), load_workspace(root, retention=BATCH)
    for analysis in (kept, batch):
        check_diagnostics(analysis, known_roots={})
    # a host that keeps everything: every module's traces, the memoized values, what each trace read
    assert set(kept._derived.fields) == set(kept.modules) and kept._host._trace_memo.memo and kept._derived.field_deps
    # the batch host: every module released once its diagnostics were taken, nothing kept for an edit
    assert batch._derived.fields == {} and batch._host._trace_memo.memo == {} and batch._derived.field_deps == {}
    assert batch._host._findings_of_files == {} and batch._host._decls == {}


def test_the_batch_schedule_analyses_each_directory_once_and_releases_each_after_its_subtree(tmp_path):
    root = tmp_path / "ws"
    _generate()(root, 30, seed=1)
    analysis = load_workspace(root, retention=BATCH)
    dirs = analysis.dirs()
    steps = batch_schedule(analysis, dirs)
    order = [dir for dir, _ in steps]
    assert sorted(order) == dirs and order[0] == ""  # the root first, then depth first
    released_at = {dir: i for i, (_, releases) in enumerate(steps) for dir in releases}
    assert set(released_at) == set(dirs) and released_at[""] == len(steps) - 1
    position = {dir: i for i, dir in enumerate(order)}
    tree = analysis.tree
    for dir in dirs:
        below = [d for d in dirs if any(frame[1] == dir for path in tree.call_paths(d) for frame in path)]
        # never before the diagnostics of its own subtree: they read its arguments, variables and locals
        assert released_at[dir] >= max(position[d] for d in below)
        assert all(released_at[dir] <= released_at[caller] for caller, _ in tree.callers.get(dir, ()))
