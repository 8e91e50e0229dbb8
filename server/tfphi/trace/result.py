"""Trace results: Resolved ⊂ Bounded ⊂ Unbounded, as the tracer hands them to every consumer."""

from __future__ import annotations

from typing import Union

from ..records import field, record
from ..syntax.expr import Span
from .conditions import Cond, TrueCond, atoms, Eq, Existing
from ..values.value import Value
from ..addrs import ModuleInstance, ModuleStep, format_key
from .conditions import And, Or


@record(frozen=True, slots=True)
class Branch:
    """One value the expression can take, with the path condition and where it came from."""

    value: Value
    cond: Cond
    path: tuple[str, ...]
    source: Span | None


@record(frozen=True, slots=True)
class Unbounded:
    """No finite answer. ``cause`` says what kind of blocker; ``variable`` names the one to fix."""

    reason: str
    cause: str  # variable | missing | apply-time | plan-stability | nondeterministic | data | function | opaque | invalid | undefined | error | depth | cycle | size | empty
    span: Span | None = None
    variable: tuple[str, str] | None = None  # (module dir, variable name)
    # When a conditional's selector is what blocks: the condition expression (its ``span`` is
    # ``span``); ``blocker`` is the innermost expression that blocks it (``aws_db_instance.x.arn``).
    # Not compared: expressions are equal only to themselves, and this one is already told by
    # ``span`` and quoted in ``reason`` (two analyses of the same text give equal results).
    condition: object = field(default=None, compare=False)
    blocker: Span | None = None
    # An apply-time value reached through a module output: that output as referenced, and where.
    through: tuple[str, Span] | None = None


# Intermediate trace results: a list of branches, or Unbounded.
Result = Union[tuple[Branch, ...], Unbounded]

RESOLVED, BOUNDED, UNBOUNDED = "resolved", "bounded", "unbounded"


@record(frozen=True, slots=True)
class TraceResult:
    """The answer for one field (or expression) in one module instance."""

    address: str
    kind: str
    branches: tuple[Branch, ...]  # coalesced; conditions may contain Or
    selector: str | None
    unbounded: Unbounded | None
    expr_span: Span | None
    call_path: tuple[tuple[str, str], ...] = ()
    # When the resource (with every module instance around it) has at least one instance:
    # TRUE, a condition, or None for never.
    exists: Cond | None = TrueCond()
    resource: str | None = None  # the resource's address in its module (``aws_db_instance.app``)

    @property
    def reason(self) -> str | None:
        return self.unbounded.reason if self.unbounded else None

    def values(self) -> list[Value]:
        return [b.value for b in self.branches]


def selector_of(branches: tuple[Branch, ...]) -> str | None:
    """The expressions the branches disagree on, in order of first appearance."""
    seen: list[str] = []
    for branch in branches:
        for atom in atoms(branch.cond):
            text = atom.text if isinstance(atom, Existing) else atom.selector if isinstance(atom, Eq) else None
            if text is not None and not atom.scope.is_root:
                text = f"{atom.scope}: {text}"  # a child's name is not the root's
            if text is not None and text not in seen:
                seen.append(text)
    return ", ".join(seen) if seen else None


def kind_of(branches: tuple[Branch, ...]) -> str:
    if len(branches) == 1 and isinstance(branches[0].cond, TrueCond):
        return RESOLVED
    return BOUNDED


def instance_of(cond: Cond, call_path: tuple[tuple[str, str], ...], resource: str | None) -> str | None:
    """The instance a branch belongs to, from its iteration atoms (SPEC 1's ``instance``).

    ``["jobs"]`` or ``[0]`` when only the resource iterates; the whole instance address
    (``module.cache["eu"].aws_x.this["jobs"]``) when module calls iterate too; None when the
    branch is not tied to one instance.
    """
    keys = {scope: value for scope, _, value in iteration_keys(cond)}
    if not keys:
        return None
    calls = [call for call, _ in call_path[1:]]
    own = tuple(ModuleStep(c) for c in calls)
    if set(keys) == {own}:
        return format_key(keys[own])
    steps = []
    for i, call in enumerate(calls):
        steps.append(ModuleStep(call, keys.get(tuple(ModuleStep(c) for c in calls[:i]))))
    module = ModuleInstance(tuple(steps))
    prefix = f"{module}." if steps else ""
    return f"{prefix}{resource}{format_key(keys.get(own))}"


def iteration_keys(cond: Cond) -> frozenset[tuple]:
    """The instance keys a condition fixes, as (module steps, selector, key): those every disjunct shares."""
    if isinstance(cond, Or):
        shared = [iteration_keys(item) for item in cond.items]
        return frozenset.intersection(*shared) if shared else frozenset()
    literals = cond.items if isinstance(cond, And) else (cond,)
    return frozenset(
        (atom.scope.steps, atom.selector, atom.value)
        for atom in literals
        if isinstance(atom, Eq) and atom.iteration and atom.selector in ("each.key", "count.index")
    )
