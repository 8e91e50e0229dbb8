"""Fuzzed editing (issue part 1): random incremental edits to realistic Terraform, driven
through the real server over stdio, interleaved with hover, code action, inlay hint and
definition requests at random positions.

After every example: the server is alive and logged no internal error, no request took
longer than 2 s, the text the server holds (``tfphi/documentText``) equals the client's,
and the diagnostics published last are for the latest version and lie inside the text.

CI runs a short, derandomized pass. The soak mode runs for minutes:
``TFPHI_SOAK=1 pytest tests/hardening/test_fuzz_edits.py`` (``TFPHI_SOAK_EXAMPLES=N``
sets the number of examples, default 20000: about 7 minutes).
"""

from __future__ import annotations

import itertools
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsp_raw import RawServer, file_uri, utf16_position

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vendor-stack"
SOAK = os.environ.get("TFPHI_SOAK") == "1"
# CI: 200 derandomized examples of up to 40 operations (about 4,000 operations: every kind of
# edit and request, all seeds, CRLF both ways); the soak mode is where the long runs belong.
EXAMPLES = int(os.environ.get("TFPHI_SOAK_EXAMPLES", "20000")) if SOAK else 200
OPS = 80 if SOAK else 40
REQUEST_LIMIT = 2.0  # seconds, per request

SEEDS = [p.read_text() for p in sorted(EXAMPLE.rglob("*.tf"))] + [
    'variable "größe" {\n  default = "ü"\n}\n\nlocals {\n  naïve = var.größe  # 日本語 😀\n}\n\n'
    'resource "aws_db_instance" "ü" {\n  engine_version = local.naïve\n  instance_class = var.size == "big" ? "db.r6g.large" : "db.t4g.micro"\n}\n',
    '\ufeffvariable "v" {}\n\nresource "aws_db_instance" "bom" {\n  engine_version = var.v\n}\n',  # a leading U+FEFF is a character
]

SNIPPETS = [
    "var.", "local.", "module.", "each.value", "count.index", "${", "}", "{", "[", "]", "(", ")", '"', "\n", "\r\n", " = ",
    'resource "aws_db_instance" "x" {\n  engine_version = var.v\n}\n', 'variable "v" {\n  default = "15.4"\n}\n',
    'locals {\n  a = local.b\n  b = local.a\n}\n', "engine_version = ", 'module "m" {\n  source = "./modules/postgres"\n}\n',
    "? :", "for x in var.list : x", "# comment\n", "/* block", "*/", "<<EOT\nheredoc ${var.v}\nEOT\n", "é", "😀", "日本",
    "\t", "\x00", "\ufeff", "\r", "\\", "%{ if true }x%{ endif }", "0x1F", "!!!",
]

# Text for insertions: snippets, multi-byte text, CRLF, and raw bytes read as Latin-1 (NUL and
# control characters included); no lone surrogates (not encodable in a JSON text).
insert_text = st.one_of(
    st.sampled_from(SNIPPETS),
    st.text(min_size=0, max_size=12),
    st.text(alphabet=st.sampled_from("\r\n\t {}[]()\"=.$%#éü日本😀𝔘aZ0_-"), max_size=20),
    st.binary(max_size=16).map(lambda b: b.decode("latin-1")),
)
fraction = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
operation = st.one_of(
    st.tuples(st.just("edit"), fraction, st.floats(min_value=0.0, max_value=0.2, allow_nan=False), insert_text),
    st.tuples(st.just("delete"), fraction, st.floats(min_value=0.0, max_value=0.3, allow_nan=False)),
    st.tuples(st.just("hover"), fraction),
    st.tuples(st.just("definition"), fraction),
    st.tuples(st.just("codeAction"), fraction, fraction),
    st.tuples(st.just("inlayHint"), fraction, fraction),
)
document = st.tuples(st.sampled_from(range(len(SEEDS))), st.booleans())  # seed, CRLF line ends


