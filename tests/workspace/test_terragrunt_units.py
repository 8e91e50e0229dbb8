"""Terragrunt units read from parsed files (``stir.terragrunt``, no disk): which module a unit
deploys, its inputs as Terragrunt merges and evaluates them, what stays unknown, and the files
the loader is asked to read. The CLI and the server are in ``test_workspace_layouts.py`` and
``tests/lsp/test_workspace_layouts.py``."""

from __future__ import annotations

from phi_fixture import analysis_of

from tfphi.stir.deployments import root_deployments
from tfphi.stir.terragrunt import generated_files, wanted_paths

MODULE = b'''variable "a" {
  type = string
}

variable "b" {
  type    = string
  default = "b-default"
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "terraform_data" "x" {
  input = var.a
}
'''


def _units(files: dict[str, bytes]):
    snapshot = analysis_of(files)
    return snapshot, {u.path: u for u in snapshot.units}


def _summary(unit) -> tuple:
    return unit.module_dir, dict(unit.values), sorted(unit.unknown), unit.all_unknown, unit.opaque_reason, [m for _, m in unit.problems]


def test_sources_local_with_subdir_template_and_none_and_non_local():
    _, units = _units({
        "modules/db/main.tf": MODULE,
        "live/a/terragrunt.hcl": b'terraform {\n  source = "../../modules//db"\n}\n',
        "live/b/terragrunt.hcl": b'terraform {\n  source = "${get_terragrunt_dir()}/../../modules/db?ref=x"\n}\n',
        "live/c/terragrunt.hcl": b'inputs = {\n  a = "c"\n}\n',  # deploys its own folder's module
        "live/c/main.tf": MODULE,
        "live/d/terragrunt.hcl": b'terraform {\n  source = "tfr:///acme/db/aws?version=1.0.0"\n}\n',
        "live/e/terragrunt.hcl": b'terraform {\n  source = "${get_repo_root()}/modules/db"\n}\n',
        "live/f/terragrunt.hcl": b'terraform {\n  source = "../nowhere"\n}\n',
        "live/terragrunt.hcl": b'inputs = {\n  b = "parent"\n}\n',  # a parent configuration: not a unit
    })
    assert sorted(units) == ["live/a/terragrunt.hcl", "live/b/terragrunt.hcl", "live/c/terragrunt.hcl",
                             "live/d/terragrunt.hcl", "live/e/terragrunt.hcl", "live/f/terragrunt.hcl"]
    assert [units[f"live/{n}/terragrunt.hcl"].module_dir for n in "abcdef"] == [
        "modules/db", "modules/db", "live/c", None, None, "live/nowhere"]
    assert units["live/d/terragrunt.hcl"].opaque_reason == (
        "live/d/terragrunt.hcl deploys 'tfr:///acme/db/aws?version=1.0.0', a non-local source that Terragrunt downloads "
        "when it runs; tfphi reads no download, so this unit is opaque")
    assert units["live/e/terragrunt.hcl"].opaque_reason == (
        "live/e/terragrunt.hcl: terraform.source cannot be read without running Terragrunt "
        "(get_repo_root() outside a git repository); the unit is opaque")


