"""What an editor's host keeps (``retention.EDITOR``, docs/memory.md), and that what it lets go is
invisible: the first edit of a module takes its declarations over as if the host had kept what
its build read, and releasing a module's views once its diagnostics are out changes nothing an
edit or a query sees (``test_host_property.py`` mixes releases into random edits)."""

from __future__ import annotations

from host_support import MANY_CALLS, everything, fresh

from tfphi.analysis import AnalysisHost, SetSource
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.retention import BATCH, EDITOR
from tfphi.syntax.hclfile import Body


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
