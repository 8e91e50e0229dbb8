"""Parsing one HCL file with tree-sitter-hcl into typed views: blocks, attributes, syntax errors.

Parsing never fails: a file always yields a body (possibly partial) and a list of errors.
The expressions of attributes are converted lazily, the first time somebody asks.

Trees are large (about 60 bytes per byte of source) and most of a workspace is never
edited, so a file parsed with ``keep_tree=False`` (the files on disk, not open in an
editor) keeps no tree once its structure is read: its blocks and attributes remember
byte ranges, and the first question about one of them parses that range alone again
(``Parser.included_ranges``: the nodes keep the file's byte offsets, so spans are
unchanged). A block's body is read from a parse of its top-level block, an attribute's
expression from a parse of the attribute alone (a trace reads a few arguments of a large
module call); the few most recent of those small trees are kept and asked first
(``syntax.parsers``). A file with a syntax error is read piece by piece from its block headers
and keeps no tree of the whole text (``read_in_pieces``).
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from typing import Callable
from sys import intern

from tree_sitter import Node, Tree

from ..records import WeaklyReferenced, record, field
from . import is_json_path
from .error_shapes import SyntaxProblem, suspicious, terraform_placed
from .expr import Anchor, ExprConverter, ScopeTraversalExpr, Span
from .references import block_references, top_level_nodes
from .parsers import HclParser, exact_node, new_parser, reparser  # noqa: F401 - (new_parser: read from here)
from .attributes import Attribute, copied_attribute, reread
from .searches import CleanSources, openers, searched
from .set_twice import first_set_twice, redefined_errors
from .tree_errors import check_terraform_rules, collect_errors, parse_in_pieces, place_unclosed_block, rules_candidate

BOM = b"\xef\xbb\xbf"


def read_block(node: Node, source: bytes, path: str) -> "Block | None":
    """The top-level block of a ``block`` node of ``source``, read as a parse of ``path`` reads it."""
    return _read_block(node, ExprConverter(source, path))


@record(slots=True)
class Body(WeaklyReferenced):
    attributes: dict[str, Attribute] = field(default_factory=dict)
    blocks: list["Block"] = field(default_factory=list)

    def blocks_of(self, block_type: str) -> list["Block"]:
        return [b for b in self.blocks if b.type == block_type]


def _settled(body: Body) -> Body:
    """A block's body once read: no nested blocks is the shared empty tuple (a file's body keeps a list)."""
    if not body.blocks:
        body.blocks = ()
    return body


class Block:
    """A block; its body is read from the tree on first use (most nested bodies are never needed).

    A top-level block has an anchor of its own (``_anchor``), its place in the file: its spans
    and those of everything in it are relative to that anchor, so the next parse of an edited
    file takes the block over as it is when its text is unchanged (``_take_over``), wherever it
    now is. It reads its bytes through its file's converter (``_converter``, one per file; once
    taken over, a converter of its own text: ``_detach``) from ``base`` on; its attributes and nested
    blocks read theirs through its ``Place`` (their ``_converter``): no converter per block is
    kept, one is made when an expression is converted (``converter``).

    A block read from HCL keeps offsets in one tuple (``_at``: its start and end from its top-level
    block's ``base``, 0 and its length for a top-level block; then the type's length, each label's start and end from the block's start:
    small shared integers) and makes ``span``, ``type_span`` and ``label_spans`` when asked
    (docs/positions.md). The files read together share equal tuples of offsets and of labels
    (``ExprConverter.shared``: a workspace's blocks have a few hundred of each). A block built
    with its spans (``.tf.json``, no converter) keeps them: (type span, span, labels').

    A block of a file read without its tree keeps no node (``TreeBlock`` does)."""

    __slots__ = ("type", "labels", "_at", "_converter", "_anchor", "_body", "_text", "_verdicts", "_place")
    _node: Node | None = None
    _reparse = True  # its body is read from a parse of its range alone (its file's tree is gone)
    _broken = False  # what its text parses to may depend on the text around it: never taken over

    def __init__(self, type: str, labels: tuple[str, ...], label_spans: tuple[Span, ...], type_span: Span,
                 body: Body | None, span: Span):
        self.type, self.labels, self._at, self._body = type, labels, (type_span, span, label_spans), body
        self._converter = self._anchor = self._text = self._verdicts = self._place = None

    @classmethod
    def read(cls, type: str, labels: tuple[str, ...], at: tuple[int, ...], node: Node, converter: ExprConverter,
             eager: bool = False, body_node: Node | None = None, top: "Place | None" = None) -> "Block":
        """A block read from ``node`` with ``converter`` (its top-level block's: ``for_block``;
        ``at``: see the class), nested in ``top``, or a top-level block when None."""
        with_node = converter.keep_nodes or node.has_error
        self = TreeBlock.__new__(TreeBlock) if with_node else cls.__new__(cls)
        self.type, self.labels, self._at, self._body, self._place = type, labels, at, None, None
        if top is None:
            self._converter, self._anchor = converter.owner, converter.anchor
        else:
            self._converter, self._anchor = top, None
        self._text: bytes | None = None  # a top-level block's text, once asked (``text``)
        self._verdicts: list | None = None  # the file-wide text searches' answers for this block (``syntax.searches``)
        if with_node:
            # Without the file's tree, the body is read from a parse of the block's range alone.
            self._reparse = not converter.keep_nodes
            self._node = None if self._reparse else node
            self._broken = node.has_error
        if eager and self._reparse:
            # Read now, from the tree still at hand: every module build reads this body
            # (``body_node``: the node of the body, when the caller has it at hand).
            body = Body()
            for child in (body_node,) if body_node is not None else node.children:
                if child.type == "body":
                    _read_body(child, body, converter, top or self.place, eager=True)
            self._body = _settled(body)
        return self

    # ---- where it is: its spans, made from its anchor when asked

    def _where(self) -> tuple[str, Anchor]:
        """(its file, the anchor its offsets are from: its own, or its top-level block's)."""
        if self._anchor is not None:
            return self._converter.file, self._anchor
        top = self._converter
        return top._converter.file, top._anchor

    @property
    def span(self) -> Span:
        at = self._at
        if self._converter is None:
            return at[1]
        file, anchor = self._where()
        return Span(file, at[0], at[1], anchor)

    @property
    def type_span(self) -> Span:
        at = self._at
        if self._converter is None:
            return at[0]
        file, anchor = self._where()
        return Span(file, at[0], at[0] + at[2], anchor)

    def label_span(self, index: int) -> Span:
        """``label_spans[index]``, made alone."""
        at = self._at
        if self._converter is None:
            return at[2][index]
        first, last = range(3, len(at), 2)[index], range(4, len(at), 2)[index]  # (IndexError as a tuple's)
        file, anchor = self._where()
        return Span(file, at[0] + at[first], at[0] + at[last], anchor)

    @property
    def label_spans(self) -> tuple[Span, ...]:
        at = self._at
        return at[2] if self._converter is None else tuple([self.label_span(i) for i in range((len(at) - 3) // 2)])

    @property
    def place(self) -> "Place | None":
        """A top-level block's ``Place``: what its attributes and nested blocks read through."""
        if self._place is None and self._anchor is not None and self._converter is not None:
            self._place = Place(self._converter, self._anchor, self._at[1])
        return self._place

    @property
    def base(self) -> int:
        """Where a top-level block starts in the bytes it reads (``Place.base``)."""
        return self._anchor.start if self._converter.anchor is None else 0

    @property
    def text(self) -> bytes:
        """A top-level block's text (what its derived data is a function of, with its anchor)."""
        if self._text is None:
            base = self.base
            self._text = self._converter.source[base : base + self._at[1]]
        return self._text

    @property
    def body(self) -> Body:
        if self._body is None:
            body = Body()
            node = self._node
            is_top = self._anchor is not None
            top = self.place if is_top else self._converter
            if top is not None:
                conv = top.converter()
                if self._reparse:
                    reread(top._converter)
                    start, end = (conv.base, conv.end) if is_top else (conv.base + self._at[0], conv.base + self._at[1])
                    node = reparser.node(conv.source, start, end, "block", (conv.base, conv.end))
                if node is not None:
                    for child in node.children:
                        if child.type == "body":
                            _read_body(child, body, conv, top)
            self._body = _settled(body)
            if self._node is not None:
                self._node = None
        return self._body

    def __repr__(self) -> str:
        return f"Block({self.type!r}, {self.labels!r})"

    def attribute_names(self):
        """The names of the body's attributes."""
        return self.body.attributes.keys()

    def literal_attribute(self, name: str) -> str | None:
        """``body.attributes[name].literal_string()``, or None without the attribute."""
        attribute = self.body.attributes.get(name)
        return attribute.literal_string() if attribute is not None else None

    def iterator_name(self) -> str:
        """For a ``dynamic`` block: the name its content uses, from ``iterator = x`` or else the label."""
        attr = self.body.attributes.get("iterator")
        if attr is not None and isinstance(attr.expr, ScopeTraversalExpr):
            return attr.expr.root
        return self.labels[0] if self.labels else "dynamic"


class Place:
    """Where a top-level block's attributes and nested blocks read their bytes (their
    ``_converter``): the block's converter (its file's, or its own text's once taken over:
    ``_detach`` moves both), its anchor and its length. Apart from the block, so that nothing the
    block holds points back at it: a block -> its body -> an attribute -> the block would be a
    reference cycle, freed only by a full collection (which the server runs only when quiet,
    ``lsp/collector``), so every replaced block of a document edited without a pause would stay
    (tests/syntax/test_compact_views.py frees one by reference counting alone)."""

    __slots__ = ("_converter", "_anchor", "_length")

    def __init__(self, converter: ExprConverter, anchor: Anchor, length: int):
        self._converter, self._anchor, self._length = converter, anchor, length

    @property
    def file(self) -> str:
        return self._converter.file

    @property
    def source(self) -> bytes:
        """The bytes it reads: its file's, or the block's own text once taken over (``_detach``)."""
        return self._converter.source

    @property
    def base(self) -> int:
        """Where the block starts in ``source`` (the offsets of what it holds are from there): where
        its anchor is while it reads the parse that read it (only a block taken over moves, and
        it is detached first: ``_take_over``), 0 once it reads its own text."""
        return self._anchor.start if self._converter.anchor is None else 0

    @property
    def anchor(self) -> Anchor:
        return self._anchor

    @property
    def owner(self) -> ExprConverter:
        return self._converter

    def converter(self) -> ExprConverter:
        base = self.base
        return self._converter.for_block(base, base + self._length, self._anchor)


def _reads_its_parse(block: Block) -> bool:
    """Whether a top-level block reads the source of the parse that read it (else its own text:
    ``_detach``, whose converter carries the block's anchor; a file's converter has none)."""
    return block._converter.anchor is None


class TreeBlock(Block):
    """A block of a file whose tree is kept (an open document), or with a syntax error inside:
    its node until its body is read, and whether it is read again from a parse of its range."""

    __slots__ = ("_node", "_reparse", "_broken")


def _detach(block: Block, text: bytes) -> None:
    """Lets a top-level block taken over by a later parse read its own ``text`` from then on:
    the nodes and the source of the parse that read it are dropped (they would keep that
    text's tree and bytes alive); what was read and converted stays, its offsets relative."""
    conv = ExprConverter(text, block._converter.file, keep_nodes=False)
    conv.anchor = block._anchor  # (the mark of a converter of one block's text: ``_reads_its_parse``)
    block._text = text
    block._converter = conv  # (its ``base`` is 0 from now on)
    if block._place is not None:
        block._place._converter = conv
    _drop_nodes(block)


def _drop_nodes(block: Block) -> None:
    if block._node is not None:
        block._node, block._reparse = None, True
    body = block._body
    if body is not None:
        for attr in body.attributes.values():
            if attr._node is not None:
                attr._node = None
        for nested in body.blocks:
            _drop_nodes(nested)


def _take_over(old: Block, start: int, text: bytes) -> bool:
    """``old`` (a top-level block of an earlier parse of the same file, whose text was ``text``)
    as the block that now starts at ``start``; whether it moved."""
    if _reads_its_parse(old):
        _detach(old, text)
    anchor = old._anchor
    if anchor.start == start:
        return False
    anchor.start = start
    return True


def take_over_blocks(hcl: "HclFile", previous: "HclFile") -> None:
    """Puts the top-level blocks of ``previous`` (an earlier parse of the same native-syntax file;
    blocks read without a syntax error inside) in place of the blocks of ``hcl`` whose text they had, for a file
    parsed anew (read from disk, or opened in the editor): what was derived from them (their
    declarations, findings and traces) stays valid, wherever they now are."""
    if hcl.took_over or previous.path != hcl.path or is_json_path(hcl.path):
        return
    before: dict[bytes, Block] = {}
    for block in previous.body.blocks:
        if block._anchor is not None and not block._broken:
            before.setdefault(block.text, block)
    blocks = hcl.body.blocks
    same_until = None
    for i, block in enumerate(blocks):
        usable = block._anchor is not None and not block._broken
        old = before.pop(block.text, None) if usable else None
        if old is not None and old.type == block.type:
            start = block.span.start
            hcl.moved |= _take_over(old, start, block.text)
            if not hcl.moved:  # the same bytes can be at another line (a character replaced by a line break)
                if same_until is None:
                    same_until = _same_prefix(previous.source, hcl.source)
                hcl.moved = start > same_until
            blocks[i] = old
    hcl.took_over = True


def drop_whole_tree(hcl: "HclFile", previous: "HclFile | None") -> None:
    """Lets an error-free document's parse of its whole text keep no tree of it, as a region's
    parse keeps none (``syntax.regions``): the blocks of ``previous`` whose text is unchanged are
    taken over (``take_over_blocks``), every other block reads its own text from now on (as a
    block taken over does), and the top-level items are noted for the next edit to parse its
    region alone. Kept, the tree (3.8 MiB of tree-sitter's nodes for the 1,000-module root's
    ``main.tf``, allocated through Python's allocator) lived until the document's next edit,
    born amid the parse's transient objects: a whole-file parse after every keystroke that
    mended a syntax error left one behind (bench/README.md, "Session 14: soak6"). A file with
    a top-level argument (its spans are absolute), or with an error, keeps its tree."""
    if hcl.tree is None or hcl.errors or hcl.body.attributes or is_json_path(hcl.path):
        return
    tops = top_level_nodes(hcl.tree.root_node)
    blocks = hcl.body.blocks
    if (len(tops) != len(blocks) or any(node.type != "block" for node in tops)
            or any(block._anchor is None or block._broken for block in blocks)):
        return  # (an item that is not a block of the body: the next edit parses the whole text)
    if previous is not None:
        take_over_blocks(hcl, previous)
    for block in blocks:
        if _reads_its_parse(block):
            _detach(block, block.text)
    hcl.items = blocks  # (the same list: a host's ``take_over_blocks`` after this one replaces blocks in both)
    hcl.fresh = []
    hcl.searched = (bool(suspicious(hcl.source)), None)
    hcl.tree = None


@record(slots=True)
class HclFile:
    """One parsed file: the tree (kept for incremental reparsing, or None), its body and its syntax errors."""

    path: str
    source: bytes
    tree: Tree | None
    body: Body
    errors: list[SyntaxProblem]
    # Without the tree: each top-level node's type, start, end and, when references were read
    # before the tree was dropped, their relative references (syntax.references), four items
    # per node in one flat tuple (a tuple per node was 3 % of the server's memory; ``_tops``).
    tops: tuple = ()
    # A top-level block taken over from the last parse is at another line or column now (a parse
    # that splices the last one's items, ``_splice``), or its anchor moved (any other take-over):
    # diagnostics published about it may be elsewhere.
    moved: bool = False
    took_over: bool = False  # the blocks of the last parse whose text is unchanged were taken over (``take_over_blocks``)
    # A document's parse that took the last one's blocks over: every top-level item but comments,
    # a block as itself (where its anchor is: ``item_place``) and any other as (type, start, end,
    # None), for the next parse to splice (``_splice``, which moves the items below an edit by
    # moving their blocks' anchors: nothing made per block), and
    # what the text searches answered for the whole text (``syntax.searches``), None when not asked.
    items: list | None = None
    searched: tuple = (None, None)
    fresh: list = field(default_factory=list)  # the blocks this parse read anew (the next one detaches them)
    # (a weak reference to the last parse's body, first, last, count): this body's blocks are the
    # last one's with its blocks[first:last] replaced by count blocks (read, or taken over by
    # text); for what is derived per block (``stir.model.read_declarations``) to splice the same
    # way. Weak, not an ``id``: once the last body is gone, a later body may be given its id (a
    # document's parse that the host never saw), and would be taken for it.
    splice: tuple | None = None
    # A file with a syntax error, read piece by piece (``tree_errors.parse_in_pieces``): its
    # top-level items, a node, or (type, start, end) for an item of a piece that parsed alone.
    nodes: tuple[Node | tuple[str, int, int], ...] | None = None
    forgotten: bool = False  # what its views derived on demand was forgotten once (``forget_derived``)
    openers: int | None = None  # how many "<<" and "/*" its text holds, when a region's parse counted them (``syntax.regions``)
    strips_local: bool | None = None  # the shapes' search reads its blocks apart (``regions._strips_local``), None: not known

    def top_ranges(self) -> list[tuple[str, int, int]]:
        """(type, start, end) of each top-level item (``top_levels`` without making its views)."""
        if self.tops:
            return [(kind, start, end) for kind, start, end, _ in _tops(self.tops)]
        if self.tree is None and self.items is not None:  # (a region's parse: syntax.regions)
            return [item_place(item)[:3] for item in self.items]
        return [(top.type, top.start_byte, top.end_byte) for top in self.top_levels()]

    def top_levels(self) -> list["TopLevel"]:
        """The blocks and attributes of the file's body (and ERROR regions), with their nodes on demand."""
        if self.nodes is not None:
            return [TopLevel(self.source, *n, None, None) if isinstance(n, tuple) else
                    TopLevel(self.source, n.type, n.start_byte, n.end_byte, None, n) for n in self.nodes]
        if self.tree is None and self.items is not None:  # (a region's parse: nodes parsed again on demand)
            return [TopLevel(self.source, kind, start, end, None, None) for kind, start, end, _ in map(item_place, self.items)]
        if self.tree is not None:
            if not self.tops:
                return [TopLevel(self.source, n.type, n.start_byte, n.end_byte, None, n) for n in top_level_nodes(self.tree.root_node)]
            tree = self.tree
            return [TopLevel(self.source, kind, start, end, refs, None, tree) for kind, start, end, refs in _tops(self.tops)]
        return [TopLevel(self.source, kind, start, end, refs, None) for kind, start, end, refs in _tops(self.tops)]

    def text(self, span: Span) -> str:
        return self.source[span.start : span.end].decode("utf-8", "replace")


def _tops(flat: tuple):
    """``HclFile.tops`` as (type, start, end, references) per top-level node."""
    return zip(flat[0::4], flat[1::4], flat[2::4], flat[3::4])


class TopLevel:
    """A top-level block or attribute of a file: its range, and its node (parsed again when the file's tree was dropped)."""

    __slots__ = ("source", "type", "start_byte", "end_byte", "refs", "_node", "_tree")

    def __init__(self, source: bytes, type: str, start: int, end: int, refs: list | None, node: Node | None,
                 tree: Tree | None = None):
        self.source, self.type, self.start_byte, self.end_byte, self.refs, self._node = source, type, start, end, refs, node
        self._tree = tree

    def node(self) -> Node:
        if self._node is None and self._tree is not None:
            self._node = exact_node(self._tree, self.start_byte, self.end_byte, self.type)
        if self._node is None:
            self._node = reparser.node(self.source, self.start_byte, self.end_byte, self.type)
            assert self._node is not None, f"top-level {self.type} not found again at {self.start_byte}-{self.end_byte}"
        return self._node


def parse_file(path: str, source: bytes, parser: HclParser | None = None, old_tree: Tree | None = None,
               keep_tree: bool = True, refs_cache: dict | None = None, previous: "HclFile | None" = None,
               may_respell_source: bool | None = None, clean: "CleanSources | None" = None,
               traced: frozenset[str] = frozenset(), unchanged: tuple[int, int] | None = None) -> HclFile:
    """Parses ``source`` (incrementally when ``old_tree`` was edited to match it).

    ``keep_tree=False``: the tree is dropped once the structure and references are read
    (files nobody edits; see the module's docstring); ``refs_cache`` is the
    ``syntax.references.BlockCache`` their references are read through. ``previous``: the
    last parse of the same document, whose unchanged top-level blocks are taken over
    (``_read_top_level_taking_over``; ``unchanged``: how many bytes at the start and at the end
    of its text the edits since left alone, where the edited blocks are found). ``clean``: bytes
    already found free of syntax errors (``CleanSources``). ``traced``: see ``_EAGER_BODIES``."""
    if refs_cache is not None:  # the files read together share equal bytes: a workspace repeats whole files
        source = refs_cache.setdefault((source,), source)
    parser = parser or new_parser()
    tree = parser.parse(source, old_tree, may_respell_source)
    if tree.root_node.has_error:  # a syntax error: the file is read piece by piece (tree_errors.parse_in_pieces)
        # The broken text's tree (4-6 times a clean one's: 20-25 MiB for the 1,000-module root's
        # main.tf) goes before the pieces are read: the file's peak is its parse, not the parse
        # plus the pieces, and what the reading keeps is not placed among that tree's pages
        # (bench/README.md, "Issue 23: soak, session 10"). An open document's keystroke in a
        # broken text asks its pieces first, and comes here only when they cannot tell (``syntax.pieces``).
        del tree
        return read_in_pieces(path, source, traced)
    return build_file(path, source, tree, keep_tree, refs_cache, native=True, previous=previous, clean=clean,
                      traced=traced, unchanged=unchanged)


def read_in_pieces(path: str, source: bytes, traced: frozenset = frozenset(), pieces: list | None = None) -> HclFile:
    """A native-syntax file with a syntax error, read piece by piece from its block headers
    (``tree_errors.parse_in_pieces``; ``pieces``: its answer when already at hand, taken over and
    emptied). The items
    of the pieces with an error keep their nodes (a piece's small tree); the others, error-free,
    parse their range alone again when asked, as the blocks of a file read without its tree.
    No tree of the whole file is kept."""
    if pieces is None:
        pieces = parse_in_pieces(source, lambda start, end: reparser.tree(source, start, end))
    converter = ExprConverter(source, path, keep_nodes=True)
    light = ExprConverter(source, path, keep_nodes=False)
    body = Body()
    errors: list[SyntaxProblem] = []
    tops: list = []
    rules: list[SyntaxProblem] = []  # what Terraform's rules find, added when its own errors are not placed
    # Each piece's tree goes once its items are read (the list is taken over): holding every piece
    # while the file's items, which live on, were read was the soak's largest peak left, 6.2 MiB for
    # the 1,000-module root's broken main.tf (bench/README.md, "Issue 23: the soak's other
    # transients, session 15"); a tree of an error-free piece keeps no node read from it.
    may_break_rules = rules_candidate(source)  # (once for the text, not once per piece)
    pieces.reverse()
    while pieces:
        tree, clean = pieces.pop()
        root = tree.root_node
        if not clean:
            errors.extend(collect_errors(root, path))
        for node in top_level_nodes(root):
            _read_items((node,), body, light if clean else converter, traced=traced)
            tops.append((intern(node.type), node.start_byte, node.end_byte) if clean else node)
        check_terraform_rules(root, source, path, rules, lambda _: may_break_rules)
        del tree, root
    place_unclosed_block(source, path, errors)
    placed = terraform_placed(path, source, errors)  # as Terraform reports them
    if placed is errors:  # (Terraform's own errors, when placed, already cover the rules)
        errors.extend(rules)
    placed.sort(key=lambda e: (e.span.start, e.span.end, e.message))
    return HclFile(path, source, None, body, placed, nodes=tuple(tops))


def forget_derived(hcl: HclFile, references: bool = True, on_reread: Callable[[], None] | None = None) -> None:
    """Drops what the views of a file read without its tree (not open in an editor) derived on
    demand and derive again from its bytes (``Snapshot.release``, as the host's
    ``retention.Retention`` says): every attribute's expression, the bodies of top-level blocks
    but those module builds read (``_EAGER_BODIES``: declarations hold them), and with
    ``references`` the references read for the undefined-reference check (an editor's host keeps
    them: the next answer for the file reads them, ``stir.file_findings``). ``on_reread`` is
    called once, when a view first reads the file's bytes again (``retention.RereadViews``)."""
    if hcl.tree is None and not is_json_path(hcl.path):  # (else views read from a tree's nodes, or JSON)
        hcl.forgotten = True
        for item in (*hcl.body.blocks, *hcl.body.attributes.values()):
            conv = item._converter  # (a block's: its file's, or its own text's; an argument's: the file's)
            if conv is not None:
                conv.on_reread = on_reread
        _forget_expressions(hcl.body, top=True)
        if references and any(hcl.tops[3::4]):
            hcl.tops = tuple([x for kind, start, end, _ in _tops(hcl.tops) for x in (kind, start, end, None)])


def _forget_expressions(body: Body, top: bool = False) -> None:
    for attribute in body.attributes.values():
        attribute._expr = None
    for block in body.blocks:
        if block._body is not None:
            _forget_expressions(block._body)
            if top and block._reparse and block.type not in _EAGER_BODIES:
                block._body = None


def build_file(path: str, source: bytes, tree: Tree, keep_tree: bool = True, refs_cache: dict | None = None,
               native: bool = False, previous: "HclFile | None" = None, clean: "CleanSources | None" = None,
               traced: frozenset[str] = frozenset(), unchanged: tuple[int, int] | None = None) -> HclFile:
    """Reads the structure of an already parsed tree (``native``: a file of HCL's native syntax,
    whose syntax errors are placed where Terraform reports them; ``previous``, ``traced``,
    ``unchanged``: see ``parse_file``; ``clean``: bytes found free of errors before, whose searches are skipped, and
    where to note these bytes when they are)."""
    root = tree.root_node
    keep_tree = keep_tree or root.has_error
    converter = ExprConverter(source, path, keep_nodes=keep_tree)
    converter.shared = refs_cache  # while its views are read (``Block``), then None: it outlives the cache
    errors = collect_errors(root, path)
    body = Body()
    top = next((c for c in root.children if c.type == "body"), None)
    unchecked = body.blocks  # the top-level blocks whose bodies may set an argument twice, unread
    taken: tuple | None = None  # with ``previous``: see ``_read_top_level_taking_over``
    answers: list = [None, None]  # what the text searches answered (``HclFile.searched``)
    if top is not None and previous is not None and keep_tree and _reuse_possible(previous, path):
        taken = _read_top_level_taking_over(top, body, converter, previous, unchanged)
        # The others were read in an error-free parse (else an argument set twice in a block
        # taken over would be found no more: every block is checked again).
        unchecked = taken[0] if not previous.errors else body.blocks
    elif top is not None:
        _read_body(top, body, converter, traced=traced)
    # Blocks that tree-sitter could only recover inside an ERROR region still count.
    for child in root.children:
        if child.type == "ERROR":
            _read_body(child, body, converter)
    place_unclosed_block(source, path, errors)
    # A document parsed again after an edit asks the text searches of the blocks it took over
    # from the blocks themselves (same answer, cost of the edited block); a file read from disk
    # whose very bytes were found free of errors before skips them (``clean``).
    known_clean = native and previous is None and not errors and clean is not None and source in clean
    if not native or known_clean:
        placed = errors
    elif taken is not None and not errors and not searched(0, suspicious, source, taken, previous.searched, answers,
                                                           not openers(source) and not (previous.openers if previous.openers
                                                                                        is not None else openers(previous.source))):
        placed = errors
    else:
        placed = terraform_placed(path, source, errors, root, known=refs_cache)  # as Terraform reports them
    if native and not placed and not known_clean and not root.has_error:
        # (the blocks of a file read whole are remembered, not those an edit made: a keystroke's
        # block texts are the edit history, which the host must not keep: docs/memory.md)
        twice = _argument_set_twice(source, tree, unchecked, converter, clean, remember=previous is None)
        if twice is not None:
            placed = redefined_errors(path, source, root, twice)
    if placed is errors and not known_clean:  # (Terraform's own errors, when placed, already cover the rules)
        candidate = rules_candidate if taken is None else lambda text: searched(1, rules_candidate, text, taken, previous.searched, answers)
        check_terraform_rules(root, source, path, errors, candidate)
    errors = placed
    converter.shared = None
    if native and previous is None and not errors and not known_clean and clean is not None:
        clean.add(source)
    errors.sort(key=lambda e: (e.span.start, e.span.end, e.message))
    if taken is not None:
        splice = (weakref.ref(previous.body), *taken[3][3:]) if taken[3] is not None else None
        return HclFile(path, source, tree, body, errors, (), taken[2], True, taken[1], tuple(answers), taken[0], splice)
    if keep_tree:
        return HclFile(path, source, tree, body, errors)
    # Every file's references are read for the undefined-reference check: read them now,
    # while the tree is here, rather than parse the file a second time for them.
    cache = {} if refs_cache is None else refs_cache
    return HclFile(path, source, None, body, errors, _tops_of(top_level_nodes(root), body.blocks, source, cache))


def _tops_of(nodes, blocks, source: bytes, cache: dict) -> tuple:
    """``HclFile.tops`` of a file's top-level ``nodes`` (its ``blocks`` read from them): a block's
    start is its anchor's integer object, not a new one (an integer over 256 is an object of 28
    bytes)."""
    starts = {block._anchor.start: block._anchor.start for block in blocks if block._anchor is not None}
    tops = []
    for node in nodes:
        start = node.start_byte
        tops += (intern(node.type), starts.get(start, start), node.end_byte, block_references(node, source, cache))
    return tuple(tops)


# Blocks whose bodies every module build reads (stir.model.read_declarations): without the file's
# tree they are read at once rather than parsed again, as are resources of the ``traced`` types (with a
# registered field: a trace reads them; GKE's 26 KB clusters were parsed again, bench/README session 9).
_EAGER_BODIES = frozenset({"variable", "locals", "module", "output"})


def _read_body(node: Node, body: Body, conv: ExprConverter, top: "Place | None" = None, eager: bool = False,
               traced: frozenset = frozenset()) -> None:
    _read_items(node.children, body, conv, top, eager, traced)


def _read_items(nodes, body: Body, conv: ExprConverter, top: "Place | None" = None, eager: bool = False,
                traced: frozenset = frozenset()) -> None:
    """Reads ``nodes`` (a body's children) into ``body``: the body of the top-level block ``top``
    (or of a block nested in it) with ``top``'s converter, or with None the file's own body with
    the file's converter."""
    for child in nodes:
        kind = child.type
        if kind == "attribute":
            _add_attribute(body, _read_attribute(child, conv, top), conv)
        elif kind == "block":
            block = _read_block(child, conv, top, eager, traced) if top is not None else _read_top_block(child, conv, traced)
            if block is not None:
                body.blocks.append(block)
        elif kind == "ERROR" or kind == "body":
            _read_body(child, body, conv, top, eager, traced)


# The files read together from disk (``ExprConverter.shared``: the host's ``BlockCache``, until its
# next snapshot) repeat whole top-level blocks: each example's ``versions.tf`` block, the same
# variables in every example (3,250 of the corpus's 7,642 blocks repeat a text read before). A
# block whose text was read before is a copy of the first one read (its views are relative to
# its anchor: ``copied_block``), not read again from the tree: what a block's text reads to does not
# depend on the text around it in an error-free file (what ``take_over_blocks`` relies on too).
# Such a first block is found through its text's references, which the cache holds once per
# text: keyed by that list's identity, the entry holds the list, so the identity is never reused.
_FIRST_READ = object()


def _read_top_block(node: Node, conv: ExprConverter, traced: frozenset) -> Block | None:
    """``_read_block`` of a top-level block read with the file's converter ``conv``, or a copy of
    the first block of the same text read with the same ``traced`` types (files read without
    their trees, error-free), whose reading found no argument set twice (it says so to ``conv``)."""
    shared = conv.shared
    if shared is None or conv.keep_nodes or node.has_error:
        return _read_block(node, conv, None, False, traced)
    relative = block_references(node, conv.source, shared)  # (what ``_tops_of`` asks next: cached)
    key = (_FIRST_READ, id(relative), traced)
    first = shared.get(key)
    if first is not None and first[0] is relative:
        # (a body read later, on demand, is not copied: an argument set twice in it is found in
        # the text, as for the first block when it was read: ``_argument_set_twice``)
        return copied_block(first[1], conv, Anchor(conv.file, node.start_byte), first[2])
    before, conv.set_twice = conv.set_twice, None
    block = _read_block(node, conv, None, False, traced)
    found = conv.set_twice
    conv.set_twice = before if found is None else found
    if block is not None and found is None:
        shared[key] = (relative, block, block._body is not None)
    return block


def copied_block(block: Block, conv, anchor: Anchor | None, with_body: bool = True) -> Block:
    """A copy of ``block`` (of a file read without its tree): a top-level block reading through
    ``conv`` at ``anchor``, or with None a block nested in the copied top-level block whose place
    is ``conv``; without its body unless ``with_body`` (read again from its bytes when asked)."""
    copy = Block.__new__(Block)
    copy.type, copy.labels, copy._at = block.type, block.labels, block._at  # spans are made from its anchor when asked
    copy._converter, copy._anchor = conv, anchor  # (no node: its bodies are read again from its bytes)
    copy._text, copy._verdicts = block._text, block._verdicts
    copy._body = copy._place = None
    if block._body is not None and with_body:
        top = copy.place if anchor is not None else conv
        copy._body = _settled(Body({name: copied_attribute(a, top) for name, a in block._body.attributes.items()},
                                   [copied_block(b, top, None) for b in block._body.blocks]))
    return copy


def _add_attribute(body: Body, attr: Attribute | None, conv: ExprConverter) -> None:
    """Adds an attribute read with ``conv`` to ``body``; one set twice is noted (Terraform rejects
    the file: ``_argument_set_twice``) and the second value is kept, as it always was."""
    if attr is not None:
        if attr.name in body.attributes:
            (conv.owner or conv).set_twice = conv.base + attr._start
        body.attributes[attr.name] = attr


def _read_attribute(node: Node, conv: ExprConverter, top: "Place | None" = None) -> Attribute | None:
    name_node = node.child(0)
    if name_node is None or name_node.type != "identifier":
        return None
    name_end = name_node.end_byte
    return Attribute.read(intern(conv.source[name_node.start_byte : name_end].decode("utf-8", "replace")), node, conv,
                          name_end, top)


def _read_block(node: Node, conv: ExprConverter, top: "Place | None" = None, eager: bool = False,
                traced: frozenset = frozenset()) -> Block | None:
    """The block of ``node``: nested in ``top`` (read with its converter), or with None a
    top-level block (``conv``: its file's converter)."""
    children = node.children  # once: the type, the labels and the body are all among them
    type_node = children[0] if children else None
    if type_node is None or type_node.type != "identifier":
        return None
    start, end = node.start_byte, node.end_byte
    if top is None:  # a top-level block: an anchor of its own; its body is read with a converter made for it
        conv = conv.for_block(start, end)
    at = [start - conv.base, end - conv.base]
    labels: list[str] = []
    type_start, type_end = type_node.start_byte, type_node.end_byte
    at.append(type_end - type_start)
    source = conv.source
    body_node = None
    for i in range(1, len(children)):
        child = children[i]
        kind = child.type
        if kind == "string_lit":
            first, last = child.start_byte, child.end_byte
            raw = source[first:last]
            if len(raw) >= 2 and raw[0] == 0x22 and raw[-1] == 0x22 and b"{" not in raw and not child.has_error:
                labels.append(intern(raw[1:-1].decode("utf-8", "replace")))  # the common case: no template at all
            else:
                labels.append("".join(p for p in conv.quoted_chunks(child) if isinstance(p, str)))
            at += (first - start, last - start)
        elif kind == "identifier":
            first, last = child.start_byte, child.end_byte
            labels.append(intern(source[first:last].decode("utf-8", "replace")))
            at += (first - start, last - start)
        elif kind == "block_start":
            body_node = next((c for c in children[i + 1 :] if c.type == "body"), None)
            break
    kind = intern(source[type_start:type_end].decode("utf-8", "replace"))
    if top is None:
        eager = kind in _EAGER_BODIES or (kind == "resource" and bool(labels) and labels[0] in traced)
    shared = conv.shared
    at, labels = tuple(at), tuple(labels)
    if shared is not None:  # (the files read together share equal tuples: ``Block``)
        at, labels = shared.setdefault(at, at), shared.setdefault(labels, labels)
    return Block.read(kind, labels, at, node, conv, eager, body_node, top)


def _argument_set_twice(source: bytes, tree: Tree, blocks: list[Block], conv: ExprConverter,
                        clean: "CleanSources | None", remember: bool) -> int | None:
    """The offset of the second name of an argument set twice in one body of ``blocks`` (top-level
    blocks of ``tree``) or in the bodies already read with ``conv`` (the bodies this module reads
    anyway say so as they are read: ``ExprConverter.set_twice``), or None when none is."""
    if conv.set_twice is not None:
        return conv.set_twice
    return first_set_twice(source, tree, [(b._anchor.start, b._anchor.start + b._at[1]) for b in blocks
                                          if b._body is None or b._converter is not conv], clean, remember)  # (read with ``conv``: it says so)


# ---- taking over the blocks of the last parse ---------------------------------------------
#
# An open document is parsed again on every keystroke, and reading its structure again costs what
# the file holds, not what the edit touched (a 2,858-line root ``main.tf`` with 200 module calls).
# A top-level block whose text is unchanged has the same structure and, its spans being relative
# to its anchor, the same views: the parse takes the last parse's block over as it is (its anchor
# set to where it now is) and reads only the blocks whose text is new. Blocks with a syntax error
# inside are never matched: what their text parses to can depend on the text around it.


def _reuse_possible(previous: HclFile, path: str) -> bool:
    """Whether ``previous`` (the last parse of a document) can lend its blocks to a parse of ``path``."""
    return previous.path == path and (previous.tree is not None or previous.items is not None) and not is_json_path(path)


def _read_top_level_taking_over(top: Node, body: Body, converter: ExprConverter, previous: HclFile,
                                unchanged: tuple[int, int] | None = None) -> tuple:
    """``_read_body`` of a file's top-level body, taking over the blocks of ``previous`` whose text
    is unchanged: (the blocks read anew, every top-level item (``HclFile.items``), whether a
    block taken over moved, the region read: (start, end, its items) or None when the whole
    body was).

    With ``unchanged`` (how many bytes at the start and at the end of ``previous``'s text the
    edits left alone), the items of ``previous`` that lie wholly in the text before the edit or
    after it are taken over by position (``_splice``): only the region between them is walked,
    so an edit costs the blocks it touched, wherever they are in the file, plus moving the
    anchors below it."""
    if previous.items is not None and unchanged is not None:
        spliced = _splice(top, body, converter, previous, unchanged)
        if spliced is not None:
            return spliced
    fresh: list[Block] = []
    items: list[Block | tuple[str, int, int, None]] = []  # every item but comments
    moved = _take_items(top.children, body, converter, _blocks_by_text(previous.body.blocks), fresh, items, previous.source)
    return fresh, items, moved, None


def _blocks_by_text(blocks) -> dict[bytes, Block]:
    before: dict[bytes, Block] = {}
    for block in blocks:
        if not block._broken:
            before.setdefault(block.text, block)
    return before


def _take_items(children, body: Body, converter: ExprConverter, before: dict[bytes, Block], fresh: list, items: list,
                last_source: bytes, same_until: int | None = None) -> bool:
    """Reads top-level ``children`` into ``body`` and ``items``, taking over the blocks of
    ``before`` (by text) and adding the others to ``fresh``; whether a block taken over is at
    another line or column than in ``last_source`` (the last parse's text, equal to this one
    before ``same_until``; when that is not known, a block after the first changed byte counts
    as moved, as its lines may have)."""
    source = converter.source
    moved = False
    for child in children:
        kind = child.type
        if kind == "block":
            start, end = child.start_byte, child.end_byte
            text = source[start:end]
            block = before.pop(text, None) if not child.has_error else None
            if block is None:
                block = _read_block(child, converter)
                if block is not None:
                    block._text = text
                    fresh.append(block)
            else:
                # (the same bytes can be at another line: a line added above and a character taken away)
                old_start = block._anchor.start
                shifted = _take_over(block, start, text)
                if not moved:
                    if same_until is None:
                        same_until = _same_prefix(last_source, source)
                        moved = shifted or start > same_until
                    else:
                        moved = _line_or_column_moved(last_source, source, same_until, old_start, start)
            if block is not None:
                body.blocks.append(block)
            items.append(block if block is not None else (kind, start, end, None))
        elif kind != "comment":
            items.append((kind, child.start_byte, child.end_byte, None))
            if kind == "attribute":
                _add_attribute(body, _read_attribute(child, converter), converter)
            elif kind == "ERROR" or kind == "body":
                _read_body(child, body, converter)
    return moved


def only_blocks(previous: HclFile) -> bool:
    """Whether every top-level item of a document's last parse is a block (whose spans are
    relative to its anchor: it can be kept where an edit moved it)."""
    return len(previous.body.blocks) == len(previous.items) and not previous.body.attributes


def edited_items(previous: HclFile, size: int, unchanged: tuple[int, int]) -> tuple[int, int]:
    """(first, last): the items of ``previous`` before ``first`` end before the edited bytes
    (with an unchanged byte after them), those from ``last`` on start after them (an unchanged
    byte before); ``size``: the new text's length, ``unchanged``: see ``parse_file``."""
    old_items = previous.items
    head, tail = unchanged
    tail = min(tail, size - head, len(previous.source) - head)
    first = bisect_left(old_items, head, key=_item_end)
    return first, max(first, bisect_left(old_items, len(previous.source) - tail + 1, key=_item_start))


def _splice(top: Node, body: Body, converter: ExprConverter, previous: HclFile, unchanged: tuple[int, int]) -> tuple | None:
    """``_read_top_level_taking_over`` by position: the items of ``previous`` that end before the
    edited bytes (with an unchanged byte after them) are kept where they are, those that start
    after them (an unchanged byte before) are kept, moved by what the edit added, and only the
    top-level nodes between them are read. None when ``previous`` has top-level items other than
    blocks (their spans are absolute), or when the new tree's items do not meet the kept ones
    exactly where they should: then the whole body is read."""
    old_items = previous.items
    if not only_blocks(previous):
        return None
    source = converter.source
    delta = len(source) - len(previous.source)
    first, last = edited_items(previous, len(source), unchanged)
    start = item_place(old_items[first - 1])[2] if first else 0
    end = item_place(old_items[last])[1] + delta if last < len(old_items) else len(source)
    # The new tree must have the kept items where they were: the last one before the region
    # ends where it did, the first one after it starts at its moved place.
    if first:
        child = top.first_child_for_byte(start - 1)
        if child is None or child.start_byte != item_place(old_items[first - 1])[1] or child.end_byte != start:
            return None
        child = child.next_sibling
    else:
        child = top.child(0) if top.child_count else None
    region: list[Node] = []
    while child is not None and child.start_byte < end:
        region.append(child)
        child = child.next_sibling
    if last < len(old_items):
        kind, old_start, old_end, _ = item_place(old_items[last])
        if child is None or child.type != kind or child.start_byte != end or child.end_byte != old_end + delta:
            return None
    elif child is not None:
        return None
    if any(node.type == "attribute" for node in region):
        return None  # an attribute at the top level (its span is absolute): the whole body is read
    return take_region(region, body, converter, previous, first, last, start, end)


def take_region(region: list[Node], body: Body, converter: ExprConverter, previous: HclFile, first: int, last: int, start: int,
                end: int) -> tuple:
    """``_read_top_level_taking_over``'s answer for a text whose top-level items are those of
    ``previous`` before ``first`` (unchanged, ending before ``start``), the top-level nodes
    ``region`` (blocks and comments, between ``start`` and ``end``) and those of ``previous``
    from ``last`` on (starting at ``end``, moved by what the edit added)."""
    old_items, old_blocks = previous.items, previous.body.blocks
    source = converter.source
    delta = len(source) - len(previous.source)
    # The blocks the last parse read anew still hold its tree and text: they read their own text from now on.
    for block in previous.fresh:
        if _reads_its_parse(block):
            _detach(block, block.text)
    fresh: list[Block] = []
    items: list[Block | tuple[str, int, int, None]] = []
    middle = Body()
    moved = _take_items(region, middle, converter, _blocks_by_text(old_blocks[first:last]), fresh, items, previous.source, start)
    kept = old_items[last:]  # (blocks, each its own item: moved with its anchor, no item made again)
    if delta:
        for block in kept:
            block._anchor.start += delta
    # (even when no byte moved: a character replaced by a line break moves the lines below)
    moved = moved or bool(kept) and _line_or_column_moved(previous.source, source, start, end - delta, end)
    body.blocks = old_blocks[:first] + middle.blocks + old_blocks[last:]
    return fresh, old_items[:first] + items + kept, moved, (start, end, items, first, last, len(middle.blocks))


def _same_prefix(a: bytes, b: bytes) -> int:
    """How many bytes at the start of ``a`` and ``b`` are the same (halving: each step one memcmp)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _line_or_column_moved(old: bytes, new: bytes, same_until: int, old_start: int, new_start: int) -> bool:
    """Whether the first item after an edit, at ``old_start`` in ``old`` and ``new_start`` in
    ``new`` (the texts equal before ``same_until``, and from each start on), is at another line
    or column as an editor reads it. When it is not, neither is any item after it: their
    positions are the same lines and line starts, only bytes moved (a keystroke that adds no
    line moves no position below it)."""
    old_line = old.rfind(b"\n", same_until, old_start) + 1 or same_until
    new_line = new.rfind(b"\n", same_until, new_start) + 1 or same_until
    # (the lines before ``same_until`` and the start of its line are the same in both texts)
    return (old.count(b"\n", same_until, old_start) != new.count(b"\n", same_until, new_start)
            or old[old_line:old_start] != new[new_line:new_start])


def item_place(item: Block | tuple[str, int, int, None]) -> tuple[str, int, int, Block | None]:
    """An item of ``HclFile.items`` as (type, start, end, its block or None): a block is where its anchor now is."""
    if type(item) is tuple:
        return item
    start = item._anchor.start
    return "block", start, start + item._at[1], item


def _item_end(item: Block | tuple) -> int:
    return item_place(item)[2]


def _item_start(item: Block | tuple) -> int:
    return item_place(item)[1]
