"""Return-type rules of the collection functions whose result type depends on their arguments'
types, as cty's ``function.Spec.Type`` computes them (a list in, a list out; a tuple in, a tuple
out). Each rule takes the converted arguments and gives the type the result is converted to, or
None: the result is already of its type (a tuple or an object, as the implementation builds it)."""

from __future__ import annotations

import io

from ...values.types import ANY, TypeSpec, type_of, unify_all
from ...values.value import TfList, TfMap, TfSet, Value
from .deferred import csv

LIST = TypeSpec("list", ANY)
MAP = TypeSpec("map", ANY)
STRING = TypeSpec("string")
LIST_OF_STRINGS = TypeSpec("list", STRING)


def element_of(value: Value) -> TypeSpec | None:
    """The element type of a collection (a tuple's or object's members unified: ANY for none);
    None where tfphi does not know it."""
    spec = type_of(value)
    if spec is None:
        return None
    if spec.kind == "tuple":
        return unify_all(spec.elements) or ANY
    if spec.kind == "object":
        return unify_all(a for _, a, *_ in spec.attrs) or ANY
    return spec.element


def concat(args: list[Value]) -> TypeSpec | None:
    """A list when every argument is a list (ConcatFunc), else a tuple."""
    if args and all(isinstance(a, TfList) for a in args):
        return TypeSpec("list", unify_all(map(element_of, args)))
    return None


def merge(args: list[Value]) -> TypeSpec | None:
    """A map when every argument is a map of one element type (MergeFunc: all of one type), else an object."""
    present = [a for a in args if a is not None]
    if present and all(isinstance(a, TfMap) for a in present) and len({repr(type_of(a)) for a in present}) == 1:
        return TypeSpec("map", element_of(present[0]))  # (tomap({}) is a map of any type: merged with a map of strings, an object)
    return None


def list_of_strings_for_a_map(args: list[Value]) -> TypeSpec | None:
    """keys(): a list of strings for a map, a tuple for an object."""
    return LIST_OF_STRINGS if isinstance(args[0], TfMap) else None


def list_for_a_map(args: list[Value]) -> TypeSpec | None:
    """values(): a list for a map, a tuple for an object."""
    return TypeSpec("list", element_of(args[0])) if isinstance(args[0], TfMap) else None


def list_for_a_list_or_set(args: list[Value]) -> TypeSpec | None:
    """reverse(), slice(): a list for a list or a set, a tuple for a tuple."""
    return TypeSpec("list", element_of(args[0])) if isinstance(args[0], (TfList, TfSet)) else None


def zipmap(args: list[Value]) -> TypeSpec | None:
    """zipmap(): a map for a list or set of values, an object for a tuple."""
    return TypeSpec("map", element_of(args[1])) if isinstance(args[1], (TfList, TfSet)) else None


def list_like_the_argument(args: list[Value]) -> TypeSpec:
    """distinct(): a list of the argument's element type."""
    return TypeSpec("list", element_of(args[0]))


def chunks(args: list[Value]) -> TypeSpec:
    """chunklist(): a list of lists of the argument's element type."""
    return TypeSpec("list", TypeSpec("list", element_of(args[0])))


def set_operation(args: list[Value]) -> TypeSpec:
    """setunion/setintersection/setsubtract: a set of the unified element type, where an empty set
    of any type does not count (cty's setOperationReturnType)."""
    elements = []
    for arg in args:
        element = type_of(arg).element if isinstance(arg, (TfSet, TfList)) else None
        if not arg and element is not None and element.kind == "any":
            continue
        elements.append(element)
    return TypeSpec("set", unify_all(elements) or ANY)  # every argument an empty set of any type: a set of any type


def setproduct(args: list[Value]) -> TypeSpec:
    """A list of tuples when every argument is a list or tuple, else a set of tuples (cty's SetProductFunc)."""
    elements, lists = [], 0
    for arg in args:
        spec = type_of(arg)
        if spec is not None and spec.kind == "tuple":
            lists += 1
            elements.append(unify_all(spec.elements) or ANY)
        else:
            lists += isinstance(arg, TfList)
            elements.append((spec.element if spec is not None else None) or ANY)
    return TypeSpec("list" if lists == len(args) else "set", TypeSpec("tuple", elements=tuple(elements)))


def csvdecode(args: list[Value]) -> TypeSpec:
    """A list of objects with one string attribute per column of the header line."""
    header = next(csv.reader(io.StringIO(args[0])), [])
    return TypeSpec("list", TypeSpec("object", attrs=tuple((name, STRING, False, None) for name in sorted(header))))


def list_of_the_first_elements(args: list[Value]) -> TypeSpec:
    """matchkeys(): a list of the values' element type (also when nothing matched)."""
    return TypeSpec("list", element_of(args[0]))


def lookup(args: list[Value]) -> TypeSpec | None:
    """lookup() in a map has the map's element type: the default is converted to it."""
    if isinstance(args[0], TfMap):
        element = element_of(args[0])
        return None if element is None or element.kind == "any" else element
    return None
