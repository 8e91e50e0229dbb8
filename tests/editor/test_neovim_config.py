"""docs/editors.md's Neovim 0.7 configuration works as printed: nvim/docs_config.lua runs the page's
Lua block in a headless Neovim 0.7, whose FileType autocommand starts ``tfphi serve`` and attaches
it; with a second server attached, ``K`` shows both hovers in one window (compared whole)."""

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
DRIVER = Path(__file__).with_name("nvim") / "docs_config.lua"
INSTALL_HINT = "nvim is not installed (apt-get install -y neovim; scripts/test.sh does)"


def neovim_config() -> str:
    """The first Lua block of docs/editors.md's Neovim 0.7 section."""
    page = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    section = page.split("## Neovim 0.7 to 0.10", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"^```lua\n(.*?)^```$", section, re.S | re.M)
    assert found, "docs/editors.md has no Lua block for Neovim 0.7"
    return found.group(1)


def test_the_documented_neovim_07_configuration(tmp_path: Path):
    nvim = shutil.which("nvim")
    if nvim is None:
        if os.environ.get("CI") == "true":
            pytest.fail(INSTALL_HINT)
        pytest.skip(INSTALL_HINT)
    workspace = tmp_path / "vendor-stack"
    shutil.copytree(REPO / "examples" / "vendor-stack", workspace)
    config = tmp_path / "init.lua"
    config.write_text(neovim_config(), encoding="utf-8")
    out = tmp_path / "result.json"
    env = dict(os.environ)
    # `tfphi` as the page's configuration names it: the one installed beside this interpreter
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "server"), env.get("PYTHONPATH")]))
    env.update(TFPHI_CONFIG=str(config), TFPHI_WS=str(workspace), TFPHI_OUT=str(out), HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert shutil.which("tfphi", path=env["PATH"]), "tfphi is not installed beside this interpreter (pip install -e .)"
    proc = subprocess.run([nvim, "--headless", "--clean", "-n", "-c", f"luafile {DRIVER}"], env=env, cwd=workspace,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert out.exists(), f"no result (exit {proc.returncode})\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
    result = json.loads(out.read_text())
    assert result["errors"] == [], result
    assert result["filetype"] == "terraform" and result["clients"] == ["other", "tfphi"]
    check_snapshot("neovim_hover_all.md", "\n".join(result["hover"]) + "\n")
