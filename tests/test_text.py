"""Tests for tfphi.text: line index, encodings, incremental changes."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfphi.text import LineIndex, apply_text_change, byte_point

ENCODINGS = ("utf-8", "utf-16", "utf-32")


def index(text: str) -> LineIndex:
    return LineIndex(text.encode("utf-8"))


# --- line structure -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", [""]),
        ("a", ["a"]),
        ("a\n", ["a", ""]),
        ("a\nb", ["a", "b"]),
        ("a\r\nb\r\n", ["a", "b", ""]),
        ("a\rb", ["a", "b"]),
        ("a\r\rb", ["a", "", "b"]),
        ("a\n\rb", ["a", "", "b"]),
        ("a\r\n\nb", ["a", "", "b"]),
        ("\n\n", ["", "", ""]),
    ],
)
def test_line_terminators(text: str, lines: list[str]) -> None:
    idx = index(text)
    assert idx.line_count == len(lines)
    assert [idx.line_text(i) for i in range(idx.line_count)] == lines


def test_crlf_positions() -> None:
    idx = index("ab\r\ncd\r\n")
    assert idx.position(0, "utf-16") == (0, 0)
    assert idx.position(2, "utf-16") == (0, 2)
    assert idx.position(4, "utf-16") == (1, 0)
    assert idx.position(6, "utf-16") == (1, 2)
    assert idx.position(8, "utf-16") == (2, 0)
    # between \r and \n is not a position: it maps to the end of the line
    assert idx.position(3, "utf-16") == (0, 2)
    assert idx.offset(1, 1, "utf-16") == 5
    # column past the end stops before the \r\n
    assert idx.offset(0, 99, "utf-16") == 2
    assert idx.line_start(1) == 4


def test_lone_cr() -> None:
    idx = index("x = 1\ry = 2")
    assert idx.line_count == 2
    assert idx.position(6, "utf-32") == (1, 0)
    assert idx.offset(1, 4, "utf-32") == 10
    assert idx.offset(0, 50, "utf-8") == 5


# --- multi-byte characters ------------------------------------------------------


def test_multibyte_columns() -> None:
    text = "é日😀x"
    idx = index(text)
    # byte offsets of the char starts: é=0, 日=2, 😀=5, x=9, end=10
    assert [idx.position(o, "utf-8") for o in (0, 2, 5, 9, 10)] == [(0, 0), (0, 2), (0, 5), (0, 9), (0, 10)]
    assert [idx.position(o, "utf-16") for o in (0, 2, 5, 9, 10)] == [(0, 0), (0, 1), (0, 2), (0, 4), (0, 5)]
    assert [idx.position(o, "utf-32") for o in (0, 2, 5, 9, 10)] == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]
    assert [idx.offset(0, c, "utf-16") for c in range(6)] == [0, 2, 5, 5, 9, 10]
    assert [idx.offset(0, c, "utf-32") for c in range(5)] == [0, 2, 5, 9, 10]


def test_column_inside_surrogate_pair_gives_char_start() -> None:
    idx = index('a = "😀"')
    assert idx.offset(0, 5, "utf-16") == 5
    assert idx.offset(0, 6, "utf-16") == 5  # second half of the pair
    assert idx.offset(0, 7, "utf-16") == 9


def test_column_inside_multibyte_utf8_gives_char_start() -> None:
    idx = index("日本")
    assert [idx.offset(0, c, "utf-8") for c in range(7)] == [0, 0, 0, 3, 3, 3, 6]
    # an offset inside a char maps to the char's start as well
    assert [idx.position(o, "utf-16") for o in range(7)] == [(0, 0)] * 3 + [(0, 1)] * 3 + [(0, 2)]


def test_non_ascii_on_one_line_does_not_shift_others() -> None:
    idx = index("é\nabc")
    assert idx.position(5, "utf-16") == (1, 2)
    assert idx.offset(1, 2, "utf-16") == 5


# --- BOM, invalid UTF-8, clamping --------------------------------------------------


def test_bom_is_zero_width() -> None:
    idx = LineIndex(b"\xef\xbb\xbfab\ncd")
    for o in range(4):
        assert idx.position(o, "utf-16") == (0, 0)
    assert idx.offset(0, 0, "utf-16") == 3
    assert idx.offset(0, 1, "utf-8") == 4
    assert idx.position(5, "utf-8") == (0, 2)
    assert idx.line_text(0) == "ab"
    assert idx.line_start(0) == 3
    assert idx.position(6, "utf-32") == (1, 0)


def test_bom_only_file() -> None:
    idx = LineIndex(b"\xef\xbb\xbf")
    assert idx.line_count == 1
    assert idx.position(3, "utf-16") == (0, 0)
    assert idx.offset(0, 5, "utf-16") == 3


def test_invalid_utf8_counts_each_byte_once() -> None:
    idx = LineIndex(b"a\xff\xfeb\xe6\x97c")  # \xe6\x97 is a truncated 3-byte sequence
    assert [idx.position(o, "utf-16")[1] for o in range(8)] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert idx.offset(0, 7, "utf-32") == 7
    assert idx.line_text(0).startswith("a\ufffd")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_clamping(encoding: str) -> None:
    idx = index("ab\ncd\n")
    assert idx.position(-5, encoding) == (0, 0)
    assert idx.position(999, encoding) == (2, 0)
    assert idx.offset(99, 0, encoding) == 6
    assert idx.offset(-1, 3, encoding) == 0
    assert idx.offset(0, -3, encoding) == 0
    assert idx.offset(1, 99, encoding) == 5
    assert idx.line_start(99) == 6
    assert idx.line_text(99) == ""


def test_empty_file() -> None:
    idx = LineIndex(b"")
    assert idx.line_count == 1
    assert idx.position(0, "utf-16") == (0, 0)
    assert idx.offset(0, 0, "utf-16") == 0
    assert idx.offset(3, 3, "utf-16") == 0


# --- round trip ---------------------------------------------------------------

# Text biased towards the interesting cases: terminators, multi-byte chars, astral chars.
texts = st.lists(
    st.one_of(
        st.sampled_from(["\n", "\r", "\r\n", "é", "日", "😀", "a", " ", "\ufeff", "\x00"]),
        st.characters(codec="utf-8"),
    ),
    max_size=40,
).map("".join)


def char_boundaries(text: str) -> list[int]:
    """Byte offsets of every char boundary that is a valid position (not between \\r and \\n)."""
    offsets = [0]
    for ch in text:
        offsets.append(offsets[-1] + len(ch.encode("utf-8")))
    data = text.encode("utf-8")
    return [o for o in offsets if not (0 < o < len(data) and data[o - 1 : o + 1] == b"\r\n")]


@settings(max_examples=300)
@given(texts, st.booleans())
def test_round_trip(text: str, bom: bool) -> None:
    if bom:
        text = "\ufeff" + text
    data = text.encode("utf-8")
    idx = LineIndex(data)
    # offsets before the end of a leading BOM are not positions of their own
    first = 3 if text.startswith("\ufeff") else 0
    for o in char_boundaries(text):
        if o < first:
            continue
        for encoding in ENCODINGS:
            line, col = idx.position(o, encoding)
            assert idx.offset(line, col, encoding) == o, (o, encoding, line, col)


@settings(max_examples=200)
@given(texts)
def test_positions_match_naive(text: str) -> None:
    text = text.lstrip("\ufeff")  # a leading BOM is zero-width, tested apart
    idx = index(text)
    lines = naive_lines(text)
    assert idx.line_count == len(lines)
    for line_no, (line_text, _) in enumerate(lines):
        assert idx.line_text(line_no) == line_text
        for col, _ in enumerate(line_text):
            off = idx.offset(line_no, col, "utf-32")
            assert idx.position(off, "utf-16") == (line_no, len(line_text[:col].encode("utf-16-le")) // 2)
            assert idx.position(off, "utf-8") == (line_no, len(line_text[:col].encode("utf-8")))


# --- apply_text_change ------------------------------------------------------------


def naive_lines(text: str) -> list[tuple[str, int]]:
    """(line text, char index of line start) with LSP's line terminators."""
    result = []
    start = 0
    for m in re.finditer(r"\r\n|\r|\n", text):
        result.append((text[start : m.start()], start))
        start = m.end()
    result.append((text[start:], start))
    return result


