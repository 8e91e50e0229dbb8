"""The tfphi language server: pygls wiring, one thin handler per LSP method (see ``handlers/``).

State lives in three places, each with one job:
- ``LiveWorkspace`` (``workspace.py``): folders, their ``AnalysisHost``, and the open documents;
- ``DiagnosticPublisher`` (``publish.py``): what was last published per URI;
- ``AnalysisScheduler`` (``scheduler.py``): when analysis runs (coalescing, cancellation, indexing).

The server never executes anything, never touches the network and never writes files.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import itertools
import logging
import os
from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path

from .. import __version__
from ..analysis import Snapshot
from ..config import Config
from ..config_schema import parse_lsp_settings
from ..records import record
from ..text import Encoding, LineIndex
from .convert import offset
from .guard import BadRequest, log_to_client
from .publish import DiagnosticPublisher
from .scheduler import AnalysisScheduler, Progress
from .snapshots import NOWHERE
from .workspace import Folder, LiveWorkspace

logger = logging.getLogger(__name__)

SETTINGS_SECTION = "tfphi"
# Messages never held back: the lifecycle (indexing starts at ``initialized``) and the document
# store's own echo (it does not read the analysis).
NEVER_HELD = frozenset({types.INITIALIZE, types.INITIALIZED, types.SHUTDOWN, types.EXIT, "tfphi/documentText"})
MAX_HOLD_SECONDS = 300.0  # a safety net: a snapshot that never comes must not silence the server
WATCHED_GLOBS = ("**/*.tf", "**/*.tf.json", "**/*.tofu", "**/*.tofu.json", "**/*.tfvars", "**/*.tfvars.json", "**/.tfphi.toml",
                 "**/*.hcl", "**/.terraform/modules/modules.json")


def choose_encoding(capabilities: types.ClientCapabilities | None) -> Encoding:
    """UTF-8 when the client offers it (no conversion for us), else the LSP default UTF-16."""
    general = capabilities.general if capabilities else None
    offered = (general.position_encodings if general else None) or []
    if types.PositionEncodingKind.Utf8 in offered or "utf-8" in offered:
        return "utf-8"
    return "utf-16"


class TfphiProtocol(LanguageServerProtocol):
    """pygls' protocol, with three changes.

    - The documents live in tfphi's own store: pygls' copy is not kept (it would apply
      every change a second time, and it raises on a change to an unopened document).
    - The position encoding is tfphi's choice (UTF-8 whenever offered).
    - A request after ``shutdown`` is answered with InvalidRequest instead of being dropped,
      and one before ``initialize`` with ServerNotInitialized (LSP: notifications then are dropped).
    - A request is held, with every message after it (so edits and positions keep their order),
      until the snapshot it reads is complete and holds its document's current text
      (``SnapshotBoard``: the scheduler offers it; the request never builds it): no answer ever
      comes from a half-built index, nor from a text older than the request.
    - The map of handlers in flight (``_request_futures``) holds only those still running.
    """

    _seen_initialize = False
    _held: list | None = None
    _release_task: asyncio.Task | None = None

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        result.capabilities.position_encoding = choose_encoding(params.capabilities)
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    def send_json(self, body: str) -> None:
        """Writes one message already serialized (what pygls' ``_send_data`` writes after its
        ``json.dumps``): the diagnostics publisher assembles its notifications from the JSON it
        kept of each diagnostic (``DiagnosticPublisher.notification_json``)."""
        if self.writer is None:
            logger.error("Unable to send data, no available transport!")
            return
        try:
            data = body.encode(self.CHARSET)
            if self._include_headers:  # (the length in bytes: ``json.dumps`` writes ASCII, but nothing here relies on it)
                data = f"Content-Length: {len(data)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n".encode() + data
            written = self.writer.write(data)
            if inspect.isawaitable(written):
                asyncio.ensure_future(written)
        except BrokenPipeError:
            logger.exception("Error sending data. BrokenPipeError", exc_info=True)
            raise
        except Exception as error:  # noqa: BLE001 - pygls' own handling of a failed write
            logger.exception("Error sending data", exc_info=True)
            self._server._report_server_error(error, JsonRpcInternalError)

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        """pygls' own, and the handler's future leaves the map of handlers in flight once it is done.

        pygls records the future of every generator handler (its built-in didOpen, didChange,
        didClose, initialized, ...), and of every coroutine or thread a generator yields to, under
        the message's id or a fresh uuid, and removes it only when it answers a request: each
        notification left one behind for good, a Future with its Condition (1.9 KiB). A 30-minute
        soak of 170,444 edits kept 170,444 of them (bench/README.md, "Issue 23: soak, session 10").
        """
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(functools.partial(self._handler_done, msg_id))

    def _handler_done(self, msg_id: Any, future: Any) -> None:
        # A cancelled one stays: pygls' shutdown cancels the futures while it walks the map (a
        # future's callbacks run inside ``cancel``), and the map goes with the server.
        if not future.cancelled() and self._request_futures.get(msg_id) is future:  # (not a later message that reused the id)
            self._request_futures.pop(msg_id, None)

    def handle_message(self, message):
        method = getattr(message, "method", None)
        if method == types.INITIALIZE:
            self._seen_initialize = True
        elif not self._seen_initialize and method != types.EXIT:
            if isinstance(message, RPCRequest):
                error = JsonRpcServerNotInitialized(f"{method} before initialize")
                self._send_response(message.id, None, error.to_response_error())
            return None
        if self._shutdown and isinstance(message, RPCRequest) and getattr(message, "method", None) != types.EXIT:
            error = JsonRpcInvalidRequest(f"the server is shutting down; {message.method} was not run")
            self._send_response(message.id, None, error.to_response_error())
            return
        if self._must_hold(message, method):
            self._hold(message)
            return None
        return super().handle_message(message)

    def _must_hold(self, message: Any, method: str | None) -> bool:
        if method in NEVER_HELD:
            return False
        if method is None:
            # The client's answer to one of the server's own requests (workspace/configuration,
            # client/registerCapability): indexing may be waiting for it, so holding it until
            # indexing ends would stall both until the server's request times out.
            return False
        if self._held:
            return True  # keep the order of everything after a held request
        if not isinstance(message, RPCRequest):
            return False
        server = self._server
        return isinstance(server, TfphiServer) and server.scheduler.board.ready(request_uri(message)) is None

    def _hold(self, message: Any) -> None:
        if self._held is None:
            self._held = []
        self._held.append(message)
        if self._release_task is None or self._release_task.done():
            self._release_task = asyncio.get_running_loop().create_task(self._release_when_ready())

    async def _release_when_ready(self) -> None:
        """Handles the held messages in order, each request once its snapshot is there."""
        board = self._server.scheduler.board
        while self._held:
            message = self._held[0]
            if isinstance(message, RPCRequest) and not self._server.scheduler.stopped:
                uri = request_uri(message)
                deadline = asyncio.get_running_loop().time() + MAX_HOLD_SECONDS
                try:
                    # Again after each wake-up: a message handled meanwhile (the settings a
                    # didChangeConfiguration pulled) may have made the offered snapshot old.
                    while board.ready(uri) is None:
                        await asyncio.wait_for(board.wait(uri), deadline - asyncio.get_running_loop().time())
                except asyncio.TimeoutError:
                    logger.warning("no complete snapshot for %s after %s s; answering %s anyway", uri, MAX_HOLD_SECONDS,
                                   message.method)
            self._held.pop(0)
            try:
                super().handle_message(message)
            except Exception:  # noqa: BLE001 - one message must not lose the others
                logger.exception("a held message failed")
        self._held = None


def request_uri(message: Any) -> str | None:
    """The document a request is about: ``textDocument.uri``, or the ``uri`` of a command's argument
    (``workspace/executeCommand``); None for a request about no document."""
    params = getattr(message, "params", None)

    def get(obj: Any, name: str) -> Any:
        return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)

    document = get(params, "textDocument") or get(params, "text_document")
    uri = get(document, "uri") if document is not None else None
    if uri is None:
        arguments = get(params, "arguments")
        if isinstance(arguments, (list, tuple)) and arguments:
            uri = get(arguments[0], "uri")
    return uri if isinstance(uri, str) else None


@record(frozen=True)
class DocContext:
    """What a request about one document needs: where it is, the snapshot it reads and its line index."""

    uri: str
    folder: Folder
    path: str  # relative to the folder
    index: LineIndex | None
    encoding: Encoding
    snapshot: Snapshot

    @property
    def analysis(self) -> Snapshot:
        return self.snapshot

    def offset(self, pos: types.Position) -> int:
        return offset(self.index, pos, self.encoding)


class TfphiServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tfphi", __version__, protocol_cls=TfphiProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.ws = LiveWorkspace()
        self.publisher = DiagnosticPublisher(self.ws, self._send_diagnostics)
        # The transport calls ``scheduler.note_arrival`` as client bytes arrive (lsp/transport.py):
        # background tracing gives way at once.
        self.scheduler = AnalysisScheduler(self.ws, self.publisher, self._new_progress, self.log_error, self.watch_outside)
        self._watched_outside: set[str] = set()
        self.init_settings: Any = None
        self.settings_problems: list[str] = []
        self._progress_ids = itertools.count(1)
        self._registration_ids = itertools.count(1)
        self.shutting_down = False

    # ---- client capabilities ---------------------------------------------------------------

    def _capability(self, dotted: str) -> Any:
        node: Any = self.protocol.client_capabilities if hasattr(self.protocol, "client_capabilities") else None
        for part in dotted.split("."):
            if node is None:
                return None
            node = getattr(node, part, None)
        return node

    @property
    def supports_progress(self) -> bool:
        return bool(self._capability("window.work_done_progress"))

    @property
    def supports_configuration(self) -> bool:
        return bool(self._capability("workspace.configuration"))

    @property
    def supports_document_changes(self) -> bool:
        return bool(self._capability("workspace.workspace_edit.document_changes"))

    @property
    def supports_watch_registration(self) -> bool:
        return bool(self._capability("workspace.did_change_watched_files.dynamic_registration"))

    # ---- messages to the client ------------------------------------------------------------

    def _send_diagnostics(self, uri: str, version: int | None, items: list[types.Diagnostic]) -> None:
        self.protocol.send_json(self.publisher.notification_json(uri, version, items, self.protocol._converter.unstructure))

    def log_error(self, message: str) -> None:
        log_to_client(self, message)

    def log_warning(self, message: str) -> None:
        logger.warning("%s", message)
        log_to_client(self, message, types.MessageType.Warning)

    def show_warning(self, message: str) -> None:
        try:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        except Exception:  # noqa: BLE001
            logger.debug("could not show a message", exc_info=True)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls' out-of-band errors go to the log, not to pop-ups."""
        logger.error("%s: %s", getattr(source, "__name__", source), error)
        log_to_client(self, f"tfphi: internal error ({getattr(source, '__name__', source)}): {error}")

    async def _new_progress(self) -> Progress:
        if not self.supports_progress:
            return Progress()
        token = f"tfphi/index/{next(self._progress_ids)}"
        try:
            await asyncio.wait_for(self.work_done_progress.create_async(token), timeout=10)
        except Exception:  # noqa: BLE001 - the client refused: index without progress
            logger.info("work-done progress refused", exc_info=True)
            return Progress()
        return _WorkDoneProgress(self, token)

    # ---- settings ----------------------------------------------------------------------------

    def apply_settings(self, raw: Any) -> None:
        """Decodes the ``tfphi`` settings; invalid entries are reported (message + config-error) and defaulted."""
        config, problems = parse_lsp_settings(raw, Config())
        self.settings_problems = [p.message for p in problems]
        self.ws.set_lsp_config(config)
        for folder in self.ws.folders:
            folder.settings_problems = list(self.settings_problems)
        if problems:
            shown = "; ".join(self.settings_problems[:3]) + ("; ..." if len(problems) > 3 else "")
            self.show_warning(f"tfphi: invalid settings, using the defaults for them: {shown}")

    async def pull_settings(self) -> Any:
        """The ``tfphi`` section via ``workspace/configuration``; None when the client has none."""
        try:
            result = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SETTINGS_SECTION)])
                ),
                timeout=10,
            )
        except Exception:  # noqa: BLE001
            logger.warning("workspace/configuration failed", exc_info=True)
            return None
        return result[0] if isinstance(result, (list, tuple)) and result else None

    async def register_watchers(self) -> None:
        if not self.supports_watch_registration:
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED_GLOBS]
        )
        registration = types.Registration(
            id=f"tfphi/watch/{next(self._registration_ids)}",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            await asyncio.wait_for(
                self.client_register_capability_async(types.RegistrationParams(registrations=[registration])), timeout=10
            )
        except Exception as exc:  # noqa: BLE001
            self.log_warning(f"tfphi: could not register file watchers ({exc}); files changed on disk are not followed")

    def watch_outside(self) -> None:
        """Asks the client to watch the module directories outside the folders that their sources reach."""
        new = sorted(set(self.ws.outside_dirs()) - self._watched_outside)
        if not new or not self.supports_watch_registration:
            return
        self._watched_outside.update(new)
        relative = bool(self._capability("workspace.did_change_watched_files.relative_pattern_support"))
        watchers = [
            types.FileSystemWatcher(
                glob_pattern=types.RelativePattern(base_uri=from_fs_path(real) or real, pattern="*.tf") if relative
                else os.path.join(real, "*.tf").replace(os.sep, "/")
            )
            for real in new
        ]
        registration = types.Registration(
            id=f"tfphi/watch/{next(self._registration_ids)}",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        future = self.client_register_capability(types.RegistrationParams(registrations=[registration]))
        future.add_done_callback(_log_registration_failure)

    # ---- requests --------------------------------------------------------------------------

    def context(self, uri: str) -> DocContext | None:
        """The document a request is about, and the complete snapshot that holds its current text.

        The request only reads it: the scheduler fed the changes and took it (``SnapshotBoard``),
        and the protocol held the request until it was there. None when no folder holds the
        document, or (after MAX_HOLD_SECONDS) when no snapshot came.
        """
        found = self.scheduler.board.answer(uri)
        if found is None:
            logger.warning("no complete snapshot for %s: answering nothing", uri)
            return None
        if found is NOWHERE:
            if self.ws.documents.get(uri) is None and not uri.startswith("file:"):
                raise BadRequest(f"unknown document {uri}")
            return None
        folder, rel, snapshot = found
        return DocContext(uri, folder, rel, self.ws.line_index(folder, rel, snapshot), self.ws.encoding, snapshot)


def _log_registration_failure(future: Any) -> None:
    try:
        error = future.exception()
    except BaseException as exc:  # noqa: BLE001 - cancelled
        error = exc
    if error is not None:
        logger.warning("watching the modules outside the folders failed: %s", error)


class _WorkDoneProgress(Progress):
    def __init__(self, server: TfphiServer, token: str):
        self.server = server
        self.token = token
        self.begun = False

    async def begin(self, title: str, message: str | None = None) -> None:
        self.server.work_done_progress.begin(
            self.token, types.WorkDoneProgressBegin(title=title, message=message, percentage=0, cancellable=False)
        )
        self.begun = True

    def report(self, message: str, percentage: int) -> None:
        if self.begun:
            self.server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    def end(self, message: str) -> None:
        if self.begun:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.begun = False
