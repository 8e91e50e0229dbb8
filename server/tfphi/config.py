"""tfphi configuration: `.tfphi.toml` at a workspace root, or the LSP setting `tfphi`.

Both sources accept the same keys and go through one schema (``Settings`` and
friends in ``config_schema``), decoded by one cattrs converter, so they cannot drift apart::

    ignore = ["examples/legacy"]        # paths the walker skips (top level, before any [table])
    engine = "opentofu"                 # terraform | opentofu; absent: OpenTofu where .tofu files exist

    [workspace]
    ignore = ["more/paths"]             # the same, for when a top-level key is awkward; both lists apply

    [limits]
    depth = 20                          # reference hops a trace follows
    branches = 16                       # largest branch set
    max_file_size = 2097152             # bytes; larger files are skipped with a diagnostic

    [fields."aws_db_instance.engine_version"]   # resource_type.field (field dotted for nested blocks)
    universe = ["14.9", "15.4"]                 # empty or absent: no universe
    severity = "warning"                        # error | warning | information | hint | off

    [diagnostics]
    severity = "error"                  # overrides every field's severity

    [inlayHints]
    enabled = true

In TOML a key written after a ``[table]`` header belongs to that table, so an
``ignore`` placed after ``[fields."..."]`` is reported as an unknown key of
that field (with a hint); put it above the first table or under ``[workspace]``.

Rules:
- a ``fields`` entry replaces the built-in entry of the same key whole (no
  merging of universe or severity); other built-ins stay;
- a key present in the input overrides ``base``; an absent key keeps it;
- nothing here raises on bad input: every problem becomes a ``ConfigProblem``
  and the offending key falls back to its value in ``base`` (the defaults).

The module does no I/O apart from reading its own package data (`builtin_fields`).
"""

from __future__ import annotations

import functools
import json
import re
import types
from collections.abc import Mapping
from typing import Any

from .records import field, record, replace

# The schema users write and its decoder (config_schema: cattrs, attrs and the dataclasses
# it reads) sit in the layer above: this module never imports them, so a workspace without
# .tfphi.toml never loads them (cattrs alone was a quarter of the start-up of a small
# `tfphi check`; see _builtin_fields_direct for the built-in registry).

__all__ = [
    "SEVERITIES",
    "Config",
    "ConfigProblem",
    "FieldSpec",
    "Limits",
    "builtin_fields",
]

SEVERITIES = ("error", "warning", "information", "hint", "off")

# A field key: resource type, then the field, possibly dotted into nested blocks.
FIELD_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)+$")


# --- the configuration as the rest of tfphi sees it ---------------------------------


@record(frozen=True, kw_only=True)
class Limits:
    """Trace limits (SPEC 3, Limits)."""

    depth: int = 20
    branches: int = 16


@record(frozen=True, kw_only=True)
class FieldSpec:
    """What tfphi knows about one registered field: its allowed values and its diagnostic severity."""

    universe: tuple = ()  # Terraform values: str, int, float, bool
    severity: str = "warning"


def _frozen_fields(fields: Mapping[str, FieldSpec]) -> Mapping[str, FieldSpec]:
    """An immutable copy of `fields` (a read-only view over a private dict)."""
    if isinstance(fields, types.MappingProxyType):
        return fields
    return types.MappingProxyType(dict(fields))


_UNSET: Any = object()


@record(frozen=True, kw_only=True)
class Config:
    """The effective configuration of one workspace."""

    limits: Limits = Limits()
    fields: Mapping[str, FieldSpec] = field(default_factory=lambda: builtin_fields(), hash=False)
    ignore: tuple[str, ...] = ()
    severity_override: str | None = None  # LSP `diagnostics.severity`
    inlay_hints: bool = True
    max_file_size: int = 2 * 1024 * 1024
    engine: str | None = None  # "terraform" | "opentofu"; None: OpenTofu where a directory has .tofu files
    # Not settings: where the workspace lies on disk, found by the loader or the editor for
    # Terragrunt's path functions (stir.terragrunt.Place): its absolute path, and the git work
    # tree around it, relative to it ("" for the workspace itself, None outside any).
    location: str | None = None
    repo_root: str | None = None
    # Not a setting either: the editor's. None (the command line): every module is the user's, those
    # outside DIR included. A tuple: modules outside the workspace folder are not the user's (their
    # diagnostics go to the user's call into them, as installed modules' do), except these
    # folder-relative module directories (one with an open file) and trees (``../other/``: another
    # workspace folder).
    owned_outside: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", _frozen_fields(self.fields))
        object.__setattr__(self, "ignore", tuple(self.ignore))

    def field_spec(self, resource_type: str, field: str) -> FieldSpec | None:
        """The spec of `resource_type.field`, with the severity override applied; None when not registered."""
        spec = self.fields.get(f"{resource_type}.{field}")
        if spec is not None and self.severity_override is not None:
            spec = replace(spec, severity=self.severity_override)
        return spec

    def with_overrides(
        self,
        other_fields: Mapping[str, FieldSpec] | None = None,
        *,
        limits: Limits | None = None,
        ignore: tuple[str, ...] | list[str] | None = None,
        severity_override: str | None = _UNSET,
        inlay_hints: bool | None = None,
        max_file_size: int | None = None,
        engine: str | None = None,
        repo_root: str | None = _UNSET,
        location: str | None = _UNSET,
        owned_outside: tuple[str, ...] | None = _UNSET,
    ) -> Config:
        """A copy where each given entry of `other_fields` replaces ours whole and each given keyword replaces ours.

        `severity_override=None` clears the override; leaving it out keeps ours.
        """
        fields = self.fields
        if other_fields:
            merged = dict(self.fields)
            merged.update(other_fields)
            fields = merged
        return Config(
            limits=self.limits if limits is None else limits,
            fields=fields,
            ignore=self.ignore if ignore is None else tuple(ignore),
            severity_override=self.severity_override if severity_override is _UNSET else severity_override,
            inlay_hints=self.inlay_hints if inlay_hints is None else inlay_hints,
            max_file_size=self.max_file_size if max_file_size is None else max_file_size,
            engine=self.engine if engine is None else engine,
            repo_root=self.repo_root if repo_root is _UNSET else repo_root,
            location=self.location if location is _UNSET else location,
            owned_outside=self.owned_outside if owned_outside is _UNSET else owned_outside,
        )


