"""The arguments of a file's bodies (``name = expression``) as ``syntax.hclfile`` reads them:
what each keeps, and what it reads from its file's bytes when asked."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from .expr import Expr, ExprConverter, InvalidExpr, LiteralExpr, Span
from .parsers import reparser

if TYPE_CHECKING:
    from .hclfile import Place


# A quoted string with nothing to unescape or interpolate: its value is the text between the quotes.
_PLAIN_STRING = re.compile(rb'"[^"\\$%\n]*"')


class Attribute:
    """``name = expression``; spans and the expression are worked out on first use.

    Building a module reads every attribute of its variable, module and output blocks, and
    most are never asked about again: only the name is read eagerly, with the ranges of the
    name and of the value, so that ``name_span`` and a plain string's ``literal_string``
    (what every module build reads) need no parse again once the file's tree is gone.
    Offsets are kept relative to the top-level block (its place's ``base``): an attribute
    stays right when text above its block changes. Its place (``_converter``) is its top-level
    block's ``Place`` (one per block, no converter of its own: ``Place.converter``), or the file's
    converter for an argument of the file's own body (``.tfvars``, JSON).

    An argument written as almost all are (its name, spaces, ``=``, spaces, a value that ends it:
    ``_regular``) keeps only its start and end: where its name ends and its value starts are read
    from its bytes when asked. Any other keeps them (``SpelledAttribute``), as does an argument of
    a file whose tree is kept (``TreeAttribute``: its node too). Attributes are most of what a
    workspace's views hold (bench/README.md, "Issue 23: server memory at 10,000 modules, session 11").
    """

    # ``_start`` from the place's base, ``_end`` from ``_start``: small integers, which Python shares.
    __slots__ = ("name", "_converter", "_expr", "_start", "_end")
    _node: Node | None = None  # (``TreeAttribute``: the node while its file's tree is kept)

    def __init__(self, name: str, node: Node, converter: ExprConverter, keep_node: bool = True,
                 name_end: int | None = None, place: "Place | None" = None):
        """(``keep_node`` and ``name_end``: for the classes that keep them; ``Attribute.read`` picks the class.)"""
        self.name = name
        at = node.start_byte
        self._start = at - converter.base
        self._end = node.end_byte - at
        self._converter = converter if place is None else place  # (see the class)
        self._expr: Expr | None = None

    @staticmethod
    def read(name: str, node: Node, converter: ExprConverter, name_end: int, place: "Place | None") -> "Attribute":
        """The attribute of ``node`` (read with ``converter``; ``place``: its top-level block, None
        for an argument of the file's own body), of the class that keeps what its bytes do not say."""
        if converter.keep_nodes:
            return TreeAttribute(name, node, converter, True, name_end, place)
        at, end = node.start_byte, node.end_byte
        value = node.child(node.child_count - 1)  # ``name = expression``: the value comes last
        if (value is not None and value.type == "expression" and value.end_byte == end
                and _regular(converter.source, name, at, name_end, value.start_byte)):
            # Made here, not through ``__init__``, which would ask the node for its offsets again:
            # almost every argument of a workspace's eager bodies is one (31,315 in the corpus).
            self = object.__new__(Attribute)
            self.name, self._start, self._end, self._expr = name, at - converter.base, end - at, None
            self._converter = converter if place is None else place
            return self
        return SpelledAttribute(name, node, converter, False, name_end, place)

    # Where the name ends and the value starts and ends, from the start (-1: no value). Read from
    # the bytes here; kept by the classes below, whose slots of the same names come first.

    @property
    def _name_end(self) -> int:
        return len(self.name.encode("utf-8"))

    @property
    def _value_start(self) -> int:
        conv = self._converter
        at = conv.base + self._start
        return _EQUALS.match(conv.source, at + len(self.name.encode("utf-8"))).end() - at

    @property
    def _value_end(self) -> int:
        return self._end

    def _tree_node(self) -> Node:
        if self._node is not None:
            return self._node
        # The attribute's own range: a trace reads a few arguments of a module call or a
        # variable's type and default, and parsing the whole block for each cost more (a
        # recent parse of the block, e.g. for a resource's body, still answers first).
        conv = self._converter
        reread(conv.owner or conv)
        start = conv.base + self._start
        node = reparser.node(conv.source, start, start + self._end, "attribute")
        assert node is not None, f"attribute {self.name!r} not found again at {self._start}-{self._end}"
        return node

    @property
    def span(self) -> Span:
        conv = self._converter
        return Span(conv.file, self._start, self._start + self._end, conv.anchor)

    @property
    def value_range(self) -> tuple[int, int] | None:
        """The absolute byte range of the value in the file's current text (None when the parse recovered without one)."""
        if self._value_start < 0:
            return None
        anchor = self._converter.anchor
        shift = self._start + (anchor.start if anchor is not None else 0)
        return self._value_start + shift, self._value_end + shift

    @property
    def name_span(self) -> Span:
        conv = self._converter
        return Span(conv.file, self._start, self._start + self._name_end, conv.anchor)  # the name starts the attribute

    @property
    def expr(self) -> Expr:
        if self._expr is None:
            node = self._tree_node()
            expr_node = node.child(node.child_count - 1)  # ``name = expression``: the value comes last
            if expr_node is None or expr_node.type != "expression":
                expr_node = next((c for c in node.children if c.type == "expression"), None)
            if expr_node is None:
                self._expr = InvalidExpr(self.span, "missing value")
            else:
                self._expr = self._converter.converter().convert(expr_node)
        return self._expr

    def _raw_value(self) -> bytes:
        conv = self._converter
        at = conv.base + self._start
        return conv.source[at + self._value_start : at + self._value_end]

    def literal_bool(self) -> bool | None:
        """The value when it is the bare keyword ``true`` or ``false`` (read from the bytes:
        no parse again once the file's tree is gone); None for anything else."""
        if self._value_start < 0:
            return None
        raw = self._raw_value()
        return True if raw == b"true" else False if raw == b"false" else None

    def literal_string(self) -> str | None:
        """The value when it is a plain quoted string without escapes or templates (fast path)."""
        if self._value_start >= 0:
            raw = self._raw_value()
        else:  # no value, or recovered oddly: read the last child as before
            node = self._tree_node()
            expr_node = node.child(node.child_count - 1)
            raw = self._converter.source[expr_node.start_byte : expr_node.end_byte] if expr_node is not None else b""
        if _PLAIN_STRING.fullmatch(raw):
            return raw[1:-1].decode("utf-8", "replace")
        if self._expr is None and raw[:1] != b'"':
            return None
        expr = self.expr
        return expr.value if isinstance(expr, LiteralExpr) and isinstance(expr.value, str) else None

    def __repr__(self) -> str:
        return f"Attribute({self.name!r})"


# Between a regular argument's name and its value: spaces, ``=``, spaces (``Attribute._regular``).
_EQUALS = re.compile(rb"[ \t]*=[ \t]*")
_equals = _EQUALS.match


def _regular(source: bytes, name: str, at: int, name_end: int, value_start: int) -> bool:
    """Whether an argument at ``at`` of ``source`` whose name ends at ``name_end`` and whose value
    starts at ``value_start`` lies as ``Attribute``'s properties read it."""
    if name_end - at != (len(name) if name.isascii() else len(name.encode("utf-8"))):
        return False  # (a name with bytes that are not UTF-8: its text is not its bytes)
    found = _equals(source, name_end)
    return found is not None and found.end() == value_start


class SpelledAttribute(Attribute):
    """An argument whose name or value does not lie as a regular one's (``_regular``: a comment or
    a line break around its ``=``, no value, a value that does not end it): its offsets are kept."""

    __slots__ = ("_name_end", "_value_start", "_value_end")

    def __init__(self, name: str, node: Node, converter: ExprConverter, keep_node: bool = True,
                 name_end: int | None = None, place: "Place | None" = None):
        super().__init__(name, node, converter, keep_node, name_end, place)
        at = node.start_byte
        if name_end is None:
            first = node.child(0)
            name_end = first.end_byte if first is not None else at
        self._name_end = name_end - at
        value = node.child(node.child_count - 1)  # ``name = expression``: the value comes last
        if value is not None and value.type == "expression":
            self._value_start, self._value_end = value.start_byte - at, value.end_byte - at
        else:
            self._value_start = self._value_end = -1


class TreeAttribute(SpelledAttribute):
    """An argument of a file whose tree is kept (an open document): its node, until the file's
    next parse takes its block over (``_drop_nodes``)."""

    __slots__ = ("_node",)

    def __init__(self, name: str, node: Node, converter: ExprConverter, keep_node: bool = True,
                 name_end: int | None = None, place: "Place | None" = None):
        super().__init__(name, node, converter, keep_node, name_end, place)
        self._node = node if keep_node else None  # None: parse the range again when asked


def copied_attribute(attr: Attribute, place) -> Attribute:
    """``attr`` (read without its node) read through ``place`` instead: the same name and offsets,
    relative to its place, so the same views where ``place`` reads the same bytes."""
    if type(attr) is Attribute:  # (its other offsets are read from its bytes, the same in the copy)
        copy = object.__new__(Attribute)
    else:
        copy = object.__new__(SpelledAttribute)
        copy._name_end, copy._value_start, copy._value_end = attr._name_end, attr._value_start, attr._value_end
    copy.name, copy._converter, copy._expr = attr.name, place, None
    copy._start, copy._end = attr._start, attr._end
    return copy


def reread(owner: ExprConverter) -> None:
    """Tells the file's host, once, that a view reads its bytes again (``forget_derived``;
    ``owner``: the converter of the file, or of a block's own text, the view reads through)."""
    if owner.on_reread is not None:
        notify, owner.on_reread = owner.on_reread, None
        notify()
