"""Hashes and UUIDs (lang/funcs/crypto.go)."""

from __future__ import annotations

from typing import Callable

from ...values.value import TfEvalError, TfUnrepresentable, Value
from .deferred import base64, hashlib, uuid_module
from .spec import builtin
from .arguments import str_arg, int_arg


def _digest(name: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        return hashlib.new(name, str_arg(args[0], "str").encode()).hexdigest()

    return impl


def _b64digest(name: str) -> Callable[[list[Value]], Value]:
    def impl(args: list[Value]) -> Value:
        return base64.b64encode(hashlib.new(name, str_arg(args[0], "str").encode()).digest()).decode("ascii")

    return impl


_DIGESTS = tuple(builtin(name, 1, params=("str: string",))(_digest(name)) for name in ("md5", "sha1", "sha256", "sha512"))
_BASE64_DIGESTS = tuple(builtin("base64" + name, 1, params=("str: string",))(_b64digest(name)) for name in ("sha256", "sha512"))


_UUID_NAMESPACES = {"dns": "NAMESPACE_DNS", "url": "NAMESPACE_URL", "oid": "NAMESPACE_OID", "x500": "NAMESPACE_X500"}


@builtin("uuidv5", 2, params=("namespace: string", "name: string"))
def _uuidv5(args: list[Value]) -> Value:
    namespace_text = str_arg(args[0], "namespace")
    name = str_arg(args[1], "name")
    namespace = getattr(uuid_module, _UUID_NAMESPACES[namespace_text]) if namespace_text in _UUID_NAMESPACES else None
    if namespace is None:
        try:
            namespace = uuid_module.UUID(namespace_text)
        except ValueError:
            raise TfEvalError(
                f'uuidv5() doesn\'t support namespace prefix "{namespace_text}"; '
                "use dns, url, oid, x500 or a UUID"
            ) from None
    return str(uuid_module.uuid5(namespace, name))



@builtin("uuid", 0, nondeterministic=True)
def _uuid4(args: list[Value]) -> Value:
    return str(uuid_module.uuid4())


@builtin("bcrypt", 1, 2, nondeterministic=True)
def _bcrypt(args: list[Value]) -> Value:
    str_arg(args[0], "str")
    if len(args) == 2:
        cost = int_arg(args[1], "cost")
        if cost > 31:  # below 4, Go's bcrypt uses its default cost (10)
            raise TfEvalError(f"cost must be at most 31, got {cost}")
    raise TfUnrepresentable("the result of bcrypt() is not known until apply (it uses a random salt)")


SPECS = (*_DIGESTS, *_BASE64_DIGESTS, _uuidv5, _uuid4, _bcrypt)
