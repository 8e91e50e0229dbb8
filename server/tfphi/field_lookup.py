"""Finding a field address in the root configurations of a workspace, and tracing it there.

``tfphi trace DIR ADDRESS`` reads ADDRESS from a root module (SPEC section 1): DIR itself when
it holds module files, as ``terraform plan`` in DIR would; otherwise every root configuration
under DIR, where one match is traced and several are a usage error naming each root. Instance
keys in the address (``module.cache["eu"]``, ``this["jobs"]``, ``web[0]``) narrow the answer to
that instance.

Pure: it reads an ``Analysis`` and never touches the disk.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from . import records
from .addrs import AddressError, FieldAddress, InstanceKey, ModuleCall, ModuleInstance, NO_KEY, format_key, parse_field_address
from .analysis import Analysis
from .records import record
from .stir.deployments import root_deployments
from .stir.model import Resource
from .stir.roots import display_dir
from .stir.workspace import CallPath
from .trace import conditions as C
from .syntax.hclfile import Attribute
from .trace.result import RESOLVED, UNBOUNDED, Branch, TraceResult
from .trace.env import UNDECIDED, Env, find_field
from .trace.finish import finish
from .values.value import Value, to_json

__all__ = ["AddressError", "AmbiguousField", "FieldMatch", "FieldLookupError", "candidate_roots", "find_matches", "narrow", "parse_field_address", "trace_match"]


class FieldLookupError(Exception):
    """ADDRESS names no field, or fields in several roots; the message says which (exit 2)."""


class AmbiguousField(FieldLookupError):
    """ADDRESS names fields in several root configurations (the message lists them)."""


@record(frozen=True)
class FieldMatch:
    """One field an address names: in which root, through which call path, on which resource."""

    root: str  # the root module's directory, relative to DIR ("" for DIR itself)
    path: CallPath
    resource: Resource
    address: FieldAddress


def candidate_roots(analysis: Analysis) -> tuple[str, ...]:
    """DIR itself when it holds module files (it is the root, whatever calls it); else the roots under it."""
    if "" in analysis.modules:
        return ("",)
    return analysis.tree.roots


def find_matches(analysis: Analysis, address: FieldAddress, roots: Sequence[str],
                 opaque: list[str] | None = None) -> list[FieldMatch]:
    """The fields ``address`` names, one per root where its module path and resource exist
    (``opaque`` collects why a module call on the way could not be followed)."""
    matches: list[FieldMatch] = []
    for root in roots:
        path: CallPath = (("", root),)
        for step in address.module.steps:
            target = analysis.tree.targets.get((path[-1][1], step.name))
            if target is None or target.dir is None:
                if target is not None and target.opaque_reason and opaque is not None:
                    calls = "".join(f"{ModuleCall(name)}." for name, _ in path[1:])
                    opaque.append(f"{calls}{target.opaque_reason}" if calls else target.opaque_reason)
                break
            path = path + ((step.name, target.dir),)
        else:
            module = analysis.modules.get(path[-1][1])
            if module is None:
                continue
            table = module.data if address.mode == "data" else module.resources
            resource = table.get(address.resource_key)
            if resource is not None and find_field(resource, address.field) is not None:
                matches.append(FieldMatch(root, path, resource, address))
    return matches


def lookup(analysis: Analysis, text: str, dir_label: str, root_label: Callable[[str], str] = display_dir,
           roots: Sequence[str] | None = None) -> FieldMatch:
    """The one field ``text`` names in the workspace (``dir_label`` is DIR as the user gave it;
    ``root_label`` prints a root directory for the user, who passes one of them as DIR;
    ``roots``: where to look, ``candidate_roots`` unless given)."""
    try:
        address = parse_field_address(text)
    except AddressError as exc:
        raise FieldLookupError(str(exc)) from None
    roots = candidate_roots(analysis) if roots is None else tuple(roots)
    opaque: list[str] = []
    matches = find_matches(analysis, address, roots, opaque)
    if len(matches) == 1:
        _check_keys(analysis, matches[0])
        return matches[0]
    unkeyed = _unkeyed(address)
    if not matches:
        hint = ""
        if roots == ("",):
            elsewhere = [m.root for m in find_matches(analysis, address, analysis.tree.roots) if m.root]
            if elsewhere:
                hint = f"; it exists under {_listing([root_label(r) for r in elsewhere])}: pass one of them as DIR"
        if not hint and opaque:
            hint = f": {opaque[0]}"
        raise FieldLookupError(f"{unkeyed} names no field in {dir_label}{hint}")
    names = [root_label(m.root) for m in matches]
    raise AmbiguousField(f"{unkeyed} exists under {len(names)} root modules: {', '.join(names)}; pass one of them as DIR")


def _listing(labels: list[str]) -> str:
    count = len(labels)
    return f"{count} root module{'s' if count != 1 else ''} ({', '.join(labels)})"


def _unkeyed(address: FieldAddress) -> FieldAddress:
    return records.replace(address, module=address.module.unkeyed(), key=NO_KEY)


def _check_keys(analysis: Analysis, match: FieldMatch) -> None:
    """A key on something that is not iterated, or of the wrong kind, is an error, as in Terraform."""
    declarations = []
    for i, step in enumerate(match.address.module.steps, start=1):
        caller = analysis.modules.get(match.path[i - 1][1])
        call = caller.calls.get(step.name) if caller else None
        if call is not None:
            declarations.append((str(ModuleCall(step.name)), call.count, call.for_each, step.key, match.path[: i]))
    resource = match.resource
    declarations.append((resource.address, resource.count, resource.for_each, match.address.key, match.path))
    for name, count, for_each, key, path in declarations:
        if key is NO_KEY:
            continue
        if count is None and for_each is None:
            raise FieldLookupError(f"{name} has neither count nor for_each, so it takes no instance key")
        if isinstance(key, int) and count is None:
            raise FieldLookupError(f"{name} uses for_each: its instance keys are strings")
        if isinstance(key, str) and for_each is None:
            raise FieldLookupError(f"{name} uses count: its instance keys are numbers")
        keys = instance_keys(analysis, path, count, for_each)
        if keys is not None and key not in keys:
            listed = ", ".join(format_key(k) for k in keys) if keys else "none"
            raise FieldLookupError(f"{name} has no instance {format_key(key)}; its instances are: {listed}")


MAX_LISTED_KEYS = 64


def instance_keys(analysis: Analysis, path: CallPath, count: Attribute | None, for_each: Attribute | None) -> list[InstanceKey] | None:
    """Every instance key a ``count``/``for_each`` (evaluated in the module instance ``path``) can
    give, over all its branches; None when they are decided at plan time (not traced to known values)."""
    attribute = for_each if for_each is not None else count
    if attribute is None:
        return None
    traced, _ = analysis.tracer.trace_attribute("for_each" if for_each is not None else "count", attribute, Env(path))
    if traced.kind == UNBOUNDED:
        return None
    keys: list[InstanceKey] = []
    for branch in traced.branches:
        value = branch.value
        if for_each is None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value > MAX_LISTED_KEYS:
                return None
            found: list[InstanceKey] = list(range(int(value)))
        elif isinstance(value, dict):
            found = list(value)
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            found = list(value)
        else:
            return None
        keys.extend(k for k in found if k not in keys)
    return sorted(keys, key=lambda k: (isinstance(k, str), k))


def trace_match(analysis: Analysis, match: FieldMatch, universe: Sequence[Value] | None = None,
                assignment: Mapping[str, Value] | None = None) -> TraceResult:
    """Traces the matched field (``assignment``: root variables set, as a deployment sets them)."""
    address = match.address
    spec = analysis.config.field_spec(address.type, ".".join(address.field))
    chosen = tuple(universe) if universe else (spec.universe if spec else ())
    label = str(_unkeyed(address))
    kwargs = {"assignment": dict(assignment)} if assignment is not None else {}
    result, _ = analysis.tracer.trace_field(match.path, match.resource, address.field, chosen, label=label, **kwargs)
    result = records.replace(result, address=str(address))
    return narrow(analysis, result, match)


# ---- narrowing to one instance ------------------------------------------------------------


def narrow(analysis: Analysis, result: TraceResult, match: FieldMatch) -> TraceResult:
    """Keeps the branches of the instance the address's keys name.

    Iteration atoms belong to the module instance whose ``count``/``for_each`` they read: the
    resource's own (``Eq(module.cache: each.key, "jobs")``), and each iterated module call's, in
    its caller's scope. Taking the atoms the keys name as true (and so every other key's as
    false) narrows the answer; a key the field does not depend on changes nothing.
    """
    address = match.address
    keyed = [(ModuleInstance.of_calls(s.name for s in address.module.steps[:i]), s.key)
             for i, s in enumerate(address.module.steps) if s.key is not NO_KEY]
    if address.key is not NO_KEY:
        keyed.append((address.module.unkeyed(), address.key))
    if not keyed or result.kind == "unbounded":
        return result
    branches = []
    for branch in result.branches:
        cond: C.Cond | None = branch.cond
        for scope, key in keyed:
            cond = assume(cond, scope, key) if cond is not None else None
        if cond is not None:
            branches.append(Branch(branch.value, cond, branch.path, branch.source))
    narrowed = finish(result.address, tuple(branches), analysis.config.limits, result.expr_span, result.call_path)
    narrowed = records.replace(narrowed, exists=result.exists, resource=result.resource)
    if not branches:
        return records.replace(narrowed, unbounded=records.replace(
            narrowed.unbounded, reason=f"{result.address} has no instance with these keys"))
    return narrowed


def assume(cond: C.Cond, scope: ModuleInstance, key: InstanceKey) -> C.Cond | None:
    """``cond`` with the iteration atom of ``scope`` taken to be ``key`` (every other key's atom
    false); None when the condition then cannot hold."""
    selector = "count.index" if isinstance(key, int) else "each.key"
    if isinstance(cond, C.Eq) and cond.iteration and cond.selector == selector and cond.scope == scope:
        return C.TRUE if cond.value_key == C.eq(selector, key).value_key else None
    if isinstance(cond, C.Not):
        inner = assume(cond.inner, scope, key)
        if inner is None:
            return C.TRUE
        if isinstance(inner, C.TrueCond):
            return None
        return C.negate(inner)
    if isinstance(cond, C.And):
        out: C.Cond | None = C.TRUE
        for item in cond.items:
            part = assume(item, scope, key)
            if part is None:
                return None
            out = C.conjoin(out, part)
            if out is None:
                return None
        return out
    if isinstance(cond, C.Or):
        parts = [p for p in (assume(item, scope, key) for item in cond.items) if p is not None]
        if not parts:
            return None
        if any(isinstance(p, C.TrueCond) for p in parts):
            return C.TRUE
        return C.disjoin(parts)
    return cond


def deployments_json(analysis: Analysis, match: FieldMatch) -> list[dict[str, Any]]:
    """The value the field takes under each deployment of the root, or null when it does not decide it."""
    out = []
    for deployment in root_deployments(analysis, match.root):
        value = None
        assignment = dict(deployment.assignment, **dict.fromkeys(deployment.undecided, UNDECIDED))
        traced = trace_match(analysis, match, assignment=assignment)
        if traced.kind == RESOLVED:
            value = to_json(traced.branches[0].value)
        out.append({"file": deployment.name, "value": value})
    return out
