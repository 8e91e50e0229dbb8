"""A concrete evaluator of typed ``Expr`` trees, and of PhiConditions, under an assignment.

This is the reference semantics the tracer is checked against (the soundness property:
for every assignment of the variables, the concrete value is among the traced branches and
exactly one branch's condition holds). It shares operator and function semantics with the
tracer (``operators``, ``functions.call_function``), so the two cannot drift.

``evaluate(expr, scope)`` returns a ``Value`` or raises ``TfEvalError`` (Terraform would
reject the expression under this assignment). ``EvalUnsupported`` (a ``TfEvalError``) marks
what a concrete evaluation cannot know at all: resource attributes, data sources, functions
that read the machine or change on every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..syntax.expr import (
    AttrStep,
    BinaryOpExpr,
    ConditionalExpr,
    Expr,
    ForExpr,
    FunctionCallExpr,
    IndexStep,
    InvalidExpr,
    LiteralExpr,
    ObjectExpr,
    ParenExpr,
    RelativeTraversalExpr,
    ScopeTraversalExpr,
    SplatStep,
    TemplateExpr,
    TupleExpr,
    UnaryOpExpr,
)
from . import conditions as C
from .functions import FUNCTIONS, UnknownFunction, call_function
from .operators import apply_binary, apply_unary, get_attribute, get_index, unify_types
from .types import convert, parse_type
from .values import TfEvalError, Value, to_bool, to_string, values_equal

__all__ = ["EvalUnsupported", "Scope", "evaluate", "evaluate_condition", "unify_types"]


class EvalUnsupported(TfEvalError):
    """The value is not knowable by concrete evaluation (apply-time, provider data, machine state)."""


@dataclass
class Scope:
    """What names mean while evaluating: the module, the variables' values, iterator bindings."""

    module: Any = None  # stir.model.Module, for var/local declarations
    variables: Mapping[str, Value] = field(default_factory=dict)
    bindings: Mapping[str, Value] = field(default_factory=dict)  # each, count, for/dynamic iterators
    _locals: dict[str, Value] = field(default_factory=dict)
    _evaluating: tuple[str, ...] = ()

    def bind(self, names: Mapping[str, Value]) -> "Scope":
        return Scope(self.module, self.variables, {**self.bindings, **names}, self._locals, self._evaluating)


def evaluate(expr: Expr, scope: Scope | None = None) -> Value:
    """The concrete value of ``expr``; raises TfEvalError when Terraform would reject it."""
    scope = scope or Scope()
    method = _DISPATCH.get(type(expr))
    if method is None:
        raise EvalUnsupported(f"cannot evaluate {type(expr).__name__}")
    return method(expr, scope)


def _literal(expr: LiteralExpr, scope: Scope) -> Value:
    return expr.value


def _invalid(expr: InvalidExpr, scope: Scope) -> Value:
    raise EvalUnsupported(expr.reason)


def _paren(expr: ParenExpr, scope: Scope) -> Value:
    return evaluate(expr.inner, scope)


def _template(expr: TemplateExpr, scope: Scope) -> Value:
    if len(expr.parts) == 1 and isinstance(expr.parts[0], Expr):
        return evaluate(expr.parts[0], scope)  # "${x}" is x itself, unconverted
    out = []
    for part in expr.parts:
        if isinstance(part, str):
            out.append(part)
        else:
            value = evaluate(part, scope)
            if value is None:
                raise TfEvalError("cannot include a null value in a string template")
            out.append(to_string(value))
    return "".join(out)


def _binary(expr: BinaryOpExpr, scope: Scope) -> Value:
    return apply_binary(expr.op, evaluate(expr.left, scope), evaluate(expr.right, scope))


def _unary(expr: UnaryOpExpr, scope: Scope) -> Value:
    return apply_unary(expr.op, evaluate(expr.operand, scope))


def _tuple(expr: TupleExpr, scope: Scope) -> Value:
    return [evaluate(item, scope) for item in expr.items]


def _object(expr: ObjectExpr, scope: Scope) -> Value:
    out: dict[str, Value] = {}
    for key, value in expr.items:
        k = evaluate(key, scope)
        if k is None:
            raise TfEvalError("object key is null")
        out[to_string(k)] = evaluate(value, scope)
    return out


