"""A keystroke's parse of an open document: the region of the text the edit touched, parsed alone.

tree-sitter's incremental parse of a whole file reuses the subtrees an edit left alone, but still
walks every top-level item of the file: 0.2-0.3 ms per keystroke in a 2,858-line root ``main.tf``
of 200 module calls against 0.02 ms in a small one (docs/performance.md, "A keystroke parses its
block, session 13"). An edit inside an error-free document re-parses only the top-level items of
the last parse that it overlaps (``parse_edit``); the blocks before and after the region are
taken over as they are (``hclfile.take_region``: their spans are relative to their anchors), and
no tree of the whole file is kept: a block's nodes are parsed again from its range when asked
(``TopLevel.node``; the region's own tree is asked first, ``reparser.kept_tree``).

Why the region parsed alone reads as it does in the whole file. The last parse was error-free and
its top-level items are all blocks. The region is ``[start, end)``: ``start`` is where the last
block before the edit ends (with an unchanged byte after it, so that its closing ``}`` is the same
token) or the start of the text, ``end`` where the first block after the edit starts, moved by
what the edit added (with an unchanged byte before it), or the end of the text; and ``end`` is
at the start of a line, else the region takes in the blocks after it until it is. Then:

- Before ``start`` the text is unchanged, and a parse that reaches ``start`` has just closed a
  top-level block: it is between items, no string, heredoc, template or comment open, as a parse
  of the region alone is at its first byte. The region alone must parse without an error and as a
  body (a lone ``{ }`` parses as a JSON-like object, which a body cannot follow).
- An error-free parse of the region ends between items too: every string, heredoc, template,
  ``/* */`` comment and brace it opened is closed inside it (one left open is an error when the
  text ends: an opened heredoc, string or ``/*`` that would swallow the text below falls back).
  A ``#`` or ``//`` comment ends with its line, and ``end`` is at a line's start: no comment the
  edit wrote reaches the first block after the region (``x = 1 # }`` written before a block on
  the same line would comment it out: that block is then in the region).
- The text from ``end`` on is the last parse's, which read it from the same state (between items,
  after a line break); tree-sitter-hcl's grammar has no token across a line break outside strings,
  heredocs and comments, and no top-level item continues another: blocks before, the region's
  items, blocks after read as one body, each as it reads alone.

Heredocs, ``/* */`` comments and CRLF line endings change none of this. A heredoc or block
comment in a block before ``start`` or from ``end`` on was closed where the last parse closed it
(it read them error-free, between the same items); one the region holds is closed inside it,
or the region alone ends inside it, an error (an opener typed, ``<<EOT`` or ``/*``, that would
swallow the blocks below; a terminator line or ``*/`` deleted; a ``*/`` typed inside a comment
leaves the rest of it to read as code). So neither end of the region lies inside one, and the
lines tree-sitter reads across (a heredoc's, a comment's) are the region's own. A CRLF line
break is read as a line break: the region starts at the ``"\n"`` of the ``}`` line's CRLF (the
``"\r"``, unchanged, stays with the block before, as whitespace), and ends at a line's start.

So the region's items, spans and nodes are those of a fresh parse of the whole text. What the
analysis adds to tree-sitter's reading is checked on the region alone, since it was found clean
outside it by the last parse: an argument set twice in a block, the rules tree-sitter does not
enforce (both read the region's nodes); and a shape Terraform may reject
(``error_shapes.suspicious``). The shapes lie within a line and the region is whole lines, so
the search of the region alone is the search of the text, but for a text with ``<<`` or ``/*``
(now or before the edit): the search first drops what it takes for heredocs' and comments' lines,
by openers and terminators found from the start of the text, not by tree-sitter's reading (a
``/*`` in a string runs to the next ``*/``, a ``<<EOT`` in a ``#`` comment to the next ``EOT``
line), which may hide a line of the region or show one outside it. Then the whole text is
searched, as a fresh parse searches it (regular expressions in C: 1.6 ms for 73 KB, against 27
ms for its whole parse). Whatever cannot be shown (a region with an error, a shape, a top-level
argument, a byte-order mark at its start, the first or a broken last parse, a last parse whose
text had a shape) is parsed as before: the whole text, ``hclfile.parse_file``; but a region with
an error, or a keystroke in a text read in pieces, first asks the pieces (``syntax.pieces``),
which read a broken text without parsing it whole. The property tests:
tests/syntax/test_region_parse.py, tests/syntax/test_soak7_broken_pieces.py.
"""

from __future__ import annotations

import weakref

from . import is_json_path
from .error_shapes import heredoc_markers, stripped, suspicious
from .expr import ExprConverter
from .hclfile import BOM, Body, HclFile, edited_items, item_place, only_blocks, take_region
from .parsers import reparser
from .pieces import read_if_broken
from .searches import openers as count_openers
from .set_twice import first_set_twice
from .tree_errors import check_terraform_rules, rules_candidate

__all__ = ["parse_edit"]


