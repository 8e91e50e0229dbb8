"""A trace's branches made a result: equal values coalesced, classified, limited, gated by existence."""

from __future__ import annotations

from .. import records
from ..config import Limits
from ..stir.workspace import CallPath
from ..syntax.expr import Span
from ..values.value import value_key
from . import conditions as C
from .result import BOUNDED, RESOLVED, UNBOUNDED, Branch, Result, TraceResult, Unbounded, iteration_keys, kind_of, selector_of


def coalesce(branches: tuple[Branch, ...]) -> tuple[Branch, ...]:
    """Branches with equal values merged, their conditions joined with Or (the first one's path kept)."""
    groups: dict[tuple, list[Branch]] = {}
    for branch in branches:
        # Per instance: a value shared by two instances under different conditions stays two
        # branches, so each branch names its instance and its gate holds for that one alone.
        groups.setdefault((value_key(branch.value), iteration_keys(branch.cond)), []).append(branch)
    return tuple(
        Branch(bs[0].value, C.disjoin([b.cond for b in bs]) if len(bs) > 1 else bs[0].cond, bs[0].path, bs[0].source)
        for bs in groups.values()
    )


def finish(address: str, result: Result, limits: Limits, span: Span | None, path: CallPath) -> TraceResult:
    """Coalesces equal values (joining their conditions with Or) and classifies the result.

    One distinct value is Resolved whatever the conditions: the branches are exhaustive, so
    every configuration Terraform accepts gives that value.
    """
    if isinstance(result, Unbounded):
        return TraceResult(address, UNBOUNDED, (), None, result, span, path)
    coalesced = coalesce(result)
    if len({value_key(b.value) for b in coalesced}) == 1:
        first = coalesced[0]
        return TraceResult(address, RESOLVED, (Branch(first.value, C.TRUE, first.path, first.source),), None, None, span, path)
    if not coalesced:
        # (no branch at all: a dynamic block whose for_each is always empty is never generated)
        empty = Unbounded("the expression has no value under any condition", "empty", span)
        return TraceResult(address, UNBOUNDED, (), None, empty, span, path)
    if len(coalesced) > limits.branches:
        too_large = Unbounded(f"bounded, but too large to specialize: {len(coalesced)} values > {limits.branches}", "size", span)
        return TraceResult(address, UNBOUNDED, (), None, too_large, span, path)
    kind = kind_of(coalesced)
    return TraceResult(address, kind, coalesced, selector_of(coalesced) if kind == BOUNDED else None, None, span, path)


def with_existence(result: TraceResult, exists: "C.Cond | None", limits: Limits, owner: str, absent_because: str = "") -> TraceResult:
    """Adds when the resource (``owner``, its address) exists; branches that contradict it are never taken.

    A resource that never exists has no value: Unbounded, saying why it is not created.
    """
    if exists is None:
        never = Unbounded(f"{owner} is never created: {absent_because}", "absent", result.expr_span)
        return records.replace(result, kind=UNBOUNDED, branches=(), selector=None, unbounded=never, exists=None)
    if result.kind != BOUNDED or isinstance(exists, C.TrueCond):
        return records.replace(result, exists=exists)
    kept = tuple(b for b in result.branches if C.conjoin(b.cond, exists) is not None)
    if len(kept) == len(result.branches):
        return records.replace(result, exists=exists)
    redone = finish(result.address, kept, limits, result.expr_span, result.call_path)
    return records.replace(redone, exists=exists)
