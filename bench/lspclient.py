"""A minimal JSON-RPC 2.0 / LSP client over a subprocess's stdio, for benchmarks.

- Content-Length framing over the child's stdin/stdout pipes;
- one reader thread that timestamps every message on arrival (time.perf_counter),
  resolves request futures, answers server->client requests and queues notifications;
- `expect(predicate)` registers a future resolved by the first later notification
  that matches, so a latency measurement is "send time -> arrival time" and does not
  include the time the consumer takes to look at the message.

The server's stderr goes to a file (a full pipe would block it).
"""
from __future__ import annotations

import itertools
import json
import queue
import subprocess
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable


class LspError(Exception):
    def __init__(self, error: dict):
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error


class LspClient:
    def __init__(self, cmd: list[str], cwd: str | Path | None = None, stderr_path: str | Path | None = None,
                 env: dict | None = None):
        self._stderr = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     cwd=cwd, env=env, bufsize=0)
        self._ids = itertools.count(1)
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending: dict[int, Future] = {}
        self._expectations: list[tuple[Callable[[dict], bool], Future]] = []
        self.notifications: queue.Queue[tuple[float, dict]] = queue.Queue()
        self.server_requests: list[dict] = []
        # method -> handler(params) -> result; anything else gets MethodNotFound
        self.handlers: dict[str, Callable[[Any], Any]] = {
            "window/workDoneProgress/create": lambda p: None,
            "client/registerCapability": lambda p: None,
            "client/unregisterCapability": lambda p: None,
            "workspace/configuration": lambda p: [None] * len((p or {}).get("items", [])),
            "window/showMessageRequest": lambda p: None,
            "workspace/workspaceFolders": lambda p: None,
            "workspace/semanticTokens/refresh": lambda p: None,
            "workspace/inlayHint/refresh": lambda p: None,
            "workspace/diagnostic/refresh": lambda p: None,
            "workspace/codeLens/refresh": lambda p: None,
        }
        self.closed = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name="lsp-reader", daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ wire
    def _send(self, msg: dict) -> float:
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        with self._write_lock:
            t = time.perf_counter()
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        return t

    def _read_message(self) -> dict | None:
        stdout = self.proc.stdout
        length = None
        while True:
            line = stdout.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is None:
            raise ValueError("LSP message without Content-Length")
        body = b""
        while len(body) < length:
            chunk = stdout.read(length - len(body))
            if not chunk:
                return None
            body += chunk
        return json.loads(body)

    def _read_loop(self) -> None:
        try:
            while True:
                msg = self._read_message()
                if msg is None:
                    break
                t = time.perf_counter()
                if "method" in msg and "id" in msg:
                    self._answer(msg)
                elif "id" in msg:
                    with self._lock:
                        fut = self._pending.pop(msg["id"], None)
                    if fut is not None:
                        fut.set_result((t, msg))
                else:
                    self._dispatch_notification(t, msg)
        except Exception as exc:  # surface reader failures to every waiter
            with self._lock:
                waiters = list(self._pending.values()) + [f for _, f in self._expectations]
            for fut in waiters:
                if not fut.done():
                    fut.set_exception(exc)
        finally:
            self.closed.set()
            with self._lock:
                waiters = list(self._pending.values()) + [f for _, f in self._expectations]
                self._pending.clear()
                self._expectations.clear()
            for fut in waiters:
                if not fut.done():
                    fut.set_exception(ConnectionError("server closed its stdout"))

    def _answer(self, msg: dict) -> None:
        self.server_requests.append(msg)
        handler = self.handlers.get(msg["method"])
        if handler is None:
            self._send({"jsonrpc": "2.0", "id": msg["id"],
                        "error": {"code": -32601, "message": f"unsupported: {msg['method']}"}})
        else:
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": handler(msg.get("params"))})

    def _dispatch_notification(self, t: float, msg: dict) -> None:
        with self._lock:
            for i, (pred, fut) in enumerate(self._expectations):
                if pred(msg):
                    del self._expectations[i]
                    fut.set_result((t, msg))
                    break
        self.notifications.put((t, msg))

    # ------------------------------------------------------------------ API
    def request_async(self, method: str, params: Any = None) -> tuple[float, Future]:
        """Send a request; returns (send time, future of (arrival time, response message))."""
        rid = next(self._ids)
        fut: Future = Future()
        with self._lock:
            self._pending[rid] = fut
        t = self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return t, fut

    def request(self, method: str, params: Any = None, timeout: float = 60.0) -> Any:
        _, fut = self.request_async(method, params)
        _, msg = fut.result(timeout)
        if "error" in msg:
            raise LspError(msg["error"])
        return msg.get("result")

    def notify(self, method: str, params: Any = None) -> float:
        """Send a notification; returns its send time."""
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def expect(self, predicate: Callable[[dict], bool]) -> Future:
        """Future of (arrival time, message) for the next notification matching `predicate`.

        Register it *before* sending whatever triggers the notification."""
        fut: Future = Future()
        with self._lock:
            self._expectations.append((predicate, fut))
        return fut

    def cancel_expectation(self, fut: Future) -> None:
        with self._lock:
            self._expectations = [(p, f) for p, f in self._expectations if f is not fut]

    def expect_diagnostics(self, uri: str, version: int | None = None) -> Future:
        def match(msg: dict) -> bool:
            if msg.get("method") != "textDocument/publishDiagnostics":
                return False
            params = msg.get("params") or {}
            return params.get("uri") == uri and (version is None or params.get("version") == version)
        return self.expect(match)

    def drain(self) -> list[tuple[float, dict]]:
        out = []
        while True:
            try:
                out.append(self.notifications.get_nowait())
            except queue.Empty:
                return out

    def close(self, timeout: float = 10.0) -> int | None:
        """shutdown + exit, then wait; kill the server if it does not go."""
        try:
            if self.proc.poll() is None and not self.closed.is_set():
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit")
        except Exception:
            pass
        try:
            self.proc.stdin.close()
        except Exception:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()
        return self.proc.returncode
