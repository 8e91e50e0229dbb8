"""Type conversion functions: tostring, tonumber, tobool, tolist, toset, tomap, sensitivity."""

from __future__ import annotations


from ...values.types import ANY, TypeSpec, convert
from ...values.value import TfEvalError, TfUnrepresentable, Value, to_number, to_string, type_name
from .spec import builtin
from .arguments import NUMBER_TEXT


# ---------------------------------------------------------------------------------------------
# Type conversion


@builtin("tostring", 1, params=("v: dynamic?",))
def _tostring(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if isinstance(value, (list, dict)):
        raise TfEvalError(f"cannot convert {type_name(value)} to string")
    return to_string(value)


@builtin("tonumber", 1, params=("v: dynamic?",))
def _tonumber(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if isinstance(value, str) and value.lstrip("+-") in ("inf", "Inf"):
        raise TfUnrepresentable(f'tonumber("{value}") is an infinite number')
    if isinstance(value, str) and not NUMBER_TEXT.fullmatch(value):
        raise TfEvalError(f'cannot convert "{value}" to number: string must be a decimal representation of a number')
    if isinstance(value, bool) or isinstance(value, (list, dict)):
        raise TfEvalError(f"cannot convert {type_name(value)} to number")
    return to_number(value)


@builtin("tobool", 1, params=("v: dynamic?",))
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


@builtin("tolist", 1, params=("v: dynamic?",))
def _tolist(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if not isinstance(value, list):
        raise TfEvalError(f"cannot convert {type_name(value)} to list")
    return convert(value, TypeSpec("list", ANY))


@builtin("toset", 1, params=("v: dynamic?",))
def _toset(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if not isinstance(value, list):
        raise TfEvalError(f"cannot convert {type_name(value)} to set")
    return convert(value, TypeSpec("set", ANY))


@builtin("tomap", 1, params=("v: dynamic?",))
def _tomap(args: list[Value]) -> Value:
    value = args[0]
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TfEvalError(f"cannot convert {type_name(value)} to map")
    return convert(value, TypeSpec("map", ANY))


@builtin("sensitive", 1, params=("value: dynamic?",))
def _sensitive(args: list[Value]) -> Value:
    return args[0]


@builtin("nonsensitive", 1, params=("value: dynamic?",))
def _nonsensitive(args: list[Value]) -> Value:
    return args[0]


@builtin("issensitive", 1, params=("value: dynamic?",))
def _issensitive(args: list[Value]) -> Value:
    # tfphi does not track sensitivity: whether a value is sensitive is not known here
    raise TfUnrepresentable("issensitive(): tfphi does not track which values are sensitive")


@builtin("ephemeralasnull", 1, params=("value: dynamic?",))
def _ephemeralasnull(args: list[Value]) -> Value:
    return args[0]


# The family's built-ins, for the registry.
SPECS = (_tostring, _tonumber, _tobool, _tolist, _toset, _tomap, _sensitive, _nonsensitive, _issensitive,
         _ephemeralasnull)
