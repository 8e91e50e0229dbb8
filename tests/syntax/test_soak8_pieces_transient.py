"""A broken file read piece by piece lets each piece's tree go once its items are read.

``hclfile.read_in_pieces`` reads a file with a syntax error from the trees of its pieces
(``tree_errors.parse_in_pieces``). It held every piece's tree until the last item was read, so
the file's items, which live on, were allocated among 3.8 MiB of tree-sitter's nodes (the
1,000-module root's broken ``main.tf``: a 6.2 MiB peak, the soak's largest after soak7's change;
bench/README.md, "Issue 23: the soak's other transients, session 15"). Here the reading's peak of
traced memory is compared with the pieces' trees and what the reading keeps: holding both at
once, it reached their sum.
"""

from __future__ import annotations

import gc
import tracemalloc

from tfphi.syntax.hclfile import parse_file, read_in_pieces
from tfphi.syntax.parsers import reparser
from tfphi.syntax.tree_errors import parse_in_pieces

from calls_text import module_calls

CALLS = 200


def _broken_text() -> bytes:
    blocks = ['variable "region" {\n  default = "eu-west-1"\n}\n', *module_calls(CALLS, peer=False)]
    blocks.insert(CALLS // 2, "(\n")  # a syntax error between two blocks
    return "\n".join(blocks).encode()


def test_a_broken_files_pieces_go_as_they_are_read():
    source = _broken_text()
    read_in_pieces("main.tf", source)  # (what a first reading loads or caches once is not the reading's peak)
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        pieces = parse_in_pieces(source, lambda first, last: reparser.tree(source, first, last))
        trees = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.reset_peak()
        hcl = read_in_pieces("main.tf", source, pieces=pieces)
        kept, peak = tracemalloc.get_traced_memory()  # (kept: for the message)
    finally:
        tracemalloc.stop()
    kept -= start
    peak -= start
    assert hcl.errors and len(hcl.body.blocks) == CALLS + 1
    assert trees > 1 << 20, trees  # (the pieces' trees: about 2.3 MiB)
    # Before: every tree and every item at once (3.38 MiB against 2.13 of trees); now the trees
    # go while the items come (2.16 MiB: about the larger of the two).
    assert peak < trees * 1.25, (peak, trees, kept)


def test_the_pieces_answer_is_the_whole_parses():
    source = _broken_text()
    whole = parse_file("main.tf", source)
    pieces = read_in_pieces("main.tf", source)
    assert [(e.span, e.message) for e in pieces.errors] == [(e.span, e.message) for e in whole.errors]
    assert [(b.type, b.labels, b.span) for b in pieces.body.blocks] == [(b.type, b.labels, b.span) for b in whole.body.blocks]
