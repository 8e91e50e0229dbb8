"""Go to definition, find references, document symbols."""

from __future__ import annotations

from features_support import load, span_text

from tfphi.features.navigation import definition, document_symbols, references

WORKSPACE = """
#- main.tf
module "database" {
  source         = "./modules/postgres"
  engine_version = var.customer_env == "prod" ? local.version : "14.9"
}

locals {
  version = "15.4"
}

data "aws_ami" "base" {
  owners = ["self"]
}

resource "aws_instance" "web" {
  ami      = data.aws_ami.base.id
  for_each = toset(["a"])
  tags     = { Endpoint = module.database.endpoint, Key = each.key }
}

output "web_id" {
  value = aws_instance.web["a"].id
}
#- variables.tf
variable "customer_env" {
  type = string
}
#- modules/postgres/main.tf
variable "engine_version" {
  type = string
}

resource "aws_db_instance" "app" {
  engine_version = var.engine_version
}

output "endpoint" {
  value = aws_db_instance.app.endpoint
}
"""


def at(fixture: str, path: str, needle: str, delta: int = 1) -> str:
    head, sep, rest = fixture.partition(f"#- {path}\n")
    index = rest.index(needle) + delta
    return head + sep + rest[:index] + "$0" + rest[index:]


def check_definition(fixture: str, expected: list[tuple[str, str]]) -> None:
    """``expected``: (file, text) of each target span."""
    analysis, cursor, files = load(fixture)
    spans = definition(analysis, cursor.path, cursor.offset)
    assert [(s.file, span_text(files, s)) for s in spans] == expected


def check_references(fixture: str, expected: list[tuple[str, str]], include_declaration: bool = True) -> None:
    analysis, cursor, files = load(fixture)
    spans = references(analysis, cursor.path, cursor.offset, include_declaration)
    assert sorted((s.file, span_text(files, s)) for s in spans) == sorted(expected)


def test_definition_of_a_variable():
    check_definition(at(WORKSPACE, "main.tf", "var.customer_env", 6), [("variables.tf", '"customer_env"')])


def test_definition_of_a_local():
    check_definition(at(WORKSPACE, "main.tf", "local.version", 8), [("main.tf", "version")])


def test_definition_of_a_module_and_of_its_output():
    check_definition(at(WORKSPACE, "main.tf", "module.database.endpoint", 9), [("main.tf", '"database"')])
    check_definition(at(WORKSPACE, "main.tf", "module.database.endpoint", 18), [("modules/postgres/main.tf", '"endpoint"')])


def test_definition_of_resources_and_data_sources():
    check_definition(at(WORKSPACE, "main.tf", "aws_instance.web[", 3), [("main.tf", '"web"')])
    check_definition(at(WORKSPACE, "main.tf", "data.aws_ami.base.id", 7), [("main.tf", '"base"')])
    check_definition(at(WORKSPACE, "modules/postgres/main.tf", "aws_db_instance.app.endpoint", 2), [("modules/postgres/main.tf", '"app"')])


def test_definition_from_a_module_argument_to_the_child_variable():
    check_definition(at(WORKSPACE, "main.tf", "engine_version =", 2), [("modules/postgres/main.tf", '"engine_version"')])


def test_definition_of_each_is_the_for_each():
    check_definition(at(WORKSPACE, "main.tf", "each.key", 2), [("main.tf", "for_each")])


def test_no_definition_on_a_literal():
    check_definition(at(WORKSPACE, "main.tf", '"14.9"'), [])


def test_references_of_a_variable_from_its_label_and_from_a_use():
    expected = [("variables.tf", '"customer_env"'), ("main.tf", "var.customer_env")]
    check_references(at(WORKSPACE, "variables.tf", '"customer_env"', 2), expected)
    check_references(at(WORKSPACE, "main.tf", "var.customer_env", 2), expected)
    check_references(at(WORKSPACE, "main.tf", "var.customer_env", 2), [("main.tf", "var.customer_env")], include_declaration=False)


