"""Where an expression is traced: its module instance, iterators and ``for`` bindings, and what
the tracer reads of a snapshot; a field's attribute and iterators inside its resource."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ..addrs import ModuleInstance
from ..records import field, record
from ..stir.model import Module, Resource
from ..stir.workspace import CallPath, ModuleTree
from ..syntax.expr import Span
from ..syntax.hclfile import Attribute, Body
from .result import Result


class _Undecided:
    """A deployment's assignment of a root variable to a value tfphi cannot evaluate (a Terragrunt
    input from ``run_cmd``, a variable file's non-literal value): what depends on it is not decided."""

    def __repr__(self) -> str:
        return "UNDECIDED"


UNDECIDED = _Undecided()


@record(frozen=True)
class Iteration:
    """Where an iterator name (``each``, ``count``, a dynamic block's) gets its collection."""

    kind: str  # "each" | "count" | "dynamic"
    attribute: Attribute
    env: "Env"


@record(frozen=True)
class Env:
    """The scope an expression is traced in: module instance, iterators and ``for`` bindings."""

    path: CallPath
    iterators: Mapping[str, Iteration] = field(default_factory=dict)
    bindings: Mapping[str, Result] = field(default_factory=dict)

    @property
    def dir(self) -> str:
        return self.path[-1][1]

    @property
    def scope(self) -> ModuleInstance:
        """The module instance (configuration path) the expression is written in."""
        return ModuleInstance.of_calls(call for call, _ in self.path[1:])

    @property
    def in_root(self) -> bool:
        return len(self.path) == 1

    def with_iterators(self, iterators: Mapping[str, Iteration]) -> "Env":
        return Env(self.path, {**self.iterators, **iterators}, self.bindings)

    def with_bindings(self, bindings: Mapping[str, Result]) -> "Env":
        return Env(self.path, self.iterators, {**self.bindings, **bindings})


class SourceView:
    """What the tracer reads of a snapshot: modules, the module tree and source text."""

    def __init__(self, modules: Mapping[str, Module], tree: ModuleTree, text: Callable[[Span], str]):
        self.modules = modules
        self.tree = tree
        self.text = text


def block_iterators(body: Body, env: Env) -> dict[str, Iteration]:
    """``each`` and ``count`` of a resource or module call body (GenIter edges)."""
    iterators: dict[str, Iteration] = {}
    if "for_each" in body.attributes:
        iterators["each"] = Iteration("each", body.attributes["for_each"], env)
    if "count" in body.attributes:
        iterators["count"] = Iteration("count", body.attributes["count"], env)
    return iterators


def find_field(resource: Resource, field_path: Sequence[str]):
    """The attribute at ``field_path`` (nested blocks by type, dynamic blocks included) and its iterators."""
    body = resource.body
    dynamics: list[tuple[str, Attribute]] = []
    for part in field_path[:-1]:
        block = next((b for b in body.blocks if b.type == part), None)
        if block is None:
            dyn = next((b for b in body.blocks if b.type == "dynamic" and b.labels[:1] == (part,)), None)
            content = next((b for b in dyn.body.blocks if b.type == "content"), None) if dyn else None
            for_each = dyn.body.attributes.get("for_each") if dyn else None
            if content is None or for_each is None:
                return None
            dynamics.append((dyn.iterator_name(), for_each))
            body = content.body
        else:
            body = block.body
    attribute = body.attributes.get(field_path[-1]) if field_path else None
    if attribute is None:
        return None

    def iterators_of(env: Env) -> dict[str, Iteration]:
        found = block_iterators(resource.body, env)
        scope = env.with_iterators(found)
        for name, for_each in dynamics:
            found[name] = Iteration("dynamic", for_each, scope)
            scope = scope.with_iterators({name: found[name]})
        return found

    return attribute, iterators_of
