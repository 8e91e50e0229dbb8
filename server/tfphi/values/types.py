"""Terraform type constraints (``type = ...`` of a variable) and the conversion applied at the boundary."""

from __future__ import annotations

from typing import Any

from ..records import record
from .sets import make_set
from .value import TfEvalError, TfList, TfMap, TfSet, Value, is_number, to_bool, to_number, to_string, with_element

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
    """``value`` converted to ``spec`` as cty's ``convert`` does (a variable's type, ``tolist``,
    ``tomap``...); raises TfEvalError where no conversion exists. A null stays null."""
    if value is None or spec.kind == "any":
        return value
    kind = spec.kind
    if kind == "string":
        if isinstance(value, (list, dict)):
            raise TfEvalError("a string is required")
        return to_string(value)
    if kind == "number":
        if isinstance(value, (list, dict)):
            raise TfEvalError("a number is required")
        return to_number(value)
    if kind == "bool":
        if isinstance(value, (list, dict)):
            raise TfEvalError("a bool is required")
        return to_bool(value)
    if kind in ("list", "set"):
        if not isinstance(value, list):
            raise TfEvalError(f"a {kind} is required")
        element = _target_element(value, spec)
        items = [convert(v, element) for v in value] if element is not None else list(value)
        return with_element(make_set(items) if kind == "set" else TfList(items), _concrete(element, items))
    if kind == "map":
        if not isinstance(value, dict):
            raise TfEvalError("a map is required")
        element = _target_element(value, spec)
        converted = TfMap((k, convert(v, element) if element is not None else v) for k, v in value.items())
        return with_element(converted, _concrete(element, converted.values()))
    if kind == "tuple":
        if not isinstance(value, list) or isinstance(value, TfSet) or len(value) != len(spec.elements):
            raise TfEvalError("a tuple of the declared length is required")
        return [convert(v, t) for v, t in zip(value, spec.elements)]
    if kind == "object":
        if not isinstance(value, dict):
            raise TfEvalError("an object is required")
        return convert_object(value, spec, convert)
    return value


def convert_object(value: dict, spec: TypeSpec, convert_member) -> dict[str, Value]:
    """An object value converted to the object type ``spec``: each attribute by ``convert_member``,
    an absent or null optional one by its default (or null), a missing required one an error."""
    result: dict[str, Value] = {}
    for name, attr_type, optional, default in spec.attrs:
        if name in value and value[name] is not None:
            result[name] = convert_member(value[name], attr_type)
        elif optional:
            result[name] = convert(default, attr_type) if default is not None else None
        elif name in value:
            result[name] = None
        else:
            raise TfEvalError(f'attribute "{name}" is required')
    return result


def _target_element(value, spec: TypeSpec) -> "TypeSpec | None":
    """The element type a conversion to list/set/map(``spec.element``) gives: the declared one,
    or for ``any`` the elements' unified type (None when nothing says it: an empty tuple); the
    source's element type must convert to it (an empty list of tuples is no list of strings)."""
    element = spec.element if spec.element is not None and spec.element.kind != "any" else None
    source = getattr(value, "element", None)
    members = value.values() if isinstance(value, dict) else value
    if element is None:
        unified = unify_all([source, *map(type_of, members)])
        if unified is None and type(value) in (list, dict):
            return ANY  # an empty tuple or object becomes a collection of any type (tolist([]) is list(dynamic))
        return unified
    if source is not None and not convertible(source, element):
        raise TfEvalError(f"a {show(source)} cannot become a {show(element)}")
    return element


def _concrete(element: "TypeSpec | None", items) -> "TypeSpec | None":
    """A target element type with ``any`` inside (``list(list(any))``) made what the converted
    elements are (``list(list(string))``)."""
    if element is None or not _has_any(element):
        return element
    return unify_all(map(type_of, items)) or element


def _has_any(spec: "TypeSpec | None") -> bool:
    if spec is None or spec.kind == "any":
        return True
    return _has_any(spec.element) if spec.kind in ("list", "set", "map") else any(map(_has_any, spec.elements)) or any(_has_any(a) for _, a, *_ in spec.attrs)


