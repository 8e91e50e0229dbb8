"""``unsupported-value`` (SPEC 5): a field with a universe can take a value outside it."""

from __future__ import annotations

from features_support import load

from tfphi.features.diagnostics import dir_diagnostics

CONFIG = '''#- .tfphi.toml
[fields."aws_eks_cluster.version"]
universe = ["1.31", "1.32", "1.33"]
'''


def diagnostics(main: str):
    analysis, _, _ = load(CONFIG + "#- main.tf\n" + main)
    return analysis, [d for d in dir_diagnostics(analysis, "") if d.code in ("unsupported-value", "unbounded-field")]


def test_a_literal_outside_the_universe():
    analysis, [d] = diagnostics('resource "aws_eks_cluster" "c" {\n  version = "1.34"\n}\n')
    assert (d.code, d.severity, analysis.text(d.span)) == ("unsupported-value", "warning", '"1.34"')
    assert d.text == (
        'version can take "1.34", which the service compiler does not support: it is not among the supported values '
        'of aws_eks_cluster.version ("1.31", "1.32", "1.33").\n'
        'aws_eks_cluster.c.version is set to "1.34"; "1.34" comes from main.tf:2.\n'
        "Fix (any one works):\n"
        '  1. use one of the supported values ("1.31", "1.32", "1.33") instead of "1.34".\n'
        '  2. or, once the compiler supports it, add "1.34" to [fields."aws_eks_cluster.version"] universe in .tfphi.toml.'
    )


def test_a_default_and_a_validation_value_outside_it_point_at_where_they_come_from():
    analysis, [d] = diagnostics('''variable "v" {
  type = string
  validation {
    condition     = contains(["1.32", "1.34"], var.v)
    error_message = "v"
  }
}
resource "aws_eks_cluster" "c" {
  version = var.v
}
''')
    assert d.code == "unsupported-value" and d.data["values"] == ["1.34"]
    assert [(analysis.text(r.span), r.message) for r in d.related] == [('"1.34"', '"1.34" comes from here')]


def test_values_inside_the_universe_and_unconstrained_variables_pass():
    _, found = diagnostics('variable "v" {\n  type = string\n}\nresource "aws_eks_cluster" "c" {\n  version = var.v\n}\n')
    assert found == []  # the universe bounds a free root variable: nothing outside it
    _, found = diagnostics('resource "aws_eks_cluster" "c" {\n  version = "1.33"\n}\n')
    assert found == []


DEPLOYED = '''#- main.tf
variable "v" {
  type    = string
  default = "1.33"
}
module "m" {
  source = "./m"
  v      = var.v
}
#- terraform.tfvars
v = "1.32"
#- env/prod.tfvars
v = "1.34"
#- m/main.tf
variable "v" {}
resource "aws_eks_cluster" "c" {
  version = var.v
}
'''


def test_a_deployment_that_hands_the_field_a_value_outside_the_universe():
    """The configuration alone stays inside the universe (the default, 1.33); a variable file's
    value does not, and the compiler would be handed it without a word."""
    analysis, _, _ = load(CONFIG + DEPLOYED)
    [d] = [d for d in dir_diagnostics(analysis, "m") if d.code == "unsupported-value"]
    assert (analysis.text(d.span), d.data["values"]) == ("var.v", ["1.34"])
    assert d.text == (
        'version can take "1.34", which the service compiler does not support: it is not among the supported values '
        'of aws_eks_cluster.version ("1.31", "1.32", "1.33").\n'
        'aws_eks_cluster.c.version is set to var.v; "1.34" comes from the deployment env/prod.tfvars:1.\n'
        "Fix (any one works):\n"
        '  1. use one of the supported values ("1.31", "1.32", "1.33") instead of "1.34" (in env/prod.tfvars).\n'
        '  2. or, once the compiler supports it, add "1.34" to [fields."aws_eks_cluster.version"] universe in .tfphi.toml.'
    )
    assert [(r.span.file, analysis.text(r.span), r.message) for r in d.related] == [
        ("env/prod.tfvars", '"1.34"', '"1.34" set by the deployment env/prod.tfvars')]


def test_deployments_inside_the_universe_pass_and_a_resource_that_never_exists_takes_no_value():
    analysis, _, _ = load(CONFIG + DEPLOYED.replace('v = "1.34"', 'v = "1.31"'))
    assert [d.code for d in dir_diagnostics(analysis, "m")] == []
    never = DEPLOYED.replace('resource "aws_eks_cluster" "c" {\n', 'resource "aws_eks_cluster" "c" {\n  count   = 0\n')
    analysis, _, _ = load(CONFIG + never)
    assert [d.code for d in dir_diagnostics(analysis, "m")] == []
