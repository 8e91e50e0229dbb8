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
    """A fresh server, for tests that change its state (edits, settings, files on disk)."""
    s = await start_session([workspace])
    await s.wait_indexed()
    yield s
    await stop_session(s)


@pytest.fixture(scope="module")
def shared_workspace(tmp_path_factory) -> Path:
    """A copy of the example workspace that no test of the module changes."""
    dest = tmp_path_factory.mktemp("shared") / "vendor-stack"
    shutil.copytree(EXAMPLE, dest)
    return dest


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_session(shared_workspace: Path):
    """One server for the tests of a module that only read its answers (as pygls's own end-to-end
    tests share theirs): they open documents and send requests, never change a text, a setting
    or a file. Their tests run in the module's event loop (``SHARED``, in lsp_helpers.py)."""
    s = await start_session([shared_workspace])
    s.shared = True
    await s.wait_indexed()
    yield s
    await stop_session(s)

