"""Bad protocol traffic (issue part 3), written as raw bytes to the server's stdin: each message
is answered per JSON-RPC 2.0 / LSP or ignored with a log message, and the server goes on
(every test ends by checking that it still answers a hover)."""

from __future__ import annotations


import time
from pathlib import Path
from typing import Callable

import pytest
from hardening_support import NORMAL_TF
from lsp_raw import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RawServer,
    file_uri,
    frame,
    utf16_position,
)

HOVER_AT = NORMAL_TF.index("var.v") + 4


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "normal.tf").write_text(NORMAL_TF)
    return tmp_path


def _started(workspace: Path):
    srv = RawServer(cwd=workspace)
    srv.__enter__()
    srv.initialize(workspace)
    srv.wait_diagnostics(file_uri(workspace / "normal.tf"), lambda d: len(d) >= 2, timeout=60)
    return srv


def _stopped(srv: RawServer) -> None:
    srv.__exit__(None, None, None)
    # A message the server could not handle fails the test on its own, and so does any
    # traceback: the bad messages these tests send on purpose are answered (or, for
    # notifications, logged) in one line each, never with a traceback.
    log = srv.stderr()
    assert "Unable to handle message" not in log, log[-3000:]
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture
def server(workspace: Path):
    """A fresh server, for tests that change its state (open documents, shutdown, bursts)."""
    srv = _started(workspace)
    yield srv
    _stopped(srv)


@pytest.fixture(scope="module")
def shared_workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("protocol_ws")
    (root / "normal.tf").write_text(NORMAL_TF)
    return root


@pytest.fixture(scope="module")
def shared_server(shared_workspace: Path):
    """One server for the whole module's stateless tests (as pygls's own end-to-end tests share
    theirs): each sends bad traffic, checks the answer, and ends by checking the server still
    answers a hover and holds no framing error, which is what the next test starts from. Its
    stderr is checked once, at the end."""
    srv = _started(shared_workspace)
    yield srv
    _stopped(srv)


@pytest.fixture(autouse=True)
def _no_stale_answers(request) -> None:
    """An error with a null id left by an earlier test on the shared server is not this test's."""
    if "shared_server" in request.fixturenames:
        request.getfixturevalue("shared_server").responses.pop(None, None)


@pytest.fixture
def log_mark(shared_server: RawServer) -> int:
    """How many log messages the shared server had sent before this test."""
    return len(shared_server.log_messages())


def assert_still_answers(server: RawServer, workspace: Path) -> None:
    uri = file_uri(workspace / "normal.tf")
    response = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": utf16_position(NORMAL_TF, HOVER_AT)}, timeout=30)
    assert response.get("result") and "var.v" in response["result"]["contents"]["value"], response
    assert server.alive()
    assert not server.framing_errors


def _error(response: dict, code: int) -> None:
    assert "error" in response, response
    assert response["error"]["code"] == code, response


def _wait_null_id_error(server: RawServer, code: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = server.responses.pop(None, None)
        if response is not None:
            _error(response, code)
            return
        time.sleep(0.02)
    raise AssertionError(f"no error response with id null (code {code})")


# ---- malformed JSON-RPC ----------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    b'{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {',
    b"not json at all",
    b"\xff\xfe\x00garbage",
    b"",
    b"[" * 100_000,
])
def test_bad_json_is_a_parse_error(shared_server: RawServer, shared_workspace: Path, body: bytes, log_mark: int) -> None:
    shared_server.write(frame(body))
    _wait_null_id_error(shared_server, PARSE_ERROR)
    assert any("Parse Error" in m for m in shared_server.log_messages()[log_mark:])
    assert_still_answers(shared_server, shared_workspace)


@pytest.mark.parametrize("payload", ["[1, 2, 3]", '"a string"', "42", "null", '{"id": 3}', "[]"])
def test_json_that_is_not_a_message_is_an_invalid_request(shared_server: RawServer, shared_workspace: Path, payload: str) -> None:
    shared_server.write(frame(payload))
    _wait_null_id_error(shared_server, INVALID_REQUEST) if payload != '{"id": 3}' else time.sleep(0.3)
    assert_still_answers(shared_server, shared_workspace)


