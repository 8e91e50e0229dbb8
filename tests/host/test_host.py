"""AnalysisHost and Snapshot: one way in, immutable snapshots, cancellation, anchored spans,
isolated failures (issue 11, point 5)."""

from __future__ import annotations

import pytest

import tfphi.analysis as analysis_module
from host_support import WORKSPACE, everything, fresh

from tfphi.analysis import AnalysisHost, Remove, SetSource
from tfphi.cancellation import Cancelled
from tfphi.features.diagnostics import dir_diagnostics, workspace_diagnostics


def host_of(texts: dict[str, str]) -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    return host


def test_a_snapshot_is_the_same_object_until_the_next_change():
    host = host_of(WORKSPACE)
    first = host.snapshot()
    assert host.snapshot() is first
    host.apply_change(SetSource("envs/dev/main.tf", b"# emptied\n"))
    second = host.snapshot()
    assert second is not first and second.revision > first.revision


def test_a_snapshot_never_changes_under_its_reader():
    """Its inputs are its own: a later change shows in the next snapshot only."""
    host = host_of(WORKSPACE)
    snapshot = host.snapshot()
    files, modules = dict(snapshot.files), dict(snapshot.modules)
    host.apply_change([SetSource("modules/extra/main.tf", b'locals {\n  a = 1\n}\n'), Remove("envs/dev/main.tf")])
    assert snapshot.files == files and snapshot.modules == modules
    assert "modules/extra" in host.snapshot().modules and "envs/dev" not in host.snapshot().modules


def test_queries_on_a_superseded_snapshot_are_cancelled():
    host = host_of(WORKSPACE)
    stale = host.snapshot()
    host.apply_change(SetSource("envs/dev/main.tf", WORKSPACE["envs/dev/main.tf"].replace("14.9", "14.10").encode()))
    assert stale.cancelled
    with pytest.raises(Cancelled):
        stale.field_traces("modules/db")
    with pytest.raises(Cancelled):
        stale.findings("modules/db")
    assert not host.snapshot().cancelled
    assert host.snapshot().field_traces("modules/db")


def test_changed_since_names_what_an_edit_touched():
    host = host_of(WORKSPACE)
    first = host.snapshot()
    everything(first)
    host.apply_change(SetSource("envs/dev/main.tf", WORKSPACE["envs/dev/main.tf"].replace("14.9", "14.10").encode()))
    host.snapshot()
    changes = host.changed_since(first.revision)
    assert changes is not None
    assert "envs/dev" in changes.dirs and "modules/db" in changes.dirs  # the caller's argument reaches the child's traces
    assert "envs/prod" not in changes.dirs


def test_comment_lines_above_a_childs_output_leave_every_span_right():
    """Defect 5: two comment lines above a child's ``output`` left a root field's ``source``
    pointing at ``'utput '``. The cached trace is kept (the output only moved) and its spans
    are shifted; each reads the same text as before."""
    host = host_of(WORKSPACE)
    before = host.snapshot()
    [copy] = [t for t in before.field_traces("envs/prod") if t.resource.address == "aws_db_instance.copy" and t.field_path == ("engine_version",)]
    unbounded_before = copy.result.unbounded
    assert unbounded_before is not None and unbounded_before.span.file == "modules/db/main.tf"
    text_before = before.text(unbounded_before.span)
    edited = WORKSPACE["modules/db/main.tf"].replace('output "version"', '# one\n# two\noutput "version"')
    host.apply_change(SetSource("modules/db/main.tf", edited.encode()))
    after = host.snapshot()
    [copy] = [t for t in after.field_traces("envs/prod") if t.resource.address == "aws_db_instance.copy" and t.field_path == ("engine_version",)]
    assert after.text(copy.result.unbounded.span) == text_before == "aws_db_instance.this.engine_version"
    assert everything(after) == everything(fresh({**WORKSPACE, "modules/db/main.tf": edited}))


