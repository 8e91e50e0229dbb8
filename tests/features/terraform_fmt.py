"""The real ``terraform fmt`` for the feature tests (no provider, no network)."""

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


def run_terraform(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    rc = cwd / ".empty.tfrc"
    rc.touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
    env.update(TF_CLI_CONFIG_FILE=str(rc), TF_IN_AUTOMATION="1", TF_INPUT="0", CHECKPOINT_DISABLE="1")
    return subprocess.run([terraform_binary(), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def write_files(root: Path, files: dict[str, bytes]) -> Path:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root
