"""Terragrunt units (SPEC section 2): which module a ``terragrunt.hcl`` deploys, and with which values.

A directory whose ``terragrunt.hcl`` has ``terraform { source = ... }`` naming a local path
(``../../modules/db``, ``../../modules//db``, ``${get_terragrunt_dir()}/../modules/db``) is a
*unit*: one deployment of the module at that path. Without a ``source``, Terragrunt runs the
module files of the unit's own folder, which is then the module it deploys. A non-local source
(``git::...``, ``tfr:///...``) is downloaded by Terragrunt at run time: the unit is opaque.

The unit's variables are its ``inputs``, merged over the ``inputs`` of the configurations it
``include``s (``find_in_parent_folders()``, ``find_in_parent_folders("root.hcl")``, a path), as
Terragrunt merges them (``shallow`` by default, ``deep``, ``no_merge``). Expressions are
evaluated here, concretely: literals, ``local.<name>`` (the unit's own ``locals``; a parent's
own locals in its ``inputs``), ``include.<name>.locals`` / ``.inputs``, operators, Terraform's
pure functions, and the path functions Terragrunt answers from where the files lie
(``find_in_parent_folders``, ``get_terragrunt_dir``, ``path_relative_to_include``, ``dirname``,
``basename``). What Terragrunt only knows when it runs (``run_cmd``, ``get_env`` without a
default, ``sops_decrypt_file``, ``dependency`` outputs, ...) makes that input *unknown*: the
deployment does not decide what depends on it, never a guess. ``get_env(name, default)`` is
read as its default (the value when the environment does not set the variable).

Pure: the ``terragrunt.hcl`` files and the parents they include arrive parsed, as paths
relative to DIR (parents may lie above DIR: ``../root.hcl``). The loader asks
``wanted_paths`` which files to try reading until nothing new is wanted.
"""

from __future__ import annotations

import functools
import posixpath
from typing import Any, Callable, Iterable, Mapping

from ..addrs import LocalValue
from ..records import record, field
from ..syntax.expr import (BinaryOpExpr, ConditionalExpr, Expr, FunctionCallExpr, LiteralExpr, ObjectExpr, ParenExpr,
                           RelativeTraversalExpr, ScopeTraversalExpr, Span, TemplateExpr, TupleExpr, UnaryOpExpr,
                           AttrStep, IndexStep)
from ..syntax.hclfile import Attribute, Body, HclFile
from .model import Module
# Operators on concrete values: the one implementation of Terraform's (the tracer lifts it over branches).
from ..evaluate.operators import apply_binary, apply_unary, get_attribute, get_index
from ..values.value import TfEvalError, nfc, to_bool, to_string

Value = Any
TERRAGRUNT_FILE = "terragrunt.hcl"
LOCK_FILE = ".terraform.lock.hcl"
MAX_UP_LEVELS = 16  # how far above a unit ``find_in_parent_folders`` looks (deeper than any layout)
MAX_DEPTH = 64  # nested evaluation (locals referring to locals) before giving up
GENERATED_SUFFIXES = (".tf", ".tf.json", ".tofu", ".tofu.json")  # the generated files that are the module's

# A path Terragrunt would give as an absolute path, kept relative to DIR behind this mark so that
# ``dirname``, ``basename`` and templates work on it; a value that still holds the mark when an
# input is read depends on where the files lie on disk, and is unknown.
_MARK = "\ue000tg:"

# Functions whose value Terragrunt only knows when it runs (the environment, a command, a cloud
# account, a file's decrypted content, the repository around the files).
RUN_TIME_FUNCTIONS = frozenset({
    "run_cmd", "get_env", "sops_decrypt_file", "get_aws_account_id", "get_aws_account_alias",
    "get_aws_caller_identity_arn", "get_aws_caller_identity_user_id", "get_terraform_command", "get_terraform_cli_args", "get_platform",
    "get_working_dir", "read_tfvars_file", "local_exec", "get_terraform_commands_that_need_vars",
    "get_terraform_commands_that_need_input", "get_terraform_commands_that_need_locking",
    "get_terraform_commands_that_need_parallelism", "get_default_retryable_errors", "mark_as_read", "constraint_check",
    "file", "fileexists", "fileset", "filebase64", "templatefile", "abspath", "pathexpand", "timestamp", "uuid",
    "uuidv5", "bcrypt", "plantimestamp", "filemd5", "filesha1", "filesha256", "filesha512", "filebase64sha256",
    "filebase64sha512",
})


