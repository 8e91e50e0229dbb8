"""``LineIndex.places`` (where ``lsp.convert`` puts a file's diagnostics) finds both ends of each
span with one search: for any text (line breaks of each kind, a byte-order mark, multi-byte
characters), any chain of edits before (an edited index moves the line starts below an edit
lazily: ``LineIndex.edited``) and any spans, in every encoding, the places are the ones both ends
looked up one at a time give."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tfphi.text import LineIndex

PIECES = st.sampled_from(["a", "module.x", " ", "\n", "\r\n", "\r", "é", "😀", "\ufeff", "=", "\t"])
ASCII_PIECES = st.sampled_from(["a", "module.x", " ", "\n", "\n\n", "=", "\t", "}"])
ENCODINGS = st.sampled_from(["utf-8", "utf-16", "utf-32"])
SPANS = st.lists(st.tuples(st.integers(-2, 60), st.integers(-3, 20)), min_size=1, max_size=8)


def one_at_a_time(index: LineIndex, start: int, end: int, encoding) -> tuple[int, int, int, int]:
    return index.position(start, encoding) + index.position(max(start, end), encoding)


@settings(max_examples=600, deadline=None)
@given(pieces=st.lists(PIECES, max_size=16), spans=SPANS, encoding=ENCODINGS)
def test_the_places_are_those_of_both_ends(pieces, spans, encoding):
    index = LineIndex("".join(pieces).encode())
    ranges = [(start, start + length) for start, length in spans]
    assert index.places(ranges, encoding) == [one_at_a_time(index, start, end, encoding) for start, end in ranges]


@settings(max_examples=600, deadline=None)
@given(pieces=st.lists(ASCII_PIECES, min_size=1, max_size=16),
       edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3), st.sampled_from(["", "x", "\n", "ab\n", "\n\n"])), max_size=5),
       spans=SPANS, encoding=ENCODINGS)
def test_the_places_in_an_edited_index_are_those_of_both_ends(pieces, edits, spans, encoding):
    """An ASCII text of ``\\n`` lines (the fast way: one search per span) after keystrokes: the
    lines below the last edits start where ``position`` says, their pending shift applied."""
    text = "".join(pieces).encode()
    index = LineIndex(text)
    for where, deleted, inserted in edits:
        start = max(int(where * len(text)), 4)  # (an edit at the start reads the text afresh: a byte-order mark may have come)
        start = min(start, len(text))
        end = min(len(text), start + deleted)
        text = text[:start] + inserted.encode() + text[end:]
        index = index.edited(start, end, text)
    ranges = [(start, start + length) for start, length in spans]
    assert index.places(ranges, encoding) == [one_at_a_time(index, start, end, encoding) for start, end in ranges]
