"""One printer for HCL expressions: an ``Expr`` tree as Terraform text, on one line.

Gates and ``exists`` are printed from the condition's structure (``conditions.materialize``)
and the expressions ``lift`` builds in the root module's scope, never from source text: a
caller's multi-line object literal with comments prints as ``{ a = 1, b = "x" }``, a heredoc
as a quoted string, and parentheses appear where precedence needs them (or where the source
had them). Nodes are built with ``node``, which gives them an empty span: a printed expression
has no place in any file.

``print_expr`` raises ``NotPrintable`` for what it cannot write back exactly (a syntax error,
a template directive, a splat followed by an index, whose ``.*`` and ``[*]`` forms differ).
"""

from __future__ import annotations

from ..syntax.expr import (
    AttrStep,
    BinaryOpExpr,
    ConditionalExpr,
    Expr,
    ForExpr,
    FunctionCallExpr,
    IndexStep,
    LiteralExpr,
    ObjectExpr,
    ParenExpr,
    RelativeTraversalExpr,
    ScopeTraversalExpr,
    Span,
    SplatStep,
    TemplateExpr,
    TemplateJoinExpr,
    TupleExpr,
    UnaryOpExpr,
)
from ..values.value import Value, hcl_string, to_hcl

NOWHERE = Span("", 0, 0)

# Binding strength of HCL operators (higher binds tighter); the conditional binds loosest.
PREC_COND, PREC_OR, PREC_AND, PREC_EQ, PREC_CMP, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_ATOM = -1, 1, 2, 3, 4, 5, 6, 7, 8
BINARY_PREC = {
    "||": PREC_OR, "&&": PREC_AND, "==": PREC_EQ, "!=": PREC_EQ,
    "<": PREC_CMP, ">": PREC_CMP, "<=": PREC_CMP, ">=": PREC_CMP,
    "+": PREC_ADD, "-": PREC_ADD, "*": PREC_MUL, "/": PREC_MUL, "%": PREC_MUL,
}


class NotPrintable(ValueError):
    """An expression the printer cannot write back as the same Terraform expression."""


def precedence(expr: Expr) -> int:
    """How tightly ``expr`` binds as printed."""
    if isinstance(expr, BinaryOpExpr):
        return BINARY_PREC.get(expr.op, PREC_COND)
    if isinstance(expr, UnaryOpExpr):
        return PREC_UNARY
    if isinstance(expr, ConditionalExpr):
        return PREC_COND
    return PREC_ATOM


def print_expr(expr: Expr) -> str:
    """``expr`` as one line of Terraform; raises NotPrintable."""
    if isinstance(expr, LiteralExpr):
        return to_hcl(expr.value)
    if isinstance(expr, TemplateExpr):
        parts = "".join(_template_part(p) for p in expr.parts)
        if expr.always_string and len(expr.parts) == 1 and not isinstance(expr.parts[0], (str, ConditionalExpr, TemplateJoinExpr)):
            parts += '${""}'  # "${x}" alone would be x itself, unconverted; this template is a string
        return f'"{parts}"'
    if isinstance(expr, TemplateJoinExpr):
        # %{ for x in c }body%{ endfor } is the join of the body's strings
        return f'join("", {print_expr(expr.loop)})'
    if isinstance(expr, ParenExpr):
        return f"({print_expr(expr.inner)})"
    if isinstance(expr, ScopeTraversalExpr):
        return expr.root + _steps(expr.steps)
    if isinstance(expr, RelativeTraversalExpr):
        return operand(expr.source, PREC_ATOM) + _steps(expr.steps)
    if isinstance(expr, FunctionCallExpr):
        args = ", ".join(print_expr(a) for a in expr.args)
        return f"{expr.name}({args}{'...' if expr.expand_final else ''})"
    if isinstance(expr, UnaryOpExpr):
        return expr.op + operand(expr.operand, PREC_UNARY)
    if isinstance(expr, BinaryOpExpr):
        prec = BINARY_PREC.get(expr.op)
        if prec is None:
            raise NotPrintable(f"operator {expr.op}")
        # Left-associative: an operand of the same strength on the right needs parentheses.
        return f"{operand(expr.left, prec)} {expr.op} {operand(expr.right, prec + 1)}"
    if isinstance(expr, ConditionalExpr):
        # Right-associative: a conditional as the condition needs parentheses, as an arm it does not.
        return f"{operand(expr.condition, PREC_COND + 1)} ? {operand(expr.true_result, PREC_COND + 1)} : {print_expr(expr.false_result)}"
    if isinstance(expr, TupleExpr):
        return "[" + ", ".join(print_expr(i) for i in expr.items) + "]"
    if isinstance(expr, ObjectExpr):
        if not expr.items:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {print_expr(v)}" for k, v in expr.items) + " }"
    if isinstance(expr, ForExpr):
        names = f"{expr.key_var}, {expr.value_var}" if expr.key_var else expr.value_var
        head = f"for {names} in {print_expr(expr.collection)} : "
        tail = f" if {print_expr(expr.condition)}" if expr.condition is not None else ""
        if expr.key_result is not None:
            grouping = "..." if expr.grouping else ""
            return "{" + head + f"{print_expr(expr.key_result)} => {print_expr(expr.value_result)}{grouping}{tail}" + "}"
        return "[" + head + print_expr(expr.value_result) + tail + "]"
    raise NotPrintable(getattr(expr, "reason", type(expr).__name__))


