"""``tfphi/traceGraph``: the trace graph of the field or reference at a position, as data.

Params: ``{"textDocument": {"uri"}, "position": {"line", "character"}}``. Result: the JSON of
``features.trace_graph.TraceGraph`` (nodes, edges, branches with their colours), or null when
there is nothing to trace there. The VS Code client draws it (*tfphi: Show Trace Graph*).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..guard import BadRequest, guarded
from ...features.cursor import locate, trace_target
from ...features.trace_graph import trace_graph as build

if TYPE_CHECKING:
    from ..server import TfphiServer

TRACE_GRAPH = "tfphi/traceGraph"


def _params(params: Any) -> tuple[str, types.Position]:
    """Accepts the params as pygls hands them over (an object with attributes, or a mapping)."""
    def get(obj: Any, name: str) -> Any:
        return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)

    document, position = get(params, "textDocument"), get(params, "position")
    uri = get(document, "uri") if document is not None else None
    line = get(position, "line") if position is not None else None
    character = get(position, "character") if position is not None else None
    if not isinstance(uri, str) or not isinstance(line, int) or not isinstance(character, int):
        raise BadRequest('expected {"textDocument": {"uri": ...}, "position": {"line": int, "character": int}}')
    return uri, types.Position(line=line, character=character)


def register(server: "TfphiServer") -> None:
    @server.feature(TRACE_GRAPH)
    @guarded(server, name=TRACE_GRAPH)
    def trace_graph(params: Any) -> dict | None:
        uri, position = _params(params)
        ctx = server.context(uri)
        if ctx is None:
            return None
        target = locate(ctx.analysis, ctx.path, ctx.offset(position))
        if target is None:
            return None
        results = trace_target(ctx.analysis, target)
        if not results:
            return None
        title = f"Trace graph: {results[0].address if len(results) == 1 else target.label}"
        return build(ctx.analysis, results, title).to_json()