@record(frozen=True)
class ConfigProblem:
    """Something wrong in a configuration source; line and column are 1-based, when known."""

    message: str
    line: int | None = None
    column: int | None = None


def describe_value(value: object) -> str:
    """A short human description of a wrong value: its type and, when short, the value."""
    kind = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        tuple: "a list",
        dict: "a table",
        type(None): "null",
    }.get(type(value), type(value).__name__)
    shown = repr(value)
    if value is None or len(shown) > 40:
        return kind
    return f"{kind} ({shown})"


def structure_universe(value: object, _: object) -> tuple:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"expected a list of values, got {describe_value(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, (str, int, float, bool)):
            raise ValueError(f"expected strings, numbers or booleans, but item {i} is {describe_value(item)}")
    # Keep order, drop duplicates (True == 1 in Python, so compare with the type too).
    seen: set[tuple[type, object]] = set()
    result = []
    for item in value:
        key = (type(item), item)
        if key not in seen:
            seen.add(key)
            result.append(item)
    return tuple(result)


# --- public entry points -------------------------------------------------------------


@functools.cache
def builtin_fields() -> Mapping[str, FieldSpec]:
    """The built-in field registry shipped as package data, parsed once.

    People edit `data/fields.toml`; start-up reads `data/fields.json`, the same data as
    JSON (json is loaded anyway; tomllib and the datetime module under it are not needed
    for a workspace without .tfphi.toml). A test checks the two hold the same data and
    rewrites the JSON with TFPHI_UPDATE_SNAPSHOTS=1."""
    data = json.loads(_package_data("fields.json"))
    fields = _builtin_fields_direct(data)
    if fields is None:  # a packaging mistake, never the user's input (tests/test_config.py reads the data)
        raise RuntimeError("tfphi's data/fields.json is not in the shape it ships in: "
                           "tfphi.config_schema.builtin_fields_checked says what is wrong")
    return fields


def _package_data(name: str) -> str:
    """The text of ``data/<name>``, read through this module's own loader (importlib.resources
    costs a tenth of a small check's start-up)."""
    origin = __spec__.origin if __spec__ is not None else None
    loader = __spec__.loader if __spec__ is not None else None
    if origin and loader is not None and hasattr(loader, "get_data") and origin.endswith("config.py"):
        here = origin[: -len("config.py")]  # the package's directory, ending with its separator
        try:
            return loader.get_data(f"{here}data{here[-1]}{name}").decode("utf-8")
        except (OSError, ValueError):
            pass
    from importlib import resources

    return resources.files("tfphi").joinpath(f"data/{name}").read_text(encoding="utf-8")


def _builtin_fields_direct(data: Mapping) -> Mapping[str, FieldSpec] | None:
    """The registry decoded without cattrs, for the shape it ships in (``fields`` tables with
    ``universe`` and ``severity``, all valid); None when anything else is there, and the
    checked decoder then says what is wrong. (A test checks both give the same registry.)"""
    if set(data) != {"fields"} or not isinstance(data["fields"], dict):
        return None
    fields: dict[str, FieldSpec] = {}
    for key, entry in data["fields"].items():
        if not FIELD_KEY.match(key) or not isinstance(entry, dict) or not set(entry) <= {"universe", "severity"}:
            return None
        severity = entry.get("severity", "warning")
        universe = entry.get("universe", [])
        if severity not in SEVERITIES or not isinstance(severity, str) or not isinstance(universe, list):
            return None
        if not all(isinstance(item, (str, int, float, bool)) for item in universe):
            return None
        fields[key] = FieldSpec(universe=structure_universe(universe, None), severity=severity)
    return Config(fields=fields).fields
