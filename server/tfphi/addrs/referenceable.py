"""What a module's expressions refer to, by address: ``var.x``, ``local.x``, ``module.x``,
``module.x.out``, ``output.x``, ``aws_instance.web``, ``data.aws_ami.ubuntu``.

Terraform's ``addrs.InputVariable``, ``LocalValue``, ``ModuleCall``, ``ModuleCallOutput``,
``OutputValue`` and ``Resource``: each prints in Terraform's syntax (``str``) and
``parse_referenceable`` reads any of them back.
"""

from __future__ import annotations

from typing import Union

from ..lazy_re import lazy_compile
from ..records import record
from .errors import AddressError
from .module_instance import ModuleInstance


@record(frozen=True, slots=True)
class InputVariable:
    name: str

    def __str__(self) -> str:
        return "var." + self.name


@record(frozen=True, slots=True)
class LocalValue:
    name: str

    def __str__(self) -> str:
        return "local." + self.name


@record(frozen=True, slots=True)
class ModuleCall:
    name: str

    def __str__(self) -> str:
        return "module." + self.name


@record(frozen=True, slots=True)
class ModuleCallOutput:
    """An output of a module call, as its caller reads it: ``module.db.endpoint``."""

    call: str
    name: str

    def __str__(self) -> str:
        return f"module.{self.call}.{self.name}"


@record(frozen=True, slots=True)
class OutputValue:
    """An ``output`` block, as the module declaring it names it: ``output.endpoint``."""

    name: str

    def __str__(self) -> str:
        return "output." + self.name


@record(frozen=True, slots=True)
class Resource:
    """A ``resource`` (mode ``managed``) or ``data`` block: ``aws_instance.web``, ``data.aws_ami.ubuntu``."""

    mode: str  # "managed" | "data"
    type: str
    name: str

    @property
    def key(self) -> str:
        """``type.name`` whatever the mode: how a module's table of resources (or of data sources) knows it."""
        return f"{self.type}.{self.name}"

    def __str__(self) -> str:
        return "data." + self.key if self.mode == "data" else self.key


@record(frozen=True, slots=True)
class AbsResource:
    """A resource in a module instance: ``module.db["eu"].aws_db_instance.app`` (what ``moved`` blocks name)."""

    module: ModuleInstance
    resource: Resource

    def __str__(self) -> str:
        return str(self.resource) if self.module.is_root else f"{self.module}.{self.resource}"


Referenceable = Union[InputVariable, LocalValue, ModuleCall, ModuleCallOutput, OutputValue, Resource]

_NAME = lazy_compile(r"[^\W\d][\w-]*")  # HCL identifiers: Unicode letters, digits, _ and -


def parse_referenceable(text: str) -> Referenceable:
    """The address ``text`` prints; raises AddressError naming the problem."""
    parts = []
    pos = 0
    while True:
        match = _NAME.match(text, pos)
        if match is None:
            raise AddressError(f"{text!r} is not an address: expected a name at column {pos + 1}")
        parts.append(match.group(0))
        pos = match.end()
        if pos == len(text):
            break
        if text[pos] != ".":
            raise AddressError(f"{text!r} is not an address: unexpected {text[pos:]!r}")
        pos += 1
    kind, count = parts[0], len(parts)
    if kind == "var" and count == 2:
        return InputVariable(parts[1])
    if kind == "local" and count == 2:
        return LocalValue(parts[1])
    if kind == "output" and count == 2:
        return OutputValue(parts[1])
    if kind == "module" and count == 2:
        return ModuleCall(parts[1])
    if kind == "module" and count == 3:
        return ModuleCallOutput(parts[1], parts[2])
    if kind == "data" and count == 3:
        return Resource("data", parts[1], parts[2])
    if kind not in ("var", "local", "output", "module", "data") and count == 2:
        return Resource("managed", parts[0], parts[1])
    raise AddressError(f"{text!r} is not the address of a variable, local value, module call, output or resource")
