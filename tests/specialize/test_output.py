"""The pieces of --out: fmt alignment (against terraform fmt), deployments, the OUTDIR copy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tfphi.loader import load_workspace
from tfphi.features.deployment_outcomes import Deployment, root_deployments
from tfphi.specialize.fmt import align

from terraform_cli import terraform_binary

from .terraform_support import Terraform

# Lines fmt aligns and lines it does not: chains broken by blank lines, comments, blocks and
# multi-line values; trailing comments; a heredoc; "=" inside strings and operators.
UNALIGNED = '''resource "terraform_data" "x" {
  input = 1
  triggers_replace = "x" # c1
  ccc = { a = 1 } # a longer comment
  tags = {
    Name = "x"
    longer_name = var.x == "a" ? 1 : 0
  }
  d = 2
  h = <<EOT
hello = world
EOT
  after = 3
  list = [
    1,
  ]
  e = "${var.a}=${var.b}"
  ffff = 1 >= 0
  # a comment breaks the chain
  g = 1
}

module "m" {
  source = "./x"
  name = var.n
  customer_env = var.customer_env # threaded
  x = 1 # y

  depends_on = [terraform_data.x]
}
'''


def test_align_matches_terraform_fmt(tmp_path: Path):
    terraform = Terraform(terraform_binary(), tmp_path)
    (tmp_path / "a.tf").write_text(UNALIGNED, encoding="utf-8")
    terraform.run(tmp_path, "fmt", "a.tf")
    formatted = (tmp_path / "a.tf").read_text(encoding="utf-8")
    assert formatted != UNALIGNED
    assert align(UNALIGNED) == formatted
    assert align(formatted) == formatted


def test_align_is_idempotent_on_every_snapshot():
    for path in sorted((Path(__file__).parent / "snapshots").rglob("*.tf")):
        for section in path.read_text(encoding="utf-8").split("\n# ==== ")[1:]:
            name, _, text = section.partition(" ====\n")
            if name.endswith(".tf"):
                assert align(text) == text, f"{path.name}: {name}"


def test_deployments_layer_over_the_auto_loaded_files(workspace):
    analysis = workspace({
        "main.tf": 'variable "a" {}\nvariable "b" {}\nvariable "c" {}\n',
        "terraform.tfvars": 'a = "base"\nb = "base"\n',
        "x.auto.tfvars": 'b = "auto"\n',
        "env/prod.tfvars": 'a = "prod"\nc = upper("p")\n',
        "env/odd.tfvars": "c = var.a\n",
        "child/main.tf": 'variable "a" {}\n',
        "child/env/dev.tfvars": 'a = "child"\n',  # the child module's, not this root's
    })
    # Terraform reads only literals from variable files: a call or a reference leaves the variable unset.
    assert root_deployments(analysis, "") == [
        Deployment("env/odd.tfvars", {"a": "base", "b": "auto"}, ("c",)),
        Deployment("env/prod.tfvars", {"a": "prod", "b": "auto"}, ("c",)),
        Deployment("terraform.tfvars", {"a": "base", "b": "auto"}),
    ]
    assert [d.name for d in root_deployments(analysis, "")] == ["env_odd", "env_prod", "terraform"]
    assert [d.auto_loaded for d in root_deployments(analysis, "")] == [False, False, True]


def test_outdir_copies_the_configuration_but_not_state_and_refuses_a_full_directory(tmp_path: Path):
    root = tmp_path / "ws"
    for rel, text in {
        "main.tf": 'variable "on" {\n  type = bool\n}\n\nresource "terraform_data" "x" {\n  input = var.on ? "a" : "b"\n}\n',
        "files/script.sh": "echo hi\n",
        "terraform.tfstate": "{}",
        ".terraform/modules/modules.json": '{"Modules": []}',
        ".git/HEAD": "ref",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    out = root / "out"  # inside the configuration: not copied into itself
    run = subprocess.run([sys.executable, "-m", "tfphi", "specialize", str(root), "terraform_data.x.input", "--out", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    copied = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert copied == [".tfphi/specialized/x_a/main.tf", ".tfphi/specialized/x_b/main.tf", "files/script.sh", "main.tf",
                      "provenance.json"]
    again = subprocess.run([sys.executable, "-m", "tfphi", "specialize", str(root), "terraform_data.x.input", "--out", str(out)],
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "is not an empty directory" in again.stderr



def test_layout_of_a_root_calling_modules_above_the_workspace():
    """DIR=envs/prod calling ../../modules/db: OUTDIR mirrors their common ancestor, named from DIR's path."""
    from tfphi.specialize.preview import output_layout
    from tfphi.specialize.specializer import Plan

    plan = Plan("module.db.terraform_data.db.input", "input", "bounded", call_path=(("", ""), ("db", "../../modules/db")))
    plan.files = {"main.tf": "", "../../modules/db/main.tf": "", "../../modules/db/.tfphi/specialized/db_a/main.tf": ""}
    base, root, placed = output_layout(plan, ("/", "repo", "envs", "prod"), ["", "../../modules/db"])
    assert (base, root) == ("../..", "envs/prod")
    assert placed == {"main.tf": "envs/prod/main.tf", "../../modules/db/main.tf": "modules/db/main.tf",
                      "../../modules/db/.tfphi/specialized/db_a/main.tf": "modules/db/.tfphi/specialized/db_a/main.tf",
                      "": "envs/prod", "../../modules/db": "modules/db"}
    # Everything below the workspace: OUTDIR is the root's directory itself.
    plan = Plan("a.b.c", "c", "bounded", call_path=(("", ""),))
    plan.files = {"main.tf": "", ".tfphi/specialized/b_x/main.tf": ""}
    assert output_layout(plan, ("/", "ws"), ["", "modules/x"])[:2] == ("", "")


