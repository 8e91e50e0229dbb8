"""Terraform operator semantics on concrete values: the one implementation the tracer lifts over
branch sets (checked against terraform console in tests/oracle)."""

from __future__ import annotations

from ..values.numbers import negate
from ..values.types import unify_values
from ..values.value import TfEvalError, TfSet, Value, arithmetic, is_number, to_bool, to_number, to_string, values_equal


def apply_binary(op: str, left: Value, right: Value) -> Value:
    """``left op right`` with Terraform's conversions; raises TfEvalError when it fails."""
    if op == "==":
        return values_equal(left, right)
    if op == "!=":
        return not values_equal(left, right)
    if op in ("&&", "||"):
        if left is None or right is None:
            raise TfEvalError(f"null operand for {op}")
        a, b = to_bool(left), to_bool(right)
        return (a and b) if op == "&&" else (a or b)
    if left is None or right is None:
        raise TfEvalError(f"null operand for {op}")
    a, b = to_number(left), to_number(right)
    if op in ("+", "-", "*", "/", "%"):
        return arithmetic(op, a, b)  # x / 0 is an infinity (unrepresentable), 0 / 0 an error, x % 0 is x
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    if op == ">=":
        return a >= b
    raise TfEvalError(f"unknown operator {op}")


def apply_unary(op: str, operand: Value) -> Value:
    if operand is None:
        raise TfEvalError(f"null operand for {op}")
    if op == "!":
        return not to_bool(operand)
    if op == "-":
        return negate(to_number(operand))
    raise TfEvalError(f"unknown operator {op}")


def get_attribute(value: Value, name: str) -> Value:
    if isinstance(value, dict):
        if name in value:
            return value[name]
        raise TfEvalError(f'object has no attribute "{name}"')
    raise TfEvalError(f'cannot access attribute "{name}" of a {type(value).__name__ if value is not None else "null"} value')


def get_index(value: Value, key: Value) -> Value:
    if isinstance(value, TfSet):
        raise TfEvalError("elements of a set are identified only by their value and have no index")
    if isinstance(value, list):
        index = to_number(key)
        if not isinstance(index, int) or index < 0 or index >= len(value):
            raise TfEvalError(f"index {key} out of range")
        return value[index]
    if isinstance(value, dict):
        name = to_string(key)
        if name in value:
            return value[name]
        raise TfEvalError(f'no element "{name}"')
    raise TfEvalError("cannot index this value")


def result_kinds(values) -> set[str]:
    """The primitive kinds (string, number, bool, other) of non-null values."""
    return {
        "string" if isinstance(v, str) else "bool" if isinstance(v, bool) else "number" if is_number(v) else "other"
        for v in values
        if v is not None
    }


def unify_types(values: list[Value], others: list[Value] = ()) -> list[Value]:
    """HCL's unification of a conditional's arms: every value converted to the arms' common type
    (cty's type unification: ``true ? [1] : ["a"]`` is the list ``["1"]``, objects with different
    attributes a map); TfEvalError where the arms have none (a number and a bool)."""
    return unify_values(values, others)
