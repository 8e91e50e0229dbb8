"""textDocument/semanticTokens/full and /range: the tokens of ``features.semantic_tokens``, encoded.

LSP wants five integers per token (line delta, start delta, length, type, modifier bits), in
the negotiated position encoding, one line per token: a token that spans lines (a block
comment, heredoc text) is sent as one token per line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import guarded
from ...features.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, Token, semantic_tokens
from ...text import Encoding, LineIndex

if TYPE_CHECKING:
    from ..server import DocContext, TfphiServer


def legend() -> types.SemanticTokensLegend:
    return types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))


def encode(tokens: "list[Token]", index: "LineIndex", encoding: "Encoding") -> list[int]:
    """The LSP integer encoding of ``tokens`` (byte ranges of the indexed text, in order)."""
    type_ids = {name: i for i, name in enumerate(TOKEN_TYPES)}
    modifier_bits = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}
    data: list[int] = []
    last_line = last_char = 0
    for token in tokens:
        bits = sum(modifier_bits[m] for m in token.modifiers)
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
            data.extend((line_no - last_line, delta_char, end_char - char, type_ids[token.type], bits))
            last_line, last_char = line_no, char
    return data


def _tokens(ctx: "DocContext", start: int | None = None, end: int | None = None) -> list[int]:
    hcl = ctx.analysis.files.get(ctx.path) or ctx.analysis.tfvars.get(ctx.path)
    if hcl is None or ctx.index is None:
        return []
    tokens = semantic_tokens(hcl)
    if start is not None and end is not None:
        tokens = [t for t in tokens if t.end > start and t.start < end]
    return encode(tokens, ctx.index, ctx.encoding)


def register(server: "TfphiServer") -> None:
    options = legend()  # pygls builds SemanticTokensOptions (full and range) from the legend

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, options)
    @guarded(server, default=lambda: types.SemanticTokens(data=[]))
    def semantic_tokens_full(params: types.SemanticTokensParams) -> types.SemanticTokens:
        ctx = server.context(params.text_document.uri)
        return types.SemanticTokens(data=_tokens(ctx) if ctx is not None else [])

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, options)
    @guarded(server, default=lambda: types.SemanticTokens(data=[]))
    def semantic_tokens_range(params: types.SemanticTokensRangeParams) -> types.SemanticTokens:
        ctx = server.context(params.text_document.uri)
        if ctx is None:
            return types.SemanticTokens(data=[])
        start, end = convert.range_offsets(ctx.index, params.range, ctx.encoding)
        return types.SemanticTokens(data=_tokens(ctx, start, end))