def is_terragrunt_path(path: str) -> bool:
    """Terragrunt configuration files: ``terragrunt.hcl`` and the ``.hcl`` files units include
    (``root.hcl``, ``_envcommon/mysql.hcl``), never Terraform's ``.terraform.lock.hcl``."""
    name = posixpath.basename(path)
    return name.endswith(".hcl") and name != LOCK_FILE and not name.endswith(".pkr.hcl")


def is_unit_file(path: str) -> bool:
    return posixpath.basename(path) == TERRAGRUNT_FILE


@record(frozen=True)
class Unit:
    """One ``terragrunt.hcl``: the module it deploys (or why it is opaque) and its inputs."""

    path: str  # the unit's terragrunt.hcl, relative to DIR
    dir: str  # the unit's folder ("" for DIR)
    module_dir: str | None  # the module it deploys, relative to DIR; None: opaque
    source: str | None = None  # terraform.source as Terragrunt reads it (None: the unit's own folder)
    opaque_reason: str | None = None
    values: Mapping[str, Value] = field(default_factory=dict)  # inputs with a known value
    unknown: Mapping[str, str] = field(default_factory=dict)  # input -> why its value is unknown
    name_spans: Mapping[str, Span] = field(default_factory=dict)  # where each input is set
    all_unknown: str | None = None  # an included ``inputs`` that is unknown as a whole: why
    includes: tuple[str, ...] = ()  # the parent files it includes, relative to DIR
    problems: tuple[tuple[Span, str], ...] = ()  # include or source problems (config-error)
    source_span: Span | None = None  # terraform.source's value
    generated: tuple[tuple[str, str], ...] = ()  # (file name, text) of each Terraform file its generate blocks write

    @property
    def name(self) -> str:
        """The deployment's name: the unit's folder (``live/prod``), ``.`` for DIR."""
        return self.dir or "."


class _Unknown(Exception):
    """The value is only known when Terragrunt runs (or cannot be read): the message says why."""


# ---- the module a unit deploys ---------------------------------------------------------------


def deployed_dirs(units: Iterable[Unit]) -> tuple[str, ...]:
    """The module directories units deploy: each is a root configuration, wherever it lies."""
    return tuple(sorted({u.module_dir for u in units if u.module_dir is not None}))


def is_local_path(source: str) -> bool:
    """A source go-getter reads from the file system (not ``git::``, ``tfr://``, a registry or a URL)."""
    if source.startswith(_MARK) or source.startswith(("./", "../", "/")) or source in (".", ".."):
        return True
    return "::" not in source and "://" not in source and not source.startswith(("git@", "github.com/", "bitbucket.org/"))


def local_module_dir(unit_dir: str, source: str) -> str | None:
    """The directory (relative to DIR) a local source names: ``//`` separates the root of the
    copied tree from the module inside it; a ``?ref=`` query is ignored. None for an absolute path."""
    source = source.split("?", 1)[0]
    if source.startswith(_MARK):
        path = source[len(_MARK):]
    elif source.startswith("/"):
        return None
    else:
        path = posixpath.join(unit_dir or ".", source)
    path = path.replace("//", "/")
    target = posixpath.normpath(path)
    return "" if target == "." else target


# ---- reading the units of a workspace -----------------------------------------------------------


@record(frozen=True, slots=True)
class Place:
    """Where DIR lies on disk, as the loader or the editor found it: Terragrunt's path functions
    answer from it (the analysis itself never looks)."""

    location: str | None = None  # DIR's absolute path (POSIX)
    repo_root: str | None = None  # the git work tree around DIR, relative to DIR ("" for DIR itself)


def place_of(config) -> Place:
    """The ``Place`` a configuration (``config.Config``) records."""
    return Place(config.location, config.repo_root)


def read_units(files: Mapping[str, HclFile], module_dirs: Iterable[str], place: Place = Place()) -> tuple[Unit, ...]:
    """Every unit among ``files`` (the Terragrunt files read), sorted by path: each ``terragrunt.hcl``
    inside DIR that no other one includes (an included one is a parent configuration)."""
    if not any(is_unit_file(path) for path in files):  # (the module directories are not looked at: a workspace without Terragrunt pays nothing per module)
        return ()
    dirs = set(module_dirs)
    included: list[str] = []
    for path in sorted(files):
        if is_unit_file(path):
            _Config(path, files[path].body, posixpath.dirname(path), files, place=place).include_targets(included)
    units = []
    for path in sorted(files):
        if is_unit_file(path) and not path.startswith("../") and path not in included:
            unit = read_unit(path, files, dirs, place=place)
            if unit is not None:
                units.append(unit)
    return tuple(units)