def test_inputs_merge_shallow_over_the_parent_deep_when_asked_and_unknown_from_run_time_functions():
    root = b'''locals {
  region = "eu-west-1"
  tags   = { team = "db" }
}

inputs = {
  a    = "root-${local.region}"
  b    = upper(local.region)
  tags = local.tags
}
'''
    files = {
        "modules/db/main.tf": MODULE,
        "live/root.hcl": root,
        "live/shallow/terragrunt.hcl": b'''include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "../../modules/db"
}

inputs = {
  tags = { env = "prod" }
}
''',
        "live/deep/terragrunt.hcl": b'''include "root" {
  path           = find_in_parent_folders("root.hcl")
  merge_strategy = "deep"
}

terraform {
  source = "../../modules/db"
}

locals {
  parent_region = include.root.locals.region
}

inputs = {
  a    = local.parent_region
  tags = { env = "prod" }
}
''',
        "live/runtime/terragrunt.hcl": b'''include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "../../modules/db"
}

dependency "vpc" {
  config_path = "../vpc"
}

inputs = {
  a    = run_cmd("whoami")
  b    = dependency.vpc.outputs.id
  tags = { env = get_env("ENV") }
}
''',
    }
    _, units = _units(files)
    assert _summary(units["live/shallow/terragrunt.hcl"]) == (
        "modules/db", {"a": "root-eu-west-1", "b": "EU-WEST-1", "tags": {"env": "prod"}}, [], None, None, [])
    assert _summary(units["live/deep/terragrunt.hcl"]) == (
        "modules/db", {"a": "eu-west-1", "b": "EU-WEST-1", "tags": {"team": "db", "env": "prod"}}, [], None, None, [])
    runtime = units["live/runtime/terragrunt.hcl"]
    assert _summary(runtime) == ("modules/db", {}, ["a", "b", "tags"], None, None, [])
    assert dict(runtime.unknown) == {
        "a": "run_cmd() is evaluated by Terragrunt when it runs",
        "b": "dependency outputs are known only when Terragrunt applies the dependency",
        "tags": "get_env() is evaluated by Terragrunt when it runs",
    }


def test_deployments_layer_the_module_directory_variable_files_over_the_inputs():
    snapshot, _ = _units({
        "modules/db/main.tf": MODULE,
        "modules/db/terraform.tfvars": b'b = "from-tfvars"\n',
        "live/prod/terragrunt.hcl": b'terraform {\n  source = "../../modules/db"\n}\n\ninputs = {\n  a = "prod"\n  b = "prod"\n}\n',
        "live/qa/terragrunt.hcl": b'terraform {\n  source = "../../modules/db"\n}\n\ninputs = merge({ a = "qa" }, jsondecode(run_cmd("cat", "x.json")))\n',
    })
    found = {d.name: (dict(d.assignment), sorted(d.undecided), d.kind) for d in root_deployments(snapshot, "modules/db")}
    assert found == {
        "terraform.tfvars": ({"b": "from-tfvars"}, [], "variable-files"),
        "live/prod": ({"a": "prod", "b": "from-tfvars"}, [], "terragrunt-unit"),
        # inputs unknown as a whole: every variable the tfvars does not set is undecided
        "live/qa": ({"b": "from-tfvars"}, ["a", "tags"], "terragrunt-unit"),
    }


def test_problems_an_include_that_finds_nothing_and_a_syntax_error():
    _, units = _units({
        "modules/db/main.tf": MODULE,
        "live/a/terragrunt.hcl": b'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n\n'
                                 b'terraform {\n  source = "../../modules/db"\n}\n',
        "live/b/terragrunt.hcl": b'terraform {\n  source = "../../modules/db"\n\ninputs = {\n',
    })
    assert [m for _, m in units["live/a/terragrunt.hcl"].problems] == [
        "the included file cannot be found: no root.hcl in the folders above live/a"]
    assert units["live/b/terragrunt.hcl"].problems[0][1].startswith("live/b/terragrunt.hcl cannot be read: syntax error")


def test_the_loader_is_asked_for_every_parent_folder_candidate_then_nothing():
    files = {"live/prod/eu/terragrunt.hcl": b'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n'
                                            b'include "env" {\n  path = "${dirname(find_in_parent_folders("root.hcl"))}/_env/db.hcl"\n}\n'}
    snapshot = analysis_of(files)
    wanted = wanted_paths(snapshot.terragrunt)
    # the folders above the unit, nearest first in Terragrunt's search, up to 16 levels (above DIR too)
    assert {"live/prod/root.hcl", "live/root.hcl", "root.hcl", "../root.hcl"} <= set(wanted) and len(wanted) == 16
    assert wanted_paths(snapshot.terragrunt, wanted) == []
    files["live/root.hcl"] = b'locals {\n  x = 1\n}\n'
    snapshot = analysis_of(files)
    # root.hcl found: the include's computed path is asked for too, and the nearer candidate
    assert wanted_paths(snapshot.terragrunt) == ["live/_env/db.hcl", "live/prod/root.hcl"]


