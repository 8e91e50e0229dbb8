"""Semantic tokens (SPEC section 6): every token of an HCL file, classified from its tree-sitter tree.

An editor with no other Terraform support gets coloured HCL from these alone. The token types
are LSP's standard ones, so every colour theme knows them:

- block types (``resource``, ``variable``...), ``for``/``in``/``if``, ``true``/``false``/``null``,
  heredoc markers: ``keyword``;
- block labels by what they declare: a resource or data source's type ``type``, its name
  ``variable``; a variable ``parameter``; an output ``property``; a module ``namespace``
  (all with the ``declaration`` modifier);
- attribute names and object keys: ``property``;
- references: the root (``var``, ``local``, ``module``, ``each``...) ``namespace``, the name
  after ``var.``/``local.`` ``variable``, a resource type ``type`` and its name ``variable``,
  further steps ``property``; names a ``for`` binds: ``variable``;
- type constraints (``list(object({...}))``): ``type``; function names: ``function``
  (``defaultLibrary``: Terraform's functions are built in);
- strings, numbers, comments, operators: ``string``, ``number``, ``comment``, ``operator``.

Tokens are byte ranges that never overlap, in order; the LSP layer turns them into relative
line/character positions (splitting the few that span lines: block comments, heredoc text).

An open document's tokens are kept per top-level block (``BlockTokens``, which the document
owns): a block's tokens are a function of its text alone (the walk never leaves its node, and
an error-free file's block reads alone as it reads in the file: ``syntax.regions``), kept
relative to its start and found again by the block's identity: a block the next parse took over
unchanged (``hclfile.take_region``, ``take_over_blocks``) is the same object, wherever it now is.
Tokens after a keystroke then cost the blocks the parse read anew, plus the comments between
blocks; a document's parse keeps no tree of the whole file, which the walk would otherwise parse
again (53 ms for the 84 KB root ``main.tf`` of the 1,000-module workspace, session 13).
"""

from __future__ import annotations

from typing import Callable

from tree_sitter import Node

from ..records import record
from ..syntax import is_json_path
from ..syntax.hclfile import BOM, HclFile, TopLevel, new_parser
from ..syntax.parsers import reparser

TOKEN_TYPES = (
    "namespace",
    "type",
    "parameter",
    "variable",
    "property",
    "function",
    "keyword",
    "string",
    "number",
    "operator",
    "comment",
)
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")

# Reference roots that name a namespace of Terraform's, not a resource type.
_ROOTS = frozenset({"var", "local", "module", "data", "each", "count", "path", "self", "terraform"})
# After these roots the next step names a value declared in the configuration.
_NAMED_BY_NEXT = frozenset({"var", "local"})
# Block types whose first label is a type and whose second is the name.
_TYPED_BLOCKS = frozenset({"resource", "data", "ephemeral"})
_LABEL_KIND = {"variable": "parameter", "output": "property", "module": "namespace", "provider": "namespace"}
_KEYWORDS = frozenset({"for", "in", "if", "else", "endif", "endfor", "true", "false"})
_OPERATORS = frozenset(
    {"=", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "!", "+", "-", "*", "/", "%", "?", ":", "=>", "...", "[*]", ".*",
     "<<", "<<-"}
)
_STRING_PARTS = frozenset({"quoted_template_start", "quoted_template_end", "template_literal"})
_TEMPLATE_MARKS = frozenset(
    {"template_interpolation_start", "template_interpolation_end", "template_directive_start", "template_directive_end"}
)


@record(frozen=True, slots=True)
class Token:
    start: int  # byte offsets in the file
    end: int
    type: str  # one of TOKEN_TYPES
    modifiers: tuple[str, ...] = ()


