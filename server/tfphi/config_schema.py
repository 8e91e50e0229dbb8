"""The schema users write (`.tfphi.toml`, the LSP setting `tfphi`) and its decoding with cattrs.

Imported only when a configuration is decoded (the host reading a `.tfphi.toml`, the server
and the API reading LSP settings): a workspace without `.tfphi.toml` needs neither cattrs nor the
dataclasses it reads (start-up, ARCHITECTURE.md). The rules are in `tfphi.config`'s docstring.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NewType

from .config import FIELD_KEY, SEVERITIES, Config, ConfigProblem, FieldSpec, Limits, describe_value, structure_universe

if TYPE_CHECKING:
    import cattrs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


# --- the input schema, shared by .tfphi.toml and the LSP settings -------------------
# Every attribute defaults to None, meaning "absent: keep the base value".

_PositiveInt = NewType("_PositiveInt", int)
_Severity = NewType("_Severity", str)
_StrList = NewType("_StrList", tuple)
_Universe = NewType("_Universe", tuple)
_Engine = NewType("_Engine", str)
ENGINES = ("terraform", "opentofu")


@dataclasses.dataclass(frozen=True, kw_only=True)  # cattrs reads dataclasses, not records
class LimitsSettings:
    """`limits` as written by the user."""

    depth: _PositiveInt | None = None
    branches: _PositiveInt | None = None
    max_file_size: _PositiveInt | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)  # cattrs reads dataclasses, not records
class FieldSettings:
    """One `fields."type.field"` entry as written by the user."""

    universe: _Universe | None = None
    severity: _Severity | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)  # cattrs reads dataclasses, not records
class DiagnosticsSettings:
    """`diagnostics` as written by the user."""

    severity: _Severity | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)  # cattrs reads dataclasses, not records
class InlayHintsSettings:
    """`inlayHints` as written by the user."""

    enabled: bool | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)  # cattrs reads dataclasses, not records
class WorkspaceSettings:
    """`workspace` as written by the user."""

    ignore: _StrList | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)  # cattrs reads dataclasses, not records
class Settings:
    """The whole configuration as written by the user (TOML file or LSP `tfphi` setting)."""

    limits: LimitsSettings | None = None
    fields: dict[str, FieldSettings] | None = None
    diagnostics: DiagnosticsSettings | None = None
    inlayHints: InlayHintsSettings | None = None  # noqa: N815 - the LSP setting's own spelling
    ignore: _StrList | None = None
    workspace: WorkspaceSettings | None = None
    engine: _Engine | None = None  # terraform | opentofu (SPEC 2: which files a directory's module is)


_SETTINGS_CLASSES = (LimitsSettings, FieldSettings, DiagnosticsSettings, InlayHintsSettings, WorkspaceSettings, Settings)

def _structure_positive_int(value: object, _: object) -> int:
    if type(value) is not int or value < 1:
        raise ValueError(f"expected a positive integer, got {describe_value(value)}")
    return value


def _structure_bool(value: object, _: object) -> bool:
    if type(value) is not bool:
        raise ValueError(f"expected true or false, got {describe_value(value)}")
    return value


def _structure_str(value: object, _: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {describe_value(value)}")
    return value


def _structure_severity(value: object, _: object) -> str:
    if value not in SEVERITIES or not isinstance(value, str):
        raise ValueError(f"expected one of {', '.join(SEVERITIES)}, got {describe_value(value)}")
    return value


def _structure_str_list(value: object, _: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"expected a list of strings, got {describe_value(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise ValueError(f"expected a list of strings, but item {i} is {describe_value(item)}")
    return tuple(value)


@functools.cache
def _converter() -> cattrs.Converter:
    """The strict converter: no coercion ("5" is not a number), no extra keys, every error collected."""
    import cattrs
    from cattrs.gen import make_dict_structure_fn, make_mapping_structure_fn

    converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    converter.register_structure_hook(_PositiveInt, _structure_positive_int)
    converter.register_structure_hook(_Severity, _structure_severity)
    converter.register_structure_hook(_Engine, _structure_engine)
    converter.register_structure_hook(_StrList, _structure_str_list)
    converter.register_structure_hook(_Universe, structure_universe)
    converter.register_structure_hook(bool, _structure_bool)
    converter.register_structure_hook(str, _structure_str)

    def table_hook(inner):
        """Checks for a mapping first, so `limits = 5` reads 'expected a table', not a TypeError from inside cattrs."""

        def hook(value: object, cl: object) -> object:
            if not isinstance(value, Mapping):
                raise ValueError(f"expected a table, got {describe_value(value)}")
            return inner(value, cl)

        return hook

    for cl in _SETTINGS_CLASSES:
        converter.register_structure_hook(cl, table_hook(make_dict_structure_fn(cl, converter)))
    fields_type = dict[str, FieldSettings]
    converter.register_structure_hook_func(
        lambda t: t == fields_type,
        table_hook(make_mapping_structure_fn(fields_type, converter, key_type=str, val_type=FieldSettings)),
    )
    return converter


# A validation failure: the path of keys to the offending entry, the unknown keys there (if any), and the message.
_Failure = tuple[tuple[object, ...], tuple[str, ...], str]


def _failures(exc: BaseException, path: tuple[object, ...] = ()) -> list[_Failure]:
    """Flattens a cattrs validation error tree into (path, unknown keys, message) triples."""
    from cattrs.errors import BaseValidationError, ForbiddenExtraKeysError, IterableValidationNote

    if isinstance(exc, ForbiddenExtraKeysError):
        return [(path, tuple(sorted(map(str, exc.extra_fields))), "unknown key")]
    if isinstance(exc, BaseValidationError):
        result = []
        for sub in exc.exceptions:
            sub_path = path
            for note in getattr(sub, "__notes__", ()):
                if isinstance(note, IterableValidationNote):
                    sub_path = (*sub_path, note.index)
                elif hasattr(note, "name"):
                    sub_path = (*sub_path, note.name)
            result.extend(_failures(sub, sub_path))
        return result
    return [(path, (), str(exc))]


def _dotted(path: tuple[object, ...]) -> str:
    """`fields."aws_db_instance.engine".severity`: a key path written as TOML would."""
    parts = []
    for part in path:
        text = str(part)
        parts.append(text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else '"' + text.replace('"', '\\"') + '"')
    return ".".join(parts)


def _delete(data: dict, path: tuple[object, ...]) -> bool:
    """Removes the entry at `path` from nested dicts; False when there is nothing to remove."""
    node: Any = data
    for part in path[:-1]:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    if isinstance(node, dict) and path and path[-1] in node:
        del node[path[-1]]
        return True
    return False


def _structure_engine(value: object, _: object) -> str:
    if value not in ENGINES or not isinstance(value, str):
        raise ValueError(f"expected one of {', '.join(ENGINES)}, got {describe_value(value)}")
    return value


def _copy_tables(value: object) -> object:
    """A copy of nested mappings as plain dicts (the leaves are shared), so bad keys can be dropped."""
    if isinstance(value, Mapping):
        return {k: _copy_tables(v) for k, v in value.items()}
    return value


def _structure(data: Mapping, where: str) -> tuple[Settings, list[tuple[tuple[object, ...], str]]]:
    """Decodes `data` into Settings, dropping each offending key (so it keeps its base value) and reporting it.

    Returns the settings and (key path, message) problems; `where` prefixes every message.
    """
    from cattrs.errors import BaseValidationError

    work: dict = _copy_tables(data)  # type: ignore[assignment]
    problems: list[tuple[tuple[object, ...], str]] = []
    prefix = f"{where}." if where else ""
    # Each round drops every failing key; a few rounds settle any nesting.
    for _ in range(8):
        try:
            settings = _converter().structure(work, Settings)
        except BaseValidationError as exc:
            failures = _failures(exc)
        except Exception as exc:  # noqa: BLE001 - settings must never crash the server
            problems.append(((), f"{where or 'configuration'}: cannot be read ({exc}); using the defaults"))
            return Settings(), problems
        else:
            return settings, problems
        progress = False
        for path, unknown, message in failures:
            if unknown:
                for key in unknown:
                    text = f"unknown key {prefix}{_dotted((*path, key))}"
                    if key == "ignore" and path:
                        text += (
                            " (in TOML a key after a [table] header belongs to that table:"
                            " move `ignore` above the first table or under [workspace])"
                        )
                    problems.append(((*path, key), text))
                    progress |= _delete(work, (*path, key))
            elif path:
                problems.append((path, f"{prefix}{_dotted(path)}: {message}; using the default"))
                progress |= _delete(work, path)
            else:
                problems.append(((), f"{where or 'configuration'}: {message}; using the defaults"))
                return Settings(), problems
        if not progress:
            break
    problems.append(((), f"{where or 'configuration'}: cannot be read; using the defaults"))
    return Settings(), problems


def _apply(
    settings: Settings, base: Config, *, severity_given: bool = False
) -> tuple[Config, list[tuple[tuple[object, ...], str]]]:
    """The config `base` with every key present in `settings` applied; field-key problems are returned.

    `severity_given` says `diagnostics.severity` was written (maybe as null, which clears the override):
    cattrs cannot tell an absent key from a null one.
    """
    problems: list[tuple[tuple[object, ...], str]] = []
    limits = base.limits
    max_file_size = base.max_file_size
    if settings.limits is not None:
        limits = Limits(
            depth=settings.limits.depth if settings.limits.depth is not None else limits.depth,
            branches=settings.limits.branches if settings.limits.branches is not None else limits.branches,
        )
        if settings.limits.max_file_size is not None:
            max_file_size = settings.limits.max_file_size
    new_fields: dict[str, FieldSpec] = {}
    for key, entry in (settings.fields or {}).items():
        if not FIELD_KEY.match(key):
            problems.append(
                (("fields", key), f"fields.{_dotted((key,))}: expected resource_type.field, e.g. aws_db_instance.engine")
            )
            continue
        new_fields[key] = FieldSpec(
            universe=entry.universe if entry.universe is not None else (),
            severity=entry.severity if entry.severity is not None else "warning",
        )
    ignore: tuple[str, ...] | None = None
    if settings.ignore is not None or (settings.workspace is not None and settings.workspace.ignore is not None):
        both = (settings.ignore or ()) + ((settings.workspace.ignore if settings.workspace else None) or ())
        ignore = tuple(dict.fromkeys(both))
    severity_override = base.severity_override
    if settings.diagnostics is not None and severity_given:
        severity_override = settings.diagnostics.severity
    inlay_hints = None
    if settings.inlayHints is not None:
        inlay_hints = settings.inlayHints.enabled
    config = base.with_overrides(
        new_fields,
        limits=limits,
        ignore=ignore,
        severity_override=severity_override,
        inlay_hints=inlay_hints,
        max_file_size=max_file_size,
        engine=settings.engine,
    )
    return config, problems


def _decode(data: Mapping, base: Config, where: str) -> tuple[Config, list[tuple[tuple[object, ...], str]]]:
    """Structure then apply: the shared path of both sources."""
    settings, problems = _structure(data, where)
    diagnostics = data.get("diagnostics")
    # A bad value was dropped by _structure and reported: keep the base override then.
    severity_given = (
        isinstance(diagnostics, Mapping)
        and "severity" in diagnostics
        and not any(path[:2] == ("diagnostics", "severity") or path == ("diagnostics",) for path, _ in problems)
    )
    config, more = _apply(settings, base, severity_given=severity_given)
    prefix = f"{where}." if where else ""
    return config, problems + [(path, prefix + msg if prefix else msg) for path, msg in more]


def builtin_fields_checked(data: Mapping) -> Mapping[str, FieldSpec]:
    """The registry decoded as a user's file is, raising when it is broken."""
    settings, problems = _structure(data, "")
    if problems or settings.limits or settings.ignore or settings.diagnostics or settings.inlayHints or settings.engine:
        raise RuntimeError(f"tfphi/data/fields.toml is broken: {[m for _, m in problems]}")
    config, more = _apply(settings, Config(fields={}))
    if more:
        raise RuntimeError(f"tfphi/data/fields.toml is broken: {[m for _, m in more]}")
    return config.fields


