"""Terraform's JSON configuration syntax (``.tf.json``, ``.tfvars.json``) read into the same
``HclFile`` shape as native files, so declarations, references and values count alike.

What the JSON syntax means (Terraform's "JSON Configuration Syntax" page): the root object's
properties are block types (``variable``, ``resource``, ``module``, ...); each label is one
more level of object nesting, and an array of objects stands for several blocks. Inside a
body, a property is an argument, or a nested block for the block types Terraform knows.
Argument values are expressions in which every string is a template (``"${var.x}"``); the
exceptions are literal: a variable's ``default``, ``description``, ``sensitive``, ``nullable``,
a module's ``source`` and ``version``, and every value of a ``.tfvars.json`` file. A
variable's ``type`` is a string holding a type expression. ``"//"`` properties are comments.
Names that are addresses (``depends_on``, ``providers``, ``provider``, ``lifecycle``'s
``ignore_changes``/``replace_triggered_by``) are not expressions and are not read.

How: a small scanner keeps the byte span of every JSON value. The expression values are then
written, at their own byte offsets, into an otherwise blank buffer as HCL attributes
(``x=<value>``: a JSON value is valid HCL expression syntax, with the same string escapes and
templates), and that buffer is parsed once with tree-sitter-hcl. Every expression, reference
and template error thus has exact spans in the JSON file, and the reference checker and the
editor features walk the resulting tree as they walk a native file's. Where the arguments of
a resource's nested object could be a block or a map (JSON does not say; the provider schema
would), the property is both: an argument, and nested block(s) for field addresses.

Pure: bytes in, ``HclFile`` out; never raises.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tree_sitter import Node, Parser

from ..lazy_re import lazy_compile
from ..records import record, field
from ..values.numbers import parse_number
from ..values.value import nfc
from .expr import Expr, ExprConverter, LiteralExpr, ObjectExpr, Span, TemplateExpr, TupleExpr
from .attributes import Attribute, TreeAttribute
from .hclfile import BOM, Block, Body, HclFile, SyntaxProblem, build_file, new_parser

MAX_DEPTH = 100  # JSON nesting; written by people it stays far below

# Block types and how many labels each takes (those Terraform's JSON syntax gives bodies to).
BLOCK_LABELS = {
    "variable": 1, "output": 1, "module": 1, "resource": 2, "data": 2, "provider": 1,
    "locals": 0, "terraform": 0, "moved": 0, "import": 0, "removed": 0, "check": 1,
}
# Blocks whose content names things or configures Terraform itself: nothing in them is read.
OPAQUE_BLOCKS = frozenset({"terraform", "moved", "import", "removed", "check"})
# Arguments that are literal values, not templates (per block type; "*" for every block).
LITERAL_ARGUMENTS = {
    "variable": frozenset({"default", "description", "sensitive", "nullable", "ephemeral"}),
    "module": frozenset({"source", "version"}),
    "output": frozenset({"description", "sensitive", "ephemeral"}),
}
# Arguments that hold addresses or provider references: never expressions.
ADDRESS_ARGUMENTS = frozenset({"depends_on", "providers", "provider", "ignore_changes", "replace_triggered_by"})
# Nested blocks Terraform knows, per enclosing block type: (type, labels).
KNOWN_BLOCKS = {
    "variable": {"validation": 0},
    "output": {"precondition": 0},
    "resource": {"lifecycle": 0, "provisioner": 1, "connection": 0, "dynamic": 1},
    "data": {"lifecycle": 0, "dynamic": 1},
    "lifecycle": {"precondition": 0, "postcondition": 0},
    "dynamic": {"content": 0},
}
SKIPPED_NESTED = frozenset({"provisioner", "connection"})


# ---- a JSON scanner that keeps byte spans -------------------------------------------------


@record
class JNode:
    kind: str  # object | array | string | number | true | false | null
    start: int
    end: int
    value: Any = None  # scalars: the Python value
    items: list = field(default_factory=list)  # object: (key, key_start, key_end, JNode); array: JNode


class JsonSyntaxError(Exception):
    def __init__(self, offset: int, message: str):
        super().__init__(message)
        self.offset = offset
        self.message = message


_WS = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


class _Scanner:
    def __init__(self, data: bytes, start: int):
        self.data = data
        self.pos = start

    def skip(self) -> None:
        self.pos = _WS.match(self.data, self.pos).end()  # type: ignore[union-attr]

    def document(self) -> JNode:
        self.skip()
        node = self.value(0)
        self.skip()
        if self.pos != len(self.data):
            raise JsonSyntaxError(self.pos, "extra data after the JSON value")
        return node

    def value(self, depth: int) -> JNode:
        if depth > MAX_DEPTH:
            raise JsonSyntaxError(self.pos, f"JSON nested more than {MAX_DEPTH} levels deep")
        data, pos = self.data, self.pos
        if pos >= len(data):
            raise JsonSyntaxError(pos, "unexpected end of file")
        char = data[pos : pos + 1]
        if char == b"{":
            return self.container(depth, b"}", "object")
        if char == b"[":
            return self.container(depth, b"]", "array")
        if char == b'"':
            text, end = self.string()
            return JNode("string", pos, end, text)
        for word, value in ((b"true", True), (b"false", False), (b"null", None)):
            if data.startswith(word, pos):
                self.pos = pos + len(word)
                return JNode(word.decode(), pos, self.pos, value)
        match = _NUMBER.match(data, pos)
        if match and match.end() > pos:
            self.pos = match.end()
            text = match.group(0).decode()
            return JNode("number", pos, self.pos, parse_number(text))  # as cty's JSON decoder: 512 bits
        raise JsonSyntaxError(pos, f"unexpected {data[pos:pos + 10].decode('utf-8', 'replace')!r}")

    def string(self) -> tuple[str, int]:
        match = _STRING.match(self.data, self.pos)
        if match is None:
            raise JsonSyntaxError(self.pos, "invalid string")
        self.pos = match.end()
        token = match.group(0)
        if b"\\" not in token:  # the common case: no escapes, the bytes are the text
            return token[1:-1].decode("utf-8", "replace"), match.end()
        return json.loads(token), match.end()

    def container(self, depth: int, close: bytes, kind: str) -> JNode:
        start = self.pos
        self.pos += 1
        node = JNode(kind, start, start)
        self.skip()
        if self.data[self.pos : self.pos + 1] == close:
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.skip()
            if kind == "object":
                if self.data[self.pos : self.pos + 1] != b'"':
                    raise JsonSyntaxError(self.pos, "expected a property name")
                key_start = self.pos
                key, key_end = self.string()
                self.skip()
                if self.data[self.pos : self.pos + 1] != b":":
                    raise JsonSyntaxError(self.pos, "expected ':' after a property name")
                self.pos += 1
                self.skip()
                node.items.append((key, key_start, key_end, self.value(depth + 1)))
            else:
                node.items.append(self.value(depth + 1))
            self.skip()
            char = self.data[self.pos : self.pos + 1]
            if char == b",":
                self.pos += 1
                continue
            if char == close:
                self.pos += 1
                node.end = self.pos
                return node
            raise JsonSyntaxError(self.pos, f"expected ',' or {close.decode()!r}")


# ---- attributes ---------------------------------------------------------------------------


class JsonAttribute(TreeAttribute):
    """An expression argument of a JSON file: its value parsed as HCL at its own byte offsets."""

    __slots__ = ("_key_span", "_whole")

    def __init__(self, name: str, node: Node, converter: ExprConverter, key_span: Span, whole: Span):
        super().__init__(name, node, converter)
        self._key_span = key_span
        self._whole = whole

    @property
    def span(self) -> Span:
        return self._whole

    @property
    def expr(self) -> Expr:
        # A string that is one interpolation ("${var.x}") is that expression, unconverted, as in
        # Terraform; unwrapped, it reads exactly like the native ``var.x`` (validation blocks...).
        expr = Attribute.expr.__get__(self)
        if isinstance(expr, TemplateExpr) and len(expr.parts) == 1 and isinstance(expr.parts[0], Expr) and not expr.always_string:
            return expr.parts[0]
        return expr

    @property
    def name_span(self) -> Span:
        return self._key_span


class LiteralAttribute:
    """A literal argument (a variable's ``default``, any ``.tfvars.json`` value): no templates."""

    __slots__ = ("name", "span", "name_span", "expr")

    def __init__(self, name: str, span: Span, name_span: Span, expr: Expr):
        self.name = name
        self.span = span
        self.name_span = name_span
        self.expr = expr

    def literal_string(self) -> str | None:
        return self.expr.value if isinstance(self.expr, LiteralExpr) and isinstance(self.expr.value, str) else None

    def __repr__(self) -> str:
        return f"LiteralAttribute({self.name!r})"


def literal_expr(path: str, node: JNode) -> Expr:
    """A JSON value as a literal expression (strings are not templates)."""
    span = Span(path, node.start, node.end)
    if node.kind == "array":
        return TupleExpr(span, tuple(literal_expr(path, item) for item in node.items))
    if node.kind == "object":
        return ObjectExpr(span, tuple(
            (LiteralExpr(Span(path, ks, ke), nfc(key)), literal_expr(path, value)) for key, ks, ke, value in node.items
        ))
    return LiteralExpr(span, nfc(node.value) if isinstance(node.value, str) else node.value)


# ---- the file -----------------------------------------------------------------------------


@record
class _Pending:
    """An argument whose value is parsed as HCL: where it goes and what it becomes."""

    name: str
    key_start: int
    key_end: int
    value: JNode
    body: Body
    type_expression: bool = False  # a variable's ``type``: the string's content is the expression


class _Builder:
    def __init__(self, path: str, source: bytes):
        self.path = path
        self.source = source
        self.pending: list[_Pending] = []

    def span(self, start: int, end: int) -> Span:
        return Span(self.path, start, end)

    # -- configuration files

    def configuration(self, root: JNode) -> Body:
        body = Body()
        if root.kind != "object":
            raise JsonSyntaxError(root.start, "a .tf.json file must hold a JSON object")
        for key, ks, ke, value in root.items:
            if key == "//":
                continue
            labels = BLOCK_LABELS.get(key)
            if labels is None:
                continue  # Terraform rejects it; tfphi has nothing to read in it
            if key in OPAQUE_BLOCKS:
                continue
            for block_labels, label_spans, body_node in self.expand(value, labels):
                block_body = Body()
                if body_node.kind == "object":
                    if key == "locals":
                        self.arguments(body_node, block_body, "locals")
                    else:
                        self.block_body(key, body_node, block_body)
                whole = self.span(ks, body_node.end)
                body.blocks.append(Block(key, block_labels, label_spans, self.span(ks, ke), block_body, whole))
        return body

    def expand(self, node: JNode, labels: int, found=(), spans=()):
        """(labels, label spans, body) of every block a block type's value stands for."""
        if node.kind == "array":
            for item in node.items:
                yield from self.expand(item, labels, found, spans)
            return
        if len(found) == labels:
            yield tuple(found), tuple(spans), node
            return
        if node.kind != "object":
            return
        for key, ks, ke, value in node.items:
            if key == "//":
                continue
            yield from self.expand(value, labels, found + (key,), spans + (self.span(ks, ke),))

    def block_body(self, block_type: str, node: JNode, body: Body) -> None:
        known = KNOWN_BLOCKS.get(block_type, {})
        literal = LITERAL_ARGUMENTS.get(block_type, frozenset())
        for key, ks, ke, value in node.items:
            if key == "//" or key in ADDRESS_ARGUMENTS:
                continue
            if key in known:
                if key in SKIPPED_NESTED:
                    continue
                for labels, label_spans, inner in self.expand(value, known[key]):
                    nested = Body()
                    if inner.kind == "object":
                        self.block_body(key, inner, nested)
                    body.blocks.append(Block(key, labels, label_spans, self.span(ks, ke), nested, self.span(ks, inner.end)))
                continue
            if key in literal:
                body.attributes[key] = LiteralAttribute(key, self.span(ks, value.end), self.span(ks, ke), literal_expr(self.path, value))
                continue
            type_expression = block_type == "variable" and key == "type" and value.kind == "string"
            self.pending.append(_Pending(key, ks, ke, value, body, type_expression))
            if block_type in ("resource", "data") and _is_block_like(value):
                # JSON cannot say whether this is a nested block or a map argument: it is both.
                for labels, label_spans, inner in self.expand(value, 0):
                    nested = Body()
                    self.block_body("nested", inner, nested)
                    body.blocks.append(Block(key, labels, label_spans, self.span(ks, ke), nested, self.span(ks, inner.end)))

    def arguments(self, node: JNode, body: Body, block_type: str) -> None:
        for key, ks, ke, value in node.items:
            if key != "//":
                self.pending.append(_Pending(key, ks, ke, value, body))

    # -- the HCL view of the expressions

    def parse_expressions(self, parser: Parser) -> tuple[bytes, Any, list[SyntaxProblem]]:
        """Writes every pending expression into a blank buffer at its own offsets and parses it."""
        buffer = bytearray(b" " * len(self.source))
        placed: list[tuple[int, _Pending]] = []
        used_to = 0
        problems: list[SyntaxProblem] = []
        for item in sorted(self.pending, key=lambda p: p.value.start):
            start, end = item.value.start, item.value.end
            if item.type_expression:
                start, end = start + 1, end - 1  # the string's content is the type expression
                if b"\\" in self.source[start:end]:
                    problems.append(SyntaxProblem(self.span(item.value.start, item.value.end), "a type expression cannot contain escapes"))
                    continue
            if start - 2 < used_to:
                # No room for the "x=" prefix (cannot happen after a property name): read it literally.
                item.body.attributes[item.name] = LiteralAttribute(
                    item.name, self.span(item.key_start, item.value.end), self.span(item.key_start, item.key_end), literal_expr(self.path, item.value))
                continue
            buffer[start - 2 : start] = b"x="
            raw = self.source[start:end]
            buffer[start:end] = raw if item.type_expression else json_value_as_hcl(raw)
            if end < len(buffer):
                buffer[end : end + 1] = b"\n"
            used_to = end + 1
            placed.append((start - 2, item))
        data = bytes(buffer)
        tree = parser.parse(data)
        return data, (tree, placed), problems


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


def json_value_as_hcl(raw: bytes) -> bytes:
    """A JSON value's bytes as HCL expression syntax of the same length (offsets are kept).

    JSON and HCL share string escapes, so literal text is left alone. Inside an interpolation,
    JSON escapes the quotes of nested strings (``"${x == \\"a\\"}"``) where HCL writes them
    bare: the nested string loses its backslashes and two spaces follow it.
    """
    return _JSON_STRING.sub(lambda m: _template_as_hcl(_json_escapes_as_hcl(m.group(0))), raw)


# JSON escapes that HCL's quoted strings do not have: tree-sitter-hcl would read a syntax error.
_JSON_ONLY_ESCAPES = lazy_compile(rb"\\[\\\s\S]")


def _json_escapes_as_hcl(token: bytes) -> bytes:
    """``\\/``, ``\\b`` and ``\\f`` spelled ``\\\\`` for tree-sitter (same length); the
    string's value is read from the JSON text itself (``ExprConverter.json_source``)."""
    if b"\\/" not in token and b"\\b" not in token and b"\\f" not in token:
        return token
    return _JSON_ONLY_ESCAPES.sub(lambda m: b"\\\\" if m.group(0)[1:] in (b"/", b"b", b"f") else m.group(0), token)


def _template_as_hcl(token: bytes) -> bytes:
    if b'\\"' not in token:
        return token  # no escaped quote: nothing differs between JSON and HCL
    out = bytearray(token)
    depth = 0  # interpolation / directive nesting
    opened = -1  # where the nested string being read started (its escaped quote), else -1
    i, n = 1, len(token) - 1
    while i < n:
        pair = token[i : i + 2]
        if depth == 0:
            if pair in (b"$$", b"%%") and token[i + 2 : i + 3] == b"{":
                i += 3
                continue
            if pair in (b"${", b"%{"):
                depth, i = 1, i + 2
                continue
            i += 2 if pair[:1] == b"\\" else 1
            continue
        if pair == b'\\"':
            if opened < 0:
                opened = i
            else:
                # \"text\" -> "text" and spaces: the nested string keeps its start, its text
                # JSON-decoded (an HCL string in the decoded template; never longer), and the
                # spaces stay outside it (an expression's text reads as HCL).
                inner = _json_decoded_bytes(token[opened + 2 : i])
                out[opened : i + 2] = (b'"' + inner + b'"').ljust(i + 2 - opened)
                opened = -1
            i += 2
            continue
        if pair[:1] == b"\\":
            i += 2
            continue
        if opened < 0:
            if pair[:1] == b"{":
                depth += 1
            elif pair[:1] == b"}":
                depth -= 1
        i += 1
    return bytes(out)


def _json_decoded_bytes(text: bytes) -> bytes:
    """The UTF-8 of a JSON string's text (left as it is when it is not valid JSON)."""
    if b"\\" not in text:
        return text
    try:
        return json.loads(b'"' + text + b'"').encode("utf-8", "surrogatepass")
    except ValueError:
        return text


def _is_block_like(node: JNode) -> bool:
    if node.kind == "object":
        return True
    return node.kind == "array" and bool(node.items) and all(i.kind == "object" for i in node.items)


def parse_json_file(path: str, source: bytes, parser: Parser | None = None) -> HclFile:
    """Reads a ``.tf.json`` or ``.tfvars.json`` file; syntax problems become ``errors``."""
    parser = parser or new_parser()
    start = len(BOM) if source.startswith(BOM) else 0
    builder = _Builder(path, source)
    errors: list[SyntaxProblem] = []
    body = Body()
    try:
        root = _Scanner(source, start).document()
        if path.endswith(".tfvars.json"):
            if root.kind != "object":
                raise JsonSyntaxError(root.start, "a .tfvars.json file must hold a JSON object")
            for key, ks, ke, value in root.items:
                if key != "//":
                    body.attributes[key] = LiteralAttribute(key, builder.span(ks, value.end), builder.span(ks, ke), literal_expr(path, value))
        else:
            body = builder.configuration(root)
    except JsonSyntaxError as exc:
        errors.append(SyntaxProblem(Span(path, exc.offset, min(exc.offset + 1, len(source))), f"invalid JSON: {exc.message}"))
        builder.pending.clear()
    except RecursionError:
        errors.append(SyntaxProblem(Span(path, start, len(source)), f"JSON nested more than {MAX_DEPTH} levels deep"))
        builder.pending.clear()
    padded, (tree, placed), problems = builder.parse_expressions(parser)
    # What the analysis reads as the file's text: the JSON file with its expression values as
    # HCL (same offsets, same lines), so conditions and gates taken from the text read as HCL.
    view_source = bytearray(source)
    for offset, item in placed:
        start = offset + 2
        end = item.value.end - (1 if item.type_expression else 0)
        view_source[start:end] = padded[start:end]
    errors.extend(problems)
    view = build_file(path, padded, tree)  # the expressions as HCL, with their template errors
    errors.extend(_value_errors(path, view.errors, placed))
    converter = ExprConverter(padded, path)
    converter.json_source = source  # literal text is read with JSON's escapes
    by_start = {}
    for node in _top_attributes(tree.root_node):
        by_start[node.start_byte] = node
    for offset, item in placed:
        node = by_start.get(offset)
        if node is None:
            continue
        key_span = Span(path, item.key_start, item.key_end)
        item.body.attributes[item.name] = JsonAttribute(item.name, node, converter, key_span, Span(path, item.key_start, item.value.end))
    errors.sort(key=lambda e: (e.span.start, e.span.end, e.message))
    return HclFile(path, bytes(view_source), tree, body, errors)


def _value_errors(path: str, problems: list[SyntaxProblem], placed: list[tuple[int, _Pending]]) -> list[SyntaxProblem]:
    """Errors of the HCL view, placed on the JSON values they are in (never on the ``x=`` prefix)."""
    out = []
    for problem in problems:
        owner = next((item for offset, item in placed if offset <= problem.span.start < item.value.end), None)
        if owner is None:
            out.append(SyntaxProblem(problem.span, "invalid expression"))
            continue
        start = max(problem.span.start, owner.value.start)
        end = min(max(problem.span.end, start), owner.value.end)
        out.append(SyntaxProblem(Span(path, start, end), f"the value of {owner.name!r} is not a valid expression or template"))
    return out


def _top_attributes(root: Node):
    for child in root.children:
        if child.type == "body":
            for node in child.children:
                if node.type == "attribute":
                    yield node
        elif child.type == "attribute":
            yield child
