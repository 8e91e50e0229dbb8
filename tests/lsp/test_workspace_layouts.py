"""The layouts of issue 24 (OpenTofu, Terragrunt units, symbolic links) through the real server.

The fixtures are ``tests/workspace/layouts``, copied into a temporary folder (links are made
there). Each test failed before this work: the server read no ``.tofu`` file, nor any module a
folder of Terragrunt units deploys, and called a linked variable file a syntax error.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from lsprotocol import types

from lsp_helpers import hover_at, start_session, stop_session, uri

LAYOUTS = Path(__file__).resolve().parents[1] / "workspace" / "layouts"


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(LAYOUTS / name, dest, symlinks=True)
    return dest


def codes(session) -> dict[str, list[str]]:
    """The codes last published per file, for every file with any."""
    return {u: sorted(str(d.code) for d in items) for u, items in session.client.diagnostics.items() if items}



async def test_a_folder_of_tofu_files_is_analysed(tmp_path: Path):
    folder = _copy(tmp_path, "tofu-only")
    session = await start_session([folder])
    try:
        await session.wait_indexed()
        main = uri(folder / "main.tofu")
        (diagnostic,) = await session.wait_diagnostics(main, "unbounded-field")
        assert diagnostic.message.startswith("can't determine the value of engine_version: var.engine_version has no default value")
        assert codes(session) == {main: ["unbounded-field"]}
        u = session.open(folder / "main.tofu")
        text = await hover_at(session, u, "instance_class =", delta=2)
        assert '"db.r6g.large"' in text and '"db.t4g.small"' in text
    finally:
        await stop_session(session)


async def test_a_tf_file_beside_a_tofu_file_of_its_name_is_not_read(tmp_path: Path):
    folder = _copy(tmp_path, "tofu-mixed")
    session = await start_session([folder])
    try:
        await session.wait_indexed()
        # main.tf and outputs.tf.json name var.terraform_only: read, they would be undefined references
        u = session.open(folder / "main.tf")
        tofu = session.open(folder / "main.tofu")
        await session.wait_for(lambda: any(uu == tofu for uu, _, _ in session.published), what="main.tofu's diagnostics")
        text = await hover_at(session, tofu, "engine_version =", delta=2)
        assert '"16.2"' in text
        assert codes(session) == {}
        # engine = "terraform" in the settings file: now main.tf is read and main.tofu is not
        (folder / ".tfphi.toml").write_text('engine = "terraform"\n')
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(folder / ".tfphi.toml"), type=types.FileChangeType.Created)]))
        await session.wait_diagnostics(u, "undefined-reference")
        await session.wait_diagnostics(uri(folder / "outputs.tf.json"), "undefined-reference")
        assert codes(session) == {u: ["undefined-reference"], uri(folder / "outputs.tf.json"): ["undefined-reference"]}
    finally:
        await stop_session(session)


async def test_a_folder_of_terragrunt_units_reads_the_module_they_deploy(tmp_path: Path):
    repo = _copy(tmp_path, "terragrunt")
    session = await start_session([repo / "live"])
    try:
        await session.wait_indexed()
        # the module lies outside the folder: its diagnostics come when it is opened
        u = session.open(repo / "modules" / "db" / "main.tf")
        (diagnostic,) = await session.wait_diagnostics(u, "unbounded-field")
        assert 'contains(["15.4", "14.9", "16.2"], var.engine_version)' in diagnostic.message  # the units' values
        dev = uri(repo / "live" / "dev" / "terragrunt.hcl")
        await session.wait_diagnostics(dev, "module-not-installed")
        assert codes(session) == {u: ["unbounded-field"], dev: ["module-not-installed"]}
        # the parent the units include changes on disk: the units' values follow
        root_hcl = repo / "live" / "root.hcl"
        root_hcl.write_text(root_hcl.read_text().replace('"14.9"', '"13.7"'))
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=uri(root_hcl), type=types.FileChangeType.Changed)]))
        await session.wait_for(lambda: any('"13.7"' in d.message for d in session.diagnostics(u, "unbounded-field")),
                               what="the parent's new value in the fix")
    finally:
        await stop_session(session)


async def test_linked_and_dangling_variable_files(tmp_path: Path):
    prod = tmp_path / "envs" / "prod"
    prod.mkdir(parents=True)
    (tmp_path / "envs" / "common.auto.tfvars").write_text('engine_version = "15.4"\n')
    (prod / "main.tf").write_text('variable "engine_version" {\n  type = string\n}\n\n'
                                  'resource "aws_db_instance" "db" {\n  engine_version = var.engine_version\n}\n')
    os.symlink("../common.auto.tfvars", prod / "common.auto.tfvars")  # leads out of the folder
    os.symlink("../removed.tfvars", prod / "terraform.tfvars")  # to nothing: ignored, as Terraform ignores it
    os.symlink("missing.auto.tfvars", prod / "gone.auto.tfvars")  # to nothing: Terraform fails the plan
    session = await start_session([prod])
    try:
        await session.wait_indexed()
        gone = uri(prod / "gone.auto.tfvars")
        (diagnostic,) = await session.wait_diagnostics(gone, "config-error")
        assert diagnostic.message == ("gone.auto.tfvars is a symbolic link to missing.auto.tfvars, which does not exist; "
                                      "terraform plan fails until it exists")
        main = uri(prod / "main.tf")
        await session.wait_diagnostics(main, "unbounded-field")
        assert codes(session) == {gone: ["config-error"], main: ["unbounded-field"]}
        u = session.open(prod / "main.tf")
        text = await hover_at(session, u, "var.engine_version", delta=4)
        assert '"15.4"' in text  # the linked file's value, as a deployment's
    finally:
        await stop_session(session)


async def test_the_files_generate_blocks_write_are_part_of_the_module(tmp_path: Path):
    repo = _copy(tmp_path, "terragrunt-generate")
    session = await start_session([repo])
    try:
        await session.wait_indexed()
        u = session.open(repo / "modules" / "app" / "main.tf")
        await session.wait_for(lambda: any(uu == u for uu, _, _ in session.published), what="the module's diagnostics")
        assert codes(session) == {}  # var.environment is declared by the generated common_vars.tf
        text = await hover_at(session, u, "engine_version =", delta=2)
        assert '"15.4"' in text and '"14.9"' in text
    finally:
        await stop_session(session)
