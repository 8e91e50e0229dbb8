"""Bad requests never kill the server: out-of-range positions, unopened documents, stale versions,
unknown methods, bad command arguments, requests after shutdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_helpers import SHARED, Session, start_session, uri

CACHE_MAIN = "modules/cache/main.tf"


async def _alive(session: Session, u: str) -> None:
    """The server still answers: a hover on a known value works."""
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=u), position=session.pos(u, "var.customer_env", delta=5)))
    assert hover is not None and "customer_env" in hover.contents.value


async def test_out_of_range_positions_are_clamped(session: Session, workspace: Path):
    main = session.open(workspace / "main.tf")
    for pos in (types.Position(line=10_000, character=0), types.Position(line=0, character=10_000),
                types.Position(line=5, character=99_999)):
        await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=main), position=pos))
        await session.client.text_document_definition_async(types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=main), position=pos))
    hints = await session.client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=main),
        range=types.Range(start=types.Position(line=500, character=0), end=types.Position(line=0, character=0))))
    assert isinstance(hints, (list, tuple))
    # an out-of-range edit is clamped to the end of the text
    session.client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=main, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=9999, character=5), end=types.Position(line=9999, character=9)),
            text='\noutput "tail" {\n  value = local.not_there\n}\n')]))
    await session.wait_diagnostics(main, "undefined-reference")
    await _alive(session, main)


@SHARED
async def test_change_to_an_unopened_document_is_ignored(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    ghost = uri(workspace / "ghost.tf")
    session.client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=ghost, version=3),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            text="garbage {{{")]))
    session.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=ghost)))
    main = session.open(workspace / "main.tf")
    await _alive(session, main)
    await session.wait_for(lambda: any("not open" in m.message for m in session.client.log_messages), what="a log message")
    assert ghost not in session.client.diagnostics


async def test_version_regression_is_ignored(session: Session, workspace: Path):
    main = session.open(workspace / "main.tf")
    session.replace(main, "local.instance_class", "local.instance_klass")  # version 2
    await session.wait_diagnostics(main, "undefined-reference")
    # a stale change (version 2 again, then 1) must not be applied
    stale_range = session.pos(main, "local.instance_klass")
    for version in (2, 1):
        session.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=main, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=stale_range, end=stale_range), text="oops(")]))
    session.replace(main, "local.instance_klass", "local.instance_class")  # version 3, on the unchanged text
    await session.wait_diagnostics(main, "undefined-reference", present=False)
    assert not session.diagnostics(main, "syntax-error")
    await session.wait_for(lambda: any("stale" in m.message for m in session.client.log_messages), what="a log message")
    await _alive(session, main)


@SHARED
async def test_unknown_method_is_method_not_found(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    with pytest.raises(JsonRpcException) as info:
        await session.client.protocol.send_request_async("tfphi/noSuchMethod", {"x": 1})
    assert info.value.code == -32601
    session.client.protocol.notify("tfphi/noSuchNotification", {})
    main = session.open(workspace / "main.tf")
    await _alive(session, main)


@SHARED
async def test_bad_command_arguments_are_invalid_params(shared_session: Session, shared_workspace: Path):
    session, workspace = shared_session, shared_workspace
    main = session.open(workspace / "main.tf")
    for arguments in ([], [42], [{"uri": main, "position": "here"}], [{"uri": main}]):
        with pytest.raises(JsonRpcException) as info:
            await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
                command="tfphi.showTrace", arguments=arguments))
        assert info.value.code == -32602
    with pytest.raises(JsonRpcException):
        await session.client.workspace_execute_command_async(types.ExecuteCommandParams(command="tfphi.nothing"))
    # a request about a document the server has never heard of is answered, not fatal
    result = await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfphi.showTrace", arguments=[{"uri": uri(workspace / "nope.tf"), "position": {"line": 0, "character": 0}}]))
    assert result is None
    await _alive(session, main)


async def test_requests_after_shutdown_are_refused(workspace: Path):
    session = await start_session([workspace])
    await session.wait_indexed()
    main = session.open(workspace / "main.tf")
    await _alive(session, main)
    await session.client.shutdown_async(None)
    with pytest.raises(JsonRpcException) as info:
        await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=main), position=types.Position(line=0, character=0)))
    assert info.value.code == -32600
    session.client.exit(None)
    await session.client._server.wait()
    assert session.client._server.returncode == 0
    await session.client.stop()
