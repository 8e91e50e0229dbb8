"""Deployments (SPEC section 2): a root configuration's variable files, layered as Terraform
layers them, each deployment being one assignment of the root's variables (name -> value).

Which files belong to a root: ``terraform.tfvars``, ``*.auto.tfvars`` and ``*.tfvars`` (and
their ``.json`` forms) in the root directory, and ``*.tfvars`` (and ``.json``) in its
subdirectories that hold no module files (``env/prod.tfvars``, ``environments/dev.tfvars``).

How they layer, lowest precedence first, as Terraform documents it: ``terraform.tfvars``,
``terraform.tfvars.json``, then ``*.auto.tfvars``/``*.auto.tfvars.json`` in lexical order of
their file names; a ``-var-file`` comes last. So:

- each variable file that Terraform does not load by itself is one deployment, named by its
  path relative to the root (``env/prod.tfvars``), applied as ``terraform plan
  -var-file=env/prod.tfvars`` applies it: over the auto-loaded files;
- when the root directory holds auto-loaded files, a plain ``terraform plan`` is a deployment
  too, named after ``terraform.tfvars`` (or ``terraform.tfvars.json``, or without either, the
  first ``*.auto.tfvars``).

Deployments never narrow a trace: the customer's values decide at deployment. They are shown
beside a trace (``deployments`` in ``trace --json``, hovers) and offered as values by fixes.

For other features (quick fixes, messages), ``deployment_values(analysis, root_dir, name)``
gives the value each deployment of a root assigns to one of its variables, and
``variable_values(analysis, var_dir, name)`` the distinct values, in deployment order: call
them with the root variable a trace stops at (``Unbounded.variable``).

Pure: variable files arrive parsed (``Analysis.tfvars``); values are read from their literal
expressions, and an assignment that is not a literal (Terraform rejects references and
function calls in variable files) leaves that variable undecided.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any, Collection, Iterable, Mapping, Protocol

from ..records import record, field
from ..syntax.expr import Expr, LiteralExpr, ObjectExpr, ParenExpr, ScopeTraversalExpr, Span, TemplateExpr, TupleExpr, UnaryOpExpr
from ..syntax.hclfile import Body
from ..values.value import nfc, value_key

if TYPE_CHECKING:
    from ..syntax.hclfile import HclFile
    from .model import Module
    from .terragrunt import Unit


class Tables(Protocol):
    """What the functions "over an analysis" below read of an analysed workspace (the analysis's
    ``Snapshot`` has them): the analysis builds on stir, so stir names only the tables it reads."""

    modules: Mapping[str, Module]
    tfvars: Mapping[str, HclFile]
    units: tuple[Unit, ...]

Value = Any
TFVARS_SUFFIXES = (".tfvars", ".tfvars.json")
VARIABLE_FILES, TERRAGRUNT_UNIT = "variable-files", "terragrunt-unit"


class _NotLiteral(Exception):
    pass


@record(frozen=True)
class VariableFile:
    """One variable file: what it assigns, and where each assignment's name is."""

    path: str  # relative to DIR
    values: Mapping[str, Value]  # assignments whose value is a literal
    name_spans: Mapping[str, Span]  # every assignment, literal or not
    undecided: frozenset[str] = frozenset()  # assignments that are not literals


@record(frozen=True)
class Deployment:
    """One way the root is planned: its variable files layered, and the assignment that results."""

    root: str  # root module directory, relative to DIR
    name: str  # the deciding file, relative to the root (``env/prod.tfvars``)
    files: tuple[str, ...]  # the files applied, lowest precedence first, relative to DIR
    assignment: Mapping[str, Value] = field(default_factory=dict)
    set_by: Mapping[str, str] = field(default_factory=dict)  # variable -> file whose value wins
    kind: str = VARIABLE_FILES  # or TERRAGRUNT_UNIT: ``files`` starts with the unit's terragrunt.hcl

    @property
    def undecided(self) -> frozenset[str]:
        """The variables its files set to values tfphi cannot evaluate (not decided by it)."""
        return frozenset(name for name in self.set_by if name not in self.assignment)

    @property
    def file(self) -> str:
        """The deciding file, relative to DIR (a unit's terragrunt.hcl)."""
        return self.files[0] if self.kind == TERRAGRUNT_UNIT else self.files[-1]


