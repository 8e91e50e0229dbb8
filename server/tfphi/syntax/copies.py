"""A parsed file as the same bytes under another path (the batch loader's files that repeat the
bytes of one read before, ``loader.SameBytes``): a copy of each view, whose spans are made from
converters and anchors of its own."""

from __future__ import annotations

from .expr import Anchor, ExprConverter
from .attributes import Attribute, SpelledAttribute
from .hclfile import Block, Body, HclFile


def copy_under_path(hcl: HclFile, path: str) -> HclFile:
    """``hcl`` (read without a tree and without errors) as the same bytes at ``path`` (the batch
    loader's files that repeat the bytes of one read before, ``loader.SameBytes``): a copy of
    each view, with anchors of its own; the references, relative to each block, are the same
    objects."""
    converter = ExprConverter(hcl.source, path, keep_nodes=False)
    body = hcl.body
    attributes = {name: _copied_attribute(attr, converter) for name, attr in body.attributes.items()}
    blocks = []
    for block in body.blocks:
        old = block._converter
        conv = converter
        if old.source is not hcl.source:  # a block taken over reads its own text
            conv = ExprConverter(old.source, path, keep_nodes=False)
            conv.anchor = Anchor(path, block._anchor.start)
        blocks.append(_copied_block(block, conv, Anchor(path, block._anchor.start) if conv is converter else conv.anchor))
    return HclFile(path, hcl.source, None, Body(attributes, blocks), [], hcl.tops)


def _copied_attribute(attr: Attribute, place) -> Attribute:
    if type(attr) is Attribute:  # (its other offsets are read from its bytes, the same in the copy)
        copy = Attribute.__new__(Attribute)
    else:
        copy = SpelledAttribute.__new__(SpelledAttribute)
        copy._name_end, copy._value_start, copy._value_end = attr._name_end, attr._value_start, attr._value_end
    copy.name, copy._converter, copy._expr = attr.name, place, None
    copy._start, copy._end = attr._start, attr._end
    return copy


def _copied_block(block: Block, conv, anchor: Anchor | None) -> Block:
    """A copy of ``block``: a top-level block reading through ``conv`` at ``anchor``, or with
    None a block nested in the copied top-level block whose place is ``conv``."""
    copy = Block.__new__(Block)
    copy.type, copy.labels, copy._at = block.type, block.labels, block._at  # spans are made from its anchor when asked
    copy._converter, copy._anchor = conv, anchor  # (a file read without its tree: no node, its bodies read again)
    copy._text, copy._verdicts = block._text, block._verdicts
    copy._body = copy._place = None
    if block._body is not None:
        top = copy.place if anchor is not None else conv
        copy._body = _without_empty(Body({name: _copied_attribute(a, top) for name, a in block._body.attributes.items()},
                                         [_copied_block(b, top, None) for b in block._body.blocks]))
    return copy


def _without_empty(body: Body) -> Body:
    if not body.blocks:
        body.blocks = ()  # as a block's body read (``hclfile``): the empty tuple shared
    return body
