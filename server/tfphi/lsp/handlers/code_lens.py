"""textDocument/codeLens: "Preview specialization" above each traced field."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import guarded
from ...specialize.code_lens import code_lenses

if TYPE_CHECKING:
    from ..server import TfphiServer

PREVIEW_SPECIALIZATION = "tfphi.previewSpecialization"


def register(server: "TfphiServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @guarded(server, default=list)
    def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        ctx = server.context(uri)
        if ctx is None:
            return []
        return [
            types.CodeLens(
                range=convert.span_range(ctx.index, lens.span, ctx.encoding),
                command=types.Command(title=lens.title, command=PREVIEW_SPECIALIZATION,
                                      arguments=[{"uri": uri, "address": str(lens.address)}]),
            )
            for lens in code_lenses(ctx.analysis, ctx.path)
        ]
