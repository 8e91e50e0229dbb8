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
"""

from __future__ import annotations

from tree_sitter import Node

from .expr import ExprConverter, Span
from .hclfile import Attribute, Block, Body, HclFile, _read_attribute, _read_block, _read_body

# The state of an Attribute and a Block this module copies; a slot added there must be
# handled here (tests/host checks these sets against the classes).
ATTRIBUTE_SLOTS = frozenset({"name", "_node", "_converter", "_expr", "_start", "_end", "_name_end", "_value"})
BLOCK_SLOTS = frozenset({"type", "labels", "label_spans", "type_span", "span", "_node", "_converter", "_body", "_reparse", "_scope"})


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
    for child in top.children:
        kind = child.type
        if kind == "block":
            start = child.start_byte
            old = before.get(source[start : child.end_byte])
            block = _read_block(child, converter) if old is None else _moved_top_block(old, start - old.span.start, converter, child)
            if block is not None:
                body.blocks.append(block)
        elif kind == "attribute":
            attr = _read_attribute(child, converter)
            if attr is not None:
                body.attributes[attr.name] = attr
        elif kind == "ERROR" or kind == "body":
            _read_body(child, body, converter)


def _moved_top_block(old: Block, delta: int, converter: ExprConverter, node: Node) -> Block:
    if delta == 0:
        return old
    scope = (node.start_byte, node.end_byte)
    moved = _moved_block(old, delta, converter, scope)
    if moved._body is None:  # never read: read it from the new tree when asked
        moved._node, moved._reparse = node, False
    return moved


def _moved_body(body: Body, delta: int, converter: ExprConverter, scope: tuple[int, int]) -> Body:
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
    moved = Block.__new__(Block)
    moved.type = block.type
    moved.labels = block.labels
    moved.label_spans = tuple(_moved_span(s, delta) for s in block.label_spans)
    moved.type_span = _moved_span(block.type_span, delta)
    moved.span = _moved_span(block.span, delta)
    moved._converter = converter
    moved._scope = scope
    moved._node = None
    if block._body is not None:
        moved._body = _moved_body(block._body, delta, converter, scope)
        moved._reparse = False
    else:
        moved._body = None
        moved._reparse = True  # read from a parse of ``scope`` on first use
    return moved


def _moved_span(span: Span, delta: int) -> Span:
    return Span(span.file, span.start + delta, span.end + delta)
