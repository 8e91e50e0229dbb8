"""Terraform's built-in functions over the plain-Python value model of :mod:`tfphi.trace.values`.

Every function receives already-evaluated argument values and returns a value, or raises
:class:`TfEvalError` (Terraform rejects the call) or :class:`TfUnrepresentable` (Terraform has a
value tfphi cannot hold). Functions that need lazy evaluation of their arguments (``try``,
``can``) are tracer strategies, and provider-defined functions (``provider::aws::arn_parse``)
are unknown. Every function here is checked against ``terraform console`` (tests/oracle).

Terraform's automatic conversions apply to primitive parameters: a number or bool passed where a
string is expected becomes its string form, a numeric string passed where a number is expected
becomes that number, and ``"true"``/``"false"`` become bools.  Null is rejected unless the
function accepts it (``tostring(null)`` is null, ``merge`` skips nulls, ``coalesce`` skips them).
"""

from __future__ import annotations

import functools
import importlib
import io
import json
import math
import posixpath
import re
import unicodedata
from decimal import Decimal
from typing import Any, Callable

from ..records import record


class _Deferred:
    """A module imported when one of its names is first read: most checks call none of the
    functions that need these, and importing them (PyYAML compiles large regular expressions)
    was most of this module's import, which every traced function call pays."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)  # read from the instance from now on
        return value


base64 = _Deferred("base64")
csv = _Deferred("csv")
_dt = _Deferred("datetime")
hashlib = _Deferred("hashlib")
ipaddress = _Deferred("ipaddress")
_uuid = _Deferred("uuid")
yaml = _Deferred("yaml")  # PyYAML, a declared dependency: yamldecode
_urlparse = _Deferred("urllib.parse")
_DEFERRED = (base64, csv, _dt, hashlib, ipaddress, _uuid, yaml, _urlparse)


def import_deferred() -> None:
    """Imports every module this one defers (for a process that would rather pay it up front: the server)."""
    for module in _DEFERRED:
        importlib.import_module(module._name)

from tfphi.trace.values import (
    TfEvalError,
    TfSet,
    TfUnrepresentable,
    arithmetic,
    Value,
    format_number,
    is_number,
    nfc_value,
    normalize_number,
    to_number,
    to_string,
    type_name,
    value_key,
    values_equal,
)

__all__ = ["FUNCTIONS", "FunctionSpec", "UnknownFunction", "call_function"]


class UnknownFunction(Exception):
    """Raised for a function name Terraform does not define (or that tfphi cannot evaluate)."""

    def __init__(self, name: str):
        super().__init__(f'there is no function named "{name}"')
        self.name = name


@record(frozen=True)
class FunctionSpec:
    name: str
    impl: Callable[[list[Value]], Value]
    min_args: int
    max_args: int | None
    elementwise: bool
    nondeterministic: bool


FUNCTIONS: dict[str, FunctionSpec] = {}


def call_function(name: str, args: list[Value]) -> Value:
    """Call the built-in ``name`` on evaluated ``args``.

    Raises :class:`UnknownFunction` for names not in :data:`FUNCTIONS`, :class:`TfEvalError`
    where Terraform rejects the call (a wrong number of arguments, invalid argument types or
    values) and :class:`TfUnrepresentable` where Terraform has a value tfphi cannot hold. Any
    other exception is a bug in tfphi, never read as "Terraform rejects this".
    """
    spec = FUNCTIONS.get(name)
    if spec is None:
        raise UnknownFunction(name)
    count = len(args)
    if count < spec.min_args or (spec.max_args is not None and count > spec.max_args):
        raise TfEvalError(f"{name}: {_arity_text(spec)}; got {count}")
    try:
        return nfc_value(spec.impl(list(args)))
    except TfEvalError as exc:
        message = str(exc)
        if message.startswith(f"{name}: "):
            raise
        raise TfEvalError(f"{name}: {message}") from None


def _arity_text(spec: FunctionSpec) -> str:
    def plural(n: int) -> str:
        return f"{n} argument" + ("" if n == 1 else "s")

    if spec.max_args is None:
        return f"expects at least {plural(spec.min_args)}"
    if spec.min_args == spec.max_args:
        return f"expects exactly {plural(spec.min_args)}"
    return f"expects {spec.min_args} to {plural(spec.max_args)}"


_SAME = -1


def _fn(
    name: str,
    min_args: int,
    max_args: int | None = _SAME,
    *,
    elementwise: bool = True,
    nondeterministic: bool = False,
) -> Callable[[Callable[..., Value]], Callable[..., Value]]:
    """Register ``impl(args)`` as the built-in ``name``."""

    def register(impl: Callable[..., Value]) -> Callable[..., Value]:
        FUNCTIONS[name] = FunctionSpec(
            name=name,
            impl=impl,
            min_args=min_args,
            max_args=min_args if max_args == _SAME else max_args,
            elementwise=elementwise and not nondeterministic,
            nondeterministic=nondeterministic,
        )
        return impl

    return register


# ---------------------------------------------------------------------------------------------
# Argument conversion helpers


_NUMBER_TEXT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _not_null(value: Value, what: str) -> None:
    if value is None:
        raise TfEvalError(f"{what} must not be null")


def _str(value: Value, what: str = "argument") -> str:
    _not_null(value, what)
    if isinstance(value, (list, dict)):
        raise TfEvalError(f"{what} must be a string, not {type_name(value)}")
    return to_string(value)


def _num(value: Value, what: str = "argument") -> int | float:
    _not_null(value, what)
    if isinstance(value, bool) or isinstance(value, (list, dict)):
        raise TfEvalError(f"{what} must be a number, not {type_name(value)}")
    if isinstance(value, str):
        if not _NUMBER_TEXT.fullmatch(value):
            raise TfEvalError(f'{what} must be a number; cannot convert "{value}" to number')
        return to_number(value)
    return normalize_number(value)


def _int(value: Value, what: str = "argument") -> int:
    number = _num(value, what)
    if isinstance(number, float):
        raise TfEvalError(f"{what} must be a whole number, got {format_number(number)}")
    return number


def _bool(value: Value, what: str = "argument") -> bool:
    _not_null(value, what)
    if isinstance(value, bool):
        return value
    if value == "true":
        return True
    if value == "false":
        return False
    if isinstance(value, str):
        raise TfEvalError(f'{what} must be a bool; cannot convert "{value}" to bool')
    raise TfEvalError(f"{what} must be a bool, not {type_name(value)}")


def _list(value: Value, what: str = "argument") -> list:
    _not_null(value, what)
    if not isinstance(value, list):
        raise TfEvalError(f"{what} must be a list, set or tuple, not {type_name(value)}")
    return value


def _sequence(value: Value, what: str = "argument") -> list:
    """A list or tuple: Terraform rejects a set where an element's position matters."""
    items = _list(value, what)
    if isinstance(items, TfSet):
        raise TfEvalError(f"{what} must be a list or tuple, not a set (a set's elements have no position)")
    return items


def _obj(value: Value, what: str = "argument") -> dict:
    _not_null(value, what)
    if not isinstance(value, dict):
        raise TfEvalError(f"{what} must be a map or object, not {type_name(value)}")
    return value


def _strlist(value: Value, what: str = "argument") -> list[str]:
    return [_str(item, f"element {i} of {what}") for i, item in enumerate(_list(value, what))]


