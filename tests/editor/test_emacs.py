"""End to end through Emacs with eglot (Debian 12: emacs-nox 28 and elpa-eglot): emacs/eglot-e2e.el
loads docs/editors.md's eglot configuration, opens modules/cache/main.tf of the example workspace
(eglot-ensure connects it to ``tfphi serve``) and reports flymake's diagnostics and a hover; they are
compared whole with a snapshot."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from editor_support import check_snapshot

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("emacs") / "eglot-e2e.el"
INSTALL_HINT = "Emacs with eglot is not installed (apt-get install -y emacs-nox elpa-eglot; scripts/test.sh does)"


def emacs_binary() -> str:
    """``emacs``; skips with the install hint, fails under ``CI=true`` (scripts/test.sh installs it)."""
    path = shutil.which("emacs")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(INSTALL_HINT)
        pytest.skip(INSTALL_HINT)
    return path


def eglot_config() -> str:
    """The Lisp block of docs/editors.md's eglot section."""
    page = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    section = page.split("## Emacs: eglot", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"^```elisp\n(.*?)^```$", section, re.S | re.M)
    assert found, "docs/editors.md has no Lisp block for eglot"
    return found.group(1)


def test_emacs_eglot_diagnostics_and_hover(tmp_path: Path):
    emacs = emacs_binary()
    workspace = tmp_path / "vendor-stack"
    shutil.copytree(REPO / "examples" / "vendor-stack", workspace)
    config = tmp_path / "tfphi-eglot.el"
    config.write_text(eglot_config(), encoding="utf-8")
    out = tmp_path / "result.json"
    env = dict(os.environ)
    # `tfphi` as the page's configuration names it: the one installed beside this interpreter
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "server"), env.get("PYTHONPATH")]))
    env.update(TFPHI_WS=str(workspace), TFPHI_OUT=str(out), TFPHI_CONFIG=str(config), HOME=str(tmp_path / "home"))
    assert shutil.which("tfphi", path=env["PATH"]), "tfphi is not installed beside this interpreter (pip install -e .)"
    proc = subprocess.run([emacs, "--batch", "-l", str(SCRIPT)], env=env, cwd=workspace, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=180)
    assert out.exists(), f"no result (exit {proc.returncode})\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
    result = json.loads(out.read_text())
    assert result["errors"] == [], f"{result}\nstderr: {proc.stderr}"
    assert proc.returncode == 0 and result["stopped"] is True
    lines = [f"server: {result['server']}", "", "# flymake's diagnostics in modules/cache/main.tf"]
    for d in result["diagnostics"]:
        lines += [f"{d['line']}:{d['column']} {d['type']}", d["text"], ""]
    lines += ["# hover on var.node_type", result["hover"], ""]
    check_snapshot("emacs_eglot.txt", "\n".join(lines))
