"""HCL's scanner, as ``hclsyntax``'s ``scan_tokens.rl`` reads a native-syntax file.

tree-sitter-hcl stays the parser of everything; two things need the tokens HCL itself makes:

- the syntax-error checker (``syntax_errors``), which decides errors as ``hclsyntax`` does;
- number literals: tree-sitter-hcl 1.2.0 takes an exponent only after a fraction, so it
  reads ``3e3`` as the number ``3`` followed by the name ``e3`` (a false syntax error, a
  reference to nothing, an argument lost), where HCL's scanner reads one number, 3000.
  ``tree_sitter_spelling`` spells each such literal as digits of the same length before
  tree-sitter parses the text (``3e3`` as ``303``): every byte offset stays where it was,
  tree-sitter sees one numeric literal, and the literal's value is read from the real
  bytes (``syntax.expr``). A template's ``$$${`` is respelled the same way (HCL: ``$``
  then the escape ``$${``; tree-sitter: ``$$`` then an interpolation). See docs/hcl-syntax.md.
"""

from __future__ import annotations

from ..lazy_re import lazy_compile

# Token types, with the mnemonic characters hclsyntax itself uses for them.
OBRACE, CBRACE, OBRACK, CBRACK, OPAREN, CPAREN = "{", "}", "[", "]", "(", ")"
OQUOTE, CQUOTE, OHEREDOC, CHEREDOC = "«", "»", "H", "h"
EQUAL, COLON, COMMA, DOT, QUESTION, STAR = "=", ":", ",", ".", "?", "*"
DOUBLE_COLON, ELLIPSIS, FAT_ARROW = "⸬", "…", "⇒"
INTERP, CONTROL, SEQ_END = "∫", "λ", "∎"
QUOTED_LIT, STRING_LIT, NUMBER, IDENT, NEWLINE, EOF = "Q", "S", "N", "I", "\n", "␄"
INVALID, QUOTED_NEWLINE = "�", "␤"
MINUS, BANG = "-", "!"

_TWO_CHAR = {"==": "≔", "!=": "≠", ">=": "≥", "<=": "≤", "&&": "∧", "||": "∨", "::": DOUBLE_COLON,
             "...": ELLIPSIS, "=>": FAT_ARROW}


_NUMBER = r"[0-9](?:(?:[0-9.]|[eE][+-]?[0-9])*(?:[0-9]|[eE][+-]?[0-9]))?"
_IDENT = r"[^\W\d][\w-]*"
_MAIN = lazy_compile(
    r"(?P<sp>[ \t]+)"
    rf"|(?P<N>{_NUMBER})"
    rf"|(?P<I>{_IDENT})"
    r"|(?P<C>#[^\n]*\n?|//[^\n]*\n?|/\*[\s\S]*?\*/)"
    r"|(?P<NL>\r?\n)"
    rf"|(?P<H><<-?(?P<marker>{_IDENT})\r?\n)"
    r"|(?P<two>==|!=|>=|<=|&&|\|\||::|\.\.\.|=>)"
    r"|(?P<seqend>~\})"
    r"|(?P<one>[\[\]().,*/%+\-=<>!?:&|~^;`'])"
    r'|(?P<ob>\{)|(?P<cb>\})|(?P<q>")'
    r"|(?P<x>[\s\S])"
)
_STRING = lazy_compile(
    r"(?P<ti>\$\{~?)|(?P<tc>%\{~?)|(?P<cq>\")"
    r"|(?P<lit>\$\$\{~?|%%\{~?|[$%]|(?:\\[^\r\n]|[^$%\"\\\r\n])+)"
    r"|(?P<nl>[\r\n]+)"
    r"|(?P<x>[\s\S])"
)
_HEREDOC = lazy_compile(
    r"(?P<ti>\$\{~?)|(?P<tc>%\{~?)"
    r"|(?P<eol>[^$%\r\n]*\r?\n)"
    r"|(?P<lit>\$\$\{~?|%%\{~?|[$%]|[^$%\r\n]+|\r)"
)


