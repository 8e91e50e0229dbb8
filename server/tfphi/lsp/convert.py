"""Conversions between the analysis's records (byte spans) and LSP types (ranges in the negotiated encoding).

Every range the server sends or receives goes through here, with the line index of the
bytes the span refers to; nothing else in the server does position arithmetic.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from lsprotocol import types

from ..features.diagnostics import Diagnostic
from ..syntax.expr import Span
from ..text import Encoding, LineIndex

IndexFor = Callable[[str], "LineIndex | None"]  # relative path -> its line index (None: file unknown)
UriFor = Callable[[str], str]  # relative path -> URI

SOURCE = "tfphi"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

_SYMBOL_KIND = {
    "resource": types.SymbolKind.Class,
    "data": types.SymbolKind.Struct,
    "module": types.SymbolKind.Module,
    "variable": types.SymbolKind.Variable,
    "output": types.SymbolKind.Property,
    "local": types.SymbolKind.Constant,
    "locals": types.SymbolKind.Namespace,
    "provider": types.SymbolKind.Package,
    "terraform": types.SymbolKind.Namespace,
    "attribute": types.SymbolKind.Field,
    "field": types.SymbolKind.Field,
    "argument": types.SymbolKind.Field,
    "block": types.SymbolKind.Object,
    "moved": types.SymbolKind.Event,
    "import": types.SymbolKind.Event,
    "check": types.SymbolKind.Event,
}


def position(index: LineIndex | None, offset: int, encoding: Encoding) -> types.Position:
    if index is None:
        return types.Position(line=0, character=0)
    line, character = index.position(offset, encoding)
    return types.Position(line=line, character=character)


def to_range(index: LineIndex | None, start: int, end: int, encoding: Encoding) -> types.Range:
    """The LSP range of the byte range [start, end) of the indexed bytes."""
    return types.Range(start=position(index, start, encoding), end=position(index, max(start, end), encoding))


def span_range(index: LineIndex | None, span: Span, encoding: Encoding) -> types.Range:
    return to_range(index, span.start, span.end, encoding)


def offset(index: LineIndex | None, pos: types.Position, encoding: Encoding) -> int:
    """Byte offset of an LSP position, clamped to the text (out-of-range positions are normal)."""
    if index is None:
        return 0
    return index.offset(max(pos.line, 0), max(pos.character, 0), encoding)


def range_offsets(index: LineIndex | None, rng: types.Range, encoding: Encoding) -> tuple[int, int]:
    start, end = offset(index, rng.start, encoding), offset(index, rng.end, encoding)
    return (start, end) if start <= end else (end, start)


def severity(name: str) -> types.DiagnosticSeverity:
    return _SEVERITY.get(name, types.DiagnosticSeverity.Warning)


# Where a diagnostic is as an editor reads it: (start line, start character, end line, end
# character) in the negotiated encoding; with, for each related location, (URI, place, message).
Place = tuple[int, int, int, int]
Located = tuple[Place, tuple[tuple[str, Place, str], ...]]


def diagnostic(d: Diagnostic, index_for: IndexFor, uri_for: UriFor, encoding: Encoding) -> types.Diagnostic:
    """An LSP diagnostic: code, source "tfphi", severity, related information and data carried over."""
    return diagnostic_at(d, located(d, index_for, uri_for, encoding))


def located(d: Diagnostic, index_for: IndexFor, uri_for: UriFor, encoding: Encoding) -> Located:
    """Where ``d`` and its related locations are, in lines and characters (``Located``): with
    ``d``'s message, severity, code and data, all its LSP diagnostic is made of."""
    return located_all([d], index_for, uri_for, encoding)[0]


