"""The README as a newcomer meets it: two commands (what .ci/run runs), the first of which works
with the distribution's own ``python3`` (externally managed, PEP 668: it makes and uses ``.venv``),
and links that lead somewhere."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from checkout_copy import tracked_copy

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def readme_commands() -> list[str]:
    """The README's first ```sh block, one command per line, comments stripped (as .ci/run reads it)."""
    block = re.search(r"^```sh\n(.*?)^```", (REPO / "README.md").read_text(), re.S | re.M).group(1)
    return [c for c in (re.sub(r"\s*#.*$", "", line).strip() for line in block.splitlines()) if c]


def test_the_readme_opens_with_two_commands_and_a_picture():
    assert readme_commands() == [". scripts/setup.sh && tfphi check examples/vendor-stack", "bash scripts/test.sh"]
    text = (REPO / "README.md").read_text()
    head = text[: text.index("\n## ")]
    picture = re.search(r"!\[[^\]]+\]\((docs/[^)]+\.(?:png|svg))\)", head)
    assert picture and (REPO / picture.group(1)).is_file()


@pytest.mark.parametrize("page", ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))])
def test_relative_links_lead_to_files(page):
    text = (REPO / page).read_text()
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:|#", target):
            continue
        if not (REPO / page).parent.joinpath(target.split("#")[0]).exists():
            missing.append(target)
    assert missing == []


def _system_python_is_external() -> bool:
    return SYSTEM_PYTHON.exists() and subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sysconfig, pathlib, sys; "
         "sys.exit(0 if (pathlib.Path(sysconfig.get_path('stdlib')) / 'EXTERNALLY-MANAGED').exists() else 1)"]).returncode == 0


def test_the_first_command_works_with_the_distribution_python(tmp_path):
    """A fresh copy of the checkout, PATH holding only the system's directories, no virtual environment."""
    if not SYSTEM_PYTHON.exists():
        if os.environ.get("CI"):
            pytest.fail("/usr/bin/python3 is missing: this test needs the distribution's Python")
        pytest.skip("no distribution python3 at /usr/bin/python3")
    copy = tracked_copy(tmp_path / "tfphi")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX")}
    env["PATH"] = SYSTEM_PATH
    which = subprocess.run(["bash", "-c", "command -v python3"], env=env, capture_output=True, text=True).stdout.strip()
    assert Path(which).resolve() == SYSTEM_PYTHON.resolve()
    if _system_python_is_external():  # the reason for .venv: a plain pip install is refused here
        refused = subprocess.run([which, "-m", "pip", "install", "--dry-run", "--no-deps", "."], cwd=copy, env=env,
                                 capture_output=True, text=True)
        assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", readme_commands()[0]], cwd=copy, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("modules/cache/main.tf:8:26: warning[unbounded-field]: can't determine the value of node_type")
    assert run.stderr.endswith("tfphi: 1 warning\n")
    assert (copy / ".venv" / "bin" / "tfphi").exists()
    venv_python = subprocess.run([str(copy / ".venv" / "bin" / "python"), "-c", "import sys; print(sys.base_prefix)"],
                                 capture_output=True, text=True).stdout.strip()
    assert venv_python == "/usr"
    # again: the .venv is reused, nothing to make
    again = subprocess.run(["bash", "-euo", "pipefail", "-c", readme_commands()[0]], cwd=copy, env=env,
                           capture_output=True, text=True, timeout=900)
    assert (again.returncode, again.stdout) == (0, run.stdout)
