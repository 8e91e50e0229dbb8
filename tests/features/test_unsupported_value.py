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
