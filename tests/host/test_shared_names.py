"""The modules' sets of names are one object per distinct set, and the host's table of them holds
what is live within a factor of two, whatever the edits (docs/memory.md, "Session 13").

At 1,000 generated modules the name tables and interfaces held 1,000 sets of variable names that
were 26 distinct ones (2.4 MiB of the 42 traced then): the host now shares equal sets through
``ModuleInterfaces.names``. A table of what was ever asked grows with the edits (a label typed
letter by letter into a block of a root of many calls makes a new set of a thousand names per
keystroke), so the table lets go of the sets only it holds once it counts twice as many names as
after its last pruning.
"""

from __future__ import annotations

import gc

from host_support import everything

from tfphi.analysis import AnalysisHost, SetSource
from tfphi.stir.references import ModuleInterfaces, NameTable

ROOT = "main.tf"
LEAF = """variable "name" {
  type = string
}

variable "size" {
  type    = number
  default = 1
}

locals {
  full = "${var.name}-${var.size}"
}

resource "aws_db_instance" "this" {
  engine         = "postgres"
  engine_version = local.full
}

output "id" {
  value = local.full
}
"""


def _workspace(calls: int) -> dict[str, str]:
    """A root calling ``calls`` modules of one text each (a workspace's repeated shape)."""
    root = "".join(f'module "m{i}" {{\n  source = "./modules/m{i}"\n  name   = "n{i}"\n}}\n\n' for i in range(calls))
    return {ROOT: root, **{f"modules/m{i}/main.tf": LEAF for i in range(calls)}}


def _loaded(texts: dict[str, str]) -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    everything(host.snapshot())
    return host


def _tables(host: AnalysisHost) -> list[NameTable]:
    return [checks.table for checks in host._interfaces.checks.values()]


def test_equal_sets_of_names_are_one_object():
    host = _loaded(_workspace(12))
    tables = _tables(host)
    assert len(tables) == 13
    for kind in ("variables", "locals", "resources", "data", "calls"):
        sets = [getattr(table, kind) for table in tables]
        by_value = {}
        for names in sets:
            assert by_value.setdefault(names, names) is names, kind  # an equal set seen before is this object
    # every leaf declares the same names: one set of each kind for all of them
    leaves = [table for table in tables if not table.calls]
    assert len(leaves) == 12
    for kind in ("variables", "locals", "resources"):
        assert len({id(getattr(table, kind)) for table in leaves}) == 1, kind
    interfaces = [host._interfaces.of(host.snapshot().modules[f"modules/m{i}"]) for i in range(12)]
    assert len({id(i.outputs) for i in interfaces}) == 1 and len({id(i.required_names) for i in interfaces}) == 1


def test_the_table_lets_go_of_the_sets_only_it_holds():
    interfaces = ModuleInterfaces()
    kept = interfaces.names(["a", "b"])
    assert interfaces.names(("b", "a")) is kept
    assert interfaces.names([]) is interfaces.names(set())  # the shared empty set
    live = [interfaces.names([f"name{i}"]) for i in range(100)]
    for n in range(3 * ModuleInterfaces.NAMES_PRUNED_AT // 100):  # dropped as soon as made
        interfaces.names([f"gone{n}_{i}" for i in range(100)])
    assert interfaces.names(["a", "b"]) is kept
    assert all(interfaces.names([f"name{i}"]) is names for i, names in enumerate(live))
    held = interfaces._names
    assert sum(map(len, held)) <= ModuleInterfaces.NAMES_PRUNED_AT + 100
    del live
    gc.collect()
    for n in range(3 * ModuleInterfaces.NAMES_PRUNED_AT // 100):
        interfaces.names([f"again{n}_{i}" for i in range(100)])
    # what is left is what is held elsewhere (``kept``) and what the last pruning left behind
    assert kept in held and sum(map(len, held)) <= ModuleInterfaces.NAMES_PRUNED_AT + 100


def test_labels_typed_and_taken_back_leave_the_table_bounded(monkeypatch):
    """A label typed into a module call of a root of many calls, letter by letter, and taken
    back: each keystroke's set of call names is a new one; the table stays within twice what the
    live name tables hold (and the minimum it prunes at, made small here)."""
    monkeypatch.setattr(ModuleInterfaces, "NAMES_PRUNED_AT", 200)
    texts = _workspace(40)
    host = _loaded(texts)
    text = texts[ROOT]
    at = text.index('module "') + len('module "')
    interfaces = host._interfaces
    made = 0
    for round in range(30):
        for typed in ("x", "xy", "xyz"):
            host.apply_change([SetSource(ROOT, (text[:at] + f"{typed}{round}" + text[at:]).encode())])
            everything(host.snapshot())
            made += 40
        host.apply_change([SetSource(ROOT, text.encode())])
        everything(host.snapshot())
    gc.collect()
    live = {id(names): names for table in _tables(host)
            for names in (table.variables, table.locals, table.resources, table.data, table.calls)}
    live_names = sum(map(len, live.values()))
    held = sum(map(len, interfaces._names))
    assert made > 10 * 200  # (the sets made by the keystrokes, many times what is pruned at)
    assert held <= max(200, 2 * live_names) + 40  # (+ the set that made the table prune)
