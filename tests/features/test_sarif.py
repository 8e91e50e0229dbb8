"""SARIF that GitHub code scanning takes whole (SPEC 1): checked against the official schema
with its format checks and with Microsoft's SARIF validator (GitHub rules on)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from jsonschema import Draft7Validator
from phi_fixture import run_cli

from tfphi.output.sarif import CODES

# The official schema: ../shared/sarif/ beside the clone (as CI lays it out), else the team's copy.
_SCHEMAS = [Path(__file__).resolve().parents[2].parent / "shared", Path("/work/shared")]
SCHEMA = next((p / "sarif" / "sarif-schema-2.1.0.json" for p in _SCHEMAS if (p / "sarif" / "sarif-schema-2.1.0.json").exists()),
              _SCHEMAS[0] / "sarif" / "sarif-schema-2.1.0.json")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
MULTITOOL = Path(__file__).resolve().parents[2] / ".cache" / "sarif-multitool" / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"

UNBOUNDED = '''variable "engine" {
  type = string
}

resource "aws_db_instance" "app" {
  engine_version = var.engine
}
'''


def _repository(tmp_path: Path) -> tuple[Path, Path]:
    """A git work tree with a root module in examples/replica, whose file names need encoding."""
    repo = tmp_path / "repo"
    root = repo / "examples" / "replica"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (root / "main.tf").write_text(UNBOUNDED)
    (root / "my file.tf").write_text("locals {\n  a = var.nope\n}\n")
    (root / "a#b.tf").write_text("locals {\n  b = local.nope\n}\n")
    (root / "100%.tf").write_text("locals {\n  c = module.nope.x\n}\n")
    return repo, root


def _sarif(root: Path, cwd: Path) -> dict:
    proc = run_cli("check", str(root), "--format", "sarif", "--fail-on", "warning", cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    return json.loads(proc.stdout)


def test_uris_are_relative_to_the_repository_root_and_percent_encoded(tmp_path):
    repo, root = _repository(tmp_path)
    log = _sarif(root.relative_to(repo), cwd=repo)  # run from the repository root, as CI does
    run = log["runs"][0]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert uris == [
        {"uri": "examples/replica/100%25.tf", "uriBaseId": "%SRCROOT%"},
        {"uri": "examples/replica/a%23b.tf", "uriBaseId": "%SRCROOT%"},
        {"uri": "examples/replica/main.tf", "uriBaseId": "%SRCROOT%"},
        {"uri": "examples/replica/my%20file.tf", "uriBaseId": "%SRCROOT%"},
    ]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"


def test_without_a_git_work_tree_uris_are_relative_to_dir(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    (root / "main.tf").write_text(UNBOUNDED)
    log = _sarif(root, cwd=tmp_path)
    [result] = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "main.tf"
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.resolve().as_uri() + "/"


def test_rules_carry_their_documentation_as_help():
    from tfphi.output.sarif import rule

    for code in CODES:
        page = (DOCS / f"{code}.md").read_text()
        entry = rule(code)
        assert entry["help"]["markdown"] == page.strip()
        assert entry["fullDescription"]["text"] and entry["fullDescription"]["text"] != entry["shortDescription"]["text"]
        # the package ships the same pages the repository documents
        assert (Path(__file__).resolve().parents[2] / "server" / "tfphi" / "data" / "rules" / f"{code}.md").read_text() == page


def test_related_locations_are_linked_from_the_message_and_fingerprints_ignore_line_moves(tmp_path):
    repo, root = _repository(tmp_path)
    before = _sarif(root, cwd=repo)["runs"][0]["results"]
    [unbounded] = [r for r in before if r["ruleId"] == "unbounded-field"]
    assert unbounded["relatedLocations"][0]["id"] == 1
    assert unbounded["message"]["text"].endswith("See: [var.engine is declared here](1).")
    (root / "main.tf").write_text("# a comment that moves every line\n\n" + UNBOUNDED)
    after = _sarif(root, cwd=repo)["runs"][0]["results"]
    [moved] = [r for r in after if r["ruleId"] == "unbounded-field"]
    assert moved["locations"][0]["physicalLocation"]["region"]["startLine"] == unbounded["locations"][0]["physicalLocation"]["region"]["startLine"] + 2
    assert moved["partialFingerprints"] == unbounded["partialFingerprints"]
    prints = [r["partialFingerprints"]["tfphi/v1"] for r in before]
    assert len(set(prints)) == len(prints)


def test_the_log_is_valid_against_the_official_schema_with_format_checks(tmp_path):
    repo, root = _repository(tmp_path)
    log = _sarif(root, cwd=repo)
    schema = json.loads(SCHEMA.read_text())
    validator = Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []
    # A URI the format check rejects proves the check runs.
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "my file.tf"
    assert any("uri" in e.message for e in validator.iter_errors(broken))


def _multitool() -> str | None:
    found = os.environ.get("SARIF_MULTITOOL") or (str(MULTITOOL) if MULTITOOL.exists() else None)
    return found or shutil.which("sarif-multitool-linux")


def test_microsofts_validator_with_github_rules_finds_no_error_or_warning(tmp_path):
    tool = _multitool()
    if tool is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the SARIF validator is missing: scripts/test.sh installs it (npm @microsoft/sarif-multitool)")
        pytest.skip("install the SARIF validator: npm install --prefix .cache/sarif-multitool @microsoft/sarif-multitool")
    repo, root = _repository(tmp_path)
    log = _sarif(root, cwd=repo)
    target = tmp_path / "tfphi.sarif"
    target.write_text(json.dumps(log))
    out = tmp_path / "validation.sarif"
    proc = subprocess.run(
        [tool, "validate", "--rule-kind", "Gh;Sarif", "--level", "Error;Warning", "--output", str(out), str(target)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    findings = [
        f"{r['ruleId']}: {r['message'].get('text', r['message'])}"
        for run in json.loads(out.read_text())["runs"] for r in run.get("results", [])
        if r.get("level", "warning") in ("error", "warning")
    ]
    assert findings == []
    # The validator does judge: a result without a location breaks GitHub's rule GH1001.
    del log["runs"][0]["results"][0]["locations"]
    target.write_text(json.dumps(log))
    judged = tmp_path / "judged.sarif"  # the validator does not overwrite an existing output file
    subprocess.run([tool, "validate", "--rule-kind", "Gh;Sarif", "--level", "Error;Warning", "--output", str(judged), str(target)],
                   capture_output=True, text=True, timeout=300)
    rules = {r["ruleId"] for run in json.loads(judged.read_text())["runs"] for r in run.get("results", [])}
    assert any(rule.startswith("GH") for rule in rules), rules
