"""End-to-end through a real editor: Neovim 0.7 headless drives ``python -m tfphi serve`` (see nvim/e2e.lua)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_helpers import server_env

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).with_name("nvim") / "e2e.lua"


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install -y neovim)")
def test_neovim_hover_and_quick_fix(workspace: Path, tmp_path: Path):
    out = tmp_path / "result.json"
    env = server_env()
    env.update(TFPHI_WS=str(workspace), TFPHI_OUT=str(out), TFPHI_PYTHON=sys.executable, HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([NVIM, "--headless", "--clean", "-n", "-c", f"luafile {SCRIPT}"], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, cwd=workspace)
    assert out.exists(), f"no result (exit {proc.returncode})\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
    result = json.loads(out.read_text())
    assert result["errors"] == [], result
    assert "node_type" in result["diagnostic"] and "cache_node_type" in result["diagnostic"]
    assert result["nvim_diagnostics"] >= 1
    assert "unbounded" in result["hover"] and "cache_node_type" in result["hover"]
    assert any(t.startswith("Add validation block") for t in result["actions"])
    assert "validation {" in result["applied"] and "contains(" in result["applied"]
    assert result["steps"][-2:] == ["gone", "stopped"]
    # the buffer's text, as Neovim holds it, is what the server analysed: the fix is in variables.tf
    assert os.path.exists(workspace / "variables.tf")
