"""The language server put together: every handler registered, run over stdio or TCP.

Above ``server.py`` and ``handlers/`` (the handlers read the server's settings section and
encoding choice), so neither imports the other's assembly.
"""

from __future__ import annotations

import logging
import sys

from ..evaluate.functions import import_deferred
from ..trace import strategies  # noqa: F401  (see import_analysis_modules)
from .collector import QuietCollector
from .memory_sampler import server_sizes, start_from_environment
from .handlers import register_all
from .server import TfphiServer
from .transport import quiet_pygls_logs, serve_stdio  # pygls' framing, made to survive bad input


def create_server() -> TfphiServer:
    """A server with every handler registered."""
    server = TfphiServer()
    register_all(server)
    return server


def import_analysis_modules() -> None:
    """Imports the modules the analysis imports on first use, before the server reads a message.

    The tracer reaches its function strategies (``trace.strategies``, the function library) only
    when it first traces a call, so that a plain ``tfphi check`` starts fast; this module
    imports them at its top instead, because in the server their first use came in the middle
    of the first analysis (0.1-0.2 s with PyYAML, in one step no client message could preempt:
    tests/lsp/test_scheduler.py checks that the first analysis of the bench's workspace imports
    nothing more). What remains are the standard modules ``evaluate.functions`` defers until a
    function needs them.
    """
    import_deferred()


def run_server(tcp: str | None = None) -> int:
    """Runs the language server over stdio, or over TCP when ``tcp`` is ``HOST:PORT``."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="tfphi: %(levelname)s %(name)s: %(message)s")
    quiet_pygls_logs()
    import_analysis_modules()
    server = create_server()
    server.scheduler.collect_when_quiet(QuietCollector())  # (not in-process tests: it changes the collector's thresholds)
    start_from_environment(lambda: server_sizes(server))  # TFPHI_MEMORY_SAMPLE=SECONDS: a debugging aid, off by default
    if tcp:
        host, sep, port = tcp.rpartition(":")
        if not sep or not port.isdigit():
            print(f"tfphi: error: --tcp expects HOST:PORT, got {tcp!r}", file=sys.stderr)
            return 2
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        return serve_stdio(server)
    return 0
