"""A module tree built whole after an edit holds the last tree's equal parts as those very
objects: a call taken away and its undo (a root's block broken by a keystroke, then mended)
build the tree whole twice, and each build's targets, keys and callers lived until the next
build, allocated among the keystroke's transient objects (bench/README.md, "Session 14: soak6")."""

from __future__ import annotations

from tfphi.stir.model import assemble_module, read_declarations
from tfphi.stir.module_changes import changed_calls
from tfphi.stir.workspace import build_module_tree
from tfphi.syntax.hclfile import parse_file


def _module(dir: str, calls: dict[str, str]):
    path = f"{dir}/main.tf" if dir else "main.tf"
    text = "".join(f'module "{name}" {{\n  source = "{source}"\n}}\n' for name, source in sorted(calls.items()))
    return assemble_module(dir, {path: read_declarations(parse_file(path, text.encode()).body)})[0]


ROOT = {f"m{i}": f"./modules/m{i % 4}" for i in range(12)} | {"gone": "./missing"}


def _modules(root_calls: dict[str, str]) -> dict:
    modules = {"": _module("", root_calls)}
    modules.update({f"modules/m{i}": _module(f"modules/m{i}", {"leaf": "../leaf"} if i % 2 else {}) for i in range(4)})
    modules["modules/leaf"] = _module("modules/leaf", {})
    return modules


def _edited(tree, before: dict, after: dict):
    modules = _modules(after)
    changed = {("", name) for name in changed_calls(_modules(before)[""], modules[""])}
    return build_module_tree(modules, {}, (), (tree, changed)), modules


def test_a_call_taken_away_and_back_keeps_the_tree_s_objects():
    first = build_module_tree(_modules(ROOT), {})
    without = {name: source for name, source in ROOT.items() if name != "m1"}  # m1 is modules/m1's one caller
    away, modules = _edited(first, ROOT, without)
    assert away == build_module_tree(modules, {})  # (the same tree as a fresh build)
    back, modules = _edited(away, without, ROOT)
    assert back == first == build_module_tree(modules, {})
    for key, target in first.targets.items():
        if key != ("", "m1"):
            kept = next(k for k in back.targets if k == key)
            assert back.targets[key] is target and kept is next(k for k in first.targets if k == key), key
    assert [dir for dir, callers in back.callers.items() if callers is not first.callers[dir]] == ["modules/m1"]
    assert back.roots is first.roots