def is_variable_file(path: str) -> bool:
    return path.endswith(TFVARS_SUFFIXES)


def is_auto_loaded(name: str) -> bool:
    """True for the files ``terraform plan`` loads by itself (by base name)."""
    return name in ("terraform.tfvars", "terraform.tfvars.json") or name.endswith((".auto.tfvars", ".auto.tfvars.json"))


def owning_root(path: str, module_dirs: Collection[str]) -> str | None:
    """The module directory a variable file belongs to: its own directory, or the nearest
    enclosing one when it sits in subfolders without module files (``env/prod.tfvars``).
    ``module_dirs`` is asked, never copied (a check asks once per root: at 10,000 modules,
    copying it each time was an eighth of the run)."""
    dir = posixpath.dirname(path)
    while True:
        if dir in module_dirs:
            return dir
        if not dir or posixpath.basename(dir) == "..":
            return None
        dir = posixpath.dirname(dir)


def files_of_root(root: str, paths: Iterable[str], module_dirs: Collection[str]) -> list[str]:
    """The variable files of ``root`` among ``paths``, sorted."""
    return sorted(p for p in paths if is_variable_file(p) and owning_root(p, module_dirs) == root)


def _auto_order(path: str) -> tuple:
    name = posixpath.basename(path)
    if name == "terraform.tfvars":
        return (0, name)
    if name == "terraform.tfvars.json":
        return (1, name)
    return (2, name)


def deployments_of(root: str, files: Mapping[str, VariableFile]) -> tuple[Deployment, ...]:
    """The deployments of one root, sorted by name (``files``: the root's variable files by path)."""
    auto = sorted(
        (p for p in files if posixpath.dirname(p) == root and is_auto_loaded(posixpath.basename(p))),
        key=_auto_order,
    )
    deployments: list[Deployment] = []
    if auto:
        deployments.append(_layer(root, _relative(auto[0], root), tuple(auto), files))
    for path in sorted(files):
        if path in auto:
            continue
        deployments.append(_layer(root, _relative(path, root), tuple(auto) + (path,), files))
    deployments.sort(key=lambda d: d.name)
    return tuple(deployments)


def _relative(path: str, root: str) -> str:
    return posixpath.relpath(path, root) if root else path


def _layer(root: str, name: str, layers: tuple[str, ...], files: Mapping[str, VariableFile],
           kind: str = VARIABLE_FILES) -> Deployment:
    assignment: dict[str, Value] = {}
    set_by: dict[str, str] = {}
    for path in layers:
        source = files[path]
        for var in source.name_spans:
            if var in source.values:
                assignment[var] = source.values[var]
            else:
                assignment.pop(var, None)  # a later, non-literal assignment: undecided
            set_by[var] = path
    return Deployment(root, name, layers, assignment, set_by, kind)


# ---- reading variable files ----------------------------------------------------------------


def variable_file(path: str, body: Body) -> VariableFile:
    """The assignments of a parsed variable file (native or JSON: both arrive as a ``Body``)."""
    values: dict[str, Value] = {}
    spans: dict[str, Span] = {}
    undecided: set[str] = set()
    for name, attribute in body.attributes.items():
        spans[name] = attribute.name_span
        try:
            values[name] = literal_value(attribute.expr)
        except _NotLiteral:
            undecided.add(name)
    return VariableFile(path, values, spans, frozenset(undecided))


