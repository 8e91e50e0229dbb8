"""The JSON form of a trace result (SPEC section 1, ``trace --json``)."""

from __future__ import annotations

from typing import Any

from ..analysis import Analysis
from ..trace.conditions import TrueCond, Cond, NotExpressible, root_gate
from ..trace.result import RESOLVED, TraceResult, instance_of
from ..trace.steps import seed_texts
from ..values.value import to_json
from .locations import location


def trace_to_json(analysis: Analysis, result: TraceResult) -> dict[str, Any]:
    branches = [
        {
            "value": to_json(b.value),
            "condition": "true" if result.kind == RESOLVED else str(b.cond),
            "gate": None if result.kind == RESOLVED else _gate(b.cond),
            "instance": instance_of(b.cond, result.call_path, result.resource),
            "trace": seed_texts(b.path),
            "source": location(analysis, b.source),
        }
        for b in result.branches
    ]
    return {
        "address": result.address,
        "kind": result.kind,
        "exists": exists_json(result.exists),
        "branches": branches,
        "selector": result.selector,
        "reason": result.reason,
    }


def _gate(cond: Cond) -> str | None:
    try:
        return root_gate(cond)
    except NotExpressible:
        return None  # FIXME: the tracer should never hand out a branch whose gate cannot be written


def exists_json(exists: Cond | None) -> bool | str:
    """``true``, ``false`` or the gate under which the resource has at least one instance."""
    if exists is None:
        return False
    if isinstance(exists, TrueCond):
        return True
    try:
        return root_gate(exists) or True
    except NotExpressible:
        return str(exists)
