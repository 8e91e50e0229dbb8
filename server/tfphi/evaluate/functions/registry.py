"""The function registry: each built-in's spec, and the one way to call it."""

from __future__ import annotations

from typing import Callable, Union

from ...records import record
from ...values.types import ANY, TypeSpec, convert
from ...values.value import TfEvalError, Value, nfc_value

__all__ = ["FUNCTIONS", "FunctionSpec", "UnknownFunction", "call_function"]


class UnknownFunction(Exception):
    """Raised for a function name Terraform does not define (or that tfphi cannot evaluate)."""

    def __init__(self, name: str):
        super().__init__(f'there is no function named "{name}"')
        self.name = name


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


FUNCTIONS: dict[str, FunctionSpec] = {}


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
) -> Callable[[Callable[..., Value]], Callable[..., Value]]:
    """Register ``impl(args)`` as the built-in ``name`` (``params``/``variadic``: ``"name: type"``
    texts; ``returns``: a type text or a rule from the converted arguments)."""

    def register(impl: Callable[..., Value]) -> Callable[..., Value]:
        FUNCTIONS[name] = FunctionSpec(
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
        return impl

    return register
