"""An open document's undefined references kept per block (``stir.file_findings``): a block an
edit left alone keeps its findings, the same objects, their spans relative to the block's anchor,
and where the edit moved the block they are at its new place, exactly what a fresh reading finds;
and the tables an answer hands to the next one (``FileFindings.take_blocks``) are taken once: a
second answer made from the same one reads every block again instead of updating tables another
answer already changed.

Generated texts: blocks whose arguments refer to declared names and to names nobody declares, in
any order; generated edits: a character or a line typed into (or taken out of) one block, as an
editor's keystroke arrives (``Document.apply``, an incremental parse)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tfphi.lsp.documents import Document, TextChange
from tfphi.stir.file_findings import file_findings
from tfphi.stir.references import NameTable
from tfphi.syntax.hclfile import new_parser, parse_file

NAMES = ["m_0", "m_1", "m_2"]
TABLE = NameTable(variables=frozenset({"v"}), locals=frozenset(), resources=frozenset(), data=frozenset(),
                  calls=frozenset(NAMES), outputs=())
REFERENCES = [f"module.{m}.x" for m in NAMES + ["m_9"]] + ["var.v", "var.w"]


@st.composite
def texts(draw) -> str:
    blocks = []
    for i in range(draw(st.integers(min_value=2, max_value=7))):
        refs = draw(st.lists(st.sampled_from(REFERENCES), min_size=1, max_size=4))
        blocks.append(f'resource "aws_s3_bucket" "b_{i}" {{\n' + "".join(f"  a{j} = {ref}\n" for j, ref in enumerate(refs)) + "}\n")
    return "\n".join(blocks)


def _places(answer) -> list:
    return [(f.span.file, f.span.start, f.span.end, f.message) for f in answer.findings]


def _fresh(text: str, table: NameTable) -> list:
    return _places(file_findings(parse_file("main.tf", text.encode(), new_parser()), table, None))


@settings(max_examples=150, deadline=None)
@given(text=texts(), which=st.integers(min_value=0, max_value=6),
       typed=st.sampled_from(["x", "\n", "\n\n", "  ", "}\n", "\n "]), back=st.booleans())
def test_a_block_an_edit_moved_keeps_its_findings_at_its_new_place(text, which, typed, back):
    """Typed into a block's first line (a letter into its label, a space or lines after its
    brace) or after its closing brace (lines, or a stray brace: a syntax error, the file then read
    per item's text), and maybe taken back: the findings of every block the edit did not touch are the
    objects they were, and all are where a fresh reading puts them."""
    parser = new_parser()
    doc = Document("main.tf", 0, text.encode())
    known = file_findings(doc.parse("main.tf", parser), TABLE, None)
    heads = [i for i, line in enumerate(text.split("\n")) if line.startswith("resource")]
    line = heads[which % len(heads)]
    if typed.startswith("}") or typed == "\n ":  # after the block's closing brace (between two blocks)
        line = text.split("\n").index("}", line)
    head = text.split("\n")[line]
    at = (line, len(head) - 3 if typed == "x" else len(head))  # (a letter into the block's label, the others after a brace)
    before = {id(f) for f in known.findings}
    start = doc.line_index.offset(line, at[1], "utf-16")
    doc.apply([TextChange(typed, (at, at))], 1)
    edited = text.split("\n")
    edited[line] = head[: at[1]] + typed + head[at[1] :]
    new_text = "\n".join(edited)
    hcl = doc.parse("main.tf", parser)
    answer = file_findings(hcl, TABLE, known)
    assert _places(answer) == _fresh(new_text, TABLE)
    if hcl.errors:
        return  # (a text with a syntax error is read per item's text: each reading makes its own)
    heads = [i for i, line in enumerate(new_text.split("\n")) if line.startswith("resource")]
    own = range(max([head for head in heads if head <= line], default=0),
                min([head for head in heads if head > line], default=len(edited)))  # (the edited block's lines)
    assert all(id(f) in before for f in answer.findings if doc.line_index.line_of(f.span.start) not in own)
    if back:  # (the blocks below move back: their findings go with them)
        doc.apply([TextChange("", (at, doc.position(start + len(typed))))], 2)
        again = file_findings(doc.parse("main.tf", parser), TABLE, answer)
        assert _places(again) == _fresh(text, TABLE)


@settings(max_examples=150, deadline=None)
@given(text=texts(), first=st.sets(st.sampled_from(NAMES + ["m_9"])), second=st.sets(st.sampled_from(NAMES + ["m_9"])),
       variables=st.sampled_from([frozenset({"v"}), frozenset({"w"}), frozenset({"v", "w"})]))
def test_two_answers_made_from_one_answer_are_each_a_fresh_reading(text, first, second, variables):
    """The same parse against two other tables, both from the one answer before: the second
    must not start from the tables the first updated in place (it finds them taken)."""
    document = Document("main.tf", 0, text.encode())
    hcl = document.parse("main.tf", new_parser())  # (an open document's parse: its blocks kept per block)
    known = file_findings(hcl, TABLE, None)
    one = NameTable(variables=TABLE.variables, locals=frozenset(), resources=frozenset(), data=frozenset(),
                    calls=frozenset(first), outputs=())
    two = NameTable(variables=variables, locals=frozenset(), resources=frozenset(), data=frozenset(),
                    calls=frozenset(second), outputs=())
    assert _places(file_findings(hcl, one, known)) == _fresh(text, one)
    assert _places(file_findings(hcl, two, known)) == _fresh(text, two)
