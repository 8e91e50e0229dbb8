"""Where Terraform reports a syntax error in a native-syntax (``.tf``, ``.tfvars``) file.

tree-sitter-hcl stays the parser of everything else; its error recovery, though, puts its
ERROR and MISSING nodes a token or a line away from where Terraform's parser (HashiCorp's
``hclsyntax``, which ``terraform fmt``, ``validate`` and ``plan`` all use) reports the error,
and it accepts a few shapes that Terraform rejects (``runtime lower(x)``, two arguments on
one line of an object). This module answers one question the way ``hclsyntax`` does: which
syntax errors does a file have, and where does each start.

It follows ``hclsyntax``'s documented behaviour, learnt from its source (scanner states,
parser and recovery rules; see docs/rules/syntax-error.md): the tokens of ``syntax.scanner``
(quoted templates with nested ``${}``/``%{}``, heredocs and comments), then a recursive-descent check
of bodies, blocks, attributes and expressions with the same recovery, so that the errors
after the first one are the errors Terraform prints too. Terraform sorts its diagnostics by
position, so the first of ours is the first of Terraform's. It builds no syntax tree: it only
decides errors (summary and subject range), and it costs a Python pass over the file, which is
why the caller runs it only on files where a cheap check says an error is possible.
"""

from __future__ import annotations

import re

from ..records import record
from .scanner import (
    BANG, CBRACE, CBRACK, CHEREDOC, COLON, COMMA, CONTROL, CPAREN, CQUOTE, DOT, DOUBLE_COLON, ELLIPSIS, EOF, EQUAL,
    FAT_ARROW, IDENT, INTERP, INVALID, MINUS, NEWLINE, NUMBER, OBRACE, OBRACK, OHEREDOC, OPAREN, OQUOTE, QUESTION,
    QUOTED_LIT, QUOTED_NEWLINE, SEQ_END, STAR, STRING_LIT, scan,
)

# Lowest precedence first, as hclsyntax's operator table.
_BINARY_LEVELS = (frozenset("∨"), frozenset("∧"), frozenset("≔≠"), frozenset("<>≤≥"), frozenset("+-"), frozenset("*/%"))
_OPPOSITE = {OBRACE: CBRACE, OBRACK: CBRACK, OPAREN: CPAREN, OQUOTE: CQUOTE, OHEREDOC: CHEREDOC,
             CBRACE: OBRACE, CBRACK: OBRACK, CPAREN: OPAREN, CQUOTE: OQUOTE, CHEREDOC: OHEREDOC,
             INTERP: SEQ_END, CONTROL: SEQ_END, SEQ_END: INTERP}
_OPENERS = frozenset((OBRACE, OBRACK, OPAREN, OQUOTE, OHEREDOC, INTERP, CONTROL))
_CLOSERS = frozenset((CBRACE, CBRACK, CPAREN, CQUOTE, CHEREDOC))


def attribute_redefined(name: str, start: int, end: int) -> tuple[str, str, int, int]:
    """Terraform's error for an argument set a second time in one body, at the second name."""
    return ("Attribute redefined", f"the argument {name!r} was already set; each argument may be set only once", start, end)


@record(frozen=True, slots=True)
class HclError:
    """One error as Terraform reports it: its summary line, a short detail, and its subject
    (byte offsets into the file, as tfphi's spans)."""

    summary: str
    detail: str
    start: int
    end: int

    @property
    def message(self) -> str:
        """The summary and detail as one sentence, as tfphi prints messages."""
        return f"{self.summary[0].lower()}{self.summary[1:]}: {self.detail}"


_INVALID_TOKENS = {
    "&": ("Unsupported operator", 'bitwise operators are not supported; did you mean boolean AND ("&&")?'),
    "|": ("Unsupported operator", 'bitwise operators are not supported; did you mean boolean OR ("||")?'),
    "~": ("Unsupported operator", 'bitwise operators are not supported; did you mean boolean NOT ("!")?'),
    "^": ("Unsupported operator", "bitwise operators are not supported"),
}


