"""Terraform values as plain Python data, shared by the tracer and every output.

A Terraform value is one of: ``str``, ``bool``, a number (``int`` or gmpy2 ``mpfr``, as
:mod:`tfphi.values.numbers` holds cty's numbers), ``None`` (null), ``list`` (tuple/list/set
values) or ``dict`` with string keys (object/map values). Lists and dicts are never mutated
after construction; ``value_key`` gives the hashable identity used to coalesce equal values.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, Union

from ..lazy_re import lazy_compile
from .errors import TfEvalError, TfUnrepresentable
from .numbers import arithmetic, format_number, from_float, is_fraction, is_number, normalize, number_key, parse_number

Value = Union[str, bool, int, Any, None, list, dict]  # Any: a gmpy2 mpfr number

__all__ = ["TfEvalError", "TfUnrepresentable", "arithmetic", "format_number", "is_number"]


class TfSet(list):
    """A Terraform set value. It reads like a list (iteration, length, membership), but Terraform
    has no position in a set: ``s[0]``, ``element(s, 0)`` and ``concat(s)`` reject it. Its
    elements are in cty's iteration order (``values.sets.make_set`` builds it).

    ``element`` (on TfSet, TfList, TfMap) is the element type where tfphi knows it (a
    ``values.types.TypeSpec``; None: as the elements say): an empty ``split()`` is still a list of
    strings, an empty ``regexall()`` a list of tuples that ``join`` rejects."""

    element = None


class TfList(list):
    """A Terraform list value: every element of one type. A plain ``list`` is a tuple."""

    element = None


class TfMap(dict):
    """A Terraform map value: every element of one type. A plain ``dict`` is an object."""

    element = None


def with_element(collection, element):
    """``collection`` (a TfList, TfSet or TfMap) with its element type recorded."""
    if element is not None:
        collection.element = element
    return collection


def nfc(text: str) -> str:
    """Terraform holds every string in Unicode normal form C (cty normalizes each one), so
    ``"e\\u0301" == "\\u00e9"`` is true; tfphi's strings must be NFC too."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def nfc_value(value: "Value") -> "Value":
    """``value`` with every string and object key in NFC, as Terraform holds them (``nfc``)."""
    if isinstance(value, str):
        return nfc(value)
    if isinstance(value, dict):
        return with_element(type(value)((nfc(k), nfc_value(v)) for k, v in value.items()), getattr(value, "element", None))
    if isinstance(value, TfSet):
        items = [nfc_value(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        out, strings = with_element(TfSet(), value.element), set()
        for item in items:
            if isinstance(item, str):
                if item in strings:  # two spellings of one string are one element
                    continue
                strings.add(item)
            out.append(item)
        return out
    if isinstance(value, list):
        return with_element(type(value)(nfc_value(v) for v in value), getattr(value, "element", None))
    return value


_DECIMAL = lazy_compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def normalize_number(value: Any) -> Any:
    """A number as tfphi holds it; a Python float is a Go float64 result (53 bits)."""
    if isinstance(value, float):
        return from_float(value)
    if is_fraction(value):
        return normalize(value)
    return value


def from_python(value: Any) -> Value:
    """Plain Python data (a TOML or JSON document, a test's table) as a tfphi value: a float is
    the decimal it prints (``0.1`` is Terraform's ``0.1``, 512 bits)."""
    if isinstance(value, float):
        return parse_number(repr(value))
    if isinstance(value, TfSet):
        return TfSet(from_python(v) for v in value)
    if isinstance(value, list):
        return [from_python(v) for v in value]
    if isinstance(value, dict):
        return {k: from_python(v) for k, v in value.items()}
    return value


def value_key(value: Value) -> str:
    """A canonical, hashable identity for a value (equal Terraform values give equal keys)."""
    return json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"))


def _canonical(value: Value) -> Any:
    if is_number(value):
        return {"\x00": number_key(value)}  # equal numbers have one key (cty's rawNumberEqual)
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        # a list, a set and a tuple of the same elements are different values (cty compares types
        # first); an empty list or set is a value of its element type (UNKNOWN_TYPE: not known)
        return items if type(value) is list else {"\x00" + type(value).__name__: items or _element_mark(value)}
    if isinstance(value, dict):
        members = {k: _canonical(v) for k, v in value.items()}
        return {"\x00map": members or _element_mark(value)} if isinstance(value, TfMap) else members
    return value


UNKNOWN_TYPE = "\x00?"
_UNKNOWN_TYPE_IN_KEY = json.dumps(UNKNOWN_TYPE)[1:-1]  # as value_key's JSON writes it


def _element_mark(collection) -> str:
    return UNKNOWN_TYPE if collection.element is None else repr(collection.element)


def values_equal(a: Value, b: Value) -> bool:
    """Terraform's ``==``: same type and same value (``1 == "1"`` is false, ``tolist([]) ==
    split(",", "a")`` too); where an empty collection's element type is not known, the answer is
    not known either (TfUnrepresentable)."""
    left, right = value_key(a), value_key(b)
    if _UNKNOWN_TYPE_IN_KEY in left or _UNKNOWN_TYPE_IN_KEY in right:
        raise TfUnrepresentable("an empty collection whose element type tfphi does not know is compared")
    return left == right


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


class JsonNumber(float):
    """A number in a JSON document: a float for any JSON encoder, with the text Terraform prints
    for ``json_text`` (a float cannot hold 512 bits)."""

    text: str

    def __new__(cls, value: Value) -> "JsonNumber":
        number = super().__new__(cls, float(value))
        number.text = format_number(value)
        return number


def to_json(value: Value) -> Any:
    """The JSON form of a value: whole numbers as ints, others as ``JsonNumber``."""
    if is_number(value):
        return int(value) if type(value) is int or (isinstance(value, int) and format_number(value) == str(int(value))) else JsonNumber(value)
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def json_text(document: Any, indent: int | None = None) -> str:
    """``json.dumps(document, ensure_ascii=False)`` that prints a ``JsonNumber`` as Terraform does."""
    encoder = json.JSONEncoder(ensure_ascii=False, indent=indent)

    def number_text(number: float, *args: Any) -> str:
        return number.text if isinstance(number, JsonNumber) else float.__repr__(number)

    separator = (",", ": ") if indent is not None else (", ", ": ")
    chunks = json.encoder._make_iterencode(  # the pure-Python encoder: it lets floats print as we say
        {}, encoder.default, json.encoder.py_encode_basestring, " " * indent if indent is not None else None,
        number_text, separator[1], separator[0], False, False, True,
    )(document, 0)
    return "".join(chunks)


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


def to_number(value: Value) -> Any:
    """Terraform's automatic conversion to number."""
    if is_number(value):
        return normalize_number(value)
    if isinstance(value, str):
        # Terraform's decimal syntax only: no spaces, underscores or 0x (Python's int() takes them)
        if value.lstrip("+-") in ("inf", "Inf"):
            raise TfUnrepresentable(f'"{value}" converts to an infinite number')
        if not _DECIMAL.fullmatch(value):
            raise TfEvalError(f'cannot convert "{value}" to number')
        return parse_number(value)
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

