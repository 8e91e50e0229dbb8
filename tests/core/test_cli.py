"""The ``tfphi`` command as a subprocess: exit codes, formats, JSON shapes (SPEC section 1)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from phi_fixture import run_cli, write_fixture

SEED = '''
#- main.tf
variable "customer_env" {
  type = string
}

locals {
  instance_class = "db.t3.micro"
}

module "database" {
  source         = "./modules/postgres"
  engine_version = var.customer_env == "prod" ? "15.4" : "14.9"
  instance_class = local.instance_class
}
#- modules/postgres/main.tf
variable "engine_version" { type = string }
variable "instance_class" { type = string }

resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = var.instance_class
}
'''

WARN = '''
#- variables.tf
variable "postgres_version" {
  type = string
}
#- main.tf
resource "aws_db_instance" "app" {
  engine         = "postgres"
  engine_version = var.postgres_version
}
'''

ERROR = '''
#- main.tf
locals { a = var.nope }
'''


@pytest.fixture
def seed(tmp_path):
    return write_fixture(SEED, tmp_path / "seed")


@pytest.fixture
def warn(tmp_path):
    return write_fixture(WARN, tmp_path / "warn")


@pytest.fixture
def error(tmp_path):
    return write_fixture(ERROR, tmp_path / "error")


def test_trace_json_shape(seed):
    proc = run_cli("trace", str(seed), "module.database.aws_db_instance.app.engine_version", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data) == ["root", "address", "kind", "exists", "branches", "selector", "reason", "deployments"]
    assert data["root"] == os.path.relpath(seed) and data["deployments"] == []
    assert data["address"] == "module.database.aws_db_instance.app.engine_version"
    assert data["kind"] == "bounded"
    assert data["selector"] == 'var.customer_env == "prod"'
    assert data["reason"] is None
    first, second = data["branches"]
    assert list(first) == ["value", "condition", "gate", "instance", "trace", "source"]
    assert first["value"] == "15.4"
    assert first["condition"] == 'Existing(var.customer_env == "prod")'
    assert first["gate"] == 'var.customer_env == "prod"'
    assert first["trace"] == [
        "Field aws_db_instance.app.engine_version",
        "NameRef var.engine_version",
        "ModCall module.database argument engine_version",
        "ConditionalExpr true arm",
        'Prim "15.4"',
    ]
    assert first["source"] == "main.tf:11:49"
    assert second["value"] == "14.9"
    assert second["condition"] == 'Not(Existing(var.customer_env == "prod"))'
    assert second["gate"] == 'var.customer_env != "prod"'
    assert second["source"] == "main.tf:11:58"


def test_trace_json_resolved_and_unbounded(seed, warn):
    data = json.loads(run_cli("trace", str(seed), "module.database.aws_db_instance.app.instance_class", "--json").stdout)
    assert data["kind"] == "resolved"
    assert data["branches"][0]["value"] == "db.t3.micro"
    assert data["branches"][0]["condition"] == "true" and data["branches"][0]["gate"] is None
    assert data["selector"] is None
    data = json.loads(run_cli("trace", str(warn), "aws_db_instance.app.engine_version", "--json").stdout)
    assert data["kind"] == "unbounded" and data["branches"] == []
    assert data["reason"] == "var.postgres_version has no default value, and no validation block lists the allowed values"


def test_trace_universe_flag(warn):
    proc = run_cli("trace", str(warn), "aws_db_instance.app.engine_version", "--json", "--universe", "14.9,15.4")
    data = json.loads(proc.stdout)
    assert [(b["value"], b["condition"], b["gate"]) for b in data["branches"]] == [
        ("14.9", 'Eq(var.postgres_version, "14.9")', 'var.postgres_version == "14.9"'),
        ("15.4", 'Eq(var.postgres_version, "15.4")', 'var.postgres_version == "15.4"'),
    ]


DEPLOYED = SEED + '''#- terraform.tfvars
customer_env = "prod"
#- env/dev.tfvars
customer_env = "dev"
#- env/partial.tfvars
other = 1
'''


def test_trace_text(seed, warn, tmp_path):
    proc = run_cli("trace", str(seed), "module.database.aws_db_instance.app.engine_version")
    assert proc.returncode == 0
    assert proc.stdout.decode() == '''module.database.aws_db_instance.app.engine_version: bounded, 2 values (selector: var.customer_env == "prod")

  VALUE   WHEN
  "15.4"  var.customer_env == "prod"
  "14.9"  var.customer_env != "prod"

trace of "15.4" (from main.tf:11:49):
  var.engine_version
  ← module.database passes engine_version (main.tf:11:3)
  ← true arm of var.customer_env == "prod"
  ← "15.4"

trace of "14.9" (from main.tf:11:58):
  var.engine_version
  ← module.database passes engine_version (main.tf:11:3)
  ← false arm of var.customer_env == "prod"
  ← "14.9"
'''
    proc = run_cli("trace", str(write_fixture(DEPLOYED, tmp_path / "deployed")), "module.database.aws_db_instance.app.engine_version")
    assert proc.returncode == 0
    assert proc.stdout.decode().split("\n\n")[-1] == '''deployments (each sets the root's variables; they do not narrow the trace):
  env/dev.tfvars      "14.9"
  env/partial.tfvars  "15.4"
  terraform.tfvars    "15.4"
'''
    proc = run_cli("trace", str(warn), "aws_db_instance.app.engine_version")
    assert proc.returncode == 0
    assert proc.stdout.decode() == '''aws_db_instance.app.engine_version: unbounded
  why: var.postgres_version has no default value, and no validation block lists the allowed values
  blocked by: var.postgres_version (declared at variables.tf:1:10)
  fix (any one works):
    1. constrain var.postgres_version with a validation block: condition = contains(["value1", "value2"], var.postgres_version) (usually the right choice: every listed value gets its own specialization).
    2. give var.postgres_version a default.
    3. hardcode engine_version if it does not need to be configurable.
'''


def test_trace_exit_codes(seed, tmp_path):
    assert run_cli("trace", str(seed), "module.database.aws_db_instance.app.nope").returncode == 2
    assert run_cli("trace", str(seed), "aws_db_instance.app.engine_version").returncode == 2  # no such resource at the root
    assert run_cli("trace", str(tmp_path / "missing"), "a.b.c").returncode == 2
    assert run_cli("trace", str(seed)).returncode == 2


def test_check_exit_codes(seed, warn, error, tmp_path):
    assert run_cli("check", str(seed)).returncode == 0
    assert run_cli("check", str(warn)).returncode == 0  # a warning is below the default fail-on (error)
    assert run_cli("check", str(warn), "--fail-on", "warning").returncode == 1
    assert run_cli("check", str(error)).returncode == 1
    assert run_cli("check", str(error), "--fail-on", "never").returncode == 0
    assert run_cli("check", str(tmp_path / "missing")).returncode == 2
    assert run_cli("check", str(seed), "--format", "yaml").returncode == 2
    assert run_cli("check", str(seed), "--fail-on", "sometimes").returncode == 2


def test_check_default_dir_is_cwd(error):
    assert run_cli("check", cwd=error).returncode == 1


def test_check_json_shape(warn):
    proc = run_cli("check", str(warn), "--format", "json")
    data = json.loads(proc.stdout)
    assert list(data) == ["diagnostics"]
    (d,) = data["diagnostics"]
    assert list(d) == ["file", "range", "severity", "code", "message", "roots", "related"]
    assert d["roots"] == ["."]
    assert d["file"] == "main.tf"
    assert d["range"] == {"start": {"line": 3, "column": 20}, "end": {"line": 3, "column": 40}}
    assert d["severity"] == "warning" and d["code"] == "unbounded-field"
    assert d["message"].startswith("can't determine the value of engine_version")
    assert d["related"] == [{"file": "variables.tf", "line": 1, "message": "var.postgres_version is declared here"}]


def test_check_text_format(error):
    out = run_cli("check", str(error)).stdout.decode()
    assert out == "main.tf:1:14: error[undefined-reference]: undefined reference to var.nope: no variable block declares it\n"


def test_check_sarif(warn, error):
    data = json.loads(run_cli("check", str(warn), "--format", "sarif").stdout)
    assert data["version"] == "2.1.0"
    run = data["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rules == ["syntax-error", "undefined-reference", "unbounded-field", "unsupported-value", "missing-argument",
                     "duplicate-declaration", "undeclared-variable", "module-not-installed", "config-error"]
    (result,) = run["results"]
    assert result["ruleId"] == "unbounded-field" and rules[result["ruleIndex"]] == "unbounded-field"
    assert result["level"] == "warning"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 20, "endLine": 3, "endColumn": 40}
    assert run_cli("check", str(error), "--format", "sarif").returncode == 1


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_check_output_is_byte_identical_across_runs(tmp_path, fmt):
    fixture = WARN + ERROR.replace("#- main.tf", "#- other.tf") + '''
#- modules/x/main.tf
resource "aws_db_instance" "b" {
  engine_version = var.missing
}
locals { z = 0x10 }
'''
    root = write_fixture(fixture, tmp_path / "ws")
    first = run_cli("check", str(root), "--format", fmt)
    second = run_cli("check", str(root), "--format", fmt)
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout and first.stdout


def test_trace_output_is_byte_identical_across_runs(seed):
    args = ("trace", str(seed), "module.database.aws_db_instance.app.engine_version", "--json")
    assert run_cli(*args).stdout == run_cli(*args).stdout


def test_check_reports_unreadable_files_and_analyses_the_rest(tmp_path):
    root = write_fixture(ERROR, tmp_path / "ws")
    (root / "bad.tf").write_bytes(b"\xff\xfe")
    data = json.loads(run_cli("check", str(root), "--format", "json").stdout)
    assert [(d["file"], d["code"]) for d in data["diagnostics"]] == [("bad.tf", "syntax-error"), ("main.tf", "undefined-reference")]


def test_check_reports_an_argument_set_twice_in_a_nested_block(tmp_path):
    """Terraform rejects the file ("Attribute redefined", at the second name); tree-sitter-hcl reads
    it without an error: a syntax error in every format, and the exit code of an error."""
    twice = SEED.replace('  instance_class = var.instance_class\n}', '  instance_class = var.instance_class\n\n'
                         '  lifecycle {\n    ignore_changes = []\n    ignore_changes = [engine_version]\n  }\n}')
    root = write_fixture(twice, tmp_path / "ws")
    proc = run_cli("check", str(root))
    assert proc.returncode == 1
    assert proc.stdout.decode() == (
        "modules/postgres/main.tf:11:5: error[syntax-error]: syntax error: attribute redefined: the argument "
        "'ignore_changes' was already set; each argument may be set only once\n")
    sarif = json.loads(run_cli("check", str(root), "--format", "sarif").stdout)
    [result] = sarif["runs"][0]["results"]
    assert result["ruleId"] == "syntax-error" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 11, "startColumn": 5, "endLine": 11, "endColumn": 19}


def test_check_broken_config(tmp_path):
    root = write_fixture('#- .tfphi.toml\n[limits\n#- main.tf\nlocals {}\n', tmp_path / "ws")
    proc = run_cli("check", str(root), "--format", "json")
    assert proc.returncode == 1
    assert [d["code"] for d in json.loads(proc.stdout)["diagnostics"]] == ["config-error"]


def test_module_entry_point_and_version():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.decode().startswith("tfphi ")
    assert run_cli().returncode == 2
    assert sys.executable


def test_specialize_reads_dir_as_its_root_module_like_trace():
    # A root module that its examples call: DIR holds .tf files, so DIR is the root (SPEC 1).
    # Before, specialize looked the address up in its own way and said "names no field" where
    # trace answered.
    repo = Path(__file__).resolve().parents[1] / "workspace" / "repos" / "rds-like"
    address = "module.db_instance.aws_db_instance.this.engine_version"
    trace = run_cli("trace", str(repo), address, "--json")
    specialize = run_cli("specialize", str(repo), address, "--json")
    assert (trace.returncode, specialize.returncode) == (0, 0), specialize.stderr
    traced, [specialization] = json.loads(trace.stdout), json.loads(specialize.stdout)
    assert [b["value"] for b in traced["branches"]] == [specialization["branch_value"]] == [None]
    assert specialization["address"] == "module.db_instance.module.this_null"
    # and an address that names nothing is the same usage error from both
    bad = "module.db_instance.aws_db_instance.nope.engine_version"
    assert run_cli("specialize", str(repo), bad).stderr == run_cli("trace", str(repo), bad).stderr == (
        f"tfphi: error: {bad} names no field in {repo}\n").encode()
