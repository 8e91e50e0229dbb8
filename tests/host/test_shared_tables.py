"""A snapshot holds the host's tables as they were when it was taken: every table, under every
kind of change, is checked to stay as the snapshot saw it (a host that shared its tables with
its snapshots and changed them in place fails here).

FIXME (session 11): the snapshot copies the host's tables (``Snapshot.__init__``: 0.08-0.14 ms
of a root keystroke at 1,000 modules). Persistent maps shared without a copy (``immutables``)
were measured to remove that and reverted: the VS Code client bundles a wheel of every native
dependency for each CPython 3.10-3.14, and immutables 0.21 has none for 3.14 (bench/README.md,
"Issue 23: snapshots share the host's tables, session 11")."""

from __future__ import annotations

from host_support import WORKSPACE

from tfphi.analysis import AnalysisHost, Remove, SetConfig, SetProblem, SetSource, Snapshot

# One change of every kind a table takes: a file edited, added in a new module, removed (its
# module gone), turned into a problem and back; a variables file, a Terragrunt unit, a
# manifest that does not read, and new settings (the snapshot after it derives everything).
CHANGES = [
    SetSource("modules/db/main.tf", WORKSPACE["modules/db/main.tf"].replace('"postgres"', '"mysql"').encode()),
    SetSource("modules/extra/main.tf", b'locals {\n  a = 1\n}\n'),
    Remove("envs/dev/main.tf"),
    SetProblem("modules/cache/params/main.tf", "unreadable"),
    SetSource("modules/db/variables.tf", b"\x00binary"),
    SetSource("envs/prod/terraform.tfvars", b'cache_type = "cache.t4g.small"\n'),
    SetSource("units/app/terragrunt.hcl", b'terraform {\n  source = "../../modules/db"\n}\n'),
    SetSource(".terraform/modules/modules.json", b"{not json"),
    SetSource("modules/cache/params/main.tf", WORKSPACE["modules/cache/params/main.tf"].encode()),
    SetConfig('[fields."aws_db_instance.engine_version"]\nseverity = "warning"\n'),
    Remove("modules/extra/main.tf"),
]


def host_of(texts: dict[str, str]) -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    return host


def tables(snapshot: Snapshot) -> dict[str, dict[str, object]]:
    """Every table of the snapshot as a plain dict of the objects it holds (compared by identity)."""
    return {
        "files": dict(snapshot.files), "tfvars": dict(snapshot.tfvars), "terragrunt": dict(snapshot.terragrunt),
        "problems": dict(snapshot.problems), "manifest_problems": dict(snapshot.manifest_problems),
        "modules": dict(snapshot.modules), "files_in": {dir: tuple(snapshot.files_in(dir)) for dir in snapshot.dirs()},
    }


def same(a: dict[str, dict[str, object]], b: dict[str, dict[str, object]]) -> bool:
    """The same keys in every table, holding the same objects (``files_in``'s lists: equal)."""
    def held(x: object, y: object) -> bool:
        return x is y or isinstance(x, tuple) and x == y
    return a.keys() == b.keys() and all(a[t].keys() == b[t].keys() and all(held(a[t][k], b[t][k]) for k in a[t]) for t in a)


def test_every_snapshot_keeps_its_tables_while_the_host_takes_every_kind_of_change():
    host = host_of(WORKSPACE)
    taken = []
    for change in CHANGES:
        snapshot = host.snapshot()
        taken.append((snapshot, tables(snapshot)))
        host.apply_change(change)
        for earlier, seen in taken:  # (the changes are not yet in any snapshot)
            assert same(tables(earlier), seen), f"after {change!r}"
    last = host.snapshot()
    for earlier, seen in taken:
        assert same(tables(earlier), seen)
    # ... while the latest one shows every change.
    assert "envs/dev" not in last.modules and "modules/extra" not in last.modules
    assert set(last.problems) == {"modules/db/variables.tf"}
    assert set(last.tfvars) == {"envs/prod/terraform.tfvars"} and set(last.terragrunt) == {"units/app/terragrunt.hcl"}
    assert set(last.manifest_problems) == {".terraform/modules/modules.json"}
    assert last.files_in("modules/db") == ["modules/db/main.tf"]
    assert b'"mysql"' in last.files["modules/db/main.tf"].source

