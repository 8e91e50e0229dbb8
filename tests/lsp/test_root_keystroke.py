"""What a keystroke costs outside the analysis follows what it touched (bench/README.md, "Issue 23:
root keystroke wall time, session 11"), and what the client sees stays what it was.

- The config pass, which runs at the end of every pass, keeps the files it published apart from
  the ``.tf`` files' (it walked every file with a diagnostic to find its own): through the real
  server, a variable file's diagnostics appear, are cleared by a fix on disk and by a keystroke
  in ``main.tf``, and come back, while the ``.tf`` files' stay as they are.
- A keystroke that makes or takes no line start shares the line starts of the index before it
  (no copy of a 2,858-line file's starts per keystroke); the older indexes stay right.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from lsp_helpers import start_session, stop_session, uri
from tfphi.text import LineIndex, byte_point

ENCODINGS = ("utf-8", "utf-16", "utf-32")

MAIN = """resource "terraform_data" "a" {
  input = local.missing
}
"""


def codes(session) -> dict[str, list[str]]:
    """The codes last published per file, for every file with any."""
    return {u: sorted(str(d.code) for d in items) for u, items in session.client.diagnostics.items() if items}


async def test_a_variable_files_diagnostics_come_and_go_beside_the_tf_files(tmp_path: Path):
    (tmp_path / "main.tf").write_text(MAIN)
    tfvars = tmp_path / "terraform.tfvars"
    tfvars.write_text("region = \n")
    main, vars_uri = uri(tmp_path / "main.tf"), uri(tfvars)
    session = await start_session([tmp_path])
    try:
        await session.wait_indexed()
        await session.wait_for(lambda: vars_uri in codes(session), what="the variable file's diagnostics")
        assert codes(session) == {main: ["undefined-reference"], vars_uri: ["syntax-error", "undeclared-variable"]}

        # Fixed on disk (not open): the config pass clears it, the .tf file keeps its list.
        tfvars.write_text('region = "eu-west-1"\n')
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=vars_uri, type=types.FileChangeType.Changed)]))
        await session.wait_diagnostics(vars_uri, "syntax-error", present=False)
        assert codes(session) == {main: ["undefined-reference"], vars_uri: ["undeclared-variable"]}

        # A keystroke in main.tf that declares the variable: the variable file's warning goes.
        u = session.open(tmp_path / "main.tf")
        version = session.change(u, types.Range(start=types.Position(line=3, character=0),
                                                end=types.Position(line=3, character=0)), 'variable "region" {}\n')
        await session.wait_for(lambda: any(p[0] == u and p[1] == version for p in session.published), what="the edit's diagnostics")
        await session.wait_diagnostics(vars_uri, "undeclared-variable", present=False)
        assert codes(session) == {main: ["undefined-reference"]}
        assert session.published[-1][0] == vars_uri and session.published[-1][2] == []  # cleared, not left behind

        # Taken back: it comes back, published once more by the config pass.
        version = session.change(u, types.Range(start=types.Position(line=3, character=0),
                                                end=types.Position(line=4, character=0)), "")
        await session.wait_diagnostics(vars_uri, "undeclared-variable")
        assert codes(session) == {main: ["undefined-reference"], vars_uri: ["undeclared-variable"]}
    finally:
        await stop_session(session)


def _answers(index: LineIndex) -> tuple:
    """Everything an index says about its text: line starts and every offset's position."""
    source = index.source
    return (index.line_count, [index.line_start(n) for n in range(index.line_count)],
            [index.position(offset, encoding) for offset in range(len(source) + 1) for encoding in ENCODINGS])


def test_a_keystroke_on_one_line_shares_the_line_starts():
    text = "".join(f'  value_{n} = "{n}"\n' for n in range(50)).encode()
    at = text.index(b'"7"') + 1
    first = LineIndex(text, skip_bom=False).edited(at, at, text[:at] + b"x" + text[at:])  # the lines below start moving
    typed = text[:at] + b"x" + text[at:]
    second = first.edited(at + 1, at + 1, typed[: at + 1] + b"y" + typed[at + 1 :])
    assert second._starts is first._starts  # (the design: no copy of the starts per keystroke)
    back = second.edited(at + 1, at + 2, typed)
    assert back._starts is first._starts
    assert _answers(back) == _answers(LineIndex(typed, skip_bom=False))
    newline = back.edited(at, at, typed[:at] + b"\n" + typed[at:])  # a line start made: copied
    assert newline._starts is not first._starts


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\n\r é", max_size=40),
       st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3), st.text(alphabet="xy\n\r é", max_size=3)), min_size=1, max_size=8))
def test_every_index_of_a_chain_of_keystrokes_stays_right(text: str, edits):
    """Indexes share their line starts: an index made later never changes what an earlier one says."""
    source = text.encode("utf-8")
    chain = [(LineIndex(source, skip_bom=False), source)]
    for where, removed, inserted in edits:
        index, source = chain[-1]
        start = int(where * len(source))
        old_end = min(start + removed, len(source))
        new_source = source[:start] + inserted.encode("utf-8") + source[old_end:]
        chain.append((index.edited(start, old_end, new_source), new_source))
    for index, source in chain:
        assert _answers(index) == _answers(LineIndex(source, skip_bom=False))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\n\r é\ufeff", max_size=40),
       st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3), st.text(alphabet="xy\n\r é", max_size=3)), max_size=6),
       st.booleans())
def test_an_index_gives_tree_sitters_points(text: str, edits, skip_bom: bool):
    """``LineIndex.point`` (from the line starts) is ``byte_point`` (counting the line breaks), after edits too."""
    source = text.encode("utf-8")
    index = LineIndex(source, skip_bom=skip_bom)
    for where, removed, inserted in [(0.0, 0, "")] + edits:
        start = int(where * len(source))
        old_end = min(start + removed, len(source))
        new_source = source[:start] + inserted.encode("utf-8") + source[old_end:]
        index, source = index.edited(start, old_end, new_source), new_source
        assert [index.point(offset) for offset in range(-1, len(source) + 2)] == \
            [byte_point(source, offset) for offset in range(-1, len(source) + 2)]
