"""Regular-expression functions: regex, regexall, and replace's /re/ form."""

from __future__ import annotations

import functools
import re

from ...values.value import TfEvalError, Value
from .registry import _fn
from .arguments import _str


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
