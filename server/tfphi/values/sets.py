"""Terraform sets as cty builds them: which elements are one, and the order they iterate in.

cty keeps a set's elements in hash buckets (CRC-32 of a canonical text of the element), the
buckets in ascending hash order and each bucket in insertion order, and two elements are one
when they are in one bucket and equal. Iterating a set (``for``, ``tolist``, ``jsonencode``)
then sorts that sequence stably: strings lexically, numbers ascending, false before true,
nulls last, and any other element type by the bytes of its canonical text. So ``toset([10, 9,
1, 100])`` iterates 1, 9, 10, 100, and ``toset([0, -0])`` holds both (``-0`` and ``0`` hash
differently, though they are equal).
"""

from __future__ import annotations

import functools
import zlib
from typing import Iterable

from .numbers import compare, hash_text, is_number
from .value import TfList, TfMap, TfSet, Value, value_key


def make_set(elements: Iterable[Value]) -> TfSet:
    """The set of ``elements`` (already of one element type), in cty's iteration order."""
    buckets: dict[int, list[Value]] = {}
    for element in elements:
        bucket = buckets.setdefault(_bucket(element), [])
        key = value_key(element)
        if not any(key == value_key(other) for other in bucket):
            bucket.append(element)
    ordered = [element for _, bucket in sorted(buckets.items()) for element in bucket]
    present = [e for e in ordered if e is not None]
    if present and all(isinstance(e, str) for e in present):
        less = _string_less
    elif present and all(isinstance(e, bool) for e in present):
        less = _bool_less
    elif present and all(is_number(e) for e in present):
        less = _number_less
    else:
        less = _hash_less
    return TfSet(sorted(ordered, key=functools.cmp_to_key(_comparison(less))))


def set_has(elements: Iterable[Value], value: Value) -> bool:
    """cty's membership: an element in ``value``'s hash bucket that equals it (``-0`` is not in ``toset([0])``)."""
    bucket, key = _bucket(value), value_key(value)
    return any(_bucket(e) == bucket and value_key(e) == key for e in elements)


def _bucket(value: Value) -> int:
    return zlib.crc32(hash_text_of(value).encode("utf-8"))


def _comparison(less):
    def compare_elements(a: Value, b: Value) -> int:
        if a is None or b is None:
            return 0 if a is b else (1 if a is None else -1)  # nulls last
        if value_key(a) == value_key(b):  # cty's Less: equal elements (["x", 0] and ["x", -0]) keep their bucket order
            return 0
        return -1 if less(a, b) else 1 if less(b, a) else 0

    return compare_elements


def _string_less(a: str, b: str) -> bool:
    return a < b  # code point order is UTF-8 byte order


def _bool_less(a: bool, b: bool) -> bool:
    return not a and b


def _number_less(a, b) -> bool:
    return compare(a, b) < 0


def _hash_less(a: Value, b: Value) -> bool:
    return hash_text_of(a).encode("utf-8") < hash_text_of(b).encode("utf-8")


def hash_text_of(value: Value) -> str:
    """cty's ``appendSetHashBytes``: the canonical text a set element is hashed and ordered by."""
    if value is None:
        return "~"
    if isinstance(value, bool):
        return "T" if value else "F"
    if is_number(value):
        return hash_text(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, TfMap):
        return "{" + "".join(f"{go_quote(k)}:{hash_text_of(value[k])};" for k in sorted(value)) + "}"
    if isinstance(value, (TfList, TfSet)):
        return "[" + "".join(hash_text_of(v) + ";" for v in value) + "]"
    if isinstance(value, dict):  # an object: attribute values in name order, names left out
        return "<" + "".join(hash_text_of(value[k]) + ";" for k in sorted(value)) + ">"
    return "<" + "".join(hash_text_of(v) + ";" for v in value) + ">"  # a tuple


_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote`` (``%q``): printable runes as they are, others escaped."""
    out = ['"']
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)
