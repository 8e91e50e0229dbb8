"""The workspace model against the real Terraform: roots that call ``../../modules/*`` (which call
``./inner``), in native and JSON syntax, each with variable files as deployments.

For every root and deployment, ``tfphi trace <root> ... --json`` gives the value the field takes
under the deployment, and ``terraform console -plan`` run in the root as the deployment says
(``-var-file=...``, or plainly) gives Terraform's: they must be equal. A deployment that leaves a
variable with a default and a validation unset (``size`` under ``terraform.tfvars``) takes the
default, as Terraform does, not the values the validation allows.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from phi_fixture import run_cli, write_fixture
from terraform_cli import terraform_binary
from terraform_support import Terraform

REPO = {
    "modules/m/main.tf": b'''variable "v" {
  type = string
}

variable "size" {
  type    = number
  default = 1
}

module "inner" {
  source = "./inner"
  w      = "${var.v}-${var.size > 1 ? "large" : "small"}"
}

output "out" {
  value = module.inner.out
}
''',
    "modules/m/inner/main.tf": b'''variable "w" {
  type = string
}

resource "terraform_data" "x" {
  input = upper(var.w)
}

output "out" {
  value = terraform_data.x.input
}
''',
    "envs/native/main.tf": b'''variable "env" {
  type = string
}

variable "size" {
  type    = number
  default = 1
  validation {
    condition     = contains([1, 2, 3], var.size)
    error_message = "1, 2 or 3"
  }
}

module "m" {
  source = "../../modules/m"
  v      = var.env
  size   = var.size
}

output "out" {
  value = module.m.out
}
''',
    "envs/native/terraform.tfvars": b'env = "prod"\n',
    "envs/native/env/dev.tfvars": b'env = "dev"\nsize = 2\n',
    "envs/native/env/qa.tfvars.json": b'{"size": 3}\n',
    "envs/json/main.tf.json": b'''{
  "variable": {"env": {"type": "string"}, "size": {"type": "number", "default": 1}},
  "module": {"m": {"source": "../../modules/m", "v": "${var.env}-json", "size": "${var.size}"}},
  "output": {"out": {"value": "${module.m.out}"}}
}
''',
    "envs/json/prod.auto.tfvars.json": b'{"env": "prod"}\n',
    "envs/json/env/big.tfvars": b'size = 5\n',
}
FIELD = "module.m.module.inner.terraform_data.x.input"


def _terraform_value(terraform: Terraform, root: Path, deployment: str, plain: bool):
    args = ["console", "-plan"] if plain else ["console", "-plan", f"-var-file={deployment}"]
    done = subprocess.run([terraform.binary, *args], cwd=root, env=terraform.env, input="jsonencode(module.m.out)\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(json.loads(done.stdout.strip()))


def test_roots_and_deployments_agree_with_terraform(tmp_path: Path):
    terraform = Terraform(terraform_binary(), tmp_path)
    repo = write_fixture(REPO, tmp_path / "repo")
    seen = 0
    for name, auto in (("native", "terraform.tfvars"), ("json", "prod.auto.tfvars.json")):
        root = repo / "envs" / name
        terraform.init(root)
        check = run_cli("check", str(root), "--format", "json")
        assert json.loads(check.stdout)["diagnostics"] == [], check.stdout  # nothing "outside the workspace"
        data = json.loads(run_cli("trace", str(root), FIELD, "--json").stdout)
        for deployment in data["deployments"]:
            expected = _terraform_value(terraform, root, deployment["file"], deployment["file"] == auto)
            assert deployment["value"] == expected, (name, deployment)
            seen += 1
    assert seen == 5
    # at the repository, the address is in both roots: a usage error naming them
    proc = run_cli("trace", str(repo / "envs"), FIELD)
    assert proc.returncode == 2 and b"exists under 2 root modules" in proc.stderr