def test_an_edit_above_a_callers_declaration_moves_the_childs_related_span():
    """Defect 5: an edit above a caller left another module's related span reading the wrong text."""
    texts = dict(WORKSPACE)
    host = host_of(texts)
    [diag] = [d for d in dir_diagnostics(host.snapshot(), "modules/cache") if d.code == "unbounded-field"]
    [related] = diag.related
    assert related.span.file == "envs/prod/main.tf"
    said = host.snapshot().text(related.span)
    texts["envs/prod/main.tf"] = "# a comment\n\n" + texts["envs/prod/main.tf"]
    host.apply_change(SetSource("envs/prod/main.tf", texts["envs/prod/main.tf"].encode()))
    snapshot = host.snapshot()
    changes = host.changed_since(snapshot.revision - 1)
    assert "modules/cache" not in changes.dirs and "envs/prod/main.tf" in changes.moved_files  # (its trace kept)
    [diag] = [d for d in dir_diagnostics(snapshot, "modules/cache") if d.code == "unbounded-field"]
    assert snapshot.text(diag.related[0].span) == said


@pytest.fixture
def fault_in(monkeypatch):
    """Makes the analysis of one module raise at one stage, through the test-only hook."""

    def install(bad_dir: str, stage: str) -> None:
        def fault(at: str, dir: str) -> None:
            if dir == bad_dir and at == stage:
                raise RuntimeError(f"injected fault in {dir} ({at})")

        monkeypatch.setattr(analysis_module, "_fault_injection", fault)

    return install


@pytest.mark.parametrize("stage", ["build", "findings", "fields"])
def test_a_module_whose_analysis_raises_is_isolated(fault_in, stage: str):
    """Defect 6: one module's failure stopped every later module's diagnostics."""
    # A module that fails to build is analysed as absent; one whose findings or traces raise
    # only loses those: the modules that read it see what they would see then.
    without = {k: v for k, v in WORKSPACE.items() if not k.startswith("modules/db/")} if stage == "build" else WORKSPACE
    expected = workspace_diagnostics(host_of(without).snapshot())
    fault_in("modules/db", stage)
    snapshot = host_of(WORKSPACE).snapshot()
    got = workspace_diagnostics(snapshot)
    assert list(snapshot.failures) == [f"{stage}:modules/db"]
    assert "injected fault in modules/db" in snapshot.failures[f"{stage}:modules/db"]
    # every other module's diagnostics are what they are without the fault
    others = lambda diags: {f: d for f, d in diags.items() if not f.startswith("modules/db/") and not f.startswith("envs/")}  # noqa: E731
    assert others(got) == others(expected)
    assert "modules/cache/main.tf" in got


def test_a_failure_is_retried_when_the_module_changes(fault_in):
    fault_in("modules/db", "fields")
    host = host_of(WORKSPACE)
    assert host.snapshot().field_traces("modules/db") == []
    analysis_module._fault_injection = None
    host.apply_change(SetSource("modules/db/variables.tf", (WORKSPACE["modules/db/variables.tf"] + "\n").encode()))
    snapshot = host.snapshot()
    assert snapshot.field_traces("modules/db") and snapshot.failures == {}


