"""The stdio transport reads the client on the loop's own thread where it can (Linux, stdin a pipe or
a socket: ``transport.LoopReader``), told by the kernel's SIGIO when bytes come in. With a reader
thread, telling the background analysis that a message came waited for the interpreter lock: a
switch interval while the loop ran Python, and a free core on a loaded machine (a leaf keystroke at
1,000 modules paid 0.6 ms p50 more than one at 10 for it: docs/performance.md, "Leaf keystrokes
during the first analysis, session 13"). What is asserted here is where and when the note is made,
counted, not timed: on the loop's thread, before the code running there gives the loop back."""

from __future__ import annotations

import asyncio
import fcntl
import io
import json
import os
import signal
import socket
import sys
import threading

import pytest

from tfphi.lsp.main import create_server
from tfphi.lsp.transport import LoopReader, serve_stdio

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGIO on a pipe: Linux")


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_message_is_noted_on_the_loop_thread_while_it_runs_python():
    r, w = os.pipe()
    notes: list[tuple[bool, bool]] = []  # (on the main thread, while the coroutine still ran)
    running = [False]

    async def typed_while_busy() -> list[bytes]:
        reader = LoopReader(r, lambda: notes.append((threading.current_thread() is threading.main_thread(), running[0])))
        reader.start()
        try:
            running[0] = True
            os.write(w, b"Content-Length: 2\r\n\r\n{}")
            spins = 0
            while not notes and spins < 10_000_000:  # Python running on the loop's thread, never yielding
                spins += 1
            running[0] = False
            got = [await reader.readline(), await reader.readline(), await reader.readexactly(2)]
            os.close(w)
            got.append(await reader.readline())
            return got
        finally:
            reader.stop()

    try:
        got = asyncio.run(typed_while_busy())
    finally:
        os.close(r)
    assert got == [b"Content-Length: 2\r\n", b"\r\n", b"{}", b""]
    assert notes[0] == (True, True)


class KeptOpen(io.BytesIO):
    def close(self) -> None:  # (the server closes its stdout on the way out; the test reads it after)
        pass


def connected(kind: str) -> tuple[int, int]:
    """A pipe, or a socket pair (what node's child_process gives a server's stdin on Linux)."""
    if kind == "pipe":
        return os.pipe()
    a, b = socket.socketpair()
    return a.detach(), b.detach()


@pytest.mark.parametrize("kind", ["pipe", "socket"])
def test_serving_a_pipe_reads_it_on_the_loop_and_gives_it_back_as_it_was(kind):
    r, w = connected(kind)
    os.write(w, frame({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}) + frame({"jsonrpc": "2.0", "method": "exit"}))
    os.close(w)
    flags = fcntl.fcntl(r, fcntl.F_GETFL)
    handler = signal.getsignal(signal.SIGIO)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    out = KeptOpen()
    try:
        with os.fdopen(r, "rb", buffering=0) as stdin:
            code = serve_stdio(create_server(), stdin=stdin, stdout=out)
            after = (fcntl.fcntl(r, fcntl.F_GETFL), signal.getsignal(signal.SIGIO))
        # No reader thread, so no switch interval to shorten for it (the thread reader sets 0.1 ms);
        # ``exit`` after a ``shutdown`` refused before ``initialize``: 1 (LSP), as with the thread reader.
        assert (code, after, sys.getswitchinterval()) == (1, (flags, handler), 0.005)
    finally:
        sys.setswitchinterval(interval)
    body = out.getvalue().split(b"\r\n\r\n", 1)[1]
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 1,
                                "error": {"code": -32002, "message": "shutdown before initialize"}}


def test_a_stream_without_a_descriptor_is_read_by_a_thread():
    assert LoopReader.usable(io.BytesIO(b"")) is None


def test_one_socket_as_stdin_and_stdout_is_read_by_a_thread():
    """Its file status flags are shared: the loop reader's O_NONBLOCK would make stdout's large
    writes fail half-way, so a thread reads it (as a client that passes one socket for both gets)."""
    a, b = socket.socketpair()
    other, _ = socket.socketpair()
    try:
        with os.fdopen(os.dup(a.fileno()), "rb", buffering=0) as stdin, os.fdopen(os.dup(a.fileno()), "wb") as same, \
                os.fdopen(os.dup(other.fileno()), "wb") as separate:
            assert (LoopReader.usable(stdin, same), LoopReader.usable(stdin, separate)) == (None, stdin.fileno())
    finally:
        for s in (a, b, other, _):
            s.close()
