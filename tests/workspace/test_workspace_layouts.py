"""The layouts of issue 24 (defects 3, 4, 5 and 7), through the CLI: OpenTofu files, Terragrunt
units, symbolic links, and a DIR with nothing to analyse.

The fixtures are ``layouts/`` (links are made in a temporary copy: a repository holds no
dangling link). Each test failed before this work; what the CLI said then is quoted above it.
Where Terraform can say what a layout means (links), it is the oracle.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from phi_fixture import run_cli
from terraform_cli import terraform_binary
from terraform_support import Terraform

LAYOUTS = Path(__file__).parent / "layouts"
VENDOR_STACK = Path(__file__).resolve().parents[2] / "examples" / "vendor-stack"
MESSAGE_OPENTOFU = "undefined reference to var.engine_version: no variable block declares it"


def _run(*args: str, cwd: Path = LAYOUTS) -> tuple[int, str, str]:
    proc = run_cli(*args, cwd=cwd)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _json(*args: str, cwd: Path = LAYOUTS):
    code, out, err = _run(*args, cwd=cwd)
    return code, json.loads(out or "null"), err


def _summary(data: dict) -> list[tuple]:
    """(file, line, severity, code, roots) of each diagnostic of ``check --format json``."""
    return [(d["file"], d["range"]["start"]["line"], d["severity"], d["code"], d["roots"]) for d in data["diagnostics"]]


# ---- OpenTofu (defect 3) ------------------------------------------------------------------------


def test_a_configuration_of_tofu_files_is_analysed():
    # before: "tfphi: no problems found", exit 0 (no .tofu file was read)
    code, out, err = _run("check", "tofu-only")
    assert (code, err) == (0, "tfphi: 1 warning\n")
    assert out == (
        "main.tofu:3:20: warning[unbounded-field]: can't determine the value of engine_version: var.engine_version has no "
        "default value, and no validation block lists the allowed values; var.engine_version is declared at variables.tofu:1.\n"
        "    aws_db_instance.app.engine_version is set to var.engine_version.\n"
        "    Fix (any one works):\n"
        '      1. constrain var.engine_version with a validation block: condition = contains(["value1", "value2"], '
        "var.engine_version) (usually the right choice: every listed value gets its own specialization).\n"
        "      2. give var.engine_version a default.\n"
        "      3. hardcode engine_version if it does not need to be configurable.\n"
    )
    # the .tofu.json output reads local.class of main.tofu: no undefined reference; the local traces
    code, data, _ = _json("trace", "tofu-only", "aws_db_instance.app.instance_class", "--json")
    assert (code, data["kind"], [(b["value"], b["gate"], b["source"]) for b in data["branches"]]) == (
        0, "bounded", [("db.r6g.large", 'var.env == "prod"', "main.tofu:8:31"), ("db.t4g.small", 'var.env == "dev"', "main.tofu:8:48")])


def test_where_x_tofu_and_x_tf_share_a_name_x_tofu_is_read():
    # before: main.tf and outputs.tf.json were read (main.tofu and outputs.tofu.json were not):
    # two undefined-reference errors on var.terraform_only, exit 1
    code, data, _ = _json("check", "tofu-mixed", "--format", "json")
    assert (code, data) == (0, {"diagnostics": []})
    code, data, _ = _json("trace", "tofu-mixed", "aws_db_instance.app.engine_version", "--json")
    assert (code, data["kind"], data["branches"][0]["value"], data["branches"][0]["source"]) == (0, "resolved", "16.2", "variables.tf:3:13")


def test_engine_terraform_ignores_the_tofu_files():
    # before: "configuration problem: unknown key engine" (config-error), and the .tofu file ignored anyway
    code, data, _ = _json("check", "tofu-engine-terraform", "--format", "json")
    assert (code, data) == (0, {"diagnostics": []})
    code, data, _ = _json("trace", "tofu-engine-terraform", "aws_db_instance.app.engine_version", "--json")
    assert (data["branches"][0]["value"], data["branches"][0]["source"]) == ("15.4", "variables.tf:3:13")


def test_engine_opentofu_reads_main_tofu_where_a_tf_file_has_the_same_name(tmp_path: Path):
    shutil.copytree(LAYOUTS / "tofu-engine-terraform", tmp_path / "stack")
    (tmp_path / "stack" / ".tfphi.toml").write_text('engine = "opentofu"\n')
    code, data, _ = _json("check", "stack", "--format", "json", cwd=tmp_path)
    assert (code, _summary(data)) == (1, [("main.tofu", 4, "error", "undefined-reference", ["."])])
    assert data["diagnostics"][0]["message"] == MESSAGE_OPENTOFU


def test_the_vendor_stack_with_main_tofu_is_the_vendor_stack(tmp_path: Path):
    # before: two false undefined-reference errors (module.database and module.cache were not
    # called: main.tofu was not read) and the modules were separate roots
    stack = tmp_path / "vendor-stack"
    shutil.copytree(VENDOR_STACK, stack)
    code, expected, _ = _json("check", "vendor-stack", "--format", "json", cwd=tmp_path)
    (stack / "main.tf").rename(stack / "main.tofu")
    code_tofu, renamed, _ = _json("check", "vendor-stack", "--format", "json", cwd=tmp_path)
    assert code_tofu == code
    assert json.dumps(renamed).replace("main.tofu", "main.tf") == json.dumps(expected)
    assert {tuple(d["roots"]) for d in renamed["diagnostics"]} == {(".",)}


# ---- Terragrunt units (defect 4) --------------------------------------------------------------


def test_a_folder_of_units_is_its_units_modules_each_unit_one_deployment():
    # before: "tfphi: no problems found", exit 0, and trace "names no field"
    code, data, err = _json("check", "terragrunt/live", "--format", "json")
    assert code == 0
    assert _summary(data) == [
        ("../modules/db/main.tf", 21, "warning", "unbounded-field", ["../modules/db"]),
        ("dev/terragrunt.hcl", 2, "information", "module-not-installed", []),
    ]
    # the fix offers the units' values, not placeholders
    assert 'contains(["15.4", "14.9", "16.2"], var.engine_version)' in data["diagnostics"][0]["message"]
    assert data["diagnostics"][1]["message"] == (
        "dev/terragrunt.hcl deploys 'git::https://example.com/acme/modules.git//db?ref=v1.2.0', a non-local source that "
        "Terragrunt downloads when it runs; tfphi reads no download, so this unit is opaque")
    deployments = {}
    for field in ("engine_version", "instance_class", "multi_az"):
        code, data, _ = _json("trace", "terragrunt/live", f"aws_db_instance.this.{field}", "--json")
        assert (code, data["root"]) == (0, "terragrunt/modules/db")
        deployments[field] = data["deployments"]
    assert deployments == {
        # prod: its own input; qa: root.hcl's local through the parent's inputs; stage: get_env's default
        "engine_version": [{"file": "prod", "value": "15.4"}, {"file": "qa", "value": "14.9"}, {"file": "stage", "value": "16.2"}],
        # prod: a template of its own local; qa: get_env without a default (unknown); stage: the parent
        # terragrunt.hcl that find_in_parent_folders() finds
        "instance_class": [{"file": "prod", "value": "db.r6g.large"}, {"file": "qa", "value": None},
                           {"file": "stage", "value": "db.t4g.medium"}],
        # root.hcl says false, the module's ha.auto.tfvars says true: the variable file wins (TF_VAR_ semantics)
        "multi_az": [{"file": "prod", "value": True}, {"file": "qa", "value": True}, {"file": "stage", "value": True}],
    }


def test_a_units_folder_is_the_module_it_deploys_with_that_one_deployment():
    # before: "tfphi: no problems found", exit 0
    code, out, err = _run("trace", "terragrunt/live/prod", "aws_db_instance.this.engine_version")
    assert code == 0
    assert out.startswith("root: terragrunt/modules/db\naws_db_instance.this.engine_version: unbounded\n")
    assert out.endswith(
        "deployments (each sets the root's variables; they do not narrow the trace):\n"
        '  .  "15.4"\n')
    code, data, _ = _json("check", "terragrunt/live/prod", "--format", "json")
    assert (code, _summary(data)) == (0, [("../../modules/db/main.tf", 21, "warning", "unbounded-field", ["../../modules/db"])])
    assert 'contains(["15.4"], var.engine_version)' in data["diagnostics"][0]["message"]


def test_the_repository_root_sees_the_module_and_its_units():
    code, data, _ = _json("check", "terragrunt", "--format", "json")
    assert (code, _summary(data)) == (0, [
        ("live/dev/terragrunt.hcl", 2, "information", "module-not-installed", []),
        ("modules/db/main.tf", 21, "warning", "unbounded-field", ["modules/db"]),
    ])  # .terragrunt-cache is never read: its copy of the module would be a second root with an error
    code, data, _ = _json("trace", "terragrunt", "aws_db_instance.this.instance_class", "--json")
    assert data["deployments"] == [
        {"file": "ha.auto.tfvars", "value": "db.t3.micro"}, {"file": "live/prod", "value": "db.r6g.large"},
        {"file": "live/qa", "value": None}, {"file": "live/stage", "value": "db.t4g.medium"}]


def test_a_unit_with_a_non_local_source_alone_is_nothing_to_analyse():
    # before: "tfphi: no problems found", exit 0
    code, out, err = _run("check", "terragrunt/live/dev")
    assert (code, out) == (2, "")
    assert err == ("tfphi: error: nothing to analyse: terragrunt.hcl deploys "
                   "'git::https://example.com/acme/modules.git//db?ref=v1.2.0', a non-local source that Terragrunt "
                   "downloads when it runs; tfphi reads no download, so this unit is opaque\n")


def test_generate_blocks_write_their_files_into_the_module_the_units_deploy():
    # before: "modules/app/main.tf:4:20: error[undefined-reference]: undefined reference to var.environment"
    # (twice, exit 1): the variable is declared by the common_vars.tf Terragrunt generates
    for dir in ("terragrunt-generate", "terragrunt-generate/envs/prod"):
        code, data, _ = _json("check", dir, "--format", "json")
        assert (code, data) == (0, {"diagnostics": []})
    code, data, _ = _json("trace", "terragrunt-generate", "aws_db_instance.app.engine_version", "--json")
    # the parent picks the module from the unit's folder and the environment from the one above it
    assert data["deployments"] == [{"file": "envs/dev/app", "value": "14.9"}, {"file": "envs/prod/app", "value": "15.4"}]


def test_a_source_under_the_repository_root(tmp_path: Path):
    # get_repo_root(): the git work tree around DIR, found on disk by the loader
    shutil.copytree(LAYOUTS / "terragrunt" / "modules", tmp_path / "modules")
    (tmp_path / ".git").mkdir()
    unit = tmp_path / "live" / "prod"
    unit.mkdir(parents=True)
    (unit / "terragrunt.hcl").write_text('terraform {\n  source = "${get_repo_root()}/modules//db"\n}\n\n'
                                         'inputs = {\n  engine_version = "15.4"\n  region = get_path_from_repo_root()\n}\n')
    code, data, _ = _json("trace", "live/prod", "aws_db_instance.this.engine_version", "--json", cwd=tmp_path)
    assert (code, data["root"], data["deployments"]) == (0, "modules/db", [{"file": ".", "value": "15.4"}])
    code, data, _ = _json("trace", ".", "aws_db_instance.this.engine_version", "--json", cwd=tmp_path)
    assert data["deployments"] == [{"file": "ha.auto.tfvars", "value": None}, {"file": "live/prod", "value": "15.4"}]
    (tmp_path / ".git").rmdir()  # outside a repository (if /tmp is in none): the unit is opaque
    code, out, err = _run("check", "live/prod", cwd=tmp_path)
    assert (code, err) == (2, "tfphi: error: nothing to analyse: terragrunt.hcl: terraform.source cannot be read without "
                              "running Terragrunt (get_repo_root() outside a git repository); the unit is opaque\n")


def test_a_terragrunt_file_that_cannot_be_read_is_a_config_error():
    # before: "tfphi: no problems found", exit 0
    code, out, err = _run("check", "terragrunt-broken/unit")
    assert (code, err) == (1, "tfphi: 1 error\n")
    assert out == ("terragrunt.hcl:11:1: error[config-error]: terragrunt.hcl cannot be read: syntax error: missing expression: "
                   "expected the start of an expression, but found the end of the file\n")


def test_a_terragrunt_file_that_is_not_utf8_is_a_config_error(tmp_path: Path):
    unit = tmp_path / "unit"
    unit.mkdir()
    (unit / "terragrunt.hcl").write_bytes(b'terraform {\n  source = "../m\xff"\n}\n')
    code, data, _ = _json("check", "unit", "--format", "json", cwd=tmp_path)
    assert (code, [(d["file"], d["code"]) for d in data["diagnostics"]]) == (1, [("terragrunt.hcl", "config-error")])


# ---- symbolic links (defect 5), Terraform as the oracle -------------------------------------------


ENV_MAIN = '''variable "engine_version" {
  type = string
}

resource "terraform_data" "db" {
  input = var.engine_version
}

output "engine_version" {
  value = var.engine_version
}
'''


def _env_per_folder(tmp_path: Path) -> Path:
    """``envs/prod`` with ``common.auto.tfvars -> ../common.auto.tfvars`` and a ``terraform.tfvars``
    that links to nothing (a file removed from the shared folder)."""
    prod = tmp_path / "envs" / "prod"
    prod.mkdir(parents=True)
    (tmp_path / "envs" / "common.auto.tfvars").write_text('engine_version = "15.4"\n')
    (prod / "main.tf").write_text(ENV_MAIN)
    os.symlink("../common.auto.tfvars", prod / "common.auto.tfvars")
    os.symlink("../removed.tfvars", prod / "terraform.tfvars")
    return prod


def _terraform_plan(terraform: Terraform, root: Path) -> subprocess.CompletedProcess:
    terraform.init(root)
    return terraform.run(root, "plan", "-no-color", "-lock=false", "-input=false", check=False)


def test_a_linked_variable_file_is_a_deployment_file_and_a_dangling_terraform_tfvars_is_ignored(tmp_path: Path):
    # before: "common.auto.tfvars:1:1: error[syntax-error]: ... leads outside the workspace or loops; it
    # was skipped" (exit 1, no deployment) and the dangling terraform.tfvars was an error too
    prod = _env_per_folder(tmp_path)
    code, data, _ = _json("check", "envs/prod", "--format", "json", cwd=tmp_path)
    assert (code, data) == (0, {"diagnostics": []})
    code, data, _ = _json("trace", "envs/prod", "terraform_data.db.input", "--json", cwd=tmp_path)
    assert data["deployments"] == [{"file": "common.auto.tfvars", "value": "15.4"}]
    terraform = Terraform(terraform_binary(), tmp_path)
    plan = _terraform_plan(terraform, prod)
    assert plan.returncode == 0, plan.stderr
    assert '+ input  = "15.4"' in plan.stdout  # Terraform read the link and ignored the dangling terraform.tfvars


@pytest.mark.parametrize("name, target, message", [
    ("gone.auto.tfvars", "missing.auto.tfvars",
     "envs/prod/gone.auto.tfvars is a symbolic link to missing.auto.tfvars, which does not exist; terraform plan fails until it exists"),
    ("loop.auto.tfvars", "loop.auto.tfvars", "envs/prod/loop.auto.tfvars is a symbolic link that loops; it cannot be read"),
])
def test_a_variable_file_linking_to_nothing_is_a_config_error_as_terraform_fails(tmp_path: Path, name: str, target: str, message: str):
    # before: a syntax-error ("leads outside the workspace or loops")
    prod = _env_per_folder(tmp_path)
    os.symlink(target, prod / name)
    code, data, _ = _json("check", ".", "--format", "json", cwd=tmp_path)
    assert (code, [(d["file"], d["severity"], d["code"], d["message"]) for d in data["diagnostics"]]) == (
        1, [(f"envs/prod/{name}", "error", "config-error", message)])
    plan = _terraform_plan(Terraform(terraform_binary(), tmp_path), prod)
    assert plan.returncode == 1 and "Failed to read variables file" in plan.stderr


def test_a_linked_directory_is_followed_and_a_link_back_up_is_not_followed_again(tmp_path: Path):
    prod = _env_per_folder(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "main.tf").write_text(ENV_MAIN.replace("engine_version", "version"))
    os.symlink("../../shared", prod / "linked")  # a folder of the environment that lives elsewhere
    os.symlink("..", prod / "up")  # a loop: envs/prod/up/prod/up/...
    code, data, _ = _json("check", "envs", "--format", "json", cwd=tmp_path)
    assert (code, data) == (0, {"diagnostics": []})
    code, data, err = _json("trace", "envs", "terraform_data.db.input", "--json", cwd=tmp_path)
    assert code == 2 and "exists under 2 root modules: envs/prod, envs/prod/linked" in err


# ---- nothing to analyse (defect 7) ------------------------------------------------------------


@pytest.mark.parametrize("command", [["check"], ["trace", "{dir}", "aws_db_instance.x.engine"], ["specialize", "{dir}", "aws_db_instance.x.engine"]])
def test_a_dir_with_nothing_to_analyse_is_a_usage_error(tmp_path: Path, command: list[str]):
    # before: "tfphi: no problems found", exit 0 (check); "names no field" (trace); and for a misspelled
    # path check said "... is not a directory"
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README.md").write_text("no configuration here\n")
    for dir, reason in (("empty", "empty holds no Terraform, OpenTofu or Terragrunt configuration (.tf, .tf.json, .tofu, "
                                  ".tofu.json or terragrunt.hcl files); nothing to analyse"),
                        ("envs/prdo", "envs/prdo does not exist; nothing to analyse")):
        args = [part.replace("{dir}", dir) for part in command] + ([dir] if command == ["check"] else [])
        assert _run(*args, cwd=tmp_path) == (2, "", f"tfphi: error: {reason}\n")


def test_an_opentofu_module_is_told_to_run_tofu_init(tmp_path: Path):
    # before: "`terraform init` installs it" in an OpenTofu configuration, whose users run `tofu init`
    call = 'module "db" {\n  source = "acme/db/aws"\n}\n\nresource "aws_db_instance" "app" {\n  engine_version = module.db.version\n}\n'
    for name, command in (("main.tofu", "tofu init"), ("main.tf", "terraform init")):
        ws = tmp_path / name.replace(".", "-")
        ws.mkdir()
        (ws / name).write_text(call)
        code, data, _ = _json("check", str(ws), "--format", "json", cwd=tmp_path)
        assert code == 0
        assert [(d["code"], d["message"]) for d in data["diagnostics"]] == [
            ("module-not-installed", "module.db uses 'acme/db/aws', which is not installed: its outputs are unknown until "
             f"`{command}` installs it into .terraform/modules (tfphi never downloads it)"),
            ("unbounded-field", "can't determine the value of engine_version: the trace stops at \"db\" "
             f"({name}:1) because module.db uses the non-local source 'acme/db/aws', which is not installed; "
             f"`{command}` installs it into .terraform/modules.\naws_db_instance.app.engine_version is set to "
             f"module.db.version.\nFix: run `{command}` so the module is installed under .terraform/modules, or use a "
             "local source."),
        ]
