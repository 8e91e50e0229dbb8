"""Caches belong to the host (issue 23, point 4): no module-level mutable state outside ``lsp/``;
what outlives a snapshot is a table of ``AnalysisHost`` whose entries go when what they read
changes, and a snapshot fills only what it lives with.

The module-level scan is the rule of ``/work/shared/tools/structure.py`` (names bound at module
level to a dict/list/set, literal or call, that a function mutates), and also what it does not
see: a ``global`` statement, or such a container changed through a local name.
"""

from __future__ import annotations

import ast
import gc
import weakref
from pathlib import Path

import pytest

import tfphi
from tfphi.analysis import AnalysisHost, SetSource
from tfphi.evaluate.functions import FUNCTIONS, FunctionSpec
from tfphi.evaluate.functions import registry
from tfphi.features.locations import human_position

SRC = Path(tfphi.__file__).resolve().parent

# Calls that change a container in place.
_MUTATING = frozenset({"append", "add", "update", "pop", "clear", "setdefault", "extend", "discard", "remove",
                       "popitem", "insert", "move_to_end", "appendleft", "__setitem__", "__delitem__"})
_CONTAINERS = frozenset({"dict", "list", "set", "OrderedDict", "defaultdict", "Counter", "deque",
                         "WeakKeyDictionary", "WeakValueDictionary"})


def _module_containers(tree: ast.Module) -> dict[str, int]:
    """The names a module binds at its top level to a dict, list or set (a literal or a call)."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
                isinstance(value, ast.Call) and (getattr(value.func, "id", None) or getattr(value.func, "attr", "")) in _CONTAINERS):
            found.update((t.id, node.lineno) for t in targets if isinstance(t, ast.Name))
    return found


def _changes_or_lends(function: ast.AST, name: str) -> bool:
    """Whether ``function`` changes the module's container ``name`` in place, or binds it to a name
    of its own (through which it could: ``checked = _checked_blocks``)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATING:
            if isinstance(node.func.value, ast.Name) and node.func.value.id == name:
                return True
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node.value, ast.Name) and node.value.id == name:
                return True
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            if any(isinstance(v, ast.Name) and v.id == name for v in values):
                return True
    return False


def _module_state() -> set[str]:
    """Outside ``lsp/``: each ``global`` statement, and each container bound at a module's top level
    that a function changes, or takes under a name of its own (``set_twice``'s blocks found clean
    were such a process-wide cache, changed through a local alias, until session 11: the
    structure figures' rule, which looks for the module's own name only, did not see it)."""
    found = set()
    assert (SRC / "analysis.py").exists()
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "lsp":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        containers = _module_containers(tree)
        for function in ast.walk(tree):
            if isinstance(function, ast.Global):
                found.add(f"{rel.as_posix()}:{function.lineno} global {', '.join(function.names)}")
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                found.update(f"{rel.as_posix()}:{line} {name}" for name, line in containers.items()
                             if _changes_or_lends(function, name))
    return found


def test_no_module_level_cache_outside_lsp():
    assert _module_state() == set()


def test_only_inputs_are_parsed():
    """Nothing printed is parsed back (a condition, an address): the parser reads the inputs only,
    in the layers that take them in (the host, the loader, the editor's documents)."""
    allowed = {"analysis.py", "loader.py", "lsp/documents.py"}
    callers = set()
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("syntax/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("parse_file", "parse_json_file"):
                callers.add(rel)
    assert callers <= allowed, callers - allowed


def test_the_function_registry_is_frozen_and_complete():
    with pytest.raises(TypeError):
        FUNCTIONS["upper"] = FUNCTIONS["lower"]  # type: ignore[index]
    # every spec a family declares is in its SPECS, hence in the registry (a forgotten one would be missed)
    for family in registry._FAMILIES:
        declared = {v.name for v in vars(family).values() if isinstance(v, FunctionSpec)}
        declared |= {s.name for v in vars(family).values() if isinstance(v, tuple) for s in v if isinstance(s, FunctionSpec)}
        assert declared == {s.name for s in family.SPECS}, family.__name__
        assert all(FUNCTIONS[s.name] is s for s in family.SPECS)
    assert len(FUNCTIONS) == sum(len(f.SPECS) for f in registry._FAMILIES) == 113


ROOT = b'module "child" {\n  source = "./child"\n  name   = "x"\n}\n'
CHILD = b'variable "name" {}\nvariable "size" {\n  default = 1\n}\noutput "id" {\n  value = var.name\n}\n'


def _host() -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource("main.tf", ROOT), SetSource("child/main.tf", CHILD)])
    return host


def _read(host: AnalysisHost) -> None:
    """What a check reads: findings (the interfaces), positions (the line indexes), roots."""
    snap = host.snapshot()
    for dir in snap.dirs():
        snap.findings(dir)
        snap.roots_reaching(dir)
    for path in snap.files:
        human_position(snap, path, 3)


def test_a_changed_file_leaves_no_line_index_behind():
    host = _host()
    _read(host)
    assert set(host._line_indexes) == {"main.tf", "child/main.tf"}
    for i in range(20):  # edits, each taken back
        host.apply_change(SetSource("child/main.tf", CHILD + b"\n" * (i % 3)))
        _read(host)
    host.apply_change(SetSource("child/main.tf", CHILD))
    assert {path: source for path, (source, _) in host._line_indexes.items()} == {"main.tf": host.files["main.tf"].source}
    _read(host)
    held = {path: source for path, (source, _) in host._line_indexes.items()}
    assert held == {path: hcl.source for path, hcl in host.files.items()}  # the host's bytes, no older ones


def test_an_older_snapshot_does_not_fill_the_host_with_its_bytes():
    host = _host()
    old = host.snapshot()
    host.apply_change(SetSource("main.tf", ROOT + b"\n"))
    assert human_position(old, "main.tf", len(ROOT) - 1) == (4, 2)  # answered from the old bytes...
    assert "main.tf" not in host._line_indexes  # ...which the host does not keep


def test_an_edited_module_leaves_no_interface_behind():
    host = _host()
    _read(host)
    first = weakref.ref(host.snapshot().modules["child"])
    assert len(host._interfaces) == 1
    for i in range(20):  # the child's interface changes and changes back
        extra = b'variable "more" {}\n' if i % 2 else b""
        host.apply_change(SetSource("child/main.tf", CHILD + extra))
        _read(host)
    gc.collect()
    assert first() is None  # the first child module is not kept alive by the table...
    assert len(host._interfaces) == 1  # ...nor are the entries of the ones that replaced it


def test_roots_reaching_lives_with_its_snapshot():
    host = _host()
    snap = host.snapshot()
    assert snap.roots_reaching("child") == ("",)
    host.apply_change(SetSource("other/main.tf", b'module "child" {\n  source = "../child"\n  name = "y"\n}\n'))
    assert host.snapshot().roots_reaching("child") == ("", "other")
    assert snap.roots_reaching("child") == ("",)
