"""The real server, counting the builds done while a request is handled (tests only).

    python tests/lsp/counting_server.py

Wraps ``LiveWorkspace.flush`` (feeding the documents' changes to the hosts) and
``AnalysisHost.snapshot`` when it builds (a revision no snapshot was taken of): each call made
while the protocol handles a request message (deciding whether to hold it, or running its
handler) counts. ``tfphiTest/requestBuilds`` answers the count, ``tfphiTest/focusAnswers``
the requests answered from a focus, ``tfphiTest/inFlight`` the sizes of the protocol's maps of
messages in flight (pygls' handler futures and the result types of the server's own requests);
then serves over stdio exactly as ``tfphi serve`` does. Requests read snapshots
(ARCHITECTURE.md): the count stays 0.
"""

from __future__ import annotations

import sys

from pygls.protocol.json_rpc import JsonRPCProtocol, RPCRequest

import tfphi.lsp.main as main_module
import tfphi.lsp.server as server_module
from tfphi.analysis import AnalysisHost
from tfphi.lsp.workspace import LiveWorkspace

REQUEST_BUILDS = "tfphiTest/requestBuilds"
FOCUS_ANSWERS = "tfphiTest/focusAnswers"  # requests answered from a focus snapshot (lsp/focus.py)
IN_FLIGHT = "tfphiTest/inFlight"  # {"handlers": n, "result_types": n}: what the protocol keeps per message
state = {"in_request": 0, "builds": 0}


def counting(fn, builds):
    def wrapper(self, *args, **kwargs):
        if state["in_request"] and builds(self):
            state["builds"] += 1
        return fn(self, *args, **kwargs)

    return wrapper


def in_request(fn, is_request=lambda *args: True):
    def wrapper(self, *args, **kwargs):
        counted = is_request(*args)
        state["in_request"] += counted
        try:
            return fn(self, *args, **kwargs)
        finally:
            state["in_request"] -= counted

    return wrapper


def main() -> int:
    LiveWorkspace.flush = counting(LiveWorkspace.flush, lambda ws: True)
    AnalysisHost.snapshot = counting(AnalysisHost.snapshot,
                                     lambda host: host._latest is None or host._latest.revision != host.revision)
    JsonRPCProtocol._handle_request = in_request(JsonRPCProtocol._handle_request)
    protocol = server_module.TfphiProtocol
    protocol.handle_message = in_request(protocol.handle_message, lambda message: isinstance(message, RPCRequest))
    create = main_module.create_server

    def create_counting_server():
        server = create()

        @server.feature(REQUEST_BUILDS)
        def request_builds(params) -> int:
            return state["builds"]

        @server.feature(FOCUS_ANSWERS)
        def focus_answers(params) -> int:
            return server.scheduler.board.focus_answers

        @server.feature(IN_FLIGHT)
        def in_flight(params) -> dict:
            protocol = server.protocol
            return {"handlers": len(protocol._request_futures), "result_types": len(protocol._result_types)}

        return server

    main_module.create_server = create_counting_server
    return main_module.run_server()


if __name__ == "__main__":
    sys.exit(main())
