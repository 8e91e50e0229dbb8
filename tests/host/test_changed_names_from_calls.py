"""``changed_names`` between a module's last name table and the one ``name_table`` makes after an
edit of its calls is worked out from the changed calls alone (``references._calls_changed_names``,
not by comparing a root's sets of hundreds of names): on the generated workspaces and edits of
test_renamed_names_findings (labels, references, sources typed into or deleted from), each such
answer is the whole comparison's (``references._changed_names``)."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from test_renamed_names_findings import edit_session, edits, workspaces

from tfphi.stir import references

ANSWERED = []


def _checked(old, new, changed):
    answer = _from_calls(old, new, changed)
    assert answer == references._changed_names(old, new), (sorted(changed), old, new)
    ANSWERED.append(answer)
    return answer


_from_calls = references._calls_changed_names


@settings(max_examples=100, deadline=None)
@given(texts=workspaces(), changes=st.lists(edits(), min_size=1, max_size=8))
def test_names_changed_by_call_edits_are_the_whole_comparison_s(texts, changes):
    with mock.patch.object(references, "_calls_changed_names", _checked):
        for host, _, _ in edit_session(texts, changes):
            host.snapshot().findings("")

def test_the_generated_edits_reach_the_calls_answer():
    """(The property above is not vacuous: its edits do take that way, with names changed.)"""
    ANSWERED.clear()
    test_names_changed_by_call_edits_are_the_whole_comparison_s()
    assert sum(1 for answer in ANSWERED if answer) >= 10

