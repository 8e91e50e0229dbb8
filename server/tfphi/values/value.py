"""Terraform values as plain Python data, shared by the tracer and every output.

A Terraform value is one of: ``str``, ``bool``, ``int`` or ``float`` (number), ``None`` (null),
``list`` (tuple/list/set values) or ``dict`` with string keys (object/map values).
Lists and dicts are never mutated after construction; ``value_key`` gives the hashable
identity used to coalesce equal values.
"""

from __future__ import annotations

import json
import math
import unicodedata
from decimal import Context, Decimal
from typing import Any, Union

from ..lazy_re import lazy_compile

Value = Union[str, bool, int, float, None, list, dict]


class TfEvalError(Exception):
    """A Terraform evaluation error (type mismatch, bad argument, ...): the value does not exist.

    Only this exception means "Terraform rejects this". A Python error (TypeError, KeyError,
    ValueError, ...) raised while evaluating is a bug in tfphi and must never be read as one.
    """


class TfUnrepresentable(OverflowError):
    """Terraform evaluates this without error, but tfphi cannot hold the result: an infinite
    number, or a value Terraform itself leaves unknown until apply (``format("%v", null)``).
    Not a TfEvalError: the answer is Unbounded, never "Terraform rejects this". (An
    OverflowError so that the tracer's combine, which answers Unbounded for overflows, already
    does the right thing with it.)"""


class TfSet(list):
    """A Terraform set value. It reads like a list (iteration, length, membership), but Terraform
    has no position in a set: ``s[0]``, ``element(s, 0)`` and ``concat(s)`` reject it."""


def nfc(text: str) -> str:
    """Terraform holds every string in Unicode normal form C (cty normalizes each one), so
    ``"e\\u0301" == "\\u00e9"`` is true; tfphi's strings must be NFC too."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def nfc_value(value: "Value") -> "Value":
    """``value`` with every string and object key in NFC, as Terraform holds them (``nfc``)."""
    if isinstance(value, str):
        return nfc(value)
    if isinstance(value, dict):
        return {nfc(k): nfc_value(v) for k, v in value.items()}
    if isinstance(value, TfSet):
        out = TfSet()
        for item in map(nfc_value, value):
            if item not in out:  # two spellings of one string are one element
                out.append(item)
        return out
    if isinstance(value, list):
        return [nfc_value(v) for v in value]
    return value


# Terraform numbers are arbitrary-precision decimals (512-bit floats): 0.1 + 0.2 is 0.3. tfphi
# keeps floats, but does + - * / % on the decimals they were written as, so results agree.
_ARITHMETIC = Context(prec=100)
_DECIMAL = lazy_compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def exact_decimal(value: int | float) -> Decimal:
    """The decimal a number was written as (the shortest repr of a float)."""
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


def from_decimal(value: Decimal) -> int | float:
    """A decimal result as a tfphi number; beyond a float's range it cannot be held."""
    if value == value.to_integral_value():
        return int(value)
    result = float(value)
    if not math.isfinite(result):
        raise TfUnrepresentable(f"the number {value} is beyond what tfphi represents")
    return normalize_number(result)


def arithmetic(op: str, a: int | float, b: int | float) -> int | float:
    """``a op b`` for op in + - * / %, as Terraform computes it (division by zero is the caller's)."""
    x, y = exact_decimal(a), exact_decimal(b)
    if op == "+":
        return from_decimal(_ARITHMETIC.add(x, y))
    if op == "-":
        return from_decimal(_ARITHMETIC.subtract(x, y))
    if op == "*":
        return from_decimal(_ARITHMETIC.multiply(x, y))
    if op == "/":
        return from_decimal(_ARITHMETIC.divide(x, y))
    if op == "%":
        return from_decimal(_ARITHMETIC.remainder(x, y))  # truncated toward zero, as Terraform's
    raise TfEvalError(f"unknown operator {op}")


def is_number(value: Any) -> bool:
    """True for Terraform numbers (Python bool is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def normalize_number(value: float | int) -> int | float:
    """Integral floats become ints so that 2.0 and 2 are the same Terraform number."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def value_key(value: Value) -> str:
    """A canonical, hashable identity for a value (equal Terraform values give equal keys)."""
    return json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"))


def _canonical(value: Value) -> Any:
    if is_number(value):
        return normalize_number(value)
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    return value


def values_equal(a: Value, b: Value) -> bool:
    """Terraform's ``==``: same type and same value (``1 == "1"`` is false)."""
    return value_key(a) == value_key(b)


def type_name(value: Value) -> str:
    """The Terraform type name of a value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "object"


def format_number(value: int | float) -> str:
    """A number as Terraform prints it (``15``, ``1.5``, never ``15.0``)."""
    value = normalize_number(value)
    if isinstance(value, int):
        return str(value)
    text = repr(value)
    return text


def to_hcl(value: Value) -> str:
    """The value as an HCL literal expression (``"15.4"``, ``["a", "b"]``, ``{ k = 1 }``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return format_number(value)
    if isinstance(value, str):
        return hcl_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(to_hcl(v) for v in value) + "]"
    items = ", ".join(f"{_hcl_key(k)} = {to_hcl(v)}" for k, v in value.items())
    return "{ " + items + " }" if items else "{}"


def _hcl_key(key: str) -> str:
    if key and (key[0].isalpha() or key[0] == "_") and all(c.isalnum() or c in "_-" for c in key):
        return key
    return hcl_string(key)


def hcl_string(text: str) -> str:
    """A quoted HCL string literal, escaping quotes, backslashes and template sequences."""
    out = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
        .replace("${", "$${")
        .replace("%{", "%%{")
    )
    return f'"{out}"'


def to_json(value: Value) -> Any:
    """The JSON form of a value (numbers normalized)."""
    return _canonical(value)


def to_display(value: Value) -> str:
    """A short human form for hovers and inlay hints (strings quoted, like HCL)."""
    return to_hcl(value)


def to_string(value: Value) -> str:
    """Terraform's automatic conversion to string (for templates and ``tostring``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return format_number(value)
    if value is None:
        raise TfEvalError("cannot convert null to string")
    raise TfEvalError(f"cannot convert {type_name(value)} to string")


def to_number(value: Value) -> int | float:
    """Terraform's automatic conversion to number."""
    if is_number(value):
        return normalize_number(value)
    if isinstance(value, str):
        # Terraform's decimal syntax only: no spaces, underscores or 0x (Python's int() takes them)
        if value.lstrip("+-") in ("inf", "Inf"):
            raise TfUnrepresentable(f'"{value}" converts to an infinite number')
        if not _DECIMAL.fullmatch(value):
            raise TfEvalError(f'cannot convert "{value}" to number')
        return from_decimal(Decimal(value))
    raise TfEvalError(f"cannot convert {type_name(value)} to number")


def to_bool(value: Value) -> bool:
    """Terraform's automatic conversion to bool."""
    if isinstance(value, bool):
        return value
    if value == "true":
        return True
    if value == "false":
        return False
    raise TfEvalError(f"cannot convert {type_name(value)} to bool")
