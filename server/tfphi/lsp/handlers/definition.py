"""textDocument/definition and textDocument/references for var, local, module and outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import guarded
from ...features.navigation import definition as find_definition
from ...features.navigation import references as find_references

if TYPE_CHECKING:
    from ..server import TfphiServer


def register(server: "TfphiServer") -> None:
    ws = server.ws

    def locations(ctx, spans) -> list[types.Location]:
        folder = ctx.folder
        return [
            convert.location(span, lambda rel: ws.line_index(folder, rel, ctx.snapshot), lambda rel: ws.uri_for(folder, rel), ctx.encoding)
            for span in spans
        ]

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded(server)
    def definition(params: types.DefinitionParams) -> list[types.Location] | None:
        ctx = server.context(params.text_document.uri)
        if ctx is None:
            return None
        return locations(ctx, find_definition(ctx.analysis, ctx.path, ctx.offset(params.position))) or None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded(server, default=list)
    def references(params: types.ReferenceParams) -> list[types.Location]:
        ctx = server.context(params.text_document.uri)
        if ctx is None:
            return []
        include = bool(params.context.include_declaration) if params.context else True
        return locations(ctx, find_references(ctx.analysis, ctx.path, ctx.offset(params.position), include))
