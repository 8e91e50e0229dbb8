"""A block's findings are kept across a change of its module's names unless it looks one of
the changed names up (``stir.file_findings``): for any reference and any two name tables, a
reference none of whose looked-up names changed resolves the same way against both."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tfphi.stir.file_findings import looked_up
from tfphi.stir.references import changed_names
from tfphi.stir.references import NameTable, resolve

NAMES = st.sampled_from(["a", "b", "c"])
ROOTS = st.sampled_from(["var", "local", "module", "data", "aws_x", "aws_y", "each", "count", "path", "provider::p"])


@st.composite
def tables(draw) -> NameTable:
    names = lambda: frozenset(draw(st.lists(NAMES, max_size=3)))  # noqa: E731
    pairs = lambda firsts: frozenset(f"{draw(firsts)}.{draw(NAMES)}" for _ in range(draw(st.integers(0, 3))))  # noqa: E731
    calls = names()
    outputs = tuple((call, draw(st.sampled_from(["m1", "m2"])), names()) for call in sorted(calls) if draw(st.booleans()))
    return NameTable(names(), names(), pairs(st.sampled_from(["aws_x", "aws_y"])), pairs(NAMES), calls, outputs)


@settings(max_examples=400, deadline=None)
@given(root=ROOTS, names=st.lists(NAMES, min_size=1, max_size=3), old=tables(), new=tables())
@example(root="module", names=["a", "b"],  # the call's target lost the output it names
         old=NameTable(frozenset(), frozenset(), frozenset(), frozenset(), frozenset("a"), (("a", "m1", frozenset("b")),)),
         new=NameTable(frozenset(), frozenset(), frozenset(), frozenset(), frozenset("a"), (("a", "m1", frozenset()),)))
def test_a_reference_whose_names_did_not_change_resolves_the_same(root, names, old, new):
    ref = (root, tuple(names), 0, 1, (1,) * len(names))
    if looked_up([ref]).isdisjoint(changed_names(old, new)):
        assert resolve(root, tuple(names), old) == resolve(root, tuple(names), new)


ENTRIES = [(call, target, frozenset(outputs)) for call in "abcd" for target in ("m1", "m2") for outputs in ("", "x", "xy")]


@st.composite
def outputs_pairs(draw) -> tuple[tuple, tuple]:
    """Two tables' ``outputs`` (sorted, one entry per call) that share some entry objects, as a
    table and the one ``name_table`` makes from it do, and hold equal ones that are not shared."""
    def outputs():
        chosen = {}
        for entry in draw(st.lists(st.sampled_from(ENTRIES), max_size=4)):
            chosen[entry[0]] = entry if draw(st.booleans()) else (entry[0], entry[1], frozenset(entry[2]))  # (a copy: equal, not the same)
        return tuple(chosen[call] for call in sorted(chosen))
    old = outputs()
    new = tuple(sorted(draw(st.permutations(old))[: draw(st.integers(0, len(old)))] + list(outputs()), key=lambda e: e[0]))
    new = tuple({entry[0]: entry for entry in new}.values())
    return old, new


@settings(max_examples=400, deadline=None)
@given(pair=outputs_pairs())
def test_the_calls_whose_outputs_differ_are_found_by_place_identity_and_value(pair):
    """``changed_names`` compares the entries at one place by identity before it compares the
    others by value: it finds the same calls as a comparison of every entry by value."""
    old, new = pair
    calls = frozenset(entry[0] for entry in old + new)  # (the same calls in both: only their outputs differ)
    tables = [NameTable(frozenset(), frozenset(), frozenset(), frozenset(), calls, outputs) for outputs in (old, new)]
    assert changed_names(*tables) == {("module", entry[0]) for entry in set(old).symmetric_difference(new)}
