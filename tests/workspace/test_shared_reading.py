"""The batch loader shares the parse of a large workspace with a worker process
(loader._read_files, syntax.transfer): the analysis must get exactly what reading the files
one by one gives, with or without the worker, and also when the worker fails or the reader
stops early (no process is left behind). A file repeating earlier bytes is read as a copy.

Forking is tested in a fresh interpreter (``_run``): a test process has other threads."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys

from tfphi import loader
from tfphi.features.diagnostics import workspace_diagnostics
from tfphi.syntax import hclfile


def _workspace(root, n=40):
    (root / "main.tf").write_text("".join(f'module "m{i}" {{\n  source = "./m{i}"\n  x = var.v{i}\n}}\n' for i in range(n)))
    (root / "variables.tf").write_text("".join(f'variable "v{i}" {{ default = "a{i}" }}\n' for i in range(n)))
    (root / "terraform.tfvars").write_text('v0 = "b"\n')
    (root / "broken.tf").write_text('resource "x" {\n')
    (root / "bin.tf").write_bytes(b"\x00\x01")
    (root / "j.tf.json").write_text('{"variable": {"j": {}}}')
    for i in range(n):
        (root / f"m{i}").mkdir()
        (root / f"m{i}" / "main.tf").write_text('variable "x" {}\nresource "aws_db_instance" "d" { engine = var.x }\n')


def _summary(snapshot):
    return {path: [(d.code, d.span, d.message) for d in items] for path, items in workspace_diagnostics(snapshot).items()}


DRIVER = """
import json, os, sys
from tfphi import loader
from tfphi.features.diagnostics import workspace_diagnostics

def summary(snapshot):
    return {path: [(d.code, d.span.file, d.span.start, d.span.end, d.message) for d in items]
            for path, items in sorted(workspace_diagnostics(snapshot).items())}

def files(snapshot):
    return sorted((path, [(b.type, list(b.labels), b.span.start, b.span.end) for b in hcl.body.blocks])
                  for path, hcl in snapshot._host.files.items())

root, mode = sys.argv[1], sys.argv[2]
if mode == "many-files-open":  # the worker's pipe gets a descriptor above 1023 (select.select's limit),
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    import time
    work = loader._work
    def late(items, indices, out):  # and this process waits for its answers
        time.sleep(0.5)
        work(items, indices, out)
    loader._work = late
taken = []
decode = loader.decode
def counting(encoded, rel, data):
    taken.append(rel)
    return decode(encoded, rel, data)
loader.decode = counting
if mode == "alone":
    loader.WORKER_MIN_BYTES = 1 << 40
else:
    loader.WORKER_MIN_BYTES = 0
if mode == "failing":
    def failing(items, indices, out):
        out.write(b"\\x05\\x00\\x00\\x00garbage")
        out.flush()
    loader._work = failing
if mode == "astray":
    import marshal
    def astray(items, indices, out):  # well-formed answers, for the wrong files
        for i in indices:
            message = marshal.dumps((i + 1, ((), (), ())))
            out.write(len(message).to_bytes(4, "little") + message)
        out.flush()
    loader._work = astray
if mode == "stopping":
    rels = list(loader.walk_workspace(root, loader.Config()))
    items = loader._read_files(root, rels, 1 << 20, share_work=True)
    next(items)
    items.close()
    try:
        os.waitpid(-1, os.WNOHANG)
        print(json.dumps("a child is left"))
    except ChildProcessError:
        print(json.dumps("none left"))
    raise SystemExit(0)
