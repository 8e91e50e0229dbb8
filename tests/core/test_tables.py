"""``tables.Table``: the host's map, and the frozen views a snapshot takes of it.

A model (plain dicts copied at each freeze, as the snapshot did before) is run beside the
table through generated writes, deletions and freezes, enough entries to make it spread over
more dicts: every frozen view must still hold what the table held when it was frozen, and the
table what the model holds. A table that wrote into a dict a frozen view shares fails here.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tfphi.tables import FrozenTable, Table

KEYS = st.one_of(st.integers(-300, 300), st.sampled_from([f"modules/m{i}/main.tf" for i in range(40)]))
OPERATIONS = st.lists(st.one_of(
    st.tuples(st.just("set"), KEYS, st.integers()),
    st.tuples(st.just("del"), KEYS, st.none()),
    st.tuples(st.just("pop"), KEYS, st.none()),
    st.tuples(st.just("freeze"), st.none(), st.none()),
    st.tuples(st.just("clear"), st.none(), st.none()),
), max_size=400)


def same_as(view, model: dict) -> None:
    """``view`` holds exactly ``model``, through every way of reading it."""
    assert len(view) == len(model)
    assert sorted(view, key=repr) == sorted(model, key=repr)
    assert sorted(view.items(), key=repr) == sorted(model.items(), key=repr)
    assert sorted(view.values(), key=repr) == sorted(model.values(), key=repr)
    assert view == model and dict(view) == model
    for key in model:
        assert key in view and view[key] == model[key] and view.get(key) == model[key]
    for missing in ("nowhere", 10_000):
        assert missing not in view and view.get(missing, "-") == "-"
        with pytest.raises(KeyError):
            view[missing]


@settings(max_examples=300, deadline=None)
@given(OPERATIONS, st.lists(st.integers(-300, 300), max_size=200))
def test_every_frozen_view_keeps_what_the_table_held_when_it_was_frozen(operations, preload):
    table: Table = Table({key: key for key in preload})
    model = {key: key for key in preload}
    frozen: list[tuple[FrozenTable, dict]] = [(table.frozen(), dict(model))]
    for op, key, value in operations:
        if op == "set":
            table[key] = value
            model[key] = value
        elif op == "del":
            if key in model:
                del table[key]
                del model[key]
            else:
                with pytest.raises(KeyError):
                    del table[key]
        elif op == "pop":
            assert table.pop(key, "none") == model.pop(key, "none")
        elif op == "clear":
            table.clear()
            model.clear()
        else:
            frozen.append((table.frozen(), dict(model)))
    same_as(table, model)
    for view, seen in frozen:
        same_as(view, seen)
    same_as(table.frozen(), model)


def test_a_write_after_a_freeze_copies_one_dict_and_the_view_shares_the_rest():
    """The cost a snapshot and a keystroke pay: a view takes the table's dicts as they are, and
    a write copies the one it lands in (so the next view shares every other)."""
    table = Table({f"modules/m{i}/main.tf": i for i in range(3000)})
    before = table.frozen()
    assert table.frozen() is before  # (nothing written since: the same view)
    table["modules/m7/main.tf"] = -7
    table["modules/m7/main.tf"] = -8  # (the dict it copied is the table's own now: no second copy)
    after = table.frozen()
    shared = [a is b for a, b in zip(before._chunks, after._chunks)]
    assert len(shared) == 64 and shared.count(False) == 1
    assert before["modules/m7/main.tf"] == 7 and after["modules/m7/main.tf"] == -8


def test_a_frozen_view_is_read_only():
    view = Table({"a": 1}).frozen()
    with pytest.raises(TypeError):
        view["a"] = 2  # type: ignore[index]
    assert not hasattr(view, "pop") and not hasattr(view, "__delitem__")
