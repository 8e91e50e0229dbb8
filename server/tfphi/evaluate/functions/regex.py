"""Regular-expression functions: regex, regexall, and replace's /re/ form, on RE2.

Terraform's patterns are Go's ``regexp`` (RE2 syntax and semantics: leftmost-first, ``$`` only at
the end of the text, Unicode classes, no backreferences). tfphi runs them on RE2 itself (the
``google-re2`` binding), and walks the matches as Go does: ``FindAll`` skips an empty match that
abuts the previous match, ``ReplaceAll`` replaces an empty match right after a match only at the
start of the text (``replace("aaa", "/a*?/", "X")`` is ``"XaXaXaX"``), and the replacement is
expanded as Go's ``Regexp.Expand`` (``$1x`` names a group "1x", which does not exist: empty).
"""

from __future__ import annotations

import functools
from typing import Any, Iterator

from ...values.types import TypeSpec
from ...values.value import TfEvalError, Value
from .arguments import str_arg
from .deferred import re2
from .spec import builtin


STRING = TypeSpec("string")


@functools.lru_cache(maxsize=512)
def compile_re2(pattern: str) -> Any:
    """The compiled pattern; a pattern RE2 rejects is Terraform's error too."""
    try:
        return re2.compile(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise TfEvalError(f"invalid regular expression pattern: {reason}") from None


def go_find_all(regex: Any, text: str) -> Iterator[Any]:
    """Go's ``allMatches``: every match left to right; an empty match where the previous one ended is skipped."""
    position, previous_end = 0, -1
    while position <= len(text):
        match = regex.search(text, position)
        if match is None:
            return
        start, end = match.span()
        accept = True
        if end == position:  # an empty match: step one character
            if start == previous_end:
                accept = False
            position += 1
        else:
            position = end
        previous_end = end
        if accept:
            yield match


def go_replace_all(regex: Any, text: str, template: str) -> str:
    """Go's ``ReplaceAllString``."""
    out: list[str] = []
    last_end = 0
    search = 0
    while search <= len(text):
        match = regex.search(text, search)
        if match is None:
            break
        start, end = match.span()
        out.append(text[last_end:start])
        if end > last_end or start == 0:  # not an empty match right after another match
            out.append(expand(template, regex, match))
        last_end = end
        if search + 1 > end:  # always advance at least one character
            search += 1
        else:
            search = end
    out.append(text[last_end:])
    return "".join(out)


def _group(regex: Any, match: Any, name: str) -> str:
    if name.isdigit():
        index = int(name)
        if index > regex.groups:
            return ""
    elif name in regex.groupindex:
        index = regex.groupindex[name]
    else:
        return ""
    return match.group(index) or ""


def _is_name_char(char: str) -> bool:
    return char == "_" or char.isalpha() or char.isdigit()


def expand(template: str, regex: Any, match: Any) -> str:
    """Go's ``Regexp.Expand``: ``$name``, ``${name}``, ``$$``; a malformed ``$`` stays as it is."""
    out: list[str] = []
    i, n = 0, len(template)
    while i < n:
        dollar = template.find("$", i)
        if dollar < 0:
            out.append(template[i:])
            break
        out.append(template[i:dollar])
        i = dollar + 1
        if i < n and template[i] == "$":
            out.append("$")
            i += 1
            continue
        if i < n and template[i] == "{":
            end = template.find("}", i + 1)
            name = template[i + 1 : end] if end >= 0 else ""
            if not name or not all(_is_name_char(c) for c in name):
                out.append("$")
                continue
            i = end + 1
        else:
            j = i
            while j < n and _is_name_char(template[j]):
                j += 1
            name = template[i:j]
            if not name:
                out.append("$")
                continue
            i = j
        out.append(_group(regex, match, name))
    return "".join(out)


def _result_shape(regex: Any) -> str:
    """cty's regexPatternResultType: a string, a tuple of the unnamed groups, or an object of the named."""
    named = len(regex.groupindex)
    if regex.groups == 0:
        return "string"
    if named and named != regex.groups:
        raise TfEvalError("invalid regexp pattern: cannot mix both named and unnamed capture groups")
    return "object" if named else "tuple"


def _match_value(regex: Any, shape: str, match: Any) -> Value:
    if shape == "string":
        return match.group(0)
    if shape == "object":
        return {name: match.group(index) for name, index in sorted(regex.groupindex.items())}
    return [match.group(i) for i in range(1, regex.groups + 1)]  # a group that took no part is null


@builtin("regex", 2, params=("pattern: string", "string: string"))
def _regex(args: list[Value]) -> Value:
    regex = compile_re2(str_arg(args[0], "pattern"))
    shape = _result_shape(regex)
    match = regex.search(str_arg(args[1], "string"))
    if match is None:
        raise TfEvalError("pattern did not match any part of the given string")
    return _match_value(regex, shape, match)


def _list_of_matches(args: list[Value]) -> TypeSpec:
    """regexall's type: a list of what one match gives (an empty list still has that element type)."""
    regex = compile_re2(args[0])
    shape = _result_shape(regex)
    if shape == "string":
        return TypeSpec("list", STRING)
    if shape == "object":
        return TypeSpec("list", TypeSpec("object", attrs=tuple((name, STRING, False, None) for name in sorted(regex.groupindex))))
    return TypeSpec("list", TypeSpec("tuple", elements=(STRING,) * regex.groups))


@builtin("regexall", 2, params=("pattern: string", "string: string"), returns=_list_of_matches)
def _regexall(args: list[Value]) -> Value:
    regex = compile_re2(str_arg(args[0], "pattern"))
    shape = _result_shape(regex)
    return [_match_value(regex, shape, match) for match in go_find_all(regex, str_arg(args[1], "string"))]


# The family's built-ins, for the registry.
SPECS = (_regex, _regexall)
