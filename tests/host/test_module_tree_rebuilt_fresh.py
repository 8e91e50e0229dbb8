"""A module tree rebuilt for some changed calls (``build_module_tree``'s ``known``) is the tree a
whole build makes, on generated call graphs and edits: calls renamed, added, removed and pointed
elsewhere, in modules that call one module several times (the callers' order: by caller
directory, then the caller's call order) or once."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tfphi.stir.model import assemble_module, read_declarations
from tfphi.stir.module_changes import changed_calls
from tfphi.stir.workspace import build_module_tree
from tfphi.syntax.hclfile import parse_file

DIRS = ("", "modules/a", "modules/b", "modules/c")
NAMES = ("x", "y", "z", "w")
SOURCES = ("./modules/a", "./modules/b", "./modules/c", "../a", "../b", "../c", "./missing", "hashicorp/x/aws")


def _module(dir: str, calls: list[tuple[str, str]]):
    path = f"{dir}/main.tf" if dir else "main.tf"
    text = "".join(f'module "{name}" {{\n  source = "{source}"\n}}\n' for name, source in calls)
    return assemble_module(dir, {path: read_declarations(parse_file(path, text.encode()).body)})[0]


def _modules(calls: dict[str, list[tuple[str, str]]]) -> dict:
    return {dir: _module(dir, calls.get(dir, [])) for dir in DIRS}


def _calls_of(dir: str):
    sources = [s for s in SOURCES if s.startswith("./") == (dir == "") or not s.startswith(("./modules", "../"))]
    return st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(sources)), max_size=4, unique_by=lambda c: c[0])


workspaces = st.fixed_dictionaries({dir: _calls_of(dir) for dir in DIRS})
# An edit of one call: renamed (kept in its place), its source replaced, removed, or a call added.
edits = st.lists(st.tuples(st.sampled_from(DIRS), st.integers(0, 3), st.sampled_from(("rename", "source", "remove", "add")),
                           st.sampled_from(NAMES + ("v", "u")), st.sampled_from(SOURCES)), min_size=1, max_size=3)


def _edited(workspace: dict, edits) -> dict:
    out = {dir: list(calls) for dir, calls in workspace.items()}
    for dir, at, kind, name, source in edits:
        calls = out[dir]
        if kind == "add" or not calls:
            if name not in {n for n, _ in calls}:
                calls.insert(min(at, len(calls)), (name, source))
            continue
        at %= len(calls)
        if kind == "remove":
            del calls[at]
        elif kind == "source":
            calls[at] = (calls[at][0], source)
        elif name not in {n for n, _ in calls}:
            calls[at] = (name, calls[at][1])
    return out


def _rebuilt(tree, old_modules, new_modules):
    changed = {(dir, name) for dir in DIRS for name in changed_calls(old_modules[dir], new_modules[dir])}
    return build_module_tree(new_modules, {}, (), (tree, changed))


def _same(tree, fresh) -> None:
    assert tree == fresh
    for name in ("targets", "callers", "outside"):  # (the callers in order; each look-up, each key)
        mapping, expected = getattr(tree, name), getattr(fresh, name)
        assert dict(mapping.items()) == expected and len(mapping) == len(expected)
        assert all(mapping.get(key) == value and key in mapping for key, value in expected.items())
    assert {dir: list(callers) for dir, callers in tree.callers.items()} == {dir: list(c) for dir, c in fresh.callers.items()}


@settings(max_examples=400, deadline=None)
@given(workspaces, edits)
def test_a_rebuilt_tree_is_the_whole_build_s(before, edits):
    """Edited, then taken back: each tree is its whole build's, the trees it was rebuilt from
    too (they read the dicts a newer tree took over through their undo entries)."""
    after = _edited(before, edits)
    old_modules, new_modules = _modules(before), _modules(after)
    first = build_module_tree(old_modules, {})
    edited = _rebuilt(first, old_modules, new_modules)
    _same(edited, build_module_tree(new_modules, {}))
    _same(first, build_module_tree(old_modules, {}))
    back = _rebuilt(edited, new_modules, old_modules)
    _same(back, build_module_tree(old_modules, {}))
    _same(edited, build_module_tree(new_modules, {}))
    _same(first, build_module_tree(old_modules, {}))
    again = _rebuilt(first, old_modules, new_modules)  # (from a tree rebuilt from already)
    _same(again, build_module_tree(new_modules, {}))
    _same(first, build_module_tree(old_modules, {}))