def _invalid_tokens(tokens: list[tuple[str, int, int]], text: str, out: list[tuple[str, str, int, int]]) -> None:
    """The scanner's own errors: characters that never belong in HCL (hclsyntax's
    ``checkInvalidTokens``, with its limits on repeats)."""
    bitwise = backtick = apostrophe = semicolon = 0
    for kind, start, end in tokens:
        if kind in _INVALID_TOKENS:
            if bitwise < 4:
                out.append((*_INVALID_TOKENS[kind], start, end))
                bitwise += 1
        elif kind == "`":
            if backtick % 2 == 0:
                out.append(("Invalid character", 'the "`" character is not valid; to create a multi-line string, use the "heredoc" syntax, like "<<EOT"', start, end))
            backtick += backtick <= 2
        elif kind == "'":
            if apostrophe % 2 == 0:
                out.append(("Invalid character", 'single quotes are not valid; use double quotes (") to enclose strings', start, end))
            apostrophe += apostrophe <= 2
        elif kind == ";":
            if semicolon < 1:
                out.append(("Invalid character", 'the ";" character is not valid; use newlines to separate arguments and blocks, and commas to separate items in collection values', start, end))
                semicolon += 1
        elif kind == QUOTED_NEWLINE:
            out.append(("Invalid multi-line string", 'quoted strings may not be split over multiple lines; use the \\n escape or the "heredoc" syntax', start, end))
        elif kind == INVALID:
            if text[start:end] in ("“", "”"):
                out.append(("Invalid character", '"curly quotes" are not valid here; replace the character with a "straight quote"', start, end))
            else:
                out.append(("Invalid character", "this character is not used within the language", start, end))


# ---- parser -------------------------------------------------------------------------------

_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{0,4}|U[0-9a-fA-F]{0,8}|[\s\S])?")
_VALID_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?\Z")