def parse_edit(path: str, source: bytes, previous: HclFile | None, unchanged: tuple[int, int] | None) -> HclFile | None:
    """The parse of ``source``, an edit of the text ``previous`` read (``unchanged``: how many
    bytes at its start and end the edit left alone), from the region the edit touched parsed
    alone (see the module), or None when the region cannot be parsed alone: the caller parses
    the whole text. A text with a syntax error (the last one read in pieces, or this region
    alone) is read from its pieces when they show the error (``syntax.pieces``)."""
    if previous is not None and previous.nodes is not None and previous.path == path:
        return read_if_broken(path, source)  # (a broken document's keystroke: its pieces first)
    if (previous is None or unchanged is None or previous.items is None or previous.errors or previous.path != path
            or is_json_path(path) or previous.searched[0] is not False or not only_blocks(previous)):
        return None
    items = previous.items
    delta = len(source) - len(previous.source)
    first, last = edited_items(previous, len(source), unchanged)
    start = item_place(items[first - 1])[2] if first else 0
    if start and source[start : start + 2] == b"\r\n":
        start += 1  # (a CRLF line: the region starts at its "\n", the "\r" stays with the block before)
    while last < len(items) and source[item_place(items[last])[1] + delta - 1] != 0x0A:
        last += 1  # (the region ends at a line's start)
    end = item_place(items[last])[1] + delta if last < len(items) else len(source)
    if not start and source.startswith(BOM):
        return None
    if not (start == 0 or start == len(source) or source[start] == 0x0A):
        return None  # (a region not of whole lines)
    text = source[start:end]
    # (counted in the region: what lies outside it is the last parse's text, and no "<<" or "/*"
    # reaches across its ends, a "}" or a line break)
    before = previous.openers if previous.openers is not None else count_openers(previous.source)
    openers = before - count_openers(previous.source[start : end - delta]) + count_openers(text)
    plain = not (before or openers)
    shape = plain and suspicious(text)  # (a shape Terraform may reject: the whole text is read)
    tree = reparser.kept_tree(source, start, end)  # (parsed even so: a region with an error asks the pieces)
    root = tree.root_node
    top = next((child.children for child in root.children if child.type == "body"), [])
    if (shape or root.has_error or any(child.type != "body" and child.type != "comment" for child in root.children)
            or any(node.type == "attribute" for node in top)):  # (a top-level argument's spans are absolute)
        # The whole text is read. The region's tree is not asked for nodes: what it read is not
        # what the text reads (a top-level item's node is then parsed from its own range).
        reparser.recent.pop((id(source), start, end), None)
        return read_if_broken(path, source) if root.has_error else None
    local = None  # (``HclFile.strips_local``)
    if not plain:
        # (the search drops heredocs' and comments' lines, found from the start of the text: the
        # region alone when every piece of the text finds their ends in itself, else the whole
        # text, as a fresh parse searches it: C, 1.6 ms for 73 KB)
        local = _strips_local(previous, source, start, end, delta, top)
        if not local and suspicious(source):
            return None
    if first_set_twice(source, tree, [(n.start_byte, n.end_byte) for n in top if n.type == "block"], None, False) is not None:
        return None
    candidate = rules_candidate(text)
    if candidate:
        errors: list = []
        check_terraform_rules(root, source, path, errors, lambda _: True)
        if errors:
            return None
    # Nothing can fail from here on: the last parse's blocks are taken over (and moved).
    converter = ExprConverter(source, path, keep_nodes=True)
    body = Body()
    fresh, new_items, moved, read = take_region(top, body, converter, previous, first, last, start, end)
    # What the text searches answered for the whole text: none finds a shape outside the region
    # (the last parse's answers), the region's own say the rest.
    answers = (False, True if candidate else (False if previous.searched[1] is False else None))
    return HclFile(path, source, None, body, [], (), moved, True, new_items, answers, fresh,
                   (weakref.ref(previous.body), *read[3:]), openers=openers, strips_local=local)


def _strips_local(previous: HclFile, source: bytes, start: int, end: int, delta: int, top: list) -> bool:
    """Whether the shapes' search finds nothing in ``source`` (``previous``'s text edited, the
    region ``[start, end)`` parsed to the top-level nodes ``top``), shown from the region alone.

    The search reads the text ``error_shapes.stripped``: the lines of what it takes for heredocs
    and comments taken out, by a scan from the start of the text. Cut the text at every top-level
    block's start and end: when each piece, scanned alone, finds the end of every heredoc and
    comment it takes out (``stripped``'s second answer), the scan of the text is the scans of the
    pieces one after the other (the scan enters each piece with nothing open, and finds in it the
    same ends it finds alone), so a line of the stripped text is a line of a stripped piece. The
    pieces before ``start`` and from ``end`` on are the last parse's, whose search found nothing;
    then the stripped text's lines outside the region are lines its search read, and the search
    of the region alone (the region's pieces found their ends too) is the search of the text,
    but for one thing read across the text: a line holding a name alone is no shape when a
    heredoc anywhere has that name, so the region must keep the names its last text had. What
    this shows holds for the text (``strips_local``): the next edit looks at its region alone.
    What it cannot show (False) is kept too: the next edits search the whole text without
    scanning its pieces again, until a parse of the whole text."""
    local = previous.strips_local
    if local is None:  # (a text read whole: its pieces are scanned once)
        local = _pieces_closed(previous.source, [item_place(item)[1:3] for item in previous.items], 0, len(previous.source))
    text = source[start:end]
    if not local or not _pieces_closed(source, [(n.start_byte, n.end_byte) for n in top if n.type == "block"], start, end):
        return False
    old, new = stripped(b"\n" + previous.source[start : end - delta])[0], stripped(b"\n" + text)[0]
    return heredoc_markers(old) <= heredoc_markers(new) and not suspicious(text)


def _pieces_closed(source: bytes, blocks: list, start: int, end: int) -> bool:
    """Whether each piece of ``source[start:end]`` cut at the starts and ends of ``blocks``
    ((start, end) each, in order) finds the end of every heredoc and comment it takes out."""
    cuts = [start, *[at for block in blocks for at in block], end]
    for i in range(len(cuts) - 1):
        piece = source[cuts[i] : cuts[i + 1]]
        if (b"<<" in piece or b"/*" in piece) and not stripped(b"\n" + piece)[1]:
            return False
    return True