def literal_value(expr: Expr) -> Value:
    """The value of a literal expression (what a variable file may hold); raises _NotLiteral."""
    if isinstance(expr, LiteralExpr):
        return expr.value
    if isinstance(expr, ParenExpr):
        return literal_value(expr.inner)
    if isinstance(expr, TemplateExpr) and all(isinstance(p, str) for p in expr.parts):
        return nfc("".join(expr.parts))  # type: ignore[arg-type]
    if isinstance(expr, TupleExpr):
        return [literal_value(item) for item in expr.items]
    if isinstance(expr, ObjectExpr):
        out: dict[str, Value] = {}
        for key, value in expr.items:
            if isinstance(key, ScopeTraversalExpr) and not key.steps:
                name = key.root  # a bare name as an object key is that name
            else:
                name = literal_value(key)
                if not isinstance(name, str):
                    raise _NotLiteral()
            out[name] = literal_value(value)
        return out
    if isinstance(expr, UnaryOpExpr) and expr.op == "-":
        inner = literal_value(expr.operand)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
    raise _NotLiteral()


# ---- over an analysis ------------------------------------------------------------------------


def root_deployments(analysis: Tables, root: str) -> tuple[Deployment, ...]:
    """The deployments of one root configuration of an analysed workspace: its variable files
    and the Terragrunt units that deploy it."""
    modules = analysis.modules
    paths = files_of_root(root, analysis.tfvars, modules)
    files = {p: variable_file(p, analysis.tfvars[p].body) for p in paths}
    found = deployments_of(root, files)
    units = [u for u in analysis.units if u.module_dir == root]
    if not units:
        return found
    if root == ".." or root.startswith("../"):  # DIR is a unit's folder, or a folder of units: their deployments only
        found = ()
    module = modules.get(root)
    declared = module.variables if module is not None else {}
    auto = tuple(sorted((p for p in files if posixpath.dirname(p) == root and is_auto_loaded(posixpath.basename(p))),
                        key=_auto_order))
    for unit in units:
        files[unit.path] = unit_inputs(unit, declared)
        # Terragrunt passes inputs as TF_VAR_ variables: the module directory's auto-loaded files win over them.
        found += (_layer(root, unit.name, (unit.path,) + auto, files, TERRAGRUNT_UNIT),)
    return tuple(sorted(found, key=lambda d: d.name))


def unit_inputs(unit: "Unit", declared: Iterable[str]) -> VariableFile:
    """A unit's inputs as the lowest layer of its deployment: an input Terragrunt only knows when
    it runs is set but undecided; inputs unknown as a whole leave every declared variable
    they could set undecided."""
    spans = dict(unit.name_spans)
    undecided = set(unit.unknown)
    if unit.all_unknown is not None:
        for name in declared:
            if name not in spans:
                spans[name] = Span(unit.path, 0, 0)
                undecided.add(name)
    return VariableFile(unit.path, dict(unit.values), spans, frozenset(undecided))


def deployment_values(analysis: Tables, root: str, name: str) -> list[tuple[Deployment, Value]]:
    """The value each deployment of ``root`` assigns to its variable ``name`` (those that assign it)."""
    return [(d, d.assignment[name]) for d in root_deployments(analysis, root) if name in d.assignment]


def variable_values(analysis: Tables, var_dir: str, name: str) -> list[Value]:
    """The distinct values the deployments of the root ``var_dir`` give ``var.<name>``, in order."""
    seen: set[str] = set()
    out: list[Value] = []
    for _, value in deployment_values(analysis, var_dir, name):
        key = value_key(value)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def undeclared_assignments(analysis: Tables) -> list[tuple[str, str, Span, str]]:
    """(file, variable, name span, root) for every assignment of a variable its root does not declare."""
    out: list[tuple[str, str, Span, str]] = []
    modules = analysis.modules
    for path in sorted(analysis.tfvars):
        root = owning_root(path, modules)
        module = modules.get(root) if root is not None else None
        if module is None:
            continue
        for name, attribute in analysis.tfvars[path].body.attributes.items():
            if name not in module.variables:
                out.append((path, name, attribute.name_span, root))
    return out
