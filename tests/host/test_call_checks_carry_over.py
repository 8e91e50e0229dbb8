"""A root's call checks and call outputs carried over whole equal a fresh analysis.

The host keeps, per module, what the last check of its calls found (``stir.references.CallChecks``);
the next check takes the calls that found nothing over whole and checks again only the calls the
module build replaced (``Module.calls_changed``), those whose target a rebuilt module tree
resolved again (``ModuleTree.rebuilt``) and those that found something. The name table's call
outputs are carried over the same way. Generated here: a root of calls to two modules, edited as an
open document the way the checks can change (an argument commented out and back, a label typed
and taken back, a source pointed elsewhere or at its own directory, a line between blocks, a
value typed), and a child's required variable given a default and back (its interface changes);
after each edit the findings and diagnostics of every module, read or not, equal a fresh host's.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

import pytest

from host_support import LAYOUTS, everything, fresh
from test_host_property import EXAMPLES, edit as property_edit
from test_incremental_tables import _CALLS as TREE_CALLS, _DIRS as TREE_DIRS, _module as tree_module, module_builds

from tfphi.analysis import AnalysisHost, SetParsed, SetSource
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.lsp.documents import Document, TextChange
from tfphi.stir.model import calls_changed_since
from tfphi.stir.module_changes import changed_calls
from tfphi.stir.workspace import build_module_tree, targets_changed_since
from tfphi.syntax.hclfile import new_parser

CALLS = 6


def _root() -> str:
    blocks = []
    for i in range(CALLS):
        if i % 2 == 0:
            blocks.append(f'module "svc_{i}" {{\n  source         = "./modules/db"\n  engine_version = "15.{i}"\n'
                          f'  instance_class = "db.t4g.micro"\n}}\n')
        else:
            blocks.append(f'module "svc_{i}" {{\n  source    = "./modules/cache"\n  node_type = "cache.t4g.micro"\n'
                          f'  engine    = module.svc_{i - 1}.engine\n}}\n')
    blocks.append('output "version" {\n  value = module.svc_0.version\n}\n')
    blocks.append('output "missing" {\n  value = module.svc_2.nope\n}\n')  # (an output svc_2's module does not have)
    return "\n".join(blocks)


TEXTS = {
    "main.tf": _root(),
    "modules/db/main.tf": 'variable "engine_version" {\n  type = string\n}\n\nvariable "instance_class" {\n  type    = string\n'
                          '  default = "db.t4g.small"\n}\n\noutput "version" {\n  value = var.engine_version\n}\n\n'
                          'output "engine" {\n  value = "redis"\n}\n',
    "modules/cache/main.tf": 'variable "node_type" {\n  type = string\n}\n\nvariable "engine" {\n  type = string\n}\n\n'
                             'output "endpoint" {\n  value = "${var.engine}:6379"\n}\n',
}

SOURCES = ["./modules/db", "./modules/cache", "./modules/none", "./"]
_CALL = re.compile(r'^module "([^"\n]*)" \{\n', re.M)


def _calls(text: str) -> list[re.Match]:
    return list(_CALL.finditer(text))


def _block_end(text: str, start: int) -> int:
    """The end of the line closing the top-level block that starts at ``start``."""
    found = re.compile(r"^\}\n", re.M).search(text, start)
    return found.end() if found else len(text)


def _edit(text: str, kind: str, which: int, choice: int) -> tuple[int, int, str]:
    """(start, end, inserted) of one edit of the root's text; an empty edit when it has no call."""
    calls = _calls(text)
    if not calls:
        return 0, 0, ""
    call = calls[which % len(calls)]
    body_start, body_end = call.end(), _block_end(text, call.start())
    body = text[body_start:body_end]
    if kind == "comment":  # `#` typed at the start of an argument line, or taken back
        lines = [m.start() for m in re.finditer(r"^[ #]+[a-z_]+ +=", body, re.M)]
        if not lines:
            return 0, 0, ""
        at = body_start + lines[choice % len(lines)]
        return (at, at + 1, "") if text[at] == "#" else (at, at, "#")
    if kind == "label":  # a letter typed at the end of the label, or taken back
        end = call.end(1)
        return (end - 1, end, "") if call.group(1).endswith("x") else (end, end, "x")
    if kind == "source":
        found = re.search(r'source += "([^"\n]*)"', body)
        if found is None:
            return 0, 0, ""
        return body_start + found.start(1), body_start + found.end(1), SOURCES[choice % len(SOURCES)]
    if kind == "newline":  # a line between two top-level blocks
        return body_end, body_end, "\n"
    found = re.search(r'= "()', body)  # a character typed into a value
    at = body_start + found.start(1) if found else body_start
    return at, at, "x"


