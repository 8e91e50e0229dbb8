"""The document store: what the editor has open, apart from the analysis.

A ``Document`` is the editor's copy of one file: its bytes, version, line index, the
negotiated position encoding and its tree-sitter tree. Every incremental change is
applied to the bytes *and* to a copy of the tree (``Tree.edit``) at once, so changes are
never lost or reordered; the reparse against the edited tree is deferred to ``parse``,
which the workspace calls once per batch of coalesced changes.

The tree the analysis holds (``Document.hcl.tree``) is never edited: lazily converted
expressions of the analysis's ``HclFile`` still read nodes of it. Edits go to a copy
(``Tree.copy`` is O(1); tree-sitter copies the edited subtrees on write). Once an edit of an
error-free text has been parsed as the region it touched alone (``syntax.regions``), or its
whole text parsed (``hclfile.drop_whole_tree``), the document holds no tree of the whole file:
the next edits are parsed by region, and an edit whose region cannot be parsed alone parses the
whole text afresh. (Only a text with a top-level argument keeps its tree.)

Nothing here knows about LSP messages, the workspace or the analysis.
"""

from __future__ import annotations

from typing import Iterable

from tree_sitter import Parser, Tree

from ..features.semantic_tokens import BlockTokens
from ..records import record, field
from ..syntax.hclfile import HclFile, drop_whole_tree, new_parser, parse_file
from ..syntax.regions import parse_edit
from ..syntax.searches import CleanSources
from ..syntax.scanner import may_respell, may_respell_near
from ..text import Encoding, LineIndex

__all__ = ["TextChange", "Document", "DocumentStore", "StaleVersion", "encode_text"]


def encode_text(text: str) -> bytes:
    """The UTF-8 bytes of editor text (lone surrogates a JSON string may carry survive as bytes)."""
    return text.encode("utf-8", "surrogatepass")


@record(frozen=True, slots=True)
class TextChange:
    """One content change: ``range`` is ((line, col), (line, col)) in the document's encoding, or None for the whole text."""

    text: str
    range: tuple[tuple[int, int], tuple[int, int]] | None = None


class StaleVersion(Exception):
    """A change whose version is not newer than the document's: it is ignored."""


