"""Helpers of the editor-feature tests (semantic tokens, trace graph): whole-output snapshots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).parent / "snapshots"


def check_snapshot(name: str, text: str) -> None:
    """``text`` must equal the stored snapshot; TFPHI_UPDATE_SNAPSHOTS=1 rewrites it."""
    path = SNAPSHOTS / name
    if os.environ.get("TFPHI_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if os.environ.get("TFPHI_UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"snapshot {name} did not exist; it was written - review it and rerun")
        return
    assert text == path.read_text(encoding="utf-8"), f"snapshot {name} differs (TFPHI_UPDATE_SNAPSHOTS=1 rewrites it)"
