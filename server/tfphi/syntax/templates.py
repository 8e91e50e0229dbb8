"""HCL's templates as ``hclsyntax`` reads them: literal tokens, escapes, strip markers, flush
heredocs and the ``%{ if }``/``%{ for }`` directives.

tree-sitter-hcl finds where a template's interpolations and directives are; what their
literal text means is decided here, token by token, as ``hclsyntax``'s scanner
(``scan_tokens.rl``) and template parser (``parser_template.go``) decide it:

- a literal's escapes (``ParseStringLiteralToken``): in a quoted string ``\\n \\r \\t \\" \\\\
  \\uNNNN \\UNNNNNNNN``, anything else after a backslash is an error; ``$${`` and ``%%{`` are
  ``${`` and ``%{`` (in heredocs too, where a backslash is just a backslash);
- a strip marker (``${~``, ``~}``, ``%{~``...) trims the whitespace of the one literal token
  next to it, and a heredoc's literal tokens end at each line's end: ``~}`` at the end of a
  line eats that newline, not the next line's indentation;
- a flush heredoc (``<<-``) removes from each line the smallest count of leading whitespace
  characters over its lines, counted on the tokens after trimming: a line whose first token
  is an interpolation or directive counts as zero, a line of whitespace alone is not counted
  (and keeps its spaces), and a line only starts after a token that ends with a newline;
- directives nest as ``if [else] endif`` and ``for endfor``; a template that is exactly one
  interpolation is that value, unconverted (``passthrough``), everything else a string.

This module knows nothing of expressions: interpolations and directives carry whatever the
caller converted their expressions to (``payload``). See docs/hcl-syntax.md.
"""

from __future__ import annotations

import json
import re
from typing import Any, Union

from ..lazy_re import lazy_compile
from ..records import record


class TemplateError(Exception):
    """A template hclsyntax rejects; ``start``/``end`` are byte offsets of the culprit."""

    def __init__(self, message: str, start: int, end: int):
        super().__init__(message)
        self.start, self.end = start, end


class Piece:
    """One token of a template, as hclsyntax's template parser sees it (mutable while the
    strip markers and the flush rule trim its literals)."""

    __slots__ = ("kind", "start", "end", "text", "payload", "strip_before", "strip_after")

    def __init__(self, kind: str, start: int, end: int, text: str = "", payload: Any = None,
                 strip_before: bool = False, strip_after: bool = False):
        self.kind = kind  # "literal", "interp", "if", "else", "endif", "for", "endfor"
        self.start, self.end = start, end
        self.text = text  # a literal's value, escapes decoded
        self.payload = payload  # interp: the expression; if: the condition; for: (key, value, collection)
        self.strip_before, self.strip_after = strip_before, strip_after


@record(frozen=True, slots=True)
class TemplateIf:
    """``%{ if c }then%{ else }otherwise%{ endif }``: hclsyntax's ConditionalExpr of two templates."""

    condition: Any
    then_parts: tuple
    else_parts: tuple
    start: int
    end: int


@record(frozen=True, slots=True)
class TemplateFor:
    """``%{ for k, v in coll }body%{ endfor }``: hclsyntax's TemplateJoinExpr of a ForExpr."""

    key_var: Union[str, None]
    value_var: str
    collection: Any
    body_parts: tuple
    start: int
    end: int
    body_start: int  # where the body's text starts (an empty body is an empty string there)


# A template's parts: literal strings, interpolated payloads, directives.
Part = Union[str, Any, TemplateIf, TemplateFor]

# scan_tokens.rl's literal tokens: a run of characters other than $ and % (with a quoted
# string's escapes), "$${" / "%%{", or a lone $ or %. A heredoc's tokens, and a bare template's
# (a .tf.json string, decoded), end at each line's end, and there a $ or % followed by one
# character and the line's end takes that character. Only whitespace can tell where such a
# token ends, which terraform console shows: the quoted "x$$ \n %{~ if true }z%{ endif }" is
# "x$$z" (" \n " a token of its own, trimmed); before "%{~ if true }x%{ endif }" on the next
# line, the heredoc line "a $ " keeps its space ("$ " and the newline are two tokens) and
# "a $  " does not ("$", then "  " and the newline).
_QUOTED_TOKEN = lazy_compile(r"\$\$\{|%%\{|[$%]|(?:\\[\s\S]|[^$%\\])+|\\")
_LINE_TOKEN = lazy_compile(r"\$\$\{|%%\{|[$%](?:[^{$%\r\n](?=\r?\n))?|[^$%\n]*\n|[^$%\n]+")
_ESCAPE = lazy_compile(r"\\(u[0-9A-Fa-f]{0,4}|U[0-9A-Fa-f]{0,8}|[\s\S])?|\$\$\{|%%\{")
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def literal_tokens(raw: str, kind: str) -> list[str]:
    """``raw`` (a literal stretch of a ``kind`` template: quoted, heredoc or bare) cut into
    hclsyntax's literal tokens."""
    pattern = _QUOTED_TOKEN if kind == "quoted" else _LINE_TOKEN
    return [m.group(0) for m in pattern.finditer(raw) if m.group(0)]


