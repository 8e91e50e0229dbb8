"""Aligns ``=`` signs and trailing comments as ``terraform fmt`` does, for the files tfphi writes.

The specializer edits vendor files in place (a threaded argument, a rewritten reference, a
removed ``provider`` line) and generates new ones; both must pass ``terraform fmt -check``.
Spacing inside expressions is already canonical in what tfphi generates, so the one rule left
to apply is fmt's alignment (hclwrite's ``formatCells``):

* a *line* is a physical line, except that a heredoc belongs to the line that opens it;
* a line has an *assignment cell* when its first ``=`` is not its first token and the rest of
  the line opens no bracket it does not close (``tags = {`` has none); consecutive lines with
  one form a chain, and every ``=`` of a chain stands one column after the longest name;
* a line has a *comment cell* when it ends with a comment after some code; consecutive such
  lines form a chain, and their comments start one column after the longest code.
"""

from __future__ import annotations

import re
from ..records import record

_OPEN = "{[("
_CLOSE = "}])"
_HEREDOC = re.compile(r"<<-?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*$")


@record
class _Line:
    lines: list[str]  # physical lines (more than one when a heredoc continues it)
    eq: int | None = None  # index of the assignment's "=" in lines[0]
    comment: int | None = None  # index where a trailing comment starts in lines[-1]


def align(text: str) -> str:
    """``text`` with every assignment and comment chain aligned as ``terraform fmt`` aligns it."""
    lines = _logical_lines(text.split("\n"))
    _align_assignments(lines)
    _align_comments(lines)
    return "\n".join(physical for line in lines for physical in line.lines)


def _logical_lines(physical: list[str]) -> list[_Line]:
    out: list[_Line] = []
    i = 0
    in_block_comment = False
    while i < len(physical):
        text = physical[i]
        if in_block_comment:
            out.append(_Line([text]))
            in_block_comment = "*/" not in text
            i += 1
            continue
        eq, comment, marker, opens_block_comment = _scan(text)
        line = _Line([text], eq, comment)
        i += 1
        if marker is not None:  # the heredoc's body and closing marker belong to this line
            while i < len(physical):
                line.lines.append(physical[i])
                i += 1
                if physical[i - 1].strip() == marker:
                    break
            line.comment = None
        in_block_comment = opens_block_comment
        out.append(line)
    return out


def _scan(text: str) -> tuple[int | None, int | None, str | None, bool]:
    """(assignment "=" index, trailing comment index, heredoc marker, opens a block comment)."""
    tokens = 0  # tokens seen before the current position (only "is it the first?" matters)
    eq: int | None = None
    net = 0
    heredoc: str | None = None
    comment: int | None = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t":
            i += 1
            continue
        if ch == "#" or text.startswith("//", i):
            comment = i if tokens else None
            break
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return eq if net == 0 else None, None, None, True
            i = end + 2
            continue
        if ch == '"':
            i = _skip_string(text, i)
            tokens += 1
            continue
        if text.startswith("<<", i) and eq is not None and heredoc is None:
            found = _HEREDOC.match(text, i)
            if found:
                heredoc = found.group(1)
                break
        if ch == "=" and not text.startswith("==", i) and not text.startswith("=>", i) and (i == 0 or text[i - 1] not in "=!<>"):
            if eq is None and tokens:
                eq = i
                net = 0
            tokens += 1
            i += 1
            continue
        if ch in _OPEN:
            net += 1
        elif ch in _CLOSE:
            net -= 1
        tokens += 1
        i += 1
    assign = eq if eq is not None and net == 0 else None
    return assign, comment, heredoc, False


def _skip_string(text: str, start: int) -> int:
    """The index after the quoted string (with its interpolations) that starts at ``start``."""
    i, depth = start + 1, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if depth == 0 and ch == '"':
            return i + 1
        if text.startswith("${", i) or text.startswith("%{", i):
            depth += 1
            i += 2
            continue
        if depth and ch == "}":
            depth -= 1
        elif depth and ch == '"':
            i = _skip_string(text, i)
            continue
        i += 1
    return i


def _width(text: str) -> int:
    return len(text.encode("utf-8"))


def _align_assignments(lines: list[_Line]) -> None:
    chain: list[_Line] = []
    for line in lines + [_Line([""])]:
        if line.eq is not None:
            chain.append(line)
            continue
        if chain:
            widest = max(_width(c.lines[0][: c.eq].rstrip()) for c in chain)
            for c in chain:
                first = c.lines[0]
                lead, rest = first[: c.eq].rstrip(), first[c.eq:]
                shift = len(lead) + 1 + (widest - _width(lead)) - c.eq
                c.lines[0] = lead + " " * (widest - _width(lead) + 1) + rest
                if c.comment is not None and len(c.lines) == 1:
                    c.comment += shift
                c.eq += shift
            chain = []


def _align_comments(lines: list[_Line]) -> None:
    chain: list[_Line] = []
    for line in lines + [_Line([""])]:
        if line.comment is not None:
            chain.append(line)
            continue
        if chain:
            widest = max(_width(c.lines[-1][: c.comment].rstrip()) for c in chain)
            for c in chain:
                last = c.lines[-1]
                code, comment = last[: c.comment].rstrip(), last[c.comment:]
                c.lines[-1] = code + " " * (widest - _width(code) + 1) + comment
            chain = []
