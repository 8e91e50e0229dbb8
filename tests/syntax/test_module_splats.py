"""``module.x[*].out``, ``module.x[0].out`` and ``module.x["k"].out`` over module instances
(issue 22 defect 10), against ``terraform plan`` for each value of the root variable."""

from __future__ import annotations

from phi_fixture import write_fixture
from terraform_cli import terraform_binary
from terraform_support import Terraform
from test_soundness_terraform import same
from tfphi.features.trace_json import to_json
from tfphi.field_lookup import lookup, trace_match
from tfphi.loader import load_workspace

CHILD = '''
#- mod/main.tf
variable "size" {
  type = string
}

output "out" {
  value = "${var.size}-out"
}

output "obj" {
  value = { size = var.size, n = length(var.size) }
}
'''

CALLS = '''
#- calls.tf
variable "big" {
  type = bool
}

module "c" {
  source = "./mod"
  count  = var.big ? 3 : 1
  size   = "s${count.index}"
}

module "none" {
  source = "./mod"
  count  = 0
  size   = "never"
}

module "f" {
  source   = "./mod"
  for_each = { a = "x", b = var.big ? "y" : "z" }
  size     = each.value
}

module "one" {
  source = "./mod"
  size   = "solo"
}
'''

# Expressions Terraform plans; each is an output and a traced field.
PLANNED = {
    "splat": "module.c[*].out",
    "legacy_splat": "module.c.*.out",
    "first": "module.c[0].out",
    "keyed": 'module.f["b"].out',
    "single": "module.one[*].out",
    "empty": "module.none[*].out",
    "attributes": "module.c[*].obj.size",
    "length": "length(module.c[*].out)",
    "joined": 'join(",", module.c[*].obj.n)',
}
# Expressions Terraform rejects (each alone): tfphi must give no value.
REJECTED = {
    "each_indexed": "module.c[*].out[1]",
    "for_each_splat": "module.f[*].out",
}


def fixture(expressions: dict[str, str]) -> str:
    fields = "".join(f'resource "terraform_data" "{name}" {{\n  input = {text}\n}}\n\n'
                     f'output "{name}" {{\n  value = {text}\n}}\n\n' for name, text in expressions.items())
    return CHILD + CALLS + "#- main.tf\n" + fields


def traced(root, name: str, big: bool):
    analysis = load_workspace(root)
    return trace_match(analysis, lookup(analysis, f"terraform_data.{name}.input", "."), assignment={"big": big})


def test_module_splats_agree_with_terraform_plan(tmp_path):
    terraform = Terraform(terraform_binary(), tmp_path)
    root = write_fixture(fixture(PLANNED), tmp_path / "root")
    terraform.init(root)
    analysis = load_workspace(root)
    wrong = []
    for big in (True, False):
        plan = terraform.plan_json(root, ["-var", f"big={str(big).lower()}"])
        outputs = plan["planned_values"]["outputs"]
        for name in PLANNED:
            result = trace_match(analysis, lookup(analysis, f"terraform_data.{name}.input", "."), assignment={"big": big})
            theirs = outputs[name]["value"]
            if result.kind != "resolved" or not same(to_json(result.branches[0].value), theirs):
                wrong.append(f"big={big} {PLANNED[name]}: Terraform {theirs!r}, tfphi {result.kind} {result.reason or [to_json(b.value) for b in result.branches]}")
    assert wrong == []


def test_module_splats_terraform_rejects_get_no_value(tmp_path):
    terraform = Terraform(terraform_binary(), tmp_path)
    for name, text in REJECTED.items():
        root = write_fixture(fixture({name: text}), tmp_path / name)
        terraform.init(root)
        done = terraform.run(root, "plan", "-no-color", "-lock=false", "-var", "big=true", check=False)
        assert done.returncode != 0, text
        analysis = load_workspace(root)
        result = trace_match(analysis, lookup(analysis, f"terraform_data.{name}.input", "."))
        assert result.kind == "unbounded", (text, result)
