"""Return-type rules of the collection functions whose result type depends on their arguments'
types, as cty's ``function.Spec.Type`` computes them (a list in, a list out; a tuple in, a tuple
out). Each rule takes the converted arguments and gives the type the result is converted to, or
None: the result is already of its type (a tuple or an object, as the implementation builds it)."""

from __future__ import annotations

from ...values.types import ANY, TypeSpec, type_of
from ...values.value import TfList, TfMap, TfSet, Value

LIST = TypeSpec("list", ANY)
MAP = TypeSpec("map", ANY)
LIST_OF_STRINGS = TypeSpec("list", TypeSpec("string"))


def concat(args: list[Value]) -> TypeSpec | None:
    """A list when every argument is a list (ConcatFunc), else a tuple."""
    return LIST if args and all(isinstance(a, TfList) for a in args) else None


def merge(args: list[Value]) -> TypeSpec | None:
    """A map when every argument is a map of one element type (MergeFunc: all of one type), else an object."""
    present = [a for a in args if a is not None]
    if present and all(isinstance(a, TfMap) for a in present) and len({repr(type_of(a)) for a in present}) == 1:
        return MAP  # (tomap({}) is a map of any type: merged with a map of strings, an object)
    return None


def list_of_strings_for_a_map(args: list[Value]) -> TypeSpec | None:
    """keys(): a list of strings for a map, a tuple for an object."""
    return LIST_OF_STRINGS if isinstance(args[0], TfMap) else None


def list_for_a_map(args: list[Value]) -> TypeSpec | None:
    """values(): a list for a map, a tuple for an object."""
    return LIST if isinstance(args[0], TfMap) else None


def list_for_a_list_or_set(args: list[Value]) -> TypeSpec | None:
    """reverse(), slice(): a list for a list or a set, a tuple for a tuple."""
    return LIST if isinstance(args[0], (TfList, TfSet)) else None


def zipmap(args: list[Value]) -> TypeSpec | None:
    """zipmap(): a map for a list or set of values, an object for a tuple."""
    return MAP if isinstance(args[1], (TfList, TfSet)) else None
