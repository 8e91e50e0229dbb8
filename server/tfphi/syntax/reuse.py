"""Reusing what a document's previous parse read, for the top-level blocks an edit did not touch.

An open document is parsed again on every keystroke, and reading its structure again costs
what the file holds, not what the edit touched: in a 2,858-line root ``main.tf`` with 200
module calls, 200 blocks' labels and then, for the module build, the bodies of all of them
(2,000 attributes) per keystroke, for the one block the user typed in. A top-level block
whose text is unchanged has the same structure, so the incremental parse
(``parse_file(..., previous=...)``) takes it over from the previous parse:

- a block that did not move (the edit is below it) is the previous ``Block`` object itself:
  its nodes, offsets and already converted expressions are all still right (the bytes of
  its range are the same);
- a block that moved by ``delta`` bytes (the edit is above it) is a copy with every offset
  moved; a body the previous parse had read is copied with its offsets moved too (nodes and
  converted expressions left out: they are read again from a parse of their range alone on
  first use, ``hclfile``'s re-parse of a range, which keeps the file's offsets), else it is
  read from the new tree when first asked for.

Only parses without syntax errors are matched: with errors, what a block's text parses to
can depend on the text around it.

The text searches every parse makes (``error_shapes.suspicious``, ``hclfile.rules_candidate``)
are asked per chunk of lines here, with the answers of unchanged chunks cached: a chunk
starts at each line that begins with a name (a top-level block's header, as a rule), so an
edit changes one chunk. The answer is the same as for the whole text because every shape
those searches look for lies within one line (with the newline before it); the two things
that reach across lines, heredoc bodies and ``/* */`` comments, send the text to the
whole-text search, and so does a chunk that is suspicious (the whole text confirms it).
"""

from __future__ import annotations


from tree_sitter import Node

from .expr import ExprConverter, Span
from .error_shapes import suspicious
from .hclfile import Attribute, Block, Body, HclFile, add_attribute, read_attribute_with, read_block_with, read_body_with, rules_candidate
from ..lazy_re import lazy_compile

# The state of an Attribute and a Block this module copies; a slot added there must be
# handled here (tests/host checks these sets against the classes).
ATTRIBUTE_SLOTS = frozenset({"name", "_node", "_converter", "_expr", "_start", "_end", "_name_end", "_value"})
BLOCK_SLOTS = frozenset({"type", "labels", "label_spans", "type_span", "span", "_node", "_converter", "_body", "_reparse", "_scope", "_origin"})
# At most this many earlier texts are held by moved blocks whose bodies are not copied yet
# (their origins: the blocks last read, with the nodes of that text's tree).
MAX_ORIGIN_TEXTS = 3


def reuse_possible(previous: HclFile, path: str) -> bool:
    """Whether ``previous`` (the last parse of a document) can lend its blocks to a parse of ``path``."""
    return previous.path == path and previous.tree is not None and not previous.errors


def read_top_level_reusing(top: Node, body: Body, converter: ExprConverter, previous: HclFile) -> list[Block]:
    """``hclfile._read_body`` of a file's top-level body, taking unchanged blocks over from
    ``previous``; returns the blocks read anew (the others set no argument twice: ``previous``
    had no error)."""
    before = _block_texts(previous)
    after: dict[bytes, Block] = {}
    source = converter.source
    file = converter.file
    origins: set[int] = set()  # the texts that this parse's pending moved blocks hold (by id)
    read = 0
    fresh: list[Block] = []
    tops: list[tuple[str, int, int]] = []  # every item but comments: ``references.top_level_nodes`` of this tree
    for child in top.children:
        kind = child.type
        if kind != "comment":
            tops.append((kind, child.start_byte, child.end_byte))
        if kind == "block":
            start, end = child.start_byte, child.end_byte
            text = source[start:end]
            old = before.get(text)
            if old is None:
                block = read_block_with(child, converter)
                if block is not None:
                    fresh.append(block)
            else:
                delta = start - old.span.start
                block = old if delta == 0 else _moved_top_block(old, delta, converter, file, child, origins)
            if block is not None:
                body.blocks.append(block)
                after.setdefault(text, block)
                read += 1
        elif kind == "attribute":
            add_attribute(body, read_attribute_with(child, converter), converter)
        elif kind == "ERROR" or kind == "body":
            read_body_with(child, body, converter)
    _texts.pop(file, None)  # (an older parse of this file is never asked again)
    if len(body.blocks) == read:  # (every block is one of the loop's: the map is the whole body's)
        if len(_texts) >= MAX_REMEMBERED_FILES:
            _texts.pop(next(iter(_texts)))  # the oldest
        _texts[file] = (body, after, tops)
    return fresh


# The top-level blocks of the last parse read here of each document, by their text (path ->
# (body, text -> first block of that text, the top-level items' ranges)): its next parse finds
# them there instead of slicing every block of this one again. (The document holds that parse anyway.)
_texts: dict[str, tuple[Body, dict[bytes, Block], list[tuple[str, int, int]]]] = {}
MAX_REMEMBERED_FILES = 16


def _block_texts(previous: HclFile) -> dict[bytes, Block]:
    known = _texts.get(previous.path)
    if known is not None and known[0] is previous.body:
        return known[1]
    before: dict[bytes, Block] = {}
    old_source = previous.source
    for block in previous.body.blocks:
        before.setdefault(old_source[block.span.start : block.span.end], block)
    return before


def top_ranges(hcl: HclFile) -> list[tuple[str, int, int]] | None:
    """(type, start, end) of each top-level item of a parse read here (``hcl.top_levels()``
    without walking its tree again), or None when this module did not read it."""
    known = _texts.get(hcl.path)
    return known[2] if known is not None and known[0] is hcl.body else None


