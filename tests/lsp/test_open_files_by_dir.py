"""``LiveWorkspace.open_files_by_dir`` (what a publication reads instead of every open document)
is, after any sequence of opens, closes and passes, what the open documents fed to the folder say."""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st
from pygls.uris import from_fs_path

from tfphi.analysis import file_kind
from tfphi.lsp.workspace import LiveWorkspace
from tfphi.stir.workspace import module_dir_of

FILES = ["main.tf", "outputs.tf", "modules/a/main.tf", "modules/a/b/x.tf", "terraform.tfvars", ".tfphi.toml", "notes.txt"]


def expected(ws: LiveWorkspace, folder) -> dict:
    by_dir: dict = {}
    for _, rel in ws.open_documents_in(folder):
        by_dir.setdefault(module_dir_of(rel) if file_kind(rel) == "tf" else None, set()).add(rel)
    return {key: frozenset(rels) for key, rels in by_dir.items()}


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["open", "close", "flush"]), st.sampled_from(FILES)), max_size=14))
def test_the_index_is_what_the_open_documents_say(steps):
    with tempfile.TemporaryDirectory() as root:
        for rel in FILES:
            os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write("")
        ws = LiveWorkspace("utf-16")
        folder = ws.add_folder(from_fs_path(root), "ws")
        version = 0
        for action, rel in steps + [("flush", "")]:
            uri = ws.uri_for(folder, rel) if rel else ""
            if action == "open" and ws.documents.get(uri) is None:
                version += 1
                ws.open(uri, version, "a = 1\n")
            elif action == "close" and ws.documents.get(uri) is not None:
                ws.close(uri)
            elif action == "flush":
                ws.flush()
            assert ws.open_files_by_dir(folder) == expected(ws, folder)
