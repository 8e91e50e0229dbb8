"""PhiCondition: the symbolic condition under which a branch is taken (the seed's GSA predicates).

``Existing(e)`` holds when the Terraform expression ``e`` is true; ``Eq(s, v)`` when the
selector ``s`` equals ``v``; ``Not``, ``And`` and ``Or`` combine them. The tracer only
builds ``And`` and ``Not``; ``Or`` appears when branches with equal values are coalesced.
``materialize`` is the one place where a condition becomes Terraform syntax.
"""

from __future__ import annotations

from typing import Any, Callable, Union

from ..addrs import ROOT_MODULE, ModuleInstance
from ..records import record, field, replace
from ..syntax.expr import BinaryOpExpr, Expr, LiteralExpr, ParenExpr, UnaryOpExpr
from ..values.value import Value, to_hcl, value_key
from .printer import (BINARY_PREC, PREC_AND, PREC_ATOM, PREC_CMP, PREC_COND, PREC_EQ, PREC_OR,
                      PREC_UNARY, NotPrintable, operand, precedence, print_expr)


@record(frozen=True, slots=True)
class TrueCond:
    def __str__(self) -> str:
        return "true"


@record(frozen=True, slots=True)
class Existing:
    """``text`` is true, evaluated in the module instance ``scope``.

    Atoms are equal only when both the scope and the text are: a child's ``var.on`` is not
    the root's. ``root_expr`` is the same expression as a tree in the root module's terms
    (``lift``: callers' arguments, converted at each boundary, substituted for the child's
    variables), which is what a gate prints (``printer``); None when it cannot be written there.
    Without ``root_expr`` (an atom of the root module whose tree could not be lifted), the gate is
    ``text``: ``expr``, the atom's own tree, says how it binds and how it negates (nothing is
    parsed back from text).
    """

    text: str  # the original expression text
    expr: Any = field(default=None, compare=False, hash=False, repr=False)
    precedence: int = field(default=0, compare=False, hash=False, repr=False)
    scope: ModuleInstance = ROOT_MODULE
    root_expr: Any = field(default=None, compare=False, hash=False, repr=False)

    @property
    def gate_text(self) -> str | None:
        """The atom as printed in a gate; None when it cannot be written in the root module."""
        if self.root_expr is not None:
            try:
                return print_expr(_outermost(self.root_expr))
            except NotPrintable:
                return None
        return self.text if self.scope.is_root else None

    def __str__(self) -> str:
        return f"Existing({_scoped(self.scope, self.text)})"


@record(frozen=True, slots=True)
class Eq:
    """The selector equals the value. Iteration atoms (``each.key``, ``count.index``) set ``iteration``.

    ``expr`` is the selector's tree where it has one (binding as it binds; a selector without
    one is a reference: ``var.x``, ``each.key``); ``root_selector`` is the selector as a tree in the
    root module's terms, which is what a gate prints, None when it is the selector itself.
    """

    selector: str
    value_key: str  # canonical identity of the value, for equality
    value: Any = field(compare=False, hash=False)
    expr: Any = field(default=None, compare=False, hash=False, repr=False)
    scope: ModuleInstance = ROOT_MODULE
    iteration: bool = False
    root_selector: Expr | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return f"Eq({_scoped(self.scope, self.selector)}, {to_hcl(self.value)})"


def _scoped(scope: ModuleInstance, text: str) -> str:
    return text if scope.is_root else f"{scope}: {text}"


@record(frozen=True, slots=True)
class Not:
    inner: "Cond"

    def __str__(self) -> str:
        return f"Not({self.inner})"


@record(frozen=True, slots=True)
class And:
    items: tuple["Cond", ...]

    def __str__(self) -> str:
        return _nest("And", self.items)


@record(frozen=True, slots=True)
class Or:
    items: tuple["Cond", ...]

    def __str__(self) -> str:
        return _nest("Or", self.items)


