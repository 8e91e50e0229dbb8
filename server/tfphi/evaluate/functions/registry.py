"""The function registry: every family's built-ins in one frozen mapping, and the one way to call them."""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from ...values.types import ANY, convert
from ...values.value import TfEvalError, Value, nfc_value
from . import collections, conversion, crypto, dates, encoding, filesystem, format, network, numeric, regex, strings, yamldecode
from .spec import FunctionSpec

__all__ = ["FUNCTIONS", "FunctionSpec", "UnknownFunction", "call_function"]


class UnknownFunction(Exception):
    """Raised for a function name Terraform does not define (or that tfphi cannot evaluate)."""

    def __init__(self, name: str):
        super().__init__(f'there is no function named "{name}"')
        self.name = name


_FAMILIES = (collections, conversion, crypto, dates, encoding, filesystem, format, network, numeric, regex, strings, yamldecode)


def _registry() -> Mapping[str, FunctionSpec]:
    """Every family's specs by name, frozen: built once at import, never changed after."""
    table: dict[str, FunctionSpec] = {}
    for family in _FAMILIES:
        for spec in family.SPECS:
            if spec.name in table:
                raise ValueError(f"the built-in {spec.name} is declared twice")
            table[spec.name] = spec
    return MappingProxyType(table)


FUNCTIONS: Mapping[str, FunctionSpec] = _registry()


def call_function(name: str, args: list[Value]) -> Value:
    """Call the built-in ``name`` on evaluated ``args``.

    Raises :class:`UnknownFunction` for names not in :data:`FUNCTIONS`, :class:`TfEvalError`
    where Terraform rejects the call (a wrong number of arguments, invalid argument types or
    values) and :class:`TfUnrepresentable` where Terraform has a value tfphi cannot hold. Any
    other exception is a bug in tfphi, never read as "Terraform rejects this".
    """
    spec = FUNCTIONS.get(name)
    if spec is None:
        raise UnknownFunction(name)
    count = len(args)
    if count < spec.min_args or (spec.max_args is not None and count > spec.max_args):
        raise TfEvalError(f"{name}: {_arity_text(spec)}; got {count}")
    try:
        converted = _convert_arguments(spec, args) if spec.params is not None else list(args)
        result = nfc_value(spec.impl(converted))
        rule = spec.returns
        returns = rule(converted) if callable(rule) else rule
        if returns is None or result is None:
            return result
        result = convert(result, returns)
        if returns.element == ANY and getattr(result, "element", ANY) is None:
            result.element = ANY  # the rule says: a collection of any type (setunion of empty sets of any type)
        return result
    except TfEvalError as exc:
        message = str(exc)
        if message.startswith(f"{name}: "):
            raise
        raise TfEvalError(f"{name}: {message}") from None


def _convert_arguments(spec: FunctionSpec, args: list[Value]) -> list[Value]:
    """Each argument converted to its parameter's type, as cty's function framework does."""
    out = []
    for i, value in enumerate(args):
        param = spec.params[i] if i < len(spec.params) else spec.variadic
        if param is None:
            out.append(value)
            continue
        if value is None:
            if not param.allow_null:
                raise TfEvalError(f'invalid value for "{param.name}" parameter: argument must not be null')
            out.append(None)
            continue
        if param.type is not None:
            try:
                value = convert(value, param.type)
            except TfEvalError as exc:
                raise TfEvalError(f'invalid value for "{param.name}" parameter: {exc}') from None
        out.append(value)
    return out


def _arity_text(spec: FunctionSpec) -> str:
    def plural(n: int) -> str:
        return f"{n} argument" + ("" if n == 1 else "s")

    if spec.max_args is None:
        return f"expects at least {plural(spec.min_args)}"
    if spec.min_args == spec.max_args:
        return f"expects exactly {plural(spec.min_args)}"
    return f"expects {spec.min_args} to {plural(spec.max_args)}"
