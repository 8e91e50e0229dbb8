"""Running the real Terraform offline: no CLI configuration, no network, no provider download.

Configurations here use only variables, locals, outputs, local module calls and the built-in
``terraform_data`` resource, so ``terraform init -backend=false`` installs nothing and every
command runs locally. Without ``terraform`` on PATH the tests skip with an install hint, except
under ``CI=true`` where a missing oracle is a failure, not a pass.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from terraform_cli import terraform_env


class Terraform:
    """``terraform`` with an empty CLI configuration, no prompts and no update checks."""

    def __init__(self, binary: str, scratch: Path):
        self.binary = binary
        self.env = terraform_env(scratch)

    def run(self, cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run([self.binary, *args], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"terraform {' '.join(args)} in {cwd} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        return done

    def init(self, cwd: Path) -> None:
        self.run(cwd, "init", "-backend=false", "-no-color")

    def validate(self, cwd: Path) -> dict:
        return json.loads(self.run(cwd, "validate", "-json", "-no-color", check=False).stdout)

    def fmt_check(self, cwd: Path) -> list[str]:
        """Files ``terraform fmt -check -recursive`` would change (empty when all are formatted)."""
        done = self.run(cwd, "fmt", "-check", "-recursive", "-list=true", "-no-color", check=False)
        return [line for line in done.stdout.splitlines() if line.strip()]

    def apply(self, cwd: Path, var_args: list[str]) -> None:
        self.run(cwd, "apply", "-auto-approve", "-no-color", "-lock=false", *var_args)

    def plan_json(self, cwd: Path, var_args: list[str]) -> dict:
        self.run(cwd, "plan", "-no-color", "-lock=false", "-out=tfphi.tfplan", *var_args)
        return json.loads(self.run(cwd, "show", "-json", "-no-color", "tfphi.tfplan").stdout)
