"""textDocument/semanticTokens/full and /range: the tokens of ``features.semantic_tokens``, encoded.

LSP wants five integers per token (line delta, start delta, length, type, modifier bits), in
the negotiated position encoding, one line per token: a token that spans lines (a block
comment, heredoc text) is sent as one token per line.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import guarded
from ...features.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, BlockTokens, Token, relative_tokens, semantic_tokens
from ...text import Encoding, LineIndex

if TYPE_CHECKING:
    from ..server import DocContext, TfphiServer


def legend() -> types.SemanticTokensLegend:
    return types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))


def encode(tokens: "list[Token]", index: "LineIndex", encoding: "Encoding") -> list[int]:
    """The LSP integer encoding of ``tokens`` (byte ranges of the indexed text, in order)."""
    data: list[int] = []
    _encode_into(data, tokens, index, encoding, 0, 0)
    return data


def _encode_into(data: list[int], tokens: "list[Token]", index: "LineIndex", encoding: "Encoding", last_line: int,
                 last_char: int) -> tuple[int, int]:
    """Appends ``encode``'s integers of ``tokens`` to ``data``, after a token at (``last_line``,
    ``last_char``); the position of the last one it appends (the same when none)."""
    for token in tokens:
        bits = sum(_MODIFIER_BITS[m] for m in token.modifiers)
        first, _ = index.position(token.start, encoding)
        final, _ = index.position(token.end, encoding)
        for line in range(first, final + 1):
            start = max(token.start, index.line_start(line))
            end = min(token.end, index.line_end(line))
            if end <= start:
                continue
            line_no, char = index.position(start, encoding)
            _, end_char = index.position(end, encoding)
            delta_char = char - last_char if line_no == last_line else char
            data.extend((line_no - last_line, delta_char, end_char - char, _TYPE_IDS[token.type], bits))
            last_line, last_char = line_no, char
    return last_line, last_char


_TYPE_IDS = {name: i for i, name in enumerate(TOKEN_TYPES)}
_MODIFIER_BITS = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}


def encode_blocks(hcl, kept: "BlockTokens", index: "LineIndex", encoding: "Encoding") -> list[int] | None:
    """``encode(semantic_tokens(hcl, kept), ...)`` from each top-level block's encoding of its own
    tokens in its own text's lines, kept with them (``BlockTokens.derived``; the same for the
    comments between blocks): a piece's lines are the same wherever it is, and its characters
    too but on its first line, shifted by the piece's column. Per answer, only each piece's
    first token's deltas (and its character when on the piece's first line) are made. None when
    the file is not read block by block (``encode`` then)."""
    pieces = kept.pieces(hcl)
    if pieces is None:
        return None
    data: list[int] = []
    last_line = last_char = 0
    for base, entry in pieces:
        rows, rows_last_line, rows_last_char = BlockTokens.derived(entry, encoding, lambda text, rel: _encode_piece(text, rel, encoding))
        if not rows:
            continue
        line, column = index.position(base, encoding)
        at = len(data)
        data += rows
        first_line, first_char = line + rows[0], rows[1] + (column if rows[0] == 0 else 0)
        data[at] = first_line - last_line
        data[at + 1] = first_char - last_char if first_line == last_line else first_char
        last_line, last_char = line + rows_last_line, rows_last_char + (column if rows_last_line == 0 else 0)
    return data


def _encode_piece(text: bytes, relative, encoding: "Encoding") -> tuple[array, int, int]:
    """A piece's tokens encoded in its own text's lines: the first row's line and character from
    the piece's start, the others as deltas (an array: 4 bytes an integer, not a list's 8); and
    the last row's line and character."""
    data: list[int] = []
    tokens = [Token(start, end, kind, modifiers) for start, end, kind, modifiers in relative_tokens(relative)]
    last_line, last_char = _encode_into(data, tokens, LineIndex(text, skip_bom=False), encoding, 0, 0)
    return array("i", data), last_line, last_char


def _tokens(ctx: "DocContext", kept: "BlockTokens | None", start: int | None = None, end: int | None = None) -> list[int]:
    """``kept``: the open document's tokens per block (``Document.tokens``), or None."""
    hcl = ctx.analysis.files.get(ctx.path) or ctx.analysis.tfvars.get(ctx.path)
    if hcl is None or ctx.index is None:
        return []
    if kept is not None and start is None:
        data = encode_blocks(hcl, kept, ctx.index, ctx.encoding)
        if data is not None:
            return data
    tokens = semantic_tokens(hcl, kept, (start, end) if start is not None and end is not None else None)
    return encode(tokens, ctx.index, ctx.encoding)


def _kept(server: "TfphiServer", ctx: "DocContext") -> "BlockTokens | None":
    """The tokens per block that the open document keeps (None for a file not open)."""
    doc = server.ws.documents.get(ctx.uri)
    return doc.tokens if doc is not None else None


def register(server: "TfphiServer") -> None:
    options = legend()  # pygls builds SemanticTokensOptions (full and range) from the legend

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, options)
    @guarded(server, default=lambda: types.SemanticTokens(data=[]))
    def semantic_tokens_full(params: types.SemanticTokensParams) -> types.SemanticTokens:
        ctx = server.context(params.text_document.uri)
        return types.SemanticTokens(data=_tokens(ctx, _kept(server, ctx)) if ctx is not None else [])

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, options)
    @guarded(server, default=lambda: types.SemanticTokens(data=[]))
    def semantic_tokens_range(params: types.SemanticTokensRangeParams) -> types.SemanticTokens:
        ctx = server.context(params.text_document.uri)
        if ctx is None:
            return types.SemanticTokens(data=[])
        start, end = convert.range_offsets(ctx.index, params.range, ctx.encoding)
        return types.SemanticTokens(data=_tokens(ctx, _kept(server, ctx), start, end))
