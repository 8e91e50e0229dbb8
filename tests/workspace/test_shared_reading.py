"""The batch loader hands the analysis a file repeating the bytes of one read before as a copy
of it (``loader.SameBytes``, through ``SetParsed``): the analysis must get exactly what reading
each file gives; a file it cannot read is reported in its place."""

from __future__ import annotations

import os

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


def test_a_file_repeating_the_bytes_of_one_read_before_is_a_copy_of_it(tmp_path, monkeypatch):
    """The 40 modules of ``_workspace`` have the same ``main.tf``: it is parsed and read once,
    the other 39 are copies under their own paths, and the analysis is what reading each
    gives (loader.SameBytes). A repeated file with a syntax error is read again."""
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
    in_pieces = hclfile.read_in_pieces  # (a file with a syntax error is read piece by piece)
    monkeypatch.setattr(hclfile, "read_in_pieces", lambda path, *rest: (built.append(path), in_pieces(path, *rest))[1])
    loader.load_workspace(tmp_path)
    modules = sorted(p for p in built if "/" in p)
    assert modules == ["m0/main.tf", "m1/broken.tf"]
    monkeypatch.setattr(loader.SameBytes, "copy", lambda self, rel, data: None)  # every file read as itself
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


def test_repeated_bytes_are_handed_in_parsed_and_every_other_file_as_bytes(tmp_path, monkeypatch):
    """What reaches the host is a change, never a process global (issue 23, point 4): the first
    file of each content as ``SetSource`` (the host parses it with its own caches), a file that
    repeats the bytes of an error-free one read before as ``SetParsed`` of a copy under its own
    path (``loader.SameBytes``), also for the modules read from outside the workspace; a
    repeated file with a syntax error, a JSON file or a binary file is handed in as bytes."""
    work = tmp_path / "work"
    work.mkdir()
    _workspace(work, 3)
    (work / "copy.tf.json").write_text('{"variable": {"j": {}}}')  # the bytes of j.tf.json
    (work / "m2" / "broken.tf").write_text('resource "x" {\n')  # the bytes of broken.tf
    (work / "m2" / "bin.tf").write_bytes(b"\x00\x01")
    (work / "main.tf").write_text((work / "main.tf").read_text() + 'module "out" {\n  source = "../outside"\n}\n')
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "main.tf").write_bytes((work / "m0" / "main.tf").read_bytes())
    changes = []
    apply = loader.AnalysisHost.apply_change

    def recording(host, change):
        changes.append(change)
        apply(host, change)

    monkeypatch.setattr(loader.AnalysisHost, "apply_change", recording)
    loader.load_workspace(work)
    handed = [(type(c).__name__, c.hcl.path if isinstance(c, loader.SetParsed) else c.path) for c in changes
              if type(c).__name__ in ("SetSource", "SetParsed")]
    assert handed == [
        ("SetSource", "bin.tf"), ("SetSource", "broken.tf"), ("SetSource", "copy.tf.json"), ("SetSource", "j.tf.json"),
        ("SetSource", "main.tf"), ("SetSource", "terraform.tfvars"), ("SetSource", "variables.tf"),
        ("SetSource", "m0/main.tf"), ("SetParsed", "m1/main.tf"),
        ("SetSource", "m2/bin.tf"), ("SetSource", "m2/broken.tf"), ("SetParsed", "m2/main.tf"),
        ("SetParsed", "../outside/main.tf"),
    ]
    copy = next(c.hcl for c in changes if isinstance(c, loader.SetParsed) and c.hcl.path == "m1/main.tf")
    assert copy.tree is None and {b.span.file for b in copy.body.blocks} == {"m1/main.tf"}