def _index(text: str, frac: float) -> int:
    """A character index of ``text`` (never inside a CRLF pair)."""
    i = min(len(text), int(frac * len(text)))
    if 0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n":
        i -= 1
    return i


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz_ws")
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    with RawServer(cwd=root) as server:
        server.initialize(root)
        server.wait_diagnostics(file_uri(root / "modules/cache/main.tf"), timeout=60)
        yield server, root
        assert server.alive(), server.stderr()[-4000:]
        assert server.shutdown_and_exit(timeout=60) == 0
    assert not server.framing_errors


_uris = itertools.count(1)


class Session:
    def __init__(self, server: RawServer, uri: str, text: str):
        self.server, self.uri, self.text, self.version = server, uri, text, 1
        self.slowest = 0.0

    def timed(self, method: str, params: dict) -> dict:
        start = time.monotonic()
        response = self.server.request(method, params, timeout=30)
        elapsed = time.monotonic() - start
        self.slowest = max(self.slowest, elapsed)
        assert elapsed < REQUEST_LIMIT, f"{method} took {elapsed:.2f} s"
        assert "result" in response, f"{method} {params} -> {response}"
        return response["result"]

    def pos(self, frac: float) -> dict:
        return utf16_position(self.text, _index(self.text, frac))

    def apply(self, start: int, end: int, new: str) -> None:
        change = {"range": {"start": utf16_position(self.text, start), "end": utf16_position(self.text, end)}, "text": new}
        self.text = self.text[:start] + new + self.text[end:]
        self.version += 1
        self.server.change(self.uri, self.version, [change])

    def run(self, op: tuple) -> None:
        kind = op[0]
        doc = {"uri": self.uri}
        if kind == "edit":
            start = _index(self.text, op[1])
            end = _index(self.text, min(1.0, op[1] + op[2])) if op[2] > 0.1 else start  # insert or replace
            self.apply(start, max(start, end), op[3])
        elif kind == "delete":
            start = _index(self.text, op[1])
            self.apply(start, max(start, _index(self.text, min(1.0, op[1] + op[2]))), "")
        elif kind == "hover":
            self.timed("textDocument/hover", {"textDocument": doc, "position": self.pos(op[1])})
        elif kind == "definition":
            self.timed("textDocument/definition", {"textDocument": doc, "position": self.pos(op[1])})
        elif kind == "codeAction":
            a, b = sorted((op[1], op[2]))
            rng = {"start": self.pos(a), "end": self.pos(b)}
            diags = self.server.diagnostics(self.uri) or []
            self.timed("textDocument/codeAction", {"textDocument": doc, "range": rng, "context": {"diagnostics": diags[:5]}})
        elif kind == "inlayHint":
            a, b = sorted((op[1], op[2]))
            self.timed("textDocument/inlayHint", {"textDocument": doc, "range": {"start": self.pos(a), "end": self.pos(b)}})

    def check_synced(self) -> None:
        held = self.timed("tfphi/documentText", {"uri": self.uri})
        assert held is not None and held["version"] == self.version
        assert held["text"] == self.text, "the server's text differs from the client's"
        diags = self.server.wait_diagnostics(self.uri, version=self.version, timeout=30)
        lines = len(self.text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
        for d in diags:
            assert d["range"]["start"]["line"] < lines and d["range"]["end"]["line"] < lines, (d, lines)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                       HealthCheck.function_scoped_fixture])
@given(doc=document, ops=st.lists(operation, min_size=1, max_size=OPS))
def test_fuzzed_editing(fuzz_server, doc, ops) -> None:
    server, root = fuzz_server
    seed, crlf = doc
    text = SEEDS[seed].replace("\n", "\r\n") if crlf else SEEDS[seed]
    uri = file_uri(root / f"fuzz_{next(_uris)}.tf")
    mark = len(server.notifications)  # only this example's messages are read (the list only grows)
    server.open(uri, text, 1)
    session = Session(server, uri, text)
    try:
        for n, op in enumerate(ops):
            session.run(op)
            if n % 10 == 9:
                session.check_synced()
        session.check_synced()
        assert server.alive()
        assert _internal_errors(server, mark) == [], _internal_errors(server, mark)[:3]
    finally:
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def _internal_errors(server: RawServer, start: int = 0) -> list[str]:
    return [m["params"]["message"] for m in server.notifications[start:]
            if m.get("method") == "window/logMessage" and m["params"].get("type") == 1]