def _numlist(value: Value, what: str = "argument") -> list[int | float]:
    return [_num(item, f"element {i} of {what}") for i, item in enumerate(_list(value, what))]


def _number_result(value: int | float) -> int | float:
    if isinstance(value, float) and math.isnan(value):
        raise TfEvalError("result is not a number (NaN)")
    return normalize_number(value)


def _unify(values: list[Value], what: str) -> list[Value]:
    """Convert primitive elements to a common type, as Terraform does for lists/sets/maps.

    Mixed strings with numbers/bools become strings; numbers mixed with bools are an error.
    Collections are left as they are (structural unification is not modelled).
    """
    kinds = {type_name(v) for v in values if v is not None}
    if len(kinds) <= 1:
        return list(values)
    if kinds & {"list", "object"}:
        raise TfEvalError(f"{what}: all elements must have the same type, got {', '.join(sorted(kinds))}")
    if "string" in kinds:
        return [None if v is None else to_string(v) for v in values]
    raise TfEvalError(f"{what}: all elements must have the same type, got {', '.join(sorted(kinds))}")


def _unify_all(lists: list[list[Value]]) -> list[list[Value]]:
    """Several collections converted to one element type (set functions compare across them)."""
    flat = _unify([v for items in lists for v in items], "sets")
    out, start = [], 0
    for items in lists:
        out.append(flat[start : start + len(items)])
        start += len(items)
    return out


def _set_sorted(values: list[Value]) -> TfSet:
    """Deduplicate (Terraform equality) and order like Terraform set iteration where defined."""
    seen: set[str] = set()
    out: list[Value] = []
    for value in values:
        key = value_key(value)
        if key not in seen:
            seen.add(key)
            out.append(value)
    if out and all(isinstance(v, str) for v in out):
        out.sort()
    elif out and all(is_number(v) for v in out):
        out.sort()
    elif out and all(isinstance(v, bool) for v in out):
        out.sort()
    return TfSet(out)


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


# ---------------------------------------------------------------------------------------------
# Regular expressions (RE2 syntax translated to Python's re)


_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}

_PERL_CLASSES = {"d": "0-9", "w": "0-9A-Za-z_", "s": "\\t\\n\\f\\r "}


def _translate_re2(pattern: str) -> str:
    multiline = bool(re.search(r"\(\?[a-zA-Z]*m[a-zA-Z]*[:)]", pattern))
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                raise TfEvalError("invalid regular expression: trailing backslash")
            escape = pattern[i + 1]
            if escape == "Q":
                end = pattern.find("\\E", i + 2)
                literal = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
                out.append("".join("\\" + c if not c.isalnum() else c for c in literal))
                i = n if end < 0 else end + 2
                continue
            if escape in _PERL_CLASSES:
                body = _PERL_CLASSES[escape]
                out.append(body if in_class else f"[{body}]")
            elif escape.lower() in _PERL_CLASSES and not in_class:
                out.append(f"[^{_PERL_CLASSES[escape.lower()]}]")
            elif escape == "z" and not in_class:
                out.append("\\Z")
            elif escape in "pP":
                raise TfEvalError("invalid regular expression: Unicode classes (\\p) are not supported")
            else:
                out.append(char + escape)
            i += 2
            continue
        if in_class:
            if char == "[" and pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                name = pattern[i + 2 : end] if end >= 0 else ""
                if name in _POSIX_CLASSES:
                    out.append(_POSIX_CLASSES[name])
                    i = end + 2
                    continue
            if char == "]":
                in_class = False
                out.append("]")
            elif char in "[&~|":
                out.append("\\" + char)
            else:
                out.append(char)
            i += 1
            continue
        if char == "[":
            in_class = True
            out.append("[")
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("\\]")
                i += 1
            continue
        if pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        if char == "$" and not multiline:
            out.append("\\Z")
            i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=512)
