"""A copy of this checkout's tracked files, as a fresh clone has them (no .venv, no build output),
for tests that build or set up in a checkout without touching this one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tracked_copy(dest: Path, skip: tuple[str, ...] = ("vscode-client/",)) -> Path:
    """Copies the files git tracks (less those under ``skip``) into ``dest``; returns ``dest``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    for rel in filter(None, (name.decode() for name in listed)):
        if rel.startswith(skip) or not (REPO / rel).is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, dest / rel)
    return dest