_TOML_ERROR_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_config_toml(text: str, base: Config | None = None) -> tuple[Config, list[ConfigProblem]]:
    """Reads a `.tfphi.toml` over `base` (default: the defaults); never raises.

    A syntax error gives `base` untouched and one problem at the error's position;
    a bad key gives a problem (at the key's line when it can be found) and keeps its base value.
    """
    base = base if base is not None else Config()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = getattr(exc, "lineno", None)
        column = getattr(exc, "colno", None)
        match = _TOML_ERROR_POSITION.search(message)
        if match and line is None:
            line, column = int(match.group(1)), int(match.group(2))
        elif line is None and "end of document" in message:
            line = text.count("\n") + 1
        clean = _TOML_ERROR_POSITION.sub("", getattr(exc, "msg", message)).strip()
        return base, [ConfigProblem(f"invalid TOML: {clean}; using the defaults", line, column)]
    config, problems = _decode(data, base, "")
    locator = _TomlLocator(text)
    return config, [ConfigProblem(message, *locator.find(path)) for path, message in problems]


def parse_lsp_settings(settings: object, base: Config | None = None) -> tuple[Config, list[ConfigProblem]]:
    """Reads the LSP `tfphi` settings object over `base` (default: the defaults); never raises."""
    base = base if base is not None else Config()
    if settings is None:
        return base, []
    if not isinstance(settings, Mapping):
        return base, [ConfigProblem(f"tfphi: expected an object, got {describe_value(settings)}; using the defaults")]
    try:
        config, problems = _decode(settings, base, "tfphi")
    except Exception as exc:  # noqa: BLE001 - settings must never crash the server
        return base, [ConfigProblem(f"tfphi: cannot be read ({exc}); using the defaults")]
    return config, [ConfigProblem(message) for _, message in problems]


