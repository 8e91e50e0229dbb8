"""textDocument/documentSymbol: the file's blocks as a hierarchy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import guarded
from ...features.navigation import document_symbols

if TYPE_CHECKING:
    from ..server import TfphiServer


def register(server: "TfphiServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(server, default=list)
    def document_symbol(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        ctx = server.context(params.text_document.uri)
        if ctx is None:
            return []
        return [convert.document_symbol(s, ctx.index, ctx.encoding) for s in document_symbols(ctx.analysis, ctx.path)]
