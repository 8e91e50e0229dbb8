"""``tfphi trace``/``check`` on small workspaces for each literal and template defect of issue 22
(number literals with an exponent, flush heredocs, template directives, splats over module
instances): whole-output snapshots, written by ``TFPHI_UPDATE_SNAPSHOTS=1``."""

from __future__ import annotations

from pathlib import Path

import pytest

from phi_fixture import write_fixture
from snapshots import check_snapshot
from tfphi.cli import main

SNAPSHOTS = Path(__file__).parent / "snapshots"


def run_commands(fixture: str, commands: list[list[str]], tmp_path: Path, monkeypatch, capsys) -> str:
    """Each command's output and exit code, as a terminal shows them, run in the fixture's folder."""
    write_fixture(fixture, tmp_path)
    monkeypatch.chdir(tmp_path)
    out = []
    for command in commands:
        capsys.readouterr()
        code = main(command)
        printed = capsys.readouterr()
        out.append(f"$ tfphi {' '.join(command)}\n{printed.out}{printed.err}[exit {code}]\n")
    return "\n".join(out)


EXPONENTS = '''
#- main.tf
variable "big" {
  type = bool
}

resource "aws_ebs_volume" "v" {
  iops       = 3e3
  size       = var.big ? 1e3 : 2.5E2
  throughput = 1e+2
  type       = "gp${1E0 + 2}"
}
'''


def test_number_literals_with_an_exponent(tmp_path, monkeypatch, capsys):
    # Before the scanner: iops was Resolved 3, `size` a syntax error (e3 is not declared) and
    # `type` named no field.
    commands = [["check", "."]] + [["trace", ".", f"aws_ebs_volume.v.{f}"] for f in ("iops", "size", "throughput", "type")]
    check_snapshot(SNAPSHOTS / "exponents.txt", run_commands(EXPONENTS, commands, tmp_path, monkeypatch, capsys))