Cond = Union[TrueCond, Existing, Eq, Not, And, Or]
TRUE = TrueCond()


def _nest(name: str, items: tuple) -> str:
    """Binary nesting as in the seed's notation: And(a, And(b, c))."""
    text = str(items[-1])
    for item in reversed(items[:-1]):
        text = f"{name}({item}, {text})"
    return text


def eq(
    selector: str, value: Value, expr: Any = None, scope: ModuleInstance = ROOT_MODULE, iteration: bool = False, root_selector: Expr | None = None
) -> Eq:
    return Eq(selector, value_key(value), value, expr, scope, iteration, root_selector)


def negate(cond: Cond) -> Cond:
    """The complement: ``Eq(s, true)`` and ``Eq(s, false)`` are each other's, a bool selector having no third value."""
    if isinstance(cond, Not):
        return cond.inner
    if isinstance(cond, Eq) and isinstance(cond.value, bool):
        return eq(cond.selector, not cond.value, cond.expr, cond.scope, cond.iteration, cond.root_selector)
    return Not(cond)


def conjoin(a: Cond, b: Cond) -> Cond | None:
    """``And(a, b)`` flattened; None when the two contradict (the pair can never hold)."""
    items: list[Cond] = []
    for c in (a, b):
        if isinstance(c, TrueCond):
            continue
        items.extend(c.items if isinstance(c, And) else (c,))
    unique: list[Cond] = []
    for item in items:
        if item not in unique:
            unique.append(item)
    if _contradicts(unique):
        return None
    if not unique:
        return TRUE
    return unique[0] if len(unique) == 1 else And(tuple(unique))


def _contradicts(literals: list[Cond]) -> bool:
    seen = set(literals)
    eq_values: dict[tuple, str] = {}
    for lit in literals:
        if isinstance(lit, Not) and lit.inner in seen:
            return True
        if isinstance(lit, Eq):
            previous = eq_values.setdefault((lit.scope, lit.selector), lit.value_key)
            if previous != lit.value_key:
                return True
    for lit in literals:
        if isinstance(lit, Not) and isinstance(lit.inner, Eq):
            if eq_values.get((lit.inner.scope, lit.inner.selector)) == lit.inner.value_key:
                return True
    return False


def disjoin(conds: list[Cond]) -> Cond:
    """``Or`` of the conditions of coalesced branches, simplified."""
    terms: list[tuple[Cond, ...]] = []
    for c in conds:
        if isinstance(c, TrueCond):
            return TRUE
        terms.append(c.items if isinstance(c, And) else (c,))
    changed = True
    while changed:
        changed = False
        terms = _dedupe(terms)
        # Absorption: A or (A and B) = A.
        for i, small in enumerate(terms):
            for j, big in enumerate(terms):
                if i != j and set(small) < set(big):
                    terms.pop(j)
                    changed = True
                    break
            if changed:
                break
        if changed:
            continue
        # Complement: (X and A) or (X and not A) = X; A or (not A and B) = A or B.
        for i, t1 in enumerate(terms):
            for j, t2 in enumerate(terms):
                if i == j:
                    continue
                for lit in t2:
                    complement = negate(lit)
                    if complement in t1 and set(t1) - {complement} <= set(t2) - {lit}:
                        new_t2 = tuple(x for x in t2 if x != lit)
                        if not new_t2:
                            return TRUE
                        terms[j] = new_t2
                        changed = True
                        break
                if changed:
                    break
            if changed:
                break
    conjuncts = [t[0] if len(t) == 1 else And(t) for t in terms]
    return conjuncts[0] if len(conjuncts) == 1 else Or(tuple(conjuncts))


def _dedupe(terms: list[tuple[Cond, ...]]) -> list[tuple[Cond, ...]]:
    out: list[tuple[Cond, ...]] = []
    for t in terms:
        if set(t) not in [set(o) for o in out]:
            out.append(t)
    return out


