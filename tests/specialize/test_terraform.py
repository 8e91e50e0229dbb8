"""The specialized configuration meets the real Terraform (issue 13, SPEC section 7).

For each of the seed's scenarios (written with ``terraform_data``) and each of its deployments:
``terraform apply`` the original with the deployment's values, specialize with the CLI, copy the
state and the deployment's ``moved/<deployment>.tf`` into the output, plan with the same values,
and read ``terraform show -json`` of the plan: every resource change is a no-op, every output is
unchanged, and each instance of the specialized resource moved into the branch module the
deployment activates. Every output also validates and is formatted as ``terraform fmt`` wants.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfphi.loader import load_workspace
from tfphi.specialize.preview import specialize_address

from .conftest import check_snapshot
from terraform_cli import terraform_binary

from .terraform_support import Terraform
from .tf_scenarios import SCENARIOS, Scenario


@pytest.fixture(scope="module")
def terraform(tmp_path_factory) -> Terraform:
    return Terraform(terraform_binary(), tmp_path_factory.mktemp("tf"))


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def var_args(deployment: str) -> list[str]:
    """How the deployment is planned: a plain plan for the auto-loaded files, else ``-var-file``."""
    return [] if deployment == "terraform.tfvars" else [f"-var-file={deployment}"]


def tfphi(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfphi", *args], capture_output=True, text=True, timeout=120)


def state_instances(state_file: Path, resource: str) -> list[str]:
    """Addresses of the state's instances of ``resource`` (``[module.x.]type.name``), keys included."""
    state = json.loads(state_file.read_text())
    unkeyed = re.compile(r"\[[^\]]*\]")
    out = []
    for res in state["resources"]:
        address = f"{res.get('module') + '.' if res.get('module') else ''}{res['type']}.{res['name']}"
        if unkeyed.sub("", address) != resource:
            continue
        for instance in res["instances"]:
            key = instance.get("index_key")
            out.append(address + ("" if key is None else f"[{json.dumps(key)}]"))
    return sorted(out)


