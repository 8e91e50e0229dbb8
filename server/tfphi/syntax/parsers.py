"""The parsers of tree-sitter-hcl: one for a file's whole text (``HclParser``, fed the text as
HCL's scanner reads its tokens), and one for a byte range of it parsed alone (``reparser``: the
views of a file read without its tree, and the pieces of a file with a syntax error)."""

from __future__ import annotations

from _thread import _local as thread_local  # threading.local itself, without importing threading (start-up)
from collections import OrderedDict

from tree_sitter import Node, Parser, Point, Range, Tree

from .language import hcl_language
from .scanner import may_respell, tree_sitter_spelling


class HclParser:
    """tree-sitter-hcl's parser, fed the text as HCL's scanner reads its tokens
    (``scanner.tree_sitter_spelling``: ``3e3`` is one number, as Terraform reads it). The trees'
    byte offsets are the text's own; the nodes' text is read from the real bytes."""

    __slots__ = ("_parser", "_spelled")

    KEEP = 8  # texts whose spelling is kept: a file's ranges are parsed one by one, files in turn

    def __init__(self) -> None:
        self._parser = Parser(hcl_language())
        self._spelled: OrderedDict[int, tuple[bytes, bytes]] = OrderedDict()

    @property
    def included_ranges(self) -> list[Range]:
        return self._parser.included_ranges

    @included_ranges.setter
    def included_ranges(self, ranges: list[Range]) -> None:
        self._parser.included_ranges = ranges

    def _spelling(self, source: bytes) -> bytes:
        kept = self._spelled.get(id(source))
        if kept is not None and kept[0] is source:
            return kept[1]
        spelled = tree_sitter_spelling(source)
        self._spelled[id(source)] = (source, spelled)
        while len(self._spelled) > self.KEEP:
            self._spelled.popitem(last=False)
        return spelled

    def parse(self, source: bytes, old_tree: Tree | None = None, may_respell_source: bool | None = None) -> Tree:
        """The tree of ``source``; incremental when ``old_tree`` was edited to match it, except
        where a token may be spelled for tree-sitter: changing its spelling can reach bytes
        outside the edit (typing ``3`` after ``1e``), which an incremental parse would not
        read again. ``may_respell_source`` False: the caller knows no token may be (an edited
        document keeps that fact edit by edit, so that a keystroke does not test the whole file)."""
        if may_respell_source is False:
            return self._parser.parse(source, old_tree) if old_tree is not None else self._parser.parse(source)
        masked = self._spelling(source)
        if old_tree is not None and masked is source and not may_respell(source):
            return self._parser.parse(source, old_tree)
        return self._parser.parse(masked)


def new_parser() -> HclParser:
    """A fresh parser; parsers are not thread-safe, so each owner keeps its own."""
    return HclParser()


class _Reparser(thread_local):
    """Parses one byte range of a file alone, keeping the last few trees (per thread:
    parsers are not thread-safe)."""

    KEEP = 8

    def __init__(self):
        self.parser: HclParser | None = None
        self.recent: OrderedDict[tuple[int, int, int], tuple[bytes, Tree]] = OrderedDict()

    def node(self, source: bytes, start: int, end: int, kind: str, scope: tuple[int, int] | None = None) -> Node | None:
        """The ``kind`` node spanning exactly ``[start, end)`` of ``source``, from a parse of
        ``scope`` (its top-level block: the next questions are likely about the same block)."""
        for (src_id, s, e), (src, tree) in reversed(self.recent.items()):
            if src is source and s <= start and end <= e:
                found = exact_node(tree, start, end, kind)
                if found is not None:
                    return found
        start_at, end_at = scope if scope is not None else (start, end)
        return exact_node(self.kept_tree(source, start_at, end_at), start, end, kind)

    def kept_tree(self, source: bytes, start: int, end: int) -> Tree:
        """``tree``, kept among the recent trees that ``node`` asks first (the region an edit
        touched, ``syntax.regions``: the blocks read from it are asked for their nodes next)."""
        tree = self.tree(source, start, end)
        self.recent[(id(source), start, end)] = (source, tree)
        while len(self.recent) > self.KEEP:
            self.recent.popitem(last=False)
        return tree

    def tree(self, source: bytes, start: int, end: int) -> Tree:
        """The tree of ``[start, end)`` of ``source`` parsed alone (nodes at the file's offsets)."""
        if self.parser is None:
            self.parser = new_parser()
        # Points only place rows and columns, which nothing here reads: bytes carry the spans.
        self.parser.included_ranges = [Range(Point(0, 0), Point(0, end - start), start, end)]
        # Only the range is read: only its bytes can hold a token spelled for tree-sitter.
        return self.parser.parse(source, may_respell_source=None if may_respell(source[start:end]) else False)


def exact_node(tree: Tree, start: int, end: int, kind: str) -> Node | None:
    node = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and not (node.type == kind and node.start_byte == start and node.end_byte == end):
        if node.start_byte < start or node.end_byte > end:
            return None
        node = node.parent
    return node


reparser = _Reparser()
