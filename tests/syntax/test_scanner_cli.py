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


HEREDOCS = '''
#- main.tf
variable "env" {
  default = "prod"
}

resource "aws_instance" "web" {
  # Terraform: "prod\\n" (the line's four spaces are the smallest indentation)
  user_data = <<-EOT
    ${var.env}
    EOT
  # Terraform: "      a\\nprod\\n" (a line starting with an interpolation counts as no indentation)
  ami = <<-EOT
      a
${var.env}
    EOT
}
'''


def test_flush_heredocs(tmp_path, monkeypatch, capsys):
    # Before: user_data kept its four spaces ("    prod\n").
    commands = [["trace", ".", f"aws_instance.web.{f}"] for f in ("user_data", "ami")]
    check_snapshot(SNAPSHOTS / "flush_heredocs.txt", run_commands(HEREDOCS, commands, tmp_path, monkeypatch, capsys))


DIRECTIVES = '''
#- main.tf
variable "on" {
  type = bool
}

variable "names" {
  default = ["a", "b"]
}

resource "aws_instance" "web" {
  ami       = "ami-%{ if var.on }on%{ else }off%{ endif }"
  user_data = <<-EOT
    %{~ for i, n in var.names ~}
    ${i}=${n}
    %{~ endfor ~}
    EOT
}
'''


def test_template_directives(tmp_path, monkeypatch, capsys):
    # Before: both Unbounded ("template directives (%{ if }/%{ for }) are not traced").
    commands = [["trace", ".", f"aws_instance.web.{f}"] for f in ("ami", "user_data")] + [["trace", ".", "aws_instance.web.ami", "--json"]]
    check_snapshot(SNAPSHOTS / "directives.txt", run_commands(DIRECTIVES, commands, tmp_path, monkeypatch, capsys))


SPLATS = '''
#- main.tf
variable "big" {
  type = bool
}

module "replica" {
  source = "./replica"
  count  = var.big ? 2 : 1
  name   = "r${count.index}"
}

resource "aws_db_instance" "main" {
  replicate_source_db = module.replica[0].id
  tags = {
    replicas = join(",", module.replica[*].id)
  }
}
#- replica/main.tf
variable "name" {
  type = string
}

output "id" {
  value = "db-${var.name}"
}
'''


def test_module_instance_splats(tmp_path, monkeypatch, capsys):
    # Before: tags Unbounded ("the list of module.replica's instances is not traced").
    commands = [["trace", ".", f"aws_db_instance.main.{f}"] for f in ("replicate_source_db", "tags")]
    check_snapshot(SNAPSHOTS / "module_splats.txt", run_commands(SPLATS, commands, tmp_path, monkeypatch, capsys))


ESCAPES = r'''
#- main.tf
resource "aws_instance" "web" {
  # Terraform: "é😀 ${x} %{y} \\ \t$${x} %%{ if true }" (JSON); "e\u0301" in Unicode normal form C
  user_data = "\u00e9\U0001F600 $${x} %%{y} \\ \t$$${x} %%%{ if true }"
  ami       = "e\u0301"
}
#- broken/main.tf
resource "aws_instance" "web" {
  user_data = "\q"
  ami       = "\ud800"
}
'''


def test_string_escapes(tmp_path, monkeypatch, capsys):
    commands = [["trace", ".", "aws_instance.web.user_data", "--json"], ["trace", ".", "aws_instance.web.ami"], ["check", "broken"]]
    check_snapshot(SNAPSHOTS / "escapes.txt", run_commands(ESCAPES, commands, tmp_path, monkeypatch, capsys))
