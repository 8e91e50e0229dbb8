"""Parsing one HCL file with tree-sitter-hcl into typed views: blocks, attributes, syntax errors.

Parsing never fails: a file always yields a body (possibly partial) and a list of errors.
The expressions of attributes are converted lazily, the first time somebody asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter_hcl
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from .expr import Expr, ExprConverter, InvalidExpr, Span

BOM = b"\xef\xbb\xbf"


@lru_cache(maxsize=1)
def hcl_language() -> Language:
    """The tree-sitter HCL language (loaded once)."""
    return Language(tree_sitter_hcl.language())


def new_parser() -> Parser:
    """A fresh parser; parsers are not thread-safe, so each owner keeps its own."""
    return Parser(hcl_language())


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """A syntax error: a tree-sitter ERROR/MISSING region, or something Terraform rejects."""

    span: Span
    message: str


class Attribute:
    """``name = expression``; spans and the expression are worked out on first use.

    Building a module reads every attribute of its variable, module and output blocks, and
    most are never asked about again: only the name is read eagerly.
    """

    __slots__ = ("name", "_node", "_converter", "_expr")

    def __init__(self, name: str, node: Node, converter: ExprConverter):
        self.name = name
        self._node = node
        self._converter = converter
        self._expr: Expr | None = None

    @property
    def span(self) -> Span:
        return self._converter.span(self._node)

    @property
    def name_span(self) -> Span:
        return self._converter.span(self._node.child(0))

    @property
    def expr(self) -> Expr:
        if self._expr is None:
            node = self._node
            expr_node = node.child(node.child_count - 1)  # ``name = expression``: the value comes last
            if expr_node is None or expr_node.type != "expression":
                expr_node = next((c for c in node.children if c.type == "expression"), None)
            if expr_node is None:
                self._expr = InvalidExpr(self.span, "missing value")
            else:
                self._expr = self._converter.convert(expr_node)
        return self._expr

    def literal_string(self) -> str | None:
        """The value when it is a plain quoted string without escapes or templates (fast path)."""
        expr_node = self._node.child(self._node.child_count - 1)
        raw = self._converter.source[expr_node.start_byte : expr_node.end_byte] if expr_node is not None else b""
        if len(raw) >= 2 and raw[0] == 0x22 and raw[-1] == 0x22 and not any(c in raw[1:-1] for c in b'"\\$%\n'):
            return raw[1:-1].decode("utf-8", "replace")
        if self._expr is None and raw[:1] != b'"':
            return None
        from .expr import LiteralExpr

        expr = self.expr
        return expr.value if isinstance(expr, LiteralExpr) and isinstance(expr.value, str) else None

    def __repr__(self) -> str:
        return f"Attribute({self.name!r})"


@dataclass(slots=True)
class Body:
    attributes: dict[str, Attribute] = field(default_factory=dict)
    blocks: list["Block"] = field(default_factory=list)

    def blocks_of(self, block_type: str) -> list["Block"]:
        return [b for b in self.blocks if b.type == block_type]


class Block:
    """A block; its body is read from the tree on first use (most nested bodies are never needed)."""

    __slots__ = ("type", "labels", "label_spans", "type_span", "span", "_node", "_converter", "_body")

    def __init__(self, type: str, labels: tuple[str, ...], label_spans: tuple[Span, ...], type_span: Span,
                 body: Body | None, span: Span, node: Node | None = None, converter: ExprConverter | None = None):
        self.type = type
        self.labels = labels
        self.label_spans = label_spans
        self.type_span = type_span
        self.span = span
        self._body = body
        self._node = node
        self._converter = converter

    @property
    def body(self) -> Body:
        if self._body is None:
            body = Body()
            if self._node is not None and self._converter is not None:
                for child in self._node.children:
                    if child.type == "body":
                        _read_body(child, body, self._converter)
            self._body, self._node = body, None
        return self._body

    def __repr__(self) -> str:
        return f"Block({self.type!r}, {self.labels!r})"

    def iterator_name(self) -> str:
        """For a ``dynamic`` block: the name its content uses, from ``iterator = x`` or else the label."""
        from .expr import ScopeTraversalExpr

        attr = self.body.attributes.get("iterator")
        if attr is not None and isinstance(attr.expr, ScopeTraversalExpr):
            return attr.expr.root
        return self.labels[0] if self.labels else "dynamic"


@dataclass(slots=True)
class HclFile:
    """One parsed file: the tree (kept for incremental reparsing), its body and its syntax errors."""

    path: str
    source: bytes
    tree: Tree
    body: Body
    errors: list[SyntaxProblem]

    def text(self, span: Span) -> str:
        return self.source[span.start : span.end].decode("utf-8", "replace")


def parse_file(path: str, source: bytes, parser: Parser | None = None, old_tree: Tree | None = None) -> HclFile:
    """Parses ``source`` (incrementally when ``old_tree`` was edited to match it)."""
    parser = parser or new_parser()
    tree = parser.parse(source, old_tree) if old_tree is not None else parser.parse(source)
    return build_file(path, source, tree)


def build_file(path: str, source: bytes, tree: Tree) -> HclFile:
    """Reads the structure of an already parsed tree."""
    converter = ExprConverter(source, path)
    root = tree.root_node
    errors = _collect_errors(root, path)
    body = Body()
    top = next((c for c in root.children if c.type == "body"), None)
    if top is not None:
        _read_body(top, body, converter)
    # Blocks that tree-sitter could only recover inside an ERROR region still count.
    for child in root.children:
        if child.type == "ERROR":
            _read_body(child, body, converter)
    _place_unclosed_block(source, path, errors)
    _check_terraform_rules(root, source, path, errors)
    errors.sort(key=lambda e: (e.span.start, e.span.end, e.message))
    return HclFile(path, source, tree, body, errors)


def _read_body(node: Node, body: Body, conv: ExprConverter) -> None:
    for child in node.children:
        kind = child.type
        if kind == "attribute":
            attr = _read_attribute(child, conv)
            if attr is not None:
                body.attributes[attr.name] = attr
        elif kind == "block":
            block = _read_block(child, conv)
            if block is not None:
                body.blocks.append(block)
        elif kind == "ERROR" or kind == "body":
            _read_body(child, body, conv)


def _read_attribute(node: Node, conv: ExprConverter) -> Attribute | None:
    name_node = node.child(0)
    if name_node is None or name_node.type != "identifier":
        return None
    return Attribute(conv.text(name_node), node, conv)


def _read_block(node: Node, conv: ExprConverter) -> Block | None:
    type_node = node.child(0)
    if type_node is None or type_node.type != "identifier":
        return None
    labels: list[str] = []
    label_spans: list[Span] = []
    for child in node.children[1:]:
        if child.type == "string_lit":
            labels.append("".join(p for p in conv.quoted_chunks(child) if isinstance(p, str)))
            label_spans.append(conv.span(child))
        elif child.type == "identifier":
            labels.append(conv.text(child))
            label_spans.append(conv.span(child))
        elif child.type == "block_start":
            break
    return Block(conv.text(type_node), tuple(labels), tuple(label_spans), conv.span(type_node), None, conv.span(node), node, conv)


def _collect_errors(root: Node, path: str) -> list[SyntaxProblem]:
    """Every ERROR and MISSING region, found without visiting error-free subtrees."""
    errors: list[SyntaxProblem] = []
    if not root.has_error:
        return errors
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            errors.append(SyntaxProblem(Span(path, node.start_byte, node.end_byte), f"missing {node.type!r}"))
            continue
        if node.type == "ERROR":
            errors.append(SyntaxProblem(Span(path, node.start_byte, node.end_byte), _describe_error(node)))
            continue
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return errors


UNCLOSED = "unclosed configuration block: there is no closing brace for this block before the end of the file"


def _place_unclosed_block(source: bytes, path: str, errors: list[SyntaxProblem]) -> None:
    """Places a missing closing brace where Terraform does.

    Tree-sitter reports a MISSING ``}`` at the end of the file, also as a recovery artifact of an
    error inside the block. Terraform matches braces as tokens: when the file really ends with a
    brace open, it reports "Unclosed configuration block" at that brace; otherwise the real error
    is elsewhere and the missing brace is not reported.
    """
    missing = [e for e in errors if e.message == "missing '}'"]
    if not missing:
        return
    opening = unclosed_brace(source)
    for e in missing:
        errors.remove(e)
    if opening is not None:
        errors.append(SyntaxProblem(Span(path, opening, opening + 1), UNCLOSED))
    elif not errors:
        errors.extend(missing)


def unclosed_brace(source: bytes) -> int | None:
    """The offset of the innermost ``{`` still open at the end of the file (strings, templates,
    heredocs and comments skipped, as HCL's scanner does), or None when every brace is closed."""
    stack: list[tuple[bytes, int]] = []  # ("{", offset) for blocks/objects, ("${", offset) for templates
    i, n = 0, len(source)
    in_string = False
    while i < n:
        c = source[i : i + 1]
        if in_string:
            if c == b"\\":
                i += 2
                continue
            if c == b'"':
                in_string = False
            elif source.startswith((b"${", b"%{"), i):
                stack.append((b"${", i))
                in_string = False
                i += 2
                continue
            elif c == b"\n":
                in_string = False  # HCL rejects a newline in a quoted string; stop the string here
            i += 1
            continue
        if c == b"#" or source.startswith(b"//", i):
            end = source.find(b"\n", i)
            i = n if end < 0 else end
            continue
        if source.startswith(b"/*", i):
            end = source.find(b"*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if source.startswith(b"<<", i):
            match = re.match(rb"<<-?([A-Za-z_][\w-]*)[ \t]*\n", source[i:])
            if match:
                marker = match.group(1)
                end = re.compile(rb"^[ \t]*" + re.escape(marker) + rb"[ \t]*$", re.M).search(source, i + match.end())
                i = n if end is None else end.end()
                continue
        if c == b'"':
            in_string = True
        elif c == b"{":
            stack.append((b"{", i))
        elif c == b"}":
            if stack:
                kind, _ = stack.pop()
                if kind == b"${":
                    in_string = True  # back inside the template string
        i += 1
    blocks = [offset for kind, offset in stack if kind == b"{"]
    return blocks[-1] if blocks else None


def _describe_error(node: Node) -> str:
    text = (node.text or b"").decode("utf-8", "replace").strip().splitlines()
    snippet = text[0][:40] if text else ""
    return f"unexpected {snippet!r}" if snippet else "syntax error"


_HEX_RE = re.compile(rb"^0[xX]")
# Text that might break a rule: a hex prefix, an empty interpolation, or a template on a line
# that looks like a block header (a name, then no "=" before a quoted label with "${"/"%{").
_RULES_CANDIDATE = re.compile(rb'0[xX]|[$%]\{\s*\}|^[ \t]*[A-Za-z_][\w-]*[ \t]+[^\n=]*"[^"\n]*[$%]\{', re.M)
_LABEL_TEMPLATE_RE = re.compile(rb"(?<!\$)(?:\$\$)*[$%]\{")
# Single-node patterns only: a parent-child pattern such as ``(block (string_lit))`` keeps one
# query state per enclosing block, which is quadratic in nesting depth (seconds for 10,000 levels).
_RULES_QUERY = "(numeric_lit) @number (template_interpolation) @interpolation (block) @block"


@lru_cache(maxsize=1)
def _rules_query() -> Query:
    return Query(hcl_language(), _RULES_QUERY)


def _check_terraform_rules(root: Node, source: bytes, path: str, errors: list[SyntaxProblem]) -> None:
    """What tree-sitter-hcl accepts but Terraform rejects (SPEC section 2, parser facts)."""
    if any(c.type == "object" for c in root.children):
        errors.append(SyntaxProblem(Span(path, 0, len(source)), "a .tf file cannot be a JSON object; use a .tf.json file"))
        return
    if not _RULES_CANDIDATE.search(source):
        return  # the common case: nothing in the text could break a rule, so the tree need not be walked
    captures = QueryCursor(_rules_query()).captures(root)
    for node in captures.get("number", ()):
        if _HEX_RE.match(node.text or b""):
            errors.append(SyntaxProblem(Span(path, node.start_byte, node.end_byte), "hexadecimal number literals are not valid in Terraform"))
    for node in captures.get("interpolation", ()):
        if not any(c.type == "expression" for c in node.children) and not node.has_error:
            errors.append(SyntaxProblem(Span(path, node.start_byte, node.end_byte), 'empty interpolation "${}"'))
    labels = (c for block in captures.get("block", ()) for c in block.children if c.type == "string_lit")
    for node in labels:
        # tree-sitter-hcl reads a label's "${...}" as literal text; Terraform rejects it ("$${" escapes).
        if any(c.type == "template_interpolation" for c in node.children) or _LABEL_TEMPLATE_RE.search(node.text or b""):
            errors.append(SyntaxProblem(Span(path, node.start_byte, node.end_byte), "block labels cannot contain template interpolations"))