def atoms(cond: Cond):
    """The Existing and Eq atoms of a condition, left to right."""
    if isinstance(cond, (Existing, Eq)):
        yield cond
    elif isinstance(cond, Not):
        yield from atoms(cond.inner)
    elif isinstance(cond, (And, Or)):
        for item in cond.items:
            yield from atoms(item)


# --- materialization: PhiCondition -> Terraform expression ---------------------------------

# Binding strength of HCL operators (higher binds tighter). PREC_COND is the conditional
# operator ``c ? a : b``, which binds loosest of all and needs parentheses everywhere.
# How tightly each kind of expression binds is the printer's scale (trace.printer).
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def fix_iteration(cond: Cond, scope: ModuleInstance, selector: str, key: Value) -> Cond | None:
    """The condition for the one instance ``key`` of an iteration: its atoms decided (None: never)."""
    wanted = value_key(key)

    def decide(c: Cond) -> Cond | None:
        if isinstance(c, Eq) and c.iteration and c.scope == scope and c.selector == selector:
            return TRUE if c.value_key == wanted else None
        if isinstance(c, Not):
            inner = decide(c.inner)
            if inner is None:
                return TRUE
            return None if isinstance(inner, TrueCond) else negate(inner)
        if isinstance(c, And):
            out: Cond | None = TRUE
            for item in c.items:
                decided = decide(item)
                out = conjoin(out, decided) if out is not None and decided is not None else None
            return out
        if isinstance(c, Or):
            kept = [d for d in (decide(item) for item in c.items) if d is not None]
            return disjoin(kept) if kept else None
        return c

    return decide(cond)


class NotExpressible(ValueError):
    """A condition with an atom that cannot be written in the root module's scope."""


def is_iteration(cond: Cond) -> bool:
    """An iteration atom (``Eq(each.key, k)``, ``Eq(count.index, i)``) or its negation."""
    inner = cond.inner if isinstance(cond, Not) else cond
    return isinstance(inner, Eq) and inner.iteration


def without_iteration(cond: Cond) -> Cond:
    """The condition with its iteration atoms left out: what decides the value across instances."""
    if is_iteration(cond):
        return TRUE
    if isinstance(cond, And):
        out: Cond | None = TRUE
        for item in cond.items:
            out = conjoin(out, without_iteration(item)) if out is not None else None
        return out if out is not None else cond
    if isinstance(cond, Or):
        return disjoin([without_iteration(item) for item in cond.items])
    return cond


def root_gate(cond: Cond) -> str | None:
    """The gate: the condition in the root module's scope, iteration left out, negations normalized.

    None when only the iteration decides (or always); raises NotExpressible when an atom
    cannot be written in the root module.
    """
    return materialize(without_iteration(cond), normalize=True)


def materialize(cond: Cond, normalize: bool = False) -> str | None:
    """The condition as a Terraform expression (None for ``true``).

    ``Existing`` reuses the original expression text, ``Eq`` compares the selector with a
    literal, ``Not``/``And``/``Or`` become ``!``/``&&``/``||``; parentheses appear only where
    precedence needs them. With ``normalize``, negations are pushed inwards (negation normal
    form): ``!(a == b)`` prints ``a != b``, ``!(a < b)`` prints ``a >= b``, ``!!a`` prints ``a``
    and ``!(a && b)`` prints ``!a || !b`` (De Morgan), so a ``!`` is left only on atoms.
    """
    if isinstance(cond, TrueCond):
        return None
    text, prec = _materialize(cond, normalize)
    return f"({text})" if prec <= PREC_COND else text  # ready for ``<gate> ? 1 : 0``


def wrap_operand(text: str, prec: int, need: int) -> str:
    """Expression text that binds as ``prec``, parenthesized unless that is at least as tightly as ``need``."""
    return _wrap(text, prec, need + 1)


