"""Trace results: Resolved ⊂ Bounded ⊂ Unbounded, as the tracer hands them to every consumer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ..syntax.expr import Span
from .conditions import Cond, TrueCond, atoms, Eq, Existing
from .values import Value


@dataclass(frozen=True, slots=True)
class Branch:
    """One value the expression can take, with the path condition and where it came from."""

    value: Value
    cond: Cond
    path: tuple[str, ...]
    source: Span | None


@dataclass(frozen=True, slots=True)
class Unbounded:
    """No finite answer. ``cause`` says what kind of blocker; ``variable`` names the one to fix."""

    reason: str
    cause: str  # variable | missing | apply-time | plan-stability | nondeterministic | data | function | opaque | invalid | undefined | error | depth | cycle | size
    span: Span | None = None
    variable: tuple[str, str] | None = None  # (module dir, variable name)


# Intermediate trace results: a list of branches, or Unbounded.
Result = Union[tuple[Branch, ...], Unbounded]

RESOLVED, BOUNDED, UNBOUNDED = "resolved", "bounded", "unbounded"


@dataclass(frozen=True, slots=True)
class TraceResult:
    """The answer for one field (or expression) in one module instance."""

    address: str
    kind: str
    branches: tuple[Branch, ...]  # coalesced; conditions may contain Or
    selector: str | None
    unbounded: Unbounded | None
    expr_span: Span | None
    call_path: tuple[tuple[str, str], ...] = ()

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
            if text is not None and text not in seen:
                seen.append(text)
    return ", ".join(seen) if seen else None


def kind_of(branches: tuple[Branch, ...]) -> str:
    if len(branches) == 1 and isinstance(branches[0].cond, TrueCond):
        return RESOLVED
    return BOUNDED
