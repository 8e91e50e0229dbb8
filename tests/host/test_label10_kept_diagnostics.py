"""A finding's diagnostic is made once and kept (``stir.finding_diagnostics``), and a finding a
change of names let go comes back as the same object when the names do (``stir.file_findings``):
a call's label typed into and taken back. Kept diagnostics must still be where a fresh host puts
them, in bytes and in lines, after an edit moved their block (lines typed above it, or taken
out) between the keystroke that made them and the one that finds them again.

Generated root modules (an open ``main.tf``, incremental parses as the server feeds them):
module calls and blocks referring to them and to names nobody declares; generated edits: a
letter typed into (or taken out of) a call's label, a line typed at the top of the file or
taken out again."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from host_support import fresh

from tfphi.analysis import AnalysisHost, Remove, SetParsed, SetSource
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.hclfile import new_parser

CHILD = 'output "a" {\n  value = "a"\n}\n'
CALLS = ["m_0", "m_1"]
REFERENCES = ["module.m_0.a", "module.m_1.a", "module.m_9.a", "var.v_9"]


@st.composite
def roots(draw) -> str:
    blocks = [f'module "{m}" {{\n  source = "./modules/child"\n}}\n' for m in CALLS]
    for i in range(draw(st.integers(min_value=1, max_value=5))):
        refs = draw(st.lists(st.sampled_from(REFERENCES), min_size=1, max_size=4))
        blocks.append(f'resource "aws_s3_bucket" "use_{i}" {{\n' + "".join(f"  a{j} = {ref}\n" for j, ref in enumerate(refs)) + "}\n")
    order = draw(st.permutations(range(len(blocks))))
    return "\n".join(blocks[i] for i in order)


def placed(diags, text: str) -> list[tuple]:
    """Each diagnostic as what is published of it: its place in bytes and in lines, and its text."""
    return [(d.file, d.span.start, d.span.end, text.count("\n", 0, d.span.start), d.severity, d.code, d.message, d.related)
            for d in diags]


def _position(text: str, at: int) -> tuple[int, int]:
    return text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)  # (ASCII texts: columns are bytes)


class Session:
    """A host with ``main.tf`` open, edited as an editor does (``Document.apply``, ``SetParsed``)."""

    def __init__(self, text: str):
        self.texts = {"main.tf": text, "modules/child/main.tf": CHILD}
        self.host = AnalysisHost()
        self.host.apply_change([SetSource(path, t.encode()) for path, t in self.texts.items()])
        self.parser = new_parser()
        self.document = Document("main.tf", 0, text.encode())
        self.host.apply_change(SetParsed(self.document.parse("main.tf", self.parser)))
        self.version = 0

    def edit(self, start: int, end: int, inserted: str) -> list:
        """Replaces ``main.tf``'s ``[start, end)`` by ``inserted``; its module's diagnostics after."""
        before = self.texts["main.tf"]
        self.version += 1
        self.document.apply([TextChange(inserted, (_position(before, start), _position(before, end)))], self.version)
        self.texts["main.tf"] = before[:start] + inserted + before[end:]
        self.host.apply_change(SetParsed(self.document.parse("main.tf", self.parser)))
        return dir_diagnostics(self.host.snapshot(), "")

    def label_end(self, call: str) -> int:
        return self.texts["main.tf"].index(f'module "{call}') + len(f'module "{call}')


@settings(max_examples=100, deadline=None)
@given(text=roots(), steps=st.lists(st.tuples(st.sampled_from(["type", "delete", "line", "unline"]), st.sampled_from(CALLS)),
                                   min_size=1, max_size=10))
def test_kept_diagnostics_are_where_a_fresh_host_puts_them(text, steps):
    session = Session(text)
    dir_diagnostics(session.host.snapshot(), "")
    for kind, call in steps:
        now = session.texts["main.tf"]
        if kind == "type":
            diags = session.edit(session.label_end(call), session.label_end(call), "x")
        elif kind == "delete" and now[session.label_end(call)] == "x":
            diags = session.edit(session.label_end(call), session.label_end(call) + 1, "")
        elif kind == "line":
            diags = session.edit(0, 0, "\n")
        elif kind == "unline" and now.startswith("\n"):
            diags = session.edit(0, 1, "")
        else:
            continue
        assert placed(diags, session.texts["main.tf"]) == placed(dir_diagnostics(fresh(session.texts), ""), session.texts["main.tf"]), (kind, call)


def test_a_label_typed_again_finds_its_diagnostics_again_where_its_block_moved():
    """Typed, taken back, two lines typed above every block, typed again: the undefined
    references' diagnostics are the objects the first keystroke made, two lines lower."""
    text = ('module "m_0" {\n  source = "./modules/child"\n}\n\n'
            'resource "aws_s3_bucket" "use" {\n  a = module.m_0.a\n  b = var.v_9\n  c = module.m_0.a\n}\n')
    session = Session(text)
    dir_diagnostics(session.host.snapshot(), "")
    end = session.label_end("m_0")
    first = session.edit(end, end, "x")
    assert [(d.code, d.message) for d in first] == [
        ("undefined-reference", "undefined reference to module.m_0: no module block declares it"),
        ("undefined-reference", "undefined reference to var.v_9: no variable block declares it"),
        ("undefined-reference", "undefined reference to module.m_0: no module block declares it"),
    ]
    lines = [session.texts["main.tf"].count("\n", 0, d.span.start) for d in first]
    session.edit(end, end + 1, "")
    session.edit(0, 0, "\n\n")
    again = session.edit(end + 2, end + 2, "x")
    assert all(a is b for a, b in zip(again, first)) and len(again) == len(first)
    assert [session.texts["main.tf"].count("\n", 0, d.span.start) for d in again] == [line + 2 for line in lines]
    assert placed(again, session.texts["main.tf"]) == placed(dir_diagnostics(fresh(session.texts), ""), session.texts["main.tf"])


def test_the_host_keeps_the_diagnostics_of_the_last_two_lists_alone():
    """A label typed into one call, taken back, then typed into another and taken back: the
    host holds no diagnostic of the first call's references (gone from the last two lists),
    and lets a module's go with the module."""
    text = ('module "m_0" {\n  source = "./modules/child"\n}\n\nmodule "m_1" {\n  source = "./modules/child"\n}\n\n'
            'resource "aws_s3_bucket" "use" {\n  a = module.m_0.a\n  b = module.m_1.a\n}\n')
    session = Session(text)
    dir_diagnostics(session.host.snapshot(), "")
    end = session.label_end("m_0")
    first = session.edit(end, end, "x")
    session.edit(end, end + 1, "")
    end = session.label_end("m_1")
    second = session.edit(end, end, "x")
    session.edit(end, end + 1, "")
    kept = session.host._finding_diagnostics[""]
    held = {id(diagnostic) for table in (kept._last, kept._before) for _, diagnostic in table.values()}
    assert [d.message for d in first] == ["undefined reference to module.m_0: no module block declares it"]
    assert held == {id(d) for d in second}
    session.host.apply_change([Remove(path) for path in session.texts if path == "main.tf"])  # (the root module's one file gone)
    dir_diagnostics(session.host.snapshot(), "")
    assert "" not in session.host._finding_diagnostics