def _position(text: str, at: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, at) + 1
    return text.count("\n", 0, at), len(text[line_start:at].encode("utf-16-le")) // 2


def _toggle_default(text: str) -> str:
    """The db module's required variable given a default, or the default taken away (its interface changes)."""
    with_default = 'variable "engine_version" {\n  type = string\n  default = "14.9"\n}'
    without = 'variable "engine_version" {\n  type = string\n}'
    return text.replace(with_default, without) if with_default in text else text.replace(without, with_default)


def _checked(snapshot) -> dict:
    return {dir: (snapshot.findings(dir), dir_diagnostics(snapshot, dir)) for dir in snapshot.dirs()}


root_edit = st.tuples(st.sampled_from(["comment", "label", "source", "newline", "value", "child"]),
                 st.integers(min_value=0, max_value=CALLS - 1), st.integers(min_value=0, max_value=7),
                 st.booleans())  # whether the snapshot's findings are read after this edit


@settings(max_examples=EXAMPLES * 3, deadline=None)
@given(edits=st.lists(root_edit, min_size=1, max_size=12))
# An argument commented out of a call whose last check found nothing: the module build replaced
# the call, so it is checked again (a ``missing-argument``).
@example(edits=[("comment", 0, 0, True)])
# A label typed, then an argument of the renamed call commented out (checked against the
# renamed call's name in the carried-over checks).
@example(edits=[("label", 1, 0, True), ("comment", 1, 2, True), ("label", 1, 0, True)])
# A label typed and taken back: the call outputs of the renamed call found again (``module.svc_2.nope``).
@example(edits=[("label", 2, 0, True), ("label", 2, 0, True)])
# A source pointed at the call's own directory (a cycle), then elsewhere.
@example(edits=[("source", 2, 3, True), ("newline", 0, 0, True), ("source", 2, 1, True)])
def test_carried_over_call_checks_equal_a_fresh_analysis(edits):
    texts = dict(TEXTS)
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    everything(host.snapshot())
    parser = new_parser()
    doc = Document("main.tf", 0, texts["main.tf"].encode())
    doc.parse("main.tf", parser)
    for n, (kind, which, choice, read) in enumerate(edits):
        if kind == "child":
            path = "modules/db/main.tf"
            texts[path] = _toggle_default(texts[path])
            host.apply_change(SetSource(path, texts[path].encode()))
        else:
            text = texts["main.tf"]
            start, end, inserted = _edit(text, kind, which, choice)
            texts["main.tf"] = text[:start] + inserted + text[end:]
            doc.apply([TextChange(inserted, (_position(text, start), _position(text, end)))], n + 1)
            assert doc.text == texts["main.tf"]
            host.apply_change(SetParsed(doc.parse("main.tf", parser)))
        snapshot = host.snapshot()
        if read:
            assert _checked(snapshot) == _checked(fresh(texts))
    assert _checked(host.snapshot()) == _checked(fresh(texts))
    assert everything(host.snapshot()) == everything(fresh(texts))