def test_an_edited_document_takes_over_the_blocks_the_edit_left_alone():
    """Positions relative to their top-level block: the blocks above and below the edit are the
    same objects, their declarations and traces too; the blocks below are where the new text
    has them because their anchor moved, and the module built from them is the one a fresh
    parse gives (the property test checks whole analyses; this checks the take-over happens)."""
    from host_support import MANY_CALLS

    from tfphi.analysis import SetParsed
    from tfphi.lsp.documents import Document, TextChange
    from tfphi.syntax.hclfile import new_parser

    host = host_of(MANY_CALLS)
    parser = new_parser()
    text = MANY_CALLS["main.tf"]
    doc = Document("main.tf", 1, text.encode())
    host.apply_change(SetParsed(doc.parse("main.tf", parser)))
    everything(host.snapshot())  # bodies read
    before = {b.labels: b for b in host.files["main.tf"].body.blocks}
    old_start = before[("db_3",)].span.start
    old_engine = before[("db_3",)].body.attributes["engine_version"]
    old_engine_start = old_engine.span.start
    call = host.snapshot().modules[""].calls["db_3"]
    traces = host.snapshot().field_traces("modules/db")
    at = text.index('"15.2"') + 2
    line = text.count("\n", 0, at)
    doc.apply([TextChange("x", ((line, at - text.rfind("\n", 0, at) - 1),) * 2)], 2)
    host.apply_change(SetParsed(doc.parse("main.tf", parser)))
    after = {b.labels: b for b in host.files["main.tf"].body.blocks}
    assert after[("db_0",)] is before[("db_0",)]  # above the edit: the same block object
    assert after[("db_2",)] is not before[("db_2",)]  # the edited block: read anew
    below = after[("db_3",)]
    assert below is before[("db_3",)]  # below: the same object, its anchor moved by the edit
    assert below.span.start == old_start + 1 and below.body.attributes["engine_version"] is old_engine
    assert old_engine.span.start == old_engine_start + 1
    snapshot = host.snapshot()
    assert snapshot.modules[""].calls["db_3"] is call  # the same declaration
    assert all(t.result.expr_span.start == s.result.expr_span.start for t, s in zip(traces, snapshot.field_traces("modules/db")))
    assert everything(snapshot) == everything(fresh({**MANY_CALLS, "main.tf": doc.text}))
    column = at - text.rfind("\n", 0, at) - 1
    for version in (3, 4):
        doc.apply([TextChange("y", ((line, column),) * 2)], version)
        host.apply_change(SetParsed(doc.parse("main.tf", parser)))
    again = {b.labels: b for b in host.files["main.tf"].body.blocks}
    assert again[("db_4",)] is before[("db_4",)] and again[("db_4",)].span.start == before[("db_4",)].span.start
    assert everything(host.snapshot()) == everything(fresh({**MANY_CALLS, "main.tf": doc.text}))


def test_a_file_the_edit_left_alone_keeps_its_derived_state_only_while_its_names_hold():
    """A module's files whose parse is unchanged keep their declarations, fingerprints and findings
    (``AnalysisHost._decls``, ``_findings_of_files``), but their findings are redone when the
    names they resolve against change (a variable removed in the other file), and an edit in
    the other file shifts nothing of theirs."""
    texts = {
        "main.tf": 'resource "aws_db_instance" "a" {\n  engine         = "postgres"\n  engine_version = var.v\n}\n',
        "variables.tf": 'variable "v" {\n  type    = string\n  default = "15.4"\n}\n',
    }
    host = host_of(texts)
    first = host.snapshot()
    assert first.findings("") == []
    main = host.files["main.tf"]
    for variables in ('# above\nvariable "v" {\n  type    = string\n  default = "15.4"\n}\n',
                      'variable "w" {\n  type    = string\n  default = "15.4"\n}\n',
                      'variable "v" {\n  type    = string\n  default = "16.1"\n}\n'):
        host.set_source("variables.tf", variables.encode())
        snapshot = host.snapshot()
        assert host.files["main.tf"] is main
        assert everything(snapshot) == everything(fresh({**texts, "variables.tf": variables}))
    assert [f.code for f in fresh({**texts, "variables.tf": 'variable "w" {\n  type = string\n}\n'}).findings("")] == ["undefined-reference"]