def naive_char_index(text: str, line: int, column: int, encoding: str) -> int:
    lines = naive_lines(text)
    if line >= len(lines):
        return len(text)
    line_text, start = lines[line]
    units = 0
    for i, ch in enumerate(line_text):
        width = {"utf-8": len(ch.encode("utf-8")), "utf-16": 2 if ord(ch) > 0xFFFF else 1, "utf-32": 1}[encoding]
        if units + width > column:
            return start + i
        units += width
    return start + len(line_text)


def naive_apply(text, start, end, new_text, encoding):
    s = naive_char_index(text, *start, encoding)
    e = naive_char_index(text, *end, encoding)
    s, e = min(s, e), max(s, e)
    return text[:s] + new_text + text[e:], s, e


plain_texts = st.lists(
    st.one_of(st.sampled_from(["\n", "\r", "\r\n", "é", "日", "😀", "a", "b"]), st.characters(codec="utf-8")),
    max_size=30,
).map("".join)
# A leading U+FEFF is a BOM, zero-width for LineIndex but not for the naive model.
plain_texts = plain_texts.map(lambda t: t.lstrip("\ufeff"))
small = st.integers(min_value=0, max_value=8)


@settings(max_examples=400)
@given(plain_texts, small, small, small, small, plain_texts, st.sampled_from(ENCODINGS))
def test_apply_text_change_matches_naive(text, l1, c1, l2, c2, new_text, encoding) -> None:
    start, end = (l1, c1), (l2, c2)
    if end < start:
        start, end = end, start
    got, start_byte, old_end_byte, new_end_byte = apply_text_change(text, start, end, new_text, encoding)
    want, s, e = naive_apply(text, start, end, new_text, encoding)
    assert got == want
    assert start_byte == len(text[:s].encode("utf-8"))
    assert old_end_byte == len(text[:e].encode("utf-8"))
    assert new_end_byte == start_byte + len(new_text.encode("utf-8"))


