"""Typed HCL expressions, named after HashiCorp hcl's expression kinds, built from tree-sitter nodes.

Conversion is lazy (one attribute at a time) and never raises: anything the converter
cannot understand becomes an ``InvalidExpr`` carrying the reason, and nesting deeper than
``MAX_NESTING`` is cut off so that hostile input cannot exhaust the Python stack.
"""

from __future__ import annotations

import re
from typing import Union

from tree_sitter import Node

from ..lazy_re import lazy_compile
from ..records import record
from ..values.numbers import parse_number
from ..values.value import Value, nfc

MAX_NESTING = 100  # levels; Terraform written by people stays far below, the Python stack far above
NESTED_TOO_DEEPLY = f"expression nested more than {MAX_NESTING} levels deep"


@record(frozen=True, slots=True)
class Span:
    """A half-open byte range ``[start, end)`` in one file (path relative to the workspace root)."""

    file: str
    start: int
    end: int


@record(frozen=True, slots=True, eq=False)
class Expr:
    span: Span


@record(frozen=True, slots=True, eq=False)
class LiteralExpr(Expr):
    value: Value


@record(frozen=True, slots=True, eq=False)
class TemplateExpr(Expr):
    """A string template: parts are literal strings or interpolated expressions."""

    parts: tuple[Union[str, Expr], ...]


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
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_NUMBER_LITERAL = lazy_compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPE_RE = lazy_compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)|\$\$\{|%%\{", re.S)


def unescape_quoted(text: str) -> str:
    """Decodes the escapes of a quoted HCL string literal (``\\n``, ``\\"``, ``$${``...), in NFC."""
    if "\\" not in text and "$${" not in text and "%%{" not in text:
        return nfc(text)

    def repl(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole == "$${":
            return "${"
        if whole == "%%{":
            return "%{"
        code = match.group(1)
        if code[0] in "uU" and len(code) > 1:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, code)

    return nfc(_ESCAPE_RE.sub(repl, text))


class ExprConverter:
    """Converts tree-sitter ``expression`` nodes of one file to ``Expr`` values."""

    # Set by ``syntax.hclfile`` when reading the file's bodies met an argument set twice in one
    # body (the offset of the second name): Terraform rejects the file.
    set_twice: int | None = None

    def __init__(self, source: bytes, file: str, keep_nodes: bool = True):
        self.source = source
        self.file = file
        self.keep_nodes = keep_nodes  # False: the file's tree is dropped; views keep byte ranges

    def span(self, node: Node) -> Span:
        return Span(self.file, node.start_byte, node.end_byte)

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
            base: Expr = ParenExpr(Span(self.file, first.start_byte, paren_end), self.convert(inner_nodes[0], depth))
            postfix = children[close + 1 :]
            if postfix:
                return RelativeTraversalExpr(self.span(whole), base, self._steps(postfix, depth))
            return base
        postfix = children[1:]
        if first.type == "variable_expr":
            name_node = first.child(0)
            name = self.text(name_node) if name_node is not None else self.text(first)
            return ScopeTraversalExpr(
                Span(self.file, first.start_byte, children[-1].end_byte),
                name,
                self.span(first),
                self._steps(postfix, depth),
            )
        base = self._convert_primary(first, depth)
        if postfix:
            return RelativeTraversalExpr(
                Span(self.file, first.start_byte, children[-1].end_byte), base, self._steps(postfix, depth)
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
                    digits = self.text(inner).lstrip(".")
                    key: Expr = LiteralExpr(self.span(inner), int(digits) if digits.isdigit() else digits)
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
            text = self.text(inner)
            if not _NUMBER_LITERAL.fullmatch(text):
                return InvalidExpr(span, f"invalid number {text}")
            return LiteralExpr(span, parse_number(text))  # HCL: big.Float at 512 bits
        if kind == "bool_lit":
            return LiteralExpr(span, self.text(inner) == "true")
        if kind == "null_lit":
            return LiteralExpr(span, None)
        if kind == "string_lit":
            body = "".join(p for p in self.quoted_chunks(inner) if isinstance(p, str))
            return LiteralExpr(span, unescape_quoted(body))
        return InvalidExpr(span, f"unsupported literal ({kind})")

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
        span = self.span(node.parent or node)
        heredoc = node.type == "heredoc_template"
        parts: list[Union[str, Expr]] = []
        if heredoc:
            return self._heredoc(node, span, depth)
        for child in self.quoted_chunks(node):
            if isinstance(child, str):
                parts.append(unescape_quoted(child))
                continue
            kind = child.type
            if kind == "template_interpolation":
                expr_node = next((c for c in child.children if c.type == "expression"), None)
                if expr_node is None:
                    return InvalidExpr(self.span(child), "empty interpolation")
                parts.append(self.convert(expr_node, depth))
            elif kind == "template_directive":
                return InvalidExpr(self.span(child), "template directives (%{ if }/%{ for }) are not traced")
        return _simplify_template(span, parts)

    def _heredoc(self, node: Node, span: Span, depth: int) -> Expr:
        """Heredoc bodies: the text between the opening and closing marker lines."""
        children = node.children
        start_marker = next((c for c in children if c.type == "heredoc_start"), None)
        idents = [c for c in children if c.type == "heredoc_identifier"]
        if start_marker is None or len(idents) < 2:
            return InvalidExpr(span, "unterminated heredoc")
        strip = self.text(start_marker) == "<<-"
        body_start = self.source.find(b"\n", idents[0].end_byte)
        body_start = idents[0].end_byte if body_start < 0 else body_start + 1
        closing_line_start = self.source.rfind(b"\n", 0, idents[-1].start_byte) + 1
        raw_parts: list[Union[str, Expr]] = []
        cursor = body_start
        for child in children:
            if child.type in ("template_interpolation", "template_directive") and child.start_byte >= body_start:
                if child.type == "template_directive":
                    return InvalidExpr(self.span(child), "template directives (%{ if }/%{ for }) are not traced")
                raw_parts.append(self.source[cursor : child.start_byte].decode("utf-8", "replace"))
                expr_node = next((c for c in child.children if c.type == "expression"), None)
                if expr_node is None:
                    return InvalidExpr(self.span(child), "empty interpolation")
                raw_parts.append(self.convert(expr_node, depth))
                cursor = child.end_byte
        raw_parts.append(self.source[cursor:closing_line_start].decode("utf-8", "replace"))
        if strip:
            raw_parts = _strip_heredoc_indent(raw_parts)
        parts = [p.replace("$${", "${").replace("%%{", "%{") if isinstance(p, str) else p for p in raw_parts]
        parts = [p.replace("\r\n", "\n") if isinstance(p, str) else p for p in parts]
        return _simplify_template(span, parts)

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
        ConditionalExpr(Span(expr.span.file, inner.false_result.span.start, expr.span.end), inner.false_result, expr.true_result, expr.false_result)
    )
    return ConditionalExpr(expr.span, inner.condition, inner.true_result, rest)


def _simplify_template(span: Span, parts: list[Union[str, Expr]]) -> Expr:
    parts = [p for p in parts if not (isinstance(p, str) and p == "")]
    if not parts:
        return LiteralExpr(span, "")
    if all(isinstance(p, str) for p in parts):
        return LiteralExpr(span, nfc("".join(parts)))  # type: ignore[arg-type]
    return TemplateExpr(span, tuple(parts))


def _strip_heredoc_indent(parts: list[Union[str, Expr]]) -> list[Union[str, Expr]]:
    """``<<-`` removes the smallest indentation of the body's lines from every line."""
    text_lines: list[str] = []
    at_line_start = True
    for part in parts:
        if isinstance(part, str):
            for i, line in enumerate(part.split("\n")):
                if i > 0:
                    at_line_start = True
                if at_line_start and line.strip():
                    text_lines.append(line)
                if line:
                    at_line_start = False
        else:
            at_line_start = False
    indent = min((len(line) - len(line.lstrip(" \t")) for line in text_lines), default=0)
    if indent == 0:
        return parts
    result: list[Union[str, Expr]] = []
    at_line_start = True
    for part in parts:
        if isinstance(part, str):
            lines = part.split("\n")
            out = []
            for i, line in enumerate(lines):
                if i > 0:
                    at_line_start = True
                if at_line_start:
                    line = line[min(indent, len(line) - len(line.lstrip(" \t"))) :]
                out.append(line)
                if lines[i] and i == len(lines) - 1:
                    at_line_start = False
            result.append("\n".join(out))
        else:
            result.append(part)
            at_line_start = False
    return result


def iter_subexpressions(expr: Expr):
    """Yields the direct sub-expressions of ``expr`` (the seed's ExprArg edges)."""
    if isinstance(expr, TemplateExpr):
        yield from (p for p in expr.parts if isinstance(p, Expr))
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
