"""What an editor's host keeps (``retention.EDITOR``, docs/memory.md), and that what it lets go is
invisible: the first edit of a module takes its declarations over as if the host had kept what
its build read, and releasing a module's views once its diagnostics are out changes nothing an
edit or a query sees (``test_host_property.py`` mixes releases into random edits)."""

from __future__ import annotations

import gc

from host_support import MANY_CALLS, everything, fresh

from tfphi.analysis import AnalysisHost, SetSource
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.retention import BATCH, EDITOR, Retention
from tfphi.syntax.hclfile import Body, HclFile


def _loaded(texts: dict[str, str]) -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    everything(host.snapshot())
    return host


def _attributes(body: Body):
    for attribute in body.attributes.values():
        yield attribute
    for block in body.blocks:
        if block._body is not None:
            yield from _attributes(block._body)


def test_an_editor_host_keeps_the_state_of_a_build_once_its_module_is_built_again():
    host = _loaded(MANY_CALLS)
    assert host.retention is EDITOR
    assert host._decls == {} and host._declared == {}  # nothing is kept for a module never edited
    texts = dict(MANY_CALLS)
    costs = []
    for _ in range(2):  # the first edit derives the last build's state from its module, the second has it kept
        before = host.snapshot().modules[""]
        traced = host.units_traced
        texts["main.tf"] = "\n# a line above every block\n" + texts["main.tf"]
        host.apply_change(SetSource("main.tf", texts["main.tf"].encode()))
        snapshot = host.snapshot()
        after = snapshot.modules[""]
        # Every block moved, none changed: each declaration is the same object (``stir.model.kept_declarations``).
        assert len(list(after.declarations())) == len(list(before.declarations()))
        assert all(a is b for a, b in zip(after.declarations(), before.declarations()))
        everything(snapshot)
        costs.append(host.units_traced - traced)
        assert set(host._decls) == {""}  # built again: kept from now on
    assert costs[0] == costs[1]  # (the fields of the root's own resources, whose spans moved)
    assert everything(host.snapshot()) == everything(fresh(texts))


def test_the_first_edit_that_changes_a_declaration_redoes_what_read_it():
    host = _loaded(MANY_CALLS)
    texts = dict(MANY_CALLS)
    texts["main.tf"] = texts["main.tf"].replace('"15.0"', '"16.0"', 1)  # module db_0's engine_version
    assert texts["main.tf"] != MANY_CALLS["main.tf"]
    host.apply_change(SetSource("main.tf", texts["main.tf"].encode()))
    assert everything(host.snapshot()) == everything(fresh(texts))


def test_releasing_a_module_forgets_the_expressions_of_its_files_not_open_and_keeps_its_traces():
    host = _loaded(MANY_CALLS)
    snapshot = host.snapshot()
    before = everything(snapshot)
    converted = sum(a._expr is not None for hcl in snapshot.files.values() for a in _attributes(hcl.body))
    assert converted
    for dir in snapshot.dirs():
        dir_diagnostics(snapshot, dir)
        snapshot.release(dir)
    assert not any(a._expr is not None for hcl in snapshot.files.values() for a in _attributes(hcl.body))
    # an editor's host keeps the traces, the findings and what they read (for the next edit)
    assert set(snapshot._derived.fields) == set(snapshot.modules) and host._trace_memo.memo
    assert host._findings_of_files and all(hcl.tops[3::4] and all(r is not None for r in hcl.tops[3::4])
                                           for hcl in snapshot.files.values())
    assert everything(snapshot) == before


def test_the_two_policies():
    assert EDITOR.keeps_edit_state and not EDITOR.releases_traces
    assert not BATCH.keeps_edit_state and BATCH.releases_traces
    assert EDITOR.memo_store().edits and not BATCH.memo_store().edits