def _conditional(expr: ConditionalExpr, scope: Scope) -> Value:
    cond = evaluate(expr.condition, scope)
    if cond is None:
        raise TfEvalError("the condition value is null")
    taken = to_bool(cond)
    # HCL evaluates both arms (the other arm's errors are dropped) and unifies their types.
    chosen = evaluate(expr.true_result if taken else expr.false_result, scope)
    try:
        other = evaluate(expr.false_result if taken else expr.true_result, scope)
    except TfEvalError:
        return chosen
    return unify_types([chosen, other])[0]


def _call(expr: FunctionCallExpr, scope: Scope) -> Value:
    name = expr.name
    if name == "try":
        if not expr.args:
            raise TfEvalError("try() needs at least one argument")
        last: TfEvalError | None = None
        for arm in expr.args:
            try:
                return evaluate(arm, scope)
            except EvalUnsupported:
                raise
            except TfEvalError as exc:
                last = exc
        raise TfEvalError(f"no argument of try() can be evaluated: {last}")
    if name == "can":
        if len(expr.args) != 1:
            raise TfEvalError("can() takes exactly one argument")
        try:
            evaluate(expr.args[0], scope)
        except EvalUnsupported:
            raise
        except TfEvalError:
            return False
        return True
    spec = FUNCTIONS.get(name)
    if spec is None or spec.nondeterministic or not spec.elementwise:
        raise EvalUnsupported(f"{name}() cannot be evaluated concretely")
    args = [evaluate(arg, scope) for arg in expr.args]
    if expr.expand_final and args:
        last_value = args[-1]
        if not isinstance(last_value, list):
            raise TfEvalError(f"the final argument of {name}(...) must be a list to expand")
        args = args[:-1] + list(last_value)
    try:
        return call_function(name, args)
    except UnknownFunction as exc:  # pragma: no cover - guarded by the FUNCTIONS lookup
        raise EvalUnsupported(str(exc)) from None


def _for(expr: ForExpr, scope: Scope) -> Value:
    collection = evaluate(expr.collection, scope)
    if isinstance(collection, dict):
        entries = sorted(collection.items())
    elif isinstance(collection, list):
        entries = list(enumerate(collection))
    else:
        raise TfEvalError("a for expression needs a collection")
    items: list[tuple[Value, Value]] = []
    for key, element in entries:
        names: dict[str, Value] = {expr.value_var: element}
        if expr.key_var:
            names[expr.key_var] = key
        inner = scope.bind(names)
        if expr.condition is not None:
            keep = evaluate(expr.condition, inner)
            if keep is None:
                raise TfEvalError("the filter of a for expression is null")
            if not to_bool(keep):
                continue
        k = evaluate(expr.key_result, inner) if expr.key_result is not None else None
        items.append((k, evaluate(expr.value_result, inner)))
    if expr.key_result is None:
        return [v for _, v in items]
    result: dict[str, Value] = {}
    for k, v in items:
        if k is None:
            raise TfEvalError("a for expression key is null")
        key = to_string(k)
        if expr.grouping:
            result.setdefault(key, []).append(v)
        elif key in result:
            raise TfEvalError(f'duplicate key "{key}" in a for expression')
        else:
            result[key] = v
    return result


def _apply_steps(value: Value, steps, scope: Scope) -> Value:
    for i, step in enumerate(steps):
        if isinstance(step, SplatStep):
            rest = steps[i + 1 :]
            items = [] if value is None else value if isinstance(value, list) else [value]
            return [_apply_steps(item, rest, scope) for item in items]
        if isinstance(step, AttrStep):
            value = get_attribute(value, step.name)
        elif isinstance(step, IndexStep):
            value = get_index(value, evaluate(step.key, scope))
    return value


def _relative(expr: RelativeTraversalExpr, scope: Scope) -> Value:
    return _apply_steps(evaluate(expr.source, scope), expr.steps, scope)


