from __future__ import annotations

import os
from pathlib import Path

import pytest

from tfphi.loader import load_workspace

SNAPSHOTS = Path(__file__).parent / "snapshots"
ROOT = Path(__file__).resolve().parents[2]


def write_workspace(root: Path, files: dict[str, str]):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return load_workspace(root)


@pytest.fixture
def workspace(tmp_path):
    return lambda files: write_workspace(tmp_path, files)


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("TFPHI_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if os.environ.get("TFPHI_UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"snapshot {name} did not exist; it was written - review it and rerun")
        return
    assert text == path.read_text(encoding="utf-8"), f"snapshot {name} differs (TFPHI_UPDATE_SNAPSHOTS=1 rewrites it)"