# ---- what the module build and the rebuilt tree say changed ----------------------------------


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(property_edit(), min_size=1, max_size=12))
@example(edits=[(0, 0.25, "comment_argument", "x", 1, "all", True)])
@example(edits=[(0, 0.3, "label", "x", 1, "all", True)])
def test_a_module_build_names_every_call_it_replaced(layout: str, edits):
    """``calls_changed_since`` of a module built from the last one (an open document's files,
    edited by the host property test's edits) names every call whose declaration is not the last
    module's (replaced, added or removed); or says it does not know."""
    for _texts, (module, _, _), (new_module, _, _) in module_builds(layout, edits):
        named = calls_changed_since(new_module, module)
        if named is not None:
            differs = {name for name in module.calls.keys() | new_module.calls.keys()
                       if module.calls.get(name) is not new_module.calls.get(name)}
            assert differs <= named


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(before=st.fixed_dictionaries({d: TREE_CALLS for d in TREE_DIRS}), edited=st.sampled_from(TREE_DIRS), after=TREE_CALLS)
@example(before={**{d: {} for d in TREE_DIRS}, "": {"m1": "./a", "m2": "./b"}}, edited="", after={"m2": "./a", "m1": "./b"})
@example(before={**{d: {} for d in TREE_DIRS}, "": {"m1": "./a", "m3": "./a"}, "b": {"m2": "../a"}}, edited="",
         after={"m2": "./a", "m3": "./a"})
def test_a_rebuilt_module_tree_equals_a_fresh_one(before, edited, after):
    """A module tree rebuilt for the calls of one module that changed (names or sources) equals a
    fresh one: every call's target, each module's callers in order, the roots, the calls leading
    outside DIR; and every call whose target is not the old tree's object is among those it says
    it resolved again (``targets_changed_since``: what the call checks carry over the others by)."""
    modules = {d: tree_module(d, calls) for d, calls in before.items()}
    old = build_module_tree(modules, {})
    modules[edited] = tree_module(edited, after)
    changed = changed_calls(tree_module(edited, before[edited]), modules[edited])
    rebuilt = build_module_tree(modules, {}, (), (old, {(edited, name) for name in changed}))
    fresh_tree = build_module_tree(modules, {})
    assert (rebuilt.targets, rebuilt.callers, rebuilt.roots, rebuilt.outside) == \
        (fresh_tree.targets, fresh_tree.callers, fresh_tree.roots, fresh_tree.outside)
    named = targets_changed_since(rebuilt, old)
    if named is not None:
        assert {key for key in rebuilt.targets.keys() | old.targets.keys() if rebuilt.targets.get(key) is not old.targets.get(key)} <= named


_NAMES = ["m1", "m2", "m3", "m4", "m5"]


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(sources=st.lists(st.sampled_from(["./a", "./b"]), min_size=1, max_size=4),
       before=st.permutations(_NAMES), after=st.permutations(_NAMES))
def test_a_module_tree_rebuilt_for_renamed_calls_equals_a_fresh_one(sources, before, after):
    """The calls of the root renamed (the same sources, so every call links the same two modules
    and the tree is rebuilt, not built afresh): the rebuilt tree lists each module's callers in
    the order a fresh one does (the caller's call order)."""
    calls_before = dict(zip(before, sources))
    calls_after = dict(zip(after, sources))
    modules = {d: tree_module(d, {}) for d in ("a", "b")}
    modules[""] = tree_module("", calls_before)
    old = build_module_tree(modules, {})
    modules[""] = tree_module("", calls_after)
    changed = changed_calls(tree_module("", calls_before), modules[""])
    rebuilt = build_module_tree(modules, {}, (), (old, {("", name) for name in changed}))
    assert rebuilt.rebuilt is not None  # (rebuilt, not built afresh)
    fresh_tree = build_module_tree(modules, {})
    assert (rebuilt.targets, rebuilt.callers, rebuilt.roots) == (fresh_tree.targets, fresh_tree.callers, fresh_tree.roots)
