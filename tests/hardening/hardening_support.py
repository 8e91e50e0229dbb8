"""Shared pieces of the hardening tests: the normal file every hostile workspace keeps beside
the hostile input, the CLI run as a subprocess with its peak memory, and expectations."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RSS_LIMIT = 1536 * 1024 * 1024  # 1.5 GB: generous; a leak or an unbounded read blows far past it
CLI_TIMEOUT = 300.0  # only to catch hangs

# The file that must still be analysed beside any hostile input: one unbounded registered
# field (var.v has no default) and one undefined reference.
NORMAL_TF = """variable "v" {}

resource "aws_db_instance" "ok" {
  engine_version = var.v
}

output "o" {
  value = local.missing_thing
}
"""


def write_normal(root: Path, rel: str = "normal.tf") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(NORMAL_TF)
    return path


def normal_findings_ok(diagnostics: list[dict], rel: str = "normal.tf") -> list[str]:
    """Problems with the normal file's diagnostics (empty when both findings are there)."""
    mine = [d for d in diagnostics if d["file"] == rel]
    problems = []
    if not any(d["code"] == "unbounded-field" and "engine_version" in d["message"] for d in mine):
        problems.append(f"{rel}: the unbounded-field on engine_version is missing")
    if not any(d["code"] == "undefined-reference" and "local.missing_thing" in d["message"] for d in mine):
        problems.append(f"{rel}: the undefined-reference to local.missing_thing is missing")
    return problems


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    max_rss: int  # bytes

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_cli(args: list[str], cwd: Path | None = None, timeout: float = CLI_TIMEOUT, env: dict | None = None) -> Run:
    """``python -m tfphi ARGS`` as a subprocess; its peak RSS comes from ``os.wait4``."""
    full_env = dict(os.environ if env is None else env)
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "server"), full_env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "tfphi", *args], stdout=out, stderr=err, cwd=cwd, env=full_env)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.kill(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                raise AssertionError(f"tfphi {' '.join(args)} did not finish within {timeout} s (a hang)")
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(proc.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                   usage.ru_maxrss * 1024)


def check_json(root: Path, **kwargs) -> tuple[Run, list[dict]]:
    """``tfphi check ROOT --format json --fail-on never``, asserting it ran cleanly and within memory."""
    run = run_cli(["check", str(root), "--format", "json", "--fail-on", "never"], **kwargs)
    assert run.returncode == 0, f"exit {run.returncode}\nstderr:\n{run.stderr[-4000:]}"
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr, run.stderr[-4000:]
    assert run.max_rss < RSS_LIMIT, f"peak RSS {run.max_rss / 2**20:.0f} MiB"
    return run, run.json()["diagnostics"]
