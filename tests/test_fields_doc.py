"""docs/fields.md lists every entry of the built-in field registry, with its universe as shipped."""

from __future__ import annotations

import re
from pathlib import Path

from tfphi.config import Config

DOC = Path(__file__).resolve().parents[1] / "docs" / "fields.md"


def documented() -> dict[str, tuple[str, ...]]:
    """field -> universe, from the table rows of docs/fields.md."""
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`[a-z0-9_.]+`", cells[0]):
            universe = () if cells[1] == "—" else tuple(re.findall(r"`([^`]+)`", cells[1]))
            rows[cells[0].strip("`")] = universe
    return rows


def test_every_built_in_field_is_documented_with_its_universe():
    built_in = {key: tuple(spec.universe) for key, spec in Config().fields.items()}
    assert documented() == built_in
