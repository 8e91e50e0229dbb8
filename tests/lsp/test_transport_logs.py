"""pygls' tracebacks for a client's bad messages are dropped; a server bug keeps its traceback."""

from __future__ import annotations

import logging
import sys

from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcMethodNotFound

from tfphi.lsp.transport import AnsweredElsewhere


def _record(msg: str, error: BaseException | None) -> logging.LogRecord:
    exc_info = None
    if error is not None:
        try:
            raise error
        except BaseException:  # noqa: BLE001
            exc_info = sys.exc_info()
    return logging.LogRecord("pygls.protocol.json_rpc", logging.ERROR, __file__, 1, msg, ("7",), exc_info)


def test_only_deliberate_errors_and_unstructurable_messages_lose_their_traceback():
    keep = AnsweredElsewhere().filter
    assert [
        keep(_record("Unable to deserialize message\n%s", None)),
        keep(_record('Exception occurred for message "%s"', JsonRpcInvalidParams("unknown document x"))),
        keep(_record('Exception occurred for message "%s"', JsonRpcMethodNotFound("tfphi/nope"))),
        keep(_record('Exception occurred for message "%s"', JsonRpcInternalError("a bug"))),
        keep(_record('Exception occurred for message "%s"', ValueError("a bug"))),
        keep(_record("Ignoring notification for unknown method %r", None)),
    ] == [False, False, False, True, True, True]
