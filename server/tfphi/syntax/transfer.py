"""A file read without its tree (``parse_file(..., keep_tree=False)``) as plain tuples, and back.

The batch loader has another process parse and read part of a workspace's files
(``loader``: tree-sitter's Python binding holds the interpreter lock while it parses, so a
thread could not share the work): what that process read crosses a pipe as ``marshal``'d
builtins (ints, strings, tuples), and ``decode`` makes the same objects the analysis would
have read itself. Only what a file read from disk holds once its tree is gone is carried:
blocks and attributes with their byte ranges, the bodies read eagerly, the syntax errors and
the top-level references. Anything else (a kept tree or node, a converted expression, a
moved block) makes ``encode`` answer None, and the file is read where it is needed.

The source bytes do not cross: both sides have them (the worker was forked after reading).
Spans carry the path ``decode`` is given.
"""

from __future__ import annotations

from sys import intern

from .expr import ExprConverter, Span
from .hclfile import Attribute, Block, Body, HclFile, SyntaxProblem
from .references import Unbound

# The state of an Attribute and a Block; a slot added to them must be handled here as well
# (tests/core/test_transfer.py checks these against the classes).
ATTRIBUTE_SLOTS = frozenset({"name", "_node", "_converter", "_expr", "_start", "_end", "_name_end", "_value"})
BLOCK_SLOTS = frozenset({"type", "labels", "label_spans", "type_span", "span", "_node", "_converter", "_body", "_reparse",
                         "_text", "_verdicts", "_broken"})
HCLFILE_FIELDS = ("path", "source", "tree", "body", "errors", "tops", "moved", "took_over")  # (the last two: a parse of an edit)


class _Unsupported(Exception):
    pass


def encode(hcl: HclFile) -> tuple | None:
    """``hcl`` as builtins ``marshal`` writes, or None when it holds more than a file read from
    disk without its tree (a tree, a node, a converted expression...)."""
    if hcl.tree is not None:
        return None
    path = hcl.path
    try:
        errors = tuple(_problem(e, path) for e in hcl.errors)
        tops = tuple((kind, start, end, None if refs is None else (isinstance(refs, Unbound), [_relative(r) for r in refs]))
                     for kind, start, end, refs in hcl.tops)
        return (_body(hcl.body, path), errors, tops)
    except _Unsupported:
        return None


def _relative(ref: tuple) -> tuple:
    root, names, start, end, ends = ref
    return (intern(root), tuple(map(intern, names)), start, end, ends)


def _span(span: Span, path: str) -> tuple[int, int]:
    if span.file != path:
        raise _Unsupported
    return span.start, span.end


def _relative_span(span: Span) -> tuple[int, int]:
    """A span within a top-level block, relative to the block's start."""
    return span._start, span._end


def _problem(problem: SyntaxProblem, path: str) -> tuple:
    region = None if problem.region is None else _span(problem.region, path)
    return (_span(problem.span, path), problem.message, region)


def _body(body: Body, path: str, top: bool = True) -> tuple:
    attributes = []
    for name, attr in body.attributes.items():
        if attr._node is not None or attr._expr is not None or attr.name != name:
            raise _Unsupported
        attributes.append((intern(name), attr._start, attr._end, attr._name_end, attr._value))
    blocks = []
    for block in body.blocks:
        conv = block._converter
        if block._node is not None or not block._reparse or conv.anchor is None or conv.owner is None:
            raise _Unsupported
        blocks.append((
            intern(block.type), block.labels, tuple(_relative_span(s) for s in block.label_spans), _relative_span(block.type_span),
            (conv.base, conv.end) if top else _relative_span(block.span), None if block._body is None else _body(block._body, path, False),
        ))
    return (tuple(attributes), tuple(blocks))


def decode(data: tuple, path: str, source: bytes) -> HclFile:
    """The ``HclFile`` that ``encode`` was given, read from ``source`` at ``path``."""
    body, errors, tops = data
    converter = ExprConverter(source, path, keep_nodes=False)
    problems = [SyntaxProblem(Span(path, *span), message, None if region is None else Span(path, *region))
                for span, message, region in errors]
    return HclFile(path, source, None, _decode_body(body, converter, path), problems,
                   tuple((kind, start, end, None if refs is None else (Unbound(refs[1]) if refs[0] else refs[1]))
                         for kind, start, end, refs in tops))


_new_attribute = Attribute.__new__
_new_block = Block.__new__


def _decode_body(data: tuple, converter: ExprConverter, path: str) -> Body:
    attributes_data, blocks_data = data
    attributes = {}
    for name, start, end, name_end, value in attributes_data:
        attr = _new_attribute(Attribute)
        attr.name, attr._node, attr._converter, attr._expr = name, None, converter, None
        attr._start, attr._end, attr._name_end, attr._value = start, end, name_end, value
        attributes[name] = attr
    blocks = []
    top = converter.anchor is None  # the file's top-level body: each block gets its converter
    for kind, labels, label_spans, type_span, span, body in blocks_data:
        conv = converter.for_block(*span) if top else converter
        anchor = conv.anchor
        block = _new_block(Block)
        block.type, block.labels = kind, labels
        block.label_spans = tuple([Span(path, s, e, anchor) for s, e in label_spans])
        block.type_span = Span(path, *type_span, anchor)
        block.span = Span(path, 0, span[1] - span[0], anchor) if top else Span(path, *span, anchor)
        block._node, block._converter, block._reparse, block._text, block._verdicts = None, conv, True, None, None
        block._broken = False  # (a file with syntax errors keeps its tree: never encoded)
        block._body = None if body is None else _decode_body(body, conv, path)
        blocks.append(block)
    return Body(attributes, blocks)
