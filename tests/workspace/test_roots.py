"""Root configurations (SPEC section 2): local sources followed wherever they lead, roots found.

Pure parts are tested on an ``Analysis`` fed by the loader from the fixture repositories
under ``repos/`` (laid out like terraform-aws-modules and like a monorepo).
"""

from __future__ import annotations

from pathlib import Path

from tfphi.loader import load_workspace
from tfphi.stir.roots import missing_local_targets, relative_to_root, roots_reaching
from tfphi.stir.workspace import local_target

REPOS = Path(__file__).parent / "repos"


def test_local_target_climbs_out_of_dir():
    assert local_target("examples/complete-mysql", "../../") == ""
    assert local_target("", "../../modules/db") == "../../modules/db"
    assert local_target("", "./") == ""
    assert local_target("envs/prod", "../../modules/db") == "modules/db"
    assert local_target("", "../" * 17 + "x") is None  # a chain that climbs forever stops


def test_sources_outside_dir_are_read_with_paths_relative_to_dir():
    analysis = load_workspace(REPOS / "rds-like/examples/complete-mysql")
    assert sorted(analysis.modules) == ["", "../..", "../../modules/db_instance"]
    assert analysis.files_in("../../modules/db_instance") == [
        "../../modules/db_instance/main.tf", "../../modules/db_instance/outputs.tf", "../../modules/db_instance/variables.tf",
    ]
    assert analysis.tree.roots == ("",)
    assert missing_local_targets(analysis.modules, analysis.tree) == []
    assert analysis.tree.call_paths("../../modules/db_instance") == [
        (("", ""), ("db", "../.."), ("db_instance", "../../modules/db_instance")),
    ]


def test_roots_are_the_modules_nobody_calls():
    analysis = load_workspace(REPOS / "rds-like")
    assert analysis.tree.roots == ("examples/complete-mysql", "examples/complete-postgres", "examples/replica-postgres")
    assert roots_reaching(analysis.tree, "modules/db_instance") == analysis.tree.roots
    assert roots_reaching(analysis.tree, "examples/complete-mysql") == ("examples/complete-mysql",)
    monorepo = load_workspace(REPOS / "monorepo")
    assert monorepo.tree.roots == ("envs/dev", "envs/prod", "envs/regional")
    assert roots_reaching(monorepo.tree, "modules/cache") == ("envs/prod", "envs/regional")


def test_one_module_is_traced_per_instance_and_root():
    analysis = load_workspace(REPOS / "rds-like")
    paths = [t.result.call_path for t in analysis.field_traces("modules/db_instance") if t.field_name == "engine"]
    assert [(p[0][1], tuple(c for c, _ in p[1:])) for p in paths] == [
        ("examples/complete-mysql", ("db", "db_instance")),
        ("examples/complete-postgres", ("db", "db_instance")),
        ("examples/replica-postgres", ("master", "db_instance")),
        ("examples/replica-postgres", ("replica", "db_instance")),
    ]


def test_relative_to_root():
    assert relative_to_root("main.tf", "examples/complete-mysql") == "../../main.tf"
    assert relative_to_root("examples/complete-mysql/main.tf", "examples/complete-mysql") == "main.tf"
    assert relative_to_root("../x/main.tf", "") == "../x/main.tf"


def test_symlink_loop_through_a_source_is_read_once(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "main.tf").write_text('module "again" {\n  source = "./loop"\n}\n\noutput "o" {\n  value = "x"\n}\n')
    (outside / "loop").symlink_to(".")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "main.tf").write_text('module "up" {\n  source = "../outside"\n}\n')
    analysis = load_workspace(ws)
    assert sorted(analysis.modules) == ["", "../outside"]
