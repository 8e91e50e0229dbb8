"""The incremental-equals-fresh tests compare whole analyses with ==: two fresh analyses of the
same texts must compare equal, or those tests fail for a reason that is not incrementality.

Found when a generated edit renamed `output "version"` to `output "engine"` in the many-calls
layout: `module.db_1.engine == "redis"` then blocked on an apply-time value, and the Unbounded's
condition, an expression (equal only to itself), made two fresh analyses differ."""

from __future__ import annotations

import pytest

from host_support import LAYOUTS, everything, fresh

CASES = dict(LAYOUTS)
CASES["a conditional blocked by an apply-time output"] = {
    path: text.replace('output "version"', 'output "engine"') for path, text in LAYOUTS["a root of many calls"].items()
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_fresh_analyses_compare_equal(name):
    texts = CASES[name]
    assert everything(fresh(texts)) == everything(fresh(texts))


def test_the_blocked_conditional_is_there():
    """The case above holds what it is for: an Unbounded whose selector is the blocker."""
    analysis = everything(fresh(CASES["a conditional blocked by an apply-time output"]))
    blocked = [
        (address, result.unbounded.reason)
        for _, traces, _, _ in analysis.values()
        for address, _, result in traces
        if result.unbounded is not None and result.unbounded.condition is not None
    ]
    assert blocked == [
        ("aws_db_instance.copy", 'the selector module.db_1.engine == "redis" depends on an apply-time value (aws_db_instance.this.engine_version)')
    ]
