"""``tfphi check``'s CI formats and options (SPEC section 1): ``--format github`` and ``gitlab``,
``--output FILE``, PATHs that are files (what pre-commit passes), ``--shard K/N`` (the shards
together are exactly the unsharded run), and the progress line on a terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jsonschema
import pytest

from phi_fixture import run_cli

REPO = Path(__file__).resolve().parents[2]
GITLAB_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "gitlab-code-quality.schema.json").read_text())

# A monorepo: seven roots sharing modules/db (an undefined reference in every root; an unbounded
# field only where the root's variable has no default), a variable file per root with a variable
# nobody declares, a root with a syntax error, and a configuration problem.
DB = '''variable "engine_version" {
  type = string
}

resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = local.missing
}
'''
ENVS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")


def env_main(name: str) -> str:
    default = '  default = "15.4"\n' if name in ("alpha", "delta") else ""
    return (f'variable "engine_version" {{\n  type = string\n{default}}}\n\n'
            'module "db" {\n  source         = "../../modules/db"\n  engine_version = var.engine_version\n}\n')


def monorepo(root: Path) -> Path:
    files = {"modules/db/main.tf": DB, "tools/main.tf": 'resource "x" "y" {\n  a = \n', ".tfphi.toml": "bogus = 1\n"}
    for name in ENVS:
        files[f"envs/{name}/main.tf"] = env_main(name)
        files[f"envs/{name}/terraform.tfvars"] = f'unknown_{name} = "x"\n'
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".git").mkdir()  # the repository root: formats name files relative to it
    return root


def check(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli("check", *args, cwd=cwd)


def json_entries(*args: str, cwd: Path) -> list[dict]:
    run = check(*args, "--format", "json", "--fail-on", "never", cwd=cwd)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["diagnostics"]


# ---- github ----------------------------------------------------------------------------------


def test_github_annotations_name_files_from_the_repository_root(tmp_path):
    repo = monorepo(tmp_path)
    run = check("envs/bravo", "--format", "github", cwd=repo)
    assert run.returncode == 1  # the undefined reference is an error
    lines = run.stdout.decode().splitlines()
    # sorted as in every format (by file relative to DIR: ../../modules/db first)
    assert [line.split("::")[1] for line in lines] == [
        "warning file=modules/db/main.tf,line=7,col=20,endLine=7,title=unbounded-field",
        "error file=modules/db/main.tf,line=8,col=20,endLine=8,title=undefined-reference",
        "warning file=envs/bravo/terraform.tfvars,line=1,col=1,endLine=1,title=undeclared-variable",
    ]
    # the message is the whole diagnostic text, newlines escaped: one command per line
    assert lines[0].split("::", 2)[2] == (
        "can't determine the value of engine_version: var.engine_version has no default value, and no validation block "
        "lists the allowed values; var.engine_version is declared at main.tf:1."
        "%0Aaws_db_instance.this.engine_version is set to var.engine_version. Call path: module.db."
        "%0AFix (any one works):"
        "%0A  1. constrain var.engine_version with a validation block: condition = contains([\"value1\", \"value2\"], var.engine_version) "
        "(usually the right choice: every listed value gets its own specialization)."
        "%0A  2. give var.engine_version a default."
    )


def test_github_escapes_what_the_runner_reads():
    from tfphi.output.github import escape_data, escape_property

    assert escape_data("100% sure\r\nnext: a, b") == "100%25 sure%0D%0Anext: a, b"
    assert escape_property("dir,1/a:b%.tf\n") == "dir%2C1/a%3Ab%25.tf%0A"


def test_github_file_property_with_separators(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a,b:c").mkdir()
    (tmp_path / "a,b:c" / "main.tf").write_text('output "x" {\n  value = local.nope\n}\n')
    run = check("a,b:c", "--format", "github", cwd=tmp_path)
    assert run.stdout.decode() == (
        "::error file=a%2Cb%3Ac/main.tf,line=2,col=11,endLine=2,title=undefined-reference::"
        "undefined reference to local.nope: no locals block declares it\n"
    )


# ---- gitlab ----------------------------------------------------------------------------------


def test_gitlab_code_quality_report_matches_gitlab_schema(tmp_path):
    repo = monorepo(tmp_path)
    run = check(".", "--format", "gitlab", cwd=repo / "envs")  # DIR below the repository root
    assert run.returncode == 1
    issues = json.loads(run.stdout)
    jsonschema.validate(issues, GITLAB_SCHEMA)
    assert [(i["location"]["path"], i["location"]["lines"]["begin"], i["check_name"], i["severity"]) for i in issues] == [
        ("modules/db/main.tf", 7, "unbounded-field", "minor"),  # ../modules/db/main.tf from DIR: sorted first
        ("modules/db/main.tf", 8, "undefined-reference", "major"),
        *[(f"envs/{name}/terraform.tfvars", 1, "undeclared-variable", "minor") for name in ENVS],
    ]
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    again = json.loads(check(".", "--format", "gitlab", cwd=repo / "envs").stdout)
    assert again == issues


def test_gitlab_schema_rejects_what_gitlab_rejects():
    good = {"description": "d", "check_name": "c", "fingerprint": "f", "severity": "minor",
            "location": {"path": "a/b.tf", "lines": {"begin": 1}}}
    jsonschema.validate([good], GITLAB_SCHEMA)
    for bad in ({**good, "severity": "warning"}, {k: v for k, v in good.items() if k != "fingerprint"},
                {**good, "location": {"path": "/abs/b.tf", "lines": {"begin": 1}}}, {**good, "location": {"path": "b.tf"}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate([bad], GITLAB_SCHEMA)


# ---- --output --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "gitlab"])
def test_output_file_holds_what_stdout_would(tmp_path, fmt):
    repo = monorepo(tmp_path / "repo")
    printed = check(".", "--format", fmt, cwd=repo)
    written = check(".", "--format", fmt, "--output", str(tmp_path / "report"), cwd=repo)
    assert (written.returncode, written.stdout) == (printed.returncode, b"")
    assert (tmp_path / "report").read_bytes() == printed.stdout


def test_output_to_an_unwritable_place_is_a_usage_error(tmp_path):
    repo = monorepo(tmp_path / "repo")
    run = check(".", "--output", str(tmp_path / "no" / "such" / "dir" / "report"), cwd=repo)
    assert run.returncode == 2
    assert b"cannot write" in run.stderr


# ---- files as PATHs (pre-commit) -------------------------------------------------------------


def test_a_file_stands_for_the_roots_that_contain_it(tmp_path):
    repo = monorepo(tmp_path)
    everything = json_entries(".", cwd=repo)
    # a shared module's file: every root reaching it, so everything but the root that does not
    # (.tfphi.toml's problem holds in every root)
    shared = json_entries("modules/db/main.tf", cwd=repo)
    assert shared == [e for e in everything if e["file"] != "tools/main.tf"]
    # a root's file and its variable file: what holds in that root
    bravo = json_entries("envs/bravo/main.tf", "envs/bravo/terraform.tfvars", cwd=repo)
    assert [(e["file"], e["code"]) for e in bravo] == [
        (".tfphi.toml", "config-error"),
        ("envs/bravo/terraform.tfvars", "undeclared-variable"),
        ("modules/db/main.tf", "unbounded-field"),
        ("modules/db/main.tf", "undefined-reference"),
    ]
    alpha = json_entries("envs/alpha/main.tf", cwd=repo)  # alpha's variable has a default: no unbounded field
    assert [(e["file"], e["code"]) for e in alpha] == [(".tfphi.toml", "config-error"),
        ("envs/alpha/terraform.tfvars", "undeclared-variable"), ("modules/db/main.tf", "undefined-reference")]
    assert [(e["file"], e["code"]) for e in json_entries("tools/main.tf", cwd=repo)] == [
        (".tfphi.toml", "config-error"), ("tools/main.tf", "syntax-error")]


def test_a_file_outside_the_current_directory_is_read_with_its_repository(tmp_path):
    repo = monorepo(tmp_path)
    from_root = json_entries("modules/db/main.tf", cwd=repo)
    from_below = json_entries("../../modules/db/main.tf", cwd=repo / "envs" / "bravo")
    assert from_below == from_root  # the repository is loaded: every root calling the module is found


def test_a_clean_file_passes_and_a_broken_one_fails(tmp_path):
    (tmp_path / "main.tf").write_text('variable "x" {\n  default = 1\n}\n\noutput "y" {\n  value = var.x\n}\n')
    assert check("main.tf", cwd=tmp_path).returncode == 0
    (tmp_path / "main.tf").write_text('output "y" {\n  value = var.x\n}\n')
    run = check("main.tf", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout.decode().startswith("main.tf:2:11: error[undefined-reference]")


def test_a_file_outside_every_configuration_or_missing_is_a_usage_error(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    assert check("notes.txt", cwd=tmp_path).returncode == 2
    run = check("missing.tf", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (2, b"tfphi: error: missing.tf does not exist; nothing to analyse\n")
    run = check("main.tf", "missing.tf", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (2, b"tfphi: error: main.tf does not exist\n")


# ---- --shard ---------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_the_shards_together_are_the_unsharded_run(tmp_path, count):
    repo = monorepo(tmp_path)
    everything = json_entries(".", cwd=repo)
    shards = [json_entries(".", "--shard", f"{k}/{count}", cwd=repo) for k in range(1, count + 1)]
    union = sorted((e for shard in shards for e in shard), key=json.dumps)
    assert union == sorted(everything, key=json.dumps)  # nothing repeated, nothing dropped
    assert len(union) == len(everything) == 11
    assert json_entries(".", "--shard", f"1/{count}", cwd=repo) == shards[0]  # deterministic


def test_a_shard_keeps_its_roots_when_roots_are_added(tmp_path):
    repo = monorepo(tmp_path)
    before = {e["file"] for e in json_entries(".", "--shard", "2/3", cwd=repo)}
    (repo / "envs" / "hotel").mkdir()
    (repo / "envs" / "hotel" / "main.tf").write_text(env_main("hotel"))
    after = {e["file"] for e in json_entries(".", "--shard", "2/3", cwd=repo)}
    assert before - {"modules/db/main.tf"} <= after


# The official SARIF schema: ../shared/sarif/ beside the clone (as CI lays it out), else the team's copy.
SARIF_SCHEMA = next((p / "sarif" / "sarif-schema-2.1.0.json" for p in (REPO.parent / "shared", Path("/work/shared"))
                     if (p / "sarif" / "sarif-schema-2.1.0.json").exists()), REPO.parent / "shared" / "sarif" / "sarif-schema-2.1.0.json")


def test_sarif_names_its_shard(tmp_path):
    repo = monorepo(tmp_path)
    schema = json.loads(SARIF_SCHEMA.read_text())
    for k in (1, 2, 3):
        log = json.loads(check(".", "--format", "sarif", "--shard", f"{k}/3", cwd=repo).stdout)
        assert log["runs"][0]["automationDetails"] == {"id": f"tfphi/shard-{k}-of-3/"}
        jsonschema.validate(log, schema)
    assert "automationDetails" not in json.loads(check(".", "--format", "sarif", cwd=repo).stdout)["runs"][0]


@pytest.mark.parametrize("bad", ["0/2", "3/2", "2", "a/b", "1/0", "-1/2"])
def test_a_bad_shard_is_a_usage_error(tmp_path, bad):
    repo = monorepo(tmp_path)
    run = check(".", f"--shard={bad}", cwd=repo)
    assert run.returncode == 2
    assert b"--shard" in run.stderr


# ---- progress on a terminal ------------------------------------------------------------------


def _generate(out: Path, modules: int) -> Path:
    subprocess.run([sys.executable, str(REPO / "bench" / "generate.py"), str(out), "--modules", str(modules)],
                   check=True, capture_output=True)
    return out


def _run_on_terminal(args: list[str], cwd: Path) -> tuple[bytes, bytes, float]:
    """Runs ``tfphi`` with stderr on a pseudo-terminal and stdout on a pipe: (stdout, what the terminal showed, seconds)."""
    controller, terminal = pty.openpty()
    start = time.monotonic()
    # stdout goes to a file: a pipe read only at the end would fill (a large report) and stall the run
    stdout = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "tfphi", *args], cwd=cwd, stdout=stdout,
                            stderr=terminal, stdin=subprocess.DEVNULL)
    os.close(terminal)
    shown = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    proc.wait(timeout=120)
    seconds = time.monotonic() - start
    os.close(controller)
    stdout.seek(0)
    out = stdout.read()
    stdout.close()
    return out, shown, seconds


@pytest.fixture(scope="module")
def large_workspace(tmp_path_factory):
    return _generate(tmp_path_factory.mktemp("progress") / "ws", 1500)  # about 2.5 s on a quiet 2-core machine


def test_progress_shows_on_a_terminal_and_machine_formats_stay_the_same(large_workspace):
    piped = subprocess.run([sys.executable, "-m", "tfphi", "check", ".", "--format", "json", "--fail-on", "never"],
                           cwd=large_workspace, capture_output=True)
    out, shown, seconds = _run_on_terminal(["check", ".", "--format", "json", "--fail-on", "never"], large_workspace)
    assert seconds > 1.5, "the workspace must take longer than the progress delay"
    assert out == piped.stdout  # byte-identical with and without a terminal
    assert piped.stderr == b""  # not a terminal: no progress
    # The line appears once the run has lasted a second: during the analysis (on a quiet machine
    # the files are read before that; on a loaded one the reading shows first).
    assert b"tfphi: analysing modules " in shown
    assert shown.find(b"tfphi: reading files ") < shown.find(b"tfphi: analysing modules ")
    assert shown.endswith(b"\r\x1b[K")  # the line is erased at the end


def test_quiet_shows_no_progress(large_workspace):
    out, shown, _ = _run_on_terminal(["check", ".", "--quiet", "--fail-on", "never"], large_workspace)
    assert shown == b""
    assert out  # the text report itself still goes to stdout


def test_a_short_run_shows_nothing(tmp_path):
    (tmp_path / "main.tf").write_text('variable "x" {\n  default = 1\n}\n')
    out, shown, _ = _run_on_terminal(["check", "."], tmp_path)
    assert (out, shown) == (b"", b"tfphi: no problems found\r\n")
