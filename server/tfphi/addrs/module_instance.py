"""Module instances: ``module.cache["eu"].module.db``; the root module prints as the empty string."""

from __future__ import annotations

from ..records import record

from .instance_key import InstanceKey, NO_KEY, format_key


@record(frozen=True, slots=True)
class ModuleStep:
    """One ``module.<name>[key]`` step of a module instance path."""

    name: str
    key: InstanceKey = NO_KEY

    def __str__(self) -> str:
        return f"module.{self.name}{format_key(self.key)}"


@record(frozen=True, slots=True)
class ModuleInstance:
    """A path of module calls from the root module; ``()`` is the root module itself."""

    steps: tuple[ModuleStep, ...] = ()

    @property
    def is_root(self) -> bool:
        return not self.steps

    def child(self, name: str, key: InstanceKey = NO_KEY) -> "ModuleInstance":
        return ModuleInstance(self.steps + (ModuleStep(name, key),))

    def parent(self) -> "ModuleInstance":
        return ModuleInstance(self.steps[:-1])

    def unkeyed(self) -> "ModuleInstance":
        """The module configuration path: every instance key dropped."""
        return ModuleInstance(tuple(ModuleStep(s.name) for s in self.steps))

    @classmethod
    def of_calls(cls, names) -> "ModuleInstance":
        return cls(tuple(ModuleStep(n) for n in names))

    def __str__(self) -> str:
        return ".".join(str(s) for s in self.steps)


ROOT_MODULE = ModuleInstance()
