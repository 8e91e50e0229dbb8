"""Typed HCL expressions, named after HashiCorp hcl's expression kinds, built from tree-sitter nodes.

Conversion is lazy (one attribute at a time) and never raises: anything the converter
cannot understand becomes an ``InvalidExpr`` carrying the reason, and nesting deeper than
``MAX_NESTING`` is cut off so that hostile input cannot exhaust the Python stack.
"""

from __future__ import annotations

from typing import Callable, Union

from tree_sitter import Node

from ..records import record
from ..lazy_re import lazy_compile
from ..values.errors import TfUnrepresentable
from ..values.numbers import parse_number
from ..values.value import Value, nfc
from .templates import Piece, TemplateError, TemplateFor, TemplateIf, literal_pieces, parse_template

MAX_NESTING = 100  # levels; Terraform written by people stays far below, the Python stack far above
NESTED_TOO_DEEPLY = f"expression nested more than {MAX_NESTING} levels deep"


class Anchor:
    """Where one top-level block starts in the current text of its file (rust-analyzer's AstId
    with its file's position table in one object).

    The spans of a block's text are relative to its anchor, so the block, its declarations and
    whatever was derived from them (findings, traces) stay the same objects when text above it
    changes: the next parse of the file finds the block's text again, takes the block over and
    sets ``start`` to where it now is (``hclfile``). Absolute offsets are worked out when a span
    is read, as a result leaves the analysis. Only the parse that takes a block over moves its
    anchor; snapshots made before it are cancelled by then (``cancellation.Cancelled``)."""

    __slots__ = ("file", "start")

    def __init__(self, file: str, start: int):
        self.file = file
        self.start = start

    def __repr__(self) -> str:
        return f"Anchor({self.file!r}, {self.start})"


class Span:
    """A half-open byte range ``[start, end)`` in one file (path relative to the workspace root).

    With an ``anchor``, the range is kept relative to a top-level block's start and ``start``
    and ``end`` are that block's current place plus the offsets (``Anchor``); without, absolute.
    Spans compare by the absolute range they denote now; the hash reads what moving cannot
    change (the file and the length), so a span kept in a set stays findable after its block moved."""

    __slots__ = ("file", "_start", "_end", "anchor")

    def __init__(self, file: str, start: int, end: int, anchor: Anchor | None = None):
        self.file = file
        self._start = start
        self._end = end
        self.anchor = anchor

    @property
    def start(self) -> int:
        anchor = self.anchor
        return self._start if anchor is None else anchor.start + self._start

    @property
    def end(self) -> int:
        anchor = self.anchor
        return self._end if anchor is None else anchor.start + self._end

    def until(self, other: "Span") -> "Span":
        """From this span's start to ``other``'s end (kept relative when both share an anchor)."""
        if self.anchor is not None and other.anchor is self.anchor:
            return Span(self.file, self._start, other._end, self.anchor)
        return Span(self.file, self.start, other.end)

    def __eq__(self, other) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        return self.file == other.file and self.start == other.start and self.end == other.end

    def __ne__(self, other) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((self.file, self._end - self._start))

    def __repr__(self) -> str:
        return f"Span(file={self.file!r}, start={self.start!r}, end={self.end!r})"

    def __reduce__(self):
        return (Span, (self.file, self.start, self.end))


@record(frozen=True, slots=True, eq=False)
class Expr:
    span: Span


@record(frozen=True, slots=True, eq=False)
class LiteralExpr(Expr):
    value: Value


@record(frozen=True, slots=True, eq=False)
class TemplateExpr(Expr):
    """A string template: parts are literal strings or interpolated expressions.

    A quoted ``"${x}"`` (one part, ``always_string`` false) is ``x`` itself, unconverted
    (hclsyntax's TemplateWrapExpr); any other template is a string (its TemplateExpr)."""

    parts: tuple[Union[str, Expr], ...]
    always_string: bool = False


@record(frozen=True, slots=True, eq=False)
class TemplateJoinExpr(Expr):
    """``%{ for x in coll }body%{ endfor }``: the strings the loop's body gives, joined."""

    loop: "ForExpr"


@record(frozen=True, slots=True, eq=False)
class AttrStep:
    name: str
    span: Span


