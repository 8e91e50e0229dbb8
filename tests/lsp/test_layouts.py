"""Repositories laid out as Terraform runs them, through the real server (issue 11, points 5-6):

- a monorepo (``envs/prod`` and ``envs/dev`` calling ``../../modules/*``), the server opened at
  the repository root and at one environment's folder;
- a terraform-aws-modules repository (the module at the root, ``examples/complete`` calling
  ``../../``), opened at the repository root and at the example's folder.

Opened at one root's folder, modules outside it that its sources reach are analysed and
watched; their files get diagnostics only while open; opening one publishes no false errors
on any other file (defect 1, the editor half).
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_helpers import start_session, stop_session, uri
from test_snapshots import write

DB_MAIN = '''resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = var.instance_class
}

module "db_instance" {
  source = "./modules/db_instance"
  class  = var.instance_class
}
'''
DB_VARIABLES = '''variable "engine_version" {
  type = string
}

variable "instance_class" {
  type = string
}
'''
DB_INSTANCE = '''variable "class" {
  type = string
}

resource "aws_db_instance" "inner" {
  engine         = "postgres"
  engine_version = "16.1"
  instance_class = var.class
}
'''
ENV = '''variable "size" {
  type = string
}

module "db" {
  source         = "../../modules/db"
  engine_version = "{version}"
  instance_class = var.size
}
'''
MONOREPO = {
    "envs/prod/main.tf": ENV.replace("{version}", "15.4"),
    "envs/dev/main.tf": ENV.replace("{version}", "14.9"),
    "modules/db/main.tf": DB_MAIN,
    "modules/db/variables.tf": DB_VARIABLES,
    "modules/db/modules/db_instance/main.tf": DB_INSTANCE,
}


async def hover_at(session, u: str, marker: str, delta: int = 1) -> str:
    hover = await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=u), position=session.pos(u, marker, delta=delta)))
    assert hover is not None, f"no hover at {marker}"
    return hover.contents.value


def codes(session) -> dict[str, list[str]]:
    """The codes last published per file, for every file with any."""
    return {u: sorted(str(d.code) for d in items) for u, items in session.client.diagnostics.items() if items}


async def test_monorepo_opened_at_one_environment_follows_the_modules_outside_it(tmp_path: Path):
    write(tmp_path, MONOREPO)
    prod = tmp_path / "envs" / "prod"
    session = await start_session([prod])
    try:
        await session.wait_indexed()
        # The environment's own file: a variable without a default makes two fields of the module
        # outside the folder unbounded; that module is not the user's (outside every folder, not
        # open), so both are reported where the user can act: on the argument that passes var.size.
        db_main = uri(tmp_path / "modules" / "db" / "main.tf")
        prod_main = uri(prod / "main.tf")
        relocated = await session.wait_diagnostics(prod_main, "unbounded-field")
        fixes = ("Fix (any one works):\n  1. constrain var.size with a validation block: condition = contains([\"value1\", "
                 "\"value2\"], var.size) (usually the right choice: every listed value gets its own specialization).\n"
                 "  2. give var.size a default.")
        assert [(d.range.start.line, d.range.start.character, d.message, [r.message for r in d.related_information or ()])
                for d in sorted(relocated, key=lambda d: d.message)] == [
            (7, 19, "can't determine the value of module.db.aws_db_instance.this.instance_class (set in the module outside the "
             "workspace folder at ../../modules/db/main.tf:4): var.size has no default value, and no validation block lists "
             "the allowed values; var.size is declared at main.tf:1.\naws_db_instance.this.instance_class is set to "
             "var.instance_class in the module outside the workspace folder. module.db passes it as instance_class here. "
             "Call path: module.db.\n" + fixes,
             ["aws_db_instance.this.instance_class is set here, in the module ../../modules/db, outside the workspace folder",
              "var.size is declared here"]),
            (7, 19, "can't determine the value of module.db.module.db_instance.aws_db_instance.inner.instance_class (set in "
             "the module outside the workspace folder at ../../modules/db/modules/db_instance/main.tf:8): var.size has no "
             "default value, and no validation block lists the allowed values; var.size is declared at main.tf:1.\n"
             "aws_db_instance.inner.instance_class is set to var.class in the module outside the workspace folder. module.db "
             "passes it as instance_class here. Call path: module.db -> module.db_instance.\n" + fixes,
             ["aws_db_instance.inner.instance_class is set here, in the module ../../modules/db/modules/db_instance, outside "
              "the workspace folder", "var.size is declared here"]),
        ]
        assert set(codes(session)) == {prod_main}
        # Opening the module outside the folder: it is the user's while open, so its diagnostics come
        # there (its own field, and the nested module's, on the call that passes var.instance_class),
        # and none in the environment any more.
        u = session.open(tmp_path / "modules" / "db" / "main.tf")
        await session.wait_diagnostics(prod_main, "unbounded-field", present=False)
        await session.wait_diagnostics(u, "unbounded-field")
        assert codes(session) == {u: ["unbounded-field", "unbounded-field"]}  # instance_class is var.size: no default
        text = await hover_at(session, u, "var.engine_version", delta=4)
        assert '"15.4"' in text and "no default value" not in text and "null" not in text
        # Watched: the client was asked to watch the outside module directories.
        globs = [str(w) for r in session.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
                 for w in (r.register_options["watchers"] if isinstance(r.register_options, dict) else r.register_options.watchers)]
        assert any("modules/db" in g for g in globs), globs
        # Closed: its diagnostics go (a file outside the folder gets them only while open), back to the call.
        session.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=u)))
        await session.wait_diagnostics(u, "unbounded-field", present=False)
        await session.wait_diagnostics(prod_main, "unbounded-field")
        assert set(codes(session)) == {prod_main}
    finally:
        await stop_session(session)


async def test_a_watched_change_outside_the_folder_is_analysed(tmp_path: Path):
    write(tmp_path, MONOREPO)
    prod = tmp_path / "envs" / "prod"
    session = await start_session([prod])
    try:
        await session.wait_indexed()
        u = session.open(tmp_path / "modules" / "db" / "main.tf")
        await session.wait_diagnostics(u, "unbounded-field")
        # The variable gets a default on disk (another editor, a git checkout): the watcher reports it.
        variables = tmp_path / "modules" / "db" / "variables.tf"
        variables.write_text(DB_VARIABLES.replace('variable "instance_class" {\n  type = string', 'variable "instance_class" {\n  type    = string\n  default = "db.t4g.small"'))
        (prod / "main.tf").write_text(MONOREPO["envs/prod/main.tf"].replace("  instance_class = var.size\n", ""))
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(variables), type=types.FileChangeType.Changed),
            types.FileEvent(uri=uri(prod / "main.tf"), type=types.FileChangeType.Changed),
        ]))
        await session.wait_diagnostics(u, "unbounded-field", present=False)
    finally:
        await stop_session(session)


async def test_monorepo_opened_at_the_repository_root(tmp_path: Path):
    write(tmp_path, MONOREPO)
    session = await start_session([tmp_path])
    try:
        await session.wait_indexed()
        db_main = uri(tmp_path / "modules" / "db" / "main.tf")
        # Inside the folder: published without being open; both roots reach the module.
        diags = await session.wait_diagnostics(db_main, "unbounded-field")
        assert {str(d.code) for d in diags} == {"unbounded-field"}
        inner = uri(tmp_path / "modules" / "db" / "modules" / "db_instance" / "main.tf")
        await session.wait_diagnostics(inner, "unbounded-field")
        assert set(codes(session)) == {db_main, inner}
        u = session.open(tmp_path / "modules" / "db" / "main.tf")
        text = await hover_at(session, u, "var.engine_version", delta=4)
        assert '"15.4"' in text and '"14.9"' in text
    finally:
        await stop_session(session)


AWS_MODULE = {
    "main.tf": DB_MAIN,
    "variables.tf": DB_VARIABLES,
    "modules/db_instance/main.tf": DB_INSTANCE,
    "examples/complete/main.tf": '''module "db" {
  source         = "../../"
  engine_version = "15.4"
  instance_class = "db.r6g.large"
}
''',
}


async def test_module_repository_opened_at_the_example(tmp_path: Path):
    """terraform-aws-modules layout: the example calls ``../../``; opened at the example's folder."""
    write(tmp_path, AWS_MODULE)
    session = await start_session([tmp_path / "examples" / "complete"])
    try:
        await session.wait_indexed()
        u = session.open(tmp_path / "main.tf")
        text = await hover_at(session, u, "var.engine_version", delta=4)
        assert '"15.4"' in text and "**resolved**" in text
        await session.wait_for(lambda: any(uu == u for uu, _, _ in session.published), what="the opened file's diagnostics")
        assert codes(session) == {}
    finally:
        await stop_session(session)


async def test_module_repository_opened_at_the_root(tmp_path: Path):
    write(tmp_path, AWS_MODULE)
    session = await start_session([tmp_path])
    try:
        await session.wait_indexed()
        u = session.open(tmp_path / "main.tf")
        text = await hover_at(session, u, "var.engine_version", delta=4)
        assert '"15.4"' in text
        assert codes(session) == {}
    finally:
        await stop_session(session)
