"""The JSON form of a trace result (SPEC section 1, ``trace --json``)."""

from __future__ import annotations

from typing import Any

from ..analysis import Analysis
from ..trace.conditions import materialize
from ..trace.result import RESOLVED, TraceResult
from ..trace.values import to_json
from .locations import location


def trace_to_json(analysis: Analysis, result: TraceResult) -> dict[str, Any]:
    branches = [
        {
            "value": to_json(b.value),
            "condition": "true" if result.kind == RESOLVED else str(b.cond),
            "gate": None if result.kind == RESOLVED else materialize(b.cond),
            "trace": list(b.path),
            "source": location(analysis, b.source),
        }
        for b in result.branches
    ]
    return {
        "address": result.address,
        "kind": result.kind,
        "branches": branches,
        "selector": result.selector,
        "reason": result.reason,
    }
