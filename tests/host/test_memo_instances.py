"""The memo of an editor's host keeps values of module instances that exist: every key's call path
is a path of the host's module tree now, whatever calls were renamed or pointed elsewhere before.

Issue 23's soak (random characters typed anywhere, each taken back later) found the memo growing
by about 130 entries a minute at 1,000 modules, every one of them under a call path the module
tree no longer had (``TFPHI_MEMORY_SAMPLE``'s ``memo.dead_keys``): a character typed into a
call's label (``module "db"`` -> ``module "dxb"``) makes a new instance whose values are traced
and kept; taken back, that instance is gone, but a local of the called module reads only that
module, which did not change, so ``forget`` never dropped it (docs/memory.md, "Where the
resident memory is").
"""

from __future__ import annotations

from host_support import WORKSPACE, everything

from tfphi.analysis import AnalysisHost, SetSource

PROD = "envs/prod/main.tf"


def _loaded() -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in WORKSPACE.items()])
    everything(host.snapshot())
    return host


def _dead_paths(host: AnalysisHost) -> set[tuple]:
    """The call paths of memo keys that are not instances of the host's module tree."""
    tree = host._tree
    dead = set()
    for key in host._trace_memo.memo:
        path = key[1]
        live = path[0][1] in tree.roots and all(
            (target := tree.targets.get((caller[1], call[0]))) is not None and target.dir == call[1]
            for caller, call in zip(path, path[1:]))
        if not live:
            dead.add(path)
    return dead


def _paths_index(host: AnalysisHost) -> dict:
    paths = host._trace_memo.paths
    assert all(len(set(keys)) == len(keys) for keys in paths.values())  # (a list: no key twice)
    return {path: set(keys) for path, keys in paths.items()}


def _by_path(host: AnalysisHost) -> dict:
    index: dict = {}
    for key in host._trace_memo.memo:
        index.setdefault(key[1], set()).add(key)
    return index


def _through_index(host: AnalysisHost) -> dict:
    return {call: set(paths) if isinstance(paths, set) else {paths} for call, paths in host._trace_memo.through.items()}


def _through(host: AnalysisHost) -> dict:
    """``through`` as the memo's paths say it must be: each call -> the paths that go through it."""
    index: dict = {}
    for path in _by_path(host):
        for caller, call in zip(path, path[1:]):
            index.setdefault((caller[1], call[0]), set()).add(path)
    return index


def _edited(round: int, how: str) -> str:
    text = WORKSPACE[PROD]
    if how == "label":  # a character typed into a call's label: another instance of modules/db
        edited = text.replace('module "db" {', f'module "d{round}b" {{', 1).replace("module.db.", f"module.d{round}b.")
    else:  # the call pointed elsewhere: modules/cache/params becomes a root, then stops being one
        edited = text.replace('"../../modules/cache"', '"../../modules/cache/params"', 1)
    assert edited != text
    return edited


def test_a_call_renamed_and_taken_back_leaves_no_entry_of_the_gone_instance():
    host = _loaded()
    fresh = set(host._trace_memo.memo)
    assert any(len(key[1]) > 1 for key in fresh)  # values of called modules' instances are kept
    sizes = []
    for round in range(4):
        for how in ("label", "source"):
            for text in (_edited(round, how), WORKSPACE[PROD]):  # typed, then taken back
                host.apply_change(SetSource(PROD, text.encode()))
                everything(host.snapshot())
                assert _dead_paths(host) == set()
                assert _paths_index(host) == _by_path(host)  # the indexes are the exact inverses
                assert _through_index(host) == _through(host)
        sizes.append(len(host._trace_memo.memo))
    assert sizes == [sizes[0]] * 4
    assert set(host._trace_memo.memo) <= fresh  # the texts are the files' again: what a fresh host keeps, or less


def test_forgetting_a_declaration_takes_its_entries_out_of_the_paths_index():
    host = _loaded()
    host.apply_change(SetSource("modules/db/main.tf", WORKSPACE["modules/db/main.tf"].replace("var.instance_class", "var.instance_class2").encode()))
    everything(host.snapshot())
    assert _paths_index(host) == _by_path(host) and _through_index(host) == _through(host)
    host._trace_memo.clear()
    assert host._trace_memo.paths == {} and host._trace_memo.through == {} and host._trace_memo.memo == {}