def scan(text: str) -> list[tuple[str, int, int]]:
    """The tokens of ``text`` as hclsyntax's scanner makes them: (type, start, end), character
    offsets, spaces and comments dropped (a line comment as the newline that ends it), a final
    EOF token."""
    tokens: list[tuple[str, int, int]] = []
    emit = tokens.append
    pos, n = 0, len(text)
    modes: list[str] = ["main"]  # the scanner's call stack: main, string, heredoc
    braces = 0
    ret_braces: list[int] = []  # brace depth at which a "}" ends an interpolation
    heredocs: list[list] = []  # [marker, at start of a line]
    main_match, string_match, heredoc_match = _MAIN.match, _STRING.match, _HEREDOC.match
    while pos < n:
        mode = modes[-1]
        if mode == "main":
            m = main_match(text, pos)
            kind = m.lastgroup
            end = m.end()
            if kind == "sp":
                pass
            elif kind == "N":
                emit((NUMBER, pos, end))
            elif kind == "I":
                emit((IDENT, pos, end))
            elif kind == "C":
                # The parser skips comments, but a line comment ends its line: it stands for the
                # newline it swallowed (hclsyntax's peeker does the same).
                if text[end - 1] == "\n":
                    emit((NEWLINE, pos, end))
            elif kind == "NL":
                emit((NEWLINE, pos, end))
            elif kind == "one":
                emit((text[pos], pos, end))
            elif kind == "two":
                emit((_TWO_CHAR[text[pos:end]], pos, end))
            elif kind == "ob":
                emit((OBRACE, pos, end))
                braces += 1
            elif kind == "cb" or kind == "seqend":
                if ret_braces and ret_braces[-1] == braces:
                    emit((SEQ_END, pos, end))
                    braces -= 1
                    ret_braces.pop()
                    modes.pop()
                else:
                    # "~}" is always a sequence end: the parser reports the misuse.
                    emit((SEQ_END if kind == "seqend" else CBRACE, pos, end))
                    braces -= 1
            elif kind == "q":
                emit((OQUOTE, pos, end))
                modes.append("string")
            elif kind == "H" or kind == "marker":
                emit((OHEREDOC, pos, end))
                heredocs.append([m.group("marker"), True])
                modes.append("heredoc")
            else:
                emit((INVALID, pos, end))
            pos = end
            continue
        if mode == "string":
            m = string_match(text, pos)
            kind = m.lastgroup
            end = m.end()
            if kind == "lit":
                emit((QUOTED_LIT, pos, end))
            elif kind == "cq":
                emit((CQUOTE, pos, end))
                modes.pop()
            elif kind == "ti" or kind == "tc":
                emit((INTERP if kind == "ti" else CONTROL, pos, end))
                braces += 1
                ret_braces.append(braces)
                modes.append("main")
            elif kind == "nl":
                emit((QUOTED_NEWLINE, pos, end))
            else:
                emit((INVALID, pos, end))
            pos = end
            continue
        # heredoc
        m = heredoc_match(text, pos)
        kind = m.lastgroup
        end = m.end()
        top = heredocs[-1]
        if kind == "eol":
            if top[1] and text[pos:end].strip() == top[0]:
                # The closing marker, then its newline as a token of its own.
                nl = end - 2 if text[end - 2 : end] == "\r\n" else end - 1
                emit((CHEREDOC, pos, nl))
                emit((NEWLINE, nl, end))
                heredocs.pop()
                modes.pop()
            else:
                top[1] = True
                emit((STRING_LIT, pos, end))
        elif kind == "lit":
            top[1] = False
            emit((STRING_LIT, pos, end))
        else:
            emit((INTERP if kind == "ti" else CONTROL, pos, end))
            braces += 1
            ret_braces.append(braces)
            top[1] = False
            modes.append("main")
        pos = end
    emit((EOF, n, n))
    return tokens