def read_unit(path: str, files: Mapping[str, HclFile], module_dirs: set[str], wanted: list[str] | None = None,
              place: Place = Place()) -> Unit | None:
    """The unit of one ``terragrunt.hcl``; None when it deploys nothing (a parent configuration
    without ``terraform.source`` in a folder without module files). ``wanted`` collects the
    Terragrunt files its evaluation looked for (``wanted_paths``)."""
    hcl = files[path]
    unit_dir = posixpath.dirname(path)
    config = _Config(path, hcl.body, unit_dir, files, wanted=wanted, place=place)
    problems: list[tuple[Span, str]] = [(e.span, f"{path} cannot be read: syntax error: {e.message}") for e in hcl.errors[:1]]
    if hcl.errors:  # Terragrunt rejects the whole file: the blocks read around the error deploy nothing
        return Unit(path, unit_dir, None, None, f"{path} cannot be read (a syntax error); the unit is opaque",
                    problems=tuple(problems))
    parents: dict[str, _Config] = {}
    for label, block in config.includes():
        attribute = block.body.attributes.get("path")
        if attribute is None:
            problems.append((block.type_span, f"include {label or ''} has no path".replace("  ", " ")))
            continue
        try:
            target = config.path_value(attribute.expr)
        except _Unknown as exc:
            problems.append((attribute.expr.span, f"the included file cannot be found: {exc}"))
            continue
        parent = files.get(target)
        if wanted is not None:
            wanted.append(target)
        if parent is None:
            problems.append((attribute.expr.span, f"the included file {target} does not exist"))
            continue
        problems.extend((e.span, f"{target} cannot be read: syntax error: {e.message}") for e in parent.errors[:1])
        merge = block.body.attributes.get("merge_strategy")
        strategy = merge.literal_string() if merge is not None else None
        parents[label] = _Config(target, parent.body, unit_dir, files, parent_dir=posixpath.dirname(target),
                                 strategy=strategy or "shallow", wanted=wanted, place=place)
    config.parents = parents
    source_attr, source_scope = _source_attribute(hcl.body), config
    if source_attr is None:  # a source set by an included configuration (``_envcommon/mysql.hcl``)
        source_scope = next((p for p in parents.values() if p.source_attr is not None), config)
        source_attr = source_scope.source_attr
    source = None
    module_dir: str | None = None
    opaque: str | None = None
    if source_attr is None:
        if unit_dir not in module_dirs:
            return None
        module_dir = unit_dir
    else:
        try:
            raw = source_scope.value(source_attr.expr)
            if not isinstance(raw, str):
                raise _Unknown("terraform.source is not a string")
        except _Unknown as exc:
            opaque = f"{path}: terraform.source cannot be read without running Terragrunt ({exc}); the unit is opaque"
        else:
            source = raw.replace(_MARK, "")
            if is_local_path(raw):
                module_dir = local_module_dir(unit_dir, raw)
                if module_dir is None:
                    opaque = f"{path}: terraform.source {source!r} is an absolute path; the unit is opaque"
                else:
                    source = raw[len(_MARK):] if raw.startswith(_MARK) else raw
            else:
                opaque = (f"{path} deploys {source!r}, a non-local source that Terragrunt downloads when it runs; "
                          "tfphi reads no download, so this unit is opaque")
    values, unknown, spans, all_unknown = config.merged_inputs()
    return Unit(path, unit_dir, module_dir, source, opaque, values, unknown, spans, all_unknown,
                tuple(p.path for p in parents.values()), tuple(problems),
                source_attr.expr.span if source_attr is not None else None, config.generated_files())


def generated_files(units: Iterable[Unit], modules: Mapping[str, Module], called: Iterable[str],
                    previous: Iterable[str] = ()) -> dict[str, bytes]:
    """The Terraform files Terragrunt's ``generate`` blocks write into the modules units deploy
    (``provider.tf``, a ``common_vars.tf`` declaring the variables the inputs set), as paths
    relative to DIR: the module as Terragrunt runs it. Only where every unit deploying the module
    writes the same text, the module has no file of that name, and no module calls it (a
    caller would see variables it does not pass). ``previous``: the paths generated before (files
    of the modules now, not files of the disk)."""
    by_dir: dict[str, list[Unit]] = {}
    for unit in units:
        if unit.module_dir is not None and unit.module_dir in modules:
            by_dir.setdefault(unit.module_dir, []).append(unit)
    called, previous = set(called), set(previous)
    out: dict[str, bytes] = {}
    for dir, deploying in by_dir.items():
        if dir in called:
            continue
        module = modules[dir]
        existing = {posixpath.basename(f) for f in module.files if f not in previous}
        written = [dict(unit.generated) for unit in deploying]
        texts: dict[str, set[str]] = {}
        for name in {name for names in written for name in names}:
            texts[name] = {names.get(name, "") for names in written}  # "": a unit that does not write it
        for name, variants in sorted(texts.items()):
            if len(variants) == 1 and "" not in variants and name not in existing:
                out[f"{dir}/{name}" if dir else name] = next(iter(variants)).encode("utf-8")
    return out


