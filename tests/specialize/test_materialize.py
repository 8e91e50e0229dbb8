"""Condition materialization: the one place a PhiCondition becomes Terraform syntax."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tfphi.trace import conditions as C
from tfphi.trace.conditions import And, Existing, Not, Or, TRUE, eq, materialize
from tfphi.syntax.hclfile import parse_file
from tfphi.trace.lift import one_line

from .hcleval import eval_cond, evaluate


def _tree(text: str):
    """``text`` parsed as an expression: an atom carries its tree, as the tracer's do (nothing parses a condition's text back)."""
    return parse_file("atom.tf", f"x = {text}\n".encode()).body.attributes["x"].expr


def atom(text: str, precedence: int = 0) -> Existing:
    """A root module atom with its own tree (no root tree: the gate is its text); ``precedence`` as the tracer records it, 0: read from the tree."""
    return Existing(text, _tree(text), precedence)


def selector_eq(text: str, value):
    """``Eq`` of a selector that is not a plain reference (it has a tree, which says how it binds)."""
    return eq(text, value, _tree(text))


PROD = atom('var.env == "prod"', C.PREC_EQ)
US = atom('var.region == "us"', C.PREC_EQ)


def test_true_is_no_gate():
    assert materialize(TRUE) is None
    assert materialize(TRUE, normalize=True) is None


def test_existing_reuses_the_original_text():
    assert materialize(PROD) == 'var.env == "prod"'
    assert materialize(atom("var.enabled")) == "var.enabled"


def test_eq_compares_with_a_literal():
    assert materialize(eq("var.size", "small")) == 'var.size == "small"'
    assert materialize(eq("var.replicas", 3)) == "var.replicas == 3"
    assert materialize(eq("var.flag", True)) == "var.flag"  # a bool value only equals a bool selector
    assert materialize(eq("var.flag", False)) == "!var.flag"
    assert materialize(eq("var.v", None)) == "var.v == null"
    assert materialize(eq("var.s", 'a"b${x}')) == r'var.s == "a\"b$${x}"'


def test_not_wraps_only_when_needed():
    assert materialize(Not(PROD)) == '!(var.env == "prod")'
    assert materialize(Not(atom("var.enabled"))) == "!var.enabled"
    assert materialize(Not(atom("contains(var.l, var.x)"))) == "!contains(var.l, var.x)"


def test_normalized_negations():
    assert materialize(Not(PROD), normalize=True) == 'var.env != "prod"'
    assert materialize(Not(eq("var.size", "small")), normalize=True) == 'var.size != "small"'
    assert materialize(Not(atom("var.n < 3")), normalize=True) == "var.n >= 3"
    assert materialize(Not(atom("var.n >= 3")), normalize=True) == "var.n < 3"
    assert materialize(Not(atom("!var.enabled")), normalize=True) == "var.enabled"
    assert materialize(Not(atom('(var.env == "prod")')), normalize=True) == 'var.env != "prod"'
    assert materialize(Not(atom("true")), normalize=True) == "false"
    assert materialize(Not(Not(PROD)), normalize=True) == 'var.env == "prod"'


def test_de_morgan_when_normalizing():
    assert materialize(Not(And((PROD, US))), normalize=True) == 'var.env != "prod" || var.region != "us"'
    assert materialize(Not(Or((PROD, US))), normalize=True) == 'var.env != "prod" && var.region != "us"'
    assert materialize(Not(atom("var.a && var.b")), normalize=True) == "!var.a || !var.b"


def test_and_or_parenthesize_by_precedence():
    assert materialize(And((Not(PROD), Not(US))), normalize=True) == 'var.env != "prod" && var.region != "us"'
    assert materialize(Or((PROD, And((Not(PROD), US)))), normalize=True) == 'var.env == "prod" || var.env != "prod" && var.region == "us"'
    assert materialize(And((atom("var.a || var.b", C.PREC_OR), atom("var.c")))) == "(var.a || var.b) && var.c"
    assert materialize(And((atom("var.a && var.b", C.PREC_AND), atom("var.c")))) == "var.a && var.b && var.c"
    assert materialize(And((Or((PROD, US)), atom("var.c")))) == '(var.env == "prod" || var.region == "us") && var.c'


def test_precedence_is_read_from_the_tree_when_not_recorded():
    # A conditional used as a condition binds loosest of all.
    assert materialize(Not(atom("var.a ? var.b : var.c"))) == "!(var.a ? var.b : var.c)"
    assert materialize(And((atom("var.a || var.b"), atom("var.c")))) == "(var.a || var.b) && var.c"
    assert materialize(selector_eq("var.a ? 1 : 2", 1)) == "(var.a ? 1 : 2) == 1"
    assert materialize(selector_eq("var.a + 1", 3)) == "var.a + 1 == 3"


def test_multiline_existing_text_negates_correctly():
    # The tracer collapses whitespace of multi-line conditions: the text is no longer the tree's
    # own, so the negation's pieces are printed from the tree.
    source = '(var.env == "prod" &&\n  var.region == "us")'
    cond = Existing(one_line(source), _tree(source))
    assert cond.text == '(var.env == "prod" && var.region == "us")'
    assert materialize(Not(cond), normalize=True) == 'var.env != "prod" || var.region != "us"'
    assert materialize(Not(cond)) == '!(var.env == "prod" && var.region == "us")'


def test_empty_and_or():
    assert materialize(And(())) == "true"
    assert materialize(Or(())) == "false"


# ---- property: materialized text means what the condition means ------------------------

ATOMS = [
    atom("var.a"),
    atom("var.c", C.PREC_ATOM),
    atom('var.b == "x"', C.PREC_EQ),
    atom('var.b == "x"'),  # precedence not recorded: read from its tree
    atom("var.n < 3"),
    atom("!var.c", C.PREC_UNARY),
    atom("(var.a || var.c)"),
    atom("var.a && var.c"),
    atom("var.a || var.c"),
    atom('var.a ? var.n > 1 : var.b != "y"'),
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