def operand(expr: Expr, need: int) -> str:
    """``expr`` printed as an operand that must bind at least as tightly as ``need``."""
    text = print_expr(expr)
    return f"({text})" if precedence(expr) < need else text


def _template_part(part) -> str:
    if isinstance(part, str):
        return hcl_string(part)[1:-1]
    return "${" + print_expr(part) + "}"


def _steps(steps) -> str:
    out = []
    splatted = False
    for step in steps:
        if isinstance(step, AttrStep):
            out.append(f".{step.name}")
        elif isinstance(step, IndexStep):
            if splatted:
                raise NotPrintable("an index after a splat")
            out.append(f"[{print_expr(step.key)}]")
        elif isinstance(step, SplatStep):
            splatted = True
            out.append("[*]")
        else:
            raise NotPrintable(type(step).__name__)
    return "".join(out)


def _key(key: Expr) -> str:
    """An object key: a bare name where HCL reads one as that string, else the expression."""
    if isinstance(key, LiteralExpr) and isinstance(key.value, str):
        name = key.value
        if name and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c in "_-" for c in name) and name not in ("null", "true", "false"):
            return name
        return hcl_string(name)
    if isinstance(key, TemplateExpr):
        return print_expr(key)
    return f"({print_expr(key)})" if not isinstance(key, ParenExpr) else print_expr(key)


# ---- building trees -------------------------------------------------------------------------


def literal(value: Value) -> Expr:
    """A value as an expression tree (a literal, or a tuple or object of literals)."""
    if isinstance(value, list):
        return TupleExpr(NOWHERE, tuple(literal(v) for v in value))
    if isinstance(value, dict):
        return ObjectExpr(NOWHERE, tuple((LiteralExpr(NOWHERE, k), literal(v)) for k, v in value.items()))
    return LiteralExpr(NOWHERE, value)


def call(name: str, *args: Expr) -> Expr:
    return FunctionCallExpr(NOWHERE, name, NOWHERE, tuple(args), False)


def binary(op: str, left: Expr, right: Expr) -> Expr:
    return BinaryOpExpr(NOWHERE, op, left, right)


def unary(op: str, inner: Expr) -> Expr:
    return UnaryOpExpr(NOWHERE, op, inner)


def conditional(condition: Expr, true_result: Expr, false_result: Expr) -> Expr:
    return ConditionalExpr(NOWHERE, condition, true_result, false_result)


def paren(expr: Expr) -> Expr:
    """``(expr)`` unless it is already an atom."""
    return expr if precedence(expr) == PREC_ATOM else ParenExpr(NOWHERE, expr)


def traverse(source: Expr, steps) -> Expr:
    """``source`` followed by attribute/index steps."""
    if not steps:
        return source
    if isinstance(source, ScopeTraversalExpr):
        return ScopeTraversalExpr(NOWHERE, source.root, source.root_span, tuple(source.steps) + tuple(steps))
    if isinstance(source, RelativeTraversalExpr):
        return RelativeTraversalExpr(NOWHERE, source.source, tuple(source.steps) + tuple(steps))
    return RelativeTraversalExpr(NOWHERE, paren(source), tuple(steps))


def for_list(name: str, collection: Expr, value: Expr) -> Expr:
    return ForExpr(NOWHERE, None, name, collection, None, value, None, False)


def for_object(key: str, name: str, collection: Expr, key_result: Expr, value: Expr) -> Expr:
    return ForExpr(NOWHERE, key, name, collection, key_result, value, None, False)