def _source_attribute(body: Body) -> Attribute | None:
    for block in body.blocks_of("terraform"):
        attribute = block.body.attributes.get("source")
        if attribute is not None:
            return attribute
    return None


def wanted_paths(files: Mapping[str, HclFile], attempted: Iterable[str] = (), place: Place = Place()) -> list[str]:
    """The Terragrunt files the units' includes may read that are neither read nor tried yet
    (every candidate of ``find_in_parent_folders``: the nearest that exists is the one)."""
    done = set(attempted) | set(files)
    wanted: list[str] = []
    unit_files = [path for path in sorted(files) if is_unit_file(path)]
    dirs = {posixpath.dirname(path) for path in unit_files}  # evaluated as units, whatever they deploy
    for path in unit_files:
        read_unit(path, files, dirs, wanted, place)
    return sorted({w for w in wanted if w not in done})


# ---- evaluation ----------------------------------------------------------------------------------


class _Config:
    """One Terragrunt file evaluated for a unit: its locals, its includes and its inputs."""

    def __init__(self, path: str, body: Body, unit_dir: str, files: Mapping[str, HclFile],
                 parent_dir: str | None = None, strategy: str = "shallow", wanted: list[str] | None = None,
                 place: Place = Place()):
        self.path, self.body, self.unit_dir, self.files = path, body, unit_dir, files
        self.place = place
        self.parent_dir = parent_dir  # set for an included parent: path_relative_to_include's base
        self.strategy = strategy
        self.parents: dict[str, _Config] = {}
        self.candidates = wanted  # the files looked for (find_in_parent_folders, read_terragrunt_config), when collected
        self._locals: dict[str, Attribute] = {}
        for block in body.blocks_of("locals"):
            self._locals.update(block.body.attributes)
        self._local_values: dict[str, Value | _Unknown] = {}
        self._evaluating: set[str] = set()
        self.source_attr = _source_attribute(body)

    def generated_files(self) -> tuple[tuple[str, str], ...]:
        """(file name, text) of the Terraform files this unit's ``generate`` blocks (and its parents',
        a block of the unit replacing a parent's of the same name) write; a block whose path or
        contents tfphi cannot evaluate, or that is disabled, writes nothing here."""
        blocks: dict[str, tuple[_Config, Any]] = {}
        for config in (*self.parents.values(), self):
            for block in config.body.blocks_of("generate"):
                blocks[block.labels[0] if block.labels else ""] = (config, block)
        out: dict[str, str] = {}
        for config, block in blocks.values():
            attributes = block.body.attributes
            try:
                if "disable" in attributes and config.final(attributes["disable"].expr) is True:
                    continue
                name = config.final(attributes["path"].expr) if "path" in attributes else None
                text = config.final(attributes["contents"].expr) if "contents" in attributes else None
            except _Unknown:
                continue
            if isinstance(name, str) and isinstance(text, str) and "/" not in name and name.endswith(GENERATED_SUFFIXES):
                out[name] = text
        return tuple(sorted(out.items()))

    def includes(self) -> list[tuple[str, Any]]:
        return [(block.labels[0] if block.labels else "", block) for block in self.body.blocks_of("include")]

    # -- inputs

    def own_inputs(self) -> tuple[dict[str, Value], dict[str, str], dict[str, Span], str | None]:
        """(known values, unknown inputs with why, where each is set, why the whole is unknown)."""
        attribute = self.body.attributes.get("inputs")
        values: dict[str, Value] = {}
        unknown: dict[str, str] = {}
        spans: dict[str, Span] = {}
        if attribute is None:
            return values, unknown, spans, None
        expr = attribute.expr
        while isinstance(expr, ParenExpr):
            expr = expr.inner
        if isinstance(expr, ObjectExpr):
            for key_expr, value_expr in expr.items:
                try:
                    key = self._key(key_expr)
                except _Unknown:
                    return {}, {}, {}, f"an input name in {self.path} cannot be read"
                spans[key] = key_expr.span
                try:
                    values[key] = self.final(value_expr)
                    unknown.pop(key, None)
                except _Unknown as exc:
                    values.pop(key, None)
                    unknown[key] = str(exc)
            return values, unknown, spans, None
        try:
            whole = self.final(expr)
        except _Unknown as exc:
            return {}, {}, {}, f"inputs of {self.path}: {exc}"
        if not isinstance(whole, dict):
            return {}, {}, {}, f"inputs of {self.path} is not an object"
        return dict(whole), {}, {k: attribute.name_span for k in whole}, None

    def merged_inputs(self) -> tuple[dict[str, Value], dict[str, str], dict[str, Span], str | None]:
        """The unit's inputs over its parents', merged as Terragrunt merges them."""
        values: dict[str, Value] = {}
        unknown: dict[str, str] = {}
        spans: dict[str, Span] = {}
        all_unknown: str | None = None
        for parent in self.parents.values():
            if parent.strategy == "no_merge":
                continue
            p_values, p_unknown, p_spans, p_all = parent.own_inputs()
            all_unknown = all_unknown or p_all
            _merge_into(values, unknown, spans, p_values, p_unknown, p_spans, deep=parent.strategy == "deep")
        o_values, o_unknown, o_spans, o_all = self.own_inputs()
        deep = any(p.strategy == "deep" for p in self.parents.values())
        _merge_into(values, unknown, spans, o_values, o_unknown, o_spans, deep=deep)
        return values, unknown, spans, all_unknown or o_all

    # -- expressions

    def final(self, expr: Expr) -> Value:
        """An input's value; unknown when it still depends on where the files lie on disk."""
        value = _materialize(self.value(expr))
        if _holds_mark(value):
            raise _Unknown("it depends on where the files lie on disk")
        return value

    def path_value(self, expr: Expr) -> str:
        """An include's path, relative to DIR."""
        value = self.value(expr)
        if not isinstance(value, str):
            raise _Unknown("the path is not a string")
        if value.startswith(_MARK):
            target = posixpath.normpath(value[len(_MARK):])
        elif value.startswith("/"):
            raise _Unknown(f"{value} is an absolute path")
        else:  # relative to the including file's folder
            target = posixpath.normpath(posixpath.join(posixpath.dirname(self.path) or ".", value))
        return target

    def value(self, expr: Expr, depth: int = 0) -> Value:
        if depth > MAX_DEPTH:
            raise _Unknown("the expression nests too deeply")
        evaluate = self.value
        if isinstance(expr, LiteralExpr):
            return expr.value
        if isinstance(expr, ParenExpr):
            return evaluate(expr.inner, depth + 1)
        if isinstance(expr, TemplateExpr):
            parts = []
            for part in expr.parts:
                parts.append(part if isinstance(part, str) else _string(_materialize(evaluate(part, depth + 1))))
            return nfc("".join(parts))
        if isinstance(expr, TupleExpr):
            return [evaluate(item, depth + 1) for item in expr.items]
        if isinstance(expr, ObjectExpr):
            return {self._key(k): evaluate(v, depth + 1) for k, v in expr.items}
        if isinstance(expr, UnaryOpExpr):
            return _checked(lambda: apply_unary(expr.op, _materialize(evaluate(expr.operand, depth + 1))))
        if isinstance(expr, BinaryOpExpr):
            return _checked(lambda: apply_binary(expr.op, _materialize(evaluate(expr.left, depth + 1)),
                                                 _materialize(evaluate(expr.right, depth + 1))))
        if isinstance(expr, ConditionalExpr):
            condition = _checked(lambda: to_bool(_materialize(evaluate(expr.condition, depth + 1))))
            return evaluate(expr.true_result if condition else expr.false_result, depth + 1)
        if isinstance(expr, FunctionCallExpr):
            return self._call(expr, depth)
        if isinstance(expr, ScopeTraversalExpr):
            return self._steps(self._root(expr, depth), expr.steps[self._consumed(expr):], depth)
        if isinstance(expr, RelativeTraversalExpr):
            return self._steps(evaluate(expr.source, depth + 1), expr.steps, depth)
        raise _Unknown("an expression tfphi does not evaluate in Terragrunt files")

    def _key(self, expr: Expr) -> str:
        if isinstance(expr, ScopeTraversalExpr) and not expr.steps:
            return expr.root
        key = self.value(expr)
        if not isinstance(key, str):
            raise _Unknown("an object key is not a string")
        return key

    def _consumed(self, expr: ScopeTraversalExpr) -> int:
        """How many steps the root reference takes: ``local.x`` one, ``include.root.locals.x`` three."""
        return 3 if expr.root == "include" else 1

    def _root(self, expr: ScopeTraversalExpr, depth: int) -> Value:
        steps = expr.steps
        names = [s.name if isinstance(s, AttrStep) else None for s in steps[:3]]
        if expr.root == "local" and names and names[0] is not None:
            return self._local(names[0], depth)
        if expr.root == "include" and len(names) >= 3 and None not in names:
            parent = self.parents.get(names[0]) if self.parent_dir is None else None
            if parent is None:
                raise _Unknown(f"include.{names[0]} is not an include of this unit")
            if names[1] == "locals":
                return parent._local(names[2], depth)
            if names[1] == "inputs":
                values, unknown, _, whole = parent.own_inputs()
                if names[2] in values:
                    return values[names[2]]
                raise _Unknown(unknown.get(names[2]) or whole or f"include.{names[0]}.inputs has no {names[2]}")
            raise _Unknown(f"include.{names[0]}.{names[1]} is not read by tfphi")
        if expr.root in ("dependency", "dependencies"):
            raise _Unknown(f"{expr.root} outputs are known only when Terragrunt applies the dependency")
        raise _Unknown(f"{expr.root}.* is not evaluated by tfphi in Terragrunt files")

    def _local(self, name: str, depth: int) -> Value:
        known = self._local_values.get(name)
        if known is not None or name in self._local_values:
            if isinstance(known, _Unknown):
                raise known
            return known
        attribute = self._locals.get(name)
        if attribute is None:
            raise _Unknown(f"{LocalValue(name)} is not defined in {self.path}")
        if name in self._evaluating:
            raise _Unknown(f"{LocalValue(name)} refers to itself")
        self._evaluating.add(name)
        try:
            value: Value | _Unknown = self.value(attribute.expr, depth + 1)
        except _Unknown as exc:
            value = exc
        finally:
            self._evaluating.discard(name)
        self._local_values[name] = value
        if isinstance(value, _Unknown):
            raise value
        return value

    def _steps(self, value: Value, steps, depth: int) -> Value:
        for step in steps:
            if isinstance(value, _Lazy) and not isinstance(step, (AttrStep, IndexStep)):
                value = _materialize(value)
            if isinstance(value, _Lazy):  # a configuration read_terragrunt_config read: only what is read is evaluated
                key = step.name if isinstance(step, AttrStep) else self.value(step.key, depth + 1)
                if not isinstance(key, str):
                    raise _Unknown("an attribute name is not a string")
                value = value.attribute(key)
            elif isinstance(step, AttrStep):
                value = _checked(lambda v=value, s=step: get_attribute(v, s.name))
            elif isinstance(step, IndexStep):
                key = self.value(step.key, depth + 1)
                value = _checked(lambda v=value, k=key: get_index(v, k))
            else:
                raise _Unknown("a splat in a Terragrunt file is not evaluated by tfphi")
        return value

    def _call(self, expr: FunctionCallExpr, depth: int) -> Value:
        name = expr.name
        if name == "get_env" and len(expr.args) >= 2:
            return self.value(expr.args[1], depth + 1)  # the environment's value when it sets one: its default
        if name in RUN_TIME_FUNCTIONS:
            raise _Unknown(f"{name}() is evaluated by Terragrunt when it runs")
        if name == "read_terragrunt_config":
            return self.read_terragrunt_config([self.value(arg, depth + 1) for arg in expr.args])
        args = [_materialize(self.value(arg, depth + 1)) for arg in expr.args]
        if expr.expand_final and args:
            last = args.pop()
            if not isinstance(last, list):
                raise _Unknown(f"{name}(...): the expanded argument is not a list")
            args.extend(last)
        special = _PATH_FUNCTIONS.get(name)
        if special is not None:
            return special(self, args)
        if name.startswith("provider::") or name.startswith("get_") or name.startswith("path_"):
            raise _Unknown(f"{name}() is evaluated by Terragrunt when it runs")
        if any(_holds_mark(a) for a in args):
            raise _Unknown(f"{name}() of a path that depends on where the files lie on disk")
        from ..evaluate.functions import registry  # the function library: imported only when a Terragrunt file calls one

        try:
            return registry.call_function(name, args)
        except registry.UnknownFunction:
            raise _Unknown(f"{name}() is not a function tfphi evaluates") from None
        except (TfEvalError, OverflowError) as exc:
            raise _Unknown(str(exc)) from None

    def read_terragrunt_config(self, args: list[Value]) -> Value:
        """Another Terragrunt file's ``locals`` and ``inputs`` (``account.hcl``, ``env.hcl``), evaluated
        where that file lies, each when it is read; its second argument when the file does not exist."""
        if not args or not isinstance(args[0], str):
            raise _Unknown("read_terragrunt_config() takes a path")
        path = args[0]
        if path.startswith(_MARK):
            target = posixpath.normpath(path[len(_MARK):])
        elif path.startswith("/"):
            raise _Unknown(f"read_terragrunt_config({path}): an absolute path")
        else:  # relative to the unit being processed
            target = posixpath.normpath(posixpath.join(self.unit_dir or ".", path))
        if self.candidates is not None:
            self.candidates.append(target)
        hcl = self.files.get(target)
        if hcl is None:
            if len(args) >= 2:
                return args[1]
            raise _Unknown(f"read_terragrunt_config: {target} does not exist")
        if hcl.errors:
            raise _Unknown(f"{target} cannot be read (a syntax error)")
        other = _Config(target, hcl.body, posixpath.dirname(target), self.files, wanted=self.candidates,
                        place=self.place)
        return _Lazy({"locals": lambda: _Lazy({name: functools.partial(other._local, name, 0) for name in other._locals}),
                      "inputs": lambda: _inputs_object(other)})

    # -- Terragrunt's path functions

    def find_in_parent_folders(self, args: list[Value]) -> Value:
        name = args[0] if args else TERRAGRUNT_FILE
        if not isinstance(name, str):
            raise _Unknown("find_in_parent_folders() takes a file name")
        dir = self.unit_dir or "."
        for _ in range(MAX_UP_LEVELS):
            dir = posixpath.normpath(posixpath.join(dir, ".."))
            candidate = posixpath.normpath(posixpath.join(dir, name))
            if self.candidates is not None:
                self.candidates.append(candidate)
            if candidate in self.files:
                return _MARK + candidate
        if len(args) >= 2:
            return args[1]
        raise _Unknown(f"no {name} in the folders above {self.unit_dir or '.'}")

    def get_terragrunt_dir(self, args: list[Value]) -> Value:
        return _MARK + (self.unit_dir or ".")

    def get_parent_terragrunt_dir(self, args: list[Value]) -> Value:
        if self.parent_dir is not None:
            return _MARK + (self.parent_dir or ".")
        if len(self.parents) == 1:
            return _MARK + (posixpath.dirname(next(iter(self.parents.values())).path) or ".")
        raise _Unknown("get_parent_terragrunt_dir() without one include")

    def get_repo_root(self, args: list[Value]) -> Value:
        return _MARK + (self._repo_root() or ".")

    def get_path_to_repo_root(self, args: list[Value]) -> Value:
        return self._relative(self._repo_root(), self.unit_dir)

    def get_path_from_repo_root(self, args: list[Value]) -> Value:
        return self._relative(self.unit_dir, self._repo_root())

    def _repo_root(self) -> str:
        if self.place.repo_root is None:
            raise _Unknown("get_repo_root() outside a git repository")
        return self.place.repo_root

    def _relative(self, path: str, start: str) -> str:
        return _relative(path, start, self.place.location)

    def include_targets(self, out: list[str]) -> None:
        """The files this one includes (those tfphi can locate), appended to ``out``."""
        for _, block in self.includes():
            attribute = block.body.attributes.get("path")
            if attribute is not None:
                try:
                    out.append(self.path_value(attribute.expr))
                except _Unknown:
                    pass

    def path_relative_to_include(self, args: list[Value]) -> Value:
        base = self._include_dir()
        return self._relative(self.unit_dir, base) if base is not None else "."

    def path_relative_from_include(self, args: list[Value]) -> Value:
        base = self._include_dir()
        return self._relative(base, self.unit_dir) if base is not None else "."

    def _include_dir(self) -> str | None:
        if self.parent_dir is not None:
            return self.parent_dir or "."
        if len(self.parents) == 1:
            return posixpath.dirname(next(iter(self.parents.values())).path) or "."
        return None


