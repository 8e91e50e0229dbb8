"""String functions (Terraform's lang/funcs/string.go and cty's stdlib strings)."""

from __future__ import annotations

import re
import unicodedata

from ...values.value import TfEvalError, TfUnrepresentable, Value
from .spec import builtin
from .regex import compile_re2, go_replace_all
from .arguments import str_arg, int_arg, string_list_arg


# ---------------------------------------------------------------------------------------------
# Unicode helpers: Terraform counts grapheme clusters; this approximation joins combining marks,
# zero-width joiner sequences, variation selectors, emoji modifiers, regional-indicator pairs and
# CR LF.


def _is_extender(char: str) -> bool:
    code = ord(char)
    if 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F:
        return True
    return unicodedata.category(char) in ("Mn", "Me", "Mc") or code == 0x200D


def graphemes(text: str) -> list[str]:
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


# Go's strings.ToLower/ToUpper map rune by rune with unicode.ToLower/ToUpper: Unicode's simple
# case mappings (one rune to one rune, no context: "ΣΑΣ" lowers to "σασ"). Python's str.lower and
# str.upper apply the full mappings: where a full mapping has several runes, the simple one is
# either none (ß, ŉ, ǰ, ﬁ keep their case) or, for İ and the Greek letters with iota
# subscript, the single rune below.
_SIMPLE_LOWER = {"\u0130": "i"}


def _go_lower_rune(char: str) -> str:
    lowered = char.lower()
    return lowered if len(lowered) == 1 else _SIMPLE_LOWER.get(char, char)


def _go_upper_rune(char: str) -> str:
    upper = char.upper()
    if len(upper) == 1:
        return upper
    title = char.title()  # ᾀ -> ᾈ: the simple uppercase of a letter with iota subscript is its titlecase
    return title if len(title) == 1 else char


def go_title_rune(char: str) -> str:
    """unicode.ToTitle: the simple titlecase mapping (ǆ -> ǅ; ß and ﬁ have none)."""
    title = char.title()
    return title if len(title) == 1 else char


def _go_upper(text: str) -> str:
    return text.upper() if text.isascii() else "".join(map(_go_upper_rune, text))


def _go_lower(text: str) -> str:
    return text.lower() if text.isascii() else "".join(map(_go_lower_rune, text))


@builtin("lower", 1, params=("str: string",))
def _lower(args: list[Value]) -> Value:
    return _go_lower(str_arg(args[0], "str"))


@builtin("upper", 1, params=("str: string",))
def _upper(args: list[Value]) -> Value:
    return _go_upper(str_arg(args[0], "str"))


def _is_word_separator(char: str) -> bool:
    """Go's strings.Title word separators: not ASCII alphanumerics or _, not letters or decimal digits, but spaces."""
    if char.isascii():
        return not (char.isalnum() or char == "_")
    if char.isalpha() or unicodedata.category(char) == "Nd":
        return False
    return char in _GO_SPACE


@builtin("title", 1, params=("str: string",))
def _title(args: list[Value]) -> Value:
    text = str_arg(args[0], "str")
    out = []
    previous = " "
    for char in text:
        if _is_word_separator(previous):
            out.append(go_title_rune(char))
        else:
            out.append(char)
        previous = char
    return "".join(out)


_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


@builtin("trimspace", 1, params=("str: string",))
def _trimspace(args: list[Value]) -> Value:
    return str_arg(args[0], "str").strip(_GO_SPACE)


@builtin("trim", 2, params=("str: string", "cutset: string"))
def _trim(args: list[Value]) -> Value:
    return str_arg(args[0], "str").strip(str_arg(args[1], "cutset"))


@builtin("trimprefix", 2, params=("str: string", "prefix: string"))
def _trimprefix(args: list[Value]) -> Value:
    return str_arg(args[0], "str").removeprefix(str_arg(args[1], "prefix"))