# --- finding a key's line in TOML text -----------------------------------------------

_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]\[#]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*(?P<key>(?:[A-Za-z0-9_-]+|\"(?:[^\"\\]|\\.)*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"(?:[^\"\\]|\\.)*\"|'[^']*'))*)\s*=")


def _key_path(dotted: str) -> tuple[str, ...] | None:
    """The key path of a TOML dotted key (`fields."a.b".x` -> ('fields', 'a.b', 'x')), via tomllib itself."""
    try:
        node: Any = tomllib.loads(f"{dotted} = 0")
    except tomllib.TOMLDecodeError:
        return None
    path = []
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        path.append(key)
    return tuple(path)


class _TomlLocator:
    """Best-effort map from a key path to the 1-based (line, column) where the TOML text writes it."""

    def __init__(self, text: str):
        self._entries: list[tuple[tuple[str, ...], int, int]] = []
        table: tuple[str, ...] = ()
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header:
                path = _key_path(header.group("name"))
                if path is not None:
                    table = path
                    self._entries.append((table, number, line.index("[") + 1))
                continue
            key = _KEY.match(line)
            if key:
                path = _key_path(key.group("key"))
                if path is not None:
                    self._entries.append(((*table, *path), number, key.start("key") + 1))

    def find(self, path: tuple[object, ...]) -> tuple[int | None, int | None]:
        """The position of `path`, else of its nearest written ancestor, else (None, None)."""
        wanted = tuple(str(p) for p in path)
        while wanted:
            for entry, line, column in self._entries:
                if entry == wanted:
                    return line, column
            wanted = wanted[:-1]
        return None, None