def semantic_tokens(hcl: HclFile, kept: "BlockTokens | None" = None, within: tuple[int, int] | None = None) -> list[Token]:
    """Every classified token of the file, in order, none overlapping (``kept``: the tokens of the
    last answer's blocks, for a document: see ``BlockTokens``); with ``within`` (start, end),
    those that overlap it."""
    pieces = kept.pieces(hcl) if kept is not None else None
    if pieces is not None:
        first, last = within if within is not None else (0, len(hcl.source))
        return [Token(base + start, base + end, kind, modifiers)
                for base, entry in pieces if base < last and base + len(BlockTokens.text(entry)) > first
                for start, end, kind, modifiers in relative_tokens(entry[1]) if base + end > first and base + start < last]
    out: list[Token] = []
    # Files read from disk keep no tree once their structure is read: parse those again.
    tree = hcl.tree if hcl.tree is not None else new_parser().parse(hcl.source)
    _Walker(hcl.source, out).visit(tree.root_node, frozenset(), False)
    out.sort(key=lambda t: t.start)
    if within is not None:
        return [t for t in out if t.end > within[0] and t.start < within[1]]
    return out


# A piece's tokens relative to its start, four items a token in one flat tuple (start, end,
# type, modifiers, start, ...): a tuple per token was 1 MiB of the 84 KB root main.tf's 12,000.
Relative = tuple


def relative_tokens(flat: Relative):
    """(start, end, type, modifiers) of each token of a piece's ``Relative`` tuple."""
    return zip(flat[0::4], flat[1::4], flat[2::4], flat[3::4])


class BlockTokens:
    """The tokens of one document's top-level blocks, each relative to its block's start, kept
    from one answer to the next by the block's identity (see the module): what a document owns
    (``lsp.documents.Document.tokens``), never shared. Each answer keeps the entries of its own
    blocks only, so that what it holds is one parse's blocks, never the edit history.

    The text between blocks holds only comments and whitespace in an error-free file of blocks;
    a stretch with a comment is parsed alone, kept by its text. An entry, a block's or a
    stretch's, is [the block or the stretch's text, its relative tokens, what the LSP layer
    derived from them per key (its encoding of them: ``derived``)]."""

    __slots__ = ("_blocks", "_gaps")

    def __init__(self) -> None:
        self._blocks: dict[int, list] = {}
        self._gaps: dict[bytes, list] = {}

    def pieces(self, hcl: HclFile) -> list[tuple[int, list]] | None:
        """(start, entry) for each top-level block and each stretch between blocks that holds a
        token, in order; None when the file is not read block by block (JSON, a syntax error, a
        top-level argument, a byte-order mark): its tokens are the walk of its whole tree."""
        source = hcl.source
        if is_json_path(hcl.path) or hcl.errors or hcl.body.attributes or hcl.nodes is not None or source.startswith(BOM):
            return None
        blocks: dict[int, list] = {}
        gaps: dict[bytes, list] = {}
        pieces: list[tuple[int, list]] = []
        cursor = 0
        for block in hcl.body.blocks:
            anchor = block._anchor
            if anchor is None:
                return None
            start = anchor.start
            end = start + block._at[1]
            if start > cursor and not source[cursor:start].isspace():
                gap = self._gap(source, cursor, start, gaps)
                if gap is None:
                    return None
                if gap[1]:
                    pieces.append((cursor, gap))
            entry = self._blocks.get(id(block))
            if entry is None or entry[0] is not block:
                entry = [block, _relative(_block_tokens(hcl, start, end), start), {}]
            blocks[id(block)] = entry
            pieces.append((start, entry))
            cursor = end
        if cursor < len(source) and not source[cursor:].isspace():
            gap = self._gap(source, cursor, len(source), gaps)
            if gap is None:
                return None
            if gap[1]:
                pieces.append((cursor, gap))
        self._blocks, self._gaps = blocks, gaps
        return pieces

    def _gap(self, source: bytes, start: int, end: int, gaps: dict) -> list | None:
        """The entry of the text between two blocks (its comments), or None when it holds more."""
        text = source[start:end]
        found = gaps.get(text) or self._gaps.get(text)
        if found is None:
            root = reparser.tree(source, start, end).root_node
            if root.has_error or any(c.type not in ("comment", "body") for c in root.children) or any(
                    c.type != "comment" for top in root.children if top.type == "body" for c in top.children):
                return None
            out: list[Token] = []
            _Walker(source, out).visit(root, frozenset(), False)
            out.sort(key=lambda t: t.start)
            found = [text, _relative(out, start), {}]
        gaps[text] = found
        return found

    @staticmethod
    def text(entry: list) -> bytes:
        """The text an entry's tokens are relative to: its block's, or the stretch's."""
        owner = entry[0]
        return owner if type(owner) is bytes else owner.text

    @staticmethod
    def derived(entry: list, key, make: Callable[[bytes, Relative], object]):
        """What ``make`` derives from an entry's text and relative tokens, kept with them under ``key``."""
        kept = entry[2]
        found = kept.get(key)
        if found is None:
            found = kept[key] = make(BlockTokens.text(entry), entry[1])
        return found


