"""The publisher converts a diagnostic to LSP once and sends the same object again while it is
unchanged as an editor reads it (``lsp.publish.ConvertedDiagnostics``): whatever was published
before, what it returns is exactly what a fresh conversion gives, and a diagnostic of the last
publication, or of the one before (a keystroke taken back), is the object sent then."""

from __future__ import annotations

import tempfile

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pygls.uris import from_fs_path

from tfphi.diagnostics import Diagnostic, Fix, Related
from tfphi.lsp import convert
from tfphi.lsp.publish import ConvertedDiagnostics, DiagnosticPublisher
from tfphi.lsp.workspace import LiveWorkspace
from tfphi.records import replace
from tfphi.syntax.expr import Span
from tfphi.text import LineIndex

LINES = st.lists(st.sampled_from(["", "ab", "é x", "  value = 1", "😀😀", "\r"]), min_size=1, max_size=6)


@st.composite
def diagnostic(draw) -> Diagnostic:
    start, length = draw(st.integers(0, 30)), draw(st.integers(0, 5))
    related = tuple(Related(Span("other.tf", at, at + 1), "declared here") for at in draw(st.lists(st.integers(0, 30), max_size=2)))
    return Diagnostic("main.tf", Span("main.tf", start, start + length), draw(st.sampled_from(["error", "warning"])),
                      draw(st.sampled_from(["undefined-reference", "unbounded-field"])), draw(st.sampled_from(["m1", "m2"])),
                      related, data=None,
                      position=draw(st.sampled_from([None, None, (2, 2)])), detail=draw(st.sampled_from(["", "why"])),
                      fixes=draw(st.sampled_from([(), (Fix("default", "add a default"),)])))


DATA = [None, {"field": "a"}, {"field": "b"}]


@st.composite
def pools(draw) -> list[Diagnostic]:
    """A diagnostic and others that differ from it in one part each (what a key must tell apart)."""
    base = draw(diagnostic())
    others = [replace(base, **{part: getattr(draw(diagnostic()), part)})
              for part in draw(st.lists(st.sampled_from(["span", "severity", "code", "message", "related", "position", "detail", "fixes"]),
                                        max_size=3))]
    return [base, *others]


@settings(max_examples=300, deadline=None)
@given(pool=pools(),
       publications=st.lists(st.tuples(LINES, LINES, st.lists(st.tuples(st.integers(0, 3), st.sampled_from(DATA)), max_size=4)),
                             min_size=1, max_size=8))
# A keystroke, its diagnostics published twice (a forced republication), then taken back.
@example(pool=[Diagnostic("main.tf", Span("main.tf", 0, 1), "error", "undefined-reference", "m1")],
         publications=[(["ab"], [""], [(0, None)]), (["ab"], [""], []), (["ab"], [""], []), (["ab"], [""], [(0, None)])])
def test_converted_diagnostics_equal_a_fresh_conversion_and_are_reused(pool, publications):
    """Diagnostics drawn from a small pool (with one of a few data each), published over texts
    that change between publications (the same bytes then at another line or character)."""
    converted = ConvertedDiagnostics()
    sent: list[dict[tuple, object]] = []  # per publication: LSP content -> the object sent
    for main, other, chosen in publications:
        diags = [replace(pool[i % len(pool)], data=data) for i, data in chosen]
        indexes = {"main.tf": LineIndex("\n".join(main).encode()), "other.tf": LineIndex("\n".join(other).encode())}
        uri_for = lambda rel: f"file:///{rel}"  # noqa: E731
        items = converted.convert("file:///main.tf", diags, indexes.get, uri_for, "utf-16")
        assert items == [convert.diagnostic(d, indexes.get, uri_for, "utf-16") for d in diags]
        now = {}
        for d, item in zip(diags, items):
            key = (convert.located(d, indexes.get, uri_for, "utf-16"), d.severity, d.code, d.text)
            earlier = next((each[key] for each in reversed(sent[-2:]) if key in each), None)  # the last publication's, or the one before's
            if earlier is not None and earlier.data == d.data:
                assert item is earlier
            now[key] = item
        if sent and now.keys() == sent[-1].keys():
            sent[-1] = now
        else:
            sent.append(now)


def test_the_publisher_sends_an_unchanged_diagnostic_as_the_same_object():
    """Through the publisher: a diagnostic whose text moved by a byte on its line, its place as
    an editor reads it the same, is the object published before; one whose line moved is not."""
    with tempfile.TemporaryDirectory() as root:
        ws = LiveWorkspace("utf-16")
        folder = ws.add_folder(from_fs_path(root), "ws")
        published: list[list] = []
        publisher = DiagnosticPublisher(ws, lambda uri, version, items: published.append(items))
        uri = ws.uri_for(folder, "main.tf")
        ws.open(uri, 1, "a = b\nc = d\n")

        def publish(start: int) -> list:
            d = Diagnostic("main.tf", Span("main.tf", start, start + 1), "error", "undefined-reference", "undefined")
            publisher.publish_dir(folder, "", [d], {uri})
            return published[-1]

        first = publish(10)
        assert publish(10)[0] is first[0]
        moved = publish(4)
        assert moved[0] is not first[0] and moved[0].range.start.line == 0
