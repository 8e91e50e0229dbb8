"""Deployments (SPEC section 2): a root's variable files, layered in Terraform's precedence.

The real Terraform is the oracle: for each deployment tfphi finds, ``terraform console`` run the
way the deployment says (``-var-file=<file>``, or a plain run) prints the same variable values.
"""

from __future__ import annotations

import json
from pathlib import Path

from phi_fixture import analysis_of, run_cli, write_fixture
from terraform_cli import terraform_binary
from terraform_support import Terraform

from tfphi.loader import load_workspace
from tfphi.stir.deployments import deployment_values, files_of_root, root_deployments, variable_values

LAYERED = {
    "main.tf": b'''variable "a" {
  type    = string
  default = "default"
}

variable "b" {
  type    = string
  default = "default"
}

variable "c" {
  type    = string
  default = "default"
}

variable "cfg" {
  type    = object({ size = number, tags = list(string) })
  default = { size = 0, tags = [] }
}
''',
    "terraform.tfvars": b'a = "tfvars"\nb = "tfvars"\nc = "tfvars"\n',
    "terraform.tfvars.json": b'{"b": "tfvars.json", "c": "tfvars.json"}\n',
    "z.auto.tfvars": b'c = "z.auto"\n',
    "a.auto.tfvars.json": b'{"c": "a.auto.json", "cfg": {"size": 2, "tags": ["x"]}}\n',
    "staging.tfvars": b'a = "staging"\ncfg = { size = 3, tags = ["s", "t"] }\n',
    "env/prod.tfvars": b'a = "prod"\nc = "prod"\n',
    "env/dev.tfvars.json": b'{"//": "dev", "b": "dev"}\n',
    "env/nested/qa.tfvars": b'a = "qa"\n',
    "modules/x/main.tf": b'variable "m" {\n  default = 1\n}\n',
    "modules/x/own.tfvars": b'm = 2\n',  # a file next to another module is that module's, not the root's
}


def test_files_and_names_follow_terraform():
    analysis = analysis_of(LAYERED)
    assert files_of_root("", analysis.tfvars, analysis.modules) == [
        "a.auto.tfvars.json", "env/dev.tfvars.json", "env/nested/qa.tfvars", "env/prod.tfvars",
        "staging.tfvars", "terraform.tfvars", "terraform.tfvars.json", "z.auto.tfvars",
    ]
    auto = ("terraform.tfvars", "terraform.tfvars.json", "a.auto.tfvars.json", "z.auto.tfvars")
    assert [(d.name, d.files) for d in root_deployments(analysis, "")] == [
        ("env/dev.tfvars.json", auto + ("env/dev.tfvars.json",)),
        ("env/nested/qa.tfvars", auto + ("env/nested/qa.tfvars",)),
        ("env/prod.tfvars", auto + ("env/prod.tfvars",)),
        ("staging.tfvars", auto + ("staging.tfvars",)),
        ("terraform.tfvars", auto),
    ]
    assert [d for d in root_deployments(analysis, "modules/x")][0].assignment == {"m": 2}


def test_values_offered_to_fixes():
    analysis = analysis_of(LAYERED)
    assert [(d.name, v) for d, v in deployment_values(analysis, "", "a")] == [
        ("env/dev.tfvars.json", "tfvars"), ("env/nested/qa.tfvars", "qa"), ("env/prod.tfvars", "prod"),
        ("staging.tfvars", "staging"), ("terraform.tfvars", "tfvars"),
    ]
    assert variable_values(analysis, "", "a") == ["tfvars", "qa", "prod", "staging"]


def test_without_auto_loaded_files_each_file_is_a_deployment_alone():
    analysis = analysis_of({"main.tf": b'variable "v" {}\n', "env/a.tfvars": b'v = 1\n', "env/b.tfvars": b'v = 2\n'})
    assert [(d.name, d.files, dict(d.assignment)) for d in root_deployments(analysis, "")] == [
        ("env/a.tfvars", ("env/a.tfvars",), {"v": 1}), ("env/b.tfvars", ("env/b.tfvars",), {"v": 2}),
    ]
    only_auto = analysis_of({"main.tf": b'variable "v" {}\n', "b.auto.tfvars": b'v = 1\n', "a.auto.tfvars": b'v = 2\n'})
    assert [(d.name, dict(d.assignment)) for d in root_deployments(only_auto, "")] == [("a.auto.tfvars", {"v": 1})]


def test_a_subfolder_with_module_files_is_not_a_deployment_folder():
    analysis = analysis_of({"main.tf": b'variable "v" {}\n', "sub/main.tf": b'variable "w" {}\n', "sub/x.tfvars": b'w = 1\n'})
    assert root_deployments(analysis, "") == ()
    assert [d.name for d in root_deployments(analysis, "sub")] == ["x.tfvars"]


def test_layering_is_terraforms(tmp_path: Path):
    terraform = Terraform(terraform_binary(), tmp_path)
    root = write_fixture(LAYERED, tmp_path / "root")
    expression = "jsonencode({a = var.a, b = var.b, c = var.c, cfg = var.cfg})"
    defaults = {"a": "default", "b": "default", "c": "default", "cfg": {"size": 0, "tags": []}}
    deployments = root_deployments(load_workspace(root), "")
    assert len(deployments) == 5
    for deployment in deployments:
        args = ["console"] if deployment.name == "terraform.tfvars" else ["console", f"-var-file={deployment.name}"]
        assert json.loads(json.loads(_console(terraform, root, expression, args))) == {**defaults, **deployment.assignment}, deployment.name


def _console(terraform: Terraform, cwd: Path, expression: str, args: list[str]) -> str:
    import subprocess

    done = subprocess.run([terraform.binary, *args], cwd=cwd, env=terraform.env, input=expression + "\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_trace_json_shows_each_deployments_value(tmp_path: Path):
    root = write_fixture({
        "main.tf": b'''variable "env" {
  type = string
}

resource "aws_db_instance" "app" {
  engine_version = var.env == "prod" ? "16.2" : "15.4"
}
''',
        "env/prod.tfvars": b'env = "prod"\n',
        "env/dev.tfvars": b'env = "dev"\n',
        "env/unset.tfvars": b'other = 1\n',
    }, tmp_path / "ws")
    data = json.loads(run_cli("trace", str(root), "aws_db_instance.app.engine_version", "--json").stdout)
    assert data["deployments"] == [
        {"file": "env/dev.tfvars", "value": "15.4"}, {"file": "env/prod.tfvars", "value": "16.2"},
        {"file": "env/unset.tfvars", "value": None},
    ]
