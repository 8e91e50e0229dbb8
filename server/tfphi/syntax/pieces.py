"""A keystroke in a broken document: its pieces parsed first, the whole text only when they cannot tell.

A text with a syntax error is read piece by piece (``tree_errors.parse_in_pieces``, cut at the
block headers that start a line), but ``hclfile.parse_file`` first parses the whole text only to
learn that it has an error, and drops that tree unread. That tree is the largest transient of an
edited document: tree-sitter-hcl's recovery makes a broken text's tree 4-6 times a clean one's
(20-38 MiB for the 1,000-module root's 80 KB ``main.tf``), allocated through Python's allocator
(py-tree-sitter installs ``PyMem_*`` as tree-sitter's), whose arenas keep the height of such
peaks (bench/README.md, "Issue 23: the broken document's parse, session 15"). And while a
document stays broken, every keystroke paid that parse (``syntax.regions`` reads an edit's
region alone only in an error-free text). ``read_if_broken`` parses the pieces first, and when
they show that the whole text has an error, reads the text from them: exactly what
``hclfile.read_in_pieces`` reads (the same pieces, from the same function), without the whole
parse. When they cannot show it, None: the caller parses the whole text, as before.

Why the pieces can show it. Call a place of the text a *boundary* when a parse of the whole text
is there between two top-level items (no bracket, string, heredoc or comment open, no item begun).
Suppose the whole text T parses without an error; the pieces are parsed alone, each ends at a
line's start followed by a block header (``name labels {``) or at the end of the text.

1. A piece (or a run of pieces parsed together) that starts at a boundary and parses alone
   without an error ends at a boundary. Parsed alone it is read as tree-sitter reads T from that
   boundary, token for token, up to its end: a token of T that crosses its end (a string, which
   tree-sitter-hcl lets run over lines, a heredoc, a ``/* */`` comment) is cut by the end of the
   piece and is an error alone (an unterminated string or heredoc, a stray ``/``); so its tokens
   are T's, and they make whole items. Could T's last item go on past the end? Only if an item
   can continue with what follows, a name then labels then ``{``: a block header cannot (its
   ``{`` is not in the piece, which would then end inside a header: an error alone), nor an
   attribute's expression (no expression goes on with a name, a string or ``{`` after a complete
   expression, but inside a bracket, which the piece would leave open: an error alone).
2. So, by 1 from the start of the text, the first piece with an error starts at a boundary A.
   From A, a scan of T that reads its tokens as tree-sitter reads those of a valid text
   (``_scan``: strings with their escapes and ``${``/``%{`` templates, ``#``, ``//`` and
   ``/* */`` comments, brackets; it gives up at ``<<``, a heredoc, at an unclosed ``/*``, and at a
   ``${`` in a string that may be a block's label, which tree-sitter-hcl reads as text: one after
   a name or a string) gives T's brackets, strings and comments from A on. T has an error when that scan meets a closing bracket that closes nothing
   open (``}`` after ``]``...), or ends the text inside a string or a bracket: in a valid text
   neither happens.
3. And when the scan, at the end B of that piece, has nothing open and the last token before B
   (whitespace and line comments aside) is a closing bracket that closed everything: then B is a
   boundary of T (after a complete ``}``, ``]`` or ``)`` at the top level no header is under way,
   and no expression goes on with a name). The piece lies between two boundaries of T, so it is
   whole items of T and would parse alone without an error (1): it did not, so T has an error.

Otherwise (a heredoc or a ``/* */`` comment before the closing bracket, an attribute at the top
level, a quote that opened a string a later quote closes: nothing shows an error) the pieces
cannot tell; the caller parses the whole text, and a text that has no error is read as before.
Every step holds for tree-sitter-hcl's reading of a valid text, never of a broken one: that is all
it needs, as T is supposed valid. The property test: tests/syntax/test_soak7_broken_pieces.py
(random characters typed and deleted anywhere in texts with heredocs, comments, strings over
lines, CRLF; each answer equals ``hclfile.parse_file``'s).
"""

from __future__ import annotations

import re

from . import is_json_path
from .hclfile import HclFile, read_in_pieces
from .parsers import reparser
from .tree_errors import parsed_pieces

__all__ = ["read_if_broken"]


