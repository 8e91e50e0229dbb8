"""The Show Trace document: every branch with its full path."""

from __future__ import annotations

from features_support import load

from tfphi.features.trace_view import trace_document

FIXTURE = """
#- main.tf
variable "env" { type = string }
module "db" {
  source     = "./db"
  version_in = var.env == "prod" ? "15.4" : "14.9"
}
#- db/main.tf
variable "version_in" { type = string }
resource "aws_db_instance" "app" {
  engine_version = var.version$0_in
}
"""


def check_trace_document(fixture: str, title: str, expected: list[str]) -> str:
    analysis, cursor, _ = load(fixture)
    document = trace_document(analysis, cursor.path, cursor.offset)
    assert document is not None
    assert document[0] == title
    for text in expected:
        assert text in document[1], f"{text!r} not in:\n{document[1]}"
    return document[1]


def test_full_trace_of_a_field():
    check_trace_document(FIXTURE, "Trace: module.db.aws_db_instance.app.engine_version", [
        "**bounded** · 2 values",
        '**Trace of `"15.4"`**',
        'condition: `Existing(var.env == "prod")`',
        '**Trace of `"14.9"`**',
        'condition: `Not(Existing(var.env == "prod"))`',
        "1. `Field aws_db_instance.app.engine_version`",
        "2. `NameRef var.version_in` ([db/main.tf:1](main.tf#L1))",
        "3. `ModCall module.db argument version_in` ([main.tf:4](../main.tf#L4))",
        "4. `ConditionalExpr true arm`",
        '5. `Prim "15.4"`',
        "6. value from [main.tf:4](../main.tf#L4)",
    ])


def test_full_trace_of_a_reference_lists_every_branch():
    fixture = """
    #- main.tf
    variable "v" {
      type = string
      validation {
        condition     = contains(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"], var.v)
        error_message = "No."
      }
    }
    locals {
      x = upper(var.$0v)
    }
    """
    markdown = check_trace_document(fixture, "Trace: var.v", ["**bounded** · 14 values", "**Trace of `\"n\"`**", "`Validation var.v` ([main.tf:1](main.tf#L1))"])
    assert "more (Show Trace" not in markdown


def test_nothing_at_the_cursor():
    analysis, _, files = load(FIXTURE)
    assert trace_document(analysis, "db/main.tf", files["db/main.tf"].index(b"type")) is None
    assert trace_document(analysis, "missing.tf", 0) is None
