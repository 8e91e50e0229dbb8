"""Function trace strategies: how each function family pushes branch sets through.

The value semantics live in ``functions`` (shared with the concrete evaluator); a strategy
only decides how arguments are traced and combined:
- element-wise (the default): trace every argument, map each combination of branches;
- ``try``: the union of its arms, each gated on whether the arms before it evaluate;
- ``can``: known when its argument is;
- ``jsondecode``/``yamldecode``: run at trace time on a literal, Unbounded otherwise;
- nondeterministic functions (``timestamp``, ``uuid``...): Unbounded, and a plan-stability
  violation when used in a selector (the conditional reports that);
- unknown and provider-defined functions: Unbounded, naming the function.
"""

from __future__ import annotations

from typing import Callable

from ..syntax.expr import FunctionCallExpr, LiteralExpr
from . import conditions as C
from .functions import FUNCTIONS, call_function
from .result import Branch, Result, Unbounded
from .values import TfEvalError

Strategy = Callable[..., Result]


def elementwise(tracer, expr: FunctionCallExpr, env, depth, stack) -> Result:
    """Traces each argument and applies the function to every combination of branches."""
    spec = FUNCTIONS[expr.name]
    if spec.nondeterministic:
        return Unbounded(f"{expr.name}() is only known when Terraform runs", "nondeterministic", expr.span)
    results = [tracer.trace(arg, env, depth, stack) for arg in expr.args]
    count = len(expr.args)

    def apply(values: list) -> object:
        if expr.expand_final and values:
            last = values[-1]
            if not isinstance(last, list):
                raise TfEvalError(f"the final argument of {expr.name}(...) must be a list to expand")
            values = values[:-1] + list(last)
        return call_function(expr.name, list(values))

    single_source = count == 1 and not expr.expand_final
    return tracer.combine(results, apply, f"Call {expr.name}", expr.span, keep_source=single_source)


def try_arms(tracer, expr: FunctionCallExpr, env, depth, stack) -> Result:
    """``try(a, b, ...)``: a known arm that evaluates wins; otherwise the arm-union, gated by ``can``."""
    if not expr.args:
        return Unbounded("try() needs at least one argument", "error", expr.span)
    branches: list[Branch] = []
    previous: list[C.Cond] = []
    for arm in expr.args:
        result = tracer.trace(arm, env, depth, stack)
        if isinstance(result, Unbounded):
            if result.cause == "error":
                continue  # this arm fails to evaluate: try falls through to the next
            return result
        if not previous and len(result) == 1 and isinstance(result[0].cond, C.TrueCond):
            return _prefix(result, "Call try (first arm)")
        gate: C.Cond = C.TRUE
        for failed in previous:
            gate = C.conjoin(gate, C.Not(failed)) or gate
        text = tracer.view.text(arm.span)
        works = C.Existing(f"can({text})", None)
        this_gate = C.conjoin(gate, works) if arm is not expr.args[-1] else gate
        for b in result:
            joined = C.conjoin(this_gate or C.TRUE, b.cond)
            if joined is not None:
                branches.append(Branch(b.value, joined, ("Call try",) + b.path, b.source))
        previous.append(works)
    if not branches:
        return Unbounded("no argument of try() can be evaluated", "error", expr.span)
    return tracer.limit(tuple(branches), expr.span)


def can_strategy(tracer, expr: FunctionCallExpr, env, depth, stack) -> Result:
    """``can(x)``: known when ``x`` is resolved (true) or always fails (false); otherwise both.

    A bounded argument may fail for some of its combinations (they are dropped from its
    branch set), so ``can`` is then true or false depending on ``Existing(can(x))``.
    """
    if len(expr.args) != 1:
        return Unbounded("can() takes exactly one argument", "error", expr.span)
    result = tracer.trace(expr.args[0], env, depth, stack)
    if isinstance(result, Unbounded):
        if result.cause == "error":
            return (Branch(False, C.TRUE, ("Call can",), expr.span),)
        return result
    if len(result) == 1 and isinstance(result[0].cond, C.TrueCond):
        return (Branch(True, C.TRUE, ("Call can",), expr.span),)
    works = C.Existing(tracer.view.text(expr.span), expr)
    return (
        Branch(True, works, ("Call can",), expr.span),
        Branch(False, C.Not(works), ("Call can",), expr.span),
    )


def decode_literal(tracer, expr: FunctionCallExpr, env, depth, stack) -> Result:
    """``jsondecode``/``yamldecode`` run at trace time only on a literal argument."""
    if len(expr.args) != 1 or not isinstance(expr.args[0], LiteralExpr):
        return Unbounded(
            f"{expr.name}() of a non-literal argument is not traced: its structure is only known when it is decoded",
            "function",
            expr.span,
        )
    return elementwise(tracer, expr, env, depth, stack)


def unknown(tracer, expr: FunctionCallExpr, env, depth, stack) -> Result:
    spec = FUNCTIONS.get(expr.name)
    if spec is not None:
        reason = f"{expr.name}() depends on files or the machine Terraform runs on, which tfphi never reads"
    elif "::" in expr.name:
        reason = f"the provider-defined function {expr.name}() is not traced"
    else:
        reason = f"the function {expr.name}() has no trace strategy"
    return Unbounded(reason, "function", expr.name_span)


STRATEGIES: dict[str, Strategy] = {
    "try": try_arms,
    "can": can_strategy,
    "jsondecode": decode_literal,
    "yamldecode": decode_literal,
}


def strategy_for(name: str) -> Strategy:
    """The registry lookup: a special strategy, else element-wise for known functions, else unknown."""
    strategy = STRATEGIES.get(name)
    if strategy is not None:
        return strategy
    spec = FUNCTIONS.get(name)
    if spec is not None and (spec.elementwise or spec.nondeterministic):
        return elementwise
    return unknown


def _prefix(result, step):
    return tuple(Branch(b.value, b.cond, (step,) + b.path, b.source) for b in result)
