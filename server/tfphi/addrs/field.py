"""Field addresses: ``[module.<call>[key].]*[data.]<type>.<name>[key].<field>[.<nested>]*``.

What ``tfphi trace`` and ``tfphi specialize`` take (SPEC section 1). Keys narrow the answer to
one instance; without them a ``for_each``/``count`` resource is one address for every instance.
"""

from __future__ import annotations

import json
from ..records import record

from .errors import AddressError
from .instance_key import InstanceKey, NO_KEY, format_key
from .module_instance import ModuleInstance, ModuleStep
from .referenceable import Resource
from ..lazy_re import lazy_compile


@record(frozen=True, slots=True)
class FieldAddress:
    module: ModuleInstance
    mode: str  # "managed" | "data"
    type: str
    name: str
    key: InstanceKey
    field: tuple[str, ...]

    @property
    def resource_key(self) -> str:
        """The resource as its module's table of its mode knows it: ``aws_db_instance.app``, data or not."""
        return Resource(self.mode, self.type, self.name).key

    @property
    def resource(self) -> str:
        """The resource's address within its module, as declared: ``aws_db_instance.app``."""
        return str(Resource(self.mode, self.type, self.name))

    def __str__(self) -> str:
        module = f"{self.module}." if not self.module.is_root else ""
        return f"{module}{self.resource}{format_key(self.key)}.{'.'.join(self.field)}"


_NAME = lazy_compile(r"[^\W\d][\w-]*")  # HCL identifiers: Unicode letters, digits, _ and -
_KEY = lazy_compile(r'\[(?:(\d+)|("(?:[^"\\]|\\.)*"))\]')


def parse_field_address(text: str) -> FieldAddress:
    """Parses a field address; raises AddressError naming the problem."""
    pos = 0

    def name() -> str:
        nonlocal pos
        match = _NAME.match(text, pos)
        if match is None:
            raise AddressError(f"{text!r} is not a field address: expected a name at column {pos + 1}")
        pos = match.end()
        return match.group(0)

    def key() -> InstanceKey:
        nonlocal pos
        match = _KEY.match(text, pos)
        if match is None:
            return NO_KEY
        pos = match.end()
        return int(match.group(1)) if match.group(1) is not None else json.loads(match.group(2))

    def dot() -> bool:
        nonlocal pos
        if text.startswith(".", pos):
            pos += 1
            return True
        return False

    steps: list[ModuleStep] = []
    first = name()
    while first == "module" and dot():
        call = name()
        steps.append(ModuleStep(call, key()))
        if not dot():
            raise AddressError(f"{text!r} names a module, not a field of a resource")
        first = name()
    mode = "managed"
    if first == "data":
        if not dot():
            raise AddressError(f"{text!r} is not a field address")
        mode, first = "data", name()
    if not dot():
        raise AddressError(f"{text!r} is not a field address: expected <type>.<name>.<field>")
    resource_name = name()
    resource_key = key()
    fields: list[str] = []
    while dot():
        fields.append(name())
    if pos != len(text):
        raise AddressError(f"{text!r} is not a field address: unexpected {text[pos:]!r}")
    if not fields:
        raise AddressError(f"{text!r} names a resource, not one of its fields")
    return FieldAddress(ModuleInstance(tuple(steps)), mode, first, resource_name, resource_key, tuple(fields))