@record(frozen=True, slots=True, eq=False)
class IndexStep:
    key: Expr
    span: Span


@record(frozen=True, slots=True, eq=False)
class SplatStep:
    """``[*]`` or ``.*``: the remaining steps apply to every element."""

    span: Span


Step = Union[AttrStep, IndexStep, SplatStep]


@record(frozen=True, slots=True, eq=False)
class ScopeTraversalExpr(Expr):
    """A name followed by attribute, index and splat steps: ``var.x``, ``module.m.out[0]``."""

    root: str
    root_span: Span
    steps: tuple[Step, ...]


@record(frozen=True, slots=True, eq=False)
class RelativeTraversalExpr(Expr):
    """Steps applied to the result of another expression: ``f(x).a``, ``(x)[0]``."""

    source: Expr
    steps: tuple[Step, ...]


@record(frozen=True, slots=True, eq=False)
class FunctionCallExpr(Expr):
    name: str
    name_span: Span
    args: tuple[Expr, ...]
    expand_final: bool


@record(frozen=True, slots=True, eq=False)
class ConditionalExpr(Expr):
    condition: Expr
    true_result: Expr
    false_result: Expr


@record(frozen=True, slots=True, eq=False)
class BinaryOpExpr(Expr):
    op: str
    left: Expr
    right: Expr


@record(frozen=True, slots=True, eq=False)
class UnaryOpExpr(Expr):
    op: str
    operand: Expr


@record(frozen=True, slots=True, eq=False)
class TupleExpr(Expr):
    items: tuple[Expr, ...]


@record(frozen=True, slots=True, eq=False)
class ObjectExpr(Expr):
    """Object constructor; a bare identifier key is a literal string key."""

    items: tuple[tuple[Expr, Expr], ...]


@record(frozen=True, slots=True, eq=False)
class ForExpr(Expr):
    key_var: str | None
    value_var: str
    collection: Expr
    key_result: Expr | None  # only for object ``for`` expressions
    value_result: Expr
    condition: Expr | None
    grouping: bool


@record(frozen=True, slots=True, eq=False)
class ParenExpr(Expr):
    inner: Expr


@record(frozen=True, slots=True, eq=False)
class InvalidExpr(Expr):
    """Something the converter cannot read (a syntax error region, a template directive...)."""

    reason: str


