"""The publisher writes a publishDiagnostics notification from the JSON it kept of each diagnostic
sent before (``DiagnosticPublisher.notification_json``): whatever was published before, the text is
byte for byte what pygls writes for a fresh conversion of the same diagnostics (``json.dumps`` of
the notification), so a kept fragment that no longer says what its diagnostic says fails here."""

from __future__ import annotations

import json
import tempfile

from hypothesis import example, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.uris import from_fs_path

from tfphi.diagnostics import Diagnostic, Fix, Related, sort_key
from tfphi.lsp import convert
from tfphi.lsp.publish import DiagnosticPublisher, notification_json
from tfphi.lsp.server import TfphiServer
from tfphi.lsp.workspace import LiveWorkspace
from tfphi.stir.workspace import module_dir_of
from tfphi.syntax.expr import Span

PROTOCOL = TfphiServer().protocol
UNSTRUCTURE = PROTOCOL._converter.unstructure


def plain(uri: str, version: int | None, items: list[types.Diagnostic]) -> str:
    """What pygls' ``notify`` writes for these diagnostics (``_send_data``'s ``json.dumps``)."""
    notification = types.PublishDiagnosticsNotification(
        method=types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, jsonrpc="2.0",
        params=types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version))
    return json.dumps(notification, default=PROTOCOL._serialize_message)


@st.composite
def diagnostic(draw) -> Diagnostic:
    start = draw(st.integers(0, 12))
    related = tuple(Related(Span("other.tf", at, at + 1), draw(st.sampled_from(["declared here", "é \"here\""])))
                    for at in draw(st.lists(st.integers(0, 12), max_size=2)))
    return Diagnostic("main.tf", Span("main.tf", start, start + draw(st.integers(0, 3))),
                      draw(st.sampled_from(["error", "warning", "hint"])),
                      draw(st.sampled_from(["undefined-reference", "unbounded-field"])),
                      draw(st.sampled_from(["m1", "m2", "undefined reference to module.a: ünïcode \\ \"quoted\""])),
                      related, data=draw(st.sampled_from([None, {"field": "a"}, {"field": "b", "values": [1, None]}])),
                      detail=draw(st.sampled_from(["", "why"])),
                      fixes=draw(st.sampled_from([(), (Fix("default", "add a default"),)])))


TEXTS = st.sampled_from(["a = b\nc = d\n", "\na = b\nc = d\n", "é = b\nc = d\n", ""])


@settings(max_examples=200, deadline=None)
@given(publications=st.lists(st.tuples(TEXTS, st.lists(diagnostic(), max_size=4), st.sampled_from([None, 1, 7])),
                             min_size=1, max_size=8),
       uri=st.sampled_from(["main.tf", "dir with space/é.tf"]))
@example(  # a keystroke and the keystroke taken back: the second publication reuses the first's JSON
    publications=[("a = b\n", [Diagnostic("main.tf", Span("main.tf", 0, 1), "error", "undefined-reference", "m1")], 1),
                  ("a = b\n", [], 2),
                  ("a = b\n", [Diagnostic("main.tf", Span("main.tf", 0, 1), "error", "undefined-reference", "m1",
                                          data={"field": "b"})], 3)],
    uri="main.tf")
def test_the_notification_is_what_pygls_writes_for_a_fresh_conversion(publications, uri):
    with tempfile.TemporaryDirectory() as root:
        ws, folder, publisher, written = _publishing(root)
        doc_uri = ws.uri_for(folder, uri)
        for text, diags, version in publications:
            ws.open(doc_uri, version or 0, text)
            diags = [Diagnostic(uri, Span(uri, d.span.start, d.span.end), d.severity, d.code, d.message, d.related,
                                data=d.data, detail=d.detail, fixes=d.fixes) for d in diags]
            before = len(written)
            publisher.publish_dir(folder, module_dir_of(uri), diags, {doc_uri})
            if len(written) == before:  # (an empty list for a file that never had diagnostics: nothing to send)
                assert not diags and not publisher.last(doc_uri)
                continue
            index_for = lambda rel: ws.line_index(folder, rel)  # noqa: E731
            fresh = [convert.diagnostic(d, index_for, lambda rel: ws.uri_for(folder, rel), "utf-16") for d in
                     sorted(diags, key=sort_key)]
            assert written[-1] == plain(doc_uri, ws.documents.get(doc_uri).version, fresh)


def _publishing(root: str):
    """A workspace of one folder at ``root`` and a publisher whose notifications are written, as
    JSON text, to the list returned with them."""
    ws = LiveWorkspace("utf-16")
    folder = ws.add_folder(from_fs_path(root), "ws")
    written: list[str] = []
    publisher = DiagnosticPublisher(
        ws, lambda uri, version, items: written.append(publisher.notification_json(uri, version, items, UNSTRUCTURE)))
    return ws, folder, publisher, written


def test_a_diagnostic_whose_data_changed_is_written_again():
    """The same place, code and message with other data: the JSON of the first is not reused."""
    with tempfile.TemporaryDirectory() as root:
        ws, folder, publisher, written = _publishing(root)
        uri = ws.uri_for(folder, "main.tf")
        ws.open(uri, 1, "a = b\n")
        for data in ({"field": "a"}, {"field": "b"}, {"field": "a"}):
            d = Diagnostic("main.tf", Span("main.tf", 4, 5), "error", "undefined-reference", "undefined", data=data)
            publisher.publish_dir(folder, "", [d], {uri})
        assert [json.loads(body)["params"]["diagnostics"][0]["data"] for body in written] == [
            {"field": "a"}, {"field": "b"}, {"field": "a"}]


def test_the_marker_is_found_once_whatever_the_uri():
    """A URI that spells the marker's text (quotes and NULs escaped in JSON) is written as it is."""
    item = convert.diagnostic_at(Diagnostic("main.tf", Span("main.tf", 0, 1), "error", "c", "m"), ((0, 0, 0, 1), ()))
    for uri in ['file:///"\x00tfphi: the diagnostics\x00"', "file:///a\\\"b", "file:///plain.tf"]:
        assert notification_json(uri, 3, [json.dumps(UNSTRUCTURE(item))], UNSTRUCTURE) == plain(uri, 3, [item])
        assert notification_json(uri, None, [], UNSTRUCTURE) == plain(uri, None, [])


def test_a_message_written_whole_counts_its_length_in_bytes():
    """``send_json`` writes a message the publisher assembled: its Content-Length is the body's
    length in UTF-8 bytes, whatever characters the body holds (an escaped or a raw ``é``)."""
    protocol = PROTOCOL  # (a server made here would be cyclic garbage that tests of the collector count)
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(data)

    protocol.set_writer(Writer(), include_headers=True)
    for body in ('{"message": "caf\\u00e9"}', '{"message": "café"}'):
        protocol.send_json(body)
        header, _, sent = written[-1].partition(b"\r\n\r\n")
        assert sent == body.encode("utf-8")
        assert header.split(b"\r\n")[0] == b"Content-Length: %d" % len(body.encode("utf-8"))
