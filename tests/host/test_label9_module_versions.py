"""Every build of an edited module keeps reading what it read when it was made: a module's tables
and winners renamed or replaced in place (``stir.decl_tables``: the next build writes into the
store the last one reads through its diffs) show no later edit to whoever still holds an older
build (a snapshot the host moved past, the host's own comparison of the last build with the new
one). Generated edits (the host property test's, with labels typed into blocks weighted up, as
the keystroke goal's root edit) into every layout's first module, each build read again after
every later build; and each build's tables equal a fresh assembly's, in order
(``test_incremental_tables`` checks the newest build alone)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from host_support import LAYOUTS
from test_host_property import EXAMPLES, edit
from test_incremental_tables import module_builds


def _held(module, winners) -> tuple:
    """What a build holds: each table's (key, declaration) in order, the winner of each address
    (declarations by identity: an older build must hold the very objects it was made with)."""
    tables = (module.variables, module.locals, module.resources, module.data, module.calls, module.outputs)
    return (tuple(tuple((key, id(decl)) for key, decl in table.items()) for table in tables),
            tuple(sorted((address, id(decl)) for address, decl in winners.items())),
            tuple(tuple((key, id(table.get(key)), key in table) for key in table) for table in tables))


@st.composite
def _label_heavy_edit(draw):
    path, where, kind, text, length, read, opened = draw(edit())
    if draw(st.booleans()):
        kind = "label"
    return path, where, kind, text, length, read, opened


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(edits=st.lists(_label_heavy_edit(), min_size=1, max_size=16))
def test_an_older_build_sees_no_later_edit(layout: str, edits):
    builds = []  # (the build's module and winners, what it held when made); each kept alive, as a snapshot would
    for n, (_texts, old, (module, winners, _decls)) in enumerate(module_builds(layout, edits)):
        if n == 0:
            builds.append((old[:2], _held(*old[:2])))
        builds.append(((module, winners), _held(module, winners)))
        for (kept_module, kept_winners), held in builds:
            assert _held(kept_module, kept_winners) == held
