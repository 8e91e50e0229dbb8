"""Condition materialization: the one place a PhiCondition becomes Terraform syntax."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tfphi.trace import conditions as C
from tfphi.trace.conditions import And, Existing, Not, Or, TRUE, eq, materialize
from tfphi.syntax.hclfile import parse_file

from .hcleval import eval_cond, evaluate

PROD = Existing('var.env == "prod"', None, C.PREC_EQ)
US = Existing('var.region == "us"', None, C.PREC_EQ)


def test_true_is_no_gate():
    assert materialize(TRUE) is None
    assert materialize(TRUE, normalize=True) is None


def test_existing_reuses_the_original_text():
    assert materialize(PROD) == 'var.env == "prod"'
    assert materialize(Existing("var.enabled")) == "var.enabled"


def test_eq_compares_with_a_literal():
    assert materialize(eq("var.size", "small")) == 'var.size == "small"'
    assert materialize(eq("var.replicas", 3)) == "var.replicas == 3"
    assert materialize(eq("var.flag", True)) == "var.flag"  # a bool value only equals a bool selector
    assert materialize(eq("var.flag", False)) == "!var.flag"
    assert materialize(eq("var.v", None)) == "var.v == null"
    assert materialize(eq("var.s", 'a"b${x}')) == r'var.s == "a\"b$${x}"'


def test_not_wraps_only_when_needed():
    assert materialize(Not(PROD)) == '!(var.env == "prod")'
    assert materialize(Not(Existing("var.enabled"))) == "!var.enabled"
    assert materialize(Not(Existing("contains(var.l, var.x)"))) == "!contains(var.l, var.x)"


def test_normalized_negations():
    assert materialize(Not(PROD), normalize=True) == 'var.env != "prod"'
    assert materialize(Not(eq("var.size", "small")), normalize=True) == 'var.size != "small"'
    assert materialize(Not(Existing("var.n < 3")), normalize=True) == "var.n >= 3"
    assert materialize(Not(Existing("var.n >= 3")), normalize=True) == "var.n < 3"
    assert materialize(Not(Existing("!var.enabled")), normalize=True) == "var.enabled"
    assert materialize(Not(Existing('(var.env == "prod")')), normalize=True) == 'var.env != "prod"'
    assert materialize(Not(Existing("true")), normalize=True) == "false"
    assert materialize(Not(Not(PROD)), normalize=True) == 'var.env == "prod"'


def test_de_morgan_when_normalizing():
    assert materialize(Not(And((PROD, US))), normalize=True) == 'var.env != "prod" || var.region != "us"'
    assert materialize(Not(Or((PROD, US))), normalize=True) == 'var.env != "prod" && var.region != "us"'
    assert materialize(Not(Existing("var.a && var.b")), normalize=True) == "!var.a || !var.b"


def test_and_or_parenthesize_by_precedence():
    assert materialize(And((Not(PROD), Not(US))), normalize=True) == 'var.env != "prod" && var.region != "us"'
    assert materialize(Or((PROD, And((Not(PROD), US)))), normalize=True) == 'var.env == "prod" || var.env != "prod" && var.region == "us"'
    assert materialize(And((Existing("var.a || var.b", None, C.PREC_OR), Existing("var.c")))) == "(var.a || var.b) && var.c"
    assert materialize(And((Existing("var.a && var.b", None, C.PREC_AND), Existing("var.c")))) == "var.a && var.b && var.c"
    assert materialize(And((Or((PROD, US)), Existing("var.c")))) == '(var.env == "prod" || var.region == "us") && var.c'


def test_precedence_is_read_from_text_when_not_recorded():
    # A conditional used as a condition binds loosest of all.
    assert materialize(Not(Existing("var.a ? var.b : var.c"))) == "!(var.a ? var.b : var.c)"
    assert materialize(And((Existing("var.a || var.b"), Existing("var.c")))) == "(var.a || var.b) && var.c"
    assert materialize(eq("var.a ? 1 : 2", 1)) == "(var.a ? 1 : 2) == 1"
    assert materialize(eq("var.a + 1", 3)) == "var.a + 1 == 3"


def test_multiline_existing_text_negates_correctly():
    # The tracer collapses whitespace of multi-line conditions; negation reads the collapsed text.
    assert materialize(Not(Existing('var.env == "prod" && var.region == "us"')), normalize=True) == (
        'var.env != "prod" || var.region != "us"')


def test_empty_and_or():
    assert materialize(And(())) == "true"
    assert materialize(Or(())) == "false"


# ---- property: materialized text means what the condition means ------------------------

ATOMS = [
    Existing("var.a"),
    Existing("var.c", None, C.PREC_ATOM),
    Existing('var.b == "x"', None, C.PREC_EQ),
    Existing('var.b == "x"'),  # precedence not recorded: read from the text
    Existing("var.n < 3"),
    Existing("!var.c", None, C.PREC_UNARY),
    Existing("(var.a || var.c)"),
    Existing("var.a && var.c"),
    Existing("var.a || var.c"),
    Existing('var.a ? var.n > 1 : var.b != "y"'),
    eq("var.s", "x"),
    eq("var.n", 2),
    eq("var.a", True),
]

conds = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(
        inner.map(Not),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: Or(tuple(xs))),
    ),
    max_leaves=8,
)
assignments = st.fixed_dictionaries({
    "a": st.booleans(), "c": st.booleans(), "b": st.sampled_from(["x", "y"]),
    "s": st.sampled_from(["x", "y"]), "n": st.integers(0, 4),
})


@settings(max_examples=300, deadline=None)
@given(conds, assignments, st.booleans())
def test_materialization_preserves_truth(cond, variables, normalize):
    text = materialize(cond, normalize=normalize)
    assert parse_file("g.tf", f"g = {text}\n".encode()).errors == []
    assert evaluate(text, variables) == eval_cond(cond, variables)


@settings(max_examples=200, deadline=None)
@given(conds)
def test_normalized_text_has_no_negated_comparisons(cond):
    text = materialize(cond, normalize=True)
    assert "!(var.b ==" not in text and '!(var.env' not in text
    assert "!!" not in text