def test_an_editor_host_forgets_the_views_of_a_parse_once_and_a_batch_host_each_time():
    host = _loaded(MANY_CALLS)
    snapshot = host.snapshot()
    for dir in snapshot.dirs():
        dir_diagnostics(snapshot, dir)
        snapshot.release(dir)
    hcl = snapshot.files["modules/db/main.tf"]
    assert hcl.forgotten and hcl.body.blocks[0]._body is None  # (a resource's body: read again when asked)
    attribute = hcl.body.blocks[0].body.attributes["engine"]
    expr = attribute.expr  # read again (an edit's trace, a hover): converted again
    snapshot.release("modules/db")
    # a module analysed again after its first analysis keeps what it derived
    assert hcl.body.blocks[0].body.attributes["engine"] is attribute and attribute._expr is expr
    batch = AnalysisHost(retention=BATCH)
    batch.apply_change([SetSource(path, text.encode()) for path, text in MANY_CALLS.items()])
    snapshot = batch.snapshot()
    hcl = snapshot.files["modules/db/main.tf"]
    for _ in range(2):
        hcl.body.blocks[0].body.attributes["engine"].expr
        snapshot.release("modules/db")
        assert hcl.body.blocks[0]._body is None


def _held_modules(snapshot) -> set[str]:
    """The modules with a file not open whose views hold a converted expression."""
    return {path.rpartition("/")[0] for path, hcl in snapshot.files.items()
            if hcl.tree is None and any(a._expr is not None for a in _attributes(hcl.body))}


def test_the_views_read_again_are_kept_for_a_bounded_number_of_modules():
    # A hover or a caller's re-trace reads the views of modules already released, and nothing
    # releases those again: the host keeps them for its bound of modules, no more.
    leaves = {f"modules/m{i}/main.tf": f'variable "size" {{\n  default = {i}\n}}\n\n'
              f'resource "aws_instance" "this" {{\n  ami   = "ami-{i}"\n  count = var.size + 1\n}}\n'
              for i in range(6)}
    root = "".join(f'module "m{i}" {{\n  source = "./modules/m{i}"\n  size   = {i}\n}}\n\n' for i in range(6))
    texts = {"main.tf": root, **leaves}
    host = AnalysisHost(retention=Retention("editor", keeps_edit_state=True, releases_traces=False, reread_modules=2))
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    snapshot = host.snapshot()
    before = everything(snapshot)
    for dir in snapshot.dirs():
        dir_diagnostics(snapshot, dir)
        snapshot.release(dir)
    assert _held_modules(snapshot) == set()
    for i in range(6):  # read again, module after module (a hover's read of the resource's arguments)
        for attribute in snapshot.files[f"modules/m{i}/main.tf"].body.blocks[1].body.attributes.values():
            attribute.expr
        assert _held_modules(snapshot) == {f"modules/m{j}" for j in range(max(0, i - 1), i + 1)}
        assert host._reread_views.modules() == sorted(_held_modules(snapshot))
    assert everything(snapshot) == before == everything(fresh(texts))
    # released again, a module whose views were forgotten past the bound is told again
    snapshot.files["modules/m0/main.tf"].body.blocks[1].body.attributes["ami"].expr
    assert host._reread_views.modules() == ["modules/m5", "modules/m0"]


def test_a_forgotten_file_parsed_anew_is_freed_without_the_cycle_collector():
    # The re-read notice names the file by path: were it to hold the file, the file's views would
    # hold a cycle through their converter, and each file replaced would wait for a full collection.
    texts = {"main.tf": 'module "m" {\n  source = "./m"\n}\n',
             "m/main.tf": 'resource "aws_instance" "this" {\n  ami = "ami-1"\n}\n'}
    host = _loaded(texts)
    snapshot = host.snapshot()
    for dir in snapshot.dirs():
        dir_diagnostics(snapshot, dir)
        snapshot.release(dir)
    assert snapshot.files["m/main.tf"].forgotten
    del snapshot
    gc.collect()
    gc.disable()
    try:
        before = sum(type(o) is HclFile for o in gc.get_objects())
        host.apply_change(SetSource("m/main.tf", b'resource "aws_instance" "this" {\n  ami = "ami-2"\n}\n'))
        everything(host.snapshot())
        assert sum(type(o) is HclFile for o in gc.get_objects()) == before
    finally:
        gc.enable()
