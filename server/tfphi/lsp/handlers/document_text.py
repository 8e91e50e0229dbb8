"""``tfphi/documentText``: the text the server holds for an open document (tests check sync with it).

Params ``{"uri": str}``; result ``{"uri", "version", "text"}``, or null when the document is not open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..guard import BadRequest, guarded

if TYPE_CHECKING:
    from ..server import TfphiServer

DOCUMENT_TEXT = "tfphi/documentText"


def register(server: "TfphiServer") -> None:
    @server.feature(DOCUMENT_TEXT)
    @guarded(server, name=DOCUMENT_TEXT)
    def document_text(params: Any) -> dict | None:
        uri = getattr(params, "uri", None) if not isinstance(params, dict) else params.get("uri")
        if not isinstance(uri, str):
            raise BadRequest('expected {"uri": string}')
        doc = server.ws.documents.get(uri)
        return None if doc is None else {"uri": uri, "version": doc.version, "text": doc.text}