def _block_tokens(hcl: HclFile, start: int, end: int) -> list[Token]:
    """The tokens of the top-level block at ``[start, end)`` (its node: the file's tree, the
    region's, or its range parsed alone), in order."""
    out: list[Token] = []
    _Walker(hcl.source, out).visit(TopLevel(hcl.source, "block", start, end, None, None, hcl.tree).node(), frozenset(), False)
    out.sort(key=lambda t: t.start)
    return out


def _relative(tokens: list[Token], base: int) -> Relative:
    return tuple([x for t in tokens for x in (t.start - base, t.end - base, t.type, t.modifiers)])


class _Walker:
    def __init__(self, source: bytes, out: list[Token]):
        self.source = source
        self.out = out

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def emit(self, node: Node, type: str, *modifiers: str) -> None:
        if node.end_byte > node.start_byte:
            self.out.append(Token(node.start_byte, node.end_byte, type, modifiers))

    def visit(self, node: Node, bound: frozenset[str], in_type: bool) -> None:
        """``bound``: names a ``for`` expression binds here; ``in_type``: inside a type constraint."""
        # An explicit stack: deeply nested expressions must not exhaust Python's recursion.
        stack: list[tuple[Node, frozenset[str], bool]] = [(node, bound, in_type)]
        while stack:
            node, bound, in_type = stack.pop()
            children = self.classify(node, bound, in_type)
            for child, child_bound, child_in_type in reversed(children):
                stack.append((child, child_bound, child_in_type))

    def classify(self, node: Node, bound: frozenset[str], in_type: bool) -> list[tuple[Node, frozenset[str], bool]]:
        """Emits the tokens ``node`` itself decides; returns the children still to visit."""
        kind = node.type
        if kind == "comment":
            self.emit(node, "comment")
            return []
        if kind == "block":
            return self.block(node, bound)
        if kind == "attribute":
            return self.attribute(node, bound, in_type)
        if kind == "object_elem":
            return self.object_elem(node, bound, in_type)
        if not in_type:
            self.references(node, bound)
        elif kind == "variable_expr":
            self.emit(node, "type")
            return []
        if kind == "function_call":
            name = node.child(0)
            if name is not None and name.type == "identifier":
                self.emit(name, "type" if in_type else "function", *(() if in_type else ("defaultLibrary",)))
            return [(c, bound, in_type) for c in node.children[1:]]
        if kind in ("for_tuple_expr", "for_object_expr"):
            intro = next((c for c in node.children if c.type == "for_intro"), None)
            names = [c for c in (intro.children if intro else []) if c.type == "identifier"]
            for name in names:
                self.emit(name, "variable", "declaration")
            inner = bound | {self.text(n) for n in names}
            # The collection after ``in`` is read outside the new names' scope.
            return [(c, bound if c.type == "for_intro" else inner, in_type) for c in node.children]
        if kind in ("numeric_lit",):
            self.emit(node, "number")
            return []
        if kind in ("null_lit",):
            self.emit(node, "keyword")
            return []
        if kind in _STRING_PARTS:
            self.emit(node, "string")
            return []
        if kind == "heredoc_identifier":
            self.emit(node, "keyword")
            return []
        if kind in _TEMPLATE_MARKS:
            self.emit(node, "operator")
            return []
        if node.child_count == 0:
            if not node.is_named:
                if kind in _KEYWORDS:
                    self.emit(node, "keyword")
                elif kind in _OPERATORS:
                    self.emit(node, "operator")
            return []
        return [(c, bound, in_type) for c in node.children]

    def block(self, node: Node, bound: frozenset[str]) -> list[tuple[Node, frozenset[str], bool]]:
        children = node.children
        head = children[0] if children else None
        block_type = self.text(head) if head is not None and head.type == "identifier" else ""
        if head is not None and head.type == "identifier":
            self.emit(head, "keyword")
        rest = []
        label_index = 0
        for child in children[1:]:
            if child.type in ("string_lit", "identifier"):
                self.emit(child, *_label_kind(block_type, label_index))
                label_index += 1
            else:
                rest.append((child, bound, False))
        return rest

    def attribute(self, node: Node, bound: frozenset[str], in_type: bool) -> list[tuple[Node, frozenset[str], bool]]:
        children = node.children
        name = children[0] if children else None
        rest = []
        type_constraint = False
        if name is not None and name.type == "identifier":
            self.emit(name, "property")
            # ``type = list(string)`` inside a variable block is a type constraint, not an expression.
            type_constraint = self.text(name) == "type" and _enclosing_block_type(node, self.source) == "variable"
        for child in children[1:]:
            rest.append((child, bound, in_type or (type_constraint and child.type == "expression")))
        return rest

    def object_elem(self, node: Node, bound: frozenset[str], in_type: bool) -> list[tuple[Node, frozenset[str], bool]]:
        children = node.children
        key = children[0] if children else None
        rest = []
        start = 0
        if key is not None and key.type == "expression":
            ident = _bare_identifier(key)
            if ident is not None:
                self.emit(ident, "property")
                start = 1
        for child in children[start:]:
            rest.append((child, bound, in_type))
        return rest

    def references(self, node: Node, bound: frozenset[str]) -> None:
        """The references among ``node``'s children: a ``variable_expr`` and the steps after it."""
        children = node.children
        for i, child in enumerate(children):
            if child.type == "variable_expr":
                end = i + 1
                while end < len(children) and children[end].type in ("get_attr", "index", "splat"):
                    end += 1
                self.reference(children[i:end], bound)

    def reference(self, children: list[Node], bound: frozenset[str]) -> None:
        """Colours the root and steps of a reference (``var.x``, ``aws_s3_bucket.b[*].arn``)."""
        root_node = children[0].child(0)
        if root_node is None or root_node.type != "identifier":
            return
        root = self.text(root_node)
        if root in bound:
            self.emit(root_node, "variable")
            root_kind = "bound"
        elif root in _ROOTS:
            self.emit(root_node, "namespace")
            root_kind = root
        else:
            self.emit(root_node, "type")
            root_kind = "resource"
        steps = 0
        for child in children[1:]:
            if child.type == "get_attr":
                steps += 1
                ident = next((c for c in child.children if c.type == "identifier"), None)
                if ident is None:
                    continue
                if steps == 1 and (root_kind in _NAMED_BY_NEXT or root_kind == "resource"):
                    self.emit(ident, "variable")
                elif steps == 1 and root_kind in ("module", "data"):
                    self.emit(ident, "namespace" if root_kind == "module" else "type")
                elif steps == 2 and root_kind == "data":
                    self.emit(ident, "variable")
                else:
                    self.emit(ident, "property")
            elif child.type == "splat":
                self._splat_steps(child)
            else:
                steps += 1

    def _splat_steps(self, splat: Node) -> None:
        for node in _descendants(splat):
            if node.type == "get_attr":
                ident = next((c for c in node.children if c.type == "identifier"), None)
                if ident is not None:
                    self.emit(ident, "property")


def _label_kind(block_type: str, index: int) -> tuple[str, ...]:
    if block_type in _TYPED_BLOCKS:
        return ("type", "declaration") if index == 0 else ("variable", "declaration")
    if index == 0 and block_type in _LABEL_KIND:
        return (_LABEL_KIND[block_type], "declaration")
    return ("string",)


def _enclosing_block_type(node: Node, source: bytes) -> str | None:
    parent = node.parent
    while parent is not None and parent.type != "block":
        parent = parent.parent
    if parent is None or parent.child_count == 0 or parent.child(0).type != "identifier":
        return None
    head = parent.child(0)
    return source[head.start_byte : head.end_byte].decode("utf-8", "replace")


def _bare_identifier(expression: Node) -> Node | None:
    """The identifier of an expression that is only ``name`` (an object key written bare)."""
    if expression.child_count != 1:
        return None
    var = expression.child(0)
    if var is None or var.type != "variable_expr" or var.child_count != 1:
        return None
    ident = var.child(0)
    return ident if ident is not None and ident.type == "identifier" else None


def _descendants(node: Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))
