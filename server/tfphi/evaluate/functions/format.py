"""format and formatlist: Go's fmt verbs as cty's stdlib implements them."""

from __future__ import annotations

import re

from ...values.numbers import format_verb, is_whole
from ...values.value import TfEvalError, TfUnrepresentable, Value, format_number, is_number, to_string
from .spec import builtin
from .encoding import json_encode, json_string
from .strings import graphemes
from .arguments import str_arg, number_arg, bool_arg


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
    """cty's formatPadWidth: the width counts grapheme clusters ("👍🏽" is one)."""
    length = len(body) if body.isascii() else len(graphemes(body))
    if width is None or length >= width:
        return body
    fill = width - length
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


def _format_verb(verb: str, flags: str, width: int | None, precision: int | None, value: Value, position: int) -> str:
    if verb == "v":
        if "#" in flags:
            return _pad(json_encode(value), flags, width, False)
        if value is None:
            return _pad("null", flags, width, False)
        if isinstance(value, (list, dict)):
            return _pad(json_encode(value), flags, width, False)
        if is_number(value):  # cty: Text('g', -1), the shortest %g (1e+06, 1.5e-07)
            return _pad(format_verb(value, "g", None), flags, width, True)
        return _pad(to_string(value), flags, width, False)
    if value is None:
        raise TfEvalError(f"unsupported value for %{verb} at {position}: null value cannot be formatted")
    if verb == "s":
        text = str_arg(value, f"value for %s at {position}")
        if precision:  # cty: a precision of 0 keeps the whole string; it counts grapheme clusters
            text = "".join(graphemes(text)[:precision])
        return _pad(text, flags, width, False)
    if verb == "q":
        text = str_arg(value, f"value for %q at {position}")
        return _pad(json_string(text), flags, width, False)  # Go's JSON: < > & escaped
    if verb == "t":
        return _pad("true" if bool_arg(value, f"value for %t at {position}") else "false", flags, width, False)
    if verb in "dboxX":
        number = number_arg(value, f"value for %{verb} at {position}")
        if not is_whole(number):
            raise TfEvalError(
                f"unsupported value for %{verb} at {position}: {format_number(number)} is not a whole number"
            )
        number = int(number)
        digits = format(abs(number), {"d": "d", "b": "b", "o": "o", "x": "x", "X": "X"}[verb])
        if "#" in flags:
            digits = {"b": "0b", "o": "0", "x": "0x", "X": "0X"}.get(verb, "") + digits
        return _pad(_sign(number < 0, flags) + digits, flags, width, True)
    if verb in "eEfFgG":
        number = number_arg(value, f"value for %{verb} at {position}")
        text = format_verb(number, verb, precision)
        sign, body = (text[0], text[1:]) if text[:1] in ("-", "+") else ("", text)
        if sign == "+" and " " in flags:  # +Inf
            sign = " "
        elif not sign:
            sign = "+" if "+" in flags else " " if " " in flags else ""
        fill = max((width or 0) - len(sign) - len(body), 0)
        if "0" in flags and body != "Inf":
            return sign + "0" * fill + body
        if "-" in flags:
            return sign + body + " " * fill
        return " " * fill + sign + body
    raise TfEvalError(f"unsupported format verb %{verb}")


@builtin("format", 1, None, params=("format: string",), variadic="args: dynamic?")
def _format_fn(args: list[Value]) -> Value:
    if any(arg is None for arg in args[1:]):
        # Terraform leaves format() of a null argument unknown at plan time
        raise TfUnrepresentable("format() with a null argument is only known when Terraform applies")
    return _format(str_arg(args[0], "format"), args[1:])


@builtin("formatlist", 1, None, params=("format: string",), variadic="args: dynamic?", returns="list(string)")
def _formatlist(args: list[Value]) -> Value:
    fmt = str_arg(args[0], "format")
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


# The family's built-ins, for the registry.
SPECS = (_format_fn, _formatlist)