snapshot = loader.load_workspace(root)
rels = list(loader.walk_workspace(root, loader.Config()))
items = [(rel, loader.read_bytes(os.path.join(root, rel), 1 << 20)) for rel in rels]
from tfphi.syntax.hclfile import parse_file
# the worker's files, less those with syntax errors (their tree is kept: read where needed)
expected = sum(1 for i in loader._split(items, 1 << 20)[1] if parse_file(*items[i], keep_tree=False).tree is None)
print(json.dumps({"summary": summary(snapshot), "files": files(snapshot), "taken": len(taken), "expected": expected}))
"""


def _run(root, mode):
    done = subprocess.run([sys.executable, "-c", DRIVER, str(root), mode], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_worker_gives_the_analysis_what_reading_one_by_one_gives(tmp_path):
    _workspace(tmp_path)
    for i in range(40):  # every module's bytes its own, so that the worker has files to read
        (tmp_path / f"m{i}" / "main.tf").write_text(f'variable "x{i}" {{}}\nresource "aws_db_instance" "d" {{ engine = var.x }}\n')
    shared, alone = _run(tmp_path, "shared"), _run(tmp_path, "alone")
    assert alone["taken"] == 0 and shared["taken"] == shared["expected"] > 15  # about WORKER_SHARE of the 42 distinct files
    assert any(items for items in shared["summary"].values())  # the workspace has findings to compare
    assert shared["summary"] == alone["summary"]
    assert shared["files"] == alone["files"]
    crowded = _run(tmp_path, "many-files-open")
    assert crowded == shared


def test_a_failing_worker_leaves_the_reading_to_the_analysis(tmp_path):
    _workspace(tmp_path)
    alone = _run(tmp_path, "alone")
    for mode in ("failing", "astray"):
        failing = _run(tmp_path, mode)
        assert failing["taken"] == 0, mode
        assert failing["summary"] == alone["summary"] and failing["files"] == alone["files"], mode


def test_no_worker_is_left_when_the_reader_stops_early(tmp_path):
    _workspace(tmp_path)
    assert _run(tmp_path, "stopping") == "none left"


def test_no_worker_for_a_small_workspace_or_with_other_threads(tmp_path):
    _workspace(tmp_path)
    rels = list(loader.walk_workspace(tmp_path, loader.Config()))
    items = [(rel, loader.read_bytes(os.path.join(tmp_path, rel), 1 << 20)) for rel in rels]
    assert loader._Worker.start(items, 1 << 20) is None  # a few KiB, and pytest runs threads
    assert loader._split(items, 1 << 20) == ([], [])
    assert sum(len(d) for _, d in items) < loader.WORKER_MIN_BYTES


def test_a_file_repeating_the_bytes_of_one_read_before_is_a_copy_of_it(tmp_path, monkeypatch):
    """The 40 modules of ``_workspace`` have the same ``main.tf``: it is parsed and read once,
    the other 39 are copies under their own paths, and the analysis is what reading each
    gives (hclfile.same_bytes_shared). A repeated file with a syntax error is read again."""
    _workspace(tmp_path)
    for i in range(40):  # the same bytes, with a finding of their own in each module
        (tmp_path / f"m{i}" / "main.tf").write_text('variable "x" {}\nresource "aws_db_instance" "d" { engine = var.y }\n')
    (tmp_path / "m1" / "broken.tf").write_text('resource "x" {\n')  # the bytes of broken.tf
    shared = _summary(loader.load_workspace(tmp_path))
    built = []
    build = hclfile.build_file

    def counting_build(path, source, tree, *args, **kwargs):
        built.append(path)
        return build(path, source, tree, *args, **kwargs)

    monkeypatch.setattr(hclfile, "build_file", counting_build)
    loader.load_workspace(tmp_path)
    modules = sorted(p for p in built if "/" in p)
    assert modules == ["m0/main.tf", "m1/broken.tf"]
    monkeypatch.setattr(loader, "same_bytes_shared", contextlib.nullcontext)
    assert _summary(loader.load_workspace(tmp_path)) == shared
    assert [(code, span.file, span.start) for code, span, _ in shared["m7/main.tf"]] == [("undefined-reference", "m7/main.tf", 58)]


def test_a_file_that_cannot_be_read_is_reported_in_its_place(tmp_path, monkeypatch):
    _workspace(tmp_path, 3)
    (tmp_path / "secret.tf").write_text('variable "s" {}\n')
    read = loader.read_bytes

    def refusing(path, limit):
        if os.path.basename(path) == "secret.tf":
            raise PermissionError(13, "Permission denied")
        return read(path, limit)

    monkeypatch.setattr(loader, "read_bytes", refusing)
    diagnostics = _summary(loader.load_workspace(tmp_path))
    assert [m for code, _, m in diagnostics.get("secret.tf", [])] == ["secret.tf cannot be read: Permission denied"]