# ---- tokens tree-sitter-hcl reads otherwise ---------------------------------------------------

# tree-sitter-hcl 1.2.0's numeric literal is ``[0-9]+(\.[0-9]+([eE][+-]?[0-9]+)?)?``: an exponent
# right after the integer part (``3e3``) or after a bare dot (``1.e3``, 1000) ends its token.
_SPLIT_NUMBER = lazy_compile(r"[0-9]+\.?[eE][+-]?[0-9]+\Z")
# What such tokens look like once every digit and sign is spelled 0 and E as e: the cheap test
# (a byte translation and a few substring searches, well under a millisecond for 80 KB where a
# regular expression takes several) that spares a scan of the files that have none (most).
_CANDIDATE_SPELLING = bytes.maketrans(b"123456789+-E", b"00000000000e")
_CANDIDATES = (b"0e0", b"0.e0")
_EXPONENT_BYTES = frozenset(b".eE+-")
_LONGEST_CANDIDATE = 4  # bytes: "0.e0", "$$${", "%%%{"
_LITERALS = frozenset((QUOTED_LIT, STRING_LIT))


def may_respell(source: bytes) -> bool:
    """Whether ``source`` may hold a token of ``respelled_tokens`` (a test of its bytes, no scan)."""
    if b"$$${" in source or b"%%%{" in source:
        return True
    spelled = source.translate(_CANDIDATE_SPELLING)
    return any(candidate in spelled for candidate in _CANDIDATES)


def may_respell_near(source: bytes, start: int, end: int) -> bool:
    """``may_respell`` of the bytes of ``source`` an edit wrote at ``[start, end)`` and the few
    around it that a token there may share: together with a text that could not respell before
    the edit, whether the edited text may (a test of the edit's bytes, not of the file's)."""
    return may_respell(source[max(0, start - _LONGEST_CANDIDATE) : end + _LONGEST_CANDIDATE])


def respelled_tokens(source: bytes) -> list[tuple[int, int]]:
    """The byte ranges of the tokens HCL's scanner reads and tree-sitter-hcl would read otherwise:
    number literals with an exponent and no fraction (``3e3``, ``1E+6``, ``1.e3``; tree-sitter
    splits them), and a template's lone ``$``/``%`` before the escape ``$${``/``%%{`` (tree-sitter
    reads ``$$`` and an interpolation)."""
    if not may_respell(source):
        return []
    text = source.decode("utf-8", "replace")
    ascii_only = len(text) == len(source)
    found = []
    tokens = scan(text)
    for i, (kind, start, end) in enumerate(tokens):
        if kind == NUMBER:
            if not _SPLIT_NUMBER.match(text, start, end):
                continue
        elif kind not in _LITERALS or end - start != 1 or text[start] not in "$%":
            continue
        else:
            after = tokens[i + 1]
            if after[0] not in _LITERALS or not text.startswith(text[start] * 2 + "{", after[1]):
                continue
        # Character offsets to byte offsets; these tokens are ASCII, as many bytes as characters.
        at = start if ascii_only else len(text[:start].encode("utf-8", "replace"))
        found.append((at, at + end - start))
    return found


def tree_sitter_spelling(source: bytes) -> bytes:
    """``source`` as tree-sitter-hcl must read it to see HCL's tokens: each number of
    ``respelled_tokens`` as digits of the same length (``3e3`` as ``303``), each lone ``$``/``%``
    as a plain letter (``x$${``); byte offsets unchanged; ``source`` itself (the same object)
    when nothing needs it."""
    spans = respelled_tokens(source)
    if not spans:
        return source
    spelled = bytearray(source)
    for start, end in spans:
        if spelled[start] in b"$%":
            spelled[start] = 0x78  # "x"
            continue
        for i in range(start, end):
            if spelled[i] in _EXPONENT_BYTES:
                spelled[i] = 0x30  # "0"
    return bytes(spelled)
