"""Issue 11's defects 1-4 (the CLI half), one test each, through the CLI on the fixture repositories.

Each failed before this work (the outputs before are quoted in the comments); the whole outputs
are compared in ``test_cli_workspaces.py``'s snapshots.
"""

from __future__ import annotations

import json
from pathlib import Path

from phi_fixture import run_cli

REPOS = Path(__file__).parent / "repos"


def _json(*args: str):
    proc = run_cli(*args, cwd=REPOS)
    return proc.returncode, json.loads(proc.stdout or b"null"), proc.stderr.decode()


def test_defect_1_an_example_calling_up_is_analysed():
    # before: "main.tf:2:12: error[undefined-reference]: module.db source '../../' is outside the workspace"
    code, data, _ = _json("check", "rds-like/examples/complete-mysql", "--format", "json")
    assert code == 0
    assert [(d["file"], d["code"], d["roots"]) for d in data["diagnostics"]] == [
        ("../../modules/db_instance/main.tf", "unbounded-field", ["."]),
    ]
    # before: "names no field in rds-like/examples/complete-postgres" (exit 2)
    code, data, _ = _json("trace", "rds-like/examples/complete-postgres", "module.db.module.db_instance.aws_db_instance.this.engine", "--json")
    assert code == 0 and data["kind"] == "resolved" and data["branches"][0]["value"] == "postgres"
    assert data["branches"][0]["source"] == "main.tf:9:20"


def test_defect_2_an_address_in_several_roots_is_a_usage_error():
    # before: at the repository, answered "mysql" from the first root, silently
    proc = run_cli("trace", "rds-like/examples", "module.db.module.db_instance.aws_db_instance.this.engine", cwd=REPOS)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == (
        "tfphi: error: module.db.module.db_instance.aws_db_instance.this.engine exists under 2 root modules: "
        "rds-like/examples/complete-mysql, rds-like/examples/complete-postgres; pass one of them as DIR\n")
    code, data, _ = _json("trace", "rds-like/examples/complete-mysql", "module.db.module.db_instance.aws_db_instance.this.engine", "--json")
    assert (code, data["root"], data["branches"][0]["value"]) == (0, "rds-like/examples/complete-mysql", "mysql")


def test_defect_3_a_shared_modules_diagnostic_names_its_root():
    # before: "Call path: module.db -> module.db_instance." with no root, in a module three roots reach
    code, data, _ = _json("check", "rds-like", "--format", "json")
    (diagnostic,) = data["diagnostics"]
    assert diagnostic["roots"] == ["examples/complete-mysql"]
    assert "Call path: module.db -> module.db_instance, from the root module examples/complete-mysql." in diagnostic["message"]


def test_defect_4_variable_files_json_and_the_new_codes():
    # before: env/*.tfvars were ignored (no deployments), *.tf.json / *.tfvars.json were not read, and
    # a duplicate variable, an undeclared variable and an uninstalled registry module passed silently
    code, data, _ = _json("trace", "monorepo/envs/dev", "module.db.aws_db_instance.app.engine_version", "--json")
    assert data["deployments"] == [{"file": "env/dev.tfvars", "value": "15.4"}, {"file": "env/staging.tfvars", "value": "16.2"}]
    code, data, _ = _json("trace", "monorepo/envs/prod", "module.metrics_db.aws_db_instance.app.engine_version", "--json")
    assert (data["kind"], data["branches"][0]["source"]) == ("resolved", "monitoring.tf.json:6:18")
    code, data, _ = _json("check", "monorepo", "--format", "json")
    assert code == 1
    found = [(d["file"], d["code"], d["severity"], d["roots"]) for d in data["diagnostics"] if d["code"] != "unbounded-field"]
    assert found == [
        ("envs/dev/env/staging.tfvars", "undeclared-variable", "warning", ["envs/dev"]),
        ("envs/dev/main.tf", "module-not-installed", "information", ["envs/dev"]),
        ("envs/dev/variables.tf", "duplicate-declaration", "error", ["envs/dev"]),
    ]
    # the auto-loaded .tfvars.json is read: its value is offered by the fix
    node_type = next(d for d in data["diagnostics"] if "node_type" in d["message"])
    assert '"cache.r7g.large"' in node_type["message"]
