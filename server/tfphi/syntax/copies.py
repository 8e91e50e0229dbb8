"""A parsed file as the same bytes under another path (the batch loader's files that repeat the
bytes of one read before, ``loader.SameBytes``): a copy of each view, whose spans are made from
converters and anchors of its own."""

from __future__ import annotations

from .expr import Anchor, ExprConverter
from .hclfile import Attribute, Block, Body, HclFile


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
        conv = ExprConverter(old.source, path, keep_nodes=False)  # (a block taken over reads its own text)
        conv.base, conv.end, conv.anchor, conv.owner = old.base, old.end, Anchor(path, old.anchor.start), converter
        blocks.append(_copied_block(block, conv))
    return HclFile(path, hcl.source, None, Body(attributes, blocks), [], hcl.tops)


def _copied_attribute(attr: Attribute, conv: ExprConverter) -> Attribute:
    copy = Attribute.__new__(Attribute)
    copy.name, copy._node, copy._converter, copy._expr = attr.name, None, conv, None
    copy._start, copy._end, copy._name_end = attr._start, attr._end, attr._name_end
    copy._value_start, copy._value_end = attr._value_start, attr._value_end
    return copy


def _copied_block(block: Block, conv: ExprConverter) -> Block:
    copy = Block.__new__(Block)
    copy.type, copy.labels, copy._at = block.type, block.labels, block._at  # spans are made from ``conv`` when asked
    copy._node, copy._converter, copy._reparse, copy._text, copy._verdicts = None, conv, True, block._text, block._verdicts
    copy._broken = block._broken
    copy._body = None
    if block._body is not None:
        copy._body = _without_empty(Body({name: _copied_attribute(a, conv) for name, a in block._body.attributes.items()},
                                         [_copied_block(b, conv) for b in block._body.blocks]))
    return copy


def _without_empty(body: Body) -> Body:
    if not body.blocks:
        body.blocks = ()  # as a block's body read (``hclfile``): the empty tuple shared
    return body
