"""Where a thread reads the client (not Linux, or stdin neither a pipe nor a socket: elsewhere the
loop reads it, tests/lsp/test_loop_reader.py), the stdio transport shortens CPython's switch
interval (``transport.READER_SWITCH_INTERVAL``): the thread must take the interpreter lock to tell
the background analysis that a message came, and with the default 5 ms a keystroke typed during
the first analysis at 1,000 modules waited 10.1 ms p50 (p99 46.1) before the reader saw it, 0.6
(p99 1.8) with 0.5 ms (bench/README.md, "Issue 23: the reader thread's wait for the interpreter
lock, session 12"), 0.0-0.2 with 0.1 ms (docs/performance.md, "Leaf keystrokes during the first
analysis, session 13"). What is asserted here is the setting of the real ``serve_stdio`` with the
real server (a stream without a descriptor: the thread reads it); the latency itself is the
bench's to measure, not a timed test's."""

from __future__ import annotations

import io
import sys

from tfphi.lsp.main import create_server
from tfphi.lsp.transport import READER_SWITCH_INTERVAL, serve_stdio


def test_serving_stdio_hands_the_lock_to_the_reader_within_a_tenth_of_a_millisecond():
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # CPython's default
    try:
        code = serve_stdio(create_server(), stdin=io.BytesIO(b""), stdout=io.BytesIO())
        # (CPython keeps the interval in whole microseconds: 0.0001 reads back as 9.999999999999999e-05)
        assert (code, round(sys.getswitchinterval() * 1e6)) == (0, round(READER_SWITCH_INTERVAL * 1e6))
        assert READER_SWITCH_INTERVAL == 0.0001
    finally:
        sys.setswitchinterval(before)


def test_a_shorter_interval_already_set_is_kept():
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.00005)
    short = sys.getswitchinterval()  # (CPython keeps it in whole microseconds, rounded down)
    try:
        serve_stdio(create_server(), stdin=io.BytesIO(b""), stdout=io.BytesIO())
        assert sys.getswitchinterval() == short
    finally:
        sys.setswitchinterval(before)
