from __future__ import annotations

from pathlib import Path

import pytest
import snapshots

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
    snapshots.check_snapshot(SNAPSHOTS / name, text)
