"""A built-in function's spec (cty's ``function.Spec``) and the decorator each family declares its functions with.

A family module (``strings``, ``collections``...) binds each built-in to its spec and lists them in
``SPECS``; ``registry`` makes one frozen mapping of every family's specs at import.
"""

from __future__ import annotations

from typing import Callable, Union

from ...records import record
from ...values.types import ANY, TypeSpec
from ...values.value import Value


@record(frozen=True)
class Param:
    """A parameter as cty's ``function.Parameter`` declares it: the registry converts the argument
    to ``type`` (None: any type, no conversion) and rejects a null unless ``allow_null``."""

    name: str
    type: TypeSpec | None = None
    allow_null: bool = False


ReturnRule = Union[TypeSpec, Callable[[list], "TypeSpec | None"], None]


@record(frozen=True)
class FunctionSpec:
    """A built-in, on the model of cty's ``function.Spec``: typed parameters (``params``, then
    ``variadic`` for the rest), the return type (a type, or a rule from the converted arguments:
    the result is converted to it, so that ``sort`` gives a list and ``keys`` of an object a
    tuple), and purity (``nondeterministic``: ``timestamp()``, ``uuid()``). A spec without
    ``params`` converts its arguments in its implementation (the functions not yet typed)."""

    name: str
    impl: Callable[[list[Value]], Value]
    min_args: int
    max_args: int | None
    elementwise: bool
    nondeterministic: bool
    params: tuple[Param, ...] | None = None
    variadic: Param | None = None
    returns: ReturnRule = None


_SAME = -1


def param(text: str) -> Param:
    """A parameter from ``"name: type"`` (``"str: string"``, ``"list: list(dynamic)"``,
    ``"default: dynamic?"``; ``?`` allows null, ``dynamic`` is any type)."""
    name, _, kind = (part.strip() for part in text.partition(":"))
    allow_null = kind.endswith("?")
    kind = kind.rstrip("?")
    return Param(name, None if kind in ("", "dynamic") else type_from_text(kind), allow_null)


def type_from_text(text: str) -> TypeSpec:
    """``string``, ``list(string)``, ``map(dynamic)``...: the type constraint syntax of the specs."""
    text = text.strip()
    if "(" in text:
        outer, _, inner = text.partition("(")
        return TypeSpec(outer.strip(), type_from_text(inner[:-1]))
    return ANY if text == "dynamic" else TypeSpec(text)


def builtin(
    name: str,
    min_args: int,
    max_args: int | None = _SAME,
    *,
    params: tuple[str, ...] | None = None,
    variadic: str | None = None,
    returns: "str | Callable[[list], TypeSpec | None] | None" = None,
    elementwise: bool = True,
    nondeterministic: bool = False,
) -> Callable[[Callable[..., Value]], FunctionSpec]:
    """A decorator making ``impl(args)`` the built-in ``name``: it returns the spec, which the
    family lists in its ``SPECS`` (``params``/``variadic``: ``"name: type"`` texts; ``returns``:
    a type text or a rule from the converted arguments)."""

    def spec(impl: Callable[..., Value]) -> FunctionSpec:
        return FunctionSpec(
            name=name,
            impl=impl,
            min_args=min_args,
            max_args=min_args if max_args == _SAME else max_args,
            elementwise=elementwise and not nondeterministic,
            nondeterministic=nondeterministic,
            params=None if params is None else tuple(param(p) for p in params),
            variadic=None if variadic is None else param(variadic),
            returns=type_from_text(returns) if isinstance(returns, str) else returns,
        )

    return spec
