"""Terraform numbers as cty holds them: Go ``big.Float`` values, binary with a mantissa of a
given precision, rounded to nearest even.

A number is a Python ``int`` or a gmpy2 ``mpfr``:

- an ``int`` is a whole number of precision 512 (a literal, a conversion from a string, the
  result of arithmetic on such numbers): Python computes + - * on it exactly, and a result
  wider than 512 bits is rounded as cty rounds it. ``Whole`` is an ``int`` that remembers a
  lower precision (``length()`` is a Go int64: 64 bits; ``pow()`` a float64: 53 bits), which
  matters when two such numbers are divided (``length(a) / length(b)`` has 64 bits);
- an ``mpfr`` is every other number: a fraction, ``-0``, an infinity, with its own precision.

The precision of a result is cty's: the larger of the operands' (a product keeps the bits it
needs, up to 512). A number prints as Go's ``Text('f', -1)``: the shortest decimal that reads
back to the same binary value at its precision, never in exponent notation (``1/3`` has 155
digits, ``1.1 * 1.1`` is ``1.21`` followed by 151 zeros and a ``1``, ``0.1 + 0.2`` is ``0.3``).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Union

from .errors import TfEvalError, TfUnrepresentable

PRECISION = 512  # cty.ParseNumberVal: big.ParseFloat(s, 10, 512, big.ToNearestEven)
FLOAT64 = 53  # cty.NumberFloatVal
INT64 = 64  # cty.NumberIntVal (big.Float.SetInt64)

mpfr = Any  # gmpy2.mpfr (annotations only: gmpy2 is imported on first use)
Number = Union[int, mpfr]


def _gm():
    """gmpy2, imported when a number first needs it: its import (which reads importlib.metadata)
    costs ~30 ms, and most checks hold whole numbers only (Python's ints)."""
    import gmpy2

    return gmpy2


def is_fraction(value: object) -> bool:
    """True for an mpfr number (a fraction, ``-0``, an infinity, or a low-precision float64 result)."""
    return type(value).__name__ == "mpfr"


class Whole(int):
    """A whole number held at a precision below 512 bits (an int64 or float64 result in Go)."""

    precision: int

    def __new__(cls, value: int, precision: int) -> "Whole":
        whole = super().__new__(cls, value)
        whole.precision = precision
        return whole

    def __repr__(self) -> str:
        return f"Whole({int(self)}, {self.precision})"

    def __reduce__(self):
        return (Whole, (int(self), self.precision))


@functools.lru_cache(maxsize=64)
def _context(precision: int) -> Any:
    """A gmpy2 context rounding as big.Float does: to nearest even, with Go's exponent range."""
    gmpy2 = _gm()
    return gmpy2.context(precision=precision, round=gmpy2.RoundToNearest, emax=2**31, emin=-(2**31),
                         subnormalize=False, trap_divzero=False, trap_invalid=False, trap_overflow=False)


def is_number(value: object) -> bool:
    """True for Terraform numbers (Python's bool is not one)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or is_fraction(value)


def precision_of(value: Number) -> int:
    if is_fraction(value):
        return value.precision
    if isinstance(value, Whole):
        return value.precision
    return max(PRECISION, value.bit_length())


def _exact(value: Number) -> mpfr:
    """``value`` as an mpfr at its precision (a whole number is exact at its precision)."""
    if is_fraction(value):
        return value
    return _gm().mpfr(int(value), precision_of(value))


def normalize(value: mpfr) -> Number:
    """An mpfr result as tfphi holds it: a finite whole number that is not ``-0`` becomes an int."""
    if not _gm().is_finite(value) or not _gm().is_integer(value):
        return value
    if _gm().is_zero(value):
        return value if _gm().is_signed(value) else 0
    whole = int(value)
    if value.precision == PRECISION and whole.bit_length() <= PRECISION:
        return whole
    return Whole(whole, value.precision)


def _rounded_int(value: int, precision: int) -> Number:
    """A whole result wider than its precision, rounded as big.Float rounds it."""
    if value.bit_length() <= precision:
        return value if precision == PRECISION else Whole(value, precision)
    return normalize(_context(precision).plus(_gm().mpfr(value, value.bit_length())))


def rounded_to(value: int, precision: int) -> Number:
    """A whole number set into a big.Float of ``precision`` bits (big.Float.SetInt on a Float that has one)."""
    return _rounded_int(int(value), precision)


def _result(value: mpfr) -> Number:
    if _gm().is_nan(value):
        raise TfEvalError("can't divide zero by zero or infinity by infinity")
    return normalize(value)


def parse_number(text: str) -> Number:
    """A number literal or numeric string as cty.ParseNumberVal reads it (512 bits, nearest even).

    ``text`` must already be a decimal number (``12``, ``-1.5``, ``3e3``, ``.5``); an infinity
    (``Inf``) is a number tfphi cannot hold."""
    stripped = text.lstrip("+-")
    if stripped in ("inf", "Inf"):
        raise TfUnrepresentable(f'"{text}" is an infinite number')
    if stripped.isdigit():
        value = int(text)
        if value == 0 and text.startswith("-"):
            return _gm().mpfr("-0", PRECISION)
        return value if value.bit_length() <= PRECISION else _rounded_int(value, PRECISION)
    return normalize(_gm().mpfr(text, PRECISION))


def from_float(value: float) -> Number:
    """A Go float64 result (cty.NumberFloatVal: 53 bits)."""
    if math.isnan(value):
        raise TfEvalError("the result is not a number (NaN)")
    return normalize(_gm().mpfr(value, FLOAT64))


def to_float(value: Number) -> float:
    """The nearest float64 (for the functions Terraform computes with Go's math package)."""
    return float(value)


def negate(value: Number) -> Number:
    if is_fraction(value):
        return normalize(_context(value.precision).minus(value))  # (unary minus would round to 53 bits)
    if value == 0:
        return _gm().mpfr("-0", precision_of(value))
    return Whole(-int(value), value.precision) if isinstance(value, Whole) else -value


def arithmetic(op: str, a: Number, b: Number) -> Number:
    """``a op b`` for op in + - * / %, as cty computes it; dividing a non-zero number by zero
    gives an infinity (unrepresentable), zero by zero is an error, ``x % 0`` is ``x``."""
    if type(a) is int and type(b) is int:
        if op == "+":
            return _rounded_int(a + b, PRECISION)
        if op == "-":
            return _rounded_int(a - b, PRECISION)
        if op == "*":
            product = a * b
            if product == 0 and (a < 0) != (b < 0):
                return _gm().mpfr("-0", PRECISION)
            return _rounded_int(product, PRECISION)
        if op == "%" and b != 0 and a.bit_length() < PRECISION - 8 and b.bit_length() < PRECISION - 8:
            remainder = abs(a) % abs(b)  # truncated toward zero, as cty's
            return -remainder if a < 0 else remainder
        if op == "/" and b != 0 and a % b == 0:
            quotient = a // b
            if quotient == 0 and (a < 0) != (b < 0):
                return _gm().mpfr("-0", PRECISION)
            return _rounded_int(quotient, PRECISION)
    precision = max(precision_of(a), precision_of(b))
    x, y = _exact(a), _exact(b)
    if op == "+":
        return _result(_context(precision).add(x, y))
    if op == "-":
        return _result(_context(precision).sub(x, y))
    if op == "*":
        product = _context(PRECISION).mul(x, y)
        return _result(_context(max(precision, _min_precision(product))).plus(product))
    if op == "/":
        if _gm().is_zero(y):
            if _gm().is_zero(x):
                raise TfEvalError("can't divide zero by zero or infinity by infinity")
            raise TfUnrepresentable("the result is an infinite number")
        return _result(_context(precision).div(x, y))
    if op == "%":
        return _modulo(a, b, x, y)
    raise TfEvalError(f"unknown operator {op}")


def _min_precision(value: mpfr) -> int:
    """big.Float.MinPrec: the bits the mantissa needs (0 for zero)."""
    if _gm().is_zero(value) or not _gm().is_finite(value):
        return 0
    mantissa, _ = value.as_mantissa_exp()
    mantissa = abs(int(mantissa))
    return mantissa.bit_length() - ((mantissa & -mantissa).bit_length() - 1)


def _modulo(a: Number, b: Number, x: mpfr, y: mpfr) -> Number:
    """cty's Modulo: ``a - b * trunc(a / b)``, at ``a``'s precision; ``a % 0`` is ``a``."""
    if _gm().is_infinite(x) or _gm().is_infinite(y):
        raise TfUnrepresentable("the result is an infinite number")
    if _gm().is_zero(y):
        return a
    ratio = _context(max(precision_of(a), precision_of(b))).div(x, y)
    truncated = int(_context(ratio.precision).trunc(ratio))  # toward zero (int() of an mpfr rounds to nearest)
    context = _context(precision_of(a))
    work = context.plus(_gm().mpfr(truncated, max(truncated.bit_length(), 1)))
    work = context.mul(y, work)
    return _result(context.sub(x, work))


def compare(a: Number, b: Number) -> int:
    """-1, 0 or 1 as ``a`` is below, equal to or above ``b`` (``-0`` equals ``0``)."""
    return -1 if a < b else 1 if a > b else 0


def number_key(value: Number) -> str:
    """The identity of a number for equality: cty's rawNumberEqual says two numbers are equal when
    both are the same whole number or both print the same text (``-0`` equals ``0``)."""
    if isinstance(value, int):
        return str(int(value))
    if _gm().is_zero(value):
        return "0"
    if _gm().is_integer(value) and _gm().is_finite(value):
        return str(int(value))
    return format_number(value) + "~"  # a fraction never equals a whole number


def floor(value: Number) -> Number:
    """cty's Floor: the whole number below, set into the argument's own precision."""
    if isinstance(value, int) or not _gm().is_finite(value):
        return value
    return rounded_to(int(_context(value.precision).floor(value)), value.precision)


def ceil(value: Number) -> Number:
    """cty's Ceil: the whole number above, set into the argument's own precision."""
    if isinstance(value, int) or not _gm().is_finite(value):
        return value
    return rounded_to(int(_context(value.precision).ceil(value)), value.precision)


def is_finite(value: Number) -> bool:
    return isinstance(value, int) or bool(_gm().is_finite(value))


def is_whole(value: Number) -> bool:
    return isinstance(value, int) or (_gm().is_finite(value) and _gm().is_integer(value))


# --- printing ----------------------------------------------------------------------------------


def format_number(value: Number) -> str:
    """The number as Terraform prints it: Go's ``big.Float.Text('f', -1)``."""
    if isinstance(value, int) and (type(value) is int or value.bit_length() <= value.precision):
        return str(int(value))
    x = _exact(value)
    if _gm().is_infinite(x):
        return "-Inf" if x < 0 else "+Inf"
    if _gm().is_zero(x):
        return "-0" if _gm().is_signed(x) else "0"
    digits, point = _shortest(x)
    return ("-" if x < 0 else "") + _fixed(digits, point)


def _decimal(mantissa: int, exponent: int) -> tuple[str, int]:
    """``mantissa * 2**exponent`` as Go's ``decimal``: digits without trailing zeros, and the
    position of the decimal point (value = 0.digits * 10**point)."""
    if mantissa == 0:
        return "", 0
    if exponent >= 0:
        text = str(mantissa << exponent)
        point = len(text)
    else:
        text = str(mantissa * 5 ** (-exponent))
        point = len(text) + exponent
    return text.rstrip("0"), point


def _shortest(x: mpfr) -> tuple[str, int]:
    """big.Float's roundShortest: the fewest digits that still round to ``x`` at its precision.
    The bounds are ``x`` plus and minus half an ulp; their digits are compared position by
    position with ``x``'s, as Go compares them."""
    mantissa, exponent = x.as_mantissa_exp()
    mantissa = abs(int(mantissa))
    digits, point = _decimal(mantissa, exponent)
    shift = mantissa.bit_length() - (x.precision + 1)  # make the last bit half an ulp
    mantissa = mantissa << -shift if shift < 0 else mantissa >> shift
    exponent += shift
    lower, _ = _decimal(mantissa - 1, exponent)
    upper, _ = _decimal(mantissa + 1, exponent)
    inclusive = mantissa & 2 == 0  # the bounds round to x only when x's mantissa is even
    for i, digit in enumerate(digits):
        low = lower[i] if i < len(lower) else "0"
        high = upper[i] if i < len(upper) else "0"
        ok_down = low != digit or (inclusive and i + 1 == len(lower))
        ok_up = digit != high and (inclusive or int(digit) + 1 < int(high) or i + 1 < len(upper))
        if ok_down and ok_up:
            return _round(digits, point, i + 1)
        if ok_down:
            return _round_down(digits, point, i + 1)
        if ok_up:
            return _round_up(digits, point, i + 1)
    return digits, point


def _round(digits: str, point: int, n: int) -> tuple[str, int]:
    if n >= len(digits):
        return digits, point
    if digits[n] == "5" and n + 1 == len(digits):
        up = n > 0 and int(digits[n - 1]) % 2 == 1
    else:
        up = digits[n] >= "5"
    return _round_up(digits, point, n) if up else _round_down(digits, point, n)


def _round_down(digits: str, point: int, n: int) -> tuple[str, int]:
    return digits[:n].rstrip("0"), point


def _round_up(digits: str, point: int, n: int) -> tuple[str, int]:
    head = digits[:n]
    i = len(head) - 1
    while i >= 0 and head[i] == "9":
        i -= 1
    if i < 0:
        return "1", point + 1
    return head[:i] + str(int(head[i]) + 1), point


def _fixed(digits: str, point: int) -> str:
    """Go's fmtF with the shortest precision: all digits, no exponent."""
    if point > 0:
        whole = digits[:point].ljust(point, "0")
        fraction = digits[point:]
    else:
        whole = "0"
        fraction = "0" * -point + digits
    return whole + ("." + fraction if fraction else "")


def hash_text(value: Number) -> str:
    """Go's ``big.Float.String()`` (``Text('g', 10)``), the text cty hashes a number in a set by."""
    return format_verb(value, "g", 10)



def format_verb(value: Number, verb: str, precision: int | None) -> str:
    """``fmt.Sprintf("%<verb>", value)`` for a big.Float (``e E f F g G``), sign included, no
    padding: what cty's ``format`` writes for these verbs (``%.2f`` of 0.125 is ``0.12``: Go
    rounds the exact decimal expansion half to even)."""
    x = _exact(value)
    kind = "f" if verb == "F" else verb.lower()
    upper = verb in "EG"
    negative = _gm().is_signed(x)
    if _gm().is_infinite(x):
        return "-Inf" if negative else "+Inf"
    if _gm().is_zero(x):
        digits, point = "", 0
    else:
        mantissa, exponent = x.as_mantissa_exp()
        digits, point = _decimal(abs(int(mantissa)), exponent)
    shortest = precision is None and kind == "g"
    prec = 6 if precision is None else precision
    if shortest:
        if digits:
            digits, point = _shortest(x)
        prec = len(digits)
    elif kind == "e":
        digits, point = _round_at(digits, point, 1 + prec)
    elif kind == "f":
        digits, point = _round_at(digits, point, point + prec)
    else:
        if prec == 0:
            prec = 1
        digits, point = _round_at(digits, point, prec)
    if kind == "g":
        eprec = prec
        if eprec > len(digits) and len(digits) >= point:
            eprec = len(digits)
        if shortest:
            eprec = 6
        exp = point - 1
        if exp < -4 or exp >= eprec:
            if prec > len(digits):
                prec = len(digits)
            body = _fmt_e(digits, point, prec - 1, "E" if upper else "e")
        else:
            if prec > point:
                prec = len(digits)
            body = _fmt_f(digits, point, max(prec - point, 0))
    elif kind == "e":
        body = _fmt_e(digits, point, prec, "E" if upper else "e")
    else:
        body = _fmt_f(digits, point, prec)
    return ("-" if negative else "") + body


def _round_at(digits: str, point: int, n: int) -> tuple[str, int]:
    """Go's ``decimal.round(n)``: nothing to do when n is out of the digits' range."""
    if n < 0 or n >= len(digits):
        return digits, point
    return _round(digits, point, n)


def _fmt_e(digits: str, point: int, prec: int, letter: str) -> str:
    out = digits[:1] or "0"
    if prec > 0:
        out += "." + digits[1 : prec + 1].ljust(prec, "0")
    exp = point - 1 if digits else 0
    sign = "-" if exp < 0 else "+"
    return f"{out}{letter}{sign}{abs(exp):02d}"


def _fmt_f(digits: str, point: int, prec: int) -> str:
    out = digits[:point].ljust(point, "0") if point > 0 else "0"
    if prec > 0:
        out += "." + "".join(digits[point + i] if 0 <= point + i < len(digits) else "0" for i in range(prec))
    return out
