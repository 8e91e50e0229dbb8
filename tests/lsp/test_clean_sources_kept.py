"""What the host's ``CleanSources`` keeps is what files read whole found, never what a keystroke
makes: keystrokes in an open document leave it as the document's first parse left it.

Issue 23's soak found it filling with the edit history: each keystroke that left its block free
of errors added the block's new text to the texts found to set no argument twice (bounded at 8 MiB,
then emptied: 17 -> 567 texts over 1,600 edits of the in-process soak at 100 modules;
docs/memory.md, "Where the resident memory is").
"""

from __future__ import annotations

from tfphi.lsp.documents import DocumentStore, TextChange
from tfphi.syntax.searches import CleanSources

URI = "file:///w/main.tf"
# 20 module calls, five lines apart (a blank line between): block i's `name` line is 5 i + 2
TEXT = "\n".join(f'module "m{i}" {{\n  source = "./m"\n  name   = "v{i}"\n}}\n' for i in range(20))


def _sizes(clean: CleanSources) -> tuple[int, int]:
    return len(clean._sources), len(clean._blocks)


def test_keystrokes_in_an_open_document_add_nothing_to_the_host_s_clean_sources():
    store, clean = DocumentStore("utf-8"), CleanSources()
    doc = store.open(URI, 1, TEXT)
    first = doc.parse("main.tf", store.parser, clean)
    assert first.errors == [] and _sizes(clean) == (1, 20)  # the opened text and its blocks
    for version in range(2, 42):  # a letter typed into a value: a text each version never seen
        line = (version % 20) * 5 + 2
        store.change(URI, version, [TextChange("x", ((line, 12), (line, 12)))])
        assert doc.parse("main.tf", store.parser, clean).errors == []
    assert _sizes(clean) == (1, 20)
    # not remembered, still checked: an argument set twice by a keystroke is reported
    store.change(URI, 42, [TextChange('\n  name = "y"', ((2, 17), (2, 17)))])
    assert [e.message for e in doc.parse("main.tf", store.parser, clean).errors] == [
        "attribute redefined: the argument 'name' was already set; each argument may be set only once"]
    assert _sizes(clean) == (1, 20)