def test_references_of_a_child_variable_include_the_callers_arguments():
    check_references(at(WORKSPACE, "modules/postgres/main.tf", '"engine_version"', 2), [
        ("modules/postgres/main.tf", '"engine_version"'),
        ("modules/postgres/main.tf", "var.engine_version"),
        ("main.tf", "engine_version"),
    ])


def test_references_of_an_output_across_modules():
    check_references(at(WORKSPACE, "modules/postgres/main.tf", '"endpoint"', 2), [
        ("modules/postgres/main.tf", '"endpoint"'),
        ("main.tf", "module.database.endpoint"),
    ])


def test_references_of_a_module_local_resource_and_data():
    check_references(at(WORKSPACE, "main.tf", 'module "database"', 9), [("main.tf", '"database"'), ("main.tf", "module.database")])
    check_references(at(WORKSPACE, "main.tf", "  version = ", 4), [("main.tf", "version"), ("main.tf", "local.version")])
    check_references(at(WORKSPACE, "main.tf", '"web"', 2), [("main.tf", '"web"'), ("main.tf", "aws_instance.web")])
    check_references(at(WORKSPACE, "main.tf", '"base"', 2), [("main.tf", '"base"'), ("main.tf", "data.aws_ami.base")])


def test_document_symbols():
    analysis, _, files = load(WORKSPACE)
    symbols = document_symbols(analysis, "main.tf")
    assert [(s.name, s.kind) for s in symbols] == [
        ("module.database", "module"),
        ("local.version", "local"),
        ("data.aws_ami.base", "data"),
        ("aws_instance.web", "resource"),
        ("output.web_id", "output"),
    ]
    assert span_text(files, symbols[0].selection_span) == '"database"'
    assert span_text(files, symbols[1].selection_span) == "version"
    assert span_text(files, symbols[0].span).startswith('module "database" {')


def test_document_symbols_nested_blocks_and_providers():
    analysis, _, _ = load("""
    #- main.tf
    terraform {
      required_version = ">= 1.5"
    }
    provider "aws" {
      alias  = "west"
      region = "us-west-2"
    }
    variable "x" {
      type = string
      validation {
        condition     = var.x != ""
        error_message = "Set x."
      }
    }
    resource "aws_db_instance" "app" {
      restore_to_point_in_time {
        source_db_instance_identifier = "x"
      }
      dynamic "tag" {
        for_each = {}
        content {}
      }
    }
    """)
    symbols = document_symbols(analysis, "main.tf")
    assert [(s.name, s.kind) for s in symbols] == [
        ("terraform", "block"), ("provider.aws.west", "provider"), ("var.x", "variable"), ("aws_db_instance.app", "resource")]
    resource = symbols[-1]
    assert [(c.name, c.kind) for c in resource.children] == [("restore_to_point_in_time", "block"), ("dynamic tag", "block")]
    assert [c.name for c in resource.children[1].children] == ["content"]


TFVARS = """
#- main.tf
variable "customer_env" {
  type = string
}
output "env" {
  value = var.customer_env
}
#- terraform.tfvars
customer_env = "prod"
"""


def test_tfvars_assignment_leads_to_the_variable_and_back():
    check_definition(at(TFVARS, "terraform.tfvars", "customer_env", 2), [("main.tf", '"customer_env"')])
    expected = [("main.tf", '"customer_env"'), ("main.tf", "var.customer_env"), ("terraform.tfvars", "customer_env")]
    check_references(at(TFVARS, "terraform.tfvars", "customer_env", 2), expected)
    check_references(at(TFVARS, "main.tf", '"customer_env"', 2), expected)


def test_module_source_leads_to_the_called_module():
    analysis, cursor, _ = load(at(WORKSPACE, "main.tf", '"./modules/postgres"', 3))
    spans = definition(analysis, cursor.path, cursor.offset)
    assert [(s.file, s.start, s.end) for s in spans] == [("modules/postgres/main.tf", 0, 0)]
