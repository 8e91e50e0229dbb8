"""Type constraint expressions (``type = ...`` of a variable) read into :class:`TypeSpec`."""

from __future__ import annotations

from ..syntax.expr import Expr, FunctionCallExpr, LiteralExpr, ObjectExpr, ScopeTraversalExpr, TupleExpr
from ..values.types import ANY, PRIMITIVES, TypeSpec


def parse_type(expr: Expr | None, evaluate_default=None) -> TypeSpec:
    """Reads a type constraint expression; anything unreadable is ``any`` (no conversion)."""
    if expr is None:
        return ANY
    if isinstance(expr, ScopeTraversalExpr) and not expr.steps:
        if expr.root in PRIMITIVES:
            return TypeSpec(expr.root)
        if expr.root in ("list", "set", "map"):
            return TypeSpec(expr.root, ANY)
        return ANY
    if isinstance(expr, FunctionCallExpr):
        name, args = expr.name, expr.args
        if name in ("list", "set", "map") and len(args) == 1:
            return TypeSpec(name, parse_type(args[0], evaluate_default))
        if name == "tuple" and len(args) == 1 and isinstance(args[0], TupleExpr):
            return TypeSpec("tuple", elements=tuple(parse_type(e, evaluate_default) for e in args[0].items))
        if name == "object" and len(args) == 1 and isinstance(args[0], ObjectExpr):
            attrs = []
            for key, value in args[0].items:
                if not isinstance(key, LiteralExpr) or not isinstance(key.value, str):
                    return ANY
                optional, default, inner = False, None, value
                if isinstance(value, FunctionCallExpr) and value.name == "optional" and value.args:
                    optional, inner = True, value.args[0]
                    if len(value.args) > 1 and evaluate_default is not None:
                        default = evaluate_default(value.args[1])
                attrs.append((key.value, parse_type(inner, evaluate_default), optional, default))
            return TypeSpec("object", attrs=tuple(attrs))
    return ANY
