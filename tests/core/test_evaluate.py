"""The concrete evaluator (``tfphi.trace.evaluate``) and the evaluation of PhiConditions."""

from __future__ import annotations

import pytest

from phi_fixture import analysis_of

from tfphi.trace import conditions as C
from tfphi.trace.evaluate import EvalUnsupported, Scope, evaluate, evaluate_condition, parse_expression
from tfphi.trace.values import TfEvalError

MODULE = '''
variable "env" { type = string }
variable "port" {
  type    = string
  default = 5432
}
variable "obj" {
  type    = object({ a = string, b = optional(number, 7) })
  default = { a = "x" }
}
locals {
  upper_env = upper(var.env)
  both      = "${local.upper_env}-${var.port}"
  loop_a    = local.loop_b
  loop_b    = local.loop_a
}
'''


@pytest.fixture(scope="module")
def module():
    return analysis_of(MODULE).modules[""]


def ev(text: str, module=None, **variables):
    return evaluate(parse_expression(text), Scope(module, variables))


@pytest.mark.parametrize("text, expected", [
    ('"a"', "a"), ("1.5", 1.5), ("true", True), ("null", None),
    ('"${1 + 1}-x"', "2-x"), ('"${true}"', True), ("[1, \"a\"]", [1, "a"]), ('{ a = 1, "b" = 2 }', {"a": 1, "b": 2}),
    ("1 + 2 * 3", 7), ("-7 % 3", -1), ("!false", True), ('1 == "1"', False), ("2 >= 2", True),
    ('true ? "a" : "b"', "a"), ('false ? "a" : "b"', "b"), ('true ? 1 : "s"', "1"),
    ('true ? "a" : tonumber("x")', "a"), ('false ? "a" : true ? "b" : "c"', "b"),
    ('upper("a")', "A"), ('format("%s=%d", "a", 1)', "a=1"), ("max([1, 5, 2]...)", 5),
    ('try(tonumber("x"), "d")', "d"), ('can(tonumber("x"))', False), ('can(tonumber("1"))', True),
    ("[for x in [1, 2, 3] : x * 2 if x != 2]", [2, 6]), ('{ for k, v in { a = 1, b = 2 } : v => k }', {"1": "a", "2": "b"}),
    ('{ for s in ["a", "b", "a"] : s => s... }', {"a": ["a", "a"], "b": ["b"]}),
    ('[{ n = 1 }, { n = 2 }][*].n', [1, 2]), ('{ a = ["x", "y"] }.a[1]', "y"), ('{ a = 1 }["a"]', 1),
])
def test_expressions(text, expected):
    assert ev(text) == expected


@pytest.mark.parametrize("text", [
    'tonumber("x")', '"a" + 1', "1 / 0", 'null ? 1 : 2', '[1][3]', '{ a = 1 }.b', '"a${null}"', "try(tonumber(\"x\"))",
    '{ for s in ["a", "a"] : s => s }', 'true && null',
])
def test_rejected_expressions_raise(text):
    with pytest.raises(TfEvalError):
        ev(text)


@pytest.mark.parametrize("text", ["aws_s3_bucket.b.arn", "data.x.y.z", "timestamp()", 'file("x")', "frobnicate(1)", 'provider::aws::arn_parse("x")'])
def test_unknowable_values_are_unsupported(text):
    with pytest.raises(EvalUnsupported):
        ev(text)


def test_variables_defaults_and_type_conversion(module):
    assert ev("var.env", module, env="prod") == "prod"
    assert ev("var.port", module) == "5432"
    assert ev("var.port", module, port=1) == "1"
    assert ev("var.obj", module) == {"a": "x", "b": 7}
    with pytest.raises(TfEvalError):
        ev("var.env", module)
    with pytest.raises(TfEvalError):
        ev("var.undeclared", module)


def test_locals_are_evaluated(module):
    assert ev("local.both", module, env="dev") == "DEV-5432"
    with pytest.raises(TfEvalError, match="cycle"):
        ev("local.loop_a", module)


def test_iterator_bindings():
    scope = Scope(None, {}, {"each": {"key": "k", "value": "v"}, "count": {"index": 2}})
    assert evaluate(parse_expression('"${each.key}=${each.value}/${count.index}"'), scope) == "k=v/2"


def test_conditions(module):
    existing = C.Existing('var.env == "prod"', parse_expression('var.env == "prod"'))
    prod, dev = Scope(module, {"env": "prod"}), Scope(module, {"env": "dev"})
    assert evaluate_condition(existing, prod) and not evaluate_condition(existing, dev)
    assert evaluate_condition(C.Not(existing), dev)
    assert evaluate_condition(C.eq("var.env", "dev"), dev)
    assert not evaluate_condition(C.eq("var.env", "dev"), prod)
    assert evaluate_condition(C.Or((existing, C.eq("var.env", "dev"))), dev)
    assert not evaluate_condition(C.And((existing, C.eq("var.env", "dev"))), dev)
    assert evaluate_condition(C.TRUE, dev)
    text_only = C.Existing("can(tonumber(var.env))")
    assert not evaluate_condition(text_only, dev)
    assert evaluate_condition(text_only, Scope(module, {"env": "12"}))


def test_eq_on_the_converted_variable(module):
    assert evaluate_condition(C.eq("var.port", "5432"), Scope(module, {}))
