"""The edit shapes bench/run.py types into a document: one row each, as data.

A shape is a keystroke: `insert` typed at the position a regular expression finds in the
document's text (the start of its group 1, an empty group that marks the caret), then taken
back by the next edit (the same range deleted), so the text returns to the original after
every pair. Adding a shape is one row of ROOT_SHAPES (or LEAF_SHAPES).

The patterns are written against bench/generate.py's output; every one finds its place in
the first module call of the root's `main.tf` (`module "svc_001"`), the top of the file,
where an edit has the most blocks below it.
"""
from __future__ import annotations

import re
from typing import NamedTuple


class Shape(NamedTuple):
    name: str
    pattern: str   # group 1 (empty) marks where `insert` is typed; re.MULTILINE
    insert: str
    what: str      # one line for the report and bench/README.md


_FIRST_ENGINE_VERSION = r'  engine_version\s+= var\.env == "prod" \? "15\.4" : "14\.9"'

ROOT_SHAPES: tuple[Shape, ...] = (
    Shape("value", r'^\s*engine_version\s+= var\.env == "prod" \? "1()5\.4"', "x",
          'a character typed into a value ("15.4" of svc_001\'s engine_version)'),
    Shape("newline", r'^module "svc_0*1" \{\n(?:.*\n)*?\}()', "\n",
          "a new line after the closing brace of module \"svc_001\" (between two top-level blocks)"),
    Shape("comment", r"^()" + _FIRST_ENGINE_VERSION, "#",
          "`#` at the start of svc_001's engine_version line (comments the argument out)"),
    Shape("label", r'^module "svc_0*1()"', "x", 'a character typed into a module call\'s label (module "svc_001x")'),
    Shape("space", r"^" + _FIRST_ENGINE_VERSION + r"()$", " ", "a space after svc_001's engine_version value"),
)

LEAF_SHAPES: tuple[Shape, ...] = (
    Shape("value", r'^\s*engine\s+= "post()gres"', "x",
          'a character typed into a value ("postgres" of aws_db_instance.this.engine)'),
)


def utf16_position(text: str, offset: int) -> dict:
    """The LSP position (0-based line, UTF-16 character) of code-point `offset` in `text`."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return {"line": line, "character": len(text[start:offset].encode("utf-16-le")) // 2}


def end_of_insert(start: dict, inserted: str) -> dict:
    """Where the caret stands after typing `inserted` at `start`: the end of the range that
    takes it back."""
    lines = inserted.split("\n")
    if len(lines) == 1:
        return {"line": start["line"], "character": start["character"] + len(inserted.encode("utf-16-le")) // 2}
    return {"line": start["line"] + len(lines) - 1, "character": len(lines[-1].encode("utf-16-le")) // 2}


def locate(shape: Shape, text: str) -> dict:
    """The shape's caret in `text`: {"line", "character"} (LSP, UTF-16)."""
    m = re.search(shape.pattern, text, re.MULTILINE)
    if m is None:
        raise ValueError(f"edit shape {shape.name!r}: pattern not found: {shape.pattern}")
    return utf16_position(text, m.start(1))


def keystroke(uri: str, version: int, shape: Shape, start: dict, typed: dict, insert: bool) -> dict:
    """The didChange parameters of one keystroke of ``shape``: typed at ``start`` (``insert``), or
    taken back (the range from ``start`` to ``typed``, its end: ``end_of_insert``)."""
    return {"textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": start, "end": start if insert else typed},
                                "text": shape.insert if insert else ""}]}
