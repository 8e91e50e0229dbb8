"""PhiCondition: the symbolic condition under which a branch is taken (the seed's GSA predicates).

``Existing(e)`` holds when the Terraform expression ``e`` is true; ``Eq(s, v)`` when the
selector ``s`` equals ``v``; ``Not``, ``And`` and ``Or`` combine them. The tracer only
builds ``And`` and ``Not``; ``Or`` appears when branches with equal values are coalesced.
``materialize`` is the one place where a condition becomes Terraform syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from .values import Value, to_hcl


@dataclass(frozen=True, slots=True)
class TrueCond:
    def __str__(self) -> str:
        return "true"


@dataclass(frozen=True, slots=True)
class Existing:
    text: str  # the original expression text
    expr: Any = field(default=None, compare=False, hash=False, repr=False)
    precedence: int = field(default=0, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return f"Existing({self.text})"


@dataclass(frozen=True, slots=True)
class Eq:
    selector: str
    value_key: str  # canonical identity of the value, for equality
    value: Any = field(compare=False, hash=False)
    expr: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return f"Eq({self.selector}, {to_hcl(self.value)})"


@dataclass(frozen=True, slots=True)
class Not:
    inner: "Cond"

    def __str__(self) -> str:
        return f"Not({self.inner})"


@dataclass(frozen=True, slots=True)
class And:
    items: tuple["Cond", ...]

    def __str__(self) -> str:
        return _nest("And", self.items)


@dataclass(frozen=True, slots=True)
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


def eq(selector: str, value: Value, expr: Any = None) -> Eq:
    from .values import value_key

    return Eq(selector, value_key(value), value, expr)


def negate(cond: Cond) -> Cond:
    if isinstance(cond, Not):
        return cond.inner
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
    eq_values: dict[str, str] = {}
    for lit in literals:
        if isinstance(lit, Not) and lit.inner in seen:
            return True
        if isinstance(lit, Eq):
            previous = eq_values.setdefault(lit.selector, lit.value_key)
            if previous != lit.value_key:
                return True
        if isinstance(lit, Not) and isinstance(lit.inner, Eq):
            if eq_values.get(lit.inner.selector) == lit.inner.value_key:
                return True
    for lit in literals:
        if isinstance(lit, Not) and isinstance(lit.inner, Eq) and eq_values.get(lit.inner.selector) == lit.inner.value_key:
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

# Binding strength of HCL operators (higher binds tighter).
PREC_OR, PREC_AND, PREC_EQ, PREC_CMP, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_ATOM = 1, 2, 3, 4, 5, 6, 7, 8
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def materialize(cond: Cond, normalize: bool = False) -> str | None:
    """The condition as a Terraform expression (None for ``true``).

    With ``normalize``, negations are pushed into comparisons (``!(a == b)`` prints ``a != b``).
    """
    if isinstance(cond, TrueCond):
        return None
    text, _ = _materialize(cond, normalize)
    return text


def _wrap(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _materialize(cond: Cond, normalize: bool) -> tuple[str, int]:
    if isinstance(cond, Existing):
        return cond.text, cond.precedence or PREC_ATOM
    if isinstance(cond, Eq):
        return f"{cond.selector} == {to_hcl(cond.value)}", PREC_EQ
    if isinstance(cond, Not):
        inner = cond.inner
        if normalize:
            flipped = _negate_comparison(inner)
            if flipped is not None:
                return flipped
        text, prec = _materialize(inner, normalize)
        if normalize and text.startswith("!") and prec >= PREC_UNARY:
            return _wrap(text[1:], PREC_ATOM, PREC_ATOM), PREC_ATOM
        return "!" + _wrap(text, prec, PREC_ATOM), PREC_UNARY
    if isinstance(cond, And):
        return " && ".join(_wrap(*_materialize(i, normalize), PREC_AND + 1) for i in cond.items), PREC_AND
    if isinstance(cond, Or):
        return " || ".join(_wrap(*_materialize(i, normalize), PREC_OR + 1) for i in cond.items), PREC_OR
    return "true", PREC_ATOM


def _negate_comparison(cond: Cond) -> tuple[str, int] | None:
    from ..syntax.expr import BinaryOpExpr

    if isinstance(cond, Eq):
        return f"{cond.selector} != {to_hcl(cond.value)}", PREC_EQ
    if isinstance(cond, Existing) and isinstance(cond.expr, BinaryOpExpr) and cond.expr.op in _NEGATED:
        source = cond.text
        left_len = cond.expr.left.span.end - cond.expr.span.start
        right_start = cond.expr.right.span.start - cond.expr.span.start
        encoded = source.encode("utf-8")
        left = encoded[:left_len].decode("utf-8", "replace").rstrip()
        right = encoded[right_start:].decode("utf-8", "replace").lstrip()
        op = _NEGATED[cond.expr.op]
        prec = PREC_EQ if op in ("==", "!=") else PREC_CMP
        return f"{left} {op} {right}", prec
    return None
