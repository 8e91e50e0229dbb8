"""The incremental host equals a fresh analysis: random edits in any file of a multi-module,
multi-root workspace leave field traces, findings, diagnostics and every span exactly what a
fresh host computes from the same texts (issue 11, point 6).

Snapshots are read at random points (all modules, some, part of some, or none), so cached
traces cross several revisions with queued moves before they are read, and tracing left half
done (the server's background work stops between two fields when an edit arrives) goes on
in a later revision.
"""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from host_support import LAYOUTS, everything, fresh

from tfphi.analysis import AnalysisHost, SetSource

EXAMPLES = int(os.environ.get("TFPHI_HOST_EXAMPLES", "40"))

# Edits people make: lines above a declaration, comments, a value changed in place, text
# typed or deleted anywhere (which may break the syntax for a while).
INSERTS = ["\n", "# note\n", "\n\n# two lines\n", "  ", "x", '"', "}", "{", "locals {\n  extra = 1\n}\n", "é"]


@st.composite
def edit(draw):
    path = draw(st.integers(min_value=0, max_value=100))  # an index into the layout's files
    where = draw(st.floats(min_value=0, max_value=1))
    kind = draw(st.sampled_from(["insert", "insert_line", "delete", "retype"]))
    text = draw(st.sampled_from(INSERTS))
    length = draw(st.integers(min_value=1, max_value=12))
    read = draw(st.sampled_from(["all", "some", "partial", "none"]))
    return path, where, kind, text, length, read


def apply(text: str, where: float, kind: str, inserted: str, length: int) -> str:
    at = int(where * len(text))
    if kind == "insert_line":
        at = text.rfind("\n", 0, at) + 1  # at a line start: everything below moves
        return text[:at] + inserted + text[at:]
    if kind == "insert":
        return text[:at] + inserted + text[at:]
    if kind == "delete":
        return text[:at] + text[at + length :]
    # retype: delete then type the same characters back (the text returns; trees and caches churn)
    return text


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(edit(), min_size=1, max_size=10))
def test_random_edits_equal_a_fresh_analysis(layout: str, edits):
    texts = dict(LAYOUTS[layout])
    paths = sorted(texts)
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in texts.items()])
    everything(host.snapshot())  # analysed once, as the server does after indexing
    for n, (index, where, kind, inserted, length, read) in enumerate(edits):
        path = paths[index % len(paths)]
        texts[path] = apply(texts[path], where, kind, inserted, length)
        host.apply_change(SetSource(path, texts[path].encode()))
        snapshot = host.snapshot()
        if read == "all":
            everything(snapshot)
        elif read == "some":
            for dir in snapshot.dirs()[n % 2 :: 2]:
                snapshot.field_traces(dir)
        elif read == "partial":  # the first step of each module's tracing, as a background pass cut short
            for dir in snapshot.dirs():
                next(iter(snapshot.field_steps(dir)), None)
    assert everything(host.snapshot()) == everything(fresh(texts))
