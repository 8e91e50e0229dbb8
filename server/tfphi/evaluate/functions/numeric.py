"""Numeric functions (lang/funcs/number.go and cty's stdlib math)."""

from __future__ import annotations

import math


from ...values.gomath import go_pow
from ...values.numbers import INT64, Whole, ceil, floor, is_fraction, is_whole, negate, to_float
from ...values.value import TfEvalError, TfUnrepresentable, arithmetic, Value, format_number
from .spec import builtin
from .arguments import str_arg, number_arg, int_arg, number_list_arg, number_result


# ---------------------------------------------------------------------------------------------
# Numbers


@builtin("min", 1, None, params=(), variadic="numbers: number")
def _min(args: list[Value]) -> Value:
    numbers = [number_arg(v, f"argument {i + 1}") for i, v in enumerate(args)]
    smallest = numbers[0]
    for number in numbers[1:]:
        if number < smallest:  # the first of equal numbers, as cty's MinFunc
            smallest = number
    return smallest


@builtin("max", 1, None, params=(), variadic="numbers: number")
def _max(args: list[Value]) -> Value:
    numbers = [number_arg(v, f"argument {i + 1}") for i, v in enumerate(args)]
    largest = numbers[0]
    for number in numbers[1:]:
        if number > largest:
            largest = number
    return largest


@builtin("abs", 1, params=("num: number",))
def _abs(args: list[Value]) -> Value:
    number = number_arg(args[0], "num")
    return number if number > 0 or (number == 0 and not is_fraction(number)) else negate(number)


@builtin("ceil", 1, params=("num: number",))
def _ceil(args: list[Value]) -> Value:
    return ceil(number_arg(args[0], "num"))


@builtin("floor", 1, params=("num: number",))
def _floor(args: list[Value]) -> Value:
    return floor(number_arg(args[0], "num"))


@builtin("signum", 1, params=("num: number",))
def _signum(args: list[Value]) -> Value:
    number = number_arg(args[0], "num")
    if not is_whole(number) or not -(2**63) <= number < 2**63:  # Terraform takes an int64
        raise TfEvalError(f"num must be a whole number in the 64-bit range, got {format_number(number)}")
    return Whole((number > 0) - (number < 0), INT64)


@builtin("pow", 2, params=("num: number", "power: number"))
def _pow(args: list[Value]) -> Value:
    base = to_float(number_arg(args[0], "num"))
    exponent = to_float(number_arg(args[1], "power"))
    # Terraform computes pow with 64-bit floats (Go's math.Pow)
    result = go_pow(base, exponent)
    if math.isinf(result):
        raise TfUnrepresentable("pow(): the result is an infinite number")
    return number_result(result)


@builtin("log", 2, params=("num: number", "base: number"))
def _log(args: list[Value]) -> Value:
    number = to_float(number_arg(args[0], "num"))
    base = to_float(number_arg(args[1], "base"))
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
    return number_result(top / bottom)


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@builtin("parseint", 2, params=("number: dynamic", "base: number"))
def _parseint(args: list[Value]) -> Value:
    text = str_arg(args[0], "number")
    base = int_arg(args[1], "base")
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
    result = -result if negative else result
    return Whole(result, max(INT64, result.bit_length()))  # big.Float.SetInt


@builtin("sum", 1, params=("list: dynamic",))
def _sum(args: list[Value]) -> Value:
    numbers = number_list_arg(args[0], "list")
    if not numbers:
        raise TfEvalError("cannot sum an empty list")
    total = numbers[0]
    for number in numbers[1:]:
        total = arithmetic("+", total, number)
    return total


# The family's built-ins, for the registry.
SPECS = (_min, _max, _abs, _ceil, _floor, _signum, _pow, _log, _parseint, _sum)
