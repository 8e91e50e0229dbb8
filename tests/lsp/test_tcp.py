"""``tfphi serve --tcp HOST:PORT`` answers initialize over a socket."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from lsp_helpers import server_env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _frame(msg: dict) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_serve_over_tcp(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tfphi", "serve", "--tcp", f"127.0.0.1:{port}"], env=server_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)
        with sock:
            sock.sendall(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
            data = b""
            while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < int(data.split(b"Content-Length: ")[1].split(b"\r\n")[0]):
                chunk = sock.recv(65536)
                assert chunk, "connection closed"
                data += chunk
            reply = json.loads(data.split(b"\r\n\r\n", 1)[1])
            assert reply["id"] == 1
            caps = reply["result"]["capabilities"]
            assert caps["positionEncoding"] == "utf-16" and caps["hoverProvider"]
            assert caps["textDocumentSync"]["change"] == 2
    finally:
        proc.kill()
        proc.wait(10)
    assert "--tcp expects" not in proc.stderr.read().decode()


def test_bad_tcp_address_is_a_usage_error():
    proc = subprocess.run([sys.executable, "-m", "tfphi", "serve", "--tcp", "nonsense"], env=server_env(),
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "HOST:PORT" in proc.stderr