def _wrap(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _materialize(cond: Cond, normalize: bool) -> tuple[str, int]:
    if isinstance(cond, TrueCond):
        return "true", PREC_ATOM
    if isinstance(cond, Existing):
        return _gate_text(cond), _existing_precedence(cond)
    if isinstance(cond, Eq):
        if isinstance(cond.value, bool):
            return _bool_test(_eq_selector(cond), cond.value)
        return f"{_selector_text(_eq_selector(cond))} == {to_hcl(cond.value)}", PREC_EQ
    if isinstance(cond, Not):
        if normalize:
            return _negated(cond.inner)
        text, prec = _materialize(cond.inner, normalize)
        return "!" + _wrap(text, prec, PREC_UNARY), PREC_UNARY
    if isinstance(cond, And):
        if not cond.items:
            return "true", PREC_ATOM
        return _join(" && ", [_materialize(i, normalize) for i in cond.items], PREC_AND)
    if isinstance(cond, Or):
        if not cond.items:
            return "false", PREC_ATOM
        return _join(" || ", [_materialize(i, normalize) for i in cond.items], PREC_OR)
    raise TypeError(f"not a PhiCondition: {cond!r}")


def _join(op: str, parts: list[tuple[str, int]], prec: int) -> tuple[str, int]:
    if len(parts) == 1:
        return parts[0]
    # && and || are associative, so an operand of the same operator needs no parentheses.
    return op.join(_wrap(text, p, prec) for text, p in parts), prec


def _negated(cond: Cond) -> tuple[str, int]:
    """The normalized negation of ``cond``."""
    if isinstance(cond, TrueCond):
        return "false", PREC_ATOM
    if isinstance(cond, Not):
        return _materialize(cond.inner, True)
    if isinstance(cond, Eq):
        if isinstance(cond.value, bool):
            return _bool_test(_eq_selector(cond), not cond.value)
        return f"{_selector_text(_eq_selector(cond))} != {to_hcl(cond.value)}", PREC_EQ
    if isinstance(cond, And):
        if not cond.items:
            return "false", PREC_ATOM
        return _join(" || ", [_negated(i) for i in cond.items], PREC_OR)
    if isinstance(cond, Or):
        if not cond.items:
            return "true", PREC_ATOM
        return _join(" && ", [_negated(i) for i in cond.items], PREC_AND)
    if isinstance(cond, Existing):
        if cond.root_expr is not None:
            try:
                return _negate_tree(cond.root_expr)
            except NotPrintable:
                raise NotExpressible(f"{cond} cannot be written in the root module") from None
        text = _gate_text(cond)
        expr = cond.expr
        if isinstance(expr, Expr):
            raw = text.encode("utf-8")
            if len(raw) == expr.span.end - expr.span.start:  # the text is the tree's own: negate it piece by piece
                base = expr.span.start
                return _negate_expr(expr, lambda e: raw[e.span.start - base : e.span.end - base].decode("utf-8"))
            try:  # text made one line from several: the pieces printed from the tree
                return _negate_expr(expr, print_expr)
            except NotPrintable:
                pass
        return "!" + _wrap(text, _existing_precedence(cond), PREC_UNARY), PREC_UNARY
    raise TypeError(f"not a PhiCondition: {cond!r}")


def _bool_test(selector: tuple[str, int], truth: bool) -> tuple[str, int]:
    """``s == true`` as ``s`` and ``s == false`` as ``!s``: a bool value compares only with a bool selector."""
    if truth:
        return selector
    text, prec = selector
    return "!" + _wrap(text, prec, PREC_UNARY), PREC_UNARY


def _gate_text(cond: Existing) -> str:
    text = cond.gate_text
    if text is None:
        raise NotExpressible(f"{cond} cannot be written in the root module")
    return text


def _eq_selector(cond: Eq) -> tuple[str, int]:
    """The selector as a gate prints it, and how tightly that binds."""
    if cond.root_selector is not None:
        tree = _outermost(cond.root_selector)
        try:
            return print_expr(tree), precedence(tree)
        except NotPrintable:
            raise NotExpressible(f"{cond} cannot be written in the root module") from None
    if cond.scope.is_root or cond.iteration:
        return cond.selector, precedence(cond.expr) if isinstance(cond.expr, Expr) else PREC_ATOM
    raise NotExpressible(f"{cond} cannot be written in the root module")


def _outermost(expr: Any) -> Any:
    """An atom's tree without its outer parentheses: where it is an operand, ``_wrap`` adds them as needed."""
    while isinstance(expr, ParenExpr):
        expr = expr.inner
    return expr


def _negate_tree(expr: Any) -> tuple[str, int]:
    """The normalized negation of an expression tree, printed."""
    if isinstance(expr, ParenExpr):
        return _negate_tree(expr.inner)
    if isinstance(expr, LiteralExpr) and isinstance(expr.value, bool):
        return ("false" if expr.value else "true"), PREC_ATOM
    if isinstance(expr, UnaryOpExpr) and expr.op == "!":
        inner = expr.operand
        while isinstance(inner, ParenExpr):
            inner = inner.inner
        return print_expr(inner), precedence(inner)
    if isinstance(expr, BinaryOpExpr) and expr.op in _NEGATED:
        negated = replace(expr, op=_NEGATED[expr.op])
        return print_expr(negated), precedence(negated)
    if isinstance(expr, BinaryOpExpr) and expr.op in ("&&", "||"):
        parts = [_negate_tree(expr.left), _negate_tree(expr.right)]
        return _join(" || ", parts, PREC_OR) if expr.op == "&&" else _join(" && ", parts, PREC_AND)
    return "!" + operand(expr, PREC_UNARY), PREC_UNARY


def _existing_precedence(cond: Existing) -> int:
    """How tightly an Existing's gate binds: read from its root tree, else what the tracer recorded, else from its own tree."""
    if cond.root_expr is not None:
        return precedence(_outermost(cond.root_expr))
    _gate_text(cond)  # (raises NotExpressible outside the root module)
    if cond.precedence:
        return cond.precedence
    if isinstance(cond.expr, Expr):
        return precedence(cond.expr)
    return PREC_COND  # not known: always parenthesize


def _selector_text(selector: tuple[str, int]) -> str:
    """A selector as the left operand of ``==``/``!=``: parenthesized unless it binds tighter."""
    text, prec = selector
    return _wrap(text, prec, PREC_CMP)


def _negate_expr(expr: Any, text_of: Callable[[Any], str]) -> tuple[str, int]:
    """The normalized negation of an atom's own tree; ``text_of`` gives a piece of it as the gate writes it."""
    if isinstance(expr, ParenExpr):
        return _negate_expr(expr.inner, text_of)
    if isinstance(expr, LiteralExpr) and isinstance(expr.value, bool):
        return ("false" if expr.value else "true"), PREC_ATOM
    if isinstance(expr, UnaryOpExpr) and expr.op == "!":
        inner = expr.operand
        while isinstance(inner, ParenExpr):
            inner = inner.inner
        return text_of(inner), precedence(inner)
    if isinstance(expr, BinaryOpExpr) and expr.op in _NEGATED:
        op = _NEGATED[expr.op]
        return f"{text_of(expr.left)} {op} {text_of(expr.right)}", BINARY_PREC[op]
    if isinstance(expr, BinaryOpExpr) and expr.op in ("&&", "||"):
        parts = [_negate_expr(expr.left, text_of), _negate_expr(expr.right, text_of)]
        if expr.op == "&&":
            return _join(" || ", parts, PREC_OR)
        return _join(" && ", parts, PREC_AND)
    return "!" + _wrap(text_of(expr), precedence(expr), PREC_UNARY), PREC_UNARY
