"""A parsed file as the same bytes under another path (the batch loader's files that repeat the
bytes of one read before, ``loader.SameBytes``): a copy of each view, whose spans are made from
converters and anchors of its own."""

from __future__ import annotations

from .expr import Anchor, ExprConverter
from .attributes import copied_attribute
from .hclfile import Body, HclFile, copied_block


def copy_under_path(hcl: HclFile, path: str) -> HclFile:
    """``hcl`` (read without a tree and without errors) as the same bytes at ``path`` (the batch
    loader's files that repeat the bytes of one read before, ``loader.SameBytes``): a copy of
    each view, with anchors of its own; the references, relative to each block, are the same
    objects."""
    converter = ExprConverter(hcl.source, path, keep_nodes=False)
    body = hcl.body
    attributes = {name: copied_attribute(attr, converter) for name, attr in body.attributes.items()}
    blocks = []
    for block in body.blocks:
        old = block._converter
        conv = converter
        if old.source is not hcl.source:  # a block taken over reads its own text
            conv = ExprConverter(old.source, path, keep_nodes=False)
            conv.anchor = Anchor(path, block._anchor.start)
        blocks.append(copied_block(block, conv, Anchor(path, block._anchor.start) if conv is converter else conv.anchor))
    return HclFile(path, hcl.source, None, Body(attributes, blocks), [], hcl.tops)
