"""A focus answers what the complete index answers (``lsp/focus.py``: never a half-built answer).

For each module of a workspace, a document of it is opened in a fresh ``LiveWorkspace`` and a
focus is made on it, as the scheduler makes one before the folder's index; then every hover,
code lens and inlay hint of the module's files, at every word of their text, is compared with the
complete index's.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from pygls.uris import from_fs_path

from tfphi.specialize.code_lens import code_lenses
from tfphi.features.hover import hover_at
from tfphi.features.inlay_hints import inlay_hints
from tfphi.lsp.focus import build_focus
from tfphi.lsp.workspace import LiveWorkspace
from tfphi.stir.workspace import module_dir_of

from lsp_helpers import EXAMPLE, REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import generate  # noqa: E402

WORD = re.compile(rb"[A-Za-z_\"]")


def indexed(root: Path):
    """A workspace with every file of ``root`` read: its folder, its files and its complete snapshot."""
    ws = LiveWorkspace()
    folder = ws.add_folder(from_fs_path(str(root)), root.name)
    ws.read_config(folder)
    rels = ws.scan(folder)
    for rel in rels:
        ws.load(folder, rel)
    return folder, rels, folder.snapshot()


def focused(root: Path, rel: str):
    """A fresh workspace on ``root`` with ``rel`` open, and the focus on its module (None when none is made)."""
    ws = LiveWorkspace()
    folder = ws.add_folder(from_fs_path(str(root)), root.name)
    ws.read_config(folder)
    rels = ws.scan(folder)
    path = root / rel
    ws.open(from_fs_path(str(path)), 1, path.read_text(encoding="utf-8"))
    return build_focus(ws, folder, rels, frozenset({module_dir_of(rel)}), {}, max_share=1.0)  # small workspaces too


def answers(snapshot, rel: str) -> list:
    source = snapshot.files[rel].source
    found = [("lens", code_lenses(snapshot, rel)), ("hints", inlay_hints(snapshot, rel, 0, len(source)))]
    for match in WORD.finditer(source):
        if match.start() == 0 or not source[match.start() - 1 : match.start()].isalnum():
            found.append((match.start(), hover_at(snapshot, rel, match.start() + 1)))
    return found


SIBLINGS = {
    "main.tf": 'variable "mode" {\n  default = "prod"\n}\n\nmodule "net" {\n  source = "./net"\n  mode   = var.mode\n}\n\n'
               'module "svc" {\n  source = "./svc"\n  engine = module.net.version\n}\n\n'
               'output "all" {\n  value = [module.net, module.svc, module.other]\n}\n\n'
               'module "other" {\n  source = "./other"\n}\n',
    "net/main.tf": 'variable "mode" {}\n\noutput "version" {\n  value = var.mode == "prod" ? "15.4" : "14.9"\n}\n',
    "svc/main.tf": 'variable "engine" {}\n\nmodule "db" {\n  source = "../db"\n  engine_version = var.engine\n}\n',
    "db/main.tf": 'variable "engine_version" {}\n\nresource "aws_db_instance" "this" {\n  engine         = "postgres"\n'
                  '  engine_version = var.engine_version\n}\n',
    "db/examples/basic/main.tf": 'module "database" {\n  source         = "../.."\n  engine_version = "16.2"\n}\n',
    "other/main.tf": 'output "x" {\n  value = 1\n}\n',
    **{f"filler/f{n}/main.tf": f'locals {{\n  n = {n}\n}}\n' for n in range(12)},
}


def sample_workspace(kind: str, root: Path) -> Path:
    if kind == "vendor-stack":
        shutil.copytree(EXAMPLE, root)
    elif kind == "generated":
        generate(root, 20, seed=3)
    else:
        for rel, text in SIBLINGS.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("kind", ["siblings", "vendor-stack", "generated"])
def test_a_focus_answers_what_the_complete_index_answers(tmp_path: Path, kind: str):
    root = sample_workspace(kind, tmp_path / kind)
    _, rels, complete = indexed(root)
    modules = sorted({module_dir_of(rel) for rel in rels if rel.endswith(".tf")})
    made = 0
    for dir in modules[:8]:
        files = [rel for rel in rels if rel.endswith(".tf") and module_dir_of(rel) == dir]
        focus = focused(root, files[0])
        if focus is None:
            continue
        made += 1
        for rel in files:
            assert answers(focus.snapshot, rel) == answers(complete, rel), rel
    assert made == min(8, len(modules))
