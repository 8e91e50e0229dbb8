"""What the protocol keeps per message, through the real server over stdio (issue 23, memory stays flat).

pygls records the future of a handler in flight in ``_request_futures``; it removed the entry
only when it answered a request, so every notification handled by one of its generator
built-ins (didOpen, didChange, didClose, initialized, ...) left its future behind for good:
1.9 KiB per keystroke, the bulk of the soak's growth (bench/README.md, "Issue 23: soak,
session 10"). After any number of messages, nothing stays in flight once they are handled.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lsprotocol import types

from lsp_helpers import REPO, hover_at, start_session, stop_session, uri

COUNTING_SERVER = [sys.executable, str(REPO / "tests" / "lsp" / "counting_server.py")]
IN_FLIGHT = "tfphiTest/inFlight"
EDITS = 40


async def test_nothing_stays_in_flight_after_edits_hovers_and_notifications(workspace: Path):
    session = await start_session([workspace], command=COUNTING_SERVER)
    try:
        await session.wait_indexed()
        client = session.client
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
        client.set_trace(types.SetTraceParams(value=types.TraceValue.Off))
        main = session.open(workspace / "main.tf")
        at = session.pos(main, 'module "cache"')
        for i in range(EDITS):  # a character typed there, then taken back
            if i % 2 == 0:
                session.change(main, types.Range(start=at, end=at), "x")
            else:
                session.change(main, types.Range(start=at, end=types.Position(line=at.line, character=at.character + 1)), "")
            if i % 8 == 0:
                await hover_at(session, main, "var.customer_env")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(workspace / "variables.tf"), type=types.FileChangeType.Changed)]))
        client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=main)))
        main = session.open(workspace / "main.tf")
        last = session.replace(main, "module", "modula")
        await session.wait_for(lambda: (main, last) in [(u, v) for u, v, _ in session.published],
                               what="the last edit's diagnostics")
        await hover_at(session, main, "var.customer_env")
        kept = await client.protocol.send_request_async(IN_FLIGHT, None)
    finally:
        await stop_session(session)
    assert (kept.handlers, kept.result_types) == (0, 0)