def _moved_top_block(old: Block, delta: int, converter: ExprConverter, file: str, node: Node, origins: set[int]) -> Block:
    # A copy of the block's header with moved offsets (``_moved_shell``, inlined: this runs for
    # every block below an edit).
    moved = Block.__new__(Block)
    moved.type = old.type
    moved.labels = old.labels
    moved.label_spans = tuple([Span(file, s.start + delta, s.end + delta) for s in old.label_spans])
    s = old.type_span
    moved.type_span = Span(file, s.start + delta, s.end + delta)
    s = old.span
    moved.span = Span(file, s.start + delta, s.end + delta)
    moved._converter = converter
    moved._scope = scope = (node.start_byte, node.end_byte)
    moved._node = None
    moved._body = None
    moved._reparse = False
    moved._origin = None
    if old._origin is not None or old._body is not None:
        # Its body is copied with moved offsets when first read (most never are: a module
        # build reads a call's source and argument names, which the origin answers).
        origin, total = old._origin if old._origin is not None else (old, 0)
        total += delta
        text = id(origin._converter.source)
        if text in origins or len(origins) < MAX_ORIGIN_TEXTS:
            origins.add(text)
            moved._origin = (origin, total)
        else:  # too many old texts held: copy now
            moved._body = moved_body(origin._body, total, converter, scope)
        return moved
    moved._node = node  # never read: read it from the new tree when asked
    return moved


def _moved_shell(block: Block, delta: int, converter: ExprConverter, scope: tuple[int, int]) -> Block:
    """A copy of a block's header with moved offsets (under ``converter``'s path), without a body yet."""
    moved = Block.__new__(Block)
    moved.type = block.type
    moved.labels = block.labels
    file = converter.file
    moved.label_spans = tuple(_moved_span(s, delta, file) for s in block.label_spans)
    moved.type_span = _moved_span(block.type_span, delta, file)
    moved.span = _moved_span(block.span, delta, file)
    moved._converter = converter
    moved._scope = scope
    moved._node = None
    moved._body = None
    moved._reparse = False
    moved._origin = None
    return moved


def moved_body(body: Body, delta: int, converter: ExprConverter, scope: tuple[int, int]) -> Body:
    """A copy of ``body`` (read from another text where it starts ``delta`` bytes earlier) with its offsets moved."""
    return Body({name: _moved_attribute(attr, delta, converter) for name, attr in body.attributes.items()},
                [_moved_block(block, delta, converter, scope) for block in body.blocks])


def _moved_attribute(attr: Attribute, delta: int, converter: ExprConverter) -> Attribute:
    moved = Attribute.__new__(Attribute)
    moved.name = attr.name
    moved._node = None  # read again from a parse of its range
    moved._converter = converter
    moved._expr = None
    moved._start, moved._end = attr._start + delta, attr._end + delta
    moved._name_end = attr._name_end + delta
    moved._value = (attr._value[0] + delta, attr._value[1] + delta) if attr._value is not None else None
    return moved


def _moved_block(block: Block, delta: int, converter: ExprConverter, scope: tuple[int, int]) -> Block:
    moved = _moved_shell(block, delta, converter, scope)
    if block._body is not None:
        moved._body = moved_body(block._body, delta, converter, scope)
    else:
        moved._reparse = True  # read from a parse of ``scope`` on first use
    return moved


def body_under(body: Body, converter: ExprConverter) -> Body:
    """A copy of a file's top-level ``body`` for the same bytes read under ``converter``'s path
    (``hclfile.same_bytes_shared``): the moved copy with no shift, each block keeping its own range."""
    return Body({name: _moved_attribute(attr, 0, converter) for name, attr in body.attributes.items()},
                [_moved_block(block, 0, converter, block._scope) for block in body.blocks])


def _moved_span(span: Span, delta: int, file: str) -> Span:
    return Span(file, span.start + delta, span.end + delta)


# ---- text searches per chunk of lines ------------------------------------------------------

_CHUNK_START = lazy_compile(rb"\n(?=[A-Za-z_])")  # a line that begins with a name starts a chunk
MAX_CACHED_CHUNKS = 50_000
_verdicts: dict[tuple[int, bytes], bool] = {}  # (which search, chunk) -> its answer


_last_split: list = [None, []]  # the last text split, and its chunks (both searches split the same text)


def _chunks(source: bytes) -> list[bytes]:
    if _last_split[0] is source:
        return _last_split[1]
    starts = [0] + [m.end() for m in _CHUNK_START.finditer(source)]
    ends = starts[1:] + [len(source)]
    chunks = [source[a:b] for a, b in zip(starts, ends)]
    _last_split[:] = [source, chunks]
    return chunks


def _any_chunk(which: int, search, source: bytes) -> bool:
    if len(_verdicts) > MAX_CACHED_CHUNKS:
        _verdicts.clear()
    get = _verdicts.get
    for chunk in _chunks(source):
        key = (which, chunk)
        verdict = get(key)
        if verdict is None:
            verdict = _verdicts[key] = search(chunk)
        if verdict:
            return True
    return False


def suspicious_in_chunks(source: bytes) -> bool:
    """``error_shapes.suspicious(source)``, from cached answers for the unchanged chunks."""
    if b"<<" in source or b"/*" in source:
        return suspicious(source)  # heredocs and block comments reach across lines
    return _any_chunk(0, suspicious, source) and suspicious(source)


def rules_candidate_in_chunks(source: bytes) -> bool:
    """``hclfile.rules_candidate(source)``, from cached answers for the unchanged chunks (its
    shapes lie within a line, or a ``${`` and the blanks and ``}`` after it, which never reach
    a line that begins with a name)."""
    return _any_chunk(1, rules_candidate, source) and rules_candidate(source)