def test_apply_text_change_examples() -> None:
    text = 'engine = "pg"\r\nversion = "日本"\n'
    got = apply_text_change(text, (1, 11), (1, 13), "15.4", "utf-16")
    assert got == ('engine = "pg"\r\nversion = "15.4"\n', 26, 32, 30)
    # a surrogate pair counts for two UTF-16 units
    got = apply_text_change("😀x", (0, 2), (0, 3), "y", "utf-16")
    assert got[0] == "😀y" and got[1:] == (4, 5, 5)
    got = apply_text_change("😀x", (0, 1), (0, 2), "y", "utf-32")
    assert got[0] == "😀y"
    # insertion at end of file, past the last line
    got = apply_text_change("a\n", (5, 0), (5, 0), "b", "utf-16")
    assert got == ("a\nb", 2, 2, 3)


# --- tree-sitter points ----------------------------------------------------------------


def test_byte_point() -> None:
    data = "ab\nc日d\r\ne".encode("utf-8")
    assert byte_point(data, 0) == (0, 0)
    assert byte_point(data, 3) == (1, 0)
    assert byte_point(data, 7) == (1, 4)  # byte column, after 日
    assert byte_point(data, 10) == (2, 0)
    assert byte_point(data, 999) == (2, 1)
    # tree-sitter rows advance only at \n
    assert byte_point(b"a\rb", 2) == (0, 2)
    # no BOM adjustment: tree-sitter reports the raw byte column
    assert byte_point(b"\xef\xbb\xbfa", 3) == (0, 3)


# --- an edited index is the index of the edited text ---------------------------------

