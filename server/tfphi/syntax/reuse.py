"""Reusing what a file's previous parse read, for the top-level blocks an edit did not touch.

An open document is parsed again on every keystroke, and building its module reads the
bodies of its variable, locals, module and output blocks again: in a 2,858-line root
``main.tf`` with 200 module calls, that is 2,000 attributes read from the tree per keystroke,
for the one block the user typed in. A top-level block whose text is unchanged has the same
body: the previous parse's body is taken over instead of read again.

- A block that did not move (the edit is after it) takes the previous body object as it is:
  its nodes, offsets and already converted expressions are all still right (the bytes of its
  range are the same).
- A block that moved by ``delta`` bytes (the edit is above it) gets a copy of the previous
  body with every offset moved; nodes and converted expressions are left out, and read again
  from a parse of their range alone on first use (``hclfile``'s re-parse of a range, which
  keeps the file's offsets).

Only parses without syntax errors are matched: with errors, what a block's text parses to
can depend on the text around it.
"""

from __future__ import annotations

from .expr import ExprConverter, Span
from .hclfile import Attribute, Block, Body, HclFile

# The state of an Attribute and a Block this module copies; a slot added there must be
# handled here (tests/host checks these sets against the classes).
ATTRIBUTE_SLOTS = frozenset({"name", "_node", "_converter", "_expr", "_start", "_end", "_name_end", "_value"})
BLOCK_SLOTS = frozenset({"type", "labels", "label_spans", "type_span", "span", "_node", "_converter", "_body", "_reparse", "_scope"})


def adopt_unchanged_bodies(new: HclFile, old: HclFile) -> int:
    """Gives ``new``'s top-level blocks whose text is unchanged since ``old`` the bodies ``old`` read; returns how many."""
    if new.errors or old.errors or new.path != old.path:
        return 0
    before: dict[bytes, Block] = {}
    for block in old.body.blocks:
        if block._body is not None:
            before.setdefault(old.source[block.span.start : block.span.end], block)
    if not before:
        return 0
    converter: ExprConverter | None = None
    adopted = 0
    for block in new.body.blocks:
        if block._body is not None:
            continue
        previous = before.get(new.source[block.span.start : block.span.end])
        if previous is None or previous.type != block.type or previous.labels != block.labels:
            continue
        delta = block.span.start - previous.span.start
        if delta == 0:
            block._body = previous._body
        else:
            if converter is None:
                converter = block._converter if block._converter is not None else ExprConverter(new.source, new.path)
            scope = (block.span.start, block.span.end)
            block._body = _moved_body(previous._body, delta, converter, scope)
        block._node = None
        adopted += 1
    return adopted


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
