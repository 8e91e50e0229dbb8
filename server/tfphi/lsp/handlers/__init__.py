"""One thin handler per LSP method: convert params, call the analysis/features, convert the result.

Every handler is wrapped by ``guarded``: an exception is logged and answered with null or
an empty list, never a dead server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import code_action, code_lens, commands, definition, document_symbol, document_text, hover, inlay_hint, lifecycle, semantic_tokens, sync, trace_graph

if TYPE_CHECKING:
    from ..server import TfphiServer


def register_all(server: "TfphiServer") -> None:
    """Registers every handler module's methods with the server."""
    for module in (lifecycle, sync, hover, code_action, inlay_hint, definition, document_symbol, code_lens, commands, document_text,
                   semantic_tokens, trace_graph):
        module.register(server)