def decode_literal(token: str, quoted: bool, start: int) -> str:
    """A literal token's value (``ParseStringLiteralToken``); raises ``TemplateError`` for an
    invalid escape (``start``: the token's byte offset, for the error's place)."""
    if "\\" not in token and "$${" not in token and "%%{" not in token:
        return token

    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole in ("$${", "%%{"):
            return whole[1:]
        if not quoted:
            return whole
        at = start + len(token[: match.start()].encode("utf-8"))
        selector = match.group(1)
        if selector is None:
            raise TemplateError("invalid escape sequence: a backslash must be followed by an escape sequence selector", at, at + 1)
        if selector in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[selector]
        if selector[0] in "uU":
            digits = 4 if selector[0] == "u" else 8
            if len(selector) != digits + 1:
                raise TemplateError(f"invalid escape sequence: \\{selector[0]} must be followed by {digits} hexadecimal digits", at, at + len(whole))
            code = int(selector[1:], 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise TemplateError(f"invalid escape sequence: cannot encode character U+{code:04x} in UTF-8", at, at + len(whole))
            return chr(code)
        raise TemplateError(f"invalid escape sequence: {selector!r} is not a valid escape sequence selector", at, at + len(whole.encode("utf-8")))

    return _ESCAPE.sub(replace, token)


def _json_decoded(token: str, start: int) -> str:
    try:
        return json.loads(f'"{token}"')
    except ValueError as exc:
        raise TemplateError(f"invalid JSON string escape ({exc.args[0].split(':')[0]})", start, start + len(token.encode("utf-8"))) from None


def literal_pieces(raw: str, start: int, heredoc: bool, json_string: bool = False) -> list[Piece]:
    """The literal tokens of ``raw`` (source text at byte ``start``), decoded. A ``.tf.json``
    string's text (``json_string``) is JSON-decoded first, as Terraform decodes the file before
    it reads the string as a template; the template is then a bare one (hclsyntax's
    ``ParseTemplate``): no backslash escapes, and its literal tokens are a heredoc's (its pieces
    all carry the span of ``raw``)."""
    if json_string:
        end = start + len(raw.encode("utf-8"))
        return [Piece("literal", start, end, decode_literal(token, False, start))
                for token in literal_tokens(_json_decoded(raw, start), "bare")]
    pieces = []
    at = start
    for token in literal_tokens(raw, "heredoc" if heredoc else "quoted"):
        size = len(token.encode("utf-8"))
        pieces.append(Piece("literal", at, at + size, decode_literal(token, not heredoc, at)))
        at += size
    return pieces


def parse_template(pieces: list[Piece], flush: bool, start: int) -> tuple[tuple, bool]:
    """The parts of a template made of ``pieces`` (source order; ``start``: where its text
    starts) and whether it is a passthrough (exactly one interpolation: its value,
    unconverted). Raises ``TemplateError`` for unbalanced directives."""
    _apply_strip_markers(pieces)
    if flush:
        _flush_heredoc(pieces)
    melded = _meld(pieces)
    if not melded:
        melded = [Piece("literal", start, start, "")]
    passthrough = len(melded) == 1 and melded[0].kind == "interp"
    parts, stop, _ = _parse_sequence(melded, 0)
    if stop is not None:
        raise TemplateError(f"unexpected {stop.kind} directive", stop.start, stop.end)
    return parts, passthrough


def _apply_strip_markers(pieces: list[Piece]) -> None:
    """``~`` after an opening trims the trailing whitespace of the literal token just before;
    ``~`` before a closing brace, the leading whitespace of the literal token just after."""
    for i, piece in enumerate(pieces):
        if piece.kind == "literal":
            continue
        if piece.strip_before and i > 0 and pieces[i - 1].kind == "literal":
            pieces[i - 1].text = pieces[i - 1].text.rstrip(_GO_SPACE)
        if piece.strip_after and i + 1 < len(pieces) and pieces[i + 1].kind == "literal":
            pieces[i + 1].text = pieces[i + 1].text.lstrip(_GO_SPACE)


# Go's unicode.IsSpace: what strings.TrimLeftFunc/TrimRightFunc trim in hclsyntax.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _flush_heredoc(pieces: list[Piece]) -> None:
    """hclsyntax's ``flushHeredocTemplateParts``: the smallest leading whitespace over the
    lines' first tokens, removed from every line whose first token is a literal with text."""
    smallest = None
    adjust: list[Piece] = []
    newline = True
    for piece in pieces:
        if newline:
            newline = False
            if piece.kind == "literal":
                trimmed = piece.text.lstrip(_GO_SPACE)
                if not (trimmed == "" and piece.text.endswith("\n")):  # a blank line does not count
                    spaces = _grapheme_count(piece.text[: len(piece.text) - len(trimmed)])
                    adjust.append(piece)
                    smallest = spaces if smallest is None else min(smallest, spaces)
            else:
                smallest = 0  # an interpolation or directive starts the line
        if piece.kind == "literal" and piece.text.endswith("\n"):
            newline = True
    if not smallest:
        return
    for piece in adjust:
        piece.text = _drop_graphemes(piece.text, smallest)


def _grapheme_count(whitespace: str) -> int:
    # Whitespace characters are grapheme clusters of their own, but for "\r\n" (one cluster)
    # and a combining mark after a space (joined to it).
    return len(_clusters(whitespace))


def _drop_graphemes(text: str, count: int) -> str:
    clusters = _clusters(text[: count + 8])  # the whitespace prefix is at least `count` clusters
    return text[len("".join(clusters[:count])):]


_CLUSTER = lazy_compile(r"\r\n|[\s\S][\u0300-\u036f\u200d\ufe0f]*")


def _clusters(text: str) -> list[str]:
    return _CLUSTER.findall(text)


def _meld(pieces: list[Piece]) -> list[Piece]:
    """Consecutive literal tokens as one (``meldConsecutiveStringLiterals``)."""
    out: list[Piece] = []
    for piece in pieces:
        if piece.kind == "literal" and out and out[-1].kind == "literal":
            last = out[-1]
            out[-1] = Piece("literal", last.start, piece.end, last.text + piece.text)
        else:
            out.append(piece)
    return out


def _parse_sequence(pieces: list[Piece], i: int) -> tuple[tuple, "Piece | None", int]:
    """Parts from ``pieces[i]`` up to a closing directive (returned, with the index after it)
    or the end of the template (``None``)."""
    parts: list[Part] = []
    while i < len(pieces):
        piece = pieces[i]
        kind = piece.kind
        if kind == "literal":
            parts.append(piece.text)
        elif kind == "interp":
            parts.append(piece.payload)
        elif kind == "if":
            then_parts, stop, i = _parse_sequence(pieces, i + 1)
            else_parts: tuple = ()
            if stop is not None and stop.kind == "else":
                else_parts, stop, i = _parse_sequence(pieces, i)
            _expect(stop, "endif", piece)
            parts.append(TemplateIf(piece.payload, then_parts, else_parts, piece.start, stop.end))  # type: ignore[union-attr]
            continue
        elif kind == "for":
            body, stop, i = _parse_sequence(pieces, i + 1)
            _expect(stop, "endfor", piece)
            key, value, collection = piece.payload
            parts.append(TemplateFor(key, value, collection, body, piece.start, stop.end, piece.end))  # type: ignore[union-attr]
            continue
        else:  # else, endif, endfor: closes the sequence the caller opened
            return tuple(parts), piece, i + 1
        i += 1
    return tuple(parts), None, i


def _expect(stop: "Piece | None", keyword: str, opening: Piece) -> None:
    if stop is None:
        raise TemplateError(f"the {opening.kind} directive is missing its {keyword} directive", opening.start, opening.end)
    if stop.kind != keyword:
        raise TemplateError(f"unexpected {stop.kind} directive: expecting {keyword} for the {opening.kind} directive", stop.start, stop.end)
