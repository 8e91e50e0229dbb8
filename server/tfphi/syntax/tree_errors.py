"""The errors a tree-sitter tree holds (ERROR and MISSING regions), placed where Terraform
reports them, and the rules of Terraform's syntax that tree-sitter-hcl does not enforce
(``check_terraform_rules``: numbers, templates in labels, a block's opening line). ``hclfile``
runs them on every parse; the fuller check of a suspicious file is ``syntax_errors``."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from tree_sitter import Node, Query, QueryCursor, Tree

from ..lazy_re import lazy_compile
from .error_shapes import UNCLOSED, SyntaxProblem
from .expr import Span
from .language import hcl_language
from .references import top_level_nodes


def collect_errors(root: Node, path: str) -> list[SyntaxProblem]:
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


def place_unclosed_block(source: bytes, path: str, errors: list[SyntaxProblem]) -> None:
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


# ---- the top-level blocks an error region swallowed -----------------------------------------
#
# tree-sitter-hcl's error recovery can swallow everything after an error: a quote typed in a
# block opens a string that runs to the next quote, flipping every string after it; a stray
# "}" or an unclosed "{" turns the rest of the file into one ERROR node or one block. In the
# 1,000-module workspace's root main.tf, one such keystroke took 80-160 of its 200 module calls
# out of the file's body, and the analysis then re-derived the module tree and every module
# below the calls that disappeared (589 modules in one logged pass, the memory steps of
# bench/README.md "Issue 23: soak"), and all of it again when the keystroke was taken back.
# HCL's own parser starts each top-level item afresh after an error, and so does a reader:
# a block the user did not touch is still there. The error region is cut at the block headers
# that start a line (``terraform fmt``'s layout: a name, labels, "{"), and each piece is parsed
# alone: a piece that parses without an error is read as the blocks it holds, wherever the error
# is; neighbouring pieces with errors are parsed together, as one. A function of the text: a
# fresh parse and an edited document's parse read the same blocks (tests/syntax/test_recovery.py).

_BLOCK_HEADER = re.compile(rb'(?m)^[A-Za-z_][\w-]*(?:[ \t]+(?:"[^"\n]*"|[A-Za-z_][\w-]*))*[ \t]*\{')


def error_run(root: Node) -> tuple[int, int] | None:
    """[start, end) from the first to the last top-level item with an error inside (None: no error)."""
    if not root.has_error:
        return None
    broken = [n for n in top_level_nodes(root) if n.has_error or n.is_missing or n.type == "ERROR"]
    if not broken:  # the root itself is the ERROR node: the whole file
        return root.start_byte, root.end_byte
    return broken[0].start_byte, broken[-1].end_byte


def recover_top_levels(source: bytes, root: Node, parse_range: Callable[[int, int], Tree]) -> tuple[int, int, list[tuple[Node, bool]]] | None:
    """The top-level items of the error region of a tree with errors, read again piece by piece
    (see above): (the region's start, its end, the items of its pieces in order, each with
    whether its piece parsed without an error), or None when the region holds no block header
    to cut it at. ``parse_range(start, end)``: the tree of that byte range of ``source`` parsed
    alone, with the file's offsets."""
    run = error_run(root)
    if run is None:
        return None
    start, end = run
    cuts = [m.start() for m in _BLOCK_HEADER.finditer(source, start + 1, end)]
    if not cuts:
        return None
    bounds = [start, *cuts, end]
    pieces: list[tuple[int, int, Tree]] = []  # pieces as parsed, neighbours with errors merged
    pending: int | None = None  # the start of a run of pieces with errors not parsed together yet
    for first, last in zip(bounds, bounds[1:]):
        tree = parse_range(first, last)
        if not tree.root_node.has_error:
            if pending is not None:
                pieces.append(_merged(pending, first, pieces, parse_range))
                pending = None
            pieces.append((first, last, tree))
        elif pending is None:
            pending = first
            pieces.append((first, last, tree))
    if pending is not None:
        pieces.append(_merged(pending, end, pieces, parse_range))
    items: list[tuple[Node, bool]] = []
    for _, _, tree in pieces:
        clean = not tree.root_node.has_error
        items.extend((node, clean) for node in top_level_nodes(tree.root_node))
    return start, end, items


def _merged(first: int, last: int, pieces: list, parse_range: Callable[[int, int], Tree]) -> tuple[int, int, Tree]:
    """The pieces with errors from ``first`` to ``last`` as one (taken off ``pieces``): text
    that does not parse alone is not cut where a header-like line (a heredoc's) happens to be."""
    if pieces and pieces[-1][0] == first and pieces[-1][1] == last:
        return pieces.pop()
    while pieces and pieces[-1][0] >= first:
        pieces.pop()
    return first, last, parse_range(first, last)


def _describe_error(node: Node) -> str:
    text = (node.text or b"").decode("utf-8", "replace").strip().splitlines()
    snippet = text[0][:40] if text else ""
    return f"unexpected {snippet!r}" if snippet else "syntax error"


_HEX_RE = lazy_compile(rb"^0[xX]")
# Text that might break a rule: a hex prefix, an empty interpolation, or a template on a line
# that looks like a block header (a name, then no "=" before a quoted label with "${"/"%{").
# One pattern over the whole text was a tenth of a check's time: each part is looked for on
# its own, the header shape only on the lines where a template starts (rules_candidate).
_EMPTY_AFTER_START = re.compile(rb"\s*\}")
_HEADER_TEMPLATE = re.compile(rb'[ \t]*[A-Za-z_][\w-]*[ \t]+[^\n=]*"[^"\n]*[$%]\{')
_LABEL_TEMPLATE_RE = lazy_compile(rb"(?<!\$)(?:\$\$)*[$%]\{")
# Single-node patterns only: a parent-child pattern such as ``(block (string_lit))`` keeps one
# query state per enclosing block, which is quadratic in nesting depth (seconds for 10,000 levels).
_RULES_QUERY = "(numeric_lit) @number (template_interpolation) @interpolation (block) @block"


@lru_cache(maxsize=1)
def _rules_query() -> Query:
    return Query(hcl_language(), _RULES_QUERY)


def rules_candidate(source: bytes) -> bool:
    """True when the text might break a rule (see _EMPTY_TEMPLATE and the patterns by it)."""
    if b"0x" in source or b"0X" in source:
        return True
    header, empty = _HEADER_TEMPLATE.match, _EMPTY_AFTER_START.match
    lines_checked: set[int] = set()
    for marker in (b"${", b"%{"):  # bytes.find, in C: a pattern scanning every byte was the cost
        at = source.find(marker)
        while at >= 0:
            if empty(source, at + 2):
                return True
            line = source.rfind(b"\n", 0, at) + 1
            if line not in lines_checked:  # each line once, with the whole-line pattern
                if header(source, line):
                    return True
                lines_checked.add(line)
            at = source.find(marker, at + 2)
    return False


def check_terraform_rules(root: Node, source: bytes, path: str, errors: list[SyntaxProblem], candidate=None) -> None:
    """What tree-sitter-hcl accepts but Terraform rejects (SPEC section 2, parser facts)."""
    if any(c.type == "object" for c in root.children):
        errors.append(SyntaxProblem(Span(path, 0, len(source)), "a .tf file cannot be a JSON object; use a .tf.json file"))
        return
    if not (candidate or rules_candidate)(source):
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