class _Parser:
    """hclsyntax's parser, reduced to its control flow and its errors."""

    def __init__(self, text: str, tokens: list[tuple[str, int, int]]):
        self.text = text
        self.tokens = tokens
        self.next_index = 0
        self.newlines = [True]  # whether newlines are significant, innermost last
        self.recovery = False  # once an error was recovered from, most later errors are not reported
        self.errors: list[tuple[str, str, int, int]] = []

    # -- the peeker --

    def peek(self) -> tuple[str, int, int]:
        tokens, i = self.tokens, self.next_index
        if i >= len(tokens):
            return tokens[-1]  # past the end: EOF again (the last token is never a newline)
        if not self.newlines[-1]:
            while tokens[i][0] == NEWLINE:
                i += 1
        return tokens[i]

    def read(self) -> tuple[str, int, int]:
        tokens, i = self.tokens, self.next_index
        if i >= len(tokens):
            return tokens[-1]
        if not self.newlines[-1]:
            while tokens[i][0] == NEWLINE:
                i += 1
        self.next_index = i + 1
        return tokens[i]

    def prev(self) -> tuple[str, int, int]:
        return self.tokens[self.next_index - 1] if self.next_index else self.peek()

    def is_keyword(self, tok: tuple[str, int, int], word: str) -> bool:
        return tok[0] == IDENT and self.text[tok[1] : tok[2]] == word

    def error(self, summary: str, detail: str, tok: tuple[str, int, int]) -> None:
        self.errors.append((summary, detail, tok[1], tok[2]))

    # -- recovery --

    def recover(self, end: str) -> tuple[str, int, int]:
        """Skips to the ``end`` token that closes the current construct (nested pairs skipped)."""
        start = _OPPOSITE.get(end)
        self.recovery = True
        nest = 0
        while True:
            tok = self.read()
            kind = tok[0]
            if end == SEQ_END and kind == CONTROL:
                kind = INTERP
            if kind == start:
                nest += 1
            elif kind == end:
                if nest < 1:
                    return tok
                nest -= 1
            elif kind == EOF:
                return tok

    def recover_over(self, start: str) -> None:
        while self.read()[0] not in (start, EOF):
            pass
        self.recover(_OPPOSITE[start])

    def recover_after_body_item(self) -> None:
        self.recovery = True
        open_: list[str] = []
        while True:
            kind = self.read()[0]
            if kind == NEWLINE:
                if not open_:
                    return
            elif kind == EOF:
                return
            elif kind in _OPENERS:
                open_.append(kind)
            elif kind in _CLOSERS:
                opener = _OPPOSITE[kind]
                while open_ and open_[-1] != opener:
                    open_.pop()
                if open_:
                    open_.pop()
            elif kind == SEQ_END:
                while open_ and open_[-1] not in (INTERP, CONTROL):
                    open_.pop()
                if open_:
                    open_.pop()

    # -- structure --

    def parse_body(self, end: str) -> None:
        start_tok = self.prev()
        names: set[str] = set()
        while True:
            nxt = self.peek()
            kind = nxt[0]
            if kind == end:
                self.read()
                return
            if kind == NEWLINE:
                self.read()
                continue
            if kind == IDENT:
                name = self.parse_body_item()
                if name is not None:
                    if name[0] in names:
                        self.errors.append(attribute_redefined(name[0], name[1], name[2]))
                    names.add(name[0])
                continue
            bad = self.read()
            if not self.recovery:
                if bad[0] == OQUOTE:
                    self.error("Invalid argument name", "argument names must not be quoted", bad)
                elif bad[0] == EOF:
                    if end == CBRACE:
                        self.error("Unclosed configuration block", "there is no closing brace for this block before the end of the file", start_tok)
                    else:
                        self.error("Unclosed configuration body", "found end of file before the end of this configuration body", start_tok)
                else:
                    self.error("Argument or block definition required", "an argument or block definition is required here", bad)
            self.recover(end)
            return

    def parse_body_item(self) -> tuple[str, int, int] | None:
        """Parses an argument or block; returns an argument's (name, start, end)."""
        ident = self.read()
        if ident[0] != IDENT:
            self.recover_after_body_item()
            self.error("Argument or block definition required", "an argument or block definition is required here", ident)
            return None
        kind = self.peek()[0]
        if kind == EQUAL:
            self.finish_attribute(ident, single_line=False)
            return (self.text[ident[1] : ident[2]], ident[1], ident[2])
        if kind in (OQUOTE, OBRACE, IDENT):
            self.finish_block(ident)
            return None
        self.recover_after_body_item()
        self.error("Argument or block definition required", 'an argument or block definition is required here; to set an argument, use the equals sign "=" to introduce the argument value', ident)
        return None

    def parse_single_attribute_body(self) -> None:
        ident = self.read()
        if ident[0] != IDENT:
            self.recover_after_body_item()
            self.error("Argument or block definition required", "an argument or block definition is required here", ident)
            return
        kind = self.peek()[0]
        if kind == EQUAL:
            self.finish_attribute(ident, single_line=True)
        elif kind in (OQUOTE, OBRACE, IDENT):
            self.recover_after_body_item()
            self.error("Argument definition required", "a single-line block definition can contain only a single argument", ident)
        else:
            self.recover_after_body_item()
            self.error("Argument or block definition required", 'an argument or block definition is required here; to set an argument, use the equals sign "=" to introduce the argument value', ident)

    def finish_attribute(self, ident: tuple[str, int, int], single_line: bool) -> None:
        self.read()  # "="
        before = len(self.errors)
        self.parse_expression()
        if self.recovery and len(self.errors) > before:
            self.recover_after_body_item()
        elif not single_line:
            end = self.peek()
            if end[0] != NEWLINE and end[0] != EOF:
                if not self.recovery:
                    if end[0] == COMMA:
                        self.error("Unexpected comma after argument", "argument definitions must be separated by newlines, not commas", end)
                    else:
                        self.error("Missing newline after argument", "an argument definition must end with a newline", end)
                self.recover_after_body_item()
            else:
                self.read()

    def finish_block(self, ident: tuple[str, int, int]) -> None:
        while True:
            tok = self.peek()
            kind = tok[0]
            if kind == OBRACE:
                obrace = self.read()
                break
            if kind == OQUOTE:
                self.parse_quoted_string_literal()
                continue
            if kind == IDENT:
                self.read()
                continue
            if kind == EQUAL:
                self.error("Invalid block definition", 'the equals sign "=" indicates an argument definition, and must not be used when defining a block', tok)
            elif kind == NEWLINE:
                self.error("Invalid block definition", 'a block definition must have block content delimited by "{" and "}", starting on the same line as the block header', tok)
            elif not self.recovery:
                self.error("Invalid block definition", 'either a quoted string block label or an opening brace ("{") is expected here', tok)
            self.recover_after_body_item()
            return
        if self.peek()[0] in (NEWLINE, EOF, CBRACE):
            self.parse_body(CBRACE)
        else:
            self.parse_single_attribute_body()
            tok = self.peek()
            if tok[0] == CBRACE:
                self.read()
            elif tok[0] == COMMA:
                self.error("Invalid single-argument block definition", "single-line block syntax can include only one argument definition", tok)
                self.recover(CBRACE)
            elif tok[0] == NEWLINE:
                self.error("Invalid single-argument block definition", "an argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line", tok)
                self.recover(CBRACE)
            else:
                if not self.recovery:
                    if tok[0] == EOF:
                        self.error("Unclosed configuration block", "there is no closing brace for this block before the end of the file", obrace)
                    else:
                        self.error("Invalid single-argument block definition", "a single-line block definition must end with a closing brace immediately after its single argument definition", tok)
                self.recover(CBRACE)
        eol = self.peek()
        if eol[0] == NEWLINE or eol[0] == EOF:
            self.read()
        else:
            if not self.recovery:
                self.error("Missing newline after block definition", "a block definition must end with a newline", eol)
            self.recover_after_body_item()

    # -- expressions --

    def parse_expression(self) -> None:
        before = len(self.errors)
        self.parse_binary(0)
        if self.recovery and len(self.errors) > before:
            return
        if self.peek()[0] != QUESTION:
            return
        self.read()
        before = len(self.errors)
        self.parse_expression()
        if self.recovery and len(self.errors) > before:
            return
        colon = self.peek()
        if colon[0] != COLON:
            self.error("Missing false expression in conditional", "the conditional operator (...?...:...) requires a false expression, delimited by a colon", colon)
            return
        self.read()
        self.parse_expression()

    def parse_binary(self, level: int) -> None:
        """Operands joined by the operators of ``level`` and tighter ones. hclsyntax recurses once
        per precedence level for each operand; this reads the first operand, then climbs the
        levels from the tightest, which reports the same errors (every level's operands start at
        the same token, so an error in one is an error in all of them)."""
        before = len(self.errors)
        self.parse_term()
        self.parse_traversals()
        for tighter in range(len(_BINARY_LEVELS) - 1, level - 1, -1):
            if self.recovery and len(self.errors) > before:
                return
            operators = _BINARY_LEVELS[tighter]
            while self.peek()[0] in operators:
                self.read()
                at = len(self.errors)
                self.parse_binary(tighter + 1)
                if self.recovery and len(self.errors) > at:
                    return

    def parse_traversals(self) -> None:
        while True:
            kind = self.peek()[0]
            if kind == DOT:
                self.read()
                attr = self.peek()
                if attr[0] == IDENT:
                    self.read()
                elif attr[0] == NUMBER:
                    self.read()
                    self._legacy_index(attr, attr)
                elif attr[0] == STAR:
                    self.read()
                    while self.peek()[0] == DOT:
                        self.read()
                        tok = self.peek()
                        if tok[0] == NUMBER:
                            self.read()
                            self._legacy_index(tok, attr)
                            continue
                        if tok[0] != IDENT:
                            if not self.recovery:
                                if tok[0] == STAR:
                                    self.error("Nested splat expression not allowed", "a splat expression (*) cannot be used inside another attribute-only splat expression", tok)
                                else:
                                    self.error("Invalid attribute name", "an attribute name is required after a dot", attr)
                            self.recovery = True
                            break
                        self.read()
                else:
                    self.error("Invalid attribute name", "an attribute name is required after a dot", attr)
                    self.recovery = True
            elif kind == OBRACK:
                self.read()
                if self.peek()[0] == STAR:
                    self.read()
                    close = self.read()
                    if close[0] != CBRACK and not self.recovery:
                        # hclsyntax's subject is the token its recovery stops at (it points at
                        # the variable that recovery then overwrites): so is ours.
                        self.error("Missing close bracket on splat index", 'the star for a full splat operator must be immediately followed by a closing bracket ("]")', self.recover(CBRACK))
                else:
                    self.newlines.append(False)
                    before = len(self.errors)
                    self.parse_expression()
                    if self.recovery and len(self.errors) > before:
                        self.recover(CBRACK)
                    else:
                        close = self.read()
                        if close[0] != CBRACK and not self.recovery:
                            self.error("Missing close bracket on index", 'the index operator must end with a closing bracket ("]")', self.recover(CBRACK))
                    self.newlines.pop()
            else:
                return

    def _legacy_index(self, number: tuple[str, int, int], subject: tuple[str, int, int]) -> None:
        if "." in self.text[number[1] : number[2]]:
            self.error("Invalid legacy index syntax", "when using the legacy index syntax, chaining two indexes together is not permitted", subject)
        else:
            self._number(number)

    def _number(self, tok: tuple[str, int, int]) -> None:
        if not _VALID_NUMBER.match(self.text, tok[1], tok[2]):
            self.error("Invalid number literal", "failed to recognize the value of this number literal", tok)

    def parse_term(self) -> None:
        start = self.peek()
        kind = start[0]
        if kind == OPAREN:
            self.read()
            self.newlines.append(False)
            before = len(self.errors)
            self.parse_expression()
            if len(self.errors) > before:
                self.recover(CPAREN)
                self.newlines.pop()
                return
            close = self.peek()
            if close[0] != CPAREN:
                self.error("Unbalanced parentheses", "expected a closing parenthesis to terminate the expression", close)
                self.recovery = True
            self.read()
            self.newlines.pop()
        elif kind == NUMBER:
            self.read()
            self._number(start)
        elif kind == IDENT:
            self.read()
            if self.peek()[0] in (OPAREN, DOUBLE_COLON):
                self.finish_function_call(start)
        elif kind == OQUOTE or kind == OHEREDOC:
            self.read()
            self.parse_template(_OPPOSITE[kind])
        elif kind == MINUS or kind == BANG:
            self.read()
            self.parse_term()
            self.parse_traversals()
        elif kind == OBRACK:
            self.parse_tuple()
        elif kind == OBRACE:
            self.parse_object()
        else:
            if not self.recovery:
                if kind == EOF:
                    self.error("Missing expression", "expected the start of an expression, but found the end of the file", start)
                else:
                    self.error("Invalid expression", "expected the start of an expression, but found an invalid expression token", start)
            self.recovery = True

    def finish_function_call(self, name: tuple[str, int, int]) -> None:
        open_ = self.read()
        while open_[0] == DOUBLE_COLON:
            part = self.read()
            if part[0] != IDENT:
                self.error("Missing function name", "function scope resolution symbol :: must be followed by a function name in this scope", part)
                self.recover_over(OPAREN)
                return
            open_ = self.read()
        if open_[0] != OPAREN:
            self.error("Missing open parenthesis", "function selector must be followed by an open parenthesis to begin the function call", open_)
            self.recover_over(OPAREN)
            return
        self.newlines.append(False)
        while True:
            if self.peek()[0] == CPAREN:
                self.read()
                break
            before = len(self.errors)
            self.parse_expression()
            if self.recovery and len(self.errors) > before:
                self.recover(CPAREN)
                break
            sep = self.read()
            if sep[0] == CPAREN:
                break
            if sep[0] == ELLIPSIS:
                if self.peek()[0] != CPAREN:
                    if not self.recovery:
                        self.error("Missing closing parenthesis", "an expanded function argument (with ...) must be immediately followed by closing parentheses", sep)
                    self.recover(CPAREN)
                else:
                    self.read()
                break
            if sep[0] != COMMA:
                if sep[0] == EOF:
                    self.error("Unterminated function call", "there is no closing parenthesis for this function call before the end of the file", name)
                else:
                    self.error("Missing argument separator", "a comma is required to separate each function argument from the next", sep)
                self.recover(CPAREN)
                break
            if self.peek()[0] == CPAREN:
                self.read()
                break
        self.newlines.pop()

    def parse_tuple(self) -> None:
        open_ = self.read()
        self.newlines.append(False)
        try:
            if self.is_keyword(self.peek(), "for"):
                self.finish_for(open_)
                return
            while True:
                if self.peek()[0] == CBRACK:
                    self.read()
                    return
                before = len(self.errors)
                self.parse_expression()
                if self.recovery and len(self.errors) > before:
                    self.recover(CBRACK)
                    return
                nxt = self.peek()
                if nxt[0] == CBRACK:
                    self.read()
                    return
                if nxt[0] != COMMA:
                    if not self.recovery:
                        if nxt[0] == EOF:
                            self.error("Unterminated tuple constructor expression", "there is no corresponding closing bracket before the end of the file", open_)
                        else:
                            self.error("Missing item separator", "expected a comma to mark the beginning of the next item", nxt)
                    self.recover(CBRACK)
                    return
                self.read()
        finally:
            self.newlines.pop()

    def parse_object(self) -> None:
        open_ = self.read()
        self.newlines.append(False)
        is_for = self.is_keyword(self.peek(), "for")
        self.newlines.pop()
        if is_for:
            self.finish_for(open_)
            return
        self.newlines.append(True)
        try:
            while True:
                nxt = self.peek()
                if nxt[0] == NEWLINE:
                    self.read()
                    continue
                if nxt[0] == CBRACE:
                    self.read()
                    return
                before = len(self.errors)
                self.parse_expression()
                if self.recovery and len(self.errors) > before:
                    self.recover(CBRACE)
                    return
                nxt = self.peek()
                if nxt[0] != EQUAL and nxt[0] != COLON:
                    if not self.recovery:
                        if nxt[0] in (NEWLINE, COMMA):
                            self.error("Missing attribute value", 'expected an attribute value, introduced by an equals sign ("=")', nxt)
                        elif nxt[0] == EOF:
                            self.error("Unterminated object constructor expression", "there is no corresponding closing brace before the end of the file", open_)
                        else:
                            self.error("Missing key/value separator", 'expected an equals sign ("=") to mark the beginning of the attribute value', nxt)
                    self.recover(CBRACE)
                    return
                self.read()
                before = len(self.errors)
                self.parse_expression()
                if self.recovery and len(self.errors) > before:
                    self.recover(CBRACE)
                    return
                nxt = self.peek()
                if nxt[0] == CBRACE:
                    self.read()
                    return
                if nxt[0] != COMMA and nxt[0] != NEWLINE:
                    if not self.recovery:
                        if nxt[0] == EOF:
                            self.error("Unterminated object constructor expression", "there is no corresponding closing brace before the end of the file", open_)
                        else:
                            self.error("Missing attribute separator", "expected a newline or comma to mark the beginning of the next attribute", nxt)
                    self.recover(CBRACE)
                    return
                self.read()
        finally:
            self.newlines.pop()

    def finish_for(self, open_: tuple[str, int, int]) -> None:
        self.newlines.append(False)
        try:
            self._finish_for(open_)
        finally:
            self.newlines.pop()

    def _for_error(self, detail: str, close: str) -> None:
        if not self.recovery:
            self.error("Invalid 'for' expression", detail, self.peek())
        self.recover(close)

    def _finish_for(self, open_: tuple[str, int, int]) -> None:
        self.read()  # "for"
        make_object = open_[0] == OBRACE
        close = CBRACE if make_object else CBRACK
        if self.peek()[0] != IDENT:
            return self._for_error("for expression requires variable name after 'for'", close)
        self.read()
        if self.peek()[0] == COMMA:
            self.read()
            if self.peek()[0] != IDENT:
                return self._for_error("for expression requires value variable name after comma", close)
            self.read()
        if not self.is_keyword(self.peek(), "in"):
            return self._for_error("for expression requires the 'in' keyword after its name declarations", close)
        self.read()
        before = len(self.errors)
        self.parse_expression()
        if self.recovery and len(self.errors) > before:
            self.recover(close)
            return
        if self.peek()[0] != COLON:
            return self._for_error("for expression requires a colon after the collection expression", close)
        self.read()
        value_start = self.peek()
        before = len(self.errors)
        self.parse_expression()
        value_failed = len(self.errors) > before
        key_start, key_failed = None, False
        if self.peek()[0] == FAT_ARROW:
            self.read()
            key_start, key_failed = value_start, value_failed
            value_start = self.peek()
            before = len(self.errors)
            self.parse_expression()
            value_failed = len(self.errors) > before
        if self.recovery and (key_failed or value_failed):
            self.recover(close)
            return
        ellipsis = None
        if self.peek()[0] == ELLIPSIS:
            ellipsis = self.read()
        if self.is_keyword(self.peek(), "if"):
            self.read()
            before = len(self.errors)
            self.parse_expression()
            if self.recovery and len(self.errors) > before:
                self.recover(close)
                return
        if self.peek()[0] == close:
            self.read()
        else:
            if not self.recovery:
                self.error("Invalid 'for' expression", "extra characters after the end of the 'for' expression", self.peek())
            self.recover(close)
        if not make_object:
            if key_start is not None:
                self.error("Invalid 'for' expression", "key expression is not valid when building a tuple", key_start)
            if ellipsis is not None:
                self.error("Invalid 'for' expression", "grouping ellipsis (...) cannot be used when building a tuple", ellipsis)
        elif key_start is None:
            self.error("Invalid 'for' expression", "key expression is required when building an object", value_start)

    # -- strings and templates --

    def _escapes(self, tok: tuple[str, int, int]) -> None:
        """Invalid backslash escapes in a quoted literal."""
        text = self.text
        at = text.find("\\", tok[1], tok[2])
        while 0 <= at < tok[2]:
            m = _ESCAPE.match(text, at, tok[2])
            seq = m.group()
            if not _valid_escape(seq):
                self.errors.append(("Invalid escape sequence", f"the sequence {seq!r} is not a valid escape sequence", at, m.end()))
            at = text.find("\\", m.end(), tok[2])

    def parse_quoted_string_literal(self) -> None:
        """A block label: a quoted string with no template sequences."""
        self.read()  # the opening quote
        while True:
            tok = self.read()
            kind = tok[0]
            if kind == CQUOTE:
                return
            if kind == QUOTED_LIT:
                self._escapes(tok)
            elif kind == INTERP or kind == CONTROL:
                which = "$" if kind == INTERP else "%"
                self.error("Invalid string literal", f'template sequences are not allowed in this string; to include a literal "{which}", double it (as "{which}{which}") to escape it', tok)
                self.recover(SEQ_END)
            elif kind == EOF:
                self.error("Unterminated string literal", "unable to find the closing quote mark before the end of the file", tok)
                return
            else:
                self.error("Invalid string literal", "this item is not valid in a string literal", tok)
                self.recover(CQUOTE)
                return

    def parse_template(self, end: str) -> None:
        """A quoted template or heredoc, from after its opening token."""
        start = self.peek()
        parts: list[tuple[str, tuple[str, int, int]]] = []  # (lit|interp|if|for|else|endif|endfor, token)
        while True:
            nxt = self.read()
            kind = nxt[0]
            if kind == end:
                end_tok = nxt
                break
            if kind == QUOTED_LIT:
                self._escapes(nxt)
                parts.append(("lit", nxt))
            elif kind == STRING_LIT:
                parts.append(("lit", nxt))
            elif kind == INTERP:
                self.newlines.append(False)
                self.parse_expression()
                close = self.peek()
                if close[0] != SEQ_END:
                    if not self.recovery:
                        if close[0] == EOF:
                            self.error("Unclosed template interpolation sequence", "there is no closing brace for this interpolation sequence before the end of the file", start)
                        elif close[0] == COLON:
                            self.error("Extra characters after interpolation expression", 'template interpolation doesn\'t expect a colon at this location; to write a literal "${", escape it as "$${"', close)
                        elif close[0] in (CQUOTE, OQUOTE) and end == CQUOTE:
                            self.error("Unclosed template interpolation sequence", "there is no closing brace for this interpolation sequence before the end of the quoted template", start)
                        else:
                            self.error("Extra characters after interpolation expression", 'expected a closing brace to end the interpolation expression, but found extra characters; to write a literal "${", escape it as "$${"', close)
                    self.recover(SEQ_END)
                else:
                    self.read()
                self.newlines.pop()
                parts.append(("interp", nxt))
            elif kind == CONTROL:
                self.newlines.append(False)
                self._directive(nxt, parts)
                self.newlines.pop()
            else:
                if not self.recovery:
                    self.error("Unterminated template string", "no closing marker was found for the string", nxt)
                end_tok = self.recover(end)
                break
        parts.append(("end", end_tok))
        _TemplateStructure(parts, self.errors).parse_root()

    def _directive(self, opener: tuple[str, int, int], parts: list) -> None:
        keyword = self.peek()
        if keyword[0] != IDENT:
            if not self.recovery:
                self.error("Invalid template directive", 'a template directive keyword ("if", "for", etc) is expected at the beginning of a %{ sequence', keyword)
            self.recover(SEQ_END)
            return
        self.read()
        word = self.text[keyword[1] : keyword[2]]
        if word == "if":
            self.parse_expression()
            parts.append(("if", opener))
        elif word in ("else", "endif", "endfor"):
            parts.append((word, opener))
        elif word == "for":
            if self.peek()[0] != IDENT:
                return self._for_directive_error("for directive requires variable name after 'for'")
            self.read()
            if self.peek()[0] == COMMA:
                self.read()
                if self.peek()[0] != IDENT:
                    return self._for_directive_error("for directive requires value variable name after comma")
                self.read()
            if not self.is_keyword(self.peek(), "in"):
                return self._for_directive_error("for directive requires 'in' keyword after names")
            self.read()
            self.parse_expression()
            parts.append(("for", opener))
        else:
            if not self.recovery:
                self.error("Invalid template control keyword", f'"{word}" is not a valid template control keyword', keyword)
            self.recover(SEQ_END)
            return
        close = self.peek()
        if close[0] != SEQ_END:
            if not self.recovery:
                self.error(f"Extra characters in {word} marker", "expected a closing brace to end the sequence, but found extra characters", close)
            self.recover(SEQ_END)
        else:
            self.read()

    def _for_directive_error(self, detail: str) -> None:
        if not self.recovery:
            self.error("Invalid 'for' directive", detail, self.peek())
        self.recover(SEQ_END)


