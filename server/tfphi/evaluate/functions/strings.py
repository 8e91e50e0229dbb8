"""String functions (Terraform's lang/funcs/string.go and cty's stdlib strings)."""

from __future__ import annotations

import re
import unicodedata

from ...values.value import TfEvalError, Value
from .registry import _fn
from .regex import _compile_re2, _expand_template, _go_finditer
from .arguments import _str, _int, _strlist


# ---------------------------------------------------------------------------------------------
# Unicode helpers: Terraform counts grapheme clusters; this approximation joins combining marks,
# zero-width joiner sequences, variation selectors, emoji modifiers, regional-indicator pairs and
# CR LF.


def _is_extender(char: str) -> bool:
    code = ord(char)
    if 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F:
        return True
    return unicodedata.category(char) in ("Mn", "Me", "Mc") or code == 0x200D


def _graphemes(text: str) -> list[str]:
    clusters: list[str] = []
    for char in text:
        if clusters:
            last = clusters[-1]
            code = ord(char)
            if (
                _is_extender(char)
                or last[-1] == "\u200d"
                or (char == "\n" and last == "\r")
                or (
                    0x1F1E6 <= code <= 0x1F1FF
                    and 0x1F1E6 <= ord(last[0]) <= 0x1F1FF
                    and len(last) == 1
                )
            ):
                clusters[-1] = last + char
                continue
        clusters.append(char)
    return clusters


# ---------------------------------------------------------------------------------------------
# String functions


def _go_upper(text: str) -> str:
    return "".join(u if len(u := c.upper()) == 1 else c for c in text)


def _go_lower(text: str) -> str:
    return "".join(l if len(l := c.lower()) == 1 else c for c in text)


@_fn("lower", 1)
def _lower(args: list[Value]) -> Value:
    return _go_lower(_str(args[0], "str"))


@_fn("upper", 1)
def _upper(args: list[Value]) -> Value:
    return _go_upper(_str(args[0], "str"))


def _is_word_separator(char: str) -> bool:
    if char.isascii():
        return not (char.isalnum() or char == "_")
    if char.isalpha() or char.isdigit():
        return False
    return char.isspace()


@_fn("title", 1)
def _title(args: list[Value]) -> Value:
    text = _str(args[0], "str")
    out = []
    previous = " "
    for char in text:
        if _is_word_separator(previous):
            title = char.title()
            out.append(title if len(title) == 1 else char)
        else:
            out.append(char)
        previous = char
    return "".join(out)


_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


@_fn("trimspace", 1)
def _trimspace(args: list[Value]) -> Value:
    return _str(args[0], "str").strip(_GO_SPACE)


@_fn("trim", 2)
def _trim(args: list[Value]) -> Value:
    return _str(args[0], "str").strip(_str(args[1], "cutset"))


@_fn("trimprefix", 2)
def _trimprefix(args: list[Value]) -> Value:
    return _str(args[0], "str").removeprefix(_str(args[1], "prefix"))


@_fn("trimsuffix", 2)
def _trimsuffix(args: list[Value]) -> Value:
    return _str(args[0], "str").removesuffix(_str(args[1], "suffix"))


@_fn("chomp", 1)
def _chomp(args: list[Value]) -> Value:
    return re.sub(r"(?:\r\n|\r|\n)+\Z", "", _str(args[0], "str"))


@_fn("strrev", 1)
def _strrev(args: list[Value]) -> Value:
    return "".join(reversed(_graphemes(_str(args[0], "str"))))


@_fn("indent", 2)
def _indent(args: list[Value]) -> Value:
    spaces = _int(args[0], "spaces")
    if spaces < 0:
        raise TfEvalError("spaces must not be negative")
    return _str(args[1], "str").replace("\n", "\n" + " " * spaces)


@_fn("startswith", 2)
def _startswith(args: list[Value]) -> Value:
    return _str(args[0], "str").startswith(_str(args[1], "prefix"))


@_fn("endswith", 2)
def _endswith(args: list[Value]) -> Value:
    return _str(args[0], "str").endswith(_str(args[1], "suffix"))


@_fn("strcontains", 2)
def _strcontains(args: list[Value]) -> Value:
    return _str(args[1], "substr") in _str(args[0], "str")


@_fn("split", 2)
def _split(args: list[Value]) -> Value:
    sep = _str(args[0], "separator")
    text = _str(args[1], "str")
    if sep == "":
        return list(text)
    return text.split(sep)


@_fn("join", 2, None)
def _join(args: list[Value]) -> Value:
    sep = _str(args[0], "separator")
    items: list[str] = []
    for index, value in enumerate(args[1:]):
        items.extend(_strlist(value, f"lists[{index}]"))
    return sep.join(items)


@_fn("substr", 3)
def _substr(args: list[Value]) -> Value:
    clusters = _graphemes(_str(args[0], "str"))
    offset = _int(args[1], "offset")
    length = _int(args[2], "length")
    if offset < 0:
        offset = max(len(clusters) + offset, 0)
    if offset > len(clusters):
        return ""
    rest = clusters[offset:]
    if length < 0:
        return "".join(rest)
    return "".join(rest[:length])


@_fn("replace", 3)
def _replace(args: list[Value]) -> Value:
    text = _str(args[0], "str")
    substr = _str(args[1], "substr")
    replacement = _str(args[2], "replace")
    if len(substr) > 1 and substr[0] == "/" and substr[-1] == "/":
        pattern = _compile_re2(substr[1:-1])
        out: list[str] = []
        position = 0
        for match in _go_finditer(pattern, text):
            out.append(text[position : match.start()])
            out.append(_expand_template(replacement, match))
            position = match.end()
        out.append(text[position:])
        return "".join(out)
    return text.replace(substr, replacement)