def test_every_aws_scenario_output_is_formatted(tmp_path: Path):
    """fmt needs no provider: the AWS-shaped scenarios' outputs pass terraform fmt -check as well."""
    from tfphi.specialize.preview import specialize_address

    from .conftest import ROOT, write_workspace
    from .scenarios import SCENARIOS as AWS_SCENARIOS

    terraform = Terraform(terraform_binary(), tmp_path)
    for name, (files, address, _) in sorted(AWS_SCENARIOS.items()):
        analysis = load_workspace(ROOT / "examples" / "vendor-stack") if files is None else write_workspace(tmp_path / name, files)
        preview = specialize_address(analysis, address)
        out = tmp_path / f"{name}-out"
        for rel, text in preview.files.items():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_text(text, encoding="utf-8")
        assert terraform.fmt_check(out) == [], name


def test_a_deployments_value_read_as_an_index_key(workspace):
    """A deployment's value that only picks an element (an index key: its steps are set aside in
    the path's plain words) is a typed step like any other; both tracers took it for a string
    and failed on it (hypothesis found it through an edit in the server)."""
    from tfphi.features.deployment_outcomes import AssignedTracer
    from tfphi.trace.steps import words
    from tfphi.trace.env import SourceView
    from tfphi.trace.tracer import Tracer

    analysis = workspace({
        "main.tf": 'variable "k" {\n  type = string\n}\n\nlocals {\n  m = { a = "x", b = "y" }\n}\n\n'
                   'resource "terraform_data" "d" {\n  input = local.m[var.k]\n}\n',
        "terraform.tfvars": 'k = "a"\n',
        "env/b.tfvars": 'k = "b"\n',
    })
    resource = analysis.modules[""].resources["terraform_data.d"]
    view = SourceView(analysis.modules, analysis.tree, analysis.text)
    [root] = analysis.tree.call_paths("")
    seen = []
    for deployment in root_deployments(analysis, ""):
        for tracer, assignment in ((AssignedTracer(view, analysis.config.limits, deployment), None),
                                   (Tracer(view, analysis.config.limits), deployment.values)):
            result, _ = tracer.trace_field(root, resource, ("input",), assignment=assignment)
            [branch] = result.branches
            seen.append((deployment.file, branch.value, words(branch.path)))
    assert seen == [
        ("env/b.tfvars", "y", "local.m ← object"),
        ("env/b.tfvars", "y", "local.m ← object"),
        ("terraform.tfvars", "x", "local.m ← object"),
        ("terraform.tfvars", "x", "local.m ← object"),
    ]
