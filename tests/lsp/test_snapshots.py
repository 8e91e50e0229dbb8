"""Snapshots through the real server: no answer from a half-built index, spans right after any
edit, republishing what moved, and one module's failure isolated (issue 11, defects 5-7)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_helpers import REPO, position_of, start_session, stop_session, uri

FILLER_MODULES = 150  # enough files that indexing yields to the client many times


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


CHILD_MAIN = '''resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = var.engine_version
}
'''
CHILD_VARIABLES = '''variable "engine_version" {
  type = string
}
'''
CALLER = '''module "db" {
  source         = "../db"
  engine_version = "15.4"
}
'''


def child_and_caller(root: Path, filler: int = FILLER_MODULES) -> None:
    """``db`` (no default for engine_version), many filler roots, and ``stack`` calling ``../db``: read last."""
    files = {"db/main.tf": CHILD_MAIN, "db/variables.tf": CHILD_VARIABLES, "stack/main.tf": CALLER}
    for n in range(filler):
        files[f"filler/f{n:03}/main.tf"] = f'locals {{\n  n = {n}\n}}\n'
    write(root, files)


async def test_a_hover_sent_while_the_folder_is_first_indexed_waits_for_the_whole_index(tmp_path: Path):
    """Defect 7: a hover right after opening a child module's file said its field was Unbounded
    (``var.engine_version`` "has no default value": the caller's file was not read yet)."""
    child_and_caller(tmp_path)
    session = await start_session([tmp_path])
    try:
        path = tmp_path / "db" / "main.tf"
        u = session.open(path)
        hover = await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=u), position=session.pos(u, "var.engine_version", delta=4)))
        assert hover is not None
        text = hover.contents.value
        assert "has no default value" not in text
        assert "**resolved**" in text and '"15.4"' in text
    finally:
        await stop_session(session)


CHILD_WITH_OUTPUT = '''resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = var.engine_version
}

output "engine" {
  value = var.mode == "prod" ? "15.4" : "14.9"
}
'''
CHILD_VARS_2 = '''variable "engine_version" {
  type = string
}

variable "mode" {
  type = string
}
'''
ROOT_USING_OUTPUT = '''variable "mode" {
  type = string
}

variable "fallback" {
  type = string
}

module "db" {
  source         = "./db"
  engine_version = var.fallback
  mode           = var.mode
}

resource "aws_db_instance" "copy" {
  engine         = "postgres"
  engine_version = module.db.engine
}
'''


async def hover_markdown(session, u: str, marker: str) -> str:
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=u), position=session.pos(u, marker, delta=1)))
    assert hover is not None, f"no hover at {marker}"
    return hover.contents.value


async def test_comment_lines_above_a_childs_output_leave_the_roots_trace_right(tmp_path: Path):
    """Defect 5: two comment lines above a child's ``output`` left the root field's trace
    pointing at ``'utput '``: the hover after the edit equals a fresh server's on the same text."""
    live, fresh = tmp_path / "live", tmp_path / "fresh"
    files = {"main.tf": ROOT_USING_OUTPUT, "db/main.tf": CHILD_WITH_OUTPUT, "db/variables.tf": CHILD_VARS_2}
    write(live, files)
    edited = CHILD_WITH_OUTPUT.replace('output "engine"', '# one\n# two\noutput "engine"')
    write(fresh, {**files, "db/main.tf": edited})
    session = await start_session([live])
    try:
        await session.wait_indexed()
        root = session.open(live / "main.tf")
        before = await hover_markdown(session, root, "module.db.engine")
        assert "db/main.tf" in before, "the trace goes through the child's output"
        child = session.open(live / "db" / "main.tf")
        session.replace(child, 'output "engine"', '# one\n# two\noutput "engine"')
        after = await hover_markdown(session, root, "module.db.engine")
    finally:
        await stop_session(session)
    session = await start_session([fresh])
    try:
        await session.wait_indexed()
        expected = await hover_markdown(session, session.open(fresh / "main.tf"), "module.db.engine")
    finally:
        await stop_session(session)
    assert after.replace(live.as_uri(), "ROOT") == expected.replace(fresh.as_uri(), "ROOT")
    assert after != before


async def test_an_edit_above_a_callers_variable_republishes_the_childs_related_location(tmp_path: Path):
    """Defect 5: an edit above a caller left another file's related location stale, unpublished."""
    write(tmp_path, {"main.tf": ROOT_USING_OUTPUT, "db/main.tf": CHILD_WITH_OUTPUT, "db/variables.tf": CHILD_VARS_2})
    session = await start_session([tmp_path])
    try:
        await session.wait_indexed()
        child = uri(tmp_path / "db" / "main.tf")
        [diag] = await session.wait_diagnostics(child, "unbounded-field")
        root = session.open(tmp_path / "main.tf")
        [info] = diag.related_information
        assert info.location.range.start == session.pos(root, '"fallback"')
        session.change(root, types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
                       "# one\n# two\n")
        expected = session.pos(root, '"fallback"')

        def moved():
            items = session.diagnostics(child, "unbounded-field")
            return items and items[0].related_information[0].location.range.start == expected

        await session.wait_for(moved, what="the child's related location to follow the edit")
    finally:
        await stop_session(session)


@pytest.mark.parametrize("stage", ["build", "fields"])
async def test_a_module_whose_analysis_raises_is_logged_and_the_others_are_published(tmp_path: Path, stage: str):
    """Defect 6: one module whose analysis raised stopped every later module's diagnostics, and
    its directory stayed pending (sorted first) forever. The fault comes through a test-only
    hook (``tests/lsp/faulty_server.py``), not from anything a workspace or client can send."""
    write(tmp_path, {
        "a_broken/main.tf": CHILD_MAIN + CHILD_VARIABLES,
        "main.tf": ROOT_USING_OUTPUT,
        "db/main.tf": CHILD_WITH_OUTPUT,
        "db/variables.tf": CHILD_VARS_2,
    })
    command = [sys.executable, str(REPO / "tests" / "lsp" / "faulty_server.py"), "a_broken", stage]
    session = await start_session([tmp_path], command=command)
    try:
        await session.wait_indexed()  # the first pass ends: nothing stays pending
        child = uri(tmp_path / "db" / "main.tf")
        await session.wait_diagnostics(child, "unbounded-field")
        await session.wait_for(lambda: any("a_broken failed" in m.message for m in session.client.log_messages),
                               what="the failure in the log")
        # later edits are still analysed and published
        u = session.open(tmp_path / "db" / "variables.tf")
        session.replace(u, 'variable "mode" {', 'variable "mode" {\n  default = "prod"')
        await session.wait_for(lambda: any(v == session.versions[u] for uu, v, _ in session.published if uu == u),
                               what="the edited document republished")
    finally:
        await stop_session(session)
