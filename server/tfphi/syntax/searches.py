"""The file-wide text searches of a parse (the syntax-error shapes, the rules' candidates),
answered from what each top-level block keeps for its own text, so that a parse that took the
last parse's blocks over searches what it read anew: the blocks of the edited region and the
text between them (``hclfile._read_top_level_taking_over``); and the whole texts found clean,
which need no search again (``CleanSources``)."""

from __future__ import annotations


def openers(text: bytes) -> int:
    """How many ``<<`` and ``/*`` ``text`` holds: while neither the last text nor this one holds
    any, the syntax-error shapes' search (``error_shapes.suspicious``) is the search of each line;
    else it drops first the lines of what it takes for heredocs and ``/* */`` comments, found by
    their openers and terminators across the whole text (a ``/*`` in a string,
    ``"arn:aws:s3:::bucket/*"``, is taken for one up to the next ``*/``, wherever it is)."""
    return text.count(b"<<") + text.count(b"/*")


def searched(which: int, search, source: bytes, taken: tuple, before: tuple, answers: list, by_line: bool = True) -> bool:
    """``search(source)`` for a parse that took the last parse's blocks over (``search_blocks``;
    ``taken``: what ``hclfile._read_top_level_taking_over`` returned; ``before``: what the
    searches answered for the last parse's text, ``HclFile.searched``):
    when only a region was read and the text searched before found nothing, the region alone
    is searched (what lies outside it is unchanged, each shape lies within one line), unless
    ``by_line`` is False (a search that reads across lines: ``openers``, which found a "/*" in
    the last text's region paired with a "*/" below it, and a shape below shown once the "/*"
    was deleted, tests/syntax/test_region_parse.py);
    noted in ``answers`` for the next parse."""
    read = taken[3]
    found = None
    if read is not None and before[which] is False and by_line:
        start, end, items = read[:3]
        # The lines outside the region are unchanged when it starts and ends at a line's end.
        if (not start or source[start] == 0x0A) and (end == len(source) or source[end - 1] == 0x0A):
            found = search_blocks(which, search, source, items, start, end)
    if found is None:
        found = search_blocks(which, search, source, taken[1])
    answers[which] = found = bool(found)
    return found


def search_blocks(which: int, search, source: bytes, items: list, begin: int = 0, stop: int | None = None) -> bool:
    """``search(source)`` (a file-wide text search whose shapes each lie within one line: the
    syntax-error shapes, the rules' candidates) from the answers its top-level blocks keep for
    their own text, and one search of the text between them. Heredocs and ``/* */`` comments
    reach across lines (and a block that does not take whole lines may share one with its
    neighbour): then the whole text is searched. A block found suspicious is confirmed by it.
    ``begin``, ``stop``: the region of the text ``items`` cover (the whole text by default)."""
    if source.find(b"<<", begin, stop) >= 0 or source.find(b"/*", begin, stop) >= 0:
        return search(source)
    size = len(source)
    gaps: list[bytes] = []
    cursor = begin
    for block in items:  # (``HclFile.items``: a top-level block as itself, where its anchor is)
        if type(block) is tuple:
            continue
        start = block._anchor.start
        end = start + len(block.text)
        # (a block ends its line before a "\n" or a CRLF's "\r": else a Windows file's every search
        # was the whole text's; the gap after it then starts with the "\r\n", a line break)
        if (start and source[start - 1] != 0x0A) or (end < size and source[end] != 0x0A
                                                     and source[end : end + 2] != b"\r\n"):
            return search(source)
        verdicts = block._verdicts
        if verdicts is None:
            verdicts = block._verdicts = [None, None]
        verdict = verdicts[which]
        if verdict is None:
            verdict = verdicts[which] = bool(search(b"\n" + block.text))
        if verdict:
            return search(source)
        gaps.append(source[cursor:start])
        cursor = end
    gaps.append(source[cursor:stop])
    return bool(search(b"".join(gaps))) and search(source)


class CleanSources:
    """The bytes of native-syntax files found free of syntax errors (tree-sitter's, Terraform's,
    the rules'), which ``build_file`` need not search again: the searches are a function of the
    bytes, and a workspace repeats whole files (each example's ``versions.tf``). Its owner (the
    analysis host) keeps one. It keeps the texts of top-level blocks found to set no argument
    twice too (``set_twice.first_set_twice``; a generated workspace repeats its blocks), bounded
    apart. What it holds is what files read whole found (from disk, or a document's first
    parse), never what a keystroke makes: each edited block's text was remembered until session
    12, filling the 8 MiB of blocks with the edit history (17 -> 567 texts over 1,600 edits of
    the in-process soak at 100 modules: docs/memory.md, "Where the resident memory is"). Both
    bounds stay, for files re-read from disk."""

    MAX_BYTES = 16 << 20
    MAX_BLOCK_BYTES = 8 << 20

    def __init__(self) -> None:
        self._sources = _BoundedBytes(self.MAX_BYTES)
        self._blocks = _BoundedBytes(self.MAX_BLOCK_BYTES)

    def __contains__(self, source: bytes) -> bool:
        return source in self._sources

    def add(self, source: bytes) -> None:
        self._sources.add(source)

    def block_checked(self, text: bytes) -> bool:
        return text in self._blocks

    def add_block(self, text: bytes) -> None:
        self._blocks.add(text)


class _BoundedBytes:
    """A set of byte strings, emptied at once when what it holds would pass ``limit`` bytes."""

    __slots__ = ("_kept", "_held", "_limit")

    def __init__(self, limit: int) -> None:
        self._kept: set[bytes] = set()
        self._held = 0
        self._limit = limit

    def __contains__(self, data: bytes) -> bool:
        return data in self._kept

    def __len__(self) -> int:
        return len(self._kept)

    def add(self, data: bytes) -> None:
        if self._held + len(data) > self._limit:
            self._kept.clear()
            self._held = 0
        if data not in self._kept:
            self._kept.add(data)
            self._held += len(data)
