"""A snapshot holds the host's tables as they were when it was taken, without copying them: the
host's tables are ``tables.Table``s, which a snapshot takes frozen (their dicts shared until the
host writes into one, which it copies first). Every table, under every kind of change, is
checked to stay as the snapshot saw it (a host that shared its tables with its snapshots and
changed them in place fails here, and so does a ``Table`` that writes into a dict it shares:
tests/core/test_tables.py); and a root keystroke's snapshot shares all but the dict the edit
wrote into (the copies cost 0.1 ms of a root keystroke at 1,000 modules: bench/README.md,
"Issue 23: a root keystroke's cost in the workspace's size, session 12")."""

from __future__ import annotations

from host_support import WORKSPACE

from tfphi.analysis import AnalysisHost, Remove, SetConfig, SetProblem, SetSource, Snapshot
from tfphi.tables import FrozenTable

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



def test_a_snapshot_shares_every_table_entry_the_host_did_not_change():
    """No copy per snapshot: an edit of one file in a workspace of 300 modules leaves the next
    snapshot sharing all but one of each table's dicts with the last one (the files', the
    modules'), and the tables it did not change whole."""
    texts = {f"modules/m{i:03d}/main.tf": f'locals {{\n  a = {i}\n}}\n' for i in range(300)}
    host = host_of({**texts, "main.tf": "locals {\n  b = 1\n}\n"})
    before = host.snapshot()
    host.apply_change(SetSource("modules/m007/main.tf", b"locals {\n  a = 70\n}\n"))
    after = host.snapshot()
    for name in ("files", "modules", "tfvars", "problems"):
        old, new = getattr(before, name), getattr(after, name)
        assert isinstance(old, FrozenTable) and isinstance(new, FrozenTable)
        unshared = sum(a is not b for a, b in zip(old._chunks, new._chunks))
        assert (name, unshared) == (name, 1 if name in ("files", "modules") else 0)
    assert after.files["main.tf"] is before.files["main.tf"] and after.modules[""] is before.modules[""]
    assert b"a = 70" in after.files["modules/m007/main.tf"].source and b"a = 7\n" in before.files["modules/m007/main.tf"].source
