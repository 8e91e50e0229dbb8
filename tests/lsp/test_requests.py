"""Requests read snapshots, and the first answer comes first (issue 23, points 7 and 8), through the real server.

- A request never feeds a change to the analysis or builds it: it waits for the scheduler's
  snapshot that holds its document's current text (``lsp/snapshots.py``).
- Opening a file of a large folder, the hover comes from the open module's root configurations,
  read and built first (``lsp/focus.py``), before the rest of the folder is read, and it is
  the answer the complete index gives.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsprotocol import types

from lsp_helpers import REPO, hover_at, start_session, stop_session, uri

sys.path.insert(0, str(REPO / "bench"))
from generate import generate  # noqa: E402

COUNTING_SERVER = [sys.executable, str(REPO / "tests" / "lsp" / "counting_server.py")]
REQUEST_BUILDS = "tfphiTest/requestBuilds"
FOCUS_ANSWERS = "tfphiTest/focusAnswers"

CHILD = '''resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = var.engine_version
}

variable "engine_version" {
  type = string
}
'''
ROOT = '''module "db" {
  source         = "./db"
  engine_version = "15.4"
}

resource "aws_db_instance" "copy" {
  engine         = "postgres"
  engine_version = "15.4"
}
'''


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")



async def test_a_hover_right_after_an_edit_answers_for_the_new_text_and_builds_nothing(tmp_path: Path):
    """The hover waits for the snapshot of the edited text, which the scheduler builds: the
    request path built it itself before (``server.context`` flushed and took ``host.snapshot()``,
    and deciding whether to hold a request flushed too): 8 builds for these requests."""
    write(tmp_path, {"main.tf": ROOT, "db/main.tf": CHILD})
    session = await start_session([tmp_path], command=COUNTING_SERVER)
    try:
        await session.wait_indexed()
        root = session.open(tmp_path / "main.tf")
        child = session.open(tmp_path / "db" / "main.tf")
        assert '"15.4"' in await hover_at(session, child, "var.engine_version")
        session.replace(root, '"15.4"', '"16.2"')  # the module call's argument
        after_call = await hover_at(session, child, "var.engine_version")  # sent right after the change
        session.replace(root, '"15.4"', '"14.9"')  # the root's own field
        after_field = await hover_at(session, root, '"14.9"')
        session.replace(child, "var.engine_version", '"13.1"')
        after_child = await hover_at(session, child, '"13.1"')
        builds = await session.client.protocol.send_request_async(REQUEST_BUILDS, None)
    finally:
        await stop_session(session)
    assert '"16.2"' in after_call and '"15.4"' not in after_call
    assert '"14.9"' in after_field
    assert '"13.1"' in after_child
    assert builds == 0


def leaf_position(text: str) -> types.Position:
    """The ``var.engine`` of the leaf's ``engine`` field (``bench/generate.py``'s hover probe shape)."""
    marker = "engine         = var.engine"
    index = text.index(marker) + len(marker) - 3
    before = text[:index]
    return types.Position(line=before.count("\n"), character=index - before.rfind("\n") - 1)


async def test_the_first_hover_comes_from_the_open_modules_roots_before_the_rest_of_the_folder(tmp_path: Path):
    """A leaf of a generated folder (200 modules, 600 files) opened as the server starts: its
    hover arrives before the index reports every file read, and before any diagnostics of
    another module; it is the hover of the complete index. A hover on another leaf waits for the
    whole index. Before, it waited for every file of
    the folder to be read, and the index had reported them all when it came."""
    summary = generate(tmp_path, 200, seed=0)
    probe = summary["probes"]["hover"]
    leaf = tmp_path / probe["file"]
    session = await start_session([tmp_path])
    try:
        u = session.open(leaf)
        params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=u),
                                   position=types.Position(line=probe["line"], character=probe["character"]))
        seen: dict[str, object] = {}

        def arrived(future) -> None:  # what the client had received when the answer came
            seen["published"] = [p for p, _, _ in session.published]
            seen["reports"] = [v.message for values in session.client.progress_reports.values() for v in values
                               if isinstance(v, types.WorkDoneProgressReport)]

        request = asyncio.ensure_future(session.client.text_document_hover_async(params))
        request.add_done_callback(arrived)
        first = await request
        # A module the focus does not answer for (no call path from a root to the open one goes
        # through it) waits for the folder's index.
        other_path = tmp_path / "modules" / "leaf_100" / "main.tf"
        assert other_path.is_file()
        other = uri(other_path)
        other_params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=other), position=params.position)
        other_hover = asyncio.ensure_future(session.client.text_document_hover_async(other_params))
        seen_other: dict[str, object] = {}
        other_hover.add_done_callback(lambda _: seen_other.update(reports=[
            v.message for values in session.client.progress_reports.values() for v in values
            if isinstance(v, types.WorkDoneProgressReport)]))
        await other_hover
        await session.wait_indexed(timeout=120)
        complete = await session.client.text_document_hover_async(params)
    finally:
        await stop_session(session)
    assert first is not None and "module.svc_001.module.database" in first.contents.value
    assert first == complete
    assert [p for p in seen["published"] if p != u] == []
    files = sum(1 for _ in tmp_path.rglob("*") if _.is_file() and _.suffix in (".tf", ".tfvars"))
    assert not any(r.startswith(f"{files}/{files} files") for r in seen["reports"]), seen["reports"]
    assert any(r.startswith(f"{files}/{files} files") for r in seen_other["reports"]), seen_other["reports"]


NET = '''output "version" {
  value = var.mode == "prod" ? "15.4" : "14.9"
}

variable "mode" {
  type = string
}
'''
SERVICE = '''variable "engine" {
  type = string
}

module "db" {
  source         = "../../db"
  engine_version = var.engine
}

output "db" {
  value = module.db
}
'''
FOCUS_ROOT = '''variable "mode" {
  type    = string
  default = "prod"
}

module "net" {
  source = "./modules/net"
  mode   = var.mode
}

module "svc" {
  source = "./modules/svc"
  engine = module.net.version
}
'''


async def test_the_first_answer_reads_the_modules_whose_outputs_its_callers_read(tmp_path: Path):
    """The leaf's version comes from a sibling of its caller (``module.net.version``, named in the
    root's module call): the first hover, from the open module's roots, reads ``net`` too and
    says what the complete index says (a regression guard for ``lsp/focus.py``'s closure)."""
    files = {"main.tf": FOCUS_ROOT, "modules/net/main.tf": NET, "modules/svc/main.tf": SERVICE, "db/main.tf": CHILD,
             "outputs.tf": "".join(f'output "o{n}" {{\n  value = module.filler_{n}.n\n}}\n' for n in range(40))}
    for n in range(40):  # modules the root calls and its outputs name, and roots of their own: the focus leaves them out
        files[f"fillers/f{n:02}/main.tf"] = f'output "n" {{\n  value = {n}\n}}\n'
        files[f"fillers/f{n:02}/variables.tf"] = 'variable "unused" {\n  default = 1\n}\n'
        if n < 10:
            files[f"callers/c{n:02}/main.tf"] = f'module "filler" {{\n  source = "../../fillers/f{n:02}"\n}}\n'
        files["main.tf"] += f'\nmodule "filler_{n}" {{\n  source = "./fillers/f{n:02}"\n}}\n'
    write(tmp_path, files)
    session = await start_session([tmp_path], command=COUNTING_SERVER)
    try:
        child = session.open(tmp_path / "db" / "main.tf")
        first = await hover_at(session, child, "var.engine_version")
        from_focus = await session.client.protocol.send_request_async(FOCUS_ANSWERS, None)
        await session.wait_indexed()
        complete = await hover_at(session, child, "var.engine_version")
    finally:
        await stop_session(session)
    assert from_focus == 1, "the first hover came from the focus"
    assert '"15.4"' in first and "has no default" not in first
    assert first.replace(tmp_path.as_uri(), "ROOT") == complete.replace(tmp_path.as_uri(), "ROOT")


async def test_an_edit_while_the_folder_is_indexed_reaches_the_first_answers(tmp_path: Path):
    """Edits of the open document before the folder's index is complete go to its focus too
    (``Focus.follow``, in the scheduler's pass): a hover right after one answers for the new text,
    and it is what the complete index answers then; no request builds anything."""
    summary = generate(tmp_path, 200, seed=0)
    probe = summary["probes"]["hover"]
    session = await start_session([tmp_path], command=COUNTING_SERVER)
    try:
        u = session.open(tmp_path / probe["file"])
        position = types.Position(line=probe["line"], character=probe["character"])
        params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=u), position=position)
        first = await session.client.text_document_hover_async(params)
        line = session.texts[u].split("\n")[probe["line"]]
        start = line.index("var.engine_version")
        session.change(u, types.Range(start=types.Position(line=probe["line"], character=start),
                                      end=types.Position(line=probe["line"], character=start + len("var.engine_version"))),
                       '"9.6"')
        edited = await session.client.text_document_hover_async(params)
        await session.wait_indexed(timeout=120)
        complete = await session.client.text_document_hover_async(params)
        builds = await session.client.protocol.send_request_async(REQUEST_BUILDS, None)
        from_focus = await session.client.protocol.send_request_async(FOCUS_ANSWERS, None)
    finally:
        await stop_session(session)
    assert first is not None and edited is not None
    assert from_focus == 2, "both hovers came from the focus (the edit's pass came long before the 600th file)"
    assert '"9.6"' in edited.contents.value and '"9.6"' not in first.contents.value
    assert edited == complete
    assert builds == 0


async def test_a_hover_right_after_a_settings_change_answers(session, workspace: Path):
    """The settings a didChangeConfiguration pulls make the folder's snapshot old while a hover sent
    after it is being released: it waits for the next one (it was answered null, "no complete
    snapshot": the snapshot offered after the edit was old by the time the hover ran)."""
    main = session.open(workspace / "main.tf")
    at = session.pos(main, 'module "cache"')
    for _ in range(10):
        session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
        session.change(main, types.Range(start=at, end=at), "x")
        assert "customer_env" in await hover_at(session, main, "var.customer_env")
        session.change(main, types.Range(start=at, end=types.Position(line=at.line, character=at.character + 1)), "")
