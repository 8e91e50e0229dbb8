"""End to end, through the CLI as a subprocess: repositories laid out as Terraform runs them.

``repos/rds-like`` is laid out like terraform-aws-modules (``examples/complete-*`` calling
``../../``, which calls ``./modules/db_instance``); ``repos/monorepo`` like a monorepo
(``envs/prod`` and ``envs/dev`` calling ``../../modules/*``, ``env/*.tfvars`` deployments,
JSON files). Each command's whole output (exit code, stdout, stderr) is compared with a
snapshot under ``snapshots/``; ``TFPHI_UPDATE_SNAPSHOTS=1`` rewrites them (review the diff).
The commands run from ``repos/``, so every path in the output is stable.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from phi_fixture import run_cli
from snapshots import check_snapshot

HERE = Path(__file__).parent
REPOS = HERE / "repos"
SNAPSHOTS = HERE / "snapshots"

CASES: dict[str, tuple[str, ...]] = {
    # issue 11, defect 1: an example calling ../../ was "outside the workspace" (4 false errors), and
    # its fields named no field; now the modules it reaches are read, with ../ paths.
    "check_rds_complete_mysql_json": ("check", "rds-like/examples/complete-mysql", "--format", "json"),
    "check_rds_complete_postgres_text": ("check", "rds-like/examples/complete-postgres"),
    "trace_rds_complete_postgres_engine": (
        "trace", "rds-like/examples/complete-postgres", "module.db.module.db_instance.aws_db_instance.this.engine", "--json"),
    # the repository root: its roots are the examples (the root module is called by them)
    "check_rds_repository_json": ("check", "rds-like", "--format", "json"),
    "check_rds_examples_text": ("check", "rds-like/examples"),
    # issue 11, defect 2: an address in several roots was answered from the first, silently
    "trace_rds_ambiguous": ("trace", "rds-like/examples", "module.db.module.db_instance.aws_db_instance.this.engine"),
    "trace_rds_dir_is_the_root": ("trace", "rds-like", "module.db.module.db_instance.aws_db_instance.this.engine"),
    "trace_rds_one_root_under_dir": (
        "trace", "rds-like/examples", "module.replica.module.db_instance.aws_db_instance.this.instance_class", "--json"),
    "trace_rds_count_key": (
        "trace", "rds-like/examples", "module.master.module.db_instance.aws_db_instance.this[0].engine_version", "--json"),
    "trace_rds_wrong_key": (
        "trace", "rds-like/examples", 'module.master.module.db_instance.aws_db_instance.this["a"].engine_version'),
    # the monorepo
    "check_monorepo_json": ("check", "monorepo", "--format", "json"),
    "check_monorepo_text": ("check", "monorepo"),
    "check_monorepo_prod_json": ("check", "monorepo/envs/prod", "--format", "json"),
    "check_monorepo_dev_text": ("check", "monorepo/envs/dev"),
    "trace_monorepo_cache_jobs": (
        "trace", "monorepo/envs/prod", 'module.cache.aws_elasticache_replication_group.this["jobs"].engine_version', "--json"),
    "trace_monorepo_regional_eu_jobs": (
        "trace", "monorepo/envs/regional", 'module.cache["eu"].aws_elasticache_replication_group.this["jobs"].engine_version', "--json"),
    "trace_monorepo_regional_us_jobs": (
        "trace", "monorepo/envs/regional", 'module.cache["us"].aws_elasticache_replication_group.this["jobs"].engine_version'),
    "trace_monorepo_regional_jobs": (
        "trace", "monorepo/envs/regional", 'module.cache.aws_elasticache_replication_group.this["jobs"].engine_version'),
    "trace_monorepo_regional_every_instance": (
        "trace", "monorepo/envs/regional", "module.cache.aws_elasticache_replication_group.this.engine_version"),
    "trace_monorepo_regional_bad_module_key": (
        "trace", "monorepo/envs/regional", "module.cache[0].aws_elasticache_replication_group.this.engine_version"),
    "trace_monorepo_cache_every_instance": (
        "trace", "monorepo/envs/prod", "module.cache.aws_elasticache_replication_group.this.engine_version", "--json"),
    "trace_monorepo_dev_deployments": ("trace", "monorepo/envs/dev", "module.db.aws_db_instance.app.engine_version", "--json"),
    "trace_monorepo_prod_deployments": ("trace", "monorepo/envs/prod", "module.db.aws_db_instance.app.engine_version", "--json"),
    "trace_monorepo_ambiguous": ("trace", "monorepo", "module.db.aws_db_instance.app.engine_version"),
}


def render(args: tuple[str, ...]) -> str:
    proc = run_cli(*args, cwd=REPOS)
    stderr = proc.stderr.decode("utf-8")
    stderr = re.sub(r"usage: .*?\n", "usage: ...\n", stderr)
    return (
        f"$ tfphi {' '.join(args)}\n"
        f"exit {proc.returncode}\n"
        f"--- stdout\n{proc.stdout.decode('utf-8')}"
        f"--- stderr\n{stderr}"
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_snapshot(name: str) -> None:
    actual = render(CASES[name])
    check_snapshot(SNAPSHOTS / f"{name}.txt", actual)


def test_every_snapshot_has_a_case() -> None:
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.txt")) == sorted(CASES)
