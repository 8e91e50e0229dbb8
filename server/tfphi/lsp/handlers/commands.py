"""workspace/executeCommand: ``tfphi.showTrace`` and ``tfphi.previewSpecialization``.

Arguments: ``[{"uri", "position"}]`` (both) or ``[{"uri", "address"}]`` (preview). Results are
plain JSON (``{"title", "markdown"}`` / ``{"title", "hcl", "provenance"}``) or null.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ...addrs import AddressError, FieldAddress, parse_field_address
from ..guard import BadRequest, guarded
from ...features.trace_view import trace_document
from ...specialize.code_lens import code_lenses
from ...specialize.preview import specialize_address

if TYPE_CHECKING:
    from ..server import DocContext, TfphiServer

SHOW_TRACE = "tfphi.showTrace"
PREVIEW_SPECIALIZATION = "tfphi.previewSpecialization"


def _target(args: tuple[Any, ...]) -> Mapping:
    if len(args) != 1 or not isinstance(args[0], Mapping) or not isinstance(args[0].get("uri"), str):
        raise BadRequest('expected one argument {"uri": ..., "position": {"line", "character"}} or {"uri", "address"}')
    return args[0]


def _offset(ctx: "DocContext", target: Mapping) -> int:
    pos = target.get("position")
    if not isinstance(pos, Mapping) or not isinstance(pos.get("line"), int) or not isinstance(pos.get("character"), int):
        raise BadRequest('"position" must be {"line": int, "character": int}')
    return ctx.offset(types.Position(line=pos["line"], character=pos["character"]))


def address_at(ctx: "DocContext", offset: int) -> FieldAddress | None:
    """The field address whose code lens range holds ``offset`` (the innermost one)."""
    best = None
    for lens in code_lenses(ctx.analysis, ctx.path):
        if lens.span.start <= offset <= lens.span.end and (best is None or lens.span.end - lens.span.start < best[0]):
            best = (lens.span.end - lens.span.start, lens.address)
    return best[1] if best else None


def register(server: "TfphiServer") -> None:
    @server.command(SHOW_TRACE)
    @guarded(server, name=SHOW_TRACE)
    def show_trace(*args: Any) -> dict | None:
        target = _target(args)
        ctx = server.context(target["uri"])
        if ctx is None:
            return None
        found = trace_document(ctx.analysis, ctx.path, _offset(ctx, target))
        if found is None:
            return None
        title, markdown = found
        return {"title": title, "markdown": markdown}

    @server.command(PREVIEW_SPECIALIZATION)
    @guarded(server, name=PREVIEW_SPECIALIZATION)
    def preview_specialization(*args: Any) -> dict | None:
        target = _target(args)
        ctx = server.context(target["uri"])
        if ctx is None:
            return None
        address = target.get("address")
        if address is None:
            address = address_at(ctx, _offset(ctx, target))
            if address is None:
                return None
        elif not isinstance(address, str):
            raise BadRequest('"address" must be a string')
        else:
            try:
                address = parse_field_address(address)  # the client's text, read once here
            except AddressError:
                return None
        preview = specialize_address(ctx.analysis, address, Path(ctx.folder.fs_path("")).absolute().parts)
        if preview is None:
            return None
        # The same files `tfphi specialize` prints and `--out` writes (hcl lists them one after the other).
        return {"title": f"Specialization of {address}", "hcl": preview.hcl, "provenance": list(preview.provenance),
                "files": dict(preview.files)}
