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
from . import steps as S
from ..evaluate.functions import FUNCTIONS, call_function
from .partial import known_operands
from .printer import call
from .result import Branch, Result, Unbounded
from ..values.value import TfEvalError
from .lift import lift, one_line

Strategy = Callable[..., Result]

# Functions that read a collection's shape, not its members: known for a partly known value.
MEMBER_BLIND = frozenset({"length", "keys"})


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
    if expr.name in MEMBER_BLIND and count == 1:
        def blind(values: list) -> object:
            known_operands(values)  # the collection itself is known; its members need not be
            return apply(values)

        return tracer.combine(results, blind, S.Op(f"Call {expr.name}"), expr.span, keep_source=single_source, partial=True)
    return tracer.combine(results, apply, S.Op(f"Call {expr.name}"), expr.span, keep_source=single_source)


def try_arms(tracer, expr: FunctionCallExpr, env, depth, stack) -> Result:
    """``try(a, b, ...)``: the first arm that evaluates.

    An arm known to always evaluate ends the list; one that fails for some of its
    combinations is taken under ``Existing(can(arm))`` and the next arms under its negation;
    one that always fails falls through. An arm whose trace is Unbounded makes the whole
    ``try`` Unbounded: the tracer cannot know whether it fails, so the fallback is no answer.
    """
    if not expr.args:
        return Unbounded("try() needs at least one argument", "error", expr.span)
    branches: list[Branch] = []
    gate: C.Cond = C.TRUE
    for arm in expr.args:
        result, may_fail = tracer.trace_may_fail(arm, env, depth, stack)
        if isinstance(result, Unbounded):
            if result.cause == "error":
                continue  # this arm always fails to evaluate: try falls through to the next
            return Unbounded(
                f"try() cannot tell whether {tracer.view.text(arm.span)} fails: {result.reason}", result.cause, result.span, result.variable
            )
        last = arm is expr.args[-1]
        works = _can_atom(tracer, arm, env) if may_fail and not last else None
        if may_fail and not last and works is None:
            return Unbounded(
                f"try() cannot tell in the root module whether {tracer.view.text(arm.span)} fails", "invalid", arm.span
            )
        this_gate = C.conjoin(gate, works) if works is not None else gate
        for b in result:
            joined = C.conjoin(this_gate or C.TRUE, b.cond)
            if joined is not None:
                branches.append(Branch(b.value, joined, (S.Op("Call try", sizes=(len(b.path),)),) + b.path, b.source))
        if works is None:
            break  # this arm always evaluates: the later ones are never reached
        gate = C.conjoin(gate, C.Not(works)) or gate
    if not branches:
        return Unbounded("no argument of try() can be evaluated", "error", expr.span)
    return tracer.limit(tuple(branches), expr.span)


def can_strategy(tracer, expr: FunctionCallExpr, env, depth, stack) -> Result:
    """``can(x)``: true when ``x`` always evaluates, false when it never does, else ``Existing(can(x))``.

    A bounded argument may fail for some of its combinations (they are dropped from its
    branch set); then ``can`` is true or false depending on an atom written in the root.
    """
    if len(expr.args) != 1:
        return Unbounded("can() takes exactly one argument", "error", expr.span)
    result, may_fail = tracer.trace_may_fail(expr.args[0], env, depth, stack)
    if isinstance(result, Unbounded):
        if result.cause == "error":
            return (Branch(False, C.TRUE, (S.Op("Call can"),), expr.span),)
        return Unbounded(
            f"can() cannot tell whether {tracer.view.text(expr.args[0].span)} fails: {result.reason}", result.cause, result.span, result.variable
        )
    if not may_fail:
        return (Branch(True, C.TRUE, (S.Op("Call can"),), expr.span),)
    works = _can_atom(tracer, expr.args[0], env)
    if works is None:
        return Unbounded(f"{tracer.view.text(expr.span)} cannot be written in the root module", "invalid", expr.span)
    return (
        Branch(True, works, (S.Op("Call can"),), expr.span),
        Branch(False, C.Not(works), (S.Op("Call can"),), expr.span),
    )


def _can_atom(tracer, arm, env) -> "C.Existing | None":
    """``Existing(can(arm))`` in the arm's module instance, or None when no gate in the root can test it."""
    if env.bindings or env.iterators:
        return None  # the arm may fail for some instances and not others
    root_expr = lift(tracer.view, arm, env.path)
    if root_expr is None:
        return None
    atom = C.Existing(f"can({one_line(tracer.view.text(arm.span))})", None, C.PREC_ATOM, env.scope, call("can", root_expr))
    return atom if atom.gate_text is not None else None


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
