"""Installed registry modules through the real server (issue 24, defects 1 and 2, the editor half).

The root of ``tests/workspace/repos/registry-installed`` after ``terraform init``: the
diagnostics about the installed modules' fields are published on the root's ``main.tf`` (the
argument that decides each field, else the call's label), with the installed file as related
information; no file under ``.terraform`` gets any; a hover in an installed file answers
(read only). After a partial init the nested call is ``module-not-installed`` on the root's call.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from lsprotocol import types

from lsp_helpers import start_session, stop_session, uri
from snapshots import check_snapshot
from test_layouts import codes, hover_at

REPOS = Path(__file__).resolve().parents[1] / "workspace" / "repos"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def copy_repo(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name.replace("/", "-")
    shutil.copytree(REPOS / name, target)
    return target


async def test_installed_module_fields_are_reported_in_the_root(tmp_path: Path):
    root = copy_repo("registry-installed", tmp_path)
    session = await start_session([root])
    try:
        await session.wait_indexed()
        main = uri(root / "main.tf")
        await session.wait_for(lambda: len(session.diagnostics(main)) == 3, what="three diagnostics on main.tf")
        assert codes(session) == {main: ["unbounded-field", "unbounded-field", "unsupported-value"]}
        by_line = {d.range.start.line + 1: d for d in session.diagnostics(main)}
        engine_version = by_line[9]
        assert (engine_version.range.start.character, engine_version.range.end.character) == (19, 33)  # var.pg_version
        assert engine_version.message.startswith(
            "can't determine the value of module.db.module.db_instance.aws_db_instance.this.engine_version "
            "(set in the installed module at .terraform/modules/db/modules/db_instance/main.tf:6")
        related = [(r.location.uri, r.location.range.start.line + 1, r.message) for r in engine_version.related_information]
        assert related == [
            (uri(root / ".terraform/modules/db/modules/db_instance/main.tf"), 6,
             "aws_db_instance.this.engine_version is set here, in the installed module .terraform/modules/db/modules/db_instance"),
            (uri(root / "variables.tf"), 1, "var.pg_version is declared here"),
        ]
        # The installed module's file answers hovers (read only): the field, traced from the root.
        installed = session.open(root / ".terraform/modules/db/modules/db_instance/main.tf")
        text = await hover_at(session, installed, "engine_version =", delta=2)
        assert text.startswith("**`module.db.module.db_instance.aws_db_instance.this.engine_version`** (field)")
        assert "var.pg_version" in text and "no default value" in text
        assert codes(session) == {main: ["unbounded-field", "unbounded-field", "unsupported-value"]}
    finally:
        await stop_session(session)


async def test_a_partial_init_reports_the_nested_call_in_the_root(tmp_path: Path):
    root = copy_repo("registry-partial", tmp_path)
    session = await start_session([root])
    try:
        await session.wait_indexed()
        main = uri(root / "main.tf")
        diags = await session.wait_diagnostics(main, "module-not-installed")
        assert [(d.range.start.line + 1, d.severity) for d in diags] == [(3, types.DiagnosticSeverity.Information)]
        assert diags[0].message.startswith("module.db.module.db_instance (source './modules/db_instance', called at "
                                           ".terraform/modules/db/main.tf:1) is not installed")
    finally:
        await stop_session(session)


async def test_hover_shows_the_value_each_deployment_gives(tmp_path: Path):
    """Issue 24 defect 8, through the server: the whole hover Markdown of a GKE cluster's release
    channel, a default the env/ variable files override (one with a value outside the universe)."""
    root = copy_repo("clouds/gke", tmp_path)
    session = await start_session([root])
    try:
        await session.wait_indexed()
        main = session.open(root / "main.tf")
        text = await hover_at(session, main, "channel =", delta=2)
        check_snapshot(SNAPSHOTS / "hover_deployments_gke_release_channel.md", text)
    finally:
        await stop_session(session)


async def test_a_changed_installed_module_republishes_the_root(tmp_path: Path):
    """`terraform init -upgrade` rewrote an installed module's file on disk: the diagnostics about
    it, published on the root's file, follow (the root module itself did not change)."""
    root = copy_repo("registry-installed", tmp_path)
    session = await start_session([root])
    try:
        await session.wait_indexed()
        main = uri(root / "main.tf")
        await session.wait_for(lambda: len(session.diagnostics(main)) == 3, what="three diagnostics on main.tf")
        installed = root / ".terraform/modules/cache/main.tf"
        installed.write_text(installed.read_text().replace("aws_elasticache_parameter_group.default.family", '"7.1"'))
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(installed), type=types.FileChangeType.Changed)]))
        await session.wait_for(lambda: len(session.diagnostics(main)) == 2, what="the cache's engine_version diagnostic to go")
        assert sorted(str(d.code) for d in session.diagnostics(main)) == ["unbounded-field", "unsupported-value"]
    finally:
        await stop_session(session)
