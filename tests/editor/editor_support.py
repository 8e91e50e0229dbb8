"""Helpers of the editor-feature tests (semantic tokens, trace graph): whole-output snapshots."""

from __future__ import annotations

from pathlib import Path

import snapshots

SNAPSHOTS = Path(__file__).parent / "snapshots"


def check_snapshot(name: str, text: str) -> None:
    """``text`` must equal the stored snapshot ``snapshots/<name>``."""
    snapshots.check_snapshot(SNAPSHOTS / name, text)