def _dirname(_: _Config, args: list[Value]) -> Value:
    path = _one_string(args, "dirname")
    if path.startswith(_MARK):
        return _MARK + (posixpath.dirname(path[len(_MARK):]) or ".")
    return posixpath.dirname(path) if "/" in path else "."


def _basename(config: _Config, args: list[Value]) -> Value:
    path = _one_string(args, "basename")
    if path.startswith(_MARK):
        rel = posixpath.normpath(path[len(_MARK):])
        if (rel == "." or rel.split("/")[-1] == "..") and config.place.location is not None:
            return posixpath.basename(posixpath.normpath(posixpath.join(config.place.location, rel)))
        if rel == "." or rel.split("/")[-1] == "..":
            raise _Unknown("basename() of a folder whose name depends on where the files lie on disk")
        return posixpath.basename(rel)
    return posixpath.basename(path.rstrip("/")) if path.strip("/") else path


_PATH_FUNCTIONS: dict[str, Callable[[_Config, list[Value]], Value]] = {
    "find_in_parent_folders": _Config.find_in_parent_folders,
    "get_terragrunt_dir": _Config.get_terragrunt_dir,
    "get_original_terragrunt_dir": _Config.get_terragrunt_dir,
    "get_parent_terragrunt_dir": _Config.get_parent_terragrunt_dir,
    "get_repo_root": _Config.get_repo_root,
    "get_path_to_repo_root": _Config.get_path_to_repo_root,
    "get_path_from_repo_root": _Config.get_path_from_repo_root,
    "path_relative_to_include": _Config.path_relative_to_include,
    "path_relative_from_include": _Config.path_relative_from_include,
    "dirname": _dirname,
    "basename": _basename,
}


