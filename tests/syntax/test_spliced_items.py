"""A keystroke's parse of an open document makes nothing per top-level block below the edit
(bench/README.md, "Issue 23: a root keystroke's cost in the workspace's size, session 12"):
``HclFile.items`` holds each top-level block as itself, where its anchor is, so that the splice
(``hclfile._splice``) moves the blocks below an edit by moving their anchors, and the items of
the parse before stay the items of the parse after, the same objects. (It made every item below
the edit again, a tuple of absolute offsets: 1,200 of them per keystroke in the root of the
1,000-module workspace, made and then freed.) Where the items are is checked against a fresh
parse, on generated edits, by tests/host/test_incremental_parse.py."""

from __future__ import annotations

from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.hclfile import item_place, new_parser, parse_file

TEXT = "".join(f'module "m{i}" {{\n  source = "./m"\n  size   = {i}\n}}\n\n' for i in range(200))


def test_the_items_below_an_edit_are_the_last_parse_s_own_at_their_new_place():
    parser = new_parser()
    doc = Document("main.tf", 0, TEXT.encode())
    doc.parse("main.tf", parser)
    doc.apply([TextChange("1", ((2, 12), (2, 12)))], 1)  # ("size = 01": the first parse after opening keeps no items)
    before = doc.parse("main.tf", parser)
    places = [item_place(item)[:3] for item in before.items]
    doc.apply([TextChange("\n# x", ((9, 0), (9, 0)))], 2)  # (a line and a comment above the third block)
    after = doc.parse("main.tf", parser)
    assert after.splice is not None  # (spliced: the region between the text kept before and after)
    assert len(after.items) == len(before.items) == 200
    assert all(a is b for a, b in zip(after.items, before.items))
    fresh = parse_file("main.tf", after.source, parser)
    assert [item_place(item)[:3] for item in after.items] == [("block", b.span.start, b.span.end) for b in fresh.body.blocks]
    assert [item_place(item)[:3] for item in after.items][3:] == [("block", s + 4, e + 4) for _, s, e in places[3:]]
