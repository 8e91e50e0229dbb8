"""A tiny evaluator for the HCL expressions the specializer generates (test helper only).

Covers literals, ``var.x`` lookups, parentheses, ``! -``, every binary operator, conditionals
and the few functions gates use; anything else raises, so a test never silently passes.
"""

from __future__ import annotations

from tfphi.syntax.expr import (
    AttrStep, BinaryOpExpr, ConditionalExpr, FunctionCallExpr, LiteralExpr, ParenExpr,
    ScopeTraversalExpr, TemplateExpr, TupleExpr, UnaryOpExpr,
)
from tfphi.syntax.hclfile import parse_file


class EvalError(Exception):
    pass


def parse_expression(text: str):
    hcl = parse_file("<expr>", f"x = {text}\n".encode())
    assert hcl.errors == [], (text, hcl.errors)
    return hcl.body.attributes["x"].expr


def evaluate(expr, variables: dict):
    if isinstance(expr, str):
        expr = parse_expression(expr)
    if isinstance(expr, LiteralExpr):
        return expr.value
    if isinstance(expr, TemplateExpr):
        return "".join(p if isinstance(p, str) else str(evaluate(p, variables)) for p in expr.parts)
    if isinstance(expr, ParenExpr):
        return evaluate(expr.inner, variables)
    if isinstance(expr, ScopeTraversalExpr):
        if expr.root != "var" or len(expr.steps) != 1 or not isinstance(expr.steps[0], AttrStep):
            raise EvalError(f"cannot evaluate reference {expr.root}")
        return variables[expr.steps[0].name]
    if isinstance(expr, TupleExpr):
        return [evaluate(i, variables) for i in expr.items]
    if isinstance(expr, UnaryOpExpr):
        v = evaluate(expr.operand, variables)
        if expr.op == "!":
            assert isinstance(v, bool)
            return not v
        return -v
    if isinstance(expr, BinaryOpExpr):
        a, b = evaluate(expr.left, variables), evaluate(expr.right, variables)
        op = expr.op
        if op in ("&&", "||"):
            assert isinstance(a, bool) and isinstance(b, bool)
            return (a and b) if op == "&&" else (a or b)
        return {
            "==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, ">": lambda: a > b,
            "<=": lambda: a <= b, ">=": lambda: a >= b, "+": lambda: a + b, "-": lambda: a - b,
            "*": lambda: a * b, "/": lambda: a / b, "%": lambda: a % b,
        }[op]()
    if isinstance(expr, ConditionalExpr):
        c = evaluate(expr.condition, variables)
        assert isinstance(c, bool)
        return evaluate(expr.true_result if c else expr.false_result, variables)
    if isinstance(expr, FunctionCallExpr):
        args = [evaluate(a, variables) for a in expr.args]
        if expr.name == "contains":
            return args[1] in args[0]
        if expr.name == "lower":
            return args[0].lower()
        raise EvalError(f"function {expr.name}")
    raise EvalError(type(expr).__name__)


def eval_cond(cond, variables: dict) -> bool:
    """Truth of a PhiCondition tree, atoms evaluated with ``evaluate``."""
    from tfphi.trace import conditions as C

    if isinstance(cond, C.TrueCond):
        return True
    if isinstance(cond, C.Existing):
        return bool(evaluate(cond.text, variables))
    if isinstance(cond, C.Eq):
        return evaluate(cond.selector, variables) == cond.value
    if isinstance(cond, C.Not):
        return not eval_cond(cond.inner, variables)
    if isinstance(cond, C.And):
        return all(eval_cond(i, variables) for i in cond.items)
    if isinstance(cond, C.Or):
        return any(eval_cond(i, variables) for i in cond.items)
    raise TypeError(cond)