def _compile_re2(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(_translate_re2(pattern))
    except re.error as exc:
        raise TfEvalError(f"invalid regular expression pattern {pattern!r}: {exc}") from None


def _go_finditer(pattern: re.Pattern[str], text: str):
    """Matches as Go's FindAll reports them: empty matches abutting a previous match are skipped."""
    previous_end = -1
    for match in pattern.finditer(text):
        if match.start() == match.end() and match.start() == previous_end:
            continue
        previous_end = match.end()
        yield match


def _group_text(match: re.Match[str], name: str) -> str:
    if name.isdigit():
        index = int(name)
        if index > (match.re.groups or 0):
            return ""
        return match.group(index) or ""
    if name in match.re.groupindex:
        return match.group(name) or ""
    return ""


def _expand_template(template: str, match: re.Match[str]) -> str:
    out: list[str] = []
    i = 0
    n = len(template)
    while i < n:
        char = template[i]
        if char != "$" or i + 1 >= n:
            out.append(char)
            i += 1
            continue
        following = template[i + 1]
        if following == "$":
            out.append("$")
            i += 2
            continue
        if following == "{":
            end = template.find("}", i + 2)
            name = template[i + 2 : end] if end >= 0 else ""
            if not name or not all(c.isalnum() or c == "_" for c in name):
                out.append("$")
                i += 1
                continue
            i = end + 1
        else:
            j = i + 1
            while j < n and (template[j].isalnum() or template[j] == "_"):
                j += 1
            name = template[i + 1 : j]
            if not name:
                out.append("$")
                i += 1
                continue
            i = j
        out.append(_group_text(match, name))
    return "".join(out)


def _match_value(pattern: re.Pattern[str], match: re.Match[str]) -> Value:
    if pattern.groups == 0:
        return match.group(0)
    names = pattern.groupindex
    if names:
        return {name: match.group(name) for name in sorted(names)}
    return [match.group(i) for i in range(1, pattern.groups + 1)]


def _check_groups(pattern: re.Pattern[str]) -> None:
    if pattern.groupindex and len(pattern.groupindex) != pattern.groups:
        raise TfEvalError("invalid regular expression pattern: can't mix both named and unnamed capture groups")


@_fn("regex", 2)
def _regex(args: list[Value]) -> Value:
    pattern = _compile_re2(_str(args[0], "pattern"))
    _check_groups(pattern)
    text = _str(args[1], "string")
    match = pattern.search(text)
    if match is None:
        raise TfEvalError("pattern did not match any part of the given string")
    return _match_value(pattern, match)


@_fn("regexall", 2)
def _regexall(args: list[Value]) -> Value:
    pattern = _compile_re2(_str(args[0], "pattern"))
    _check_groups(pattern)
    text = _str(args[1], "string")
    return [_match_value(pattern, m) for m in _go_finditer(pattern, text)]


# ---------------------------------------------------------------------------------------------
# format / formatlist


_VERB = re.compile(r"%(?:\[(\d+)\])?([-+# 0]*)(\d+)?(?:\.(\d*))?(?:\[(\d+)\])?(.?)", re.S)


def _format(fmt: str, args: list[Value]) -> str:
    out: list[str] = []
    i = 0
    next_arg = 0
    used: set[int] = set()
    while i < len(fmt):
        percent = fmt.find("%", i)
        if percent < 0:
            out.append(fmt[i:])
            break
        out.append(fmt[i:percent])
        match = _VERB.match(fmt, percent)
        assert match is not None
        index_a, flags, width, precision, index_b, verb = match.groups()
        i = match.end()
        if verb == "%" and not (index_a or flags or width or precision is not None or index_b):
            out.append("%")
            continue
        if verb == "":
            raise TfEvalError("unterminated format verb at end of string")
        index = index_a or index_b
        if index is not None:
            next_arg = int(index) - 1
            if next_arg < 0:
                raise TfEvalError(f"invalid argument index {index} in format verb")
        if next_arg >= len(args):
            raise TfEvalError(f"not enough arguments for %{verb} at offset {percent}")
        value = args[next_arg]
        used.add(next_arg)
        next_arg += 1
        out.append(
            _format_verb(
                verb,
                flags,
                int(width) if width else None,
                None if precision is None else int(precision or 0),
                value,
                next_arg,
            )
        )
    if len(used) < len(args) and (not used or max(used) < len(args) - 1):
        raise TfEvalError(f"too many arguments; only {len(used)} used by format string")
    return "".join(out)


def _pad(body: str, flags: str, width: int | None, numeric: bool) -> str:
    if width is None or len(body) >= width:
        return body
    fill = width - len(body)
    if "-" in flags:
        return body + " " * fill
    if "0" in flags:
        if numeric and body[:1] in ("+", "-", " "):
            return body[0] + "0" * fill + body[1:]
        return "0" * fill + body
    return " " * fill + body


def _sign(negative: bool, flags: str) -> str:
    if negative:
        return "-"
    if "+" in flags:
        return "+"
    if " " in flags:
        return " "
    return ""


def _shortest_g(value: float, upper: bool) -> str:
    if value == 0:
        return "0"
    _sign_bit, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    text_digits = "".join(str(d) for d in digits)
    decimal_point = len(digits) + int(exponent)
    exp10 = decimal_point - 1
    if exp10 < -4 or exp10 >= 6:
        mantissa = text_digits[0] + ("." + text_digits[1:] if len(text_digits) > 1 else "")
        e = "E" if upper else "e"
        return f"{mantissa}{e}{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    return format(Decimal(repr(value)).normalize(), "f")


def _format_verb(verb: str, flags: str, width: int | None, precision: int | None, value: Value, position: int) -> str:
    if verb == "v":
        if "#" in flags:
            return _pad(_json_encode(value), flags, width, False)
        if value is None:
            return _pad("null", flags, width, False)
        if isinstance(value, (list, dict)):
            return _pad(_json_encode(value), flags, width, False)
        return _pad(to_string(value), flags, width, is_number(value))
    if value is None:
        raise TfEvalError(f"unsupported value for %{verb} at {position}: null value cannot be formatted")
    if verb == "s":
        text = _str(value, f"value for %s at {position}")
        if precision is not None:
            text = text[:precision]
        return _pad(text, flags, width, False)
    if verb == "q":
        text = _str(value, f"value for %q at {position}")
        return _pad(json.dumps(text, ensure_ascii=False), flags, width, False)
    if verb == "t":
        return _pad("true" if _bool(value, f"value for %t at {position}") else "false", flags, width, False)
    if verb in "dboxX":
        number = _num(value, f"value for %{verb} at {position}")
        if isinstance(number, float):
            raise TfEvalError(
                f"unsupported value for %{verb} at {position}: {format_number(number)} is not a whole number"
            )
        digits = format(abs(number), {"d": "d", "b": "b", "o": "o", "x": "x", "X": "X"}[verb])
        if "#" in flags:
            digits = {"b": "0b", "o": "0", "x": "0x", "X": "0X"}.get(verb, "") + digits
        return _pad(_sign(number < 0, flags) + digits, flags, width, True)
    if verb in "eEfFgG":
        number = float(_num(value, f"value for %{verb} at {position}"))
        negative = number < 0 or (number == 0 and math.copysign(1, number) < 0)
        magnitude = abs(number)
        if math.isinf(magnitude):
            body = "Inf"
        elif verb in "gG" and precision is None:
            body = _shortest_g(magnitude, verb == "G")
        else:
            spec = "." + str(6 if precision is None else precision) + {"F": "f"}.get(verb, verb)
            if "#" in flags:
                spec = "#" + spec
            body = format(magnitude, spec)
        return _pad(_sign(negative, flags) + body, flags, width, True)
    raise TfEvalError(f"unsupported format verb %{verb}")


@_fn("format", 1, None)
def _format_fn(args: list[Value]) -> Value:
    if any(arg is None for arg in args[1:]):
        # Terraform leaves format() of a null argument unknown at plan time
        raise TfUnrepresentable("format() with a null argument is only known when Terraform applies")
    return _format(_str(args[0], "format"), args[1:])


@_fn("formatlist", 1, None)
def _formatlist(args: list[Value]) -> Value:
    fmt = _str(args[0], "format")
    rest = args[1:]
    length: int | None = None
    for index, value in enumerate(rest):
        if isinstance(value, list):
            if length is not None and len(value) != length:
                raise TfEvalError(
                    f"argument {index + 1} has length {len(value)}, which is inconsistent with "
                    f"previous argument length {length}"
                )
            length = len(value)
    if length is None:
        length = 1
    return [
        _format(fmt, [value[i] if isinstance(value, list) else value for value in rest]) for i in range(length)
    ]


# ---------------------------------------------------------------------------------------------
# Type conversion


@_fn("tostring", 1)
def _tostring(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if isinstance(value, (list, dict)):
        raise TfEvalError(f"cannot convert {type_name(value)} to string")
    return to_string(value)


@_fn("tonumber", 1)
def _tonumber(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if isinstance(value, str) and value.lstrip("+-") in ("inf", "Inf"):
        raise TfUnrepresentable(f'tonumber("{value}") is an infinite number')
    if isinstance(value, str) and not _NUMBER_TEXT.fullmatch(value):
        raise TfEvalError(f'cannot convert "{value}" to number: string must be a decimal representation of a number')
    if isinstance(value, bool) or isinstance(value, (list, dict)):
        raise TfEvalError(f"cannot convert {type_name(value)} to number")
    return to_number(value)


@_fn("tobool", 1)
def _tobool(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if value == "true":
        return True
    if value == "false":
        return False
    if isinstance(value, str):
        raise TfEvalError(f'cannot convert "{value}" to bool: only the strings "true" or "false" are allowed')
    raise TfEvalError(f"cannot convert {type_name(value)} to bool")


@_fn("tolist", 1)
def _tolist(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if not isinstance(value, list):
        raise TfEvalError(f"cannot convert {type_name(value)} to list")
    return _unify(value, "tolist")


@_fn("toset", 1)
def _toset(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if not isinstance(value, list):
        raise TfEvalError(f"cannot convert {type_name(value)} to set")
    return _set_sorted(_unify(value, "toset"))


@_fn("tomap", 1)
def _tomap(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TfEvalError(f"cannot convert {type_name(value)} to map")
    keys = list(value)
    return dict(zip(keys, _unify([value[k] for k in keys], "tomap")))


@_fn("sensitive", 1)
def _sensitive(args: list[Value]) -> Value:
    return args[0]


@_fn("nonsensitive", 1)
def _nonsensitive(args: list[Value]) -> Value:
    return args[0]


@_fn("issensitive", 1)
def _issensitive(args: list[Value]) -> Value:
    # tfphi does not track sensitivity: whether a value is sensitive is not known here
    raise TfUnrepresentable("issensitive(): tfphi does not track which values are sensitive")


@_fn("ephemeralasnull", 1)
def _ephemeralasnull(args: list[Value]) -> Value:
    return args[0]


# ---------------------------------------------------------------------------------------------
# Collections


@_fn("coalesce", 1, None)
def _coalesce(args: list[Value]) -> Value:
    present = [v for v in args if v is not None]
    unified = _unify(present, "coalesce") if present else []
    for value in unified:
        if value != "":
            return value
    raise TfEvalError("no non-null, non-empty-string arguments")


@_fn("coalescelist", 1, None)
def _coalescelist(args: list[Value]) -> Value:
    for index, value in enumerate(args):
        if value is None:
            raise TfEvalError(f"argument {index + 1} must not be null")
        if _list(value, f"argument {index + 1}"):
            return value
    raise TfEvalError("no non-null arguments")


@_fn("lookup", 2, 3)
def _lookup(args: list[Value]) -> Value:
    mapping = _obj(args[0], "inputMap")
    key = _str(args[1], "key")
    if key in mapping:
        return mapping[key]
    if len(args) == 3:
        return args[2]
    raise TfEvalError(f'lookup failed to find key "{key}"')


@_fn("element", 2)
def _element(args: list[Value]) -> Value:
    items = _sequence(args[0], "list")
    index = _int(args[1], "index")
    if not items:
        raise TfEvalError("cannot use element function with an empty list")
    if index < 0:
        raise TfEvalError("cannot use element function with a negative index")
    return items[index % len(items)]


@_fn("contains", 2)
def _contains(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    _not_null(args[1], "value")
    return any(values_equal(item, args[1]) for item in items)


@_fn("index", 2)
def _index(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    for position, item in enumerate(items):
        if values_equal(item, args[1]):
            return position
    raise TfEvalError("item not found")


@_fn("concat", 1, None)
def _concat(args: list[Value]) -> Value:
    out: list[Value] = []
    for index, value in enumerate(args):
        out.extend(_sequence(value, f"argument {index + 1}"))
    return out


@_fn("merge", 0, None)
def _merge(args: list[Value]) -> Value:
    out: dict[str, Value] = {}
    for index, value in enumerate(args):
        if value is None:
            continue
        out.update(_obj(value, f"argument {index + 1}"))
    return {key: out[key] for key in sorted(out)}


@_fn("keys", 1)
def _keys(args: list[Value]) -> Value:
    return sorted(_obj(args[0], "inputMap"))


@_fn("values", 1)
def _values(args: list[Value]) -> Value:
    mapping = _obj(args[0], "mapping")
    return [mapping[key] for key in sorted(mapping)]


@_fn("length", 1)
def _length(args: list[Value]) -> Value:
    value = args[0]
    _not_null(value, "value")
    if isinstance(value, str):
        return len(_graphemes(value))
    if isinstance(value, (list, dict)):
        return len(value)
    raise TfEvalError(f"argument must be a string, a collection type, or a structural type, not {type_name(value)}")


@_fn("distinct", 1)
def _distinct(args: list[Value]) -> Value:
    seen: set[str] = set()
    out: list[Value] = []
    for item in _unify(_list(args[0], "list"), "list"):
        key = value_key(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _flatten_into(items: list[Value], out: list[Value]) -> None:
    for item in items:
        if isinstance(item, list):
            _flatten_into(item, out)
        else:
            out.append(item)


@_fn("flatten", 1)
def _flatten(args: list[Value]) -> Value:
    out: list[Value] = []
    _flatten_into(_list(args[0], "list"), out)
    return out


@_fn("reverse", 1)
def _reverse(args: list[Value]) -> Value:
    return list(reversed(_list(args[0], "list")))


@_fn("slice", 3)
def _slice(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    start = _int(args[1], "start_index")
    end = _int(args[2], "end_index")
    if start < 0:
        raise TfEvalError("start_index must not be negative")
    if end > len(items):
        raise TfEvalError("end_index must not be greater than the length of the list")
    if start > end:
        raise TfEvalError("start_index must be less than or equal to end_index")
    return items[start:end]


@_fn("sort", 1)
def _sort(args: list[Value]) -> Value:
    return sorted(_strlist(args[0], "list"))


@_fn("zipmap", 2)
def _zipmap(args: list[Value]) -> Value:
    keys = _strlist(args[0], "keys")
    values = _list(args[1], "values")
    if len(keys) != len(values):
        raise TfEvalError(f"number of keys ({len(keys)}) does not match number of values ({len(values)})")
    out = dict(zip(keys, values))
    return {key: out[key] for key in sorted(out)}


@_fn("compact", 1)
def _compact(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    return [_str(item, "element") for item in items if item is not None and item != ""]


@_fn("range", 1, 3)
def _range(args: list[Value]) -> Value:
    numbers = [_num(arg, f"argument {i + 1}") for i, arg in enumerate(args)]
    if len(numbers) == 1:
        start, limit = 0, numbers[0]
    else:
        start, limit = numbers[0], numbers[1]
    step = numbers[2] if len(numbers) == 3 else (1 if start <= limit else -1)
    if step == 0:
        raise TfEvalError("step must not be zero")
    if step < 0 and start < limit:
        raise TfEvalError("step must be positive when start is less than limit")
    if step > 0 and start > limit:
        raise TfEvalError("step must be negative when start is greater than limit")
    out: list[Value] = []
    index = 0
    while True:
        value = start + index * step
        if (step > 0 and value >= limit) or (step < 0 and value <= limit):
            break
        if len(out) >= 1024:
            raise TfEvalError("more than 1024 values were generated; either decrease the difference between start and end or use a smaller step")
        out.append(normalize_number(value))
        index += 1
    return out


@_fn("one", 1)
def _one(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    if not items:
        return None
    if len(items) > 1:
        raise TfEvalError(f"must be a list, set, or tuple value with either zero or one elements, got {len(items)}")
    return items[0]


@_fn("chunklist", 2)
def _chunklist(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    size = _int(args[1], "size")
    if size < 0:
        raise TfEvalError("the size argument must be positive")
    if size == 0:
        return [list(items)]
    return [items[i : i + size] for i in range(0, len(items), size)]


@_fn("matchkeys", 3)
def _matchkeys(args: list[Value]) -> Value:
    values = _list(args[0], "values")
    keys = _list(args[1], "keys")
    search = _list(args[2], "searchset")
    if len(values) != len(keys):
        raise TfEvalError("length of keys and values should be equal")
    # keys and searchset are converted to one element type first (["1"] matches [1])
    unified = _unify(list(keys) + list(search), "keys and searchset")
    keys, search = unified[: len(keys)], unified[len(keys) :]
    wanted = {value_key(v) for v in search}
    return [value for value, key in zip(values, keys) if value_key(key) in wanted]


@_fn("transpose", 1)
def _transpose(args: list[Value]) -> Value:
    mapping = _obj(args[0], "values")
    out: dict[str, list[str]] = {}
    for key in sorted(mapping):
        for item in _strlist(mapping[key], f'value for "{key}"'):
            out.setdefault(item, []).append(key)
    return {key: out[key] for key in sorted(out)}


@_fn("alltrue", 1)
def _alltrue(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    result = True
    for index, item in enumerate(items):
        if item is None or not _bool(item, f"element {index}"):
            result = False
    return result


@_fn("anytrue", 1)
def _anytrue(args: list[Value]) -> Value:
    items = _list(args[0], "list")
    result = False
    for index, item in enumerate(items):
        if item is not None and _bool(item, f"element {index}"):
            result = True
    return result


@_fn("setunion", 1, None)
def _setunion(args: list[Value]) -> Value:
    out: list[Value] = []
    for index, value in enumerate(args):
        out.extend(_list(value, f"argument {index + 1}"))
    return _set_sorted(_unify(out, "setunion"))


@_fn("setintersection", 1, None)
def _setintersection(args: list[Value]) -> Value:
    sets = _unify_all([_list(value, f"argument {i + 1}") for i, value in enumerate(args)])
    keys = [{value_key(v) for v in s} for s in sets]
    common = set.intersection(*keys)
    return _set_sorted([v for v in sets[0] if value_key(v) in common])


@_fn("setsubtract", 2)
def _setsubtract(args: list[Value]) -> Value:
    first, second = _unify_all([_list(args[0], "a"), _list(args[1], "b")])
    remove = {value_key(v) for v in second}
    return _set_sorted([v for v in first if value_key(v) not in remove])


@_fn("setproduct", 2, None)
def _setproduct(args: list[Value]) -> Value:
    product: list[list[Value]] = [[]]
    for index, value in enumerate(args):
        items = _list(value, f"argument {index + 1}")
        product = [prefix + [item] for prefix in product for item in items]
    return product


@_fn("list", 0, None)
def _list_removed(args: list[Value]) -> Value:
    raise TfEvalError('the "list" function was deprecated in Terraform v0.12 and is no longer available; use tolist([ ... ]) syntax instead')


@_fn("map", 0, None)
def _map_removed(args: list[Value]) -> Value:
    raise TfEvalError('the "map" function was deprecated in Terraform v0.12 and is no longer available; use tomap({ ... }) syntax instead')


# ---------------------------------------------------------------------------------------------
# Numbers


@_fn("min", 1, None)
def _min(args: list[Value]) -> Value:
    return min(_num(v, f"argument {i + 1}") for i, v in enumerate(args))


@_fn("max", 1, None)
def _max(args: list[Value]) -> Value:
    return max(_num(v, f"argument {i + 1}") for i, v in enumerate(args))


@_fn("abs", 1)
def _abs(args: list[Value]) -> Value:
    return abs(_num(args[0], "num"))


def _integral(value: int | float, rounder: Callable[[float], int]) -> int | float:
    if isinstance(value, int) or math.isinf(value):
        return value
    return rounder(value)


@_fn("ceil", 1)
def _ceil(args: list[Value]) -> Value:
    return _integral(_num(args[0], "num"), math.ceil)


@_fn("floor", 1)
def _floor(args: list[Value]) -> Value:
    return _integral(_num(args[0], "num"), math.floor)


@_fn("signum", 1)
def _signum(args: list[Value]) -> Value:
    number = _num(args[0], "num")
    if isinstance(number, float) or not -(2**63) <= number < 2**63:  # Terraform takes an int64
        raise TfEvalError(f"num must be a whole number in the 64-bit range, got {format_number(number)}")
    return (number > 0) - (number < 0)


@_fn("pow", 2)
def _pow(args: list[Value]) -> Value:
    base = _num(args[0], "num")
    exponent = _num(args[1], "power")
    # Terraform computes pow with 64-bit floats (Go's math.Pow)
    try:
        return _number_result(math.pow(base, exponent))
    except OverflowError:
        raise TfUnrepresentable("pow(): the result is an infinite number") from None
    except ValueError:
        raise TfEvalError("pow(): the result is not a number (NaN)") from None


@_fn("log", 2)
def _log(args: list[Value]) -> Value:
    number = _num(args[0], "num")
    base = _num(args[1], "base")
    # Go's math.Log(num) / math.Log(base) in 64-bit floats: zero gives an infinity, 1 as the
    # base divides by zero; an infinite result is Terraform's, not an error, but not tfphi's to hold
    if number < 0 or base < 0:
        raise TfEvalError("logarithm is undefined for these arguments (NaN)")
    top = -math.inf if number == 0 else math.log(number)
    bottom = -math.inf if base == 0 else math.log(base)
    if bottom == 0 or math.isinf(top):
        if top == 0 or (math.isinf(top) and math.isinf(bottom)):
            raise TfEvalError("logarithm is undefined for these arguments (NaN)")
        raise TfUnrepresentable("log(): the result is an infinite number")
    return _number_result(top / bottom)


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@_fn("parseint", 2)
def _parseint(args: list[Value]) -> Value:
    text = _str(args[0], "number")
    base = _int(args[1], "base")
    if not 2 <= base <= 62:
        raise TfEvalError(f"base must be a whole number between 2 and 62 inclusive, got {base}")
    body = text
    negative = False
    if body[:1] in ("+", "-"):
        negative = body[0] == "-"
        body = body[1:]
    if not body:
        raise TfEvalError(f'cannot parse "{text}" as a base {base} integer')
    result = 0
    for char in body:
        digit = _DIGITS.find(char.lower() if base <= 36 else char)
        if digit < 0 or digit >= base:
            raise TfEvalError(f'cannot parse "{text}" as a base {base} integer')
        result = result * base + digit
    return -result if negative else result


@_fn("sum", 1)
def _sum(args: list[Value]) -> Value:
    numbers = _numlist(args[0], "list")
    if not numbers:
        raise TfEvalError("cannot sum an empty list")
    total: int | float = 0
    for number in numbers:
        total = arithmetic("+", total, number)
    return total


# ---------------------------------------------------------------------------------------------
# Encoding


def _json_number(value: int | float) -> str:
    value = normalize_number(value)
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise TfEvalError(f"cannot encode {value} as JSON")
    return format(Decimal(repr(value)), "f")


def _json_string(text: str) -> str:
    return (
        json.dumps(text, ensure_ascii=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _json_encode(value: Value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return _json_number(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, list):
        return "[" + ",".join(_json_encode(v) for v in value) + "]"
    return "{" + ",".join(f"{_json_string(k)}:{_json_encode(value[k])}" for k in sorted(value)) + "}"


def _normalize_decoded(value: Any) -> Value:
    if isinstance(value, str):  # a lone surrogate (JSON "\\ud800") decodes as U+FFFD, as in Go
        return re.sub("[\ud800-\udfff]", "\ufffd", value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise TfUnrepresentable("an infinite number")
        return normalize_number(value)
    if isinstance(value, list):
        return [_normalize_decoded(v) for v in value]
    if isinstance(value, dict):
        return {_decoded_key(k): _normalize_decoded(v) for k, v in value.items()}
    raise TfEvalError(f"unsupported decoded value {value!r}")


def _decoded_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, (bool, int, float)):
        return to_string(_normalize_decoded(key))
    raise TfEvalError(f"unsupported mapping key {key!r}: keys must be strings")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON literal {name}")


@_fn("jsonencode", 1)
def _jsonencode(args: list[Value]) -> Value:
    return _json_encode(args[0])


@_fn("jsondecode", 1)
def _jsondecode(args: list[Value]) -> Value:
    text = _str(args[0], "str")
    try:
        decoded = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise TfEvalError(f"invalid JSON: {exc}") from None
    return _normalize_decoded(decoded)


# --- YAML --------------------------------------------------------------------------------------
#
# Terraform's yamldecode (go-cty-yaml) has its own scalar rules: YAML 1.1's bools and timestamps,
# YAML 1.2's core-schema numbers. PyYAML parses; the rules below decide what each scalar means
# (measured with `terraform console`, and checked against it in tests/oracle):
# - a plain scalar is looked up first: y/yes/on/true and n/no/off/false (in three casings) are
#   bools, "", ~ and null/Null/NULL are null, [+-].inf/.Inf/.INF are infinities, .nan is an error;
# - then one that starts with four digits and a dash may be a timestamp (YYYY-M-D, optionally with
#   a time), normalized to RFC 3339 ("2001-12-14" is "2001-12-14T00:00:00Z");
# - then YAML 1.2 core numbers: [-+]?[0-9]+ (so 010 is ten), 0o[0-7]+, 0x[0-9a-fA-F]+ (at most
#   64 bits), and decimals with an optional exponent; 1_000, 0b101, -0x1F and 0X1F stay strings;
# - an explicit tag (!!int, !!bool, ...) first tries the same lookup and numbers, then its own
#   parse (!!int takes underscores and 0b); !!str and !!binary keep the text; other tags fail;
# - quoted scalars are strings; mapping keys become strings (`y:` is the key "true");
# - an empty document, several documents and a %YAML directive other than 1.1 are errors.

_YAML_TAG = "tag:yaml.org,2002:"
_YAML_PLAIN = "tag:tfphi:plain"  # an untagged plain scalar, resolved by _yaml_plain
_YAML_WORDS: dict[str, Value] = {
    **{w: True for w in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE")},
    **{w: False for w in ("n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE")},
    **{w: None for w in ("", "~", "null", "Null", "NULL")},
    **{w: math.inf for w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{w: -math.inf for w in ("-.inf", "-.Inf", "-.INF")},
}
_YAML_NAN = (".nan", ".NaN", ".NAN")
_YAML_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_YAML_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[-+]\d{2}:\d{2}))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?))?"
)


def _yaml_number(text: str) -> Value | None:
    """A YAML 1.2 core-schema number, or None."""
    if re.fullmatch(r"[-+]?[0-9]+", text):
        return int(text)
    if re.fullmatch(r"0o[0-7]+|0x[0-9a-fA-F]+", text):
        value = int(text[2:], 8 if text[1] == "o" else 16)
        if value >= 2**64:
            raise TfEvalError(f"cannot parse {text!r} as !!int")
        return value
    if _YAML_DECIMAL.fullmatch(text):
        return normalize_number(float(Decimal(text)))
    return None


def _yaml_go_int(text: str) -> Value | None:
    """Go's strconv.ParseInt(text, 0, 64) or ParseUint: 0x, 0o, 0b and leading-0 octal."""
    match = re.fullmatch(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]+|[0-9]+)", text)
    if match is None:
        return None
    sign, body = match.groups()
    if body[:2].lower() in ("0x", "0o", "0b"):
        value = int(body, 0)
    else:
        value = int(body, 8) if len(body) > 1 and body[0] == "0" else int(body)
    value = -value if sign == "-" else value
    return value if -(2**63) <= value < 2**64 else None


def _yaml_timestamp(text: str) -> str | None:
    match = _YAML_TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    year, month, day = (int(g) for g in match.group(1, 2, 3))
    clock = match.group(4, 5, 6) if match.group(4) else match.group(9, 10, 11) if match.group(9) else ("0", "0", "0")
    hour, minute, second = (int(g) for g in clock)
    zone = match.group(8) or "Z"
    try:
        _dt.datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    if zone != "Z":
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 23 or minutes > 59:
            return None
        zone = "Z" if hours == minutes == 0 else zone
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{zone}"


def _yaml_plain(text: str) -> Value:
    """What an untagged plain scalar means to Terraform."""
    if text in _YAML_WORDS:
        return _YAML_WORDS[text]
    if text in _YAML_NAN:
        raise TfEvalError("floating point NaN is not supported")
    stamp = _yaml_timestamp(text)
    if stamp is not None:
        return stamp
    number = _yaml_number(text)
    return text if number is None else number


def _yaml_tagged(tag: str, text: str) -> Value:
    """A scalar with an explicit standard tag (``!!int 0x10``)."""
    if tag == "binary":
        try:
            base64.b64decode(text, validate=True)
        except ValueError:
            raise TfEvalError(f"cannot parse {text!r} as !!binary: not valid base64") from None
    if tag in ("str", "binary"):
        return text
    if text in _YAML_WORDS:
        return _YAML_WORDS[text]
    if text in _YAML_NAN:
        raise TfEvalError("floating point NaN is not supported")
    number = _yaml_number(text)
    if number is not None:
        return number
    if tag == "null":
        return None
    if tag == "timestamp" and _yaml_timestamp(text) is not None:
        return _yaml_timestamp(text)
    if tag in ("int", "float"):
        plain = text.replace("_", "")
        number = _yaml_number(plain) if _YAML_DECIMAL.fullmatch(plain) else _yaml_go_int(plain)
        if number is not None:
            return number
    raise TfEvalError(f"cannot parse {text!r} as !!{tag}")


def _construct_plain(loader: Any, node: Any) -> Value:
    return _yaml_plain(loader.construct_scalar(node))


def _construct_tagged(tag: str) -> Callable[[Any, Any], Value]:
    return lambda loader, node: _yaml_tagged(tag, loader.construct_scalar(node))


def _construct_unsupported(loader: Any, node: Any) -> Value:
    raise TfEvalError(f"unsupported tag {node.tag}")


@functools.lru_cache(maxsize=1)
def _yaml_loader() -> Any:
    """PyYAML's parser with Terraform's scalar resolution (above) and string keys; the class is
    made on first use (importing PyYAML was most of this module's import)."""

    class _YamlLoader(yaml.SafeLoader):
        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is yaml.ScalarNode and implicit[0]:
                return f"{_YAML_TAG}merge" if value == "<<" else _YAML_PLAIN
            if kind is yaml.ScalarNode:
                return f"{_YAML_TAG}str"
            return super().resolve(kind, value, implicit)

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
            # Keys become Terraform attribute names (strings) before they can collide
            # (Python's True == 1 would merge `true:` and `1:`).
            if isinstance(node, yaml.MappingNode):
                self.flatten_mapping(node)
            mapping: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = _decoded_key(self.construct_object(key_node, deep=True))
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping

    _YamlLoader.add_constructor(_YAML_PLAIN, _construct_plain)
    for tag in ("str", "binary", "bool", "null", "timestamp", "int", "float"):
        _YamlLoader.add_constructor(f"{_YAML_TAG}{tag}", _construct_tagged(tag))
    for tag in ("omap", "pairs", "set"):
        _YamlLoader.add_constructor(f"{_YAML_TAG}{tag}", _construct_unsupported)
    _YamlLoader.add_constructor(None, _construct_unsupported)
    return _YamlLoader


@_fn("yamldecode", 1)
def _yamldecode(args: list[Value]) -> Value:
    text = _str(args[0], "src")
    loader = _yaml_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise TfEvalError("the YAML source contains no document")
        if loader.yaml_version not in (None, (1, 1)):
            raise TfEvalError(f"unsupported YAML version {loader.yaml_version}")
        decoded = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise TfEvalError(f"invalid YAML: {exc}") from None
    except RecursionError:
        raise TfEvalError("invalid YAML: cyclic or too deeply nested structure") from None
    finally:
        loader.dispose()
    return _normalize_decoded(decoded)


@_fn("csvdecode", 1)
def _csvdecode(args: list[Value]) -> Value:
    text = _str(args[0], "str")
    try:
        rows = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as exc:
        raise TfEvalError(f"invalid CSV: {exc}") from None
    if not rows:
        raise TfEvalError("missing header line")
    header = rows[0]
    if len(set(header)) != len(header):
        raise TfEvalError("duplicate column name in the header line")
    out: list[Value] = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TfEvalError(f"record on line {number}: wrong number of fields")
        out.append({key: row[i] for i, key in enumerate(header)})
    return out


@_fn("base64encode", 1)
def _base64encode(args: list[Value]) -> Value:
    return base64.b64encode(_str(args[0], "str").encode()).decode("ascii")


@_fn("base64decode", 1)
def _base64decode(args: list[Value]) -> Value:
    text = _str(args[0], "str")
    try:  # Go's decoder skips line breaks
        raw = base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except ValueError:
        raise TfEvalError("failed to decode base64 data") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TfEvalError("the result of decoding the provided string is not valid UTF-8") from None


@_fn("textencodebase64", 2)
def _textencodebase64(args: list[Value]) -> Value:
    text = _str(args[0], "string")
    encoding = _str(args[1], "encoding")
    try:
        if encoding.lower().replace("_", "-") in ("utf-16", "utf16"):
            # Go's UTF-16 encoder writes a byte-order mark and big-endian code units
            return base64.b64encode(b"\xfe\xff" + text.encode("utf-16-be")).decode("ascii")
        return base64.b64encode(text.encode(encoding)).decode("ascii")
    except LookupError:
        raise TfEvalError(f'"{encoding}" is not a supported IANA encoding name') from None
    except UnicodeEncodeError:
        raise TfEvalError(f"the given string contains characters that cannot be represented in {encoding}") from None


@_fn("textdecodebase64", 2)
def _textdecodebase64(args: list[Value]) -> Value:
    text = _str(args[0], "source")
    encoding = _str(args[1], "encoding")
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise TfEvalError("the given value has invalid base64 encoding") from None
    try:
        return raw.decode(encoding)
    except LookupError:
        raise TfEvalError(f'"{encoding}" is not a supported IANA encoding name') from None
    except UnicodeDecodeError:
        raise TfEvalError(f"the given data is not valid {encoding}") from None


@_fn("urlencode", 1)
def _urlencode(args: list[Value]) -> Value:
    return _urlparse.quote_plus(_str(args[0], "str"), safe="")


def _digest(name: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        return hashlib.new(name, _str(args[0], "str").encode()).hexdigest()

    return impl


def _b64digest(name: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        return base64.b64encode(hashlib.new(name, _str(args[0], "str").encode()).digest()).decode("ascii")

    return impl


for _name in ("md5", "sha1", "sha256", "sha512"):
    _fn(_name, 1)(_digest(_name))
for _name in ("sha256", "sha512"):
    _fn(f"base64{_name}", 1)(_b64digest(_name))


_UUID_NAMESPACES = {"dns": "NAMESPACE_DNS", "url": "NAMESPACE_URL", "oid": "NAMESPACE_OID", "x500": "NAMESPACE_X500"}


@_fn("uuidv5", 2)
def _uuidv5(args: list[Value]) -> Value:
    namespace_text = _str(args[0], "namespace")
    name = _str(args[1], "name")
    namespace = getattr(_uuid, _UUID_NAMESPACES[namespace_text]) if namespace_text in _UUID_NAMESPACES else None
    if namespace is None:
        try:
            namespace = _uuid.UUID(namespace_text)
        except ValueError:
            raise TfEvalError(
                f'uuidv5() doesn\'t support namespace prefix "{namespace_text}"; '
                "use dns, url, oid, x500 or a UUID"
            ) from None
    return str(_uuid.uuid5(namespace, name))


# ---------------------------------------------------------------------------------------------
# IP network functions


def _network(prefix: Value) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    text = _str(prefix, "prefix")
    if "/" not in text:  # Go's ParseCIDR needs the prefix length
        raise TfEvalError(f'invalid CIDR expression "{text}"')
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise TfEvalError(f'invalid CIDR expression "{text}"') from None


@_fn("cidrhost", 2)
def _cidrhost(args: list[Value]) -> Value:
    network = _network(args[0])
    hostnum = _int(args[1], "hostnum")
    size = network.num_addresses
    position = hostnum + size if hostnum < 0 else hostnum
    if not 0 <= position < size:
        raise TfEvalError(f"prefix of {network.prefixlen} does not accommodate a host numbered {hostnum}")
    return str(network.network_address + position)


def _subnet(network: ipaddress.IPv4Network | ipaddress.IPv6Network, newbits: int, netnum: int) -> str:
    max_bits = network.max_prefixlen
    if newbits < 0:
        raise TfEvalError("newbits must not be negative")
    new_length = network.prefixlen + newbits
    if new_length > max_bits:
        raise TfEvalError(f"insufficient address space to extend prefix of {network.prefixlen} by {newbits}")
    if not 0 <= netnum < (1 << newbits):
        raise TfEvalError(f"prefix extension of {newbits} does not accommodate a subnet numbered {netnum}")
    address = network.network_address + (netnum << (max_bits - new_length))
    return f"{address}/{new_length}"


@_fn("cidrsubnet", 3)
def _cidrsubnet(args: list[Value]) -> Value:
    if _int(args[2], "netnum") < 0:
        # Terraform accepts a negative netnum with an unexpected result (cidrsubnet("10.0.0.0/8",
        # 2, -1) is "0.64.0.0/10"): not a value tfphi reproduces
        raise TfUnrepresentable("cidrsubnet() with a negative netnum")
    return _subnet(_network(args[0]), _int(args[1], "newbits"), _int(args[2], "netnum"))


@_fn("cidrsubnets", 1, None)
def _cidrsubnets(args: list[Value]) -> Value:
    network = _network(args[0])
    max_bits = network.max_prefixlen
    base = int(network.network_address)
    end = base + network.num_addresses
    cursor = base
    out: list[Value] = []
    for index, value in enumerate(args[1:]):
        newbits = _int(value, f"newbits[{index}]")
        if newbits < 1:
            raise TfEvalError("must extend prefix by at least one bit")
        new_length = network.prefixlen + newbits
        if new_length > max_bits:
            raise TfEvalError(f"would extend prefix to {new_length} bits, which is too long for an IP address")
        size = 1 << (max_bits - new_length)
        cursor = -(-cursor // size) * size
        if cursor + size > end:
            raise TfEvalError(f"not enough remaining address space for a subnet with a prefix of {new_length} bits")
        out.append(f"{type(network.network_address)(cursor)}/{new_length}")
        cursor += size
    return out


@_fn("cidrnetmask", 1)
def _cidrnetmask(args: list[Value]) -> Value:
    network = _network(args[0])
    if network.version != 4:
        raise TfEvalError("only IPv4 networks are supported")
    return str(network.netmask)


# ---------------------------------------------------------------------------------------------
# Date and time


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)


def _parse_timestamp(value: Value, what: str = "timestamp") -> _dt.datetime:
    text = _str(value, what)
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise TfEvalError(f'not a valid RFC3339 timestamp: "{text}"')
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = match.group(7)
    micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
    zone = match.group(8)
    if zone in ("Z", "z"):
        tz = _dt.timezone.utc
    else:
        sign = 1 if zone[0] == "+" else -1
        tz = _dt.timezone(sign * _dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    try:
        return _dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError as exc:
        raise TfEvalError(f'not a valid RFC3339 timestamp: "{text}": {exc}') from None


def _rfc3339(moment: _dt.datetime) -> str:
    offset = moment.utcoffset() or _dt.timedelta(0)
    base = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return base + _offset_text(offset, colon=True, z=True)


def _offset_text(offset: _dt.timedelta, *, colon: bool, z: bool) -> str:
    total = int(offset.total_seconds()) // 60
    if total == 0 and z:
        return "Z"
    sign = "-" if total < 0 else "+"
    hours, minutes = divmod(abs(total), 60)
    return f"{sign}{hours:02d}{':' if colon else ''}{minutes:02d}"


_DURATION_PART = re.compile(r"(\d*\.?\d+|\d+\.)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def _parse_duration(text: str) -> _dt.timedelta:
    body = text
    sign = 1
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return _dt.timedelta(0)
    if not body:
        raise TfEvalError(f'invalid duration "{text}"')
    seconds = Decimal(0)
    position = 0
    while position < len(body):
        match = _DURATION_PART.match(body, position)
        if match is None:
            raise TfEvalError(f'invalid duration "{text}"')
        seconds += Decimal(match.group(1)) * Decimal(str(_DURATION_UNITS[match.group(2)]))
        position = match.end()
    return sign * _dt.timedelta(seconds=float(seconds))


@_fn("timeadd", 2)
def _timeadd(args: list[Value]) -> Value:
    moment = _parse_timestamp(args[0])
    duration = _parse_duration(_str(args[1], "duration"))
    try:
        return _rfc3339(moment + duration)
    except OverflowError:
        raise TfEvalError("resulting timestamp is out of range") from None


@_fn("timecmp", 2)
def _timecmp(args: list[Value]) -> Value:
    a = _parse_timestamp(args[0], "timestamp_a")
    b = _parse_timestamp(args[1], "timestamp_b")
    return (a > b) - (a < b)


_DATE_TOKEN = re.compile(r"'(?:[^']|'')*'?|([A-Za-z])\1*|[^A-Za-z']+")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _date_token(token: str, moment: _dt.datetime) -> str:
    offset = moment.utcoffset() or _dt.timedelta(0)
    hour12 = moment.hour % 12 or 12
    table: dict[str, Callable[[], str]] = {
        "YYYY": lambda: f"{moment.year:04d}",
        "YY": lambda: f"{moment.year % 100:02d}",
        "MMMM": lambda: _MONTHS[moment.month - 1],
        "MMM": lambda: _MONTHS[moment.month - 1][:3],
        "MM": lambda: f"{moment.month:02d}",
        "M": lambda: str(moment.month),
        "DD": lambda: f"{moment.day:02d}",
        "D": lambda: str(moment.day),
        "EEEE": lambda: _WEEKDAYS[moment.weekday()],
        "EEE": lambda: _WEEKDAYS[moment.weekday()][:3],
        "hh": lambda: f"{moment.hour:02d}",
        "h": lambda: str(moment.hour),
        "HH": lambda: f"{hour12:02d}",
        "H": lambda: str(hour12),
        "AA": lambda: "AM" if moment.hour < 12 else "PM",
        "aa": lambda: "am" if moment.hour < 12 else "pm",
        "mm": lambda: f"{moment.minute:02d}",
        "m": lambda: str(moment.minute),
        "ss": lambda: f"{moment.second:02d}",
        "s": lambda: str(moment.second),
        "ZZZZZ": lambda: _offset_text(offset, colon=True, z=False),
        "ZZZZ": lambda: _offset_text(offset, colon=False, z=False),
        "ZZZ": lambda: "UTC" if not offset else _offset_text(offset, colon=False, z=False),
        "Z": lambda: _offset_text(offset, colon=True, z=True),
    }
    render = table.get(token)
    if render is None:
        raise TfEvalError(f'invalid date format verb "{token}"')
    return render()


@_fn("formatdate", 2)
def _formatdate(args: list[Value]) -> Value:
    spec = _str(args[0], "format")
    moment = _parse_timestamp(args[1])
    out: list[str] = []
    for match in _DATE_TOKEN.finditer(spec):
        token = match.group(0)
        if token.startswith("'"):
            if len(token) < 2 or not token.endswith("'") or token == "'":
                raise TfEvalError("unterminated literal in date format")
            out.append("'" if token == "''" else token[1:-1].replace("''", "'"))
        elif token[0].isalpha():
            out.append(_date_token(token, moment))
        else:
            out.append(token)
    return "".join(out)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@_fn("timestamp", 0, nondeterministic=True)
def _timestamp(args: list[Value]) -> Value:
    return _now()


@_fn("plantimestamp", 0, nondeterministic=True)
def _plantimestamp(args: list[Value]) -> Value:
    return _now()


@_fn("uuid", 0, nondeterministic=True)
def _uuid4(args: list[Value]) -> Value:
    return str(_uuid.uuid4())


@_fn("bcrypt", 1, 2, nondeterministic=True)
def _bcrypt(args: list[Value]) -> Value:
    _str(args[0], "str")
    if len(args) == 2:
        cost = _int(args[1], "cost")
        if cost > 31:  # below 4, Go's bcrypt uses its default cost (10)
            raise TfEvalError(f"cost must be at most 31, got {cost}")
    raise TfUnrepresentable("the result of bcrypt() is not known until apply (it uses a random salt)")


# ---------------------------------------------------------------------------------------------
# Files and the machine: the result depends on what Terraform's machine holds, not only on the
# arguments. tfphi never reads them (the core does no I/O): the tracer answers Unbounded.

MACHINE_DEPENDENT = frozenset({
    "file", "fileexists", "filebase64", "fileset", "abspath", "pathexpand",
    "filemd5", "filesha1", "filesha256", "filesha512", "filebase64sha256", "filebase64sha512",
})


def _machine_dependent(args: list[Value]) -> Value:
    raise TfUnrepresentable("the result depends on files or the machine Terraform runs on, which tfphi never reads")


for _name in sorted(MACHINE_DEPENDENT):
    _fn(_name, 2 if _name == "fileset" else 1, elementwise=False)(_machine_dependent)


@_fn("basename", 1)
def _basename(args: list[Value]) -> Value:
    path = _str(args[0], "path")
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else "."
    return stripped.rsplit("/", 1)[-1]


@_fn("dirname", 1)
def _dirname(args: list[Value]) -> Value:
    path = _str(args[0], "path")
    head = path.rsplit("/", 1)[0] if "/" in path else "."
    if path.startswith("/") and head == "":
        return "/"
    return posixpath.normpath(head) if head else "."
