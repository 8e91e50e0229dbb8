"""Whole-output snapshots for every test folder: compare, or rewrite with TFPHI_UPDATE_SNAPSHOTS=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

UPDATE_FLAG = "TFPHI_UPDATE_SNAPSHOTS"


def check_snapshot(path: Path, text: str) -> None:
    """``text`` must equal the file at ``path``. With TFPHI_UPDATE_SNAPSHOTS=1 the file is
    rewritten instead (review the diff); a missing snapshot is written and the test fails."""
    if os.environ.get(UPDATE_FLAG) == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        if os.environ.get(UPDATE_FLAG) != "1":
            pytest.fail(f"snapshot {path.name} did not exist; it was written: review it and rerun")
        return
    assert text == path.read_text(encoding="utf-8"), f"snapshot {path.name} differs ({UPDATE_FLAG}=1 rewrites it)"