_OPERATORS = {"+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "!"}
_POSTFIX = {"get_attr", "index", "splat"}
# tree-sitter-hcl's nodes for a directive's markers, and the directive keyword of each.
_DIRECTIVE_MARKERS = {"template_if_intro": "if", "template_else_intro": "else", "template_if_end": "endif",
                      "template_for_start": "for", "template_for_end": "endfor"}
# A number literal cty.ParseNumberVal accepts, as HCL's scanner makes one (``1.e3`` included).
_NUMBER_LITERAL = lazy_compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")


class ExprConverter:
    """Converts tree-sitter ``expression`` nodes of one file to ``Expr`` values.

    ``set_twice``: set by ``syntax.hclfile`` when reading the file's bodies met an argument set
    twice in one body (the offset of the second name): Terraform rejects the file.
    ``json_source``: set by ``syntax.jsonfile``: the ``.tf.json`` file's own bytes, where the
    literal text of its strings is read with JSON's escapes (``source`` is their HCL spelling
    for tree-sitter).

    A top-level block's converter (``for_block``): ``source[base:end]`` is the block's text
    (offsets of ``source`` are the nodes'), spans are made relative to ``anchor``, and
    ``owner`` is the file's converter. A file's own converter has base 0 and no anchor.
    Slots: there is one per top-level block of the workspace."""

    __slots__ = ("source", "file", "keep_nodes", "base", "end", "anchor", "owner", "set_twice", "json_source", "on_reread",
                 "shared")

    def __init__(self, source: bytes, file: str, keep_nodes: bool = True):
        self.source = source
        self.file = file
        self.keep_nodes = keep_nodes  # False: the file's tree is dropped; views keep byte ranges
        self.base = 0
        self.end = 0
        self.anchor: Anchor | None = None
        self.owner: ExprConverter | None = None
        self.set_twice: int | None = None
        self.json_source: bytes | None = None
        # A file's converter: called once when a view of the file reads its bytes again after
        # ``hclfile.forget_derived`` (the host's bound on what is read again, ``retention``).
        self.on_reread: Callable[[], None] | None = None
        # While a file's views are read: where equal tuples of offsets and labels are shared by the
        # files read together (the host's ``syntax.references.BlockCache``; ``hclfile.Block``).
        self.shared: dict | None = None

    def for_block(self, start: int, end: int, anchor: "Anchor | None" = None) -> "ExprConverter":
        """A converter for the top-level block at ``[start, end)`` of this converter's source."""
        conv = ExprConverter(self.source, self.file, self.keep_nodes)
        conv.base, conv.end = start, end
        conv.anchor = anchor if anchor is not None else Anchor(self.file, start)
        conv.owner = self
        conv.json_source = self.json_source
        conv.shared = self.shared
        return conv

    def converter(self) -> "ExprConverter":
        """Itself (what an argument of a file's own body converts with; ``hclfile.Block.converter``)."""
        return self

    @property
    def text_of_block(self) -> bytes:
        """The text of the top-level block this converter reads (``for_block``)."""
        return self.source[self.base : self.end]

    def at(self, start: int, end: int) -> Span:
        """The span of ``[start, end)`` of the source (node offsets), relative to the block's anchor."""
        anchor = self.anchor
        if anchor is None:
            return Span(self.file, start, end)
        base = self.base
        return Span(self.file, start - base, end - base, anchor)

    def span(self, node: Node) -> Span:
        return self.at(node.start_byte, node.end_byte)

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def quoted_chunks(self, node: Node) -> list[Union[str, Node]]:
        """The raw text between a quoted string's delimiters, split around interpolations and directives.

        tree-sitter-hcl leaves the whitespace at the edges of a literal chunk out of its
        ``template_literal`` nodes, so literal text is read from the source bytes.
        """
        out: list[Union[str, Node]] = []
        children = node.children
        cursor = children[0].end_byte if children and children[0].type == "quoted_template_start" else node.start_byte
        end = node.end_byte
        for child in children:
            if child.type in ("template_interpolation", "template_directive"):
                out.append(self.source[cursor : child.start_byte].decode("utf-8", "replace"))
                out.append(child)
                cursor = child.end_byte
            elif child.type == "quoted_template_end" and not child.is_missing:
                end = child.start_byte
        if end > cursor:
            out.append(self.source[cursor:end].decode("utf-8", "replace"))
        return out

    def convert(self, node: Node, depth: int = 0) -> Expr:
        """Converts an ``expression`` (or any expression-term) node; never raises."""
        if depth > MAX_NESTING:
            return InvalidExpr(self.span(node), NESTED_TOO_DEEPLY)
        try:
            return self._convert(node, depth + 1)
        except RecursionError:  # a level can take several frames: the stack may still run out first
            return InvalidExpr(self.span(node), NESTED_TOO_DEEPLY)

    def _convert(self, node: Node, depth: int) -> Expr:
        if node.has_error and node.type == "ERROR":
            return InvalidExpr(self.span(node), "syntax error")
        kind = node.type
        if kind == "expression":
            return self._convert_terms([c for c in node.children if c.type != "comment"], node, depth)
        return self._convert_terms([node], node, depth)

    def _convert_terms(self, children: list[Node], whole: Node, depth: int) -> Expr:
        """A primary term followed by postfix steps (how tree-sitter-hcl lays out operands)."""
        if not children:
            return InvalidExpr(self.span(whole), "empty expression")
        first = children[0]
        if first.type == "(":
            inner_nodes = [c for c in children[1:] if c.type not in (")",) and c.type not in _POSTFIX]
            if not inner_nodes:
                return InvalidExpr(self.span(whole), "empty parentheses")
            close = next((i for i, c in enumerate(children) if c.type == ")"), len(children) - 1)
            paren_end = children[close].end_byte
            base: Expr = ParenExpr(self.at(first.start_byte, paren_end), self.convert(inner_nodes[0], depth))
            postfix = children[close + 1 :]
            if postfix:
                return RelativeTraversalExpr(self.span(whole), base, self._steps(postfix, depth))
            return base
        postfix = children[1:]
        if first.type == "variable_expr":
            name_node = first.child(0)
            name = self.text(name_node) if name_node is not None else self.text(first)
            return ScopeTraversalExpr(
                self.at(first.start_byte, children[-1].end_byte),
                name,
                self.span(first),
                self._steps(postfix, depth),
            )
        base = self._convert_primary(first, depth)
        if postfix:
            return RelativeTraversalExpr(
                self.at(first.start_byte, children[-1].end_byte), base, self._steps(postfix, depth)
            )
        return base

    def _steps(self, nodes: list[Node], depth: int) -> tuple[Step, ...]:
        steps: list[Step] = []
        for node in nodes:
            kind = node.type
            if kind == "get_attr":
                ident = next((c for c in node.children if c.type == "identifier"), None)
                steps.append(AttrStep(self.text(ident) if ident else "", self.span(node)))
            elif kind == "index":
                inner = node.child(0)
                if inner is not None and inner.type == "legacy_index":
                    # hclsyntax reads ``x.0`` (and ``x.1e3``) as an index: the number after the dot.
                    key: Expr = self._number(self.span(inner), self.text(inner).lstrip("."))
                else:
                    expr_node = next((c for c in inner.children if c.type == "expression"), None) if inner else None
                    key = self.convert(expr_node, depth) if expr_node else InvalidExpr(self.span(node), "empty index")
                steps.append(IndexStep(key, self.span(node)))
            elif kind == "splat":
                splat = node.child(0)
                steps.append(SplatStep(self.span(node)))
                if splat is not None:
                    steps.extend(self._steps([c for c in splat.children if c.type in _POSTFIX or c.type == "get_attr"], depth))
            elif kind in ("comment",):
                continue
            else:
                steps.append(AttrStep("", self.span(node)))
        return tuple(steps)

    def _convert_primary(self, node: Node, depth: int) -> Expr:
        kind = node.type
        span = self.span(node)
        if kind == "literal_value":
            return self._literal(node)
        if kind == "expression":
            return self.convert(node, depth)
        if kind == "collection_value":
            inner = node.child(0)
            return self._convert_primary(inner, depth) if inner else InvalidExpr(span, "empty collection")
        if kind == "tuple":
            items = tuple(self.convert(c, depth) for c in node.children if c.type == "expression")
            return TupleExpr(span, items)
        if kind == "object":
            return self._object(node, depth)
        if kind == "template_expr":
            inner = node.child(0)
            return self._template(inner, depth) if inner else InvalidExpr(span, "empty template")
        if kind == "function_call":
            return self._call(node, depth)
        if kind == "conditional":
            parts = [c for c in node.children if c.type == "expression"]
            if len(parts) != 3:
                return InvalidExpr(span, "incomplete conditional expression")
            return _right_associate(ConditionalExpr(span, *(self.convert(p, depth) for p in parts)))
        if kind == "operation":
            inner = node.child(0)
            return self._operation(inner, depth) if inner else InvalidExpr(span, "empty operation")
        if kind in ("binary_operation", "unary_operation"):
            return self._operation(node, depth)
        if kind == "for_expr":
            inner = node.child(0)
            return self._for(inner, depth) if inner else InvalidExpr(span, "empty for expression")
        if kind == "variable_expr":
            return self._convert_terms([node], node, depth)
        return InvalidExpr(span, f"unsupported syntax ({kind})")

    def _literal(self, node: Node) -> Expr:
        span = self.span(node)
        inner = node.child(0)
        if inner is None:
            return InvalidExpr(span, "empty literal")
        kind = inner.type
        if kind == "numeric_lit":
            return self._number(span, self.text(inner))
        if kind == "bool_lit":
            return LiteralExpr(span, self.text(inner) == "true")
        if kind == "null_lit":
            return LiteralExpr(span, None)
        if kind == "string_lit":
            return self._template(inner, 0)
        return InvalidExpr(span, f"unsupported literal ({kind})")

    def _number(self, span: Span, text: str) -> Expr:
        """A number literal's value, read from its text as hclsyntax does (``cty.ParseNumberVal``:
        a big.Float at 512 bits); the text is the whole literal, ``3e3`` included
        (``scanner.tree_sitter_spelling``)."""
        if not _NUMBER_LITERAL.fullmatch(text):
            return InvalidExpr(span, f"invalid number literal {text}")
        try:
            return LiteralExpr(span, parse_number(text))
        except TfUnrepresentable as exc:
            return InvalidExpr(span, f"invalid number literal {text}: {exc}")

    def _object(self, node: Node, depth: int) -> Expr:
        items: list[tuple[Expr, Expr]] = []
        for elem in node.children:
            if elem.type != "object_elem":
                continue
            key_node = elem.child_by_field_name("key")
            val_node = elem.child_by_field_name("val")
            if key_node is None or val_node is None:
                continue
            key = self._object_key(key_node, depth)
            items.append((key, self.convert(val_node, depth)))
        return ObjectExpr(self.span(node), tuple(items))

    def _object_key(self, node: Node, depth: int) -> Expr:
        children = [c for c in node.children if c.type != "comment"]
        if len(children) == 1 and children[0].type == "variable_expr":
            return LiteralExpr(self.span(node), nfc(self.text(children[0])))
        return self.convert(node, depth)

    def _template(self, node: Node, depth: int) -> Expr:
        """A quoted string or a heredoc, read as hclsyntax reads it (``syntax.templates``)."""
        span = self.span(node.parent or node)
        heredoc = node.type == "heredoc_template"
        body = self._heredoc_body(node) if heredoc else self._quoted_body(node)
        if body is None:
            return InvalidExpr(span, "unterminated heredoc" if heredoc else "unterminated string")
        start, end, flush = body
        # A .tf.json string itself (not a string nested in one of its interpolations, which
        # JSON spells \"...\"): its literal text is the JSON file's, with JSON's escapes.
        json_string = self.json_source is not None and self.json_source[node.start_byte : node.start_byte + 1] == b'"'
        raw = (self.json_source if json_string else self.source)[start:end]  # type: ignore[index]
        if not heredoc and b"\\" not in raw and b"$" not in raw and b"%" not in raw:
            return LiteralExpr(span, nfc(raw.decode("utf-8", "replace")))  # most strings: nothing to read but the text
        try:
            pieces = self._template_pieces(node, start, end, heredoc, json_string, depth)
            parts, passthrough = parse_template(pieces, flush, start)
        except TemplateError as exc:
            return InvalidExpr(self.at(exc.start, exc.end), str(exc))
        if passthrough:
            return TemplateExpr(span, parts)  # "${x}" is x, unconverted
        return self._string_template(span, parts)

    def _quoted_body(self, node: Node) -> tuple[int, int, bool] | None:
        """The byte range between a quoted string's quotes (``None`` when it is not closed)."""
        children = node.children
        if not children or children[0].type != "quoted_template_start":
            return None
        last = children[-1]
        if last.type != "quoted_template_end" or last.is_missing:
            return None
        return children[0].end_byte, last.start_byte, False

    def _heredoc_body(self, node: Node) -> tuple[int, int, bool] | None:
        """A heredoc's body: from the line after the opening marker to the closing marker's line."""
        children = node.children
        start_marker = next((c for c in children if c.type == "heredoc_start"), None)
        idents = [c for c in children if c.type == "heredoc_identifier"]
        if start_marker is None or len(idents) < 2:
            return None
        body_start = self.source.find(b"\n", idents[0].end_byte)
        body_start = idents[0].end_byte if body_start < 0 else body_start + 1
        closing_line_start = self.source.rfind(b"\n", 0, idents[-1].start_byte) + 1
        return body_start, max(body_start, closing_line_start), self.text(start_marker) == "<<-"

    def _template_pieces(self, node: Node, start: int, end: int, heredoc: bool, json_string: bool, depth: int) -> list[Piece]:
        """The template's tokens in source order: its literal text between ``start`` and ``end``
        cut as hclsyntax's scanner cuts it, and its interpolations and directives."""
        markers: list[Piece] = []
        self._template_markers(node, start, end, markers, depth)
        pieces: list[Piece] = []
        text = self.json_source if json_string else self.source
        cursor = start
        for marker in [*markers, None]:
            stop = end if marker is None else marker.start
            if stop > cursor:
                pieces.extend(literal_pieces(text[cursor:stop].decode("utf-8", "replace"), cursor, heredoc, json_string))
            if marker is not None:
                pieces.append(marker)
                cursor = marker.end
        return pieces

    def _template_markers(self, node: Node, start: int, end: int, out: list[Piece], depth: int) -> None:
        for child in node.children:
            kind = child.type
            if child.end_byte <= start or child.start_byte >= end:
                continue
            if kind == "ERROR" or child.is_missing:
                raise TemplateError("syntax error", child.start_byte, child.end_byte)
            if kind == "template_interpolation":
                out.append(self._template_marker(child, "interp", depth))
            elif kind in _DIRECTIVE_MARKERS:
                out.append(self._template_marker(child, _DIRECTIVE_MARKERS[kind], depth))
            elif kind in ("template_directive", "template_if", "template_for"):
                self._template_markers(child, start, end, out, depth)

    def _template_marker(self, node: Node, kind: str, depth: int) -> Piece:
        """An interpolation or a directive's marker; a ``~`` next to its opening or closing
        brace strips the whitespace of the literal on that side."""
        children = node.children
        strip_before = len(children) > 1 and children[1].type == "strip_marker"
        strip_after = len(children) > 2 and children[-2].type == "strip_marker"
        expr_node = next((c for c in children if c.type == "expression"), None)
        payload: object = None
        if kind in ("interp", "if", "for"):
            if expr_node is None:
                raise TemplateError(f"{'interpolation' if kind == 'interp' else kind + ' directive'} without an expression", node.start_byte, node.end_byte)
            payload = self.convert(expr_node, depth)
        if kind == "for":
            names = [self.text(c) for c in children if c.type == "identifier"]
            if not names or len(names) > 2:
                raise TemplateError("invalid for directive", node.start_byte, node.end_byte)
            key, value = (names[0], names[1]) if len(names) == 2 else (None, names[0])
            payload = (key, value, payload)
        return Piece(kind, node.start_byte, node.end_byte, payload=payload, strip_before=strip_before, strip_after=strip_after)

    def _string_template(self, span: Span, parts: tuple) -> Expr:
        """Template parts as a string: hclsyntax's TemplateExpr (each part converted to a
        string), with ``%{ if }`` as a conditional of two such templates and ``%{ for }`` as
        the join of a for expression's strings."""
        out: list[Union[str, Expr]] = []
        for part in parts:
            if isinstance(part, TemplateIf):
                whole = self.at(part.start, part.end)
                out.append(ConditionalExpr(whole, part.condition, self._string_template(whole, part.then_parts),
                                           self._string_template(whole, part.else_parts)))
            elif isinstance(part, TemplateFor):
                whole = self.at(part.start, part.end)
                body = self._string_template(self.at(part.body_start, part.end), part.body_parts)
                loop = ForExpr(whole, part.key_var, part.value_var, part.collection, None, body, None, False)
                out.append(TemplateJoinExpr(whole, loop))
            elif not isinstance(part, str):
                out.append(part)  # an interpolated expression
            elif out and isinstance(out[-1], str):
                out[-1] += part
            elif part:
                out.append(part)
        if all(isinstance(p, str) for p in out):
            return LiteralExpr(span, nfc("".join(out)))  # type: ignore[arg-type]
        return TemplateExpr(span, tuple(out), always_string=True)

    def _call(self, node: Node, depth: int) -> Expr:
        name_node = next((c for c in node.children if c.type == "identifier"), None)
        name = self.text(name_node) if name_node else ""
        args_node = next((c for c in node.children if c.type == "function_arguments"), None)
        args: tuple[Expr, ...] = ()
        expand = False
        if args_node is not None:
            args = tuple(self.convert(c, depth) for c in args_node.children if c.type == "expression")
            expand = any(c.type == "ellipsis" for c in args_node.children)
        name_span = self.span(name_node) if name_node else self.span(node)
        return FunctionCallExpr(self.span(node), name, name_span, args, expand)

    def _operation(self, node: Node, depth: int) -> Expr:
        span = self.span(node)
        children = [c for c in node.children if c.type != "comment"]
        op_index = next((i for i, c in enumerate(children) if not c.is_named and c.type in _OPERATORS), None)
        if op_index is None:
            return InvalidExpr(span, "operator missing")
        op = children[op_index].type
        if node.type == "unary_operation":
            operand = children[op_index + 1 :]
            if not operand:
                return InvalidExpr(span, "operand missing")
            return UnaryOpExpr(span, op, self._operand(operand, depth))
        left, right = children[:op_index], children[op_index + 1 :]
        if not left or not right:
            return InvalidExpr(span, "operand missing")
        return BinaryOpExpr(span, op, self._operand(left, depth), self._operand(right, depth))

    def _operand(self, nodes: list[Node], depth: int) -> Expr:
        if len(nodes) == 1 and nodes[0].type not in ("variable_expr",):
            return self._convert_primary(nodes[0], depth) if nodes[0].type != "expression" else self.convert(nodes[0], depth)
        fake_whole = nodes[0]
        return self._convert_terms(nodes, fake_whole, depth)

    def _for(self, node: Node, depth: int) -> Expr:
        span = self.span(node)
        intro = next((c for c in node.children if c.type == "for_intro"), None)
        if intro is None:
            return InvalidExpr(span, "incomplete for expression")
        names = [self.text(c) for c in intro.children if c.type == "identifier"]
        coll_node = next((c for c in intro.children if c.type == "expression"), None)
        if not names or coll_node is None:
            return InvalidExpr(span, "incomplete for expression")
        key_var, value_var = (names[0], names[1]) if len(names) > 1 else (None, names[0])
        results = [c for c in node.children if c.type == "expression"]
        cond_node = next((c for c in node.children if c.type == "for_cond"), None)
        cond = None
        if cond_node is not None:
            inner = next((c for c in cond_node.children if c.type == "expression"), None)
            cond = self.convert(inner, depth) if inner else None
        is_object = node.type == "for_object_expr"
        if (is_object and len(results) < 2) or not results:
            return InvalidExpr(span, "incomplete for expression")
        key_result = self.convert(results[0], depth) if is_object else None
        value_result = self.convert(results[1] if is_object else results[0], depth)
        grouping = any(c.type == "ellipsis" for c in node.children)
        return ForExpr(span, key_var, value_var, self.convert(coll_node, depth), key_result, value_result, cond, grouping)


def _right_associate(expr: ConditionalExpr) -> ConditionalExpr:
    """``a ? b : c ? d : e`` is ``a ? b : (c ? d : e)`` in HCL.

    tree-sitter-hcl groups it the other way, ``(a ? b : c) ? d : e``; an unparenthesized
    conditional can never be a condition in HCL, so such trees are re-associated.
    """
    inner = expr.condition
    if not isinstance(inner, ConditionalExpr):
        return expr
    rest = _right_associate(
        ConditionalExpr(inner.false_result.span.until(expr.span), inner.false_result, expr.true_result, expr.false_result)
    )
    return ConditionalExpr(expr.span, inner.condition, inner.true_result, rest)


def iter_subexpressions(expr: Expr):
    """Yields the direct sub-expressions of ``expr`` (the seed's ExprArg edges)."""
    if isinstance(expr, TemplateExpr):
        yield from (p for p in expr.parts if isinstance(p, Expr))
    elif isinstance(expr, TemplateJoinExpr):
        yield expr.loop
    elif isinstance(expr, (ScopeTraversalExpr, RelativeTraversalExpr)):
        if isinstance(expr, RelativeTraversalExpr):
            yield expr.source
        for step in expr.steps:
            if isinstance(step, IndexStep):
                yield step.key
    elif isinstance(expr, FunctionCallExpr):
        yield from expr.args
    elif isinstance(expr, ConditionalExpr):
        yield expr.condition
        yield expr.true_result
        yield expr.false_result
    elif isinstance(expr, BinaryOpExpr):
        yield expr.left
        yield expr.right
    elif isinstance(expr, UnaryOpExpr):
        yield expr.operand
    elif isinstance(expr, TupleExpr):
        yield from expr.items
    elif isinstance(expr, ObjectExpr):
        for key, value in expr.items:
            yield key
            yield value
    elif isinstance(expr, ForExpr):
        yield expr.collection
        if expr.key_result is not None:
            yield expr.key_result
        yield expr.value_result
        if expr.condition is not None:
            yield expr.condition
    elif isinstance(expr, ParenExpr):
        yield expr.inner


def walk(expr: Expr):
    """Yields ``expr`` and every expression below it, iteratively."""
    stack = [expr]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(iter_subexpressions(current))