@pytest.mark.parametrize("raw", [
    # no Content-Length at all: the body is glued to the next message's header
    b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
    b'{"jsonrpc": "2.0", "id": 50, "method": "textDocument/hover", "params": {}}',
    # a Content-Length that is too short: the rest of the body is garbage before the next header
    b'Content-Length: 10\r\n\r\n{"jsonrpc": "2.0", "method": "$/x"}',
    # a Content-Length that is not a number, and a line that is no header
    b"Content-Length: ten\r\nhello\r\n\r\n",
    # lower-case header name and no space (tolerated)
    b'content-length:35\r\n\r\n{"jsonrpc":"2.0","method":"$/ping"}',
    # stray line breaks between messages
    b"\r\n\r\n\n",
    # an absurd Content-Length
    b"Content-Length: 99999999999999\r\n\r\n",
], ids=["missing-content-length", "short-content-length", "bad-headers", "lowercase-header", "blank-lines", "huge-length"])
def test_broken_framing_resynchronizes(shared_server: RawServer, shared_workspace: Path, raw: bytes) -> None:
    shared_server.write(raw)
    assert_still_answers(shared_server, shared_workspace)
    assert_still_answers(shared_server, shared_workspace)


@pytest.mark.parametrize("message, code", [
    ({"jsonrpc": "2.0", "id": 11, "method": "textDocument/hover", "params": {"textDocument": 5}}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 12, "method": "textDocument/hover", "params": "x"}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 13, "method": "textDocument/hover"}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 14, "method": "textDocument/hover",
      "params": {"textDocument": {"uri": "file:///x.tf"}, "position": {"line": -1, "character": -5}}}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 15, "method": "textDocument/hover",
      "params": {"textDocument": {"uri": "file:///x.tf"}, "position": {"line": 2**40, "character": 0}}}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 16, "method": "textDocument/codeAction", "params": {"textDocument": {"uri": 1}, "range": []}}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 17, "method": "textDocument/inlayHint", "params": {"range": None}}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 18, "method": 5, "params": {}}, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 19, "method": "workspace/executeCommand", "params": {"command": "tfphi.showTrace", "arguments": [1, 2]}}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 20, "method": "workspace/executeCommand", "params": {"command": "rm -rf /", "arguments": []}}, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": "str-id", "method": "tfphi/documentText", "params": {"uri": 5}}, INVALID_PARAMS),
], ids=["textDocument-int", "params-string", "params-missing", "negative-position", "position-overflow",
        "codeAction-types", "inlayHint-types", "method-int", "command-args", "unknown-command", "documentText-types"])
def test_wrong_parameter_types_are_answered(shared_server: RawServer, shared_workspace: Path, message: dict, code: int) -> None:
    shared_server.send(message)
    _error(shared_server.wait_response(message["id"], timeout=30), code)
    assert_still_answers(shared_server, shared_workspace)


def test_notifications_with_wrong_types_are_ignored(shared_server: RawServer, shared_workspace: Path) -> None:
    for params in ({"textDocument": 5}, "x", None, {"textDocument": {"uri": file_uri(shared_workspace / "normal.tf"), "version": "v"}, "contentChanges": 3}):
        shared_server.notify("textDocument/didChange", params)
        shared_server.notify("textDocument/didOpen", params)
    shared_server.notify("shared_workspace/didChangeConfiguration", {"settings": {"tfphi": {"limits": {"depth": "deep"}, "fields": 5, "ignore": 7}}})
    shared_server.notify("shared_workspace/didChangeWatchedFiles", {"changes": [{"uri": 5, "type": "x"}]})
    assert_still_answers(shared_server, shared_workspace)


@pytest.mark.parametrize("method", ["tfphi/nope", "textDocument/notAThing", "$/unknownRequest"])
def test_unknown_methods_are_method_not_found(shared_server: RawServer, shared_workspace: Path, method: str) -> None:
    _error(shared_server.request(method, {"a": 1}), METHOD_NOT_FOUND)
    _error(shared_server.request(method), METHOD_NOT_FOUND)  # params omitted (allowed by JSON-RPC)
    shared_server.notify(method, {"a": 1})  # an unknown notification is ignored
    shared_server.notify("$/setTrace", {"value": "verbose"})
    shared_server.notify("$/cancelRequest", {"id": 123456})
    shared_server.send({"jsonrpc": "2.0", "id": 987654, "result": None})  # a response to nothing
    assert_still_answers(shared_server, shared_workspace)


# ---- positions and documents -----------------------------------------------------------------


