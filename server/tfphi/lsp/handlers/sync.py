"""Text synchronization (didOpen, didChange, didClose) and watched files.

didChange applies the edit to the document store synchronously (text and tree), then asks
for an analysis pass: edits are never lost or reordered, and the pass sees them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..documents import StaleVersion, TextChange
from ..guard import guarded

if TYPE_CHECKING:
    from ..server import TfphiServer


def _change(event) -> TextChange:
    rng = getattr(event, "range", None)
    if rng is None:
        return TextChange(event.text)
    return TextChange(event.text, ((rng.start.line, rng.start.character), (rng.end.line, rng.end.character)))


def register(server: "TfphiServer") -> None:
    ws = server.ws

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded(server)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ws.open(doc.uri, doc.version, doc.text, doc.language_id)
        server.scheduler.schedule(forced={doc.uri})

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded(server)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        uri, version = params.text_document.uri, params.text_document.version
        try:
            ws.change(uri, version, [_change(c) for c in params.content_changes])
        except KeyError:
            server.log_warning(f"tfphi: ignored a change to {uri}, which is not open")
            return
        except StaleVersion as exc:
            server.log_warning(f"tfphi: ignored a stale change: {exc}")
            return
        server.scheduler.schedule(forced={uri})

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded(server)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ws.documents.get(uri) is None:
            server.log_warning(f"tfphi: ignored closing {uri}, which is not open")
            return
        found = ws.locate(uri, create=False)
        if found is not None:  # its focus read the closed text (lsp/focus.py): the folder's index answers
            server.scheduler.board.offer_focus(found[0], None)
        folder = ws.close(uri)
        if folder is None:
            server.publisher.clear(uri)  # nothing analyses it any more
        server.scheduler.schedule()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded(server)
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        changed = False
        for event in params.changes:
            folder = ws.file_event(event.uri, deleted=event.type == types.FileChangeType.Deleted)
            if folder is not None:
                changed = True
                server.scheduler.board.offer_focus(folder, None)  # its focus did not read the change
                if not folder.indexed:
                    server.scheduler.ensure_indexed(folder)
        if changed:
            server.scheduler.schedule()
