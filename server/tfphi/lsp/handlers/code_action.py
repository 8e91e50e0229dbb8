"""textDocument/codeAction: the quick fixes of ``unbounded-field`` diagnostics.

The diagnostic's ``data`` went to the client with the diagnostic and comes back here; the
fixes are WorkspaceEdits into the file that declares the variable (``documentChanges``
with versions when the client supports them, else ``changes``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from lsprotocol import types

from ...syntax.expr import Span
from .. import convert
from ..guard import guarded
from ...features.code_actions import quick_fixes

if TYPE_CHECKING:
    from ..server import TfphiServer

FIXABLE = frozenset({"unbounded-field"})


def register(server: "TfphiServer") -> None:
    ws = server.ws

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False),
    )
    @guarded(server, default=list)
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only
        if only and not any(str(kind).startswith(types.CodeActionKind.QuickFix) for kind in only):
            return []
        ctx = server.context(params.text_document.uri)
        if ctx is None:
            return []
        folder = ctx.folder
        actions: list[types.CodeAction] = []
        for diag in params.context.diagnostics:
            if diag.source not in (None, convert.SOURCE) or diag.code not in FIXABLE:
                continue
            start, end = convert.range_offsets(ctx.index, diag.range, ctx.encoding)
            data = diag.data if isinstance(diag.data, Mapping) else None
            for fix in quick_fixes(ctx.analysis, ctx.path, Span(ctx.path, start, end), dict(data) if data else None):
                edit = convert.workspace_edit(
                    fix.edits,
                    lambda rel: ws.line_index(folder, rel, ctx.snapshot),
                    lambda rel: ws.uri_for(folder, rel),
                    lambda rel: ws.version_for(folder, rel),
                    ctx.encoding,
                    server.supports_document_changes,
                )
                actions.append(
                    types.CodeAction(
                        title=fix.title,
                        kind=fix.kind or types.CodeActionKind.QuickFix,
                        diagnostics=[diag],
                        edit=edit,
                        is_preferred=fix.is_preferred or None,
                    )
                )
        return actions
