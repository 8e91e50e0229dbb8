"""Positions in a file: UTF-8 byte offsets <-> (line, column) in a chosen encoding.

Everything inside tfphi (tree-sitter, the graph, the tracer) speaks UTF-8 byte
offsets. Editors speak (line, column) where the column counts UTF-16 code units
(the LSP default), UTF-8 bytes, or, for the CLI's 1-based output, Unicode code
points ("utf-32"). This module is the one place that converts between them.

Rules, chosen to match LSP:
- a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``;
- a UTF-8 byte-order mark at the very start is zero-width: offsets 0..3 map
  to (0, 0), and (0, 0) maps to offset 3;
- invalid UTF-8 never raises: each invalid byte counts as one code unit in
  every encoding;
- out-of-range input is clamped, never rejected.

Tree-sitter is different: its rows advance only at ``\\n`` and its columns are
raw bytes with no BOM adjustment; :func:`byte_point` gives that view.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Literal

from .lazy_re import lazy_compile

__all__ = ["Encoding", "LineIndex", "apply_text_change", "byte_point"]

Encoding = Literal["utf-8", "utf-16", "utf-32"]

_BOM = b"\xef\xbb\xbf"
_LINE_BREAK = lazy_compile(rb"\r\n|\r|\n")


class _LineTable:
    """Per-character layout of one non-ASCII line: where each char starts in bytes and in UTF-16 units."""

    __slots__ = ("byte_starts", "utf16_starts")

    def __init__(self, line: bytes):
        # surrogateescape turns each invalid byte into one lone surrogate
        # U+DC80..U+DCFF, so every decoded char maps back to a known byte length.
        text = line.decode("utf-8", "surrogateescape")
        byte_starts = [0] * (len(text) + 1)
        utf16_starts = [0] * (len(text) + 1)
        b = u = 0
        for i, ch in enumerate(text):
            cp = ord(ch)
            if cp < 0x80:
                b += 1
                u += 1
            elif cp < 0x800:
                b += 2
                u += 1
            elif 0xDC80 <= cp <= 0xDCFF:  # an escaped invalid byte
                b += 1
                u += 1
            elif cp < 0x10000:
                b += 3
                u += 1
            else:
                b += 4
                u += 2
            byte_starts[i + 1] = b
            utf16_starts[i + 1] = u
        self.byte_starts = byte_starts
        self.utf16_starts = utf16_starts

    def char_at_byte(self, delta: int) -> int:
        """Index of the char containing byte `delta` of the line (the char count when past the end)."""
        return bisect_right(self.byte_starts, delta) - 1

    def column(self, char_index: int, encoding: Encoding) -> int:
        """Column of the start of char `char_index` in `encoding`."""
        if encoding == "utf-8":
            return self.byte_starts[char_index]
        if encoding == "utf-16":
            return self.utf16_starts[char_index]
        return char_index

    def char_at_column(self, column: int, encoding: Encoding) -> int:
        """Index of the char whose span contains `column` (clamped to the line's char count)."""
        if encoding == "utf-32":
            return min(column, len(self.byte_starts) - 1)
        starts = self.byte_starts if encoding == "utf-8" else self.utf16_starts
        return bisect_right(starts, column) - 1


class LineIndex:
    """Maps UTF-8 byte offsets of one file's bytes to (line, column) positions in a chosen encoding and back."""

    # ``_starts[i]`` is where line ``i`` starts, except from line ``_from`` on, where it is that
    # start minus ``_shift``: the lines below an edit are moved lazily (``edited``). An index never
    # changes ``_starts`` in place: an edited index may share the list with the one it came from.
    __slots__ = ("_source", "_starts", "_from", "_shift", "_bom", "_skip_bom", "_tables", "_ascii", "_cr")

    def __init__(self, source: bytes, skip_bom: bool = True):
        """``skip_bom=False`` for an editor's text, where a leading U+FEFF is a character like any other."""
        source = bytes(source)
        self._source = source
        self._skip_bom = skip_bom
        self._bom = 3 if skip_bom and source.startswith(_BOM) else 0
        if b"\r" in source:
            starts = [0]
            starts.extend(m.end() for m in _LINE_BREAK.finditer(source))
        else:
            # The common case; split + accumulate runs mostly in C.
            parts = source.split(b"\n")
            starts = [0]
            starts.extend(accumulate(len(p) + 1 for p in parts[:-1]))
        starts[0] = self._bom
        self._starts = starts
        self._from, self._shift = len(starts), 0
        self._tables: dict[int, _LineTable | None] = {}
        self._ascii = source.isascii()  # every column is a byte delta: no line layout is ever read
        self._cr = b"\r" in source  # (may hold a \r: tree-sitter's rows are then not the lines, see ``point``)

    @property
    def source(self) -> bytes:
        """The bytes this index was built from."""
        return self._source

    def edited(self, start: int, old_end: int, new_source: bytes) -> "LineIndex":
        """The index of ``new_source``: this index's text with bytes ``[start, old_end)`` replaced.

        An editor's keystroke in a long file costs the lines it touched, not the file: the
        line starts before the edit are kept, those after it are moved, and only the edited
        range is searched for line breaks. Whether a position starts a line depends on the
        byte before it and, after a ``\\r``, the byte at it: so starts up to ``start`` and
        from ``old_end + 1`` on are unchanged (moved), and the ones between are searched in
        the new text (with a byte of context each side, for a ``\\r\\n`` the edit split or joined).
        The lines below the edit are moved lazily (``_from``, ``_shift``): keystrokes in one
        place make no new line start below it (making 2,858 of them was most of a keystroke's
        cost in a 2,858-line file); an edit above the lines still to move moves those below it.
        A keystroke that makes and takes no line start, typed where the lines below already
        move lazily (the second keystroke on a line on), shares this index's list of starts:
        no copy of the file's 2,858 line starts (a copy per keystroke otherwise: 10-20 µs).
        """
        old_source = self._source
        if start <= len(_BOM):  # a byte-order mark may have come or gone: read afresh
            return LineIndex(new_source, self._skip_bom)
        delta = len(new_source) - len(old_source)
        new_end = old_end + delta
        starts, cut, shift = self._starts, self._from, self._shift
        keep = self._line_at(start - 1) + 1  # starts < start: decided by bytes before the edit
        tail = self._line_at(old_end) + 1  # starts > old_end: decided by bytes after it
        middle = [m.end() for m in _LINE_BREAK.finditer(new_source, start - 1, min(new_end + 1, len(new_source)))]
        middle = [q for q in middle if start <= q <= new_end]
        if not middle and keep == tail == cut:  # the same lines, those below already moving: shared
            new_starts, new_from, new_shift = starts, cut, shift + delta
        elif cut <= tail:  # the lines after the edit are to move already: by ``delta`` more
            new_starts = starts[:]
            new_starts[keep:tail] = middle
            if cut < keep:
                new_starts[cut:keep] = [p + shift for p in starts[cut:keep]]
            new_from, new_shift = keep + len(middle), shift + delta
        else:  # an edit above the lines to move: those are moved now, the ones after the edit wait
            new_starts = starts[:]
            if shift:
                new_starts[cut:] = [p + shift for p in starts[cut:]]
            new_starts[keep:tail] = middle
            new_from, new_shift = keep + len(middle), delta
        index = LineIndex.__new__(LineIndex)
        index._source = new_source
        index._skip_bom = self._skip_bom
        index._bom = self._bom  # the first bytes are the same
        index._starts = new_starts
        index._from, index._shift = new_from, new_shift
        index._ascii = self._ascii and new_source[start:new_end].isascii()
        index._cr = self._cr or b"\r" in new_source[start:new_end]
        # Non-ASCII line layouts of the lines above the edit stay right; the others are read again.
        first_changed = keep - 1
        index._tables = {} if index._ascii else {line: table for line, table in self._tables.items() if line < first_changed}
        return index

    def _start(self, line: int) -> int:
        """Where ``line`` (a valid line number) starts."""
        return self._starts[line] + self._shift if line >= self._from else self._starts[line]

    def _line_at(self, offset: int) -> int:
        """The number of lines starting at or before ``offset``, minus one."""
        starts, cut = self._starts, self._from
        if cut < len(starts) and offset >= starts[cut] + self._shift:
            return bisect_right(starts, offset - self._shift, cut) - 1
        return bisect_right(starts, offset, 0, cut) - 1

    @property
    def line_count(self) -> int:
        """Number of lines; a final line terminator starts one more (empty) line, as in LSP."""
        return len(self._starts)

    def line_start(self, line: int) -> int:
        """Byte offset of the first character of `line` (after the BOM on line 0); clamped."""
        if line < 0:
            return self._starts[0]
        if line >= len(self._starts):
            return len(self._source)
        return self._start(line)

    def line_end(self, line: int) -> int:
        """Byte offset just past the last character of `line`, before its terminator; clamped."""
        if line < 0:
            line = 0
        if line >= len(self._starts):
            return len(self._source)
        if line + 1 == len(self._starts):
            return len(self._source)
        end = self._start(line + 1)
        source = self._source
        if source[end - 1] == 0x0A:  # \n, maybe preceded by \r
            end -= 1
            if end > self._start(line) and source[end - 1] == 0x0D:
                end -= 1
        else:  # a lone \r
            end -= 1
        return end

    def line_text(self, line: int) -> str:
        """Text of `line` without its terminator (invalid bytes become U+FFFD); '' past the end."""
        if line < 0 or line >= len(self._starts):
            return ""
        return self._source[self._start(line) : self.line_end(line)].decode("utf-8", "replace")

    def _table(self, line: int, start: int, end: int) -> _LineTable | None:
        """The char layout of a non-ASCII line, or None for an ASCII one (columns are byte deltas)."""
        if self._ascii:
            return None
        try:
            return self._tables[line]
        except KeyError:
            pass
        content = self._source[start:end]
        table = None if content.isascii() else _LineTable(content)
        self._tables[line] = table
        return table

    def point(self, offset: int) -> tuple[int, int]:
        """``byte_point(self.source, offset)`` (tree-sitter's row and byte column), found from the line
        starts when every line ends at a ``\\n`` (no ``\\r``, no byte-order mark skipped) instead of
        counting the line breaks before ``offset``: an edit at the end of a long file costs its line."""
        if self._cr or self._bom:
            return byte_point(self._source, offset)
        offset = min(max(offset, 0), len(self._source))
        line = self._line_at(offset)
        return line, offset - self._start(line)

    def line_of(self, offset: int) -> int:
        """0-based line containing byte `offset` (clamped)."""
        offset = min(max(offset, self._bom), len(self._source))
        return max(self._line_at(offset), 0)

    def position(self, offset: int, encoding: Encoding) -> tuple[int, int]:
        """0-based (line, column) of byte `offset`, clamped to the file.

        An offset inside a multi-byte character maps to that character's start;
        one inside a line terminator maps to the end of the line.
        """
        offset = min(max(offset, self._bom), len(self._source))
        line = max(self._line_at(offset), 0)
        start = self._start(line)
        end = self.line_end(line)
        delta = min(offset, end) - start
        table = self._table(line, start, end)
        if table is None:
            return line, delta
        return line, table.column(table.char_at_byte(delta), encoding)

    def places(self, ranges: list[tuple[int, int]], encoding: Encoding) -> list[tuple[int, int, int, int]]:
        """(start line, start column, end line, end column) of each byte range ``(start, end)``:
        ``position`` of both ends (of the start alone when ``end <= start``). A file's
        diagnostics are placed together: in a text of ASCII lines ended by ``\\n`` a column is a
        byte delta, and an end on its start's line (a reference) needs no search of its own,
        so a range costs one bisection instead of two walks through ``position``."""
        if not self._ascii or self._cr or self._bom:
            source = self._source
            out = []
            for start, end in ranges:
                line, column = self.position(start, encoding)
                if end <= start:
                    out.append((line, column, line, column))
                elif 0 <= start and end <= len(source) and end - start <= _SHORT and _one_ascii_line(source[start:end]):
                    out.append((line, column, line, column + end - start))  # (as many columns as bytes, in every encoding)
                else:
                    out.append((line, column) + self.position(end, encoding))
            return out
        line_at, line_start = self._line_at, self._start
        count, size = len(self._starts), len(self._source)
        out = []
        for start, end in ranges:
            empty = end <= start
            start, end = min(max(start, 0), size), min(max(end, 0), size)
            line = line_at(start)
            column = start - line_start(line)
            if empty:
                out.append((line, column, line, column))
            elif line + 1 >= count or end < line_start(line + 1):  # (an end on the start's line)
                out.append((line, column, line, column + end - start))
            else:
                last = line_at(end)
                out.append((line, column, last, end - line_start(last)))
        return out

    def offset(self, line: int, column: int, encoding: Encoding) -> int:
        """Byte offset of 0-based (line, column), clamped.

        A line past the end gives len(source); a column past the line's end gives
        the end of that line (before its terminator); a column inside a
        multi-byte character or a UTF-16 surrogate pair gives that character's start.
        """
        if line < 0:
            line, column = 0, 0
        if line >= len(self._starts):
            return len(self._source)
        column = max(column, 0)
        start = self._start(line)
        end = self.line_end(line)
        table = self._table(line, start, end)
        if table is None:
            return start + min(column, end - start)
        return start + table.byte_starts[table.char_at_column(column, encoding)]


_SHORT = 256  # (longer spans are looked up: not worth copying)


def _one_ascii_line(text: bytes) -> bool:
    return text.isascii() and b"\n" not in text and b"\r" not in text


def apply_text_change(
    text: str,
    start: tuple[int, int],
    end: tuple[int, int],
    new_text: str,
    encoding: Encoding,
) -> tuple[str, int, int, int]:
    """Applies one LSP incremental change to `text` (a str), positions in `encoding`; returns (new_text, start_byte, old_end_byte, new_end_byte) with byte offsets in the UTF-8 encoding of the text (needed for tree-sitter's Tree.edit)."""
    # surrogatepass keeps lone surrogates (which a str may hold) round-trippable.
    source = text.encode("utf-8", "surrogatepass")
    index = LineIndex(source)
    start_byte = index.offset(start[0], start[1], encoding)
    old_end_byte = index.offset(end[0], end[1], encoding)
    if old_end_byte < start_byte:  # a reversed range; LSP forbids it, be lenient
        start_byte, old_end_byte = old_end_byte, start_byte
    inserted = new_text.encode("utf-8", "surrogatepass")
    result = source[:start_byte] + inserted + source[old_end_byte:]
    return (
        result.decode("utf-8", "surrogatepass"),
        start_byte,
        old_end_byte,
        start_byte + len(inserted),
    )


def byte_point(source: bytes, offset: int) -> tuple[int, int]:
    """Tree-sitter Point (row, byte column) for byte `offset`: rows advance only at \\n, no BOM adjustment."""
    offset = min(max(offset, 0), len(source))
    row = source.count(b"\n", 0, offset)
    line_start = source.rfind(b"\n", 0, offset) + 1
    return row, offset - line_start
