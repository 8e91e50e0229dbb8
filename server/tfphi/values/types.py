"""Terraform type constraints (``type = ...`` of a variable) and the conversion applied at the boundary."""

from __future__ import annotations

from typing import Any

from ..records import record
from .value import TfEvalError, TfSet, Value, to_bool, to_number, to_string, value_key

PRIMITIVES = ("string", "number", "bool", "any")


@record(frozen=True, slots=True)
class TypeSpec:
    """``kind`` is a primitive, or list/set/map (``element``), tuple (``elements``) or object (``attrs``)."""

    kind: str
    element: "TypeSpec | None" = None
    elements: tuple["TypeSpec", ...] = ()
    attrs: tuple[tuple[str, "TypeSpec", bool, Any], ...] = ()  # name, type, optional, default


ANY = TypeSpec("any")


def convert(value: Value, spec: TypeSpec) -> Value:
    """Converts ``value`` to ``spec`` as Terraform does for a variable; raises TfEvalError."""
    if value is None or spec.kind == "any":
        return value
    kind = spec.kind
    if kind == "string":
        if isinstance(value, (list, dict)):
            raise TfEvalError("a string is required")
        return to_string(value)
    if kind == "number":
        return to_number(value)
    if kind == "bool":
        return to_bool(value)
    if kind in ("list", "set"):
        if not isinstance(value, list):
            raise TfEvalError(f"a {kind} is required")
        items = [convert(v, spec.element or ANY) for v in value]
        if kind == "set":
            seen, unique = set(), []
            for item in items:
                key = value_key(item)
                if key not in seen:
                    seen.add(key)
                    unique.append(item)
            items = TfSet(sorted(unique, key=value_key) if all(isinstance(i, str) for i in unique) else unique)
        return items
    if kind == "map":
        if not isinstance(value, dict):
            raise TfEvalError("a map is required")
        return {k: convert(v, spec.element or ANY) for k, v in value.items()}
    if kind == "tuple":
        if not isinstance(value, list) or len(value) != len(spec.elements):
            raise TfEvalError("a tuple of the declared length is required")
        return [convert(v, t) for v, t in zip(value, spec.elements)]
    if kind == "object":
        if not isinstance(value, dict):
            raise TfEvalError("an object is required")
        result: dict[str, Value] = {}
        for name, attr_type, optional, default in spec.attrs:
            if name in value and value[name] is not None:
                result[name] = convert(value[name], attr_type)
            elif optional:
                result[name] = convert(default, attr_type) if default is not None else None
            elif name in value:
                result[name] = None
            else:
                raise TfEvalError(f'attribute "{name}" is required')
        return result
    return value
