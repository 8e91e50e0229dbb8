"""``features.suppress.suppressed_in`` reads the two lines around a diagnostic only when their
bytes hold the marker's word: for any text and offset it answers what reading them always gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tfphi.features.suppress import ALL, _lines_around, ignored_codes, suppressed_in

PIECES = st.sampled_from(["a = 1", "\n", "\r\n", "# tfphi:ignore", "// tfphi:ignore undefined-reference", " ", "é",
                          "tfphi:ignore", "#", "x-y", ", other-code"])


def read_always(source: bytes, offset: int, code: str) -> bool:
    for text in _lines_around(source, offset):
        codes = ignored_codes(text)
        if ALL in codes or code in codes:
            return True
    return False


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(PIECES, max_size=12), at=st.integers(0, 200),
       code=st.sampled_from(["undefined-reference", "other-code", "unbounded-field"]))
def test_the_answer_is_that_of_reading_the_lines(pieces, at, code):
    source = "".join(pieces).encode()
    offset = min(at, len(source))
    assert suppressed_in(source, offset, code) == read_always(source, offset, code)
