"""initialize, initialized, shutdown, configuration and workspace-folder changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..guard import guarded
from ..server import SETTINGS_SECTION, choose_encoding

if TYPE_CHECKING:
    from ..server import TfphiServer


def _unwrap(options: Any) -> Any:
    """initializationOptions may be the ``tfphi`` object itself or ``{"tfphi": {...}}``."""
    if isinstance(options, Mapping) and set(options) == {SETTINGS_SECTION}:
        return options[SETTINGS_SECTION]
    return options


def register(server: "TfphiServer") -> None:
    ws = server.ws

    @server.feature(types.INITIALIZE)
    @guarded(server)
    def initialize(params: types.InitializeParams) -> None:
        ws.documents.encoding = choose_encoding(params.capabilities)
        server.init_settings = _unwrap(params.initialization_options)
        folders = params.workspace_folders or []
        if folders:
            for folder in folders:
                ws.add_folder(folder.uri, folder.name)
        elif params.root_uri:
            ws.add_folder(params.root_uri)
        elif params.root_path:
            from pygls.uris import from_fs_path

            ws.add_folder(from_fs_path(params.root_path) or params.root_path)
        server.apply_settings(server.init_settings)

    @server.feature(types.INITIALIZED)
    @guarded(server)
    async def initialized(params: types.InitializedParams) -> None:
        if server.supports_configuration:
            pulled = await server.pull_settings()
            if pulled is not None:
                server.apply_settings(pulled)
        await server.register_watchers()
        for folder in ws.folders:
            server.scheduler.ensure_indexed(folder)

    @server.feature(types.SHUTDOWN)
    @guarded(server)
    def shutdown(params: Any) -> None:
        server.shutting_down = True
        server.scheduler.stopped = True

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded(server)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        raw: Any = None
        if server.supports_configuration:
            raw = await server.pull_settings()
        if raw is None:
            settings = params.settings
            raw = settings.get(SETTINGS_SECTION) if isinstance(settings, Mapping) and SETTINGS_SECTION in settings else None
            if raw is None:
                raw = server.init_settings
        server.apply_settings(raw)
        for folder in ws.folders:
            if not folder.indexed:
                server.scheduler.ensure_indexed(folder)
        server.scheduler.schedule()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @guarded(server)
    def did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        for removed in params.event.removed or []:
            folder = ws.remove_folder(removed.uri)
            if folder is not None:
                server.publisher.forget_folder(folder)
        for added in params.event.added or []:
            folder = ws.add_folder(added.uri, added.name)
            if folder is not None:
                folder.settings_problems = list(server.settings_problems)
                server.scheduler.ensure_indexed(folder)
        server.scheduler.schedule()
