"""The function registry: each built-in's spec, and the one way to call it."""

from __future__ import annotations

from typing import Callable

from ...records import record
from ...values.value import TfEvalError, Value, nfc_value

__all__ = ["FUNCTIONS", "FunctionSpec", "UnknownFunction", "call_function"]


class UnknownFunction(Exception):
    """Raised for a function name Terraform does not define (or that tfphi cannot evaluate)."""

    def __init__(self, name: str):
        super().__init__(f'there is no function named "{name}"')
        self.name = name


@record(frozen=True)
class FunctionSpec:
    name: str
    impl: Callable[[list[Value]], Value]
    min_args: int
    max_args: int | None
    elementwise: bool
    nondeterministic: bool


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
        return nfc_value(spec.impl(list(args)))
    except TfEvalError as exc:
        message = str(exc)
        if message.startswith(f"{name}: "):
            raise
        raise TfEvalError(f"{name}: {message}") from None


def _arity_text(spec: FunctionSpec) -> str:
    def plural(n: int) -> str:
        return f"{n} argument" + ("" if n == 1 else "s")

    if spec.max_args is None:
        return f"expects at least {plural(spec.min_args)}"
    if spec.min_args == spec.max_args:
        return f"expects exactly {plural(spec.min_args)}"
    return f"expects {spec.min_args} to {plural(spec.max_args)}"


_SAME = -1


def _fn(
    name: str,
    min_args: int,
    max_args: int | None = _SAME,
    *,
    elementwise: bool = True,
    nondeterministic: bool = False,
) -> Callable[[Callable[..., Value]], Callable[..., Value]]:
    """Register ``impl(args)`` as the built-in ``name``."""

    def register(impl: Callable[..., Value]) -> Callable[..., Value]:
        FUNCTIONS[name] = FunctionSpec(
            name=name,
            impl=impl,
            min_args=min_args,
            max_args=min_args if max_args == _SAME else max_args,
            elementwise=elementwise and not nondeterministic,
            nondeterministic=nondeterministic,
        )
        return impl

    return register