class _Lazy:
    """An object whose attributes are evaluated when read (what ``read_terragrunt_config`` returns):
    reading ``local.env_vars.locals.environment`` needs only that local, however many others the
    file has that Terragrunt alone can evaluate."""

    def __init__(self, getters: Mapping[str, Callable[[], Value]]):
        self.getters = getters

    def attribute(self, name: str) -> Value:
        getter = self.getters.get(name)
        if getter is None:
            raise _Unknown(f'the configuration has no "{name}"')
        return getter()


def _materialize(value: Value) -> Value:
    """A value with every lazy object evaluated (for a function, a template, an input)."""
    if isinstance(value, _Lazy):
        return {name: _materialize(value.attribute(name)) for name in value.getters}
    if isinstance(value, list):
        return [_materialize(v) for v in value]
    if isinstance(value, dict):
        return {k: _materialize(v) for k, v in value.items()}
    return value


def _inputs_object(config: _Config) -> Value:
    values, unknown, _, whole = config.own_inputs()
    if whole is not None:
        raise _Unknown(whole)
    getters: dict[str, Callable[[], Value]] = {name: (lambda v=value: v) for name, value in values.items()}
    for name, why in unknown.items():
        getters[name] = functools.partial(_raise_unknown, why)
    return _Lazy(getters)


