"""``tfphi check`` prints the same bytes whatever the process's string hashes are.

The host's tables (``tables.Table``) iterate in the keys' hash order, and Python salts string
hashes per process (``PYTHONHASHSEED``): anything that reports in a table's order instead of
sorting would print differently from one run to the next. The real CLI runs as a subprocess
under three seeds, on the example workspace and on a generated one, in every format and in a shard.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SEEDS = ("0", "1", "4242")


def _generate(outdir: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_generate", REPO / "bench" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(outdir, 30, seed=3)


def _check(workspace: Path, options: tuple[str, ...], seed: str) -> bytes:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONHASHSEED=seed)
    run = subprocess.run([sys.executable, "-m", "tfphi", "check", str(workspace), *options],
                         capture_output=True, env=env, timeout=120)
    assert run.returncode in (0, 1), run.stderr.decode()
    return run.stdout


# ``--shard`` splits the modules among runs by their order (check_scope): a second consumer of it.
@pytest.mark.parametrize("options", [("--format", "text"), ("--format", "json"), ("--format", "sarif"),
                                     ("--format", "json", "--shard", "1/2")], ids=" ".join)
@pytest.mark.parametrize("workspace", ["example", "generated"])
def test_check_output_is_the_same_under_every_hash_seed(tmp_path, workspace, options):
    if workspace == "example":
        root = REPO / "examples" / "vendor-stack"
    else:
        root = tmp_path / "ws"
        _generate(root)
    outputs = {seed: _check(root, options, seed) for seed in SEEDS}
    assert outputs["0"], "the check printed nothing"
    assert outputs["1"] == outputs["0"]
    assert outputs["4242"] == outputs["0"]
