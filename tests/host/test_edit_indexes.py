"""What an editor's host keeps to know what an edit re-traces is bounded by what is live: the
memo's ``readers`` (declaration -> the memoized values that read it) and the derived state's
``field_deps`` (declaration -> the modules whose field traces read it) are the exact inverses of
the entries and traces the host holds now, whatever edits came before.

Issue 23's soak (random characters typed anywhere, each taken back later) found them growing
with the number of edits: a keystroke inside a reference (``var.engine_version`` ->
``var.engine_vxersion``) makes up a name that is read (so that declaring it later re-traces
what reads it) and declared nowhere, so never changed again; and a dropped memo entry left its
key under every other declaration it had read. Both stayed for good (bench/README.md,
"Issue 23: soak, session 11").
"""

from __future__ import annotations

from host_support import WORKSPACE, everything

from tfphi.analysis import AnalysisHost, SetSource
from tfphi.tables import readers_of
from tfphi.trace.memo import _declaration_of

DB = "modules/db/main.tf"


def _loaded(texts: dict[str, str]) -> AnalysisHost:
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    everything(host.snapshot())
    return host


def _memo_inverse(host: AnalysisHost) -> dict:
    """``readers`` as the entries the memo holds now say it must be."""
    inverse: dict = {}
    for key, entry in host._trace_memo.memo.items():
        own = _declaration_of(key)
        for read in (*entry.touched, *((own,) if own is not None else ())):
            inverse.setdefault(read, set()).add(key)
    return inverse


def _readers(host: AnalysisHost) -> dict:
    return {read: set(readers_of(keys)) for read, keys in host._trace_memo.readers.items()}


def _field_deps(host: AnalysisHost) -> dict:
    return {read: set(readers_of(dirs)) for read, dirs in host.snapshot()._derived.field_deps.items()}


def _made_up_names(round: int) -> dict[str, str]:
    """The workspace with made-up names typed into two references: a field's (the trace of
    ``engine_version`` reads ``var.engine_version<n>``) and a local's (its memoized value reads
    ``var.instance_class<n>``)."""
    texts = dict(WORKSPACE)
    texts[DB] = (texts[DB].replace("= var.engine_version\n", f"= var.engine_version{round}\n", 1)
                 .replace("class = var.instance_class", f"class = var.instance_class{round}", 1))
    assert texts[DB] != WORKSPACE[DB]
    return texts


def test_the_edit_indexes_are_the_inverse_of_what_is_kept_after_edits_taken_back():
    host = _loaded(WORKSPACE)
    fresh_deps = _field_deps(host)
    sizes = []
    for round in range(6):
        for texts in (_made_up_names(round), WORKSPACE):  # typed, then taken back
            host.apply_change(SetSource(DB, texts[DB].encode()))
            everything(host.snapshot())
            assert _readers(host) == _memo_inverse(host)
        assert _field_deps(host) == fresh_deps  # the texts are the files' again: what a fresh host read
        sizes.append((len(host._trace_memo.readers), len(host.snapshot()._derived.field_deps), len(host.snapshot()._derived.field_reads)))
    assert sizes == [sizes[0]] * 6
    assert not any(read[1].startswith("var.engine_version") and read[1] != "var.engine_version"
                   for read in host.snapshot()._derived.field_deps)


def test_a_module_whose_traces_go_leaves_no_reads_behind():
    host = _loaded(WORKSPACE)
    derived = host.snapshot()._derived
    for dir in list(derived.field_reads):
        derived.drop_fields(dir)
    assert derived.field_deps == {} and derived.field_reads == {}
