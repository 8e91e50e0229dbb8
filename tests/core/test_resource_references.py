"""``resource.<type>.<name>`` (Terraform 1.4+) names the same resource as ``<type>.<name>``
(issue 24, defect 6: every such reference was a false ``undefined-reference``, EKS blueprints'
``patterns/privatelink-access``). Checked against ``terraform validate`` on generated
configurations: tfphi reports an undefined reference exactly where Terraform rejects one.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from phi_fixture import analysis_of, check_diagnostics, diagnostics, parse_fixture
from terraform_cli import run_terraform

from tfphi.features.navigation import definition, references


def test_a_resource_prefixed_reference_resolves_and_an_undeclared_one_is_reported():
    check_diagnostics('''
resource "aws_vpc_endpoint" "this" {
  vpc_id = "vpc-1"
}
output "ok" { value = resource.aws_vpc_endpoint.this.dns_entry[0].dns_name }
output "bad" { value = resource.aws_vpc_endpoint.nope.id }
''', '''
        main.tf:5:24-5:54 error[undefined-reference] undefined reference to aws_vpc_endpoint.nope: no resource block declares it
    ''')


def test_a_for_variable_named_resource_is_not_a_resource_reference():
    check_diagnostics('''
variable "items" {
  type    = list(object({ id = string }))
  default = []
}
output "ids" { value = [for resource in var.items : resource.id] }
''', "")


def test_traced_as_apply_time_like_the_plain_form():
    fixture = '''
resource "aws_vpc_endpoint" "this" {
  vpc_id = "vpc-1"
}
resource "aws_db_instance" "a" { instance_class = resource.aws_vpc_endpoint.this.id }
resource "aws_db_instance" "b" { instance_class = aws_vpc_endpoint.this.id }
'''
    analysis = analysis_of(fixture)
    prefixed = analysis.trace_address("aws_db_instance.a.instance_class")
    plain = analysis.trace_address("aws_db_instance.b.instance_class")
    assert (prefixed.kind, prefixed.unbounded.cause) == (plain.kind, plain.unbounded.cause) == ("unbounded", "apply-time")
    assert prefixed.reason == "depends on an apply-time value (resource.aws_vpc_endpoint.this.id)"
    lines = diagnostics(fixture)
    assert lines[0].endswith("resource.aws_vpc_endpoint.this.id is only known after apply; aws_vpc_endpoint.this is declared at main.tf:1.")


def test_definition_and_references_follow_the_prefixed_form():
    fixture = '''
resource "aws_vpc_endpoint" "this" {
  vpc_id = "vpc-1"
}
output "a" { value = resource.aws_vpc_endpoint.this.id }
output "b" { value = aws_vpc_endpoint.this.id }
'''
    files = parse_fixture(fixture)
    analysis = analysis_of(fixture)
    source = files["main.tf"]
    spans = definition(analysis, "main.tf", source.index(b"resource.aws_vpc_endpoint") + 12)
    assert [source[s.start:s.end] for s in spans] == [b'"this"']
    found = references(analysis, "main.tf", source.index(b'"this"') + 2, True)
    assert [source[s.start:s.end] for s in found] == [b'"this"', b"resource.aws_vpc_endpoint.this", b"aws_vpc_endpoint.this"]


# ---- against terraform validate -----------------------------------------------------------

PREFIXES = ("", "resource.")
NAMES = ("a", "nope")
PLACES = {
    "output": 'output "o" {{ value = {ref} }}',
    "local": 'locals {{ l = {ref} }}\noutput "o" {{ value = local.l }}',
    "argument": 'resource "terraform_data" "b" {{ input = {ref} }}',
}
CASES = list(itertools.product(PREFIXES, NAMES, sorted(PLACES)))


@pytest.mark.parametrize(("prefix", "name", "place"), CASES)
def test_undefined_reference_agrees_with_terraform_validate(tmp_path: Path, prefix: str, name: str, place: str):
    ref = f"{prefix}terraform_data.{name}.output"
    text = 'resource "terraform_data" "a" {\n  input = "x"\n}\n' + PLACES[place].format(ref=ref) + "\n"
    (tmp_path / "main.tf").write_text(text)
    init = run_terraform(["init", "-backend=false", "-input=false", "-no-color"], tmp_path)
    assert init.returncode == 0, init.stderr
    validate = json.loads(run_terraform(["validate", "-json", "-no-color"], tmp_path).stdout)
    terraform_rejects = any("undeclared resource" in d["summary"] for d in validate["diagnostics"])
    tfphi_rejects = any("[undefined-reference]" in line for line in diagnostics(text))
    assert tfphi_rejects == terraform_rejects == (name == "nope"), (validate, diagnostics(text))