def _scope(expr: ScopeTraversalExpr, scope: Scope) -> Value:
    root, steps = expr.root, expr.steps
    if root in scope.bindings:
        return _apply_steps(scope.bindings[root], steps, scope)
    name = steps[0].name if steps and isinstance(steps[0], AttrStep) else None
    if root == "var" and name:
        return _apply_steps(variable_value(name, scope), steps[1:], scope)
    if root == "local" and name:
        return _apply_steps(local_value(name, scope), steps[1:], scope)
    if root == "path" and name == "module":
        return _apply_steps(scope.module.dir or "." if scope.module is not None else ".", steps[1:], scope)
    raise EvalUnsupported(f"{root}{'.' + name if name else ''} is not known to the concrete evaluator")


def variable_value(name: str, scope: Scope) -> Value:
    """``var.<name>``: the assignment's value (converted to the declared type), else the default."""
    module = scope.module
    var = module.variables.get(name) if module is not None else None
    if module is not None and var is None:
        raise TfEvalError(f"var.{name} is not declared")
    var_type = parse_type(var.type_expr, lambda e: evaluate(e, Scope())) if var is not None else None
    if name in scope.variables:
        value = scope.variables[name]
    elif var is not None and var.default is not None:
        value = evaluate(var.default.expr, Scope(module))
    else:
        raise TfEvalError(f"var.{name} has no value")
    return convert(value, var_type) if var_type is not None else value


def local_value(name: str, scope: Scope) -> Value:
    if name in scope._locals:
        return scope._locals[name]
    module = scope.module
    local = module.locals.get(name) if module is not None else None
    if local is None:
        raise TfEvalError(f"local.{name} is not declared")
    if name in scope._evaluating:
        raise TfEvalError(f"cycle through local.{name}")
    inner = Scope(module, scope.variables, {}, scope._locals, scope._evaluating + (name,))
    value = evaluate(local.attribute.expr, inner)
    scope._locals[name] = value
    return value


_DISPATCH = {
    LiteralExpr: _literal,
    InvalidExpr: _invalid,
    ParenExpr: _paren,
    TemplateExpr: _template,
    BinaryOpExpr: _binary,
    UnaryOpExpr: _unary,
    TupleExpr: _tuple,
    ObjectExpr: _object,
    ConditionalExpr: _conditional,
    FunctionCallExpr: _call,
    ForExpr: _for,
    RelativeTraversalExpr: _relative,
    ScopeTraversalExpr: _scope,
}


# ---- conditions ---------------------------------------------------------------------------


def parse_expression(text: str) -> Expr:
    """Parses a standalone Terraform expression (used for conditions that carry only text)."""
    from ..syntax.hclfile import parse_file

    hcl = parse_file("<condition>.tf", f"x = {text}\n".encode("utf-8"))
    attr = hcl.body.attributes.get("x")
    if attr is None or hcl.errors:
        raise EvalUnsupported(f"cannot parse {text!r}")
    return attr.expr


def evaluate_condition(cond: C.Cond, scope: Scope) -> bool:
    """Whether a PhiCondition holds under the scope's assignment.

    ``Existing(e)`` evaluates its original expression (or, when it carries only text, the
    text parsed again); ``Eq(s, v)`` compares the value of the selector ``s`` with ``v``.
    """
    if isinstance(cond, C.TrueCond):
        return True
    if isinstance(cond, C.Not):
        return not evaluate_condition(cond.inner, scope)
    if isinstance(cond, C.And):
        return all(evaluate_condition(c, scope) for c in cond.items)
    if isinstance(cond, C.Or):
        return any(evaluate_condition(c, scope) for c in cond.items)
    if isinstance(cond, C.Existing):
        expr = cond.expr if isinstance(cond.expr, Expr) else parse_expression(cond.text)
        value = evaluate(expr, scope)
        if value is None:
            raise TfEvalError(f"the condition {cond.text} is null")
        return to_bool(value)
    if isinstance(cond, C.Eq):
        selector = cond.selector
        if selector.startswith("var.") and selector[4:].isidentifier():
            value = variable_value(selector[4:], scope)
        else:
            value = evaluate(parse_expression(selector), scope)
        return values_equal(value, cond.value)
    raise TypeError(f"not a condition: {cond!r}")
