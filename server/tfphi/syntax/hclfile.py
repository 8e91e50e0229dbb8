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

import re
from bisect import bisect_left
from functools import lru_cache
from typing import Callable
from sys import intern

from tree_sitter import Node, Tree

from ..records import record, field
from . import is_json_path
from .error_shapes import SyntaxProblem, suspicious, syntax_checker, terraform_placed
from .expr import Expr, ExprConverter, InvalidExpr, LiteralExpr, ScopeTraversalExpr, Span
from .language import hcl_language
from .references import block_references, top_level_nodes
from .parsers import HclParser, exact_node, new_parser, node_of_range, reparser  # noqa: F401 - (new_parser, node_of_range: read from here)
from .searches import CleanSources, searched
from .tree_errors import check_terraform_rules, collect_errors, parse_in_pieces, place_unclosed_block, rules_candidate

BOM = b"\xef\xbb\xbf"


def read_block(node: Node, source: bytes, path: str) -> "Block | None":
    """The top-level block of a ``block`` node of ``source``, read as a parse of ``path`` reads it."""
    return _read_block(node, ExprConverter(source, path))


# A quoted string with nothing to unescape or interpolate: its value is the text between the quotes.
_PLAIN_STRING = re.compile(rb'"[^"\\$%\n]*"')


class Attribute:
    """``name = expression``; spans and the expression are worked out on first use.

    Building a module reads every attribute of its variable, module and output blocks, and
    most are never asked about again: only the name is read eagerly, with the ranges of the
    name and of the value, so that ``name_span`` and a plain string's ``literal_string``
    (what every module build reads) need no parse again once the file's tree is gone.
    Offsets are kept relative to the top-level block (its converter's ``base``): an attribute
    stays right when text above its block changes.
    """

    # ``_start`` from the converter's base, the others from ``_start``: small integers, which Python
    # shares. The value's range as two offsets (``_value_start`` -1: none), not a tuple.
    __slots__ = ("name", "_node", "_converter", "_expr", "_start", "_end", "_name_end", "_value_start", "_value_end")

    def __init__(self, name: str, node: Node, converter: ExprConverter, keep_node: bool = True,
                 name_end: int | None = None):
        self.name = name
        self._node = node if keep_node else None  # None: parse the range again when asked
        at = node.start_byte
        self._start = at - converter.base
        self._end = node.end_byte - at
        self._converter = converter
        self._expr: Expr | None = None
        if name_end is None:
            first = node.child(0)
            name_end = first.end_byte if first is not None else at
        self._name_end = name_end - at
        value = node.child(node.child_count - 1)  # ``name = expression``: the value comes last
        if value is not None and value.type == "expression":
            self._value_start, self._value_end = value.start_byte - at, value.end_byte - at
        else:
            self._value_start = self._value_end = -1

    def _tree_node(self) -> Node:
        if self._node is not None:
            return self._node
        # The attribute's own range: a trace reads a few arguments of a module call or a
        # variable's type and default, and parsing the whole block for each cost more (a
        # recent parse of the block, e.g. for a resource's body, still answers first).
        conv = self._converter
        _reread(conv)
        start = conv.base + self._start
        node = reparser.node(conv.source, start, start + self._end, "attribute")
        assert node is not None, f"attribute {self.name!r} not found again at {self._start}-{self._end}"
        return node

    @property
    def span(self) -> Span:
        conv = self._converter
        return Span(conv.file, self._start, self._start + self._end, conv.anchor)

    @property
    def value_range(self) -> tuple[int, int] | None:
        """The absolute byte range of the value in the file's current text (None when the parse recovered without one)."""
        if self._value_start < 0:
            return None
        anchor = self._converter.anchor
        shift = self._start + (anchor.start if anchor is not None else 0)
        return self._value_start + shift, self._value_end + shift

    @property
    def name_span(self) -> Span:
        conv = self._converter
        return Span(conv.file, self._start, self._start + self._name_end, conv.anchor)  # the name starts the attribute

    @property
    def expr(self) -> Expr:
        if self._expr is None:
            node = self._tree_node()
            expr_node = node.child(node.child_count - 1)  # ``name = expression``: the value comes last
            if expr_node is None or expr_node.type != "expression":
                expr_node = next((c for c in node.children if c.type == "expression"), None)
            if expr_node is None:
                self._expr = InvalidExpr(self.span, "missing value")
            else:
                self._expr = self._converter.convert(expr_node)
        return self._expr

    def _raw_value(self) -> bytes:
        conv = self._converter
        at = conv.base + self._start
        return conv.source[at + self._value_start : at + self._value_end]

    def literal_bool(self) -> bool | None:
        """The value when it is the bare keyword ``true`` or ``false`` (read from the bytes:
        no parse again once the file's tree is gone); None for anything else."""
        if self._value_start < 0:
            return None
        raw = self._raw_value()
        return True if raw == b"true" else False if raw == b"false" else None

    def literal_string(self) -> str | None:
        """The value when it is a plain quoted string without escapes or templates (fast path)."""
        if self._value_start >= 0:
            raw = self._raw_value()
        else:  # no value, or recovered oddly: read the last child as before
            node = self._tree_node()
            expr_node = node.child(node.child_count - 1)
            raw = self._converter.source[expr_node.start_byte : expr_node.end_byte] if expr_node is not None else b""
        if _PLAIN_STRING.fullmatch(raw):
            return raw[1:-1].decode("utf-8", "replace")
        if self._expr is None and raw[:1] != b'"':
            return None
        expr = self.expr
        return expr.value if isinstance(expr, LiteralExpr) and isinstance(expr.value, str) else None

    def __repr__(self) -> str:
        return f"Attribute({self.name!r})"