def test_hop_results_outlive_a_snapshot_only_while_nothing_they_read_changed():
    """The tracers' memo is kept across snapshots (``trace.memo.MemoStore``): an entry whose
    declaration, or a declaration it read, changed is dropped; the rest are reused, those that
    read declarations that only moved too (their spans are relative to their blocks), and every
    trace equals a fresh analysis's."""
    host = host_of(WORKSPACE)
    everything(host.snapshot())
    store = host._trace_memo
    mode = ("var", (("", "envs/prod"),), "mode", ())
    assert mode in store.memo
    dev_keys = {key for key in store.memo if key[1][0][1] == "envs/dev"}
    assert dev_keys
    edited = WORKSPACE["envs/prod/main.tf"].replace('default = "prod"', 'default = "dev"')
    host.set_source("envs/prod/main.tf", edited.encode())
    snapshot = host.snapshot()
    assert mode not in store.memo  # its declaration changed
    assert not any((("", "envs/prod"),) == key[1][:1] and "engine_version" in key for key in store.memo)  # read var.mode
    assert dev_keys <= store.memo.keys()  # the other root's entries read nothing that changed
    assert everything(snapshot) == everything(fresh({**WORKSPACE, "envs/prod/main.tf": edited}))
    kept = set(store.memo)
    moved = "# a line above everything\n" + edited
    host.set_source("envs/prod/main.tf", moved.encode())
    snapshot = host.snapshot()
    assert kept <= store.memo.keys()  # every declaration there only moved: the same objects
    assert dev_keys <= store.memo.keys()
    assert everything(snapshot) == everything(fresh({**WORKSPACE, "envs/prod/main.tf": moved}))


def _edit_document(host, doc, parser, old: str, new: str, version: int) -> str:
    """Replaces the first ``old`` of an open document's text by ``new``, as an editor's change."""
    from tfphi.analysis import SetParsed
    from tfphi.lsp.documents import TextChange

    text = doc.text
    at = text.index(old)
    end = at + len(old)
    position = lambda i: (text.count("\n", 0, i), i - text.rfind("\n", 0, i) - 1)  # ASCII text
    doc.apply([TextChange(new, (position(at), position(end)))], version)
    host.apply_change(SetParsed(doc.parse(doc.uri, parser)))
    return doc.text


def test_a_module_build_takes_over_the_declarations_of_the_blocks_an_edit_left_alone():
    """stir.model.read_declarations: a block above or below the edit keeps its declarations (the
    same objects, below with their anchor moved), and the module is what a fresh analysis builds; an edit
    that renames a call, changes its source, adds a second declaration of a name or breaks the
    syntax is not mistaken for a move."""
    from host_support import MANY_CALLS

    from tfphi.analysis import SetParsed
    from tfphi.lsp.documents import Document
    from tfphi.syntax.hclfile import new_parser

    host = host_of(MANY_CALLS)
    parser = new_parser()
    doc = Document("main.tf", 1, MANY_CALLS["main.tf"].encode())
    host.apply_change(SetParsed(doc.parse("main.tf", parser)))
    everything(host.snapshot())
    calls = dict(host.snapshot().modules[""].calls)
    variables = dict(host.snapshot().modules[""].variables)
    text = _edit_document(host, doc, parser, '"15.2"', '"15.20"', 2)
    snapshot = host.snapshot()
    module = snapshot.modules[""]
    assert module.calls["db_0"] is calls["db_0"] and module.variables["size_1"] is variables["size_1"]  # above the edit
    assert module.calls["db_2"] is not calls["db_2"]  # the edited call: read again
    below = module.calls["db_4"]
    start = calls["db_4"].span.start
    assert below is calls["db_4"] and below.span.start == start  # (the same object: the span is read now)
    assert below.block is next(b for b in host.files["main.tf"].body.blocks if b.labels == ("db_4",))
    assert everything(snapshot) == everything(fresh({**MANY_CALLS, "main.tf": text}))
    version = 3
    for old, new in [('module "db_5"', 'module "db_five"'),  # renamed
                     ('source         = "./modules/db"\n  engine_version = var.mode == "prod" ? "15.3"',
                      'source         = "./modules/nowhere"\n  engine_version = var.mode == "prod" ? "15.3"'),  # another source
                     ('module "db_1"', 'module "db_0"'),  # a second declaration of db_0
                     ('module "db_0"', 'module "db_1"'),
                     ('variable "size_0" {', 'variable "size_0" {{'),  # a syntax error
                     ('variable "size_0" {{', 'variable "size_0" {'),
                     ("\n\nmodule", "\n\n# a comment\nmodule")]:
        text = _edit_document(host, doc, parser, old, new, version)
        version += 1
        assert everything(host.snapshot()) == everything(fresh({**MANY_CALLS, "main.tf": text})), (old, new)