def _requests_at(uri: str, pos: dict) -> list[tuple[str, dict]]:
    doc = {"uri": uri}
    rng = {"start": pos, "end": pos}
    return [
        ("textDocument/hover", {"textDocument": doc, "position": pos}),
        ("textDocument/definition", {"textDocument": doc, "position": pos}),
        ("textDocument/references", {"textDocument": doc, "position": pos, "context": {"includeDeclaration": True}}),
        ("textDocument/codeAction", {"textDocument": doc, "range": rng, "context": {"diagnostics": []}}),
        ("textDocument/inlayHint", {"textDocument": doc, "range": {"start": {"line": 0, "character": 0}, "end": pos}}),
        ("textDocument/documentSymbol", {"textDocument": doc}),
        ("textDocument/codeLens", {"textDocument": doc}),
    ]


@pytest.mark.parametrize("pos", [
    {"line": 1000, "character": 0}, {"line": 0, "character": 100_000}, {"line": 2**31 - 1, "character": 2**31 - 1},
    {"line": 3, "character": 3}, {"line": 9, "character": 1},
])
@pytest.mark.parametrize("opened", [False, True])
def test_positions_past_the_end(shared_server: RawServer, shared_workspace: Path, pos: dict, opened: bool) -> None:
    uri = file_uri(shared_workspace / "normal.tf")
    if opened:
        shared_server.open(uri, NORMAL_TF, 1)
    for method, params in _requests_at(uri, pos):
        response = shared_server.request(method, params, timeout=30)
        assert "result" in response or response["error"]["code"] == INVALID_PARAMS, (method, response)
    # a code action for a range that runs backwards and past the end, with a foreign diagnostic
    response = shared_server.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 50, "character": 9}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": [{"range": {"start": {"line": 99, "character": 0}, "end": {"line": 99, "character": 5}},
                                     "message": "?", "code": "unbounded-field", "data": {"garbage": [1, 2]}}]}})
    assert "result" in response or response["error"]["code"] == INVALID_PARAMS
    assert_still_answers(shared_server, shared_workspace)


@pytest.mark.parametrize("uri", ["untitled:Untitled-1", "file:///nonexistent/dir/x.tf", "http://example.com/x.tf", "", "file://"])
def test_requests_about_unknown_documents(shared_server: RawServer, shared_workspace: Path, uri: str) -> None:
    for method, params in _requests_at(uri, {"line": 0, "character": 0}):
        response = shared_server.request(method, params, timeout=30)
        assert "result" in response or response["error"]["code"] == INVALID_PARAMS, (method, response)
    assert_still_answers(shared_server, shared_workspace)


def test_did_change_for_an_unopened_document_is_ignored_with_a_log(server: RawServer, workspace: Path) -> None:
    uri = file_uri(workspace / "normal.tf")
    server.change(uri, 5, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "garbage {"}])
    server.change(file_uri(workspace / "nothere.tf"), 1, [{"text": "x"}])
    server.notify("textDocument/didClose", {"textDocument": {"uri": file_uri(workspace / "never-opened.tf")}})
    server.wait_for(lambda m: m.get("method") == "window/logMessage" and "not open" in m["params"]["message"], timeout=10)
    assert_still_answers(server, workspace)  # the disk text, unchanged by the ignored edit
    assert server.result("tfphi/documentText", {"uri": uri}) is None


def test_version_regressions_are_ignored(server: RawServer, workspace: Path) -> None:
    uri = file_uri(workspace / "normal.tf")
    server.open(uri, NORMAL_TF, 10)
    server.change(uri, 11, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# a\n"}])
    server.change(uri, 5, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "BROKEN {"}])
    server.change(uri, 11, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "BROKEN {"}])
    held = server.result("tfphi/documentText", {"uri": uri})
    assert held["text"] == "# a\n" + NORMAL_TF and held["version"] == 11
    diags = server.wait_diagnostics(uri, version=11, timeout=30)
    assert not any(d.get("code") == "syntax-error" for d in diags)
    assert any("stale" in m or "version" in m for m in server.log_messages())
    response = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": utf16_position("# a\n" + NORMAL_TF, HOVER_AT + 4)})
    assert "var.v" in response["result"]["contents"]["value"]


def test_open_twice_and_close_twice(server: RawServer, workspace: Path) -> None:
    uri = file_uri(workspace / "normal.tf")
    server.open(uri, "", 1)
    server.open(uri, NORMAL_TF, 2)
    assert server.result("tfphi/documentText", {"uri": uri})["text"] == NORMAL_TF
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert_still_answers(server, workspace)


# ---- lifecycle -------------------------------------------------------------------------------


