"""Operations on branch sets and on the values in them that the tracer's rules share: trace steps
prepended, keys selected, arms unified, conditions gated, type constraints applied."""

from __future__ import annotations

from ..records import replace
from ..syntax.expr import Expr, ObjectExpr, ParenExpr, ScopeTraversalExpr, Span, TemplateExpr, TupleExpr
from ..evaluate.operators import unify_types
from ..values.value import TfEvalError, Value, is_number, to_number, to_string, value_key
from . import conditions as C
from . import steps as S
from .partial import UnknownResult, convert_partial, first_unknown
from .result import Branch, Result, Unbounded
from ..syntax.expr import walk


def wholly_known(result: Result) -> Result:
    """The result, or the Unbounded of its first unknown member (``partial``) when it has one."""
    if isinstance(result, Unbounded):
        return result
    for branch in result:
        unknown = first_unknown(branch.value)
        if unknown is not None:
            return unknown.unbounded
    return result


def prepend(result: Result, step: S.Step) -> Result:
    if isinstance(result, Unbounded):
        return result
    return tuple(Branch(b.value, b.cond, (step,) + b.path, b.source) for b in result)


def select(result: Result, key: str) -> Result:
    """Records on each branch's path which element of a constructed value an access read."""
    if isinstance(result, Unbounded):
        return result
    return tuple(Branch(b.value, b.cond, S.select(b.path, key), b.source) for b in result)


def aside(result: Result) -> Result:
    """An index key's branches: their steps stay in the seed path but not in the plain words."""
    if isinstance(result, Unbounded):
        return result
    return tuple(Branch(b.value, b.cond, S.aside(b.path), b.source) for b in result)


def with_keys(step: S.Op, keys: tuple) -> S.Op:
    return replace(step, keys=keys) if isinstance(step, S.Build) else step


def tuple_keys(values: list[Value]) -> tuple:
    return tuple(str(i) for i in range(len(values)))


def object_keys(values: list[Value]) -> tuple:
    """Operands alternate key, value: each value operand is named by the key before it."""
    keys: list = []
    for i in range(len(values)):
        if i % 2 == 0:
            keys.append(None)
        else:
            try:
                keys.append(to_string(values[i - 1]))
            except TfEvalError:
                keys.append(None)
    return tuple(keys)


def mentions(expr: Expr, names) -> bool:
    """True when ``expr`` reads one of ``names`` (for-expression bindings)."""
    return any(isinstance(e, ScopeTraversalExpr) and e.root in names for e in walk(expr))


def unify_arms(branches: tuple[Branch, ...], others: list[Value], span: Span) -> Result:
    """Converts the branches of a conditional to the arms' common type, as HCL does."""
    values = [b.value for b in branches]
    try:
        unified = unify_types(values, others)  # an unknown member of the other arm is of any type
    except TfEvalError as exc:
        return Unbounded(f"the conditional's arms have no common type: {exc}", "error", span)
    return tuple(Branch(v, b.cond, b.path, b.source) for v, b in zip(unified, branches))


def instance_key(iterated: str, instances: Value, key: Value) -> tuple[bool, Value]:
    """Whether ``key`` names an instance of a call whose ``count``/``for_each`` is ``instances``, and the key as the iterator sees it."""
    if iterated == "count":
        index = to_number(key)
        if index != int(index):
            raise TfEvalError("an index must be a whole number")
        return 0 <= int(index) < int(to_number(instances)), int(index)
    name = to_string(key)
    if isinstance(instances, dict):
        return name in instances, name
    if isinstance(instances, list):
        return name in [to_string(v) for v in instances], name
    raise TfEvalError("for_each needs a map or a set of strings")


def equal_arms(true_arm: Result, false_arm: Result) -> Result | None:
    """The common value when both arms are resolved to the same value, else None."""
    arms = (true_arm, false_arm)
    if any(isinstance(a, Unbounded) or len(a) != 1 or not isinstance(a[0].cond, C.TrueCond) for a in arms):
        return None
    (first,), (second,) = arms  # type: ignore[misc]
    if value_key(first.value) != value_key(second.value):
        return None
    return (Branch(first.value, C.TRUE, first.path, first.source),)


def typed_when_failing(expr: Expr) -> bool:
    """Whether HCL still gives ``expr`` a type when evaluating it fails: an object or tuple
    constructor (its failing member is of any type) or a template with more than one part (a
    string); a failing call, index or ``"${x}"`` is of any type, and no unification follows."""
    while isinstance(expr, ParenExpr):
        expr = expr.inner
    if isinstance(expr, TemplateExpr):
        return not (len(expr.parts) == 1 and isinstance(expr.parts[0], Expr) and not expr.always_string)
    return isinstance(expr, (ObjectExpr, TupleExpr))


def holds_number_or_bool(value: Value) -> bool:
    if isinstance(value, bool) or is_number(value):
        return True
    if isinstance(value, list):
        return any(map(holds_number_or_bool, value))
    if isinstance(value, dict):
        return any(map(holds_number_or_bool, value.values()))
    return False


def gated(branches: tuple[Branch, ...], cond: C.Cond) -> tuple[Branch, ...]:
    out = []
    for b in branches:
        joined = C.conjoin(cond, b.cond)
        if joined is not None:
            out.append(Branch(b.value, joined, b.path, b.source))
    return tuple(out)


def convert_all(result: Result, var_type, label: str, span: Span) -> Result:
    """Applies a variable's type constraint to every branch (Terraform converts at the boundary)."""
    if isinstance(result, Unbounded) or var_type.kind == "any":
        return result
    out = []
    error = None
    for b in result:
        try:
            out.append(Branch(convert_partial(b.value, var_type), b.cond, b.path, b.source))
        except UnknownResult as unknown:
            return unknown.unknown.unbounded
        except TfEvalError as exc:
            error = error or str(exc)
    if not out and error:
        return Unbounded(f"{label} rejects its value: {error}", "error", span)
    return tuple(out)
