"""Partly known values: an object or collection some of whose members the tracer cannot know.

Terraform plans ``{ name = "w${terraform_data.id.output}", vm_size = "Standard_D2s_v3" }.vm_size``
as ``"Standard_D2s_v3"``: a known member stays known when another is unknown, and a literal
object is never null, whatever its members. So an object or tuple constructor whose member
traces to Unbounded holds that member as ``Unknown`` (carrying the Unbounded, with its reason)
instead of becoming Unbounded itself.

An ``Unknown`` never leaves the tracer: only the operations that read a member without reading
the others (attribute and index access, constructors, ``for`` expressions, ``for_each``, the
conversion at a variable boundary, a comparison with ``null``) accept a partly known value
(``Tracer.combine(partial=True)``); any other operation, and a field's final value, that meets an
``Unknown`` is Unbounded with the member's reason (``UnknownResult``).
"""

from __future__ import annotations

from ..records import record
from .result import Unbounded
from ..values.types import TypeSpec, convert, convert_object
from ..values.value import TfList, TfMap, TfSet, Value


@record(frozen=True, slots=True)
class Unknown:
    """A member whose value the tracer does not know, and why (its trace's Unbounded)."""

    unbounded: Unbounded


class UnknownResult(Exception):
    """An operation's result depends on an unknown member: the result is that member's Unbounded."""

    def __init__(self, unknown: Unknown):
        super().__init__(unknown.unbounded.reason)
        self.unknown = unknown


def first_unknown(value: object) -> Unknown | None:
    """The first unknown member of ``value`` (itself included), or None when it is wholly known."""
    if type(value) is Unknown:
        return value  # type: ignore[return-value]
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return None
    for item in value:
        found = first_unknown(item)
        if found is not None:
            return found
    return None


def known(values) -> None:
    """Raises ``UnknownResult`` when one of ``values`` is not wholly known."""
    for value in values:
        found = first_unknown(value)
        if found is not None:
            raise UnknownResult(found)


def known_operands(values) -> None:
    """Raises ``UnknownResult`` when one of ``values`` is itself unknown (its members may be)."""
    for value in values:
        if type(value) is Unknown:
            raise UnknownResult(value)


def compare_with_null(op: str, left: Value, right: Value) -> bool | None:
    """``left op null`` (either side) for a partly known container: a constructed object or
    tuple is never null. None when this is not such a comparison."""
    for value, other in ((left, right), (right, left)):
        if other is None and isinstance(value, (dict, list)) and first_unknown(value) is not None:
            return op == "!="
    return None


def convert_partial(value: Value, spec: TypeSpec) -> Value:
    """``convert`` for a partly known value: known members converted, unknown ones kept.

    A set's order depends on its elements, so a set with an unknown element is unknown.
    """
    if type(value) is Unknown or spec.kind == "any":
        return value
    if first_unknown(value) is None:
        return convert(value, spec)
    kind = spec.kind
    element = spec.element or TypeSpec("any")
    if kind == "list" and isinstance(value, list) and not isinstance(value, TfSet):
        return TfList(convert_partial(v, element) for v in value)  # a list, not a tuple
    if kind == "tuple" and isinstance(value, list) and len(value) == len(spec.elements):
        return [convert_partial(v, t) for v, t in zip(value, spec.elements)]
    if kind == "map" and isinstance(value, dict):
        return TfMap((k, convert_partial(v, element)) for k, v in value.items())  # a map, not an object
    if kind == "object" and isinstance(value, dict):
        return convert_object(value, spec, convert_partial)
    raise UnknownResult(first_unknown(value))  # type: ignore[arg-type]
