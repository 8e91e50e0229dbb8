"""SPEC section 3, Functions: every listed function through the tracer, and each strategy family."""

from __future__ import annotations

import pytest

from phi_fixture import check_trace, render, trace

F = "aws_db_instance.x.engine_version"

UNIVERSE = '''variable "v" {
  validation {
    condition     = contains(["Prod", "dev"], var.v)
    error_message = "x"
  }
}
variable "n" {
  type = number
  validation {
    condition     = contains([1, 2], var.n)
    error_message = "x"
  }
}
'''


def field(expr: str, before: str = UNIVERSE) -> str:
    return f'{before}\nresource "aws_db_instance" "x" {{\n  engine_version = {expr}\n}}\n'


# One call per function SPEC section 3 lists, on literals: the tracer runs the shared semantics.
RESOLVED = [
    ('lower("AbC")', '"abc"'),
    ('upper("abc")', '"ABC"'),
    ('title("hello world")', '"Hello World"'),
    ('trimspace("  a  ")', '"a"'),
    ("tostring(15)", '"15"'),
    ('tonumber("15")', "15"),
    ('tobool("true")', "true"),
    ('format("%s-%03d", "v", 7)', '"v-007"'),
    ('join("-", ["a", "b"])', '"a-b"'),
    ('split(".", "15.4")', '["15", "4"]'),
    ('replace("a-b-c", "-", ".")', '"a.b.c"'),
    ('replace("a1b22", "/[0-9]+/", "#")', '"a#b#"'),
    ('substr("postgres", 0, 4)', '"post"'),
    ('trim("xxaxx", "x")', '"a"'),
    ('trimprefix("v15.4", "v")', '"15.4"'),
    ('trimsuffix("15.4-beta", "-beta")', '"15.4"'),
    ('coalesce(null, "", "x")', '"x"'),
    ('try(tonumber("x"), "fallback")', '"fallback"'),
    ('can(tonumber("x"))', "false"),
    ('lookup({ a = "1" }, "b", "d")', '"d"'),
    ('element(["a", "b"], 3)', '"b"'),
    ('contains(["a"], "a")', "true"),
    ('concat(["a"], ["b"])', '["a", "b"]'),
    ("merge({ a = 1 }, { b = 2 })", "{ a = 1, b = 2 }"),
    ("keys({ b = 1, a = 2 })", '["a", "b"]'),
    ("values({ b = 1, a = 2 })", "[2, 1]"),
    ('length("héllo")', "5"),
    ("min(3, 1, 2)", "1"),
    ("max(3, 1, 2)", "3"),
    ("abs(-4)", "4"),
    ("ceil(1.2)", "2"),
    ("floor(1.8)", "1"),
    ('tolist(["a"])', '["a"]'),
    ('toset(["b", "a", "b"])', '["a", "b"]'),
    ("tomap({ a = 1 })", "{ a = 1 }"),
    ('jsondecode("{\\"a\\": [1, 2]}")', "{ a = [1, 2] }"),
    ('yamldecode("a: 1")', "{ a = 1 }"),
    ('jsonencode({ a = "b" })', '"{\\"a\\":\\"b\\"}"'),
    ('startswith("postgres", "post")', "true"),
    ('endswith("postgres", "gres")', "true"),
    ('regex("[0-9]+", "v15")', '"15"'),
    ('regexall("[0-9]", "a1b2")', '["1", "2"]'),
]


@pytest.mark.parametrize("expr, expected", RESOLVED, ids=[e for e, _ in RESOLVED])
def test_every_listed_function_through_the_tracer(expr, expected):
    check_trace(field(expr), F, f"resolved\n{expected} <- true")


def test_listed_functions_are_all_covered():
    listed = ("lower upper title trimspace tostring tonumber tobool format join split replace substr trim trimprefix "
              "trimsuffix coalesce try can lookup element contains concat merge keys values length min max abs ceil floor "
              "tolist toset tomap jsondecode yamldecode jsonencode startswith endswith regex regexall").split()
    covered = {expr.split("(")[0] for expr, _ in RESOLVED}
    assert set(listed) <= covered


def test_elementwise_function_maps_each_branch():
    check_trace(field("lower(var.v)"), F, '''
        bounded
        "prod" <- Eq(var.v, "Prod")
        "dev" <- Eq(var.v, "dev")
    ''')


def test_elementwise_function_keeps_resolved_resolved():
    check_trace(field('upper(local.x)', 'locals { x = "a" }'), F, 'resolved\n"A" <- true')


def test_elementwise_function_of_unbounded_is_unbounded():
    result = trace(field("lower(var.u)", 'variable "u" {}'), F)
    assert result.kind == "unbounded" and "var.u has no default" in result.reason