def read_if_broken(path: str, source: bytes, traced: frozenset = frozenset()) -> HclFile | None:
    """``hclfile.parse_file(path, source)`` when the text's pieces show that it has a syntax
    error (see the module), read from those pieces without parsing the whole text; else None."""
    if is_json_path(path):
        return None
    pieces = parsed_pieces(source, lambda start, end: reparser.tree(source, start, end))
    first = next((piece for piece in pieces if piece[2].root_node.has_error), None)
    if first is None or not _scan(source, first[0], first[1]):
        return None  # (the caller parses the whole text: dropped before, its peak is its own)
    trees = [(tree, not tree.root_node.has_error) for _, _, tree in pieces]
    del pieces, first  # (read_in_pieces lets each tree go once read: nothing else may hold them)
    return read_in_pieces(path, source, traced, trees)


_CODE = re.compile(rb'[{}\[\]()"#]|//|/\*|<<')
_IN_STRING = re.compile(rb'\\.|\$\$\{|%%\{|[$%]\{|"', re.S)  # (an escape, a literal "$${", an opening, the end)
_GAP = re.compile(rb'(?:[ \t\r\n]|#[^\n]*|//[^\n]*)*')  # whitespace and line comments
_OPENERS = {b"}": (b"{", b"${"), b"]": (b"[",), b")": (b"(",)}
_OPEN = (b"{", b"[", b"(")
_QUOTE = b'"'
_LABEL = b'"label'  # a string that may be a block's label: after a name or a string (the same object always)
_BEFORE_VALUE = frozenset(b"=([,?:{>!&|+-*/%<")  # what an expression's string comes after, never a label


def _after_name(source: bytes, at: int) -> bool:
    """Whether the quote at ``at`` may open a block's label: the last byte before it (white space
    aside) is none that only an expression's string comes after (a name, a string, a comment's text)."""
    i = at - 1
    while i >= 0 and source[i] in b" \t\r\n":
        i -= 1
    return i >= 0 and source[i] not in _BEFORE_VALUE


def _scan(source: bytes, start: int, end: int) -> bool:
    """Whether the whole text has a syntax error, shown by a scan of it from ``start`` (a boundary
    if the text has none) read as tree-sitter reads a valid text (steps 2 and 3 of the module),
    ``end`` being where the piece with an error that starts there ends. False: not shown."""
    stack: list[bytes] = []  # open: b"{", b"[", b"(", b'"' (a string), b"${" (a template in it)
    closed = -1  # where the last closing bracket that closed everything ended
    at_end = False  # whether the state at ``end`` was looked at
    n, i = len(source), start
    while True:
        in_string = bool(stack) and (stack[-1] is _QUOTE or stack[-1] is _LABEL)
        match = (_IN_STRING if in_string else _CODE).search(source, i)
        at = match.start() if match is not None else n
        if not at_end and at >= end:
            at_end = True  # (the tokens before ``end`` are read, none from it on: the state at ``end``)
            if not stack and closed >= 0 and _GAP.fullmatch(source, closed, end):
                return True  # step 3
        if match is None:
            return bool(stack)  # the text ends inside a string or a bracket
        token, i = match.group(), match.end()
        if in_string:
            if token == _QUOTE:
                stack.pop()
            elif token == b"${" or token == b"%{":
                if stack[-1] is _LABEL:
                    return False  # (a block label's "${" is text to tree-sitter-hcl: not read here)
                stack.append(b"${")
        elif token == _QUOTE:
            stack.append(_LABEL if _after_name(source, match.start()) else _QUOTE)
        elif token in _OPEN:
            stack.append(token)
        elif token in _OPENERS:
            if not stack or stack[-1] not in _OPENERS[token]:
                return True  # a closing bracket that closes nothing open
            stack.pop()
            if not stack:
                closed = i
        elif token == b"#" or token == b"//":
            line_end = source.find(b"\n", i)
            i = n if line_end < 0 else line_end
        elif token == b"/*":
            comment_end = source.find(b"*/", i)
            if comment_end < 0:
                return False  # (an unclosed "/*" is no comment: not read here)
            i = comment_end + 2
        else:
            return False  # "<<": a heredoc, whose lines this scan does not read
