"""The real ``terraform`` for the tests: offline, quiet, with no user configuration."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

INSTALL_HINT = "terraform is not on PATH: install Terraform 1.11 (https://developer.hashicorp.com/terraform/install)"


def terraform_binary() -> str:
    """The ``terraform`` executable; skips with an install hint, fails under ``CI=true``."""
    path = shutil.which("terraform")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(INSTALL_HINT)
        pytest.skip(INSTALL_HINT)
    return path


def terraform_env(scratch: Path) -> dict[str, str]:
    """An environment that keeps Terraform offline and quiet, with an empty CLI configuration
    written into ``scratch`` (the environment's default names a missing one)."""
    config = scratch / ".empty.tfrc"
    config.touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
    env.update(TF_CLI_CONFIG_FILE=str(config), TF_IN_AUTOMATION="1", TF_INPUT="0", CHECKPOINT_DISABLE="1")
    return env


def run_terraform(args: list[str], cwd: Path, stdin: str | None = None, timeout: int = 240) -> subprocess.CompletedProcess:
    return subprocess.run([terraform_binary(), *args], cwd=cwd, input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=terraform_env(cwd))
