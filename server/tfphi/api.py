"""tfphi's Python API: the tracer and the specializer for programs that compile Terraform (SPEC section 8).

A service compiler calls the tracer as the phi-tracing seed describes: it loads a workspace,
asks which values a field can take and under which condition, and specializes its own output
once per value::

    import tfphi.api

    workspace = tfphi.api.load("examples/vendor-stack")
    result = workspace.trace("module.database.aws_db_instance.app.engine_version")
    result.kind                       # "bounded"
    [b.value for b in result.branches]  # ["15.4", "14.9"]

The API is a thin layer over the analysis the command line runs: ``load`` is ``tfphi check``'s
loader, ``trace`` is ``tfphi trace --json``'s lookup and data (as frozen, typed objects instead
of JSON), ``specialize`` groups branches and names modules as ``tfphi specialize`` does. It
never writes, never runs Terraform and never touches the network. Bad input raises a
``TfphiError`` subclass whose message is the one the command line prints.

The results are frozen records (``tfphi.records``: dataclasses as type checkers read them;
assigning a field raises ``AttributeError``). ``API_VERSION`` follows
semantic versioning: a new major version may change or remove what this module exports; a
new minor version only adds.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Generic, Mapping, Sequence, TypeVar, Union

from .addrs import AddressError as _AddressError, ModuleCall, parse_field_address
from .analysis import Analysis
from .config import Config
from .config_schema import parse_lsp_settings
from .features.trace_json import trace_to_json
from .field_lookup import AmbiguousField, FieldLookupError, FieldMatch, candidate_roots, deployments_json, lookup, trace_match
from .loader import load_workspace, not_a_directory, nothing_to_analyse
from .records import record
from .specialize.specializer import group_branches, names_for
from .stir.model import Module, Resource
from .syntax.hclfile import Body
from .trace import result as _result
from .trace.conditions import NotExpressible, root_gate
from .values.value import to_json
from .workspace_output import trace_json_document

__all__ = [
    "API_VERSION", "AmbiguousRoot", "Branch", "ConfigError", "Deployment", "FieldNotFound", "FieldRef",
    "InvalidAddress", "JsonValue", "NotADirectory", "NotSpecializable", "NothingToAnalyse", "Specialization",
    "TfphiError", "TraceResult", "UnknownRoot", "Workspace", "load",
]

API_VERSION = "1.0"

# A Terraform value as Python has it: the JSON form ``trace --json`` prints.
JsonValue = Union[str, int, float, bool, None, "list[Any]", "dict[str, Any]"]
Nodes = TypeVar("Nodes")
Fallback = TypeVar("Fallback")


# ---- errors -------------------------------------------------------------------------------------


class TfphiError(Exception):
    """Bad input: the message is what ``tfphi check``/``trace`` would print after ``tfphi: error:``."""


class NotADirectory(TfphiError):
    """``load`` was given a path that is not a directory."""


class NothingToAnalyse(TfphiError):
    """The directory holds no Terraform module files."""


class ConfigError(TfphiError):
    """The ``config`` mapping given to ``load`` has wrong keys or values."""


class InvalidAddress(TfphiError):
    """The address is not a configuration address (``[module.<call>.]*<type>.<name>.<field>``)."""


class FieldNotFound(TfphiError):
    """The address names no field (or an instance key its resource or module call cannot take)."""


class AmbiguousRoot(TfphiError):
    """The address names fields in several root configurations: pass one of them as ``root``."""


class UnknownRoot(TfphiError):
    """``root`` is not one of ``Workspace.roots``."""


class NotSpecializable(TfphiError):
    """The field is bounded, but its branches cannot be count-gated in the root (they differ by instance)."""


# ---- results ------------------------------------------------------------------------------------


@record(frozen=True)
class FieldRef:
    """A field of a resource in one root configuration: ``workspace.trace(ref.address, root=ref.root)``."""

    root: str  # the root module's directory relative to the workspace ("." for the workspace itself)
    address: str  # from the root module down: module.database.aws_db_instance.app.engine_version
    resource_type: str


@record(frozen=True)
class Branch:
    """One value the field can take and when (``trace --json``'s branch)."""

    value: JsonValue
    condition: str  # the PhiCondition in the seed's notation; "true" for a resolved field
    gate: str | None  # the condition in the root module's scope, for ``count = <gate> ? 1 : 0``
    instance: str | None  # the instance the branch belongs to (``["jobs"]``), when the iteration decides
    trace: tuple[str, ...]  # the trace path in the seed's notation, field first
    source: str | None  # file:line:column of the expression that produced the value, relative to the root


@record(frozen=True)
class Deployment:
    """A deployment of the root (a variable file, an ``env/`` folder, a Terragrunt unit) and the field's value under it."""

    file: str
    value: JsonValue  # None when the deployment's variables do not decide the field


@record(frozen=True)
class TraceResult:
    """The answer for one field: the same data as ``tfphi trace --json``."""

    root: str
    address: str
    kind: str  # "resolved", "bounded" or "unbounded"
    exists: bool | str  # True, False, or the gate under which the resource has an instance
    branches: tuple[Branch, ...]
    selector: str | None
    reason: str | None  # why an unbounded field is unbounded
    deployments: tuple[Deployment, ...]


@record(frozen=True)
class Specialization(Generic[Nodes]):
    """One distinct value of a field and what ``compile`` made of it, with the gate that selects it."""

    name: str  # the module name ``tfphi specialize`` gives it (``app_v15_4``)
    value: JsonValue
    condition: str  # the branches' conditions joined (``Or``) in the seed's notation; "true" when ungated
    gate: str | None  # for ``count = <gate> ? 1 : 0`` in the root module; None when the field has one value
    nodes: Nodes  # what ``compile(value)`` returned
    branches: tuple[Branch, ...]  # the trace's branches with this value


# ---- the workspace ------------------------------------------------------------------------------


def load(dir: str | os.PathLike[str], *, config: Mapping[str, Any] | None = None) -> Workspace:
    """Reads a directory as ``tfphi check`` does (SPEC section 2).

    ``config``: settings with the keys of ``.tfphi.toml`` (``fields``, ``limits``, ``ignore``...),
    under the workspace's own ``.tfphi.toml``, as the editor's ``tfphi`` settings are.
    """
    path = os.fspath(dir)
    unreadable = not_a_directory(path)
    if unreadable is not None:
        raise NotADirectory(unreadable)
    base = None
    if config is not None:
        base, problems = parse_lsp_settings(config, Config())
        if problems:
            raise ConfigError("; ".join(p.message for p in problems))
    analysis = load_workspace(path, base)
    empty = nothing_to_analyse(analysis, path)
    if empty is not None:
        raise NothingToAnalyse(empty)
    return Workspace(path, analysis)


class Workspace:
    """A directory read once; every trace and specialization reads the same analysis."""

    def __init__(self, dir: str, analysis: Analysis):
        self._dir = dir
        self._analysis = analysis

    @property
    def dir(self) -> str:
        """The directory as given to ``load``."""
        return self._dir

    @property
    def roots(self) -> tuple[str, ...]:
        """The root configurations, as directories relative to the workspace ("." for itself).

        The workspace directory is a root whenever it holds module files (``terraform plan`` there
        plans it), even when examples under it call it; the others are the module directories
        that no module of the workspace calls.
        """
        dirs = set(self._analysis.tree.roots) | set(candidate_roots(self._analysis))
        return tuple(_label(d) for d in sorted(dirs))

    def fields(self, resource_type: str | None = None) -> tuple[FieldRef, ...]:
        """Every field of every resource and data source in each root configuration (of one type, if given)."""
        refs: list[FieldRef] = []
        for root in self.roots:
            for prefix, module in self._module_instances(_dir_of(root)):
                for resource in [*sorted(module.resources.values(), key=_key), *sorted(module.data.values(), key=_key)]:
                    if resource_type is not None and resource.type != resource_type:
                        continue
                    for path in _field_paths(resource.body):
                        refs.append(FieldRef(root, f"{prefix}{resource.address}.{'.'.join(path)}", resource.type))
        return tuple(refs)

    def trace(self, address: str, *, root: str | None = None,
              universe: Sequence[str | int | float | bool] | None = None) -> TraceResult:
        """Traces one field (``universe``: the values the caller can specialize, as ``--universe``)."""
        return self._trace(address, root, universe)[2]

    def specialize(self, address: str, *, universe: Sequence[str | int | float | bool] | None,
                   compile: Callable[[JsonValue], Nodes], fallback: Callable[[TraceResult], Fallback],
                   root: str | None = None) -> tuple[Specialization[Nodes], ...] | Fallback:
        """The seed's entry point: ``compile(value)`` once per distinct value of the field, in trace order,
        each result with the gate that selects it; ``fallback(result)`` (and its return value) when the
        field is unbounded."""
        match, traced, public = self._trace(address, root, universe)
        if traced.kind == _result.UNBOUNDED:
            return fallback(public)
        groups = group_branches(traced)
        names = names_for(self._analysis, traced, match.resource)
        public_of = {id(b): p for b, p in zip(traced.branches, public.branches)}  # trace --json keeps the order
        out: list[Specialization[Nodes]] = []
        for (value, cond, members), name in zip(groups, names):
            gate = None if len(groups) == 1 else _gate(public.address, cond)
            value_json = to_json(value)
            condition = "true" if gate is None else str(cond)
            out.append(Specialization(name, value_json, condition, gate, compile(value_json),
                                      tuple(public_of[id(m)] for m in members)))
        return tuple(out)

    # -- internals --

    def _trace(self, address: str, root: str | None, universe: Sequence[str | int | float | bool] | None
               ) -> tuple[FieldMatch, _result.TraceResult, TraceResult]:
        try:
            parse_field_address(address)
        except _AddressError as exc:
            raise InvalidAddress(str(exc)) from None
        roots = None if root is None else (self._root_dir(root),)
        dir_label = self._dir if root is None else os.path.join(self._dir, root)
        try:
            match = lookup(self._analysis, address, dir_label, _label, roots)
        except AmbiguousField as exc:
            raise AmbiguousRoot(str(exc)) from None
        except FieldLookupError as exc:
            raise FieldNotFound(str(exc)) from None
        traced = trace_match(self._analysis, match, list(universe) if universe else None)
        document = trace_json_document(self._analysis, match, traced, trace_to_json(self._analysis, traced), self._dir,
                                       deployments_json(self._analysis, match))
        return match, traced, _trace_result(_label(match.root), document)

    def _root_dir(self, root: str) -> str:
        if root not in self.roots:
            raise UnknownRoot(f"{root} is not a root configuration of {self._dir}; its roots are {', '.join(self.roots)}")
        return _dir_of(root)

    def _module_instances(self, root: str) -> list[tuple[str, Module]]:
        """(address prefix, module) for the root and every module instance its calls reach."""
        out: list[tuple[str, Module]] = []
        todo: list[tuple[str, str, tuple[str, ...]]] = [("", root, (root,))]
        while todo:
            prefix, dir, seen = todo.pop(0)
            module = self._analysis.modules.get(dir)
            if module is None:
                continue
            out.append((prefix, module))
            for name in sorted(module.calls):
                target = self._analysis.tree.targets.get((dir, name))
                if target is not None and target.dir is not None and target.dir not in seen:
                    todo.append((f"{prefix}{ModuleCall(name)}.", target.dir, seen + (target.dir,)))
        return out


# ---- conversions --------------------------------------------------------------------------------


def _label(dir: str) -> str:
    return dir or "."


def _dir_of(label: str) -> str:
    return "" if label == "." else label


def _key(resource: Resource) -> str:
    return str(resource.address)


# Arguments and blocks of a resource that are Terraform's, not the provider's fields.
_META_ARGUMENTS = frozenset({"count", "for_each", "provider", "depends_on"})
_META_BLOCKS = frozenset({"lifecycle", "provisioner", "connection"})


def _field_paths(body: Body, top: bool = True) -> list[tuple[str, ...]]:
    """The field paths ``trace`` accepts in a resource body: attributes, then nested blocks'
    (the first block of each type, as an address names it; a ``dynamic`` block's content)."""
    paths: list[tuple[str, ...]] = [(name,) for name in body.attributes if not (top and name in _META_ARGUMENTS)]
    seen: set[str] = set()
    for block in body.blocks:
        if top and block.type in _META_BLOCKS:
            continue
        name, inner = block.type, block.body
        if block.type == "dynamic":
            content = next((b for b in block.body.blocks if b.type == "content"), None)
            if not block.labels or content is None:
                continue
            name, inner = block.labels[0], content.body
        if name in seen:
            continue
        seen.add(name)
        paths.extend((name, *path) for path in _field_paths(inner, top=False))
    return paths


def _gate(address: str, cond: Any) -> str:
    try:
        gate: str | None = root_gate(cond)
    except NotExpressible as exc:
        raise NotSpecializable(f"{address}: a branch's condition cannot be written in the root module ({exc})") from None
    if gate is None:
        raise NotSpecializable(
            f"{address}: the branches differ by instance; one resource's instances cannot be split into "
            "count-gated modules - make the value independent of the instance key to specialize it")
    return gate


def _trace_result(root: str, document: Mapping[str, Any]) -> TraceResult:
    """``trace --json``'s document as typed objects (the document is built by the CLI's own code)."""
    branches = tuple(
        Branch(b["value"], b["condition"], b["gate"], b["instance"], tuple(b["trace"]), b["source"])
        for b in document["branches"])
    deployments = tuple(Deployment(d["file"], d["value"]) for d in document["deployments"])
    return TraceResult(root, document["address"], document["kind"], document["exists"], branches,
                       document["selector"], document["reason"], deployments)
