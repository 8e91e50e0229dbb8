"""Argument conversion helpers shared by the function families."""

from __future__ import annotations

import math
import re
from typing import Any

from ...values.numbers import is_whole
from ...values.sets import make_set
from ...values.types import unify_values
from ...values.value import TfEvalError, TfSet, Value, format_number, normalize_number, to_number, to_string, type_name


# ---------------------------------------------------------------------------------------------
# Argument conversion helpers


NUMBER_TEXT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def not_null(value: Value, what: str) -> None:
    if value is None:
        raise TfEvalError(f"{what} must not be null")


def str_arg(value: Value, what: str = "argument") -> str:
    not_null(value, what)
    if isinstance(value, (list, dict)):
        raise TfEvalError(f"{what} must be a string, not {type_name(value)}")
    return to_string(value)


def number_arg(value: Value, what: str = "argument") -> Any:
    not_null(value, what)
    if isinstance(value, bool) or isinstance(value, (list, dict)):
        raise TfEvalError(f"{what} must be a number, not {type_name(value)}")
    if isinstance(value, str):
        if not NUMBER_TEXT.fullmatch(value):
            raise TfEvalError(f'{what} must be a number; cannot convert "{value}" to number')
        return to_number(value)
    return normalize_number(value)


def int_arg(value: Value, what: str = "argument") -> int:
    number = number_arg(value, what)
    if not isinstance(number, int):
        if not is_whole(number):
            raise TfEvalError(f"{what} must be a whole number, got {format_number(number)}")
        number = int(number)  # -0
    if not -(2**63) <= number < 2**63:  # gocty converts to a Go int
        raise TfEvalError(f"{what} must be a whole number between -9223372036854775808 and 9223372036854775807")
    return int(number)


def bool_arg(value: Value, what: str = "argument") -> bool:
    not_null(value, what)
    if isinstance(value, bool):
        return value
    if value == "true":
        return True
    if value == "false":
        return False
    if isinstance(value, str):
        raise TfEvalError(f'{what} must be a bool; cannot convert "{value}" to bool')
    raise TfEvalError(f"{what} must be a bool, not {type_name(value)}")


def list_arg(value: Value, what: str = "argument") -> list:
    not_null(value, what)
    if not isinstance(value, list):
        raise TfEvalError(f"{what} must be a list, set or tuple, not {type_name(value)}")
    return value


def sequence_arg(value: Value, what: str = "argument") -> list:
    """A list or tuple: Terraform rejects a set where an element's position matters."""
    items = list_arg(value, what)
    if isinstance(items, TfSet):
        raise TfEvalError(f"{what} must be a list or tuple, not a set (a set's elements have no position)")
    return items


def object_arg(value: Value, what: str = "argument") -> dict:
    not_null(value, what)
    if not isinstance(value, dict):
        raise TfEvalError(f"{what} must be a map or object, not {type_name(value)}")
    return value


def string_list_arg(value: Value, what: str = "argument") -> list[str]:
    return [str_arg(item, f"element {i} of {what}") for i, item in enumerate(list_arg(value, what))]


def number_list_arg(value: Value, what: str = "argument") -> list:
    return [number_arg(item, f"element {i} of {what}") for i, item in enumerate(list_arg(value, what))]


def number_result(value: Any) -> Any:
    """A Go float64 result (cty.NumberFloatVal: 53 bits); NaN is an error."""
    if isinstance(value, float) and math.isnan(value):
        raise TfEvalError("result is not a number (NaN)")
    return normalize_number(value)


def unify_elements(values: list[Value], what: str) -> list[Value]:
    """The elements converted to their unified type, as cty does for a list, set or map
    (``[1, "a"]`` as strings, a tuple and a list as a list); an error where there is none."""
    try:
        return unify_values(list(values))
    except TfEvalError as exc:
        raise TfEvalError(f"{what}: all elements must have the same type ({exc})") from None


def unify_collections(lists: list[list[Value]]) -> list[list[Value]]:
    """Several collections converted to one element type (set functions compare across them)."""
    flat = unify_elements([v for items in lists for v in items], "sets")
    out, start = [], 0
    for items in lists:
        out.append(flat[start : start + len(items)])
        start += len(items)
    return out


def set_sorted(values: list[Value]) -> TfSet:
    """The set of the values (already of one type), as cty orders it."""
    return make_set(values)