def _raise_unknown(why: str) -> Value:
    raise _Unknown(why)


def _relative(path: str, start: str, location: str | None = None) -> str:
    """``path`` relative to ``start`` (both relative to DIR). When ``start`` climbs higher than
    ``path`` the answer names folders above DIR: read from DIR's ``location``, else unknown."""
    parts = [p for p in posixpath.normpath(path or ".").split("/") if p != "."]
    base = [p for p in posixpath.normpath(start or ".").split("/") if p != "."]
    common = 0
    while common < min(len(parts), len(base)) and parts[common] == base[common]:
        common += 1
    if ".." in base[common:] and location is not None:
        return posixpath.relpath(posixpath.normpath(posixpath.join(location, path or ".")),
                                 posixpath.normpath(posixpath.join(location, start or ".")))
    if ".." in base[common:]:
        raise _Unknown("the path depends on the names of the folders above the directory tfphi was given")
    return "/".join([".."] * (len(base) - common) + parts[common:]) or "."


def _one_string(args: list[Value], name: str) -> str:
    if len(args) != 1 or not isinstance(args[0], str):
        raise _Unknown(f"{name}() takes one string")
    return args[0]


def _checked(compute: Callable[[], Value]) -> Value:
    try:
        return compute()
    except (TfEvalError, OverflowError) as exc:
        raise _Unknown(str(exc)) from None