def specialized_address(instance: str, resource: str, name: str, gated: bool) -> str:
    """Where an instance lands: ``module.x["k"].terraform_data.db[0]`` -> ``module.x["k"].module.db_v15_4[0].terraform_data.db[0]``."""
    local = ".".join(resource.split(".")[-2:])
    at = instance.rindex(local)
    return f"{instance[:at]}module.{name}{'[0]' if gated else ''}.{instance[at:]}"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_specialized_configuration_plans_only_moves(name: str, tmp_path: Path, terraform: Terraform):
    scenario: Scenario = SCENARIOS[name]
    # A scenario whose root lies below the workspace (envs/prod) specializes from the workspace
    # directory, where the address names a field of exactly one root (SPEC 1); DIR=envs/prod
    # itself, reading ../../modules/db, is test_output.py's.
    workspace = write(tmp_path / "original", scenario.files)
    original = workspace

    # The CLI without --out prints exactly the files --out writes over the copy.
    printed = tfphi("specialize", str(original), scenario.address)
    assert printed.returncode == 0, printed.stderr
    check_snapshot(f"terraform/{name}.txt", printed.stdout)
    outdir = tmp_path / "out"
    out = outdir / scenario.root
    written = tfphi("specialize", str(original), scenario.address, "--out", str(outdir))
    assert written.returncode == 0, written.stderr
    preview = specialize_address(load_workspace(original), scenario.address)
    assert printed.stdout == preview.hcl
    assert preview.root == scenario.root
    for rel, text in preview.files.items():
        assert (outdir / rel).read_text(encoding="utf-8") == text, rel
    assert not (outdir / "specialized.tf").exists() and not list(outdir.rglob(".tfphi/moved"))
    for rel in scenario.files:  # the copy: every original file is there, rewritten or not
        assert (outdir / rel).exists(), rel

    # terraform init/validate/fmt accept the output as it is.
    terraform.init(out)
    validation = terraform.validate(out)
    assert validation["valid"], validation["diagnostics"]
    assert validation["warning_count"] == 0, validation["diagnostics"]
    assert terraform.fmt_check(outdir) == []

    provenance = json.loads((outdir / "provenance.json").read_text())
    served = {file: record["module"] for record in provenance for file in record["deployments"]}
    assert served == {d: m for d, m in scenario.expected.items() if m is not None}
    gated = len(provenance) > 1
    # One plugin-free init per configuration: the copies below carry its .terraform along.
    terraform.init(workspace / scenario.root)
    resource = scenario.address.rsplit(".", 1)[0]

    for deployment, module in scenario.expected.items():
        moved_file = out / "moved" / (deployment.removesuffix(".tfvars").replace("/", "_") + ".tf")
        assert moved_file.exists() == gated, moved_file
        if module is None:
            assert "moved {" not in moved_file.read_text() and "No moved block" in moved_file.read_text()
            continue
        # Apply the original with the deployment's values...
        applied = tmp_path / f"applied-{moved_file.stem}"
        shutil.copytree(workspace, applied)
        applied = applied / scenario.root
        terraform.apply(applied, var_args(deployment))
        instances = state_instances(applied / "terraform.tfstate", resource)
        assert instances, f"{resource} has no instance in the state of {deployment}"
        # ...then plan the specialized configuration over that state with the deployment's moves.
        planned = tmp_path / f"planned-{moved_file.stem}"
        shutil.copytree(outdir, planned, symlinks=True)
        planned = planned / scenario.root
        shutil.copy(applied / "terraform.tfstate", planned / "terraform.tfstate")
        if gated:
            shutil.copy(moved_file, planned / f"tfphi_moved_{moved_file.name}")
        plan = terraform.plan_json(planned, var_args(deployment))

        changes = plan.get("resource_changes", [])
        not_noop = [(c["address"], c["change"]["actions"]) for c in changes if c["change"]["actions"] != ["no-op"]]
        assert not_noop == [], f"{deployment}: {not_noop}"
        outputs = {k: v["actions"] for k, v in plan.get("output_changes", {}).items() if v["actions"] != ["no-op"]}
        assert outputs == {}, f"{deployment}: outputs change {outputs}"
        moves = {c["previous_address"]: c["address"] for c in changes if c.get("previous_address")}
        assert moves == {i: specialized_address(i, resource, module, gated) for i in instances}, deployment
        print(f"{name} {deployment}: {len(moves)} moved, {len(changes)} resource changes all no-op, "
              f"{len(plan.get('output_changes', {}))} outputs unchanged")


def test_a_deployment_the_gates_disagree_with_gets_no_move(tmp_path: Path):
    """SPEC 3 traces a root variable's default as Resolved (deployments do not narrow a trace,
    SPEC 2), so the gates ignore a deployment that overrides it. Here ``region`` defaults to
    "eu-west-1": the trace folds the inner conditional and gates on ``var.env`` alone, while
    env/us.tfvars (region "us-east-1") takes "m5.xlarge" through the branch the gates send to
    t3.small. Terraform showed it: the move to the module the gates activate planned a destroy
    and a create. So the specializer checks each move against the field's value under the
    deployment, writes no move where they disagree, and says why."""
    files = dict(SCENARIOS["nested_coalesced"].files)
    files["main.tf"] = files["main.tf"].replace('variable "region" {\n  type = string\n}',
                                                'variable "region" {\n  type    = string\n  default = "eu-west-1"\n}')
    write(tmp_path, files)
    preview = specialize_address(load_workspace(tmp_path), "terraform_data.app.input")
    assert preview.files["moved/env_us.tf"] == (
        "# Generated by tfphi 0.1.0 for env/us.tfvars (terraform plan -var-file=env/us.tfvars).\n"
        "# No moved block: with env/us.tfvars's values the gates activate module.app_t3_small, "
        'but terraform_data.app.input is "m5.xlarge" there.\n'
        "# This is a tfphi bug (please report it); moving to the wrong branch would destroy and recreate.\n"
    )
    assert "moved {" in preview.files["moved/env_eu.tf"] and "moved {" in preview.files["moved/env_prod.tf"]