def convertible(source: TypeSpec, target: TypeSpec) -> bool:
    """Whether cty converts a value of type ``source`` to ``target`` (unsafe conversions included:
    a string may become a number)."""
    if target.kind == "any" or source.kind == "any" or source == target:
        return True
    primitives = ("string", "number", "bool")
    if source.kind in primitives or target.kind in primitives:
        return source.kind in primitives and target.kind in primitives and "string" in (source.kind, target.kind)
    if target.kind in ("list", "set"):
        if source.kind in ("list", "set"):
            return source.element is None or target.element is None or convertible(source.element, target.element)
        return source.kind == "tuple" and all(target.element is None or convertible(e, target.element) for e in source.elements)
    if target.kind == "map":
        if source.kind == "map":
            return source.element is None or target.element is None or convertible(source.element, target.element)
        return source.kind == "object" and all(target.element is None or convertible(a, target.element) for _, a, *_ in source.attrs)
    if target.kind == "tuple":
        return source.kind == "tuple" and len(source.elements) == len(target.elements) and all(map(convertible, source.elements, target.elements))
    if target.kind == "object":
        return source.kind in ("object", "map")
    return False


def show(spec: "TypeSpec | None") -> str:
    """A type in Terraform's syntax (``list(string)``)."""
    if spec is None or spec.kind == "any":
        return "any"
    if spec.kind in ("list", "set", "map"):
        return f"{spec.kind}({show(spec.element)})"
    if spec.kind == "tuple":
        return "tuple([" + ", ".join(map(show, spec.elements)) + "])"
    if spec.kind == "object":
        return "object({" + ", ".join(f"{name} = {show(attr)}" for name, attr, *_ in spec.attrs) + "})"
    return spec.kind


def unify_type(a: "TypeSpec | None", b: "TypeSpec | None") -> "TypeSpec | None":
    """cty's type unification of two types (None: the type of a null, which unifies with any);
    raises TfEvalError where the types have no common type."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if a.kind == "any":  # (an empty collection of any type converts to any collection)
        return b
    if b.kind == "any":
        return a
    kinds = {a.kind, b.kind}
    if kinds <= {"string", "number", "bool"}:
        if "string" in kinds:
            return TypeSpec("string")
        raise TfEvalError("number and bool have no common type")
    if a.kind == b.kind and a.kind in ("list", "set", "map"):
        return TypeSpec(a.kind, unify_type(a.element, b.element))
    if kinds <= {"tuple", "list"}:
        if a.kind == b.kind == "tuple" and len(a.elements) == len(b.elements):
            return TypeSpec("tuple", elements=tuple(unify_all([x, y]) for x, y in zip(a.elements, b.elements)))
        return TypeSpec("list", unify_all(_members(a) + _members(b)))
    if kinds <= {"object", "map"}:
        if a.kind == b.kind == "object" and [n for n, *_ in a.attrs] == [n for n, *_ in b.attrs]:
            return TypeSpec("object", attrs=tuple((n, unify_all([x, y]), False, None) for (n, x, *_), (_, y, *_) in zip(a.attrs, b.attrs)))
        return TypeSpec("map", unify_all(_members(a) + _members(b)))
    raise TfEvalError(f"{a.kind} and {b.kind} have no common type")


def _members(spec: TypeSpec) -> list:
    if spec.kind in ("list", "set", "map"):
        return [spec.element]
    if spec.kind == "tuple":
        return list(spec.elements)
    return [attr for _, attr, *_ in spec.attrs]


def unify_all(types) -> "TypeSpec | None":
    unified = None
    for spec in types:
        unified = unify_type(unified, spec)
    return unified


def unify_values(values: list[Value], others=()) -> list[Value]:
    """The values converted to their unified type (``[1, "a"]`` as strings), ``others`` (the
    other arm of a conditional) counting for the type only; TfEvalError when there is none."""
    unified = unify_all(type_of(v) for v in [*values, *others])
    if unified is None:
        return list(values)
    return [convert(v, unified) for v in values]


def type_of(value: Value) -> "TypeSpec | None":
    """The Terraform type of a value as far as tfphi's value says it (None: not known, as the type
    of a null or of an empty collection's elements)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return TypeSpec("bool")
    if is_number(value):
        return TypeSpec("number")
    if isinstance(value, str):
        return TypeSpec("string")
    if isinstance(value, (TfSet, TfList)):
        return TypeSpec("set" if isinstance(value, TfSet) else "list", value.element or _element_type(value))
    if isinstance(value, TfMap):
        return TypeSpec("map", value.element or _element_type(value.values()))
    if isinstance(value, list):
        return TypeSpec("tuple", elements=tuple(type_of(v) for v in value))
    if isinstance(value, dict):
        return TypeSpec("object", attrs=tuple((k, type_of(value[k]), False, None) for k in sorted(value)))
    return None  # a value the tracer does not know yet (trace.partial.Unknown): of any type


def _element_type(values) -> "TypeSpec | None":
    known = [spec for spec in map(type_of, values) if spec is not None]
    return known[0] if known else None