def test_requests_after_shutdown_are_invalid_requests(server: RawServer, workspace: Path) -> None:
    uri = file_uri(workspace / "normal.tf")
    assert "result" in server.request("shutdown")
    hover = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": utf16_position(NORMAL_TF, HOVER_AT)})
    _error(hover, INVALID_REQUEST)
    _error(server.request("tfphi/documentText", {"uri": uri}), INVALID_REQUEST)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "terraform", "version": 1, "text": ""}})
    server.notify("exit")
    assert server.wait_exit(30) == 0


def test_exit_without_shutdown_exits_with_code_1(workspace: Path) -> None:
    with RawServer(cwd=workspace) as server:
        server.initialize(workspace)
        server.notify("exit")
        assert server.wait_exit(30) == 1


def test_exit_after_shutdown_exits_with_code_0(workspace: Path) -> None:
    with RawServer(cwd=workspace) as server:
        server.initialize(workspace)
        assert server.shutdown_and_exit() == 0


def test_end_of_input_ends_the_server(workspace: Path) -> None:
    with RawServer(cwd=workspace) as server:
        server.initialize(workspace)
        server.proc.stdin.close()
        server.wait_exit(30)


# ---- bursts ----------------------------------------------------------------------------------


def test_a_burst_of_1000_changes(server: RawServer, workspace: Path) -> None:
    """1,000 changes sent without waiting: the final text is right, and diagnostics come for the last version."""
    uri = file_uri(workspace / "normal.tf")
    server.open(uri, NORMAL_TF, 1)
    expected = NORMAL_TF
    chunks: list[bytes] = []
    pieces = ["#", "é", "😀", "\r\n", " ", "\n"]
    for i in range(1000):
        ch = pieces[i % len(pieces)]
        # insert at the very start, or replace the first character, alternately
        if i % 7 == 3 and expected and not expected.startswith(("\r\n",)):
            end = utf16_position(expected, 1)
            change = {"range": {"start": {"line": 0, "character": 0}, "end": end}, "text": ch}
            expected = ch + expected[1:]
        else:
            change = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ch}
            expected = ch + expected
        chunks.append(frame({"jsonrpc": "2.0", "method": "textDocument/didChange",
                             "params": {"textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [change]}}))
    server.write(b"".join(chunks))  # one write: the server sees a true burst
    held = server.result("tfphi/documentText", {"uri": uri}, timeout=60)
    assert held["version"] == 1001
    assert held["text"] == expected
    server.wait_diagnostics(uri, version=1001, timeout=60)
    versions = [m["params"].get("version") for m in server.notifications
                if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]
    assert versions[-1] == 1001
    opened = [v for v in versions if v is not None]
    assert opened == sorted(opened), "an older version was published after a newer one"
    # Changes that arrive while the server is busy are coalesced (SPEC 6): far fewer passes than changes.
    assert len(versions) < 100, f"{len(versions)} publications for 1,000 changes"
    pos = utf16_position(expected, expected.index("var.v") + 3)
    response = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": pos})
    assert "result" in response


def test_a_burst_of_requests_and_cancellations(server: RawServer, workspace: Path) -> None:
    uri = file_uri(workspace / "normal.tf")
    pos = utf16_position(NORMAL_TF, HOVER_AT)
    ids = []
    chunks = []
    for i in range(300):
        ids.append(1000 + i)
        chunks.append(frame({"jsonrpc": "2.0", "id": 1000 + i, "method": "textDocument/hover",
                             "params": {"textDocument": {"uri": uri}, "position": pos}}))
        if i % 3 == 0:
            chunks.append(frame({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1000 + i}}))
    server.write(b"".join(chunks))
    for id in ids:  # every request is answered: a result, or RequestCancelled
        response = server.wait_response(id, timeout=60)
        assert "result" in response or response["error"]["code"] in (-32800,), response
    assert_still_answers(server, workspace)


def test_requests_before_initialize_are_refused(workspace: Path) -> None:
    """LSP: a request before ``initialize`` gets ServerNotInitialized; a notification is dropped."""
    uri = file_uri(workspace / "normal.tf")
    with RawServer(cwd=workspace) as server:
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "terraform", "version": 1, "text": "x"}})
        _error(server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}), -32002)
        server.initialize(workspace)
        server.wait_diagnostics(uri, lambda d: len(d) >= 2, timeout=60)  # the file on disk, not the dropped "x"
        assert_still_answers(server, workspace)