def _string(value: Value) -> str:
    try:
        return to_string(value)
    except TfEvalError as exc:
        raise _Unknown(str(exc)) from None


def _holds_mark(value: Value) -> bool:
    if isinstance(value, str):
        return _MARK in value
    if isinstance(value, list):
        return any(_holds_mark(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_mark(v) for v in value.values())
    return False


def _merge_into(values: dict, unknown: dict, spans: dict, new_values: Mapping, new_unknown: Mapping,
                new_spans: Mapping, deep: bool) -> None:
    """Terragrunt's merge of a configuration's inputs over the included ones: the later input
    replaces the earlier (``shallow``); ``deep`` merges objects key by key and concatenates lists."""
    for key in new_spans.keys() | new_values.keys() | new_unknown.keys():
        if key in new_unknown:
            values.pop(key, None)
            unknown[key] = new_unknown[key]
        elif key in new_values:
            if deep and key in values:
                values[key] = _deep_merge(values[key], new_values[key])
            else:
                values[key] = new_values[key]
            unknown.pop(key, None)
        if key in new_spans:
            spans[key] = new_spans[key]


def _deep_merge(old: Value, new: Value) -> Value:
    if isinstance(old, dict) and isinstance(new, dict):
        out = dict(old)
        for key, value in new.items():
            out[key] = _deep_merge(out[key], value) if key in out else value
        return out
    if isinstance(old, list) and isinstance(new, list):
        return old + new
    return new
