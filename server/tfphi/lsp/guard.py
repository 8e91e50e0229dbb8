"""Guarding handlers: one feature's bug must never take the server down.

``guarded(server, default)`` wraps a handler: an unexpected exception is logged (server log
and ``window/logMessage``) and the request is answered with ``default`` (null or an empty
list); a ``BadRequest`` raised on purpose becomes a JSON-RPC InvalidParams error.
"""

from __future__ import annotations

import functools
import inspect
import logging
import traceback
from typing import Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

logger = logging.getLogger(__name__)


class BadRequest(Exception):
    """The client sent parameters the server cannot act on (answered with InvalidParams)."""


def log_to_client(server: Any, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
    """``window/logMessage``, never raising (the transport may already be gone)."""
    try:
        server.window_log_message(types.LogMessageParams(type=kind, message=message))
    except Exception:  # noqa: BLE001
        logger.debug("could not send a log message", exc_info=True)


def guarded(server: Any, default: Any = None, name: str | None = None) -> Callable[[Callable], Callable]:
    """Decorator: exceptions become a log message plus ``default`` (InvalidParams for ``BadRequest``)."""

    def decorate(fn: Callable) -> Callable:
        label = name or fn.__name__

        def failed(exc: BaseException) -> Any:
            if isinstance(exc, BadRequest):
                log_to_client(server, f"tfphi: {label}: {exc}", types.MessageType.Warning)
                raise JsonRpcInvalidParams(str(exc)) from exc
            if isinstance(exc, JsonRpcException):
                raise exc
            logger.exception("%s failed", label)
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-6))
            log_to_client(server, f"tfphi: {label} failed: {type(exc).__name__}: {exc}\n{tb}")
            return default() if callable(default) else default

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args, **kwargs):
                try:
                    return await fn(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001
                    return failed(exc)

            return async_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001
                return failed(exc)

        return wrapper

    return decorate