def _same_index(edited: LineIndex, fresh: LineIndex) -> None:
    source = fresh.source
    assert edited.source == source
    assert edited.line_count == fresh.line_count
    assert [edited.line_start(n) for n in range(fresh.line_count)] == [fresh.line_start(n) for n in range(fresh.line_count)]
    for offset in range(len(source) + 1):
        for encoding in ENCODINGS:
            assert edited.position(offset, encoding) == fresh.position(offset, encoding), (offset, encoding)


@settings(max_examples=400)
@given(texts, st.data(), texts, st.booleans())
def test_edited_index_matches_a_fresh_one(text: str, data, inserted: str, skip_bom: bool) -> None:
    source = text.encode("utf-8")
    start = data.draw(st.integers(0, len(source)), label="start")
    old_end = data.draw(st.integers(start, len(source)), label="old_end")
    new_source = source[:start] + inserted.encode("utf-8") + source[old_end:]
    old = LineIndex(source, skip_bom=skip_bom)
    for line in range(old.line_count):  # fill the non-ASCII line layouts the edit must keep or drop
        old.position(old.line_end(line), "utf-16")
    _same_index(old.edited(start, old_end, new_source), LineIndex(new_source, skip_bom=skip_bom))


@pytest.mark.parametrize(
    "before, start, old_end, inserted",
    [
        ("ab\r\ncd\n", 3, 4, ""),  # delete the \n of a \r\n: the \r ends the line alone
        ("ab\rcd\n", 3, 3, "\n"),  # type \n after a lone \r: one \r\n
        ("abcd\nef", 4, 4, "\r"),  # type \r before a \n: one \r\n
        ("ab\r\ncd", 3, 3, "x"),  # split a \r\n
        ("ab\ncd\nef\n", 4, 4, "\n\n"),  # new lines in the middle
        ("ab\ncd\nef\n", 4, 8, ""),  # lines joined
        ("\ufeffab\ncd", 6, 6, "é"),  # after a byte-order mark
        ("ab\ncd", 1, 1, "\ufeff"),  # near the start: read afresh
        ("日本\n語\n", 7, 7, "x"),  # a non-ASCII line's layout read again
    ],
)
def test_edited_index_examples(before: str, start: int, old_end: int, inserted: str) -> None:
    source = before.encode("utf-8")
    new_source = source[:start] + inserted.encode("utf-8") + source[old_end:]
    for skip_bom in (True, False):
        old = LineIndex(source, skip_bom=skip_bom)
        for line in range(old.line_count):
            old.position(old.line_end(line), "utf-16")
        _same_index(old.edited(start, old_end, new_source), LineIndex(new_source, skip_bom=skip_bom))


@settings(max_examples=300)
@given(texts, st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), texts), min_size=1, max_size=6), st.booleans())
def test_a_chain_of_edits_keeps_the_index_right(text: str, edits, skip_bom: bool) -> None:
    """The lines below an edit move lazily (an edit's index keeps a pending shift): each index of a
    chain of edits, at places above, in and below the lines still to move, is the fresh one."""
    source = text.encode("utf-8")
    index = LineIndex(source, skip_bom=skip_bom)
    for where, length, inserted in edits:
        start = int(where * len(source))
        old_end = start + int(length * (len(source) - start) / 4)
        new_source = source[:start] + inserted.encode("utf-8") + source[old_end:]
        index, source = index.edited(start, old_end, new_source), new_source
        _same_index(index, LineIndex(source, skip_bom=skip_bom))


def test_keystrokes_below_above_and_in_the_lines_to_move() -> None:
    text = "".join(f"line {n}\n" for n in range(40)).encode()
    index, source = LineIndex(text, skip_bom=False), text
    for at, inserted, removed in [(60, b"x", 0), (61, b"y", 0), (60, b"", 2), (200, b"\n\n", 0), (20, b"z\n", 0),
                                  (150, b"", 10), (5, b"abc", 0), (290, b"\r\n", 1)]:
        new_source = source[:at] + inserted + source[at + removed :]
        index, source = index.edited(at, at + removed, new_source), new_source
        _same_index(index, LineIndex(source, skip_bom=False))
