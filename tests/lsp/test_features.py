"""Hover, code actions, inlay hints, navigation, symbols, code lens and commands through the real server."""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path

import pytest
from lsprotocol import types

from lsp_helpers import SHARED, Session, apply_edits, position_of, range_of, start_session, stop_session, uri

CACHE_MAIN = "modules/cache/main.tf"


@SHARED
async def test_hover_lists_branch_values_and_conditions(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    main = session.open(workspace / "main.tf")
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=session.pos(main, '"15.4"', delta=2)))
    assert hover is not None
    assert hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    # whole table rows, not substrings ("bounded" is also in "unbounded")
    assert text.split("\n")[2] == "**bounded** · 2 values"
    assert '| `"15.4"` | `var.customer_env == "prod"` |' in text.split("\n")
    assert '| `"14.9"` | `var.customer_env != "prod"` |' in text.split("\n")
    assert hover.range is not None and hover.range.start.line == session.pos(main, '"15.4"').line


@SHARED
async def test_hover_on_unbounded_field_explains_why(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    cache = session.open(workspace / CACHE_MAIN)
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=cache), position=session.pos(cache, "var.node_type", delta=4)))
    text = hover.contents.value
    lines = text.split("\n")
    assert lines[2] == "**unbounded**"
    assert [line for line in lines if line.startswith("**Why:**")] == [
        "**Why:** var.cache_node_type ([variables.tf:20](../../variables.tf#L20)) has no default value, "
        "and no validation block lists the allowed values."]
    assert hover.range == range_of(session.texts[cache], "var.node_type")


@SHARED
async def test_hover_on_nothing_is_null(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    main = session.open(workspace / "main.tf")
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=session.pos(main, "# A vendor")))
    assert hover is None


async def _apply_workspace_edit(session: Session, edit: types.WorkspaceEdit) -> None:
    """Applies a WorkspaceEdit as an editor would: open each file, send the edits as one incremental change."""
    per_file: list[tuple[str, list[types.TextEdit], int | None]] = []
    if edit.document_changes:
        for change in edit.document_changes:
            per_file.append((change.text_document.uri, list(change.edits), change.text_document.version))
    for u, edits in (edit.changes or {}).items():
        per_file.append((u, list(edits), None))
    for u, edits, version in per_file:
        if u not in session.texts:
            from pygls.uris import to_fs_path

            session.open(Path(to_fs_path(u)))
        elif version is not None:
            assert version == session.versions[u], "the edit was computed for another version"
        old = session.texts[u]
        new = apply_edits(old, edits, session.encoding)
        ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
        session.versions[u] += 1
        session.texts[u] = new
        session.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=u, version=session.versions[u]),
            content_changes=[types.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for e in ordered]))


@pytest.mark.parametrize("document_changes", [True, False])
# No "Hardcode the value": the field is in modules/cache, which the root calls, and a fix never
# hardcodes one value into a module whose callers may pass different values (SPEC 6).
@pytest.mark.parametrize("title", ["Add validation block", "Add default"])
async def test_each_quick_fix_removes_the_diagnostic(workspace: Path, title: str, document_changes: bool):
    session = await start_session([workspace], document_changes=document_changes)
    try:
        await session.wait_indexed()
        cache = session.open(workspace / CACHE_MAIN)
        [diag] = await session.wait_diagnostics(cache, "unbounded-field")
        actions = await session.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=cache), range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag])))
        titles = [a.title for a in actions]
        assert not any(t.startswith("Hardcode") for t in titles), titles
        assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)
        matching = [a for a in actions if a.title.startswith(title)]
        assert len(matching) == 1, titles
        action = matching[0]
        assert (action.edit.document_changes is not None) == document_changes
        assert (action.edit.changes is not None) == (not document_changes)
        await _apply_workspace_edit(session, action.edit)
        await session.wait_diagnostics(cache, "unbounded-field", present=False)
        for u in session.texts:  # the result parses without error
            assert not session.diagnostics(u, "syntax-error"), session.texts[u]
    finally:
        await stop_session(session)


@SHARED
async def test_validation_fix_is_preferred_and_versioned(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    cache = session.open(workspace / CACHE_MAIN)
    variables = session.open(workspace / "variables.tf")
    [diag] = await session.wait_diagnostics(cache, "unbounded-field")
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=cache), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))
    [preferred] = [a for a in actions if a.is_preferred]
    assert preferred.title.startswith("Add validation block")
    [change] = preferred.edit.document_changes
    assert change.text_document.uri == variables and change.text_document.version == 1


