"""The stdio transport: LSP base-protocol framing that survives whatever bytes a client sends.

pygls' own read loop (``pygls.io_.run_async``) stops understanding the client for good
after one message without a ``Content-Length`` header, or one whose length is too short
(every later body is glued to the next header line), and never answers a request whose
parameters do not structure (wrong types, a negative position): the client waits forever.
This loop reads the same frames, and instead:

- finds a ``Content-Length`` header anywhere in a line (case-insensitive), so the stream
  resynchronizes at the next message after any garbage, logging what it skipped;
- answers bad JSON with ParseError, a non-object with InvalidRequest (id null, JSON-RPC
  2.0), and a request whose parameters do not fit its method with InvalidParams (or
  InvalidRequest) under the request's own id;
- logs anything else it cannot handle, and goes on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import stat
import sys
import threading
from typing import Any, BinaryIO, Callable

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.io_ import StdoutWriter

try:
    import fcntl
except ImportError:  # not POSIX: the reader thread serves
    fcntl = None  # type: ignore[assignment]

from .guard import log_to_client

logger = logging.getLogger(__name__)

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)", re.IGNORECASE)
_HEADER = re.compile(rb"^[A-Za-z][A-Za-z0-9-]*[ \t]*:")
MAX_MESSAGE = 512 * 1024 * 1024  # a larger Content-Length is a broken header, not a message

# Where a thread reads the client (``BufferedReader``: not Linux, or stdin neither a pipe nor a
# socket; ``LoopReader`` serves otherwise and needs no tuning), it takes the interpreter lock to tell
# the background analysis that a message came (``AnalysisScheduler.note_arrival``), and while the
# loop runs Python, CPython hands the lock over only at the end of a switch interval: 5 ms by
# default. Measured (bench/README.md, "Issue 23: the reader thread's wait for the interpreter lock,
# session 12"; docs/performance.md, "Leaf keystrokes during the first analysis, session 13"):
# keystrokes into a leaf typed during the first analysis at 1,000 modules waited from their sending
# to the reader's note 10.1 ms p50 with 5 ms, 0.6 ms with 0.5 ms, 0.0-0.2 ms with 0.1 ms. The thread
# is blocked in read() the rest of the time, so no thread asks for the lock and a shorter interval
# switches nothing then (one forced switch per message either way, only sooner).
READER_SWITCH_INTERVAL = 0.0001


class _Buffered:
    """Serves lines and bodies from the bytes read so far; ``_fill`` reads more (``_eof``: no more come)."""

    _buffer: bytearray
    _eof: bool

    async def _fill(self) -> None:
        raise NotImplementedError

    async def readline(self) -> bytes:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 or self._eof:
                end = end + 1 if end >= 0 else len(self._buffer)
                line = bytes(self._buffer[:end])
                del self._buffer[:end]
                return line
            await self._fill()

    async def readexactly(self, n: int) -> bytes:
        while len(self._buffer) < n and not self._eof:
            await self._fill()
        body = bytes(self._buffer[:n])
        del self._buffer[:n]
        return body


class BufferedReader(_Buffered):
    """Reads the client's bytes a chunk at a time (in a thread), and serves lines and bodies from memory.

    Every message already received is handed over without returning to the event loop, so
    a burst of changes is applied as a whole before the analysis runs once on the result
    (SPEC 6: changes that arrive meanwhile are coalesced). Reading line by line through a
    thread would hand the loop over between every two messages.
    """

    CHUNK = 1 << 16

    def __init__(self, stream: BinaryIO, executor: Any, on_arrival: Callable[[], None] | None = None):
        read = getattr(stream, "read1", stream.read)
        if on_arrival is not None:
            def read_and_flag(n: int, read=read) -> bytes:
                data = read(n)
                on_arrival()  # in the reader thread: background analysis stops at its next step
                return data

            self._read = read_and_flag
        else:
            self._read = read
        self._executor = executor
        self._buffer = bytearray()
        self._eof = False

    async def _fill(self) -> None:
        data = await asyncio.get_running_loop().run_in_executor(self._executor, self._read, self.CHUNK)
        if data:
            self._buffer += data
        else:
            self._eof = True



class LoopReader(_Buffered):
    """Reads the client's bytes on the loop's own thread, told by the kernel when they come (Linux,
    stdin a pipe or a socket): no thread and no hand-off of the interpreter lock between a
    message's arrival and its handler.

    The kernel sends SIGIO as bytes come in (``O_ASYNC``); CPython runs the handler on the main
    thread, which runs the loop, at its next bytecode, so background analysis learns of the
    message at once (``on_arrival``) even while it holds the lock, and gives way. The loop then
    reads the bytes itself (non-blocking, ``add_reader``). With a reader thread, the note waited
    for the lock: for a switch interval while the loop ran Python, and for a core to run the
    thread on a loaded machine (docs/performance.md, "Leaf keystrokes during the first analysis,
    session 13").
    """

    CHUNK = 1 << 16

    def __init__(self, fd: int, on_arrival: Callable[[], None] | None = None):
        self._fd = fd
        self._on_arrival = on_arrival or (lambda: None)
        self._buffer = bytearray()
        self._eof = False
        self._more: asyncio.Future | None = None
        self._flags: int | None = None
        self._previous_handler: Any = None

    @staticmethod
    def usable(stream: Any, output: Any = None) -> int | None:
        """The stream's descriptor when this reader can serve it (Linux, the main thread, a pipe or
        socket that is not also ``output``: one socket as both stdin and stdout shares its file
        status flags, and a non-blocking stdout would fail a large write half-way)."""
        if fcntl is None or not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
            return None
        try:
            fd = stream.fileno()
            st = os.fstat(fd)
        except (AttributeError, OSError, ValueError):  # (io.BytesIO and the like: no descriptor)
            return None
        if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)):
            return None
        try:
            out = os.fstat(output.fileno())
        except (AttributeError, OSError, ValueError):
            return fd
        return None if (out.st_dev, out.st_ino) == (st.st_dev, st.st_ino) else fd

    def start(self) -> None:
        """Asks the kernel for SIGIO on this descriptor (the handler first: SIGIO's default ends the process)."""
        self._previous_handler = signal.signal(signal.SIGIO, self._signalled)
        fcntl.fcntl(self._fd, fcntl.F_SETOWN, os.getpid())
        self._flags = fcntl.fcntl(self._fd, fcntl.F_GETFL)
        fcntl.fcntl(self._fd, fcntl.F_SETFL, self._flags | os.O_ASYNC | os.O_NONBLOCK)
        asyncio.get_running_loop().add_reader(self._fd, self._readable)

    def stop(self) -> None:
        """Gives the descriptor back as it was (blocking, no SIGIO)."""
        if self._flags is None:
            return
        try:
            asyncio.get_running_loop().remove_reader(self._fd)
        except RuntimeError:  # (no loop running any more)
            pass
        try:
            fcntl.fcntl(self._fd, fcntl.F_SETFL, self._flags)
        except OSError:
            pass
        signal.signal(signal.SIGIO, self._previous_handler if self._previous_handler is not None else signal.SIG_IGN)
        self._flags = None

    def _signalled(self, signum: int, frame: Any) -> None:
        self._on_arrival()  # background analysis stops at its next check

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, self.CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        self._on_arrival()  # (already noted by the signal, unless the kernel sent none)
        if data:
            self._buffer += data
        else:
            self._eof = True
            asyncio.get_running_loop().remove_reader(self._fd)
        if self._more is not None and not self._more.done():
            self._more.set_result(None)

    async def _fill(self) -> None:
        if self._flags is None:
            self.start()
        self._more = asyncio.get_running_loop().create_future()
        await self._more



async def read_messages(stop: threading.Event, reader: Any, protocol: Any, report: Callable[[str], None],
                        handled: Callable[[], None] = lambda: None) -> None:
    """The message loop: one frame after another until the input ends or ``stop`` is set; ``handled`` after each."""
    length: int | None = None
    other_headers = False
    while not stop.is_set():
        line = await reader.readline()
        if not line:
            break
        if not line.strip():
            if length is not None:
                body = await reader.readexactly(length)
                if len(body) < length:
                    break  # the input ended inside the body
                length, other_headers = None, False
                handle_body(body, protocol, report)
                handled()
            elif other_headers:
                report("tfphi: ignored a message without a Content-Length header")
                other_headers = False
                handled()  # no message to wait for after all
            continue
        found = _CONTENT_LENGTH.search(line)
        if found is not None:
            if found.start() > 0 and line[: found.start()].strip():
                report(f"tfphi: skipped {found.start()} bytes that are not part of a message")
            value = int(found.group(1))
            if value > MAX_MESSAGE:
                report(f"tfphi: ignored a Content-Length of {value} bytes (more than {MAX_MESSAGE})")
                length = None
            else:
                length = value
        elif _HEADER.match(line):
            other_headers = True  # Content-Type and the like
        else:
            report(f"tfphi: skipped {len(line)} bytes that are not part of a message")


def handle_body(body: bytes, protocol: Any, report: Callable[[str], None]) -> None:
    """Decodes one message and hands it to the protocol; every failure is answered or logged."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except JsonRpcException as exc:  # valid JSON that does not fit its method
        raw = _plain(body)
        method = raw.get("method") if isinstance(raw, dict) else None
        if isinstance(method, str) and "params" not in raw:  # params may be omitted (JSON-RPC 2.0)
            try:
                message = protocol.structure_message({**raw, "params": None})
            except JsonRpcException:
                pass
            else:
                _dispatch(message, protocol, report)
                return
        if isinstance(exc, JsonRpcInternalError):
            exc = JsonRpcInvalidRequest() if not isinstance(method, str) else JsonRpcInvalidParams()
        detail = f"invalid {method!r} message" if isinstance(method, str) else "invalid message"
        _reply_error(protocol, raw, type(exc)(f"{exc.message}: {detail}" if exc.message else detail), report)
        return
    except (ValueError, RecursionError) as exc:
        _reply_error(protocol, None, JsonRpcParseError(f"Parse Error: {exc}"), report)
        return
    _dispatch(message, protocol, report)


def _dispatch(message: Any, protocol: Any, report: Callable[[str], None]) -> None:
    if not hasattr(message, "jsonrpc"):  # a list, a number, a string, an object without "jsonrpc"
        _reply_error(protocol, message if isinstance(message, dict) else None,
                     JsonRpcInvalidRequest("Invalid Request: not a JSON-RPC 2.0 message"), report)
        return
    method = getattr(message, "method", None)
    if method is not None and not isinstance(method, str):
        _reply_error(protocol, {"id": getattr(message, "id", None), "method": method},
                     JsonRpcInvalidRequest("Invalid Request: the method must be a string"), report)
        return
    try:
        protocol.handle_message(message)
    except Exception as exc:  # noqa: BLE001 - never let one message end the loop
        logger.exception("could not handle a message")
        report(f"tfphi: could not handle a message: {type(exc).__name__}: {exc}")


def _plain(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _reply_error(protocol: Any, raw: Any, error: JsonRpcException, report: Callable[[str], None]) -> None:
    """Answers a request with ``error`` (id null when the id cannot be read); notifications are only logged."""
    report(f"tfphi: {error.message}")
    msg_id = raw.get("id") if isinstance(raw, dict) else None
    is_notification = isinstance(raw, dict) and "id" not in raw and "method" in raw
    if is_notification or (isinstance(raw, dict) and "method" not in raw and "id" in raw):
        return  # a notification, or a response from the client: nothing to answer
    if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
        msg_id = None
    try:  # pygls would leave out an id of null, which JSON-RPC 2.0 requires here
        error_json = {"code": error.code, "message": error.message}
        protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": error_json})
    except Exception:  # noqa: BLE001
        logger.exception("could not send an error response")


class AnsweredElsewhere(logging.Filter):
    """Drops pygls' tracebacks for messages that are answered and logged in one line elsewhere.

    pygls logs a whole traceback when a message does not structure ("Unable to deserialize
    message": ``handle_body`` answers it and logs one line) and when a handler raises a JSON-RPC
    error on purpose (an unknown document, bad parameters: the server logs the error's one line).
    A client's bad message is not the server's failure; an internal error keeps its traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg.startswith("Unable to deserialize message"):
            return False
        if record.msg.startswith("Exception occurred for message") and record.exc_info:
            error = record.exc_info[1]
            return not isinstance(error, JsonRpcException) or isinstance(error, JsonRpcInternalError)
        return True


def quiet_pygls_logs() -> None:
    logging.getLogger("pygls.protocol.json_rpc").addFilter(AnsweredElsewhere())


def serve_stdio(server: Any, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """``LanguageServer.start_io`` with this module's message loop; returns the exit code."""
    server._stop_event = stop = threading.Event()
    scheduler = getattr(server, "scheduler", None)  # tfphi's server: background analysis gives way to the client
    stream, output = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
    on_arrival = scheduler.note_arrival if scheduler else None
    fd = LoopReader.usable(stream, output)
    reader: Any
    if fd is not None:
        reader = LoopReader(fd, on_arrival)
    else:  # a reader thread, which must take the interpreter lock to note a message
        if sys.getswitchinterval() > READER_SWITCH_INTERVAL:
            sys.setswitchinterval(READER_SWITCH_INTERVAL)
        reader = BufferedReader(stream, server.thread_pool, on_arrival)
    server.protocol.set_writer(StdoutWriter(output))

    def report(message: str) -> None:
        logger.warning("%s", message)
        log_to_client(server, message, types.MessageType.Warning)

    code = 0
    try:
        asyncio.run(read_messages(stop, reader, server.protocol, report, scheduler.message_handled if scheduler else lambda: None))
    except BrokenPipeError:
        logger.error("the connection to the client is lost; shutting down")
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:  # ``exit``: 0 after ``shutdown``, 1 without (LSP)
        code = exc.code if isinstance(exc.code, int) else 0
    finally:
        if isinstance(reader, LoopReader):
            reader.stop()
        server.shutdown()
    return code