@record(eq=False)
class Document:
    """One open document."""

    uri: str
    version: int
    source: bytes
    encoding: Encoding = "utf-16"
    language_id: str = ""
    hcl: HclFile | None = None  # the last parse; its tree is never edited
    _edited_tree: Tree | None = field(default=None, repr=False)  # a copy of hcl.tree with the pending edits
    # How many bytes at the start and at the end of the text the last parse read no change since
    # has touched: where the next parse finds the edited top-level blocks (hclfile's ``_splice``).
    _unchanged: tuple[int, int] | None = field(default=None, repr=False)
    _index: LineIndex | None = field(default=None, repr=False)
    dirty: bool = True  # the text changed since the last parse
    # Whether the text may hold a token spelled for tree-sitter (syntax.scanner.may_respell), kept
    # edit by edit from the edited bytes alone (None: not known, the parse tests the whole text).
    _may_respell: bool | None = field(default=None, repr=False)
    # The tokens of its top-level blocks, kept by the blocks' identity from one answer to the next
    # (features.semantic_tokens.BlockTokens): tokens after a keystroke cost the blocks it touched.
    tokens: BlockTokens = field(default_factory=BlockTokens, repr=False)

    @property
    def line_index(self) -> LineIndex:
        """The line index of the current text (built when first asked; an incremental change updates it)."""
        if self._index is None:
            self._index = LineIndex(self.source, skip_bom=False)  # the client counts a leading U+FEFF
        return self._index

    @property
    def text(self) -> str:
        return self.source.decode("utf-8", "surrogatepass")

    def offset(self, line: int, character: int) -> int:
        """Byte offset of an editor position (clamped to the text)."""
        return self.line_index.offset(line, character, self.encoding)

    def position(self, offset: int) -> tuple[int, int]:
        """Editor position of a byte offset."""
        return self.line_index.position(offset, self.encoding)

    def apply(self, changes: Iterable[TextChange], version: int | None) -> None:
        """Applies changes in order to the text and to the tree (the reparse waits for ``parse``).

        Raises ``StaleVersion`` when ``version`` is not newer than the document's.
        """
        if version is not None and version <= self.version:
            raise StaleVersion(f"{self.uri}: change to version {version}, but the document is at version {self.version}")
        for change in changes:
            self._apply_one(change)
        if version is not None:
            self.version = version

    def _apply_one(self, change: TextChange) -> None:
        inserted = encode_text(change.text)
        if change.range is None:
            self.source = inserted
            self._index = None
            self._may_respell = None
            self._edited_tree = None  # nothing to reuse: a full parse
            self._unchanged = (0, 0)
            self.dirty = True
            return
        (sl, sc), (el, ec) = change.range
        index = self.line_index
        start = index.offset(sl, sc, self.encoding)
        old_end = index.offset(el, ec, self.encoding)
        if old_end < start:  # a reversed range; LSP forbids it, be lenient
            start, old_end = old_end, start
        old = self.source
        with memoryview(old) as view:  # one copy of the text, not three
            new = b"".join((view[:start], inserted, view[old_end:]))
        new_end = start + len(inserted)
        head, tail = self._unchanged or (len(old), len(old))
        self._unchanged = (min(head, start), min(tail, len(old) - old_end))
        new_index = index.edited(start, old_end, new)
        tree = self._tree_for_edit()
        if tree is not None:
            tree.edit(
                start_byte=start,
                old_end_byte=old_end,
                new_end_byte=new_end,
                start_point=index.point(start),
                old_end_point=index.point(old_end),
                new_end_point=new_index.point(new_end),
            )
        self.source = new
        if self._may_respell is False:  # none in the text before: one now only where the edit wrote
            self._may_respell = may_respell_near(new, start, new_end)
        self._index = new_index
        self.dirty = True

    def _tree_for_edit(self) -> Tree | None:
        if self._edited_tree is None and self.hcl is not None and self.hcl.tree is not None and not self.dirty:
            self._edited_tree = self.hcl.tree.copy()  # (a parse read piece by piece keeps no tree: parsed afresh)
        return self._edited_tree

    def parse(self, path: str, parser: Parser, clean: CleanSources | None = None) -> HclFile:
        """The parse of the current text: incremental against the edited tree when there is one
        (``clean``: the host's bytes found free of errors, see ``parse_file``)."""
        if self.hcl is not None and not self.dirty and self.hcl.path == path:
            return self.hcl
        # An edit of an error-free text parses the region it touched alone, the blocks around it
        # taken over as they are (syntax.regions); else the whole text is parsed, incrementally
        # against the edited tree when there is one, and the top-level blocks whose text the edit
        # left alone are taken over from the last parse (hclfile.take_over_blocks).
        hcl = parse_edit(path, self.source, self.hcl, self._unchanged)
        if hcl is None:
            if self._may_respell is None:
                self._may_respell = may_respell(self.source)  # once per opened text, then per edit
            hcl = parse_file(path, self.source, parser, self._edited_tree, previous=self.hcl,
                             may_respell_source=self._may_respell, unchanged=self._unchanged, clean=clean)
            drop_whole_tree(hcl, self.hcl)  # (no tree of the whole text outlives its parse either)
        # A text with a syntax error is read piece by piece, each piece parsed alone and no tree
        # kept (syntax.tree_errors.parse_in_pieces): what the editor reads of it does not depend
        # on what an incremental parse could reuse, and is what `tfphi check` reads.
        self.hcl = hcl
        self._edited_tree = None
        self._unchanged = None
        self.dirty = False
        return self.hcl


class DocumentStore:
    """Open documents by URI, and the parser that reparses them."""

    def __init__(self, encoding: Encoding = "utf-16"):
        self.encoding: Encoding = encoding
        self.parser: Parser = new_parser()
        self._docs: dict[str, Document] = {}

    def __contains__(self, uri: str) -> bool:
        return uri in self._docs

    def __iter__(self):
        return iter(list(self._docs.values()))

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)

    def open(self, uri: str, version: int, text: str, language_id: str = "") -> Document:
        """Opens (or reopens) a document with its full text."""
        doc = Document(uri, version, encode_text(text), self.encoding, language_id)
        self._docs[uri] = doc
        return doc

    def change(self, uri: str, version: int | None, changes: Iterable[TextChange]) -> Document:
        """Applies changes to an open document; KeyError when it is not open, StaleVersion when old."""
        doc = self._docs[uri]
        doc.apply(changes, version)
        return doc

    def close(self, uri: str) -> Document | None:
        return self._docs.pop(uri, None)
