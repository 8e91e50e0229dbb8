"""Fixtures for the end-to-end tests (helpers are in lsp_helpers.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_asyncio

from lsp_helpers import EXAMPLE, start_session, stop_session


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A fresh copy of the example workspace."""
    dest = tmp_path / "vendor-stack"
    shutil.copytree(EXAMPLE, dest)
    return dest


@pytest_asyncio.fixture
async def session(workspace: Path):
    s = await start_session([workspace])
    await s.wait_indexed()
    yield s
    await stop_session(s)

