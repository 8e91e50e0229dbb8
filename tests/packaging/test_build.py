"""The package as a package index and a user receive it: ``python -m build`` without a warning,
``twine check --strict`` clean, PEP 639 license metadata, a long description that renders on an
index (absolute links only), and the wheel installed alone in a fresh virtual environment runs
``tfphi check``."""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from checkout_copy import tracked_copy

REPO = Path(__file__).resolve().parents[2]
# Lines the machine's own pip configuration prints (an extra index on disk that lacks a
# package): not the build's, and not on a user's machine.
MACHINE_NOISE = re.compile(r"^WARNING: Location '.*' is ignored: it is neither a file nor a directory\.$")


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # PYTHONDONTWRITEBYTECODE (set on the project's machines) makes setuptools warn that it skips
    # byte-compiling: a property of this machine, not of the package.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    source = tracked_copy(tmp_path_factory.mktemp("source"))  # build writes egg-info and build/ into its source
    run = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    warnings = [line for line in (run.stdout + run.stderr).splitlines()
                if re.search(r"warn|deprecat", line, re.I) and not MACHINE_NOISE.match(line)]
    assert warnings == []
    return out


def test_build_gives_a_wheel_and_an_sdist_that_twine_accepts(dist):
    names = sorted(p.name for p in dist.iterdir())
    assert names == ["tfphi-0.1.0-py3-none-any.whl", "tfphi-0.1.0.tar.gz"]
    run = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("PASSED") == 2


def test_wheel_metadata(dist):
    with zipfile.ZipFile(dist / "tfphi-0.1.0-py3-none-any.whl") as wheel:
        metadata = email.parser.Parser().parsestr(wheel.read("tfphi-0.1.0.dist-info/METADATA").decode())
        license_text = wheel.read("tfphi-0.1.0.dist-info/licenses/LICENSE").decode()
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert "License" not in metadata  # the deprecated free-text field
    assert license_text.startswith("MIT License\n\nCopyright (c) 2025 tfphi contributors\n")
    assert dict(url.split(", ", 1) for url in metadata.get_all("Project-URL")) == {
        "Homepage": "https://github.com/tfphi/tfphi",
        "Documentation": "https://github.com/tfphi/tfphi/tree/main/docs",
        "Source": "https://github.com/tfphi/tfphi",
        "Issues": "https://github.com/tfphi/tfphi/issues",
        "Changelog": "https://github.com/tfphi/tfphi/releases",
    }
    classifiers = metadata.get_all("Classifier")
    assert "Programming Language :: Python :: 3.10" in classifiers and "Environment :: Console" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # PEP 639: the expression says it
    assert "terraform" in metadata["Keywords"].split(",")
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload() == (REPO / "docs" / "pypi.md").read_text()


def test_long_description_links_are_absolute():
    text = (REPO / "docs" / "pypi.md").read_text()
    targets = re.findall(r"\]\(([^)\s]+)", text) + re.findall(r"<img[^>]+src=\"([^\"]+)", text)
    assert targets, "the page links to the documentation"
    assert [t for t in targets if not t.startswith("https://")] == []
    assert "https://raw.githubusercontent.com/tfphi/tfphi/main/docs/hover.png" in targets
    assert (REPO / "docs" / "hover.png").is_file()
    for target in targets:  # each repository link names a file of this repository
        for prefix in ("https://github.com/tfphi/tfphi/blob/main/", "https://raw.githubusercontent.com/tfphi/tfphi/main/"):
            if target.startswith(prefix):
                assert (REPO / target[len(prefix):]).exists(), target


def test_the_wheel_alone_in_a_fresh_environment_runs_check(dist, tmp_path):
    """No source tree on the path: a new venv, the wheel and its dependencies from the package index."""
    env_dir = tmp_path / "alone"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    wheel = dist / "tfphi-0.1.0-py3-none-any.whl"
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stdout + install.stderr
    workspace = shutil.copytree(REPO / "examples" / "vendor-stack", tmp_path / "vendor-stack")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    alone = subprocess.run([str(env_dir / "bin" / "tfphi"), "check", "vendor-stack", "--format", "json"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    here = subprocess.run([sys.executable, "-m", "tfphi", "check", "vendor-stack", "--format", "json"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert (alone.returncode, alone.stdout) == (here.returncode, here.stdout)
    assert '"code": "unbounded-field"' in alone.stdout
    where = subprocess.run([str(python), "-c", "import tfphi; print(tfphi.__file__)"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert where.stdout.startswith(str(env_dir))  # the installed wheel, not the checkout
    assert workspace.exists()
