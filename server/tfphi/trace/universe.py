"""The universe a validation block lifts for a variable: ``contains([...], var.x)``, ``var.x == a || ...``."""

from __future__ import annotations

from ..stir.model import Variable
from ..syntax.expr import AttrStep, BinaryOpExpr, Expr, FunctionCallExpr, LiteralExpr, ParenExpr, ScopeTraversalExpr, Span, TupleExpr
from ..values.value import Value, value_key


def lift_validation_universe(var: Variable) -> list[tuple[Value, Span]] | None:
    """Values a validation block allows: ``contains([...], var.x)`` or ``var.x == a || var.x == b``."""
    for validation in var.validations:
        lifted = _lift(validation.condition, var.name)
        if lifted:
            return lifted
    return None


def _is_var(expr: Expr, name: str) -> bool:
    while isinstance(expr, ParenExpr):
        expr = expr.inner
    return (
        isinstance(expr, ScopeTraversalExpr)
        and expr.root == "var"
        and len(expr.steps) == 1
        and isinstance(expr.steps[0], AttrStep)
        and expr.steps[0].name == name
    )


def _lift(expr: Expr, name: str) -> list[tuple[Value, Span]] | None:
    while isinstance(expr, ParenExpr):
        expr = expr.inner
    if isinstance(expr, FunctionCallExpr) and expr.name == "contains" and len(expr.args) == 2:
        values, subject = expr.args
        if _is_var(subject, name) and isinstance(values, TupleExpr):
            items = [(i.value, i.span) for i in values.items if isinstance(i, LiteralExpr)]
            if len(items) == len(values.items) and items:
                return _dedupe_values(items)
    if isinstance(expr, BinaryOpExpr) and expr.op == "||":
        left, right = _lift(expr.left, name), _lift(expr.right, name)
        if left and right:
            return _dedupe_values(left + right)
    if isinstance(expr, BinaryOpExpr) and expr.op == "==":
        for subject, literal in ((expr.left, expr.right), (expr.right, expr.left)):
            if _is_var(subject, name) and isinstance(literal, LiteralExpr):
                return [(literal.value, literal.span)]
    return None


def _dedupe_values(items: list[tuple[Value, Span]]) -> list[tuple[Value, Span]]:
    seen, out = set(), []
    for value, span in items:
        key = value_key(value)
        if key not in seen:
            seen.add(key)
            out.append((value, span))
    return out
