"""Which files the syntax-error check (``syntax_errors``) looks at, and what it reports for them.

The check is a Python pass over a file; most files need none. It runs where tree-sitter-hcl
found an error, or where a cheap search (regular expressions in C) finds a shape that
tree-sitter accepts and Terraform may reject. ``terraform_placed`` then puts Terraform's errors
in place of tree-sitter's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..records import record
from .expr import Span

if TYPE_CHECKING:
    from tree_sitter import Node


UNCLOSED = "unclosed configuration block: there is no closing brace for this block before the end of the file"


@record(frozen=True, slots=True)
class SyntaxProblem:
    """A syntax error: a tree-sitter ERROR/MISSING region, or something Terraform rejects."""

    span: Span
    message: str
    region: Span | None = None  # the text tree-sitter could not read, when wider than ``span``


def syntax_checker():
    """The syntax-error check (``syntax_errors``), a Python pass over a file most files never
    need: imported by the first file that does, never at start-up (ARCHITECTURE.md)."""
    from . import syntax_errors

    return syntax_errors


# ---- when to look -------------------------------------------------------------------------

# The patterns below use possessive quantifiers (*+, ++): they never backtrack, which keeps each
# search a single pass in C. Each pattern starts with a literal character for the same reason.
_ID = rb"[A-Za-z_][\w-]*+"
_STR = rb'"(?:[^"\\\n]|\\.)*+"'
# Shapes that tree-sitter-hcl accepts (it reads newlines as spaces) and hclsyntax may not: there,
# a newline ends an argument or a block header, "=" needs its value on its line, and a block's
# "{" starts a new line unless the block is a one-argument one-liner. Valid files rarely have them
# outside heredocs and multi-line parentheses, where they only cost a look.
_SHAPES = tuple(re.compile(p) for p in (
    rb"\n[ \t]*+(?:[.,?:+%]|\((?![^\n]*\)[ \t]*=)|=(?![=>])|&&|\|\||\}[ \t]*+[^\s)\],.\[:?#/*+\-<>=!&|\"]|[\])][\])},]*+[ \t]*+\}"
    rb"|(?!(?:for|if|in)[ \t])" + _ID + rb"[ \t]++(?:\"|[A-Za-z_])(?![^\n{]*+\{)"
    rb"|" + _ID + rb"(?:[ \t]++(?:\"[^\"\n]*+\"|" + _ID + rb"))*+[ \t]*+\{[ \t]*+[A-Za-z_](?![^\n]*?\}[ \t]*+(?:\n|#|//)))",
    # ^ a line continuing an expression, "}" with more after it on its line (or after a closing
    #   bracket), a name then a value with no "=" (runtime lower(x)), a block header with no "{", or
    #   a block opened with an argument (or a block) on its line and not closed there ("x {  a = 1").
    #   Every pattern reads a line's end as "\n": ``suspicious`` searches a CRLF text as its LF one.
    rb"\\[^nrt\"\\uU]",  # a backslash that may be an invalid escape
    rb"for[ \t](?:(?<=\[for[ \t])|(?<=\[ for[ \t]))[^\n\[\]]*?(?:=>|\.\.\.)"  # a key in a tuple's for expression,
    rb"|for[ \t](?:(?<=\{for[ \t])|(?<=\{ for[ \t]))(?![^\n{}]*?=>)",  # or none in an object's (up to a bracket)
))
_TWO_DOTS = re.compile(rb"\.[0-9]++\.[0-9]")
_NUMBER_BEFORE = re.compile(rb"(?<![<>=!])=[ \t]*+[0-9]++\Z")
# A name alone on its line (an argument's "=" on the next line), unless it closes a heredoc.
_NAME_ALONE = re.compile(rb"\n[ \t]*+(" + _ID + rb")[ \t]*+(?:\n|#|//)")
# Searched in the reversed text, where each starts with a literal character (so that the search
# skips ahead in C) and a look-behind need not span a name: an operator ending a line, its
# operand on the next (unless the line is a comment), and "}" after a value on its line
# ("value = x }", confirmed on the line), before the line's end or its comment...
_OPERATOR = rb"[=?+\-*%<>!&|.]"
_LINE_ENDS = tuple(re.compile(start + rb"(?:(?P<op>" + _OPERATOR + rb")|(?P<cb>\})[ \t]*+[^\s{])")
                   for start in (rb"\n[ \t]*+", rb"#[ \t]*+", rb"//[ \t]*+"))
# ... and a second argument (or block) on a line: "name =" (or "name {") after a value.
_SECOND_ARGUMENT = tuple(re.compile(start + rb"[ \t]*+[\w-]*+(?<=[A-Za-z_])[ \t]++[\w\])\"}]")
                         for start in (rb"=(?<![=>]=)(?![=!<>])", rb"\{"))
_ARGUMENT_THEN_CLOSE = re.compile(rb"[ \t]*+" + _ID + rb"[ \t]*+=(?![=>])(?:" + _STR + rb"|\{(?:[^{}\n]|\{[^{}\n]*+\})*+\}|[^{}\"\n])*+\}")


def suspicious(source: bytes) -> bool:
    """Whether a file that tree-sitter-hcl parses without an error may still have a syntax error
    that Terraform reports (regular-expression searches in C, and a look at the few lines they
    find: the check every file gets).

    A file with Windows line endings is searched as its LF text: the shapes are written for a
    line ending in ``"\\n"``, and Terraform's scanner reads ``"\\r\\n"`` as ``"\\n"`` (its newline
    token is either). The answer is a yes or no, so no offset needs mapping back; a lone ``"\\r"``
    stays what it is. Before session 14 a ``"\\r"`` hid the shapes read at a line's end (an
    operator ending it, a name alone on it, ``value = x }``): tests/syntax/test_crlf_shapes.py."""
    if b"\r" in source:
        source = source.replace(b"\r\n", b"\n")
    text, _ = stripped(b"\n" + source + b"\n")
    if b"%{" in text or b"~}" in text or b"${~" in text:  # template directives, strip markers
        return True
    if any(shape.search(text) for shape in _SHAPES):
        return True
    for found in _TWO_DOTS.finditer(text):
        # foo.0.1 (a chained legacy index), or 1.2.3 as a number (not in a string); the look back
        # is bounded, so that a long line of numbers costs no more than a short one
        before = text[max(0, found.start() - 64) : found.start()]
        before = before[before.rfind(b"\n") + 1 :]
        if before[-1:].isalpha() or before[-1:] in (b"_", b"]") or _NUMBER_BEFORE.search(before):
            return True
    markers = None
    for found in _NAME_ALONE.finditer(text):
        if markers is None:
            markers = set(_HEREDOC_START.findall(text))
        if found.group(1) not in markers:  # not a heredoc's closing marker
            return True
    reverse, last = text[::-1], len(text) - 1
    if any(second.search(reverse) for second in _SECOND_ARGUMENT):
        return True
    for line_end in _LINE_ENDS:
        for found in line_end.finditer(reverse):
            kind = found.lastgroup
            at = last - found.start(kind)  # the operator or brace, in ``text``
            line = text[text.rfind(b"\n", 0, at) + 1 : at + 1]
            if kind == "op":
                if b"#" not in line and b"//" not in line and not line.lstrip().startswith((b"*", b"/*")):
                    return True
            elif _ARGUMENT_THEN_CLOSE.fullmatch(line):
                return True
    return False


# ---- the errors tfphi reports -------------------------------------------------------------


def terraform_placed(path: str, source: bytes, errors: list, root: "Node | None" = None, force: bool = False,
                     known: dict | None = None) -> list:
    """A native-syntax file's syntax errors as tfphi reports them: tree-sitter's ``errors``
    (``SyntaxProblem``s) replaced by the errors Terraform reports, where it reports them, when
    tree-sitter found an error or the file has a shape that Terraform may reject.

    Each error keeps, as its ``region``, the text tree-sitter could not read (from the first to
    the last of its error regions): what that text declares is not reported as undefined. When
    the check cannot say (a file nested too deep for it) or finds nothing although tree-sitter
    did, tree-sitter's errors stay: tfphi could not read that region either way.

    ``root``, the file's tree-sitter tree: when tree-sitter found no error, the check first
    looks at the top-level items with a suspicious shape alone (``items_clean``). ``force``: the
    caller knows of an error that no shape shows (an argument set twice, ``hclfile``), so the
    whole file is checked. ``known``: see ``items_clean``."""
    if not force and not errors and (not suspicious(source) or (root is not None and items_clean(source, root, known))):
        return errors
    found = syntax_checker().hcl_errors(source)
    if not found:
        return errors
    start = min([e.start for e in found] + [e.span.start for e in errors])
    end = max([e.end for e in found] + [e.span.end for e in errors])
    if any(e.message == UNCLOSED for e in errors):
        end = len(source)
    region = Span(path, start, end)
    return [SyntaxProblem(Span(path, e.start, e.end), e.message, region) for e in found]


def items_clean(source: bytes, root: "Node", known: dict | None = None) -> bool:
    """True when the file has no syntax error Terraform reports, shown by checking only its
    top-level items whose own text has a suspicious shape; False when that cannot be shown (the
    caller then checks the whole file, and its result is what Terraform reports).

    A suspicious file usually has one or two such items (a ``for`` or a ``=`` in a description
    string), and the check costs a Python pass over the text it reads. It is the same answer as
    the whole file's when tree-sitter read the file without an error (``root`` has none): the
    items are then separated as Terraform's parser separates them, by newlines, with only
    comments between them, so its parser starts each item afresh. Each item is looked at from
    its start to the end of its last line (items sharing a line go together); the cut-off text
    is a file tree-sitter reads without an error, so an item whose text has no suspicious shape
    has no error (the promise of ``suspicious``), and an item that has one is checked alone.
    The one thing Terraform checks across items, an argument set twice, sends the file to the
    whole check, as does any error an item shows alone (where it is in the file is the whole
    check's answer).

    ``known``: where the files read together keep each item text's answer (the host's block cache,
    ``hclfile.build_file``): a workspace repeats items (686 distinct texts of the 1,457 items of the
    corpus's 31 suspicious files, session 13), and an item's answer depends on its text alone."""
    if root.has_error:
        return False
    body = None
    for child in root.children:
        if child.type == "body":
            body = child
        elif child.type != "comment":
            return False  # not a body (a JSON object): the whole check
    if body is None:
        return True  # comments only: ``suspicious`` matched inside one
    ranges: list[list[int]] = []  # [start, end) of each group of items, to the end of its last line
    names: set[bytes] = set()
    for item in body.children:
        start, end = item.start_byte, item.end_byte
        if item.type == "comment":
            if ranges and start < ranges[-1][1] < end:
                ranges[-1][1] = start  # a block comment running on past the line: stop before it
            continue
        if item.type == "attribute":
            name_node = item.child(0)
            name = source[start : name_node.end_byte if name_node is not None else start]
            if name in names:
                return False  # "Attribute redefined" spans two items
            names.add(name)
        if ranges and start < ranges[-1][1]:
            start = ranges.pop()[0]  # on the previous item's last line: one group
        line_end = source.find(b"\n", end)
        ranges.append([start, len(source) if line_end < 0 else line_end + 1])
    for start, end in ranges:
        text = source[start:end]
        if known is None:
            clean = _item_clean(text)
        else:
            key = (_ITEM_CLEAN, text)
            clean = known.get(key)
            if clean is None:
                clean = known[key] = _item_clean(text)
        if not clean:
            return False
    return True


_ITEM_CLEAN = object()  # (the key of an item text's answer in ``known``, apart from any other key there)


def _item_clean(text: bytes) -> bool:
    """Whether the text of a group of items, cut from a file tree-sitter read without an error, has no syntax error."""
    return not suspicious(text) or syntax_checker().hcl_errors(text) == []


def stripped(text: bytes) -> tuple[bytes, bool]:
    """``text`` as the shapes' search reads it, without the lines inside its heredocs and its
    ``/* ... */`` comments, and whether every heredoc and comment it took out found its end in
    ``text`` (else the rest of the text was read as it is). A text cut into pieces, each of
    which finds every end in itself, is stripped as its pieces are, one after the other
    (``syntax.regions`` relies on it: the lines of a region are then searched alone)."""
    closed = True
    if b"<<" in text:
        text, closed = _without_heredoc_bodies(text)
    if b"/*" in text:
        text, comments_closed = _without_block_comments(text)
        closed = closed and comments_closed
    return text, closed


def heredoc_markers(text: bytes) -> set[bytes]:
    """The heredoc markers of a ``stripped`` text (a line of one of these names alone is not a shape)."""
    return set(_HEREDOC_START.findall(text))


def _without_block_comments(text: bytes) -> tuple[bytes, bool]:
    """``text`` without its ``/* ... */`` comments (each up to the first ``*/``), and whether the
    last one found its ``*/``. By ``bytes.find``: a regular expression tried every ``/*`` against
    the rest of the text, and IAM policies are full of ``"arn:...:bucket/*"``."""
    parts, at, closed = [], 0, True
    while (start := text.find(b"/*", at)) >= 0:
        end = text.find(b"*/", start + 2)
        if end < 0:
            closed = False
            break  # no "*/" after this one, so none after any later "/*" either
        parts.append(text[at:start])
        at = end + 2
    if not parts:
        return text, closed
    parts.append(text[at:])
    return b"".join(parts), closed


_HEREDOC_START = re.compile(rb"<<-?(" + _ID + rb")\r?\n")


def _without_heredoc_bodies(text: bytes) -> tuple[bytes, bool]:
    """``text`` without the lines inside its heredocs: scripts and documents whose lines have
    every shape above, and none of which tree-sitter and Terraform read differently; and
    whether the last one found its closing marker."""
    parts, at, closed = [], 0, True
    for start in _HEREDOC_START.finditer(text):
        if start.start() < at:
            continue
        end = re.compile(rb"\n[ \t]*" + re.escape(start.group(1)) + rb"[ \t]*\r?\n").search(text, start.end() - 1)
        if end is None:
            closed = False
            break
        parts.append(text[at : start.end()])
        at = end.start() + 1
    parts.append(text[at:])
    return b"".join(parts), closed
