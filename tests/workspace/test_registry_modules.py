"""Issue 24, defects 1, 2, 6, 9 and 10, through the CLI as a subprocess (whole-output snapshots).

``repos/registry-installed`` is a root after ``terraform init`` installed two registry modules
(``modules.json`` laid out as Terraform 1.11 writes it: the nested local call of the RDS
module under its own key ``db.db_instance``). Diagnostics about the installed modules' fields
are reported in the root, on the argument that decides them (or the call's label when the
installed module decides itself), naming the installed location (defect 1: "no problems
found" before). ``repos/registry-partial`` is the same root after a partial init: the nested
call is ``module-not-installed`` on the root's call, and ``trace`` says why the address names
no field (defect 2: silently green before). ``repos/resource-refs`` uses ``resource.<type>.<name>``
(defect 6: two false ``undefined-reference`` errors before). The ``*_key`` cases name instance
keys that no instance has (defect 10: answered as if they existed before). ``repos/clouds`` holds
small GKE, Cloud SQL and AKS roots: the built-in registry's Google Cloud and Azure fields
(defect 9: "no problems found" on each before).

``TFPHI_UPDATE_SNAPSHOTS=1`` rewrites the snapshots (review the diff).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from phi_fixture import analysis_of, run_cli
from snapshots import check_snapshot

from tfphi.features.code_actions import quick_fixes
from tfphi.features.diagnostics import workspace_diagnostics
from tfphi.features.hover import hover_at
from tfphi.loader import load_workspace

HERE = Path(__file__).parent
REPOS = HERE / "repos"
REGISTRY_SNAPSHOTS = HERE / "snapshots" / "registry"
NESTED = "module.db.module.db_instance.aws_db_instance.this.engine_version"

CASES: dict[str, tuple[str, ...]] = {
    "check_installed_text": ("check", "registry-installed"),
    "check_installed_json": ("check", "registry-installed", "--format", "json"),
    "check_installed_fail_on_warning": ("check", "registry-installed", "--fail-on", "warning"),
    "trace_installed_nested": ("trace", "registry-installed", NESTED, "--json"),
    "check_partial_text": ("check", "registry-partial"),
    "trace_partial_nested": ("trace", "registry-partial", NESTED),
    "trace_partial_installed_part": ("trace", "registry-partial", "module.cache.aws_elasticache_replication_group.default.engine"),
    "check_resource_refs_text": ("check", "resource-refs"),
    "trace_resource_refs": ("trace", "resource-refs", "aws_db_instance.this.instance_class", "--json"),
    "trace_unknown_for_each_key": (
        "trace", "monorepo/envs/prod", 'module.cache.aws_elasticache_replication_group.this["nope"].engine_version'),
    "trace_unknown_module_key": (
        "trace", "monorepo/envs/regional", 'module.cache["xx"].aws_elasticache_replication_group.this["jobs"].engine_version'),
    "trace_unknown_count_index": (
        "trace", "rds-like/examples", "module.master.module.db_instance.aws_db_instance.this[1].engine_version"),
    # defect 9: the built-in registry knows Google Cloud and Azure fields (nested block fields too)
    "check_gke_text": ("check", "clouds/gke"),
    "check_cloudsql_text": ("check", "clouds/cloudsql"),
    "check_aks_text": ("check", "clouds/aks"),
    "trace_gke_release_channel": ("trace", "clouds/gke", "google_container_cluster.primary.release_channel.channel", "--json"),
    "trace_gke_node_pool_machine_type": (
        "trace", "clouds/gke", 'google_container_node_pool.pools["highmem"].node_config.machine_type'),
    "trace_cloudsql_settings_tier": ("trace", "clouds/cloudsql", "google_sql_database_instance.main.settings.tier"),
    "trace_cloudsql_redis_tier": ("trace", "clouds/cloudsql", "google_redis_instance.cache.tier"),
    "trace_aks_default_node_pool_vm_size": ("trace", "clouds/aks", "azurerm_kubernetes_cluster.aks.default_node_pool.vm_size"),
}


def render(args: tuple[str, ...]) -> str:
    proc = run_cli(*args, cwd=REPOS)
    stderr = re.sub(r"usage: .*?\n", "usage: ...\n", proc.stderr.decode("utf-8"))
    return f"$ tfphi {' '.join(args)}\nexit {proc.returncode}\n--- stdout\n{proc.stdout.decode('utf-8')}--- stderr\n{stderr}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_snapshot(name: str) -> None:
    check_snapshot(REGISTRY_SNAPSHOTS / f"{name}.txt", render(CASES[name]))


def test_every_snapshot_has_a_case() -> None:
    assert sorted(p.stem for p in REGISTRY_SNAPSHOTS.glob("*.txt")) == sorted(CASES)  # (and one hover, .md)


def test_a_known_key_is_still_traced() -> None:
    proc = run_cli("trace", "monorepo/envs/prod", 'module.cache.aws_elasticache_replication_group.this["jobs"].engine_version',
                   cwd=REPOS)
    assert proc.returncode == 0, proc.stderr


def test_quick_fixes_of_a_moved_diagnostic_edit_the_root_never_the_installed_module() -> None:
    analysis = load_workspace(REPOS / "registry-installed")
    moved = [d for d in workspace_diagnostics(analysis)["main.tf"] if d.code == "unbounded-field"]
    fixes = {d.data["field"]: [(a.title, [e.file for e in a.edits]) for a in quick_fixes(analysis, d.file, d.span, d.data)]
             for d in moved}
    assert fixes == {
        "module.db.module.db_instance.aws_db_instance.this.engine_version": [
            ("Add validation block to var.pg_version (placeholder values: edit them)", ["variables.tf"])],
        # decided inside the installed module: nothing to edit on the user's side
        "module.cache.aws_elasticache_replication_group.default.engine_version": [],
    }


def test_the_hover_lists_terragrunt_units_as_deployments() -> None:
    """Issue 24 defect 8 with every kind of deployment: the units of ``layouts/terragrunt`` (helper
    tofu's fixture) and the module's own variable file, each traced with its values."""
    analysis = load_workspace(HERE / "layouts" / "terragrunt")
    path = "modules/db/main.tf"
    source = analysis.files[path].source
    hover = hover_at(analysis, path, source.index(b"engine_version = var") + 2)
    assert hover is not None
    check_snapshot(REGISTRY_SNAPSHOTS / "hover_terragrunt_units.md", hover.markdown)


WRAPPED = '''
#- main.tf
variable "pg_version" {
  type = string
}
module "wrapper" {
  source = "./wrapper"
  v      = var.pg_version
}
module "bare" {
  source = "./bare"
}
#- wrapper/main.tf
variable "v" {
  type = string
}
module "db" {
  source         = "terraform-aws-modules/rds/aws"
  engine_version = var.v
}
#- bare/main.tf
module "db" {
  source = "terraform-aws-modules/rds/aws"
}
#- .terraform/modules/modules.json
{"Modules": [{"Key": "", "Source": "", "Dir": "."},
             {"Key": "wrapper", "Source": "./wrapper", "Dir": "wrapper"},
             {"Key": "wrapper.db", "Source": "registry.terraform.io/terraform-aws-modules/rds/aws", "Version": "6.10.0",
              "Dir": ".terraform/modules/wrapper.db"},
             {"Key": "bare", "Source": "./bare", "Dir": "bare"},
             {"Key": "bare.db", "Source": "registry.terraform.io/terraform-aws-modules/rds/aws", "Version": "6.10.0",
              "Dir": ".terraform/modules/bare.db"}]}
#- .terraform/modules/wrapper.db/main.tf
variable "engine_version" {
  type = string
}
resource "aws_db_instance" "this" {
  engine_version = var.engine_version
}
#- .terraform/modules/bare.db/main.tf
variable "engine_version" {
  type = string
}
resource "aws_db_instance" "this" {
  engine_version = var.engine_version
}
'''


def test_the_hand_off_is_the_users_module_that_calls_the_installed_one() -> None:
    """Through a local wrapper, the diagnostic lands on the wrapper's argument (the user's file
    where the value enters installed code); a call that omits a required argument of the
    installed module gets its missing-argument error only (no unbounded-field cascade)."""
    analysis = analysis_of(WRAPPED)
    found = [(d.file, d.span.start, d.code, d.message.split(":")[0]) for items in workspace_diagnostics(analysis).values()
             for d in items]
    wrapper = WRAPPED.split("#- wrapper/main.tf\n")[1]
    assert found == [
        ("bare/main.tf", 7, "missing-argument", "module.db does not set engine_version, which the module in "
                                                ".terraform/modules/bare.db requires (no default)"),
        ("wrapper/main.tf", wrapper.index("var.v\n"), "unbounded-field",
         "can't determine the value of module.wrapper.module.db.aws_db_instance.this.engine_version (set in the "
         "installed module at .terraform/modules/wrapper.db/main.tf"),
    ]


DYNAMIC_RELEASE_CHANNEL = '''
#- main.tf
variable "release_channel" {
  type    = object({ channel = optional(string) })
  default = null
}
resource "google_container_cluster" "primary" {
  name = "gke"
  dynamic "release_channel" {
    for_each = var.release_channel != null ? [var.release_channel] : []
    content {
      channel = release_channel.value.channel
    }
  }
}
'''


def test_a_field_of_a_dynamic_block_that_is_never_generated_is_not_diagnosed() -> None:
    """terraform-google-kubernetes-engine's gke-standard-cluster: ``release_channel`` is a dynamic
    block over ``[var.release_channel]`` or ``[]``, and the variable defaults to null: the block is
    never generated, so its channel is never set (it was an unbounded-field, 'no value under any
    condition', once the registry knew the field)."""
    analysis = analysis_of(DYNAMIC_RELEASE_CHANNEL)
    assert workspace_diagnostics(analysis) == {}
    result = analysis.trace_address("google_container_cluster.primary.release_channel.channel")
    assert (result.kind, result.unbounded.cause) == ("unbounded", "empty")


DEPLOYED_ENGINE = '''
#- main.tf
variable "cache_engine" {
  type = string
}
module "cache" {
  source = "cloudposse/elasticache-redis/aws"
  engine = var.cache_engine
}
#- terraform.tfvars
cache_engine = "memcached"
#- .terraform/modules/modules.json
{"Modules": [{"Key": "", "Source": "", "Dir": "."},
             {"Key": "cache", "Source": "registry.terraform.io/cloudposse/elasticache-redis/aws", "Version": "1.4.1",
              "Dir": ".terraform/modules/cache"}]}
#- .terraform/modules/cache/main.tf
variable "engine" {
  type = string
}
resource "aws_elasticache_replication_group" "default" {
  engine = var.engine
}
'''


def test_an_unsupported_deployment_value_of_an_installed_field_is_reported_on_the_argument() -> None:
    analysis = analysis_of(DEPLOYED_ENGINE)
    [diagnostic] = workspace_diagnostics(analysis)["main.tf"]
    assert (diagnostic.code, analysis.text(diagnostic.span)) == ("unsupported-value", "var.cache_engine")
    assert diagnostic.detail.endswith('"memcached" comes from the deployment terraform.tfvars:1. '
                                      "module.cache passes it as engine here.")
    assert [(r.span.file, r.message) for r in diagnostic.related] == [
        (".terraform/modules/cache/main.tf", "aws_elasticache_replication_group.default.engine is set here, "
                                             "in the installed module .terraform/modules/cache"),
        ("terraform.tfvars", '"memcached" set by the deployment terraform.tfvars'),
    ]