def test_two_bounded_operands_combine_as_a_cross_product():
    check_trace(field('format("%s-%d", var.v, var.n)'), F, '''
        bounded
        "Prod-1" <- And(Eq(var.v, "Prod"), Eq(var.n, 1))
        "Prod-2" <- And(Eq(var.v, "Prod"), Eq(var.n, 2))
        "dev-1" <- And(Eq(var.v, "dev"), Eq(var.n, 1))
        "dev-2" <- And(Eq(var.v, "dev"), Eq(var.n, 2))
    ''')


def test_cross_product_over_the_size_limit_is_unbounded():
    values = ", ".join(f'"{i}"' for i in range(5))
    before = UNIVERSE + f'''variable "w" {{
  validation {{
    condition     = contains([{values}], var.w)
    error_message = "x"
  }}
}}
'''
    result = trace(field('join("-", [var.w, var.w, var.v])', before), F)
    # var.w twice is contradictory except on the diagonal: 5 * 2 = 10 combinations survive.
    assert result.kind == "bounded" and len(result.branches) == 10
    result = trace(field('join("-", [var.w, upper(var.w), var.v, var.n])', before), F)
    assert result.reason == "bounded, but too large to specialize: 20 values > 16"


def test_same_variable_twice_is_not_a_cross_product():
    check_trace(field('"${var.v}/${lower(var.v)}"'), F, '''
        bounded
        "Prod/prod" <- Eq(var.v, "Prod")
        "dev/dev" <- Eq(var.v, "dev")
    ''')


def test_try_takes_the_union_of_its_arms():
    check_trace(field('try(local.m[var.v], "none")', UNIVERSE + 'locals { m = { Prod = "15.4" } }'), F, '''
        bounded
        "15.4" <- And(Existing(can(local.m[var.v])), Eq(var.v, "Prod"))
        "none" <- Not(Existing(can(local.m[var.v])))
    ''')


def test_try_with_a_resolved_first_arm_is_that_arm():
    check_trace(field('try(local.m.a, var.v)', UNIVERSE + 'locals { m = { a = "x" } }'), F, 'resolved\n"x" <- true')


def test_try_with_unbounded_arms_is_unbounded():
    assert trace(field('try(var.u, "x")', 'variable "u" {}'), F).kind == "unbounded"


def test_can_of_a_partially_failing_argument_is_bounded():
    before = 'variable "w" {\n  validation {\n    condition = contains(["1", "a"], var.w)\n    error_message = "x"\n  }\n}\n'
    check_trace(field('can(tonumber(var.w)) ? "number" : "text"', before), F, '''
        bounded
        "number" <- Existing(can(tonumber(var.w)))
        "text" <- Not(Existing(can(tonumber(var.w))))
    ''')
    check_trace(field('can(tonumber(var.v)) ? "number" : "text"'), F, 'resolved\n"text" <- true')


def test_coalesce_and_lookup_on_bounded_arguments():
    check_trace(field('lookup({ Prod = "big" }, var.v, "small")'), F, '''
        bounded
        "big" <- Eq(var.v, "Prod")
        "small" <- Eq(var.v, "dev")
    ''')


def test_jsondecode_of_a_literal_runs_at_trace_time():
    check_trace(field('jsondecode("{\\"version\\": \\"15.4\\"}").version'), F, 'resolved\n"15.4" <- true')


@pytest.mark.parametrize("fn", ["jsondecode", "yamldecode"])
def test_decoding_a_non_literal_is_unbounded(fn):
    result = trace(field(f'{fn}(local.doc)', 'locals { doc = "{}" }'), F)
    assert result.kind == "unbounded"
    assert f"{fn}() of a non-literal argument" in result.reason


def test_unknown_function_names_the_function():
    result = trace(field('frobnicate("x")'), F)
    assert result.kind == "unbounded"
    assert "frobnicate" in result.reason


def test_provider_defined_function_names_the_function():
    result = trace(field('provider::aws::arn_parse("arn:aws:s3:::b").resource'), F)
    assert result.kind == "unbounded"
    assert "provider::aws::arn_parse" in result.reason


def test_filesystem_function_is_unbounded():
    result = trace(field('file("x.txt")'), F)
    assert result.kind == "unbounded" and "file()" in result.reason


def test_failing_call_on_literals_is_unbounded_with_the_error():
    result = trace(field('tonumber("abc")'), F)
    assert result.kind == "unbounded" and result.unbounded.cause == "error"


def test_expanded_final_argument():
    check_trace(field('max([3, 9, 4]...)'), F, "resolved\n9 <- true")
    check_trace(field('format("%s.%s", ["15", "4"]...)'), F, 'resolved\n"15.4" <- true')


def test_for_expression_through_functions():
    check_trace(field('join(",", [for s in ["a", var.v] : upper(s)])'), F, '''
        bounded
        "A,PROD" <- Eq(var.v, "Prod")
        "A,DEV" <- Eq(var.v, "dev")
    ''')
    check_trace(field('{ for k, v in { a = "x", b = "y" } : v => k if k != "b" }'), F, 'resolved\n{ x = "a" } <- true')


def test_render_of_unbounded():
    assert render(trace(field('frobnicate("x")'), F)).startswith("unbounded: ")
