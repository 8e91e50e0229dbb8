"""The seed's four scenarios end to end (seeds/phi-tracing.txt, "Part 6"), and the example workspace."""

from __future__ import annotations

from pathlib import Path

from phi_fixture import check_trace, diagnostics, trace

from tfphi.features.trace_json import trace_to_json
from tfphi.loader import load_workspace
from tfphi.trace.conditions import materialize

RUNNING_EXAMPLE = '''
#- main.tf
variable "customer_env" { type = string }
locals { instance_class = "db.t3.large" }
module "database" {
  source         = "./modules/postgres"
  engine_version = var.customer_env == "prod" ? "15.4" : "14.9"
  instance_class = local.instance_class
}
#- modules/postgres/main.tf
variable "engine_version" { type = string }
variable "instance_class" { type = string }
resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = var.instance_class
}
'''


def test_scenario_one_known_value_through_three_modules():
    fixture = '''
#- main.tf
module "a" {
  source  = "./a"
  version_number = 15.4
}
#- a/main.tf
variable "version_number" {}
module "b" {
  source = "../b"
  v      = tostring(var.version_number)
}
#- b/main.tf
variable "v" { type = string }
module "c" {
  source = "../c"
  v      = var.v
}
#- c/main.tf
variable "v" { type = string }
resource "aws_db_instance" "app" { engine_version = var.v }
'''
    check_trace(fixture, "module.a.module.b.module.c.aws_db_instance.app.engine_version", 'resolved\n"15.4" <- true')


def test_scenario_two_the_running_example():
    analysis_result = check_trace(RUNNING_EXAMPLE, "module.database.aws_db_instance.app.engine_version", '''
        bounded
        "15.4" <- Existing(var.customer_env == "prod")
        "14.9" <- Not(Existing(var.customer_env == "prod"))
    ''')
    first, second = analysis_result.branches
    assert materialize(first.cond) == 'var.customer_env == "prod"'
    assert materialize(second.cond) == '!(var.customer_env == "prod")'
    assert tuple(map(str, first.path[-2:])) == ("ConditionalExpr true arm", 'Prim "15.4"')
    assert tuple(map(str, second.path[-2:])) == ("ConditionalExpr false arm", 'Prim "14.9"')
    assert analysis_result.selector == 'var.customer_env == "prod"'
    check_trace(RUNNING_EXAMPLE, "module.database.aws_db_instance.app.instance_class", 'resolved\n"db.t3.large" <- true')


def test_scenario_two_nested_three_way_and_coalesced():
    fixture = '''
variable "env" {}
variable "region" {}
locals {
  three = var.env == "prod" ? "m5.xlarge" : (var.region == "us" ? "t3.medium" : "t3.small")
  two   = var.env == "prod" ? "m5.xlarge" : (var.region == "us-east-1" ? "m5.xlarge" : "t3.small")
}
resource "aws_db_instance" "a" { instance_class = local.three }
resource "aws_db_instance" "b" { instance_class = local.two }
'''
    check_trace(fixture, "aws_db_instance.a.instance_class", '''
        bounded
        "m5.xlarge" <- Existing(var.env == "prod")
        "t3.medium" <- And(Not(Existing(var.env == "prod")), Existing(var.region == "us"))
        "t3.small" <- And(Not(Existing(var.env == "prod")), Not(Existing(var.region == "us")))
    ''')
    check_trace(fixture, "aws_db_instance.b.instance_class", '''
        bounded
        "m5.xlarge" <- Or(Existing(var.env == "prod"), Existing(var.region == "us-east-1"))
        "t3.small" <- And(Not(Existing(var.env == "prod")), Not(Existing(var.region == "us-east-1")))
    ''')


def test_scenario_three_bounded_universe():
    fixture = '''
variable "instance_size" { type = string }
resource "aws_db_instance" "app" { instance_class = var.instance_size }
'''
    result = check_trace(fixture, "aws_db_instance.app.instance_class", '''
        bounded
        "small" <- Eq(var.instance_size, "small")
        "medium" <- Eq(var.instance_size, "medium")
        "large" <- Eq(var.instance_size, "large")
    ''', universe=["small", "medium", "large"])
    assert [materialize(b.cond) for b in result.branches] == [
        'var.instance_size == "small"', 'var.instance_size == "medium"', 'var.instance_size == "large"']


def test_scenario_four_unbounded_with_a_blocking_issue():
    fixture = '''
variable "postgres_version" { type = string }
resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.postgres_version
}
'''
    result = trace(fixture, "aws_db_instance.app.engine_version")
    assert result.kind == "unbounded"
    assert result.reason == "var.postgres_version has no default value, and no validation block lists the allowed values"
    (line,) = diagnostics(fixture)
    assert line.startswith("main.tf:4:20-4:40 warning[unbounded-field] can't determine the value of engine_version")


def test_example_vendor_stack():
    root = Path(__file__).resolve().parents[2] / "examples" / "vendor-stack"
    analysis = load_workspace(root)
    result = analysis.trace_address("module.database.aws_db_instance.app.engine_version")
    data = trace_to_json(analysis, result)
    assert [(b["value"], b["condition"]) for b in data["branches"]] == [
        ("15.4", 'Existing(var.customer_env == "prod")'),
        ("14.9", 'Not(Existing(var.customer_env == "prod"))'),
    ]
    assert data["branches"][0]["source"] == "main.tf:6:49"
