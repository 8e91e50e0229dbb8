"""A module's tables updated for the blocks an edit changed (``stir.model.assemble_module``
with the last build) equal the tables assembled afresh: every table in its order, the
declaration that won each address, the duplicates; and the addresses ``declared_addresses``
names cover every declaration that differs (with the declarations read by position where the
parse spliced the last one's blocks, ``HclFile.splice``). Edits are the host property test's (any text
anywhere, the keystroke shapes among them), typed into every file of a module as open documents."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

import pytest

from host_support import LAYOUTS, declarations
from test_host_property import EXAMPLES, apply, edit

from tfphi.lsp.documents import Document
from tfphi.stir.model import assemble_module, read_declarations
from tfphi.stir.module_changes import changed_calls, declared_addresses
from tfphi.stir.roots import is_outside, missing_local_targets
from tfphi.stir.workspace import build_module_tree, local_target, module_dir_of
from tfphi.syntax.hclfile import new_parser, parse_file


def _tables(module, winners) -> tuple:
    """The module as plain data (its declarations in table order), and each address's winner by its spans."""
    return declarations(module), {address: (type(decl).__name__, decl.span) for address, decl in winners.items()}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(edit(), min_size=1, max_size=12))
def test_updated_tables_equal_fresh_ones(layout: str, edits):
    for texts, (module, winners, decls), (new_module, new_winners, new_decls) in module_builds(layout, edits):
        dir = module.dir
        fresh_decls = {p: read_declarations(parse_file(p, texts[p].encode(), new_parser()).body) for p in new_decls}
        assert _tables(new_module, new_winners) == _tables(*assemble_module(dir, fresh_decls))
        named = declared_addresses(decls, new_decls)
        differs = {a for a in winners.keys() | new_winners.keys() if winners.get(a) is not new_winners.get(a)}
        assert differs <= named


def module_builds(layout: str, edits):
    """The first module of ``layout`` (its files open documents) built again after each of
    ``edits`` (the host property test's) from the last build, as the host does: yields the texts,
    the last build and the new one, each (module, winners, declarations by file)."""
    texts = {p: t for p, t in LAYOUTS[layout].items() if p.endswith(".tf")}
    dir = module_dir_of(sorted(texts)[0])
    paths = sorted(p for p in texts if module_dir_of(p) == dir)
    parser = new_parser()
    docs = {p: Document(p, 0, texts[p].encode()) for p in paths}
    decls = {p: read_declarations(docs[p].parse(p, parser).body) for p in paths}
    module, winners = assemble_module(dir, decls)
    for n, (index, where, kind, inserted, length, _read, _opened) in enumerate(edits):
        path = paths[index % len(paths)]
        texts[path], change = apply(texts[path], where, kind, inserted, length)
        docs[path].apply([change], n + 1)
        new_decls = dict(decls)
        hcl = docs[path].parse(path, parser)
        new_decls[path] = read_declarations(hcl.body, decls[path], hcl.splice)  # by position when the parse spliced
        new_module, new_winners = assemble_module(dir, new_decls, (module, winners, decls))
        yield texts, (module, winners, decls), (new_module, new_winners, new_decls)
        module, winners, decls = new_module, new_winners, new_decls


# ---- the module tree's calls that can reach a module the user does not own -------------------

_DIRS = ["", "a", "b", ".terraform/modules/x", "../outside"]
_SOURCES = ["./a", "./b", "./.terraform/modules/x", "../outside", "./missing", "../../far"]


def _module(dir: str, calls: dict[str, str]):
    path = f"{dir}/main.tf" if dir else "main.tf"
    text = "".join(f'module "{name}" {{\n  source = "{source}"\n}}\n' for name, source in sorted(calls.items()))
    return assemble_module(dir, {path: read_declarations(parse_file(path, text.encode()).body)})[0]


_CALLS = st.dictionaries(st.sampled_from(["m1", "m2", "m3", "m4"]), st.sampled_from(_SOURCES), max_size=4)


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(before=st.fixed_dictionaries({d: _CALLS for d in _DIRS}), edited=st.sampled_from(_DIRS), after=_CALLS)
def test_a_rebuilt_module_tree_names_the_calls_beyond_as_a_fresh_one(before, edited, after):
    """``ModuleTree.calls_beyond`` of a tree rebuilt for some changed calls (which carries the
    last tree's answers over) equals a fresh tree's, for every module."""
    modules = {d: _module(d, calls) for d, calls in before.items()}
    old = build_module_tree(modules, {})
    for d, module in modules.items():
        old.calls_beyond(d, module.calls)  # asked before the edit, as the diagnostics do
    modules[edited] = _module(edited, after)
    changed = changed_calls(_module(edited, before[edited]), modules[edited])
    rebuilt = build_module_tree(modules, {}, (), (old, {(edited, name) for name in changed}))
    fresh = build_module_tree(modules, {})
    for d, module in modules.items():
        assert rebuilt.calls_beyond(d, module.calls) == fresh.calls_beyond(d, module.calls), d


def _outside_walk(modules) -> list[str]:
    """What ``missing_local_targets`` names, by its definition: every module's local sources
    that lead outside DIR to a directory with no module."""
    wanted = set()
    for dir, module in modules.items():
        for call in module.calls.values():
            if call.source is not None and call.source.startswith(("./", "../")):
                target = local_target(dir, call.source)
                if target is not None and is_outside(target) and target not in modules:
                    wanted.add(target)
    return sorted(wanted)


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(before=st.fixed_dictionaries({d: _CALLS for d in _DIRS}), edited=st.sampled_from(_DIRS), after=_CALLS)
@example(before={d: {} for d in _DIRS}, edited="", after={"m1": "../../far"})
@example(before={**{d: {} for d in _DIRS}, "": {"m1": "../../far"}}, edited="", after={"m1": "./a"})
def test_a_rebuilt_module_tree_misses_the_directories_a_walk_of_every_module_does(before, edited, after):
    """``missing_local_targets`` reads the calls the module tree keeps as leading outside DIR
    (``ModuleTree.outside``, updated for the changed calls when a tree is rebuilt): it names the
    directories a walk of every module's calls names, after the edit of one module's calls."""
    modules = {d: _module(d, calls) for d, calls in before.items()}
    old = build_module_tree(modules, {})
    assert missing_local_targets(modules, old) == _outside_walk(modules)
    modules[edited] = _module(edited, after)
    changed = changed_calls(_module(edited, before[edited]), modules[edited])
    rebuilt = build_module_tree(modules, {}, (), (old, {(edited, name) for name in changed}))
    assert missing_local_targets(modules, rebuilt) == _outside_walk(modules)
    assert missing_local_targets(modules, rebuilt, ["../../far"]) == [d for d in _outside_walk(modules) if d != "../../far"]
