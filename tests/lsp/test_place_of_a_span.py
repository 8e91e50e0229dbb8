"""``lsp.convert._place`` finds the end of a short one-line ASCII span from its start: for any
text (line breaks of each kind, a byte-order mark, multi-byte characters) and any span, in
every encoding, the place is the one both ends looked up give."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tfphi.lsp.convert import _place
from tfphi.text import LineIndex

PIECES = st.sampled_from(["a", "module.x", " ", "\n", "\r\n", "\r", "é", "😀", "\ufeff", "=", "\t"])


@settings(max_examples=600, deadline=None)
@given(pieces=st.lists(PIECES, max_size=16), start=st.integers(-2, 40), length=st.integers(-3, 12),
       encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_the_place_is_that_of_both_ends(pieces, start, length, encoding):
    index = LineIndex("".join(pieces).encode())
    end = start + length
    assert _place(index, start, end, encoding) == index.position(start, encoding) + index.position(max(start, end), encoding)
