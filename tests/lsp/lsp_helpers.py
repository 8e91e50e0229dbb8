"""End-to-end helpers (imported by the tests and conftest): the real server started as a user would (``python -m tfphi serve``), pytest-lsp as the client.

Positions in tests come from cursor markers (a substring of the fixture text), never from
hard-coded line/character numbers; ``position_of`` converts independently of tfphi's own
line index, in the encoding the server negotiated.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from pygls.protocol import default_converter
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vendor-stack"
SERVER_CMD = [sys.executable, "-m", "tfphi", "serve"]
TIMEOUT = 30.0


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "server"), env.get("PYTHONPATH")]))
    return env


def uri(path: Path) -> str:
    return from_fs_path(str(path))


def position_of(text: str, marker: str, encoding: str = "utf-16", occurrence: int = 0, delta: int = 0) -> types.Position:
    """The position just before ``marker`` (plus ``delta`` characters), counted in ``encoding`` code units."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(marker, index + 1)
    index += delta
    before = text[:index]
    line = before.count("\n")
    column_text = before[before.rfind("\n") + 1 :]
    if encoding == "utf-8":
        column = len(column_text.encode("utf-8"))
    elif encoding == "utf-32":
        column = len(column_text)
    else:
        column = len(column_text.encode("utf-16-le")) // 2
    return types.Position(line=line, character=column)


def range_of(text: str, marker: str, encoding: str = "utf-16", occurrence: int = 0) -> types.Range:
    return types.Range(
        start=position_of(text, marker, encoding, occurrence),
        end=position_of(text, marker, encoding, occurrence, delta=len(marker)),
    )


def offset_of_position(text: str, pos: types.Position, encoding: str = "utf-16") -> int:
    """Character index in ``text`` of an LSP position (the inverse of ``position_of``)."""
    lines = text.split("\n")
    index = sum(len(line) + 1 for line in lines[: pos.line])
    line = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return index + i
        units += len(ch.encode("utf-8")) if encoding == "utf-8" else (2 if ord(ch) > 0xFFFF else 1) if encoding == "utf-16" else 1
    return index + len(line)


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> str:
    """Applies LSP text edits to ``text`` as a client would (from the last to the first)."""
    spans = [(offset_of_position(text, e.range.start, encoding), offset_of_position(text, e.range.end, encoding), e.new_text)
             for e in edits]
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def capabilities(*, utf8: bool = False, document_changes: bool = True, configuration: bool = True,
                 dynamic_watch: bool = True, progress: bool = True) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16] if utf8 else [types.PositionEncodingKind.Utf16]
        ),
        window=types.WindowClientCapabilities(work_done_progress=progress),
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            workspace_folders=True,
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=dynamic_watch),
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=document_changes),
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(dynamic_registration=False),
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True, version_support=True),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=[types.CodeActionKind.QuickFix])
                ),
                data_support=True,
            ),
            inlay_hint=types.InlayHintClientCapabilities(),
            code_lens=types.CodeLensClientCapabilities(),
            definition=types.DefinitionClientCapabilities(link_support=False),
            references=types.ReferenceClientCapabilities(),
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
        ),
    )


# The mark of a test that uses the module's ``shared_session`` (tests/lsp/conftest.py): it runs in
# the module's event loop, where that session's client lives.
SHARED = pytest.mark.asyncio(loop_scope="module")


class Session:
    """A running server, its client, and helpers to drive it."""

    def __init__(self, client: LanguageClient, encoding: str):
        self.client = client
        self.encoding = encoding
        self.registrations: list[types.Registration] = []
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.published: list[tuple[str, int | None, list[types.Diagnostic]]] = []
        self.shared = False  # one server for several read-only tests (tests/lsp/conftest.py)

    # documents
    def open(self, path: Path, text: str | None = None) -> str:
        text = path.read_text(encoding="utf-8") if text is None else text
        u = uri(path)
        if self.shared and self.texts.get(u) == text and self.versions.get(u) == 1:
            return u  # an earlier test of the shared session opened it, unchanged
        self.texts[u] = text
        self.versions[u] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=u, language_id="terraform", version=1, text=text)))
        return u

    def change(self, u: str, rng: types.Range | None, new_text: str, version: int | None = None) -> int:
        """Sends one incremental change (a full replacement when ``rng`` is None) and mirrors it locally."""
        old = self.texts[u]
        if rng is None:
            self.texts[u] = new_text
            change: Any = types.TextDocumentContentChangeWholeDocument(text=new_text)
        else:
            self.texts[u] = apply_edits(old, [types.TextEdit(range=rng, new_text=new_text)], self.encoding)
            change = types.TextDocumentContentChangePartial(range=rng, text=new_text)
        self.versions[u] = version if version is not None else self.versions[u] + 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=u, version=self.versions[u]),
            content_changes=[change]))
        return self.versions[u]

    def replace(self, u: str, old: str, new: str, occurrence: int = 0) -> int:
        return self.change(u, range_of(self.texts[u], old, self.encoding, occurrence), new)

    def pos(self, u: str, marker: str, delta: int = 0, occurrence: int = 0) -> types.Position:
        return position_of(self.texts[u], marker, self.encoding, occurrence, delta)

    # diagnostics
    def diagnostics(self, u: str, code: str | None = None) -> list[types.Diagnostic]:
        items = list(self.client.diagnostics.get(u, []))
        return [d for d in items if code is None or d.code == code]

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = TIMEOUT, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.02)

    async def wait_diagnostics(self, u: str, code: str, present: bool = True, timeout: float = TIMEOUT) -> list[types.Diagnostic]:
        await self.wait_for(lambda: bool(self.diagnostics(u, code)) == present, timeout,
                            f"{code} {'to appear' if present else 'to disappear'} on {u}")
        return self.diagnostics(u, code)

    async def wait_indexed(self, timeout: float = TIMEOUT) -> None:
        """Every work-done progress that began has ended."""
        def done() -> bool:
            reports = self.client.progress_reports
            return bool(reports) and all(any(isinstance(v, types.WorkDoneProgressEnd) for v in values)
                                         for values in reports.values())
        await self.wait_for(done, timeout, "indexing to end")


async def start_session(folders: list[Path], *, init_options: Any = None, utf8: bool = False,
                        client_settings: dict | None = None, command: list[str] | None = None, **caps: Any) -> Session:
    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {k: v for k, v in DEFAULT_CLIENT_FEATURES.items()
                                   if k != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS})
    if client_settings is not None:
        for key, value in client_settings.items():
            client.set_configuration(value, section=key)
    session = Session(client, "utf-8" if utf8 else "utf-16")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        session.published.append((params.uri, params.version, list(params.diagnostics)))

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        session.registrations.extend(params.registrations)

    await client.start_io(*(command or SERVER_CMD), env=server_env())
    result = await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(utf8=utf8, **caps),
        root_uri=uri(folders[0]),
        workspace_folders=[types.WorkspaceFolder(uri=uri(f), name=f.name) for f in folders],
        initialization_options=init_options,
    ))
    session.initialize_result = result
    return session


async def stop_session(session: Session) -> None:
    try:
        await asyncio.wait_for(session.client.shutdown_session(), timeout=10)
    finally:
        await session.client.stop()


async def hover_at(session: Session, u: str, marker: str, delta: int = 1) -> str:
    """The hover's text at ``marker`` (plus ``delta`` characters) of document ``u``; asserts there is one."""
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=u), position=session.pos(u, marker, delta=delta)))
    assert hover is not None, f"no hover at {marker}"
    return hover.contents.value
