"""The findings of a file with a syntax error hold one item's node at a time, not every item's.

A broken file is read piece by piece and keeps no tree (``syntax.hclfile.read_in_pieces``); its
findings (``stir.file_findings._by_text``) read each top-level item's references, parsing the
item again when the last answer had none for its text. Each ``TopLevel`` keeps the node it
parsed, and so its tree: walked from the list ``HclFile.top_levels`` gives, the findings of the
1,000-module root's broken ``main.tf`` held all 204 items' trees until the last one was read,
3.8 MiB of tree-sitter's nodes in Python's arenas, with the entries and findings that live on
allocated among them (bench/README.md, "Issue 23: the soak's other transients, session 15").
Here the transient of the findings step (its tracemalloc peak above what it leaves alive) is
compared with what all the items' trees take together.
"""

from __future__ import annotations

import gc
import tracemalloc

from tfphi.analysis import AnalysisHost, SetParsed, SetSource
from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.hclfile import new_parser
from tfphi.syntax.parsers import reparser

from calls_text import module_calls

CALLS = 200


def _root_text() -> str:
    blocks = ['variable "region" {\n  default = "eu-west-1"\n}\n\nlocals {\n  tags = { team = "core" }\n}\n']
    blocks += module_calls(CALLS, peer=True)
    return "\n".join(blocks)


def _position(text: str, at: int) -> tuple[int, int]:
    return text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)


def test_a_broken_files_findings_hold_one_items_tree_at_a_time():
    text = _root_text()
    host = AnalysisHost()
    host.apply_change([SetSource("variables.tf", b'variable "unused" {}\n')])
    doc = Document("file:///w/main.tf", 1, text.encode(), "utf-16", "terraform")
    parser = new_parser()
    host.apply_change(SetParsed(doc.parse("main.tf", parser)))
    host.snapshot().findings("")
    at = text.index('module "svc_100"')
    doc.apply([TextChange("(", (_position(text, at), _position(text, at)))], 2)  # a syntax error
    hcl = doc.parse("main.tf", parser)
    assert hcl.errors and hcl.tree is None
    host.apply_change(SetParsed(hcl))
    snapshot = host.snapshot()

    gc.collect()
    tracemalloc.start()
    try:
        findings = snapshot.findings("")
        after, peak = tracemalloc.get_traced_memory()
        items = [reparser.node(top.source, top.start_byte, top.end_byte, top.type) for top in hcl.top_levels()]
        all_trees = tracemalloc.get_traced_memory()[0] - after
    finally:
        tracemalloc.stop()
    del items
    assert findings is not None
    transient = peak - after
    assert all_trees > 1 << 20, all_trees  # (the 202 items' trees: about 2.1 MiB)
    assert transient < all_trees / 4, (transient, all_trees)  # (before: 2.12 MiB of 2.17 held at once; after: 0.21)