@builtin("trimsuffix", 2, params=("str: string", "suffix: string"))
def _trimsuffix(args: list[Value]) -> Value:
    return str_arg(args[0], "str").removesuffix(str_arg(args[1], "suffix"))


@builtin("chomp", 1, params=("str: string",))
def _chomp(args: list[Value]) -> Value:
    return re.sub(r"(?:\r\n|\r|\n)+\Z", "", str_arg(args[0], "str"))


@builtin("strrev", 1, params=("str: string",))
def _strrev(args: list[Value]) -> Value:
    return "".join(reversed(graphemes(str_arg(args[0], "str"))))


@builtin("indent", 2, params=("spaces: number", "str: string"))
def _indent(args: list[Value]) -> Value:
    spaces = int_arg(args[0], "spaces")
    text = str_arg(args[1], "str")
    if spaces < 0 or spaces >= 2**48:  # Go's strings.Repeat panics before any line is read
        raise TfEvalError("spaces must be between 0 and 2**48 (strings.Repeat fails)")
    if "\n" not in text:
        return text
    if spaces > 10**7:
        raise TfUnrepresentable("indent(): the result is larger than tfphi holds")
    return text.replace("\n", "\n" + " " * spaces)


@builtin("startswith", 2, params=("str: string", "prefix: string"))
def _startswith(args: list[Value]) -> Value:
    return str_arg(args[0], "str").startswith(str_arg(args[1], "prefix"))


@builtin("endswith", 2, params=("str: string", "suffix: string"))
def _endswith(args: list[Value]) -> Value:
    return str_arg(args[0], "str").endswith(str_arg(args[1], "suffix"))


@builtin("strcontains", 2, params=("str: string", "substr: string"))
def _strcontains(args: list[Value]) -> Value:
    return str_arg(args[1], "substr") in str_arg(args[0], "str")


@builtin("split", 2, params=("separator: string", "str: string"), returns="list(string)")
def _split(args: list[Value]) -> Value:
    sep = str_arg(args[0], "separator")
    text = str_arg(args[1], "str")
    if sep == "":
        return list(text)
    return text.split(sep)


@builtin("join", 2, None, params=("separator: string",), variadic="lists: list(string)")
def _join(args: list[Value]) -> Value:
    sep = str_arg(args[0], "separator")
    items: list[str] = []
    for index, value in enumerate(args[1:]):
        items.extend(string_list_arg(value, f"lists[{index}]"))
    return sep.join(items)


@builtin("substr", 3, params=("str: string", "offset: number", "length: number"))
def _substr(args: list[Value]) -> Value:
    clusters = graphemes(str_arg(args[0], "str"))
    offset = int_arg(args[1], "offset")
    length = int_arg(args[2], "length")
    # cty's substr, step for step: a negative offset counts from the end (and may stay negative:
    # then from the start); a zero length is "" only for an offset that was not negative, for a
    # negative one the seek below runs to the end
    if offset < 0:
        offset += len(clusters)
    elif length == 0:
        return ""
    rest = clusters
    if offset > 0:
        if offset > len(clusters):
            return ""
        rest = clusters[offset:]
    if length <= 0:
        return "".join(rest)
    return "".join(rest[:length])


@builtin("replace", 3, params=("str: string", "substr: string", "replace: string"))
def _replace(args: list[Value]) -> Value:
    text = str_arg(args[0], "str")
    substr = str_arg(args[1], "substr")
    replacement = str_arg(args[2], "replace")
    if len(substr) > 1 and substr[0] == "/" and substr[-1] == "/":
        return go_replace_all(compile_re2(substr[1:-1]), text, replacement)
    return text.replace(substr, replacement)


# The family's built-ins, for the registry.
SPECS = (_lower, _upper, _title, _trimspace, _trim, _trimprefix, _trimsuffix, _chomp, _strrev, _indent,
         _startswith, _endswith, _strcontains, _split, _join, _substr, _replace)
