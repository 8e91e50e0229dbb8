"""A module's tables renamed in place (``stir.decl_tables.DeclTable``, what a letter typed into a
label does to ``stir.model.Module``): every version, the newest and each one a later change was
made from, reads as the plain dict a build from scratch makes of it: the same entries in the same
order, the renamed key where the old one stood, and no version sees a change made after it (a
snapshot reads the module it was taken with). Generated sequences of changes, each made from the
newest version or from an older one (a host that builds again from a module it moved past),
with every version read again after every change, past the length of diff chains that makes a
version copy itself."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tfphi.stir import decl_tables
from tfphi.stir.decl_tables import DeclTable

_NAMES = [f"n{i}" for i in range(12)]


def _expected(before: dict, changes: dict) -> dict:
    """What a build from scratch makes: each old key's entry replaced where it stood."""
    return {changes[key][0] if key in changes else key: changes[key][1] if key in changes else value for key, value in before.items()}


@st.composite
def _change(draw, keys: list[str]):
    """Renames or new values of some of ``keys`` (new names distinct, none another kept key's)."""
    old = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3, unique=True))
    free = [name for name in _NAMES if name not in keys] + old  # (a name given up by one of ``old`` may be taken: a swap)
    new = draw(st.lists(st.sampled_from(free), min_size=len(old), max_size=len(old), unique=True))
    values = draw(st.lists(st.integers(0, 1000), min_size=len(old), max_size=len(old)))
    return {o: (n, v) for o, n, v in zip(old, new, values)}


def _read(table: DeclTable) -> tuple:
    """Everything a reader sees: the items in order, each look-up, membership, length, the values."""
    return (list(table.items()), {name: table.get(name, "-") for name in _NAMES},
            {name: name in table for name in _NAMES}, len(table), list(table), list(table.values()),
            {key: table[key] for key in table})


def _reference(expected: dict) -> tuple:
    return (list(expected.items()), {name: expected.get(name, "-") for name in _NAMES},
            {name: name in expected for name in _NAMES}, len(expected), list(expected), list(expected.values()),
            dict(expected))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), size=st.integers(1, 8), steps=st.integers(1, 30))
def test_every_version_reads_as_a_fresh_dict(data, size, steps):
    first = {name: i for i, name in enumerate(_NAMES[:size])}
    versions = [(DeclTable.from_mapping(first), first)]
    for _ in range(steps):
        # Mostly from the newest version (the host's next build), sometimes from an older one.
        at = data.draw(st.one_of(st.just(len(versions) - 1), st.integers(0, len(versions) - 1)))
        table, expected = versions[at]
        changes = data.draw(_change(list(expected)))
        versions.append((table.replaced(changes), _expected(expected, changes)))
        for table, expected in versions:  # (each version read after every later change)
            assert _read(table) == _reference(expected)
            assert table == expected


def test_an_old_version_far_behind_copies_itself_and_still_reads_as_it_was():
    first = {name: i for i, name in enumerate(_NAMES[:4])}
    old = table = DeclTable.from_mapping(first)
    for step in range(3 * decl_tables._MAX_CHAIN):
        table = table.replaced({"n0" if step % 2 == 0 else "n0x": ("n0x" if step % 2 == 0 else "n0", step)})
    assert list(old.items()) == list(first.items())
    assert old._diff is None and old._store is not table._store  # (copied on its first read)
    assert list(old.items()) == list(first.items())
    assert dict(table.items()) == {"n0": 3 * decl_tables._MAX_CHAIN - 1, "n1": 1, "n2": 2, "n3": 3}
