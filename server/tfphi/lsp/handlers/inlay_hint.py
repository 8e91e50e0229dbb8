"""textDocument/inlayHint: the traced values after each registered field (off via ``inlayHints.enabled``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import guarded
from ...features.inlay_hints import inlay_hints

if TYPE_CHECKING:
    from ..server import TfphiServer


def register(server: "TfphiServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @guarded(server, default=list)
    def inlay_hint(params: types.InlayHintParams) -> list[types.InlayHint]:
        ctx = server.context(params.text_document.uri)
        if ctx is None or not ctx.analysis.config.inlay_hints:
            return []
        start, end = convert.range_offsets(ctx.index, params.range, ctx.encoding)
        return [
            types.InlayHint(
                position=convert.position(ctx.index, hint.offset, ctx.encoding),
                label=hint.label,
                padding_left=True,
            )
            for hint in inlay_hints(ctx.analysis, ctx.path, start, end)
        ]
