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

The text searches every parse makes (``error_shapes.suspicious``, ``hclfile._rules_candidate``)
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
from .hclfile import Attribute, Block, Body, HclFile, _read_attribute, _read_block, _read_body, _rules_candidate
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


def read_top_level_reusing(top: Node, body: Body, converter: ExprConverter, previous: HclFile) -> None:
    """``hclfile._read_body`` of a file's top-level body, taking unchanged blocks over from ``previous``."""
    before: dict[bytes, Block] = {}
    old_source = previous.source
    for block in previous.body.blocks:
        before.setdefault(old_source[block.span.start : block.span.end], block)
    source = converter.source
    origins: set[int] = set()  # the texts that this parse's pending moved blocks hold (by id)
    for child in top.children:
        kind = child.type
        if kind == "block":
            start = child.start_byte
            old = before.get(source[start : child.end_byte])
            block = _read_block(child, converter) if old is None else _moved_top_block(old, start - old.span.start, converter, child, origins)
            if block is not None:
                body.blocks.append(block)
        elif kind == "attribute":
            attr = _read_attribute(child, converter)
            if attr is not None:
                body.attributes[attr.name] = attr
        elif kind == "ERROR" or kind == "body":
            _read_body(child, body, converter)


def _moved_top_block(old: Block, delta: int, converter: ExprConverter, node: Node, origins: set[int]) -> Block:
    if delta == 0:
        return old
    scope = (node.start_byte, node.end_byte)
    if old._origin is not None or old._body is not None:
        # Its body is copied with moved offsets when first read (most never are: a module
        # build reads a call's source and argument names, which the origin answers).
        origin, total = old._origin if old._origin is not None else (old, 0)
        total += delta
        text = id(origin._converter.source)
        if text in origins or len(origins) < MAX_ORIGIN_TEXTS:
            origins.add(text)
            moved = _moved_shell(old, delta, converter, scope)
            moved._origin = (origin, total)
            return moved
        moved = _moved_shell(old, delta, converter, scope)  # too many old texts held: copy now
        moved._body = moved_body(origin._body, total, converter, scope)
        return moved
    moved = _moved_shell(old, delta, converter, scope)
    moved._node, moved._reparse = node, False  # never read: read it from the new tree when asked
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
    """``hclfile._rules_candidate(source)``, from cached answers for the unchanged chunks (its
    shapes lie within a line, or a ``${`` and the blanks and ``}`` after it, which never reach
    a line that begins with a name)."""
    return _any_chunk(1, _rules_candidate, source) and _rules_candidate(source)
