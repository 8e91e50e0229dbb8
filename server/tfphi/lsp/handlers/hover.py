"""textDocument/hover: the phi branches of what is under the cursor, as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import guarded
from ...features.hover import hover_at

if TYPE_CHECKING:
    from ..server import TfphiServer


def register(server: "TfphiServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(server)
    def hover(params: types.HoverParams) -> types.Hover | None:
        ctx = server.context(params.text_document.uri)
        if ctx is None:
            return None
        result = hover_at(ctx.analysis, ctx.path, ctx.offset(params.position))
        if result is None:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=result.markdown),
            range=convert.span_range(ctx.index, result.span, ctx.encoding) if result.span is not None else None,
        )
