"""A document's parse that takes the last parse's blocks over by position (``hclfile._splice``:
only the top-level items between the text before the edit and the text after it are read)
equals a fresh parse of the same text, on the host property test's generated edits (any text
anywhere, the keystroke shapes among them): every top-level item and block with its spans,
the syntax errors, the text searches' answers; and no kept block holds an old parse's tree."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

import pytest

from host_support import LAYOUTS
from test_host_property import EXAMPLES, apply, edit

from tfphi.lsp.documents import Document
from tfphi.syntax.error_shapes import suspicious
from tfphi.syntax.hclfile import item_place, new_parser, parse_file
from tfphi.syntax.references import top_level_nodes
from tfphi.syntax.tree_errors import rules_candidate


def _blocks(hcl) -> list:
    return [(b.type, b.labels, b.span.start, b.span.end, b.label_spans, b.type_span, b.text) for b in hcl.body.blocks]


def _items(hcl) -> list:
    return [(kind, start, end, hcl.source[start:end]) for kind, start, end, _ in map(item_place, hcl.items)]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(edit(), min_size=1, max_size=12), together=st.integers(min_value=1, max_value=3))
def test_a_spliced_parse_equals_a_fresh_one(layout: str, edits, together: int):
    texts = {p: t for p, t in LAYOUTS[layout].items() if p.endswith(".tf")}
    paths = sorted(texts)
    parser = new_parser()
    docs = {p: Document(p, 0, texts[p].encode()) for p in paths}
    for p in paths:
        docs[p].parse(p, parser)
    for n, (index, where, kind, inserted, length, _read, _opened) in enumerate(edits):
        path = paths[index % len(paths)]
        texts[path], change = apply(texts[path], where, kind, inserted, length)
        docs[path].apply([change], n + 1)
        if n % together:
            continue  # several changes before the next parse
        for p, doc in docs.items():
            hcl = doc.parse(p, parser)
            fresh = parse_file(p, texts[p].encode(), parser)
            assert _blocks(hcl) == _blocks(fresh)
            assert [(e.span.start, e.span.end, e.message) for e in hcl.errors] == [(e.span.start, e.span.end, e.message) for e in fresh.errors]
            if hcl.items is not None:
                fresh_items = [(n.type, n.start_byte, n.end_byte, hcl.source[n.start_byte:n.end_byte])
                               for n in top_level_nodes(fresh.tree.root_node)]
                assert _items(hcl) == fresh_items
                assert not [b for b in hcl.body.blocks if b not in hcl.fresh and b._converter.source is not b.text]  # (each reads its own text)
            for answer, search in zip(hcl.searched, (suspicious, rules_candidate)):
                assert answer is None or answer == bool(search(hcl.source))


def _position(source: bytes, offset: int) -> tuple[int, int]:
    """(line, UTF-16 column) of a byte offset: where an editor reads it."""
    line_start = source.rfind(b"\n", 0, offset) + 1
    return source.count(b"\n", 0, offset), len(source[line_start:offset].decode("utf-8", "replace").encode("utf-16-le")) // 2


def _positions(hcl) -> dict[int, tuple]:
    """Each top-level block (by identity) -> the editor's positions of its spans."""
    return {id(b): (b, [_position(hcl.source, o) for span in (b.span, b.type_span, *b.label_spans) for o in (span.start, span.end)])
            for b in hcl.body.blocks}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(edit(), min_size=1, max_size=12), together=st.integers(min_value=1, max_value=3))
# Three changes in one parse: a `#` taken away and a line added above a block leave its bytes
# where they were, a line lower (the block is in the spliced region, taken over by its text).
@example(edits=[(0, 0.0, "insert", "# note\n", 1, "all", False), (0, 0.0, "delete", "\n", 1, "all", False),
                (0, 1.0, "insert", "\n", 1, "all", False), (0, 0.0, "insert", "\n", 1, "all", False)], together=3)
# A character replaced by a line break: no byte moves, every line below it does.
@example(edits=[(0, 0.3, "replace", "\n", 1, "all", False)], together=1)
def test_a_parse_that_says_nothing_moved_keeps_every_taken_over_block_at_its_line_and_column(layout: str, edits, together: int):
    """``HclFile.moved`` False (the host then republishes nothing about the blocks it took over):
    every block taken over from the last parse is at the same lines and columns, though its bytes
    may have moved (a keystroke above it that adds no line)."""
    texts = {p: t for p, t in LAYOUTS[layout].items() if p.endswith(".tf")}
    paths = sorted(texts)
    parser = new_parser()
    docs = {p: Document(p, 0, texts[p].encode()) for p in paths}
    last = {p: _positions(docs[p].parse(p, parser)) for p in paths}
    for n, (index, where, kind, inserted, length, _read, _opened) in enumerate(edits):
        path = paths[index % len(paths)]
        texts[path], change = apply(texts[path], where, kind, inserted, length)
        docs[path].apply([change], n + 1)
        if n % together:
            continue
        for p, doc in docs.items():
            hcl = doc.parse(p, parser)
            now = _positions(hcl)
            if not hcl.moved:
                for key, (block, places) in now.items():
                    before = last[p].get(key)
                    if before is not None and before[0] is block:
                        assert places == before[1], (p, block.type, block.labels)
            last[p] = now