async def test_inlay_hints_and_the_setting_that_turns_them_off(session: Session, workspace: Path):
    postgres = session.open(workspace / "modules/postgres/main.tf")
    text = session.texts[postgres]
    full = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=text.count("\n") + 1, character=0))
    hints = await session.client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=postgres), range=full))
    labels = {h.label: h.position for h in hints}
    assert labels['⟵ "15.4" | "14.9"'] == position_of(text, "var.engine_version", delta=len("var.engine_version"))
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"tfphi": {"inlayHints": {"enabled": False}}}))
    session.client.set_configuration({"inlayHints": {"enabled": False}}, section="tfphi")

    async def empty():
        return not await session.client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=postgres), range=full))

    for _ in range(100):
        if await empty():
            break
    assert await empty()


@SHARED
async def test_definition_and_references(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    main = session.open(workspace / "main.tf")
    text = session.texts[main]
    locations = await session.client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=session.pos(main, "local.instance_class", delta=8)))
    [loc] = locations
    assert loc.uri == main
    assert loc.range.start == position_of(text, "instance_class = var.customer_env")

    variables = (workspace / "variables.tf").read_text()
    refs = await session.client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=session.pos(main, "var.customer_env", delta=5),
        context=types.ReferenceContext(include_declaration=True)))
    found = {(r.uri, r.range.start.line, r.range.start.character) for r in refs}
    assert (main, *_tuple(position_of(text, "var.customer_env"))) in found
    assert (main, *_tuple(position_of(text, "var.customer_env", occurrence=1))) in found
    assert (uri(workspace / "variables.tf"), *_tuple(position_of(variables, '"customer_env"'))) in found


def _tuple(pos: types.Position) -> tuple[int, int]:
    return pos.line, pos.character


@SHARED
async def test_document_symbols(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    main = session.open(workspace / "main.tf")
    symbols = await session.client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=main)))
    names = [s.name for s in symbols]
    assert "module.database" in names and "aws_lambda_function.worker" in names
    [database] = [s for s in symbols if s.name == "module.database"]
    assert database.kind == types.SymbolKind.Module
    assert database.range.start == session.pos(main, 'module "database"')


@SHARED
async def test_show_trace_command(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    assert set(session.initialize_result.capabilities.execute_command_provider.commands) == {
        "tfphi.showTrace", "tfphi.previewSpecialization"}
    postgres = session.open(workspace / "modules/postgres/main.tf")
    result = await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfphi.showTrace",
        arguments=[{"uri": postgres, "position": _json(session.pos(postgres, "var.engine_version", delta=5))}]))
    assert isinstance(result["title"], str) and '"15.4"' in result["markdown"]
    nothing = await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfphi.showTrace", arguments=[{"uri": postgres, "position": {"line": 9999, "character": 0}}]))
    assert nothing is None


def _json(pos: types.Position) -> dict:
    return {"line": pos.line, "character": pos.character}


@SHARED
async def test_code_lens_and_preview_specialization(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    postgres = session.open(workspace / "modules/postgres/main.tf")
    lenses = await session.client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=postgres)))
    assert lenses, "no code lens"
    commands = [lens.command for lens in lenses]
    assert all(c.command == "tfphi.previewSpecialization" for c in commands)
    [arg] = commands[0].arguments
    assert arg["uri"] == postgres and "aws_db_instance.app" in arg["address"]
    by_address = await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfphi.previewSpecialization", arguments=commands[0].arguments))
    assert isinstance(by_address["hcl"], str) and isinstance(by_address["provenance"], list)
    assert "title" in by_address
    # The editor previews exactly what `tfphi specialize` prints (and `--out` writes), and the lens
    # names the deployment each specialization serves.
    cli = subprocess.run([sys.executable, "-m", "tfphi", "specialize", str(workspace), arg["address"]],
                         capture_output=True, text=True, timeout=60)
    assert by_address["hcl"] == cli.stdout
    assert "moved/terraform.tf" in by_address["files"] and "provenance.json" in by_address["files"]
    assert commands[0].title.startswith("2 specializations: app_v15_4 (terraform.tfvars), app_v14_9")
    by_position = await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfphi.previewSpecialization",
        arguments=[{"uri": postgres, "position": _json(lenses[0].range.start)}]))
    assert by_position is not None and by_position["hcl"]