@record(slots=True)
class Body:
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

    A top-level block has a converter of its own (``ExprConverter.for_block``), whose anchor
    is the block's place in the file: its spans and those of everything in it are relative to
    that anchor, so the next parse of an edited file takes the block over as it is when its
    text is unchanged (``_take_over``), wherever it now is.

    A block read from HCL keeps offsets in one tuple (``_at``: start and end from its converter's
    ``base``, the type's length, each label's start and end from the block's start: small shared
    integers) and makes ``span``, ``type_span`` and ``label_spans`` when asked (docs/positions.md).
    A block built with its spans (``.tf.json``, no converter) keeps them: (type span, span, labels')."""

    __slots__ = ("type", "labels", "_at", "_node", "_converter", "_body", "_reparse", "_text", "_verdicts", "_broken")

    def __init__(self, type: str, labels: tuple[str, ...], label_spans: tuple[Span, ...], type_span: Span,
                 body: Body | None, span: Span):
        self.type, self.labels, self._at, self._body = type, labels, (type_span, span, label_spans), body
        self._converter = self._node = self._text = self._verdicts = None
        self._reparse = self._broken = False

    @classmethod
    def read(cls, type: str, labels: tuple[str, ...], at: tuple[int, ...], node: Node, converter: ExprConverter,
             eager: bool = False, body_node: Node | None = None) -> "Block":
        self = cls.__new__(cls)  # a block read from ``node`` with ``converter`` (``at``: see the class)
        self.type, self.labels, self._at, self._body, self._converter = type, labels, at, None, converter
        # Without the file's tree, the body is read from a parse of the block's range alone.
        self._reparse = not converter.keep_nodes
        self._node = None if self._reparse else node
        self._text: bytes | None = None  # a top-level block's text, once asked (``text``)
        self._verdicts: list | None = None  # the file-wide text searches' answers for this block (``syntax.searches``)
        self._broken = node.has_error  # what its text parses to may depend on the text around it: never taken over
        if eager and self._reparse:
            # Read now, from the tree still at hand: every module build reads this body
            # (``body_node``: the node of the body, when the caller has it at hand).
            body = Body()
            for child in (body_node,) if body_node is not None else node.children:
                if child.type == "body":
                    _read_body(child, body, converter, eager=True)
            self._body = _settled(body)
        return self

    @property
    def span(self) -> Span:
        at, conv = self._at, self._converter
        return at[1] if conv is None else Span(conv.file, at[0], at[1], conv.anchor)

    @property
    def type_span(self) -> Span:
        at, conv = self._at, self._converter
        return at[0] if conv is None else Span(conv.file, at[0], at[0] + at[2], conv.anchor)

    def label_span(self, index: int) -> Span:
        """``label_spans[index]``, made alone."""
        at, conv = self._at, self._converter
        if conv is None:
            return at[2][index]
        first, last = range(3, len(at), 2)[index], range(4, len(at), 2)[index]  # (IndexError as a tuple's)
        return Span(conv.file, at[0] + at[first], at[0] + at[last], conv.anchor)

    @property
    def label_spans(self) -> tuple[Span, ...]:
        at, conv = self._at, self._converter
        return at[2] if conv is None else tuple([self.label_span(i) for i in range((len(at) - 3) // 2)])

    @property
    def text(self) -> bytes:
        """A top-level block's text (what its derived data is a function of, with its anchor)."""
        if self._text is None:
            conv = self._converter
            self._text = conv.source[conv.base + self._at[0] : conv.base + self._at[1]]
        return self._text

    @property
    def body(self) -> Body:
        if self._body is None:
            body = Body()
            node = self._node
            conv = self._converter
            if self._reparse:
                _reread(conv)
                node = reparser.node(conv.source, conv.base + self._at[0], conv.base + self._at[1], "block",
                                      (conv.base, conv.end))
            if node is not None and conv is not None:
                for child in node.children:
                    if child.type == "body":
                        _read_body(child, body, conv)
            self._body, self._node = _settled(body), None
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


def _detach(block: Block, text: bytes) -> None:
    """Lets a top-level block taken over by a later parse read its own ``text`` from then on:
    the nodes and the source of the parse that read it are dropped (they would keep that
    text's tree and bytes alive); what was read and converted stays, its offsets relative."""
    old = block._converter
    conv = ExprConverter(text, old.file, keep_nodes=False)
    conv.end, conv.anchor = len(text), old.anchor  # base 0: the source is the block's text
    block._text = text
    _rebind(block, old, conv)


def _rebind(block: Block, old: ExprConverter, conv: ExprConverter) -> None:
    block._converter = conv
    if block._node is not None:
        block._node, block._reparse = None, True
    body = block._body
    if body is not None:
        for attr in body.attributes.values():
            attr._node, attr._converter = None, conv
        for nested in body.blocks:
            _rebind(nested, old, conv)


def _take_over(old: Block, start: int, text: bytes) -> bool:
    """``old`` (a top-level block of an earlier parse of the same file, whose text was ``text``)
    as the block that now starts at ``start``; whether it moved."""
    if old._converter.owner is not None:
        _detach(old, text)
    anchor = old._converter.anchor
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
        if block._converter is not None and block._converter.anchor is not None and not block._broken:
            before.setdefault(block.text, block)
    blocks = hcl.body.blocks
    for i, block in enumerate(blocks):
        usable = block._converter is not None and block._converter.anchor is not None and not block._broken
        old = before.pop(block.text, None) if usable else None
        if old is not None and old.type == block.type:
            hcl.moved |= _take_over(old, block.span.start, block.text)
            blocks[i] = old
    hcl.took_over = True


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
    # A document's parse that took the last one's blocks over: every top-level item but comments
    # as (type, start, end, its block or None), for the next parse to splice (``_splice``), and
    # what the text searches answered for the whole text (``syntax.searches``), None when not asked.
    items: list | None = None
    searched: tuple = (None, None)
    fresh: list = field(default_factory=list)  # the blocks this parse read anew (the next one detaches them)
    # (id of the last parse's body, first, last, count): this body's blocks are the last one's with
    # its blocks[first:last] replaced by count blocks (read, or taken over by text); for what is
    # derived per block (``stir.model.read_declarations``) to splice the same way.
    splice: tuple | None = None
    # A file with a syntax error, read piece by piece (``tree_errors.parse_in_pieces``): its
    # top-level items, a node, or (type, start, end) for an item of a piece that parsed alone.
    nodes: tuple[Node | tuple[str, int, int], ...] | None = None
    forgotten: bool = False  # what its views derived on demand was forgotten once (``forget_derived``)

    def top_ranges(self) -> list[tuple[str, int, int]]:
        """(type, start, end) of each top-level item (``top_levels`` without making its views)."""
        if self.tops:
            return [(kind, start, end) for kind, start, end, _ in _tops(self.tops)]
        return [(top.type, top.start_byte, top.end_byte) for top in self.top_levels()]

    def top_levels(self) -> list["TopLevel"]:
        """The blocks and attributes of the file's body (and ERROR regions), with their nodes on demand."""
        if self.nodes is not None:
            return [TopLevel(self.source, *n, None, None) if isinstance(n, tuple) else
                    TopLevel(self.source, n.type, n.start_byte, n.end_byte, None, n) for n in self.nodes]
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
    parser = parser or new_parser()
    tree = parser.parse(source, old_tree, may_respell_source)
    if tree.root_node.has_error:  # a syntax error: the file is read piece by piece (tree_errors.parse_in_pieces)
        # The broken text's tree (4-6 times a clean one's: 20-25 MiB for the 1,000-module root's
        # main.tf) goes before the pieces are read: the file's peak is its parse, not the parse
        # plus the pieces, and what the reading keeps is not placed among that tree's pages
        # (bench/README.md, "Issue 23: soak, session 10").
        del tree
        return read_in_pieces(path, source, traced)
    return build_file(path, source, tree, keep_tree, refs_cache, native=True, previous=previous, clean=clean,
                      traced=traced, unchanged=unchanged)


def read_in_pieces(path: str, source: bytes, traced: frozenset = frozenset()) -> HclFile:
    """A native-syntax file with a syntax error, read piece by piece from its block headers
    (``tree_errors.parse_in_pieces``). The items of the pieces with an error keep their nodes
    (a piece's small tree); the others, error-free, parse their range alone again when asked,
    as the blocks of a file read without its tree. No tree of the whole file is kept."""
    pieces = parse_in_pieces(source, lambda start, end: reparser.tree(source, start, end))
    converter = ExprConverter(source, path, keep_nodes=True)
    light = ExprConverter(source, path, keep_nodes=False)
    body = Body()
    errors: list[SyntaxProblem] = []
    tops: list = []
    for tree, clean in pieces:
        root = tree.root_node
        if not clean:
            errors.extend(collect_errors(root, path))
        for node in top_level_nodes(root):
            _read_items((node,), body, light if clean else converter, traced=traced)
            tops.append((intern(node.type), node.start_byte, node.end_byte) if clean else node)
    place_unclosed_block(source, path, errors)
    placed = terraform_placed(path, source, errors)  # as Terraform reports them
    if placed is errors:  # (Terraform's own errors, when placed, already cover the rules)
        for tree, _ in pieces:
            check_terraform_rules(tree.root_node, source, path, errors)
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
            conv = item._converter
            if conv is not None:
                (conv.owner or conv).on_reread = on_reread
        _forget_expressions(hcl.body, top=True)
        if references and any(hcl.tops[3::4]):
            hcl.tops = tuple([x for kind, start, end, _ in _tops(hcl.tops) for x in (kind, start, end, None)])


def _reread(conv: ExprConverter | None) -> None:
    """Tells the file's host, once, that a view reads its bytes again (``forget_derived``)."""
    owner = conv and (conv.owner or conv)
    if owner is not None and owner.on_reread is not None:
        notify, owner.on_reread = owner.on_reread, None
        notify()


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
    errors = collect_errors(root, path)
    body = Body()
    top = next((c for c in root.children if c.type == "body"), None)
    unchecked = body.blocks  # the top-level blocks whose bodies may set an argument twice, unread
    taken: tuple | None = None  # with ``previous``: see ``_read_top_level_taking_over``
    answers: list = [None, None]  # what the text searches answered (``HclFile.searched``)
    if top is not None and previous is not None and keep_tree and _reuse_possible(previous, path):
        taken = _read_top_level_taking_over(top, body, converter, previous, unchanged)
        unchecked = taken[0]  # the others were read in an error-free parse
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
    elif taken is not None and not errors and not searched(0, suspicious, source, taken, previous.searched, answers):
        placed = errors
    else:
        placed = terraform_placed(path, source, errors, root)  # as Terraform reports them
    if native and not placed and not known_clean and not root.has_error:
        twice = _argument_set_twice(source, tree, unchecked, converter)
        if twice is not None:
            placed = _redefined_errors(path, source, root, twice)
    if placed is errors and not known_clean:  # (Terraform's own errors, when placed, already cover the rules)
        candidate = rules_candidate if taken is None else lambda text: searched(1, rules_candidate, text, taken, previous.searched, answers)
        check_terraform_rules(root, source, path, errors, candidate)
    errors = placed
    if native and previous is None and not errors and not known_clean and clean is not None:
        clean.add(source)
    errors.sort(key=lambda e: (e.span.start, e.span.end, e.message))
    if taken is not None:
        splice = (id(previous.body), *taken[3][3:]) if taken[3] is not None else None
        return HclFile(path, source, tree, body, errors, (), taken[2], True, taken[1], tuple(answers), taken[0], splice)
    if keep_tree:
        return HclFile(path, source, tree, body, errors)
    # Every file's references are read for the undefined-reference check: read them now,
    # while the tree is here, rather than parse the file a second time for them.
    cache = {} if refs_cache is None else refs_cache
    tops = tuple(x for n in top_level_nodes(root)
                 for x in (intern(n.type), n.start_byte, n.end_byte, block_references(n, source, cache)))
    return HclFile(path, source, None, body, errors, tops)


# ---- an argument set twice in one body ------------------------------------------------------
#
# Terraform rejects a file that sets an argument twice in one body ("Attribute redefined"), and
# tree-sitter-hcl reads it without an error. The bodies this module reads anyway (the top-level
# body; variable, locals, module and output bodies of files read without their tree) say so as
# they are read (``ExprConverter.set_twice``); the bodies of other blocks are looked at here,
# while the tree is at hand. In a body that Terraform and tree-sitter both read without an error
# (the only files asked), an argument of a body with two or more items starts a line: a body's
# first item follows its "{" on the next line (on the same line, the body holds one argument),
# and each item ends with a newline. So a block with no name written twice at the start of a line
# before "=" sets nothing twice, unless a "/* */" comment comes before a name on its line. A block
# that has one (nested blocks repeat their arguments' names, as do objects' keys, and heredoc
# lines may look like arguments) is walked in the tree. The answer is a function of the block's
# text: the texts found clean are remembered (a generated workspace repeats its blocks).
_ARGUMENT_LINE = re.compile(rb"\n[ \t]*+([\w\-\x80-\xff]++)[ \t]*+=(?![=>])")
_checked_blocks: set[bytes] = set()
_checked_held = 0
MAX_CHECKED_BYTES = 8 << 20


def _argument_set_twice(source: bytes, tree: Tree, blocks: list["Block"], conv: ExprConverter) -> int | None:
    """The offset of the second name of an argument set twice in one body of ``blocks`` (top-level
    blocks of ``tree``) or in the bodies already read with ``conv``, or None when none is."""
    global _checked_held
    if conv.set_twice is not None:
        return conv.set_twice
    find, checked = _ARGUMENT_LINE.findall, _checked_blocks
    for block in blocks:
        if block._body is not None and block._converter.owner is conv:
            continue  # read with ``conv`` (which says so)
        span = block.span
        text = source[span.start : span.end]
        if text in checked:
            continue
        names = find(text)
        comments = b"/*" in text
        if (len(names) > 1 and len(set(names)) < len(names)) or comments:
            node = exact_node(tree, span.start, span.end, "block")
            twice = _set_twice_in(node, source, comments) if node is not None else None
            if twice is not None:
                return twice
        if _checked_held + len(text) > MAX_CHECKED_BYTES:
            checked.clear()
            _checked_held = 0
        checked.add(text)
        _checked_held += len(text)
    return None


@lru_cache(maxsize=1)
def _item_kinds() -> tuple[int, int, int]:
    language = hcl_language()
    return tuple(language.id_for_node_kind(kind, True) for kind in ("body", "attribute", "block"))


def _set_twice_in(block: Node, source: bytes, comments: bool) -> int | None:
    """The offset of the second name of an argument set twice in one body in ``block``. Without
    ``/*`` in the block (``comments``), only the arguments on the lines whose name repeats can be,
    and a nested block with fewer than two of those lines is not entered (found by bisection:
    linear in the block, however deep it nests). Kinds are compared by number: a node's type is a
    new string each time it is asked."""
    body_kind, attribute_kind, block_kind = _item_kinds()
    lines: dict[int, bytes] | None = None
    starts: list[int] = []
    if not comments:
        where: dict[bytes, list[int]] = {}
        for found in _ARGUMENT_LINE.finditer(source, block.start_byte, block.end_byte):
            where.setdefault(found.group(1), []).append(found.start(1))
        lines = {at: name for name, ats in where.items() if len(ats) > 1 for at in ats}
        starts = sorted(lines)
    stack = [block]
    while stack:
        node = stack.pop()
        body = node.child(node.child_count - 2)  # before the closing brace, unless a comment is
        if body is None or body.kind_id != body_kind:
            body = next((c for c in node.children if c.kind_id == body_kind), None)
            if body is None:
                continue  # an empty block
        seen: set[bytes] = set()
        for item in body.children:
            kind = item.kind_id
            if kind == attribute_kind:
                at = item.start_byte
                if lines is None:
                    name = source[at : item.child(0).end_byte]
                else:
                    name = lines.get(at)
                    if name is None:
                        continue  # its name is on no other argument line
                if name in seen:
                    return at
                seen.add(name)
            elif kind == block_kind and (lines is None or bisect_left(starts, item.end_byte) - bisect_left(starts, item.start_byte) > 1):
                stack.append(item)
    return None


def argument_set_twice_in(block: Node, source: bytes) -> int | None:
    """The offset of the second name of an argument set twice in one body of ``block`` (a block
    node read without an error), or None."""
    return _set_twice_in(block, source, b"/*" in source[block.start_byte : block.end_byte])


def _redefined_errors(path: str, source: bytes, root: Node, twice: int) -> list[SyntaxProblem]:
    """Terraform's errors for a file that sets an argument twice (the second name at ``twice``):
    the whole check's (``terraform_placed``), or that error alone when the check cannot say."""
    placed = terraform_placed(path, source, [], root, force=True)
    if placed:
        return placed
    name = _NAME_AT.match(source, twice)
    end = name.end() if name is not None else twice
    checker = syntax_checker()
    error = checker.HclError(*checker.attribute_redefined(source[twice:end].decode("utf-8", "replace"), twice, end))
    return [SyntaxProblem(Span(path, twice, end), error.message)]


_NAME_AT = re.compile(rb"[\w\-\x80-\xff]++")


# Blocks whose bodies every module build reads (stir.model.read_declarations): without the file's
# tree they are read at once rather than parsed again, as are resources of the ``traced`` types (with a
# registered field: a trace reads them; GKE's 26 KB clusters were parsed again, bench/README session 9).
_EAGER_BODIES = frozenset({"variable", "locals", "module", "output"})


def _read_body(node: Node, body: Body, conv: ExprConverter, eager: bool = False, traced: frozenset = frozenset()) -> None:
    _read_items(node.children, body, conv, eager, traced)


def _read_items(nodes, body: Body, conv: ExprConverter, eager: bool = False, traced: frozenset = frozenset()) -> None:
    """Reads ``nodes`` (a body's children) into ``body``."""
    nested = conv.anchor is not None  # (a file's own converter reads its top-level body)
    for child in nodes:
        kind = child.type
        if kind == "attribute":
            _add_attribute(body, _read_attribute(child, conv), conv)
        elif kind == "block":
            block = _read_block(child, conv, nested, eager, traced)
            if block is not None:
                body.blocks.append(block)
        elif kind == "ERROR" or kind == "body":
            _read_body(child, body, conv, eager, traced)


def _add_attribute(body: Body, attr: Attribute | None, conv: ExprConverter) -> None:
    """Adds an attribute read with ``conv`` to ``body``; one set twice is noted (Terraform rejects
    the file: ``_argument_set_twice``) and the second value is kept, as it always was."""
    if attr is not None:
        if attr.name in body.attributes:
            (conv.owner or conv).set_twice = conv.base + attr._start
        body.attributes[attr.name] = attr


def _read_attribute(node: Node, conv: ExprConverter) -> Attribute | None:
    name_node = node.child(0)
    if name_node is None or name_node.type != "identifier":
        return None
    return Attribute(intern(conv.text(name_node)), node, conv, conv.keep_nodes, name_node.end_byte)


def _read_block(node: Node, conv: ExprConverter, nested: bool = False, eager: bool = False, traced: frozenset = frozenset()) -> Block | None:
    children = node.children  # once: the type, the labels and the body are all among them
    type_node = children[0] if children else None
    if type_node is None or type_node.type != "identifier":
        return None
    start, end = node.start_byte, node.end_byte
    if not nested:  # a top-level block: a converter (and an anchor) of its own
        conv = conv.for_block(start, end)
    labels: list[str] = []
    type_start, type_end = type_node.start_byte, type_node.end_byte
    at = [start - conv.base, end - conv.base, type_end - type_start]  # see ``Block``
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
    if not nested:
        eager = kind in _EAGER_BODIES or (kind == "resource" and bool(labels) and labels[0] in traced)
    return Block.read(kind, tuple(labels), tuple(at), node, conv, eager, body_node)


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
    return previous.path == path and previous.tree is not None and not is_json_path(path)


def _read_top_level_taking_over(top: Node, body: Body, converter: ExprConverter, previous: HclFile,
                                unchanged: tuple[int, int] | None = None) -> tuple:
    """``_read_body`` of a file's top-level body, taking over the blocks of ``previous`` whose text
    is unchanged: (the blocks read anew, every top-level item as (type, start, end, its block or
    None), whether a block taken over moved, the region read: (start, end, its items) or None
    when the whole body was).

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
    items: list[tuple[str, int, int, Block | None]] = []  # every item but comments
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
                old_start = block._converter.anchor.start
                shifted = _take_over(block, start, text)
                if not moved:
                    if same_until is None:
                        same_until = _same_prefix(last_source, source)
                        moved = shifted or start > same_until
                    else:
                        moved = _line_or_column_moved(last_source, source, same_until, old_start, start)
            if block is not None:
                body.blocks.append(block)
            items.append((kind, start, end, block))
        elif kind != "comment":
            items.append((kind, child.start_byte, child.end_byte, None))
            if kind == "attribute":
                _add_attribute(body, _read_attribute(child, converter), converter)
            elif kind == "ERROR" or kind == "body":
                _read_body(child, body, converter)
    return moved


def _splice(top: Node, body: Body, converter: ExprConverter, previous: HclFile, unchanged: tuple[int, int]) -> tuple | None:
    """``_read_top_level_taking_over`` by position: the items of ``previous`` that end before the
    edited bytes (with an unchanged byte after them) are kept where they are, those that start
    after them (an unchanged byte before) are kept, moved by what the edit added, and only the
    top-level nodes between them are read. None when ``previous`` has top-level items other than
    blocks (their spans are absolute), or when the new tree's items do not meet the kept ones
    exactly where they should: then the whole body is read."""
    old_items, old_blocks = previous.items, previous.body.blocks
    if len(old_blocks) != len(old_items) or previous.body.attributes:
        return None
    source = converter.source
    delta = len(source) - len(previous.source)
    head, tail = unchanged
    tail = min(tail, len(source) - head, len(previous.source) - head)
    first = bisect_left(old_items, head, key=_item_end)  # the items before ``first`` end before ``head``
    last = max(first, bisect_left(old_items, len(previous.source) - tail + 1, key=_item_start))  # from ``last`` on, after the edit
    start = old_items[first - 1][2] if first else 0
    end = old_items[last][1] + delta if last < len(old_items) else len(source)
    # The new tree must have the kept items where they were: the last one before the region
    # ends where it did, the first one after it starts at its moved place.
    if first:
        child = top.first_child_for_byte(start - 1)
        if child is None or child.start_byte != old_items[first - 1][1] or child.end_byte != start:
            return None
        child = child.next_sibling
    else:
        child = top.child(0) if top.child_count else None
    region: list[Node] = []
    while child is not None and child.start_byte < end:
        region.append(child)
        child = child.next_sibling
    if last < len(old_items):
        kind, old_start, old_end, _ = old_items[last]
        if child is None or child.type != kind or child.start_byte != end or child.end_byte != old_end + delta:
            return None
    elif child is not None:
        return None
    # The blocks the last parse read anew still hold its tree and text: they read their own text from now on.
    for block in previous.fresh:
        if block._converter.owner is not None:
            _detach(block, block.text)
    fresh: list[Block] = []
    items: list[tuple[str, int, int, Block | None]] = []
    middle = Body()
    moved = _take_items(region, middle, converter, _blocks_by_text(old_blocks[first:last]), fresh, items, previous.source, start)
    if middle.attributes:
        return None  # an attribute at the top level (its span is absolute): the whole body is read
    kept = old_items[last:]
    if delta and kept:
        kept = [(kind, s + delta, e + delta, block) for kind, s, e, block in kept]
        for _, s, _, block in kept:
            block._converter.anchor.start = s
    # (even when no byte moved: a character replaced by a line break moves the lines below)
    moved = moved or bool(kept) and _line_or_column_moved(previous.source, source, start, kept[0][1] - delta, kept[0][1])
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


def _item_end(item: tuple) -> int:
    return item[2]


def _item_start(item: tuple) -> int:
    return item[1]