def test_read_terragrunt_config_reads_what_is_used_of_another_file():
    """The live-repository pattern (gruntwork-io/terragrunt-infrastructure-live-example): root.hcl
    reads account.hcl and env.hcl and merges their locals into the inputs."""
    files = {
        "modules/db/main.tf": MODULE,
        "root.hcl": b'''locals {
  account = read_terragrunt_config(find_in_parent_folders("account.hcl"))
  env     = read_terragrunt_config(find_in_parent_folders("env.hcl"))
}

inputs = merge(local.account.locals, { b = "${local.env.locals.environment}-db" })
''',
        "prod/account.hcl": b'locals {\n  a = "prod-account"\n}\n',
        "prod/eu/env.hcl": b'locals {\n  environment = "prod"\n  token       = run_cmd("vault", "read")\n}\n',
        "prod/eu/db/terragrunt.hcl": b'''include "root" {
  path = find_in_parent_folders("root.hcl")
}

locals {
  missing = read_terragrunt_config("nowhere.hcl", { locals = { x = "fallback" } })
}

terraform {
  source = "../../../modules/db"
}

inputs = {
  tags = { x = local.missing.locals.x }
}
''',
    }
    snapshot, units = _units(files)
    assert _summary(units["prod/eu/db/terragrunt.hcl"]) == (
        "modules/db", {"a": "prod-account", "b": "prod-db", "tags": {"x": "fallback"}}, [], None, None, [])
    # what the loader is asked for: the candidates above the unit, and the file read with a fallback
    assert "prod/eu/db/nowhere.hcl" in wanted_paths(snapshot.terragrunt)


def test_generated_files_only_where_every_unit_writes_the_same_and_no_file_or_caller_is_in_the_way():
    generate = b'generate "v" {\n  path     = "%s"\n  contents = "variable \\"x\\" {}\\n# %s\\n"\n}\n'
    files = {
        "modules/a/main.tf": MODULE, "modules/b/main.tf": MODULE, "modules/c/main.tf": MODULE,
        "modules/c/vars.tf": b"",
        "caller/main.tf": b'module "b" {\n  source = "../modules/b"\n  a      = "x"\n}\n',
        "live/a1/terragrunt.hcl": b'terraform {\n  source = "../../modules/a"\n}\n' + generate % (b"vars.tf", b"same"),
        "live/a2/terragrunt.hcl": b'terraform {\n  source = "../../modules/a"\n}\n' + generate % (b"vars.tf", b"same"),
        "live/a3/terragrunt.hcl": b'terraform {\n  source = "../../modules/a"\n}\n' + generate % (b"other.tf", b"x"),
        "live/b/terragrunt.hcl": b'terraform {\n  source = "../../modules/b"\n}\n' + generate % (b"vars.tf", b"b"),
        "live/c/terragrunt.hcl": b'terraform {\n  source = "../../modules/c"\n}\n' + generate % (b"vars.tf", b"c"),
    }
    snapshot = analysis_of(files)
    # a: vars.tf written alike by a1 and a2, but a3 does not write it (nor do a1, a2 other.tf);
    # b: a module calls it; c: has its own vars.tf
    assert generated_files(snapshot.units, snapshot.modules, snapshot.tree.callers) == {}
    del files["live/a3/terragrunt.hcl"]
    snapshot = analysis_of(files)
    assert generated_files(snapshot.units, snapshot.modules, snapshot.tree.callers) == {
        "modules/a/vars.tf": b'variable "x" {}\n# same\n'}
