"""The early answer to a keystroke (``features.edit_diagnostics``) on a root that calls installed
modules: the diagnostics about the installed modules' fields are placed in the root
(``features.installed``), so a keystroke in an argument those fields read must not be answered
from the last published list. Every answer is compared with the full analysis of the text, as in
``test_edit_diagnostics``; without the rule, typing ``var.pg_version`` over ``engine_version = "16.4"``
kept the old list, without the new ``unbounded-field`` (found by this test before the fix).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from host_support import fresh
from test_edit_diagnostics import EXAMPLES, _apply, _position, edit

from tfphi.analysis import AnalysisHost, SetParsed, SetSource
from tfphi.diagnostics import sort_key
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.features.edit_diagnostics import diagnostics_after_edit
from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.hclfile import new_parser

REPO = Path(__file__).resolve().parents[1] / "workspace" / "repos" / "registry-installed"
TEXTS = {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8") for p in sorted(REPO.rglob("*")) if p.is_file()}
# module.db's block starts without a diagnostic (an edit inside a block with one is never answered early)
ROOT = TEXTS["main.tf"].replace("engine_version = var.pg_version", 'engine_version = "16.4"')
TEXTS["main.tf"] = ROOT


def _check(edits) -> None:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in TEXTS.items()])
    parser = new_parser()
    doc = Document("main.tf", 0, ROOT.encode())
    host.apply_change(SetParsed(doc.parse("main.tf", parser)))
    snapshot = host.snapshot()
    published = dir_diagnostics(snapshot, "")
    text = ROOT
    for n, (inside, where, within, typed, removed) in enumerate(edits):
        new, at, end = _apply(text, inside, where, within, typed, removed)
        doc.apply([TextChange(typed, (_position(text, at), _position(text, end)))], n + 1)
        quick = diagnostics_after_edit(snapshot, "", published, "main.tf", doc.source)
        if quick is not None:
            full = dir_diagnostics(fresh({**TEXTS, "main.tf": new}), "")
            assert quick == sorted((d for d in full if d.file == "main.tf"), key=sort_key), new
        text = new


@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(edit(), min_size=1, max_size=4))
@example(edits=[(True, 0.5, 0.0, "var.pg_version", 6)])  # engine_version = "16.4" -> var.pg_version
def test_the_shortcut_answers_what_the_full_analysis_publishes(edits):
    _check(edits)