def _valid_escape(seq: str) -> bool:
    if len(seq) < 2:
        return False
    selector = seq[1]
    if selector in 'nrt"\\':
        return True
    if selector in "uU":
        digits = seq[2:]
        if len(digits) != (4 if selector == "u" else 8):
            return False
        value = int(digits, 16)
        return value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF
    return False


class _TemplateStructure:
    """The pairing of a template's ``%{ if }``/``%{ for }`` directives with their ends."""

    def __init__(self, parts: list, errors: list):
        self.parts = parts
        self.pos = 0
        self.errors = errors

    def peek(self):
        return self.parts[self.pos]

    def read(self):
        part = self.parts[self.pos]
        if part[0] != "end":
            self.pos += 1
        return part

    def error(self, summary: str, detail: str, tok) -> None:
        self.errors.append((summary, detail, tok[1], tok[2]))

    def parse_root(self) -> None:
        while self.peek()[0] != "end":
            self.parse_part()

    def parse_part(self) -> None:
        kind, tok = self.peek()
        if kind in ("lit", "interp"):
            self.read()
        elif kind == "if":
            self.parse_if()
        elif kind == "for":
            self.parse_for()
        elif kind == "end":
            self.read()
            self.error("Unexpected end of template", "the control directives within this template are unbalanced", tok)
        else:
            self.read()
            self.error(f"Unexpected {kind} directive", "the control directives within this template are unbalanced", tok)

    def parse_if(self) -> None:
        self.read()
        in_else = False
        while True:
            kind, tok = self.peek()
            if kind == "end":
                self.error("Unexpected end of template", "the if directive is missing its corresponding endif directive", tok)
                return
            if kind in ("else", "endif", "endfor"):
                self.read()
                if kind == "else" and not in_else:
                    in_else = True
                    continue
                if kind == "endif":
                    return
                if kind == "else":
                    self.error("Unexpected else directive", "already in the else clause for this if", tok)
                else:
                    self.error(f"Unexpected {kind} directive", "expecting an endif directive for this if", tok)
                return
            self.parse_part()

    def parse_for(self) -> None:
        self.read()
        while True:
            kind, tok = self.peek()
            if kind == "end":
                self.error("Unexpected end of template", "the for directive is missing its corresponding endfor directive", tok)
                return
            if kind in ("else", "endif", "endfor"):
                self.read()
                if kind == "endfor":
                    return
                if kind == "else":
                    self.error("Unexpected else directive", "an else clause is not expected for a for directive", tok)
                else:
                    self.error(f"Unexpected {kind} directive", "expecting an endfor directive for this for", tok)
                return
            self.parse_part()


# ---- entry point --------------------------------------------------------------------------


def hcl_errors(source: bytes) -> list[HclError] | None:
    """The syntax errors Terraform reports for a native-syntax file, in Terraform's order
    (by position); ``[]`` when Terraform accepts the file's syntax. None when this check cannot
    say (the file is not UTF-8, or nests deeper than Python's recursion allows)."""
    offset = 3 if source.startswith(b"\xef\xbb\xbf") else 0
    try:
        text = source[offset:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    tokens = scan(text)
    found: list[tuple[str, str, int, int]] = []
    _invalid_tokens(tokens, text, found)
    parser = _Parser(text, tokens)
    try:
        parser.parse_body(EOF)
    except RecursionError:
        return None
    found.extend(parser.errors)
    found.sort(key=lambda e: (e[2], e[3]))
    if not found:
        return []
    # Character offsets to byte offsets, for the few errors there are.
    return [HclError(summary, detail, _byte(text, start, offset), _byte(text, end, offset))
            for summary, detail, start, end in found]


def _byte(text: str, index: int, offset: int) -> int:
    return offset + len(text[:index].encode("utf-8"))