def test_a_value_outside_a_configured_universe_fails_the_plan_with_the_guard(tmp_path: Path, terraform: Terraform):
    """Issue 22 defect 11: with a configured universe the root does not enforce, a customer who
    sets a value outside it gets a plan error naming the guard, never a plan with no database."""
    scenario = SCENARIOS["configured_universe"]
    original = write(tmp_path / "original", scenario.files)
    outdir = tmp_path / "out"
    written = tfphi("specialize", str(original), scenario.address, "--out", str(outdir))
    assert written.returncode == 0, written.stderr
    terraform.init(outdir)
    inside = terraform.run(outdir, "plan", "-no-color", "-lock=false", "-var=size=db.r6g.large", check=False)
    assert inside.returncode == 0, inside.stderr
    assert "module.db.module.db_db_r6g_large[0].terraform_data.db will be created" in inside.stdout
    outside = terraform.run(outdir, "plan", "-no-color", "-lock=false", "-var=size=db.m5.large", check=False)
    assert outside.returncode == 1
    error = " ".join(outside.stderr.split())
    assert "Error: Invalid value for variable" in error, error
    assert ('The specialization of module.db.terraform_data.db.input has a module for each of "db.t4g.medium", '
            '"db.r6g.large" only: any other value of var.size would create no terraform_data.db.') in error, error
    # The original configuration plans the same value without complaint: the guard is the specializer's.
    terraform.init(original)
    assert terraform.run(original, "plan", "-no-color", "-lock=false", "-var=size=db.m5.large", check=False).returncode == 0


DATA_UNIVERSE = {
    ".tfphi.toml": '[fields."terraform_data.input"]\nuniverse = ["a", "b"]\n',
    "main.tf": '''data "terraform_remote_state" "net" {
  backend = "local"
  config = {
    path = "net.tfstate"
  }
}

resource "terraform_data" "db" {
  input = data.terraform_remote_state.net.outputs.size
}
''',
}


@pytest.mark.parametrize("size, fails", [("b", False), ("c", True)])
def test_a_data_source_selector_is_guarded_by_an_output_precondition(size: str, fails: bool, tmp_path: Path, terraform: Terraform):
    """Where the universe's selector is not a root variable (a data source read at plan time), the
    guard is a precondition with the same condition, on an output of the root module."""
    original = write(tmp_path / "original", DATA_UNIVERSE)
    outdir = tmp_path / "out"
    written = tfphi("specialize", str(original), "terraform_data.db.input", "--out", str(outdir))
    assert written.returncode == 0, written.stderr
    network = write(tmp_path / "network", {"main.tf": f'output "size" {{\n  value = "{size}"\n}}\n'})
    terraform.init(network)
    terraform.apply(network, [])
    shutil.copy(network / "terraform.tfstate", outdir / "net.tfstate")
    terraform.init(outdir)
    assert terraform.validate(outdir)["valid"] and terraform.fmt_check(outdir) == []
    planned = terraform.run(outdir, "plan", "-no-color", "-lock=false", check=False)
    assert (planned.returncode != 0) == fails, planned.stdout + planned.stderr
    error = " ".join(planned.stderr.split())
    if fails:
        assert "Error: Module output value precondition failed" in error, error
        assert ('The specialization of terraform_data.db.input has a module for each of "a", "b" only: any other value of '
                "data.terraform_remote_state.net.outputs.size would create no terraform_data.db.") in error, error
    else:
        assert "module.db_b[0].terraform_data.db will be created" in planned.stdout
