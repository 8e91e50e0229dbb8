"""The CI integrations as their hosts read them: the pre-commit hook through ``pre-commit
try-repo`` on a throwaway repository, ``action.yml`` and the workflows against SchemaStore's
schemas (bundled with check-jsonschema), and the action's check step run as the runner runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
BROKEN = 'output "endpoint" {\n  value = var.missing\n}\n'
CLEAN = 'variable "name" {\n  type    = string\n  default = "db"\n}\n\noutput "name" {\n  value = var.name\n}\n'


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com"))


# ---- pre-commit ------------------------------------------------------------------------------


def test_the_hook_definition():
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {k: hook[k] for k in ("id", "entry", "language", "files", "require_serial")} == {
        "id": "tfphi", "entry": "tfphi check", "language": "python",
        "files": r"\.(tf|tofu|tfvars)(\.json)?$", "require_serial": True,
    }


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(project: Path, home: Path) -> subprocess.CompletedProcess:
    """``pre-commit try-repo`` of this checkout (its working tree, uncommitted changes included):
    pre-commit clones it and installs the hook's package into an environment of its own."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "tfphi", "--all-files"],
                          cwd=project, capture_output=True, text=True, env=env, timeout=900)


def test_pre_commit_fails_a_broken_file_and_passes_a_clean_one(tmp_path, pre_commit_home):
    project = tmp_path / "infra"
    (project / "modules" / "db").mkdir(parents=True)
    (project / "main.tf").write_text('module "db" {\n  source = "./modules/db"\n}\n')
    (project / "modules" / "db" / "outputs.tf").write_text(BROKEN)
    (project / "README.md").write_text("not Terraform\n")
    git("init", "-q", ".", cwd=project)
    git("add", "-A", cwd=project)
    failed = try_repo(project, pre_commit_home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "tfphi" in failed.stdout and "Failed" in failed.stdout
    # the module's file stands for the root that calls it; the path is the repository's
    assert "modules/db/outputs.tf:2:11: error[undefined-reference]: undefined reference to var.missing" in failed.stdout

    (project / "modules" / "db" / "outputs.tf").write_text(CLEAN)
    git("add", "-A", cwd=project)
    passed = try_repo(project, pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


# ---- GitHub and GitLab files against SchemaStore --------------------------------------------


SCHEMAS = {
    "action.yml": "vendor.github-actions",
    ".github/workflows/tfphi.yml": "vendor.github-workflows",
    ".github/workflows/release.yml": "vendor.github-workflows",
    "docs/ci/github-sharded.yml": "vendor.github-workflows",
    "docs/ci/github-pipx.yml": "vendor.github-workflows",
    "docs/ci/gitlab-ci.yml": "vendor.gitlab-ci",
}


@pytest.mark.parametrize("path", list(SCHEMAS))
def test_valid_against_schemastore(path):
    run = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", SCHEMAS[path], str(REPO / path)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_schemastore_check_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: 3\n        run: echo\n")
    run = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(broken)],
                         capture_output=True, text=True)
    assert run.returncode == 1


def test_the_action_uploads_sarif_with_codeql_upload_sarif():
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    uses = [step.get("uses", "") for step in action["runs"]["steps"]]
    assert "github/codeql-action/upload-sarif@v3" in uses
    upload = next(s for s in action["runs"]["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert upload["with"]["sarif_file"] == "${{ steps.check.outputs.sarif-file }}"


def _check_step(tmp_path: Path, inputs: dict[str, str]) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """The action's ``Check`` step as the runner runs a bash step (``bash --noprofile --norc -eo
    pipefail``), with its ``env`` from the inputs and this checkout's ``tfphi`` on PATH."""
    action = yaml.safe_load((REPO / "action.yml").read_text())
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "check")
    script = tmp_path / "check.sh"
    script.write_text(step["run"])
    defaults = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    values = {**defaults, **inputs}
    env = dict(os.environ)
    for key, expression in step["env"].items():
        name = expression.removeprefix("${{ inputs.").removesuffix(" }}")
        env[key] = values[name]
    output = tmp_path / "github_output"
    output.touch()
    env.update(RUNNER_TEMP=str(tmp_path), GITHUB_OUTPUT=str(output),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}")
    workspace = shutil.copytree(REPO / "examples" / "vendor-stack", tmp_path / "repo" / "examples" / "vendor-stack")
    (tmp_path / "repo" / ".git").mkdir()
    run = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                         cwd=workspace.parents[1], env=env, capture_output=True, text=True, timeout=300)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return run, outputs


def test_the_action_check_step_annotates_and_writes_sarif(tmp_path):
    run, outputs = _check_step(tmp_path, {"path": "examples/vendor-stack", "fail-on": "warning"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("::warning file=examples/vendor-stack/modules/cache/main.tf,line=8,col=26,")
    assert outputs == {"sarif-file": str(tmp_path / "tfphi.sarif"), "category": "tfphi", "exit-code": "1"}
    assert '"ruleId": "unbounded-field"' in Path(outputs["sarif-file"]).read_text()


def test_the_action_check_step_with_a_shard(tmp_path):
    run, outputs = _check_step(tmp_path, {"path": "examples/vendor-stack", "shard": "2/2", "annotations": "false"})
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""
    assert outputs["category"] == "tfphi/shard-2-of-2"
    assert outputs["sarif-file"] == str(tmp_path / "tfphi-shard-2-of-2.sarif")
    assert '"id": "tfphi/shard-2-of-2/"' in Path(outputs["sarif-file"]).read_text()
