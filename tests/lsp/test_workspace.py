"""The live workspace: indexing with progress, settings, multi-root, files changed on disk, encodings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_helpers import EXAMPLE, position_of, range_of, start_session, stop_session, uri

CACHE_MAIN = "modules/cache/main.tf"
NODE_TYPE_UNIVERSE = {"fields": {"aws_elasticache_replication_group.node_type": {"universe": ["cache.t4g.small", "cache.r6g.large"]}}}


async def test_indexing_reports_work_done_progress(workspace: Path):
    session = await start_session([workspace])
    try:
        await session.wait_indexed()
        [(token, values)] = list(session.client.progress_reports.items())
        assert isinstance(values[0], types.WorkDoneProgressBegin) and "indexing" in values[0].title
        assert isinstance(values[-1], types.WorkDoneProgressEnd)
        assert any(isinstance(v, types.WorkDoneProgressReport) for v in values)
        # diagnostics of files nobody opened arrive after indexing
        await session.wait_diagnostics(uri(workspace / CACHE_MAIN), "unbounded-field")
    finally:
        await stop_session(session)


async def test_no_progress_when_the_client_does_not_support_it(workspace: Path):
    session = await start_session([workspace], progress=False)
    try:
        await session.wait_diagnostics(uri(workspace / CACHE_MAIN), "unbounded-field")
        assert not session.client.progress_reports
    finally:
        await stop_session(session)


@pytest.mark.parametrize("pull", [True, False], ids=["pull", "push"])
async def test_configuration_change_sets_a_universe(workspace: Path, pull: bool):
    session = await start_session([workspace], configuration=pull)
    try:
        await session.wait_indexed()
        cache = uri(workspace / CACHE_MAIN)
        await session.wait_diagnostics(cache, "unbounded-field")
        if pull:
            session.client.set_configuration(NODE_TYPE_UNIVERSE, section="tfphi")
            session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
        else:
            session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
                settings={"tfphi": NODE_TYPE_UNIVERSE}))
        await session.wait_diagnostics(cache, "unbounded-field", present=False)
        # a workspace .tfphi.toml sits on top of the LSP settings: its entry replaces the setting's
        toml = workspace / ".tfphi.toml"
        toml.write_text('[fields."aws_elasticache_replication_group.node_type"]\nuniverse = []\n')
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri(toml), type=types.FileChangeType.Created)]))
        await session.wait_diagnostics(cache, "unbounded-field", present=True)
    finally:
        await stop_session(session)


async def test_settings_from_initialization_options(workspace: Path):
    session = await start_session([workspace], init_options=NODE_TYPE_UNIVERSE, configuration=False)
    try:
        await session.wait_indexed()
        cache = session.open(workspace / CACHE_MAIN)
        await session.wait_for(lambda: any(u == cache for u, _, _ in session.published), what="diagnostics of the open file")
        assert not session.diagnostics(cache, "unbounded-field")
        hover = await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=cache), position=session.pos(cache, "var.node_type", delta=4)))
        assert '"cache.t4g.small"' in hover.contents.value and '"cache.r6g.large"' in hover.contents.value
    finally:
        await stop_session(session)


async def test_invalid_settings_give_a_message_a_config_error_and_the_defaults(workspace: Path):
    session = await start_session([workspace], init_options={"limits": {"depth": "deep"}, "bogus": 1}, configuration=False)
    try:
        await session.wait_indexed()
        await session.wait_for(lambda: session.client.messages, what="window/showMessage")
        [message] = session.client.messages
        assert message.type == types.MessageType.Warning and "depth" in message.message
        diags = await session.wait_diagnostics(uri(workspace), "config-error")
        assert any("bogus" in d.message for d in diags) and any("depth" in d.message for d in diags)
        assert all(d.severity == types.DiagnosticSeverity.Error and d.source == "tfphi" for d in diags)
        # the defaults apply: the example's diagnostic is still there
        await session.wait_diagnostics(uri(workspace / CACHE_MAIN), "unbounded-field")
        # fixing the settings clears the config-error
        session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"tfphi": {}}))
        await session.wait_diagnostics(uri(workspace), "config-error", present=False)
    finally:
        await stop_session(session)


async def test_two_workspace_folders(tmp_path: Path):
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(EXAMPLE, first)
    shutil.copytree(EXAMPLE, second)
    session = await start_session([first, second])
    try:
        await session.wait_indexed()
        assert len(session.client.progress_reports) == 2
        await session.wait_diagnostics(uri(first / CACHE_MAIN), "unbounded-field")
        await session.wait_diagnostics(uri(second / CACHE_MAIN), "unbounded-field")
        # an edit in one folder leaves the other alone
        main = session.open(first / "main.tf")
        session.replace(main, "var.cache_node_type", '"cache.t4g.small"')
        await session.wait_diagnostics(uri(first / CACHE_MAIN), "unbounded-field", present=False)
        second_main = session.open(second / "main.tf")
        await session.wait_for(lambda: any(u == second_main for u, _, _ in session.published), what="second main")
        assert session.diagnostics(uri(second / CACHE_MAIN), "unbounded-field")
        # folders can come and go
        third = tmp_path / "third"
        shutil.copytree(EXAMPLE, third)
        session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(uri=uri(third), name="third")],
                                                    removed=[types.WorkspaceFolder(uri=uri(second), name="second")])))
        await session.wait_diagnostics(uri(third / CACHE_MAIN), "unbounded-field")
        await session.wait_diagnostics(uri(second / CACHE_MAIN), "unbounded-field", present=False)
    finally:
        await stop_session(session)


async def test_a_file_outside_every_folder_gets_a_folder_of_its_own(workspace: Path, tmp_path: Path):
    session = await start_session([workspace])
    try:
        await session.wait_indexed()
        loose = tmp_path / "loose"
        loose.mkdir()
        (loose / "variables.tf").write_text('variable "v" {\n  type = string\n}\n')
        doc = session.open(loose / "main.tf", 'output "o" {\n  value = var.v\n}\noutput "p" {\n  value = var.missing\n}\n')
        [diag] = await session.wait_diagnostics(doc, "undefined-reference")
        assert diag.range == range_of(session.texts[doc], "var.missing")
    finally:
        await stop_session(session)


async def test_watched_file_changed_on_disk(session, workspace: Path):
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in session.registrations)
    [registration] = [r for r in session.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    globs = {w["globPattern"] if isinstance(w, dict) else w.glob_pattern for w in
             (registration.register_options["watchers"] if isinstance(registration.register_options, dict)
              else registration.register_options.watchers)}
    assert globs == {"**/*.tf", "**/*.tf.json", "**/*.tofu", "**/*.tofu.json", "**/*.tfvars", "**/*.tfvars.json", "**/.tfphi.toml",
                     "**/*.hcl", "**/.terraform/modules/modules.json"}
    cache = uri(workspace / CACHE_MAIN)
    await session.wait_diagnostics(cache, "unbounded-field")
    variables = workspace / "variables.tf"
    variables.write_text(variables.read_text().replace(
        'description = "Set by the customer at deployment time."', 'default     = "cache.t4g.small"'))
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=uri(variables), type=types.FileChangeType.Changed)]))
    await session.wait_diagnostics(cache, "unbounded-field", present=False)
    # a new file: an undefined reference in it is reported
    extra = workspace / "extra.tf"
    extra.write_text('output "x" {\n  value = local.nowhere\n}\n')
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=uri(extra), type=types.FileChangeType.Created)]))
    await session.wait_diagnostics(uri(extra), "undefined-reference")
    extra.unlink()
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=uri(extra), type=types.FileChangeType.Deleted)]))
    await session.wait_diagnostics(uri(extra), "undefined-reference", present=False)


async def test_open_document_wins_over_disk(session, workspace: Path):
    cache = uri(workspace / CACHE_MAIN)
    await session.wait_diagnostics(cache, "unbounded-field")
    main_path = workspace / "main.tf"
    main = session.open(main_path)
    session.replace(main, "var.cache_node_type", '"cache.t4g.small"')
    await session.wait_diagnostics(cache, "unbounded-field", present=False)
    # the disk still says var.cache_node_type: a change event must not override the open text
    main_path.touch()
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=main, type=types.FileChangeType.Changed)]))
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=main), position=session.pos(main, "node_type ")))
    assert not session.diagnostics(cache, "unbounded-field")
    # closing it: the disk's text is back
    session.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=main)))
    await session.wait_diagnostics(cache, "unbounded-field", present=True)
    del hover


NON_ASCII = 'output "größe" {\r\n  value = "ünïcødé 🙂 𝄞" == "x" ? local.missing_one : local.missing_two\r\n}\r\n'


@pytest.mark.parametrize("utf8", [True, False], ids=["utf-8", "utf-16"])
async def test_position_encoding_crlf_and_non_ascii(workspace: Path, utf8: bool):
    session = await start_session([workspace], utf8=utf8)
    try:
        assert session.initialize_result.capabilities.position_encoding == ("utf-8" if utf8 else "utf-16")
        await session.wait_indexed()
        doc = session.open(workspace / "unicode.tf", NON_ASCII)
        diags = await session.wait_diagnostics(doc, "undefined-reference")
        assert [d.range for d in diags] == [range_of(session.texts[doc], "local.missing_one", session.encoding),
                                            range_of(session.texts[doc], "local.missing_two", session.encoding)]
        # incremental edits after multi-byte characters and across CRLF line ends
        session.replace(doc, "local.missing_one", '"🙂"')
        await session.wait_for(lambda: len(session.diagnostics(doc, "undefined-reference")) == 1, what="one left")
        [left] = session.diagnostics(doc, "undefined-reference")
        assert left.range == range_of(session.texts[doc], "local.missing_two", session.encoding)
        session.replace(doc, '\r\n  value = "ü', '\r\n\r\n  value = "ü')  # insert a CRLF line
        session.replace(doc, "local.missing_two", "local.missing_3")
        await session.wait_for(lambda: [d.range for d in session.diagnostics(doc, "undefined-reference")]
                               == [range_of(session.texts[doc], "local.missing_3", session.encoding)], what="moved range")
        hover = await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=doc), position=session.pos(doc, '"🙂"', delta=1)))
        assert hover is None or hover.range is None or hover.range.start.line == session.pos(doc, '"🙂"').line
    finally:
        await stop_session(session)


async def test_a_document_belongs_to_the_deepest_folder(workspace: Path):
    inner = workspace / "modules" / "cache"
    session = await start_session([workspace, inner])
    try:
        await session.wait_indexed()
        cache = session.open(inner / "main.tf")
        # in the inner folder the cache module is a root: its own variables block the traces
        def blocked_by():
            return sorted(tuple(d.data["variable"]) for d in session.diagnostics(cache, "unbounded-field"))

        await session.wait_for(lambda: blocked_by() == [("", "engine_version"), ("", "node_type")],
                               what="the inner folder's diagnostics")
        for diag in session.diagnostics(cache, "unbounded-field"):
            assert diag.related_information[0].location.uri == uri(inner / "variables.tf")
        await session.wait_indexed()
    finally:
        await stop_session(session)


async def test_a_request_during_the_first_index_does_not_hold_up_the_pulled_settings(workspace: Path):
    """The client's answer to ``workspace/configuration`` is never held behind a request that waits
    for the first index: indexing waits for that answer (it used to time out after 10 s, and the
    folder was indexed with the defaults instead of the client's settings)."""
    session = await start_session([workspace], client_settings={"tfphi": NODE_TYPE_UNIVERSE})
    try:
        cache = session.open(workspace / CACHE_MAIN)
        hover = await session.client.text_document_hover_async(types.HoverParams(  # sent before indexing ends
            text_document=types.TextDocumentIdentifier(uri=cache), position=session.pos(cache, "var.node_type", delta=4)))
        assert hover.contents.value.split("\n")[2] == "**bounded** · 2 values"  # the client's universe
        await session.wait_indexed()
        await session.wait_for(lambda: any(u == cache for u, _, _ in session.published), what="diagnostics of the open file")
        assert not session.diagnostics(cache, "unbounded-field")
    finally:
        await stop_session(session)
