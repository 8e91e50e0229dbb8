"""A small, strict LSP client over stdio with its own framing, for traffic pytest-lsp will not send.

``RawServer`` starts ``python -m tfphi serve`` as a user would, reads every frame the
server writes on a thread (checking the framing as it goes), answers the server's own
requests (configuration, registration, progress) and lets a test send well-formed
requests, notifications, or any bytes at all.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]
SERVER_CMD = [sys.executable, "-m", "tfphi", "serve"]

# JSON-RPC / LSP error codes
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002


def server_env(extra_pythonpath: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    parts = [extra_pythonpath, str(REPO / "server"), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in parts if p)
    env.pop("TFPHI_SOAK", None)
    return env


def frame(payload: bytes | str | dict) -> bytes:
    """One message with its Content-Length header (``payload`` may be anything, even invalid JSON)."""
    if isinstance(payload, dict):
        payload = json.dumps(payload, ensure_ascii=False)
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


def file_uri(path: Path | str) -> str:
    return Path(os.path.abspath(path)).as_uri()


class ServerDied(AssertionError):
    pass


class RawServer:
    """The server as a subprocess; every message it sends is kept in arrival order."""

    def __init__(self, cwd: Path | None = None, env: dict[str, str] | None = None, settings: Any = None,
                 cmd: list[str] | None = None):
        self.settings = settings if settings is not None else {}
        self.proc = subprocess.Popen(
            cmd or SERVER_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=str(cwd) if cwd else None, env=env or server_env(),
        )
        self._ids = iter(range(1, 10**9))
        self._lock = threading.Lock()
        self._cond = threading.Condition()
        self.responses: dict[Any, dict] = {}
        self.notifications: list[dict] = []
        # The last publishDiagnostics per URI: waiting for one file's diagnostics must not rescan
        # every notification at each arrival (10,000 files publish 10,000 times: quadratic).
        self._publications: dict[str, dict] = {}
        self.server_requests: list[dict] = []
        self.framing_errors: list[str] = []
        self.stderr_chunks: list[bytes] = []
        self.closed = False
        self.on_request: Callable[[dict], Any] | None = None
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._err_reader.start()

    # ---- reading ---------------------------------------------------------------------------

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            self.stderr_chunks.append(chunk)

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                headers: dict[str, str] = {}
                while True:
                    line = out.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    if not line.endswith(b"\r\n"):
                        self.framing_errors.append(f"header line not ended by CRLF: {line!r}")
                    name, sep, value = line.decode("ascii", "replace").partition(":")
                    if not sep:
                        self.framing_errors.append(f"bad header line {line!r}")
                        continue
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "-1"))
                if length < 0:
                    self.framing_errors.append(f"no Content-Length in {headers}")
                    return
                body = out.read(length)
                try:
                    message = json.loads(body)
                except ValueError as exc:
                    self.framing_errors.append(f"server sent invalid JSON ({exc}): {body[:200]!r}")
                    continue
                self._dispatch(message)
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _dispatch(self, message: dict) -> None:
        if "id" in message and "method" in message:  # a request from the server
            self.server_requests.append(message)
            result = self._answer_server_request(message)
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            return
        with self._cond:
            if "id" in message:
                self.responses[message["id"]] = message
            else:
                self.notifications.append(message)
                if message.get("method") == "textDocument/publishDiagnostics":
                    params = message.get("params")
                    if isinstance(params, dict) and isinstance(params.get("uri"), str):
                        self._publications[params["uri"]] = params
            self._cond.notify_all()

    def _answer_server_request(self, message: dict) -> Any:
        if self.on_request is not None:
            return self.on_request(message)
        if message["method"] == "workspace/configuration":
            return [self.settings for _ in message.get("params", {}).get("items", [])]
        return None

    # ---- writing ---------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Writes raw bytes to the server's stdin (no framing added)."""
        assert self.proc.stdin is not None
        with self._lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, payload: bytes | str | dict) -> None:
        try:
            self.write(frame(payload))
        except (OSError, ValueError):  # the server is gone, or the test closed its stdin
            pass

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request_async(self, method: str, params: Any = None, id: Any = None) -> Any:
        id = next(self._ids) if id is None else id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return id

    def wait_response(self, id: Any, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        with self._cond:
            while id not in self.responses:
                if self.closed:
                    raise ServerDied(f"the server exited before answering request {id}; stderr:\n{self.stderr()[-3000:]}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no response to request {id} within {timeout} s; stderr:\n{self.stderr()[-3000:]}")
                self._cond.wait(left)
            return self.responses.pop(id)

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> dict:
        """Sends a request and returns the whole response message (``result`` or ``error``)."""
        return self.wait_response(self.request_async(method, params), timeout)

    def result(self, method: str, params: Any = None, timeout: float = 30.0) -> Any:
        response = self.request(method, params, timeout)
        assert "error" not in response, f"{method} failed: {response['error']}"
        return response.get("result")

    # ---- waiting for notifications ---------------------------------------------------------

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 30.0, start: int = 0) -> dict:
        """The first notification (from index ``start``) matching ``predicate``."""
        deadline = time.monotonic() + timeout
        seen = start
        with self._cond:
            while True:
                while seen < len(self.notifications):
                    message = self.notifications[seen]
                    seen += 1
                    if predicate(message):
                        return message
                if self.closed:
                    raise ServerDied(f"the server exited; stderr:\n{self.stderr()[-3000:]}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no matching notification within {timeout} s")
                self._cond.wait(left)

    def diagnostics(self, uri: str) -> list[dict] | None:
        """The last diagnostics published for ``uri`` (None when none were)."""
        params = self.last_publication(uri)
        return None if params is None else params["diagnostics"]

    def last_publication(self, uri: str) -> dict | None:
        with self._cond:
            return self._publications.get(uri)

    def wait_diagnostics(self, uri: str, predicate: Callable[[list[dict]], bool] = lambda d: True,
                         timeout: float = 60.0, version: int | None = None) -> list[dict]:
        """Waits until the last publication for ``uri`` satisfies ``predicate`` (and has ``version``)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                params = self.last_publication(uri)
                if params is not None and predicate(params["diagnostics"]) and (version is None or params.get("version") == version):
                    return params["diagnostics"]
                if self.closed:
                    raise ServerDied(f"the server exited; stderr:\n{self.stderr()[-3000:]}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"diagnostics for {uri} not as expected within {timeout} s; last: {params}")
                self._cond.wait(min(left, 1.0))

    def log_messages(self) -> list[str]:
        with self._cond:
            return [m["params"]["message"] for m in self.notifications if m.get("method") == "window/logMessage"]

    def stderr(self) -> str:
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")

    # ---- lifecycle -------------------------------------------------------------------------

    def initialize(self, root: Path | None = None, capabilities: dict | None = None,
                   initialization_options: Any = None, timeout: float = 60.0) -> dict:
        caps = capabilities if capabilities is not None else {
            "general": {"positionEncodings": ["utf-16"]},
            "textDocument": {"publishDiagnostics": {"versionSupport": True}, "synchronization": {"dynamicRegistration": False}},
            "workspace": {"configuration": True, "workspaceFolders": True},
        }
        params: dict[str, Any] = {"processId": os.getpid(), "capabilities": caps, "rootUri": None}
        if root is not None:
            params["rootUri"] = file_uri(root)
            params["workspaceFolders"] = [{"uri": file_uri(root), "name": Path(root).name}]
        if initialization_options is not None:
            params["initializationOptions"] = initialization_options
        result = self.result("initialize", params, timeout=timeout)
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "terraform", "version": version, "text": text}})

    def change(self, uri: str, version: int, changes: list[dict]) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})

    def hover(self, uri: str, line: int, character: int, timeout: float = 30.0) -> dict:
        return self.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}, timeout)

    def shutdown_and_exit(self, timeout: float = 30.0) -> int:
        try:
            self.request("shutdown", None, timeout=timeout)
            self.notify("exit")
        except (ServerDied, TimeoutError, OSError):
            pass
        return self.wait_exit(timeout)

    def wait_exit(self, timeout: float = 30.0) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def __enter__(self) -> "RawServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.alive():
            try:
                self.shutdown_and_exit(timeout=10)
            except Exception:  # noqa: BLE001
                pass
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001
                pass


_BREAK = re.compile(r"\r\n|\r|\n")


def utf16_position(text: str, index: int) -> dict:
    """The LSP position (UTF-16 code units) of character ``index``; lines end at CRLF, CR or LF (LSP)."""
    line, line_start = 0, 0
    for match in _BREAK.finditer(text):
        if match.end() > index:  # past ``index``, or ``index`` is inside a CRLF pair (the CR's position)
            break
        line, line_start = line + 1, match.end()
    column = text[line_start:index]
    return {"line": line, "character": len(column.encode("utf-16-le")) // 2}
