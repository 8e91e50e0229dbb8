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
            match = re.match(rb"<<-?([A-Za-z_][\w-]*)[ \t]*\r?\n", source[i:])  # (a CRLF line too)
            if match:
                marker = match.group(1)
                end = re.compile(rb"^[ \t]*" + re.escape(marker) + rb"[ \t]*\r?$", re.M).search(source, i + match.end())
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


# ---- a file with an error, read piece by piece -----------------------------------------------
#
# tree-sitter-hcl's error recovery can swallow everything after an error: a quote typed in a
# block opens a string that runs to the next quote, flipping every string after it; a stray
# "}" or an unclosed "{" turns the rest of the file into one ERROR node or one block. In the
# 1,000-module workspace's root main.tf, one such keystroke took 80-160 of its 200 module calls
# out of the file's body, and the analysis then re-derived the module tree and every module
# below the calls that disappeared (589 modules in one logged pass), and all of it again when
# the keystroke was taken back. And the recovery itself is costly: the tree of a text whose
# error swallowed the rest of that file is 4-6 times the clean one (24 MiB for a stray "}", 3.8
# clean), built in a parse that peaks higher still, and what an allocator keeps of such peaks
# was the soak's growth (bench/README.md, "Issue 23: soak, session 9").
# HCL's own parser starts each top-level item afresh after an error, and so does a reader: a
# block the user did not touch is still there. A file with an error is cut at the block headers
# that start a line (``terraform fmt``'s layout: a name, labels, "{"; not inside a heredoc or a
# comment that starts its line), and each piece is parsed alone: a piece that parses without an
# error is read as the blocks it holds, wherever the error is; neighbouring pieces with errors
# are parsed together, as one, and no tree of the whole broken text is kept. A function of the
# text: a fresh parse and an edited document's parse read the same blocks (tests/syntax/test_recovery.py).
# (Stopping the first parse at the error, tree-sitter's progress callback, would not build that
# tree at all; but py-tree-sitter 0.26.1 leaks every buffer its read callback returns, which the
# progress callback needs: about the file's size per parse. Measured and not kept, bench/README.md.)

_BLOCK_HEADER = re.compile(rb'(?m)^[A-Za-z_][\w-]*(?:[ \t]+(?:"[^"\n]*"|[A-Za-z_][\w-]*))*[ \t]*\{')
_HEREDOC_START = re.compile(rb"<<-?([A-Za-z_][\w-]*)[ \t]*\r?\n")
_LINE_COMMENT_START = re.compile(rb"(?m)^[ \t]*/\*")


def cut_points(source: bytes) -> list[int]:
    """Where a file with an error is cut: the block headers that start a line, but the first
    (and any in the text of a heredoc, or of a ``/* */`` comment that starts its line)."""
    cuts = [m.start() for m in _BLOCK_HEADER.finditer(source, 1)]
    if not cuts:
        return cuts
    covered: list[tuple[int, int]] = []
    if b"<<" in source:
        for m in _HEREDOC_START.finditer(source):
            end = re.compile(rb"(?m)^[ \t]*" + re.escape(m.group(1)) + rb"[ \t]*\r?$").search(source, m.end())
            covered.append((m.end(), len(source) if end is None else end.start()))
    if b"/*" in source:
        for m in _LINE_COMMENT_START.finditer(source):
            end = source.find(b"*/", m.end())
            covered.append((m.end(), len(source) if end < 0 else end))
    if covered:
        cuts = [c for c in cuts if not any(a <= c < b for a, b in covered)]
    return cuts


def parse_in_pieces(source: bytes, parse_range: Callable[[int, int], Tree]) -> list[tuple[Tree, bool]]:
    """A file with an error, read piece by piece (see above): the tree of each piece, in order,
    with whether it parsed without an error. ``parse_range(start, end)``: the tree of that byte
    range of ``source`` parsed alone, with the file's offsets."""
    return [(tree, not tree.root_node.has_error) for _, _, tree in parsed_pieces(source, parse_range)]


def parsed_pieces(source: bytes, parse_range: Callable[[int, int], Tree]) -> list[tuple[int, int, Tree]]:
    """``parse_in_pieces``'s pieces as (start, end, tree): they cover the text, in order."""
    bounds = [0, *cut_points(source), len(source)]
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
        pieces.append(_merged(pending, len(source), pieces, parse_range))
    return pieces


def _merged(first: int, last: int, pieces: list, parse_range: Callable[[int, int], Tree]) -> tuple[int, int, Tree]:
    """The pieces with errors from ``first`` to ``last`` as one (taken off ``pieces``)."""
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