def located_all(diags: list[Diagnostic], index_for: IndexFor, uri_for: UriFor, encoding: Encoding) -> list[Located]:
    """``located`` of each of ``diags``, the places of those of one file (the spans of the
    diagnostics published for it: one URI's) looked up together (``LineIndex.places``)."""
    spans: dict[str, list[tuple[int, int]]] = {}  # file -> the ranges to place in it, in the order asked
    for d in diags:
        if d.position is None:
            span = d.span
            spans.setdefault(d.file, []).append((span.start, span.end))
        for r in d.related:
            spans.setdefault(r.span.file, []).append((r.span.start, r.span.end))
    placed: dict[str, Iterator[Place]] = {}
    for file, ranges in spans.items():
        index = index_for(file)
        placed[file] = iter(index.places(ranges, encoding) if index is not None else [(0, 0, 0, 0)] * len(ranges))
    out: list[Located] = []
    for d in diags:
        if d.position is not None:  # 1-based (line, code point column): a config problem without a span
            line, column = max(d.position[0] - 1, 0), max(d.position[1] - 1, 0)
            index = index_for(d.file)
            if index is not None:
                start = index.offset(line, column, "utf-32")
                place = index.places([(start, start)], encoding)[0]
            else:
                place = (line, column, line, column)
        else:
            place = next(placed[d.file])
        if not d.related:
            out.append((place, ()))
        else:
            out.append((place, tuple((uri_for(r.span.file), next(placed[r.span.file]), r.message) for r in d.related)))
    return out


def diagnostic_at(d: Diagnostic, where: Located) -> types.Diagnostic:
    """The LSP diagnostic of ``d`` at ``where`` (``located``)."""
    place, related = where
    return types.Diagnostic(
        range=_range(place),
        message=d.text,
        severity=severity(d.severity),
        code=d.code,
        source=SOURCE,
        related_information=[
            types.DiagnosticRelatedInformation(location=types.Location(uri=uri, range=_range(at)), message=message)
            for uri, at, message in related
        ] or None,
        data=d.data,
    )


def _range(place: Place) -> types.Range:
    return types.Range(start=types.Position(line=place[0], character=place[1]), end=types.Position(line=place[2], character=place[3]))


def location(span: Span, index_for: IndexFor, uri_for: UriFor, encoding: Encoding) -> types.Location:
    return types.Location(uri=uri_for(span.file), range=span_range(index_for(span.file), span, encoding))


def workspace_edit(
    edits: Iterable[Any],
    index_for: IndexFor,
    uri_for: UriFor,
    version_for: Callable[[str], int | None],
    encoding: Encoding,
    document_changes: bool,
) -> types.WorkspaceEdit:
    """A WorkspaceEdit from feature ``TextEdit(file, span, new_text)`` records.

    With ``document_changes`` (the client supports them) each file's edits carry the
    document's version (null for a file that is not open); otherwise a plain ``changes`` map.
    """
    by_file: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        span: Span = edit.span
        file = getattr(edit, "file", None) or span.file
        by_file.setdefault(file, []).append(
            types.TextEdit(range=span_range(index_for(file), span, encoding), new_text=edit.new_text)
        )
    if document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri_for(file), version=version_for(file)),
                    edits=list(text_edits),
                )
                for file, text_edits in by_file.items()
            ]
        )
    return types.WorkspaceEdit(changes={uri_for(file): text_edits for file, text_edits in by_file.items()})


def symbol_kind(kind: Any) -> types.SymbolKind:
    if isinstance(kind, types.SymbolKind):
        return kind
    if isinstance(kind, int):
        try:
            return types.SymbolKind(kind)
        except ValueError:
            return types.SymbolKind.Object
    return _SYMBOL_KIND.get(str(kind).lower(), types.SymbolKind.Object)


def document_symbol(sym: Any, index: LineIndex | None, encoding: Encoding) -> types.DocumentSymbol:
    """A feature ``Symbol(name, kind, span, selection_span, children)`` as an LSP DocumentSymbol."""
    rng = span_range(index, sym.span, encoding)
    selection = span_range(index, sym.selection_span or sym.span, encoding)
    if not _contains(rng, selection):  # LSP requires the selection inside the range
        selection = types.Range(start=rng.start, end=rng.start)
    children = [document_symbol(child, index, encoding) for child in (getattr(sym, "children", None) or ())]
    return types.DocumentSymbol(
        name=sym.name or "?",
        kind=symbol_kind(sym.kind),
        range=rng,
        selection_range=selection,
        detail=getattr(sym, "detail", None),
        children=children or None,
    )


def _contains(outer: types.Range, inner: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)
