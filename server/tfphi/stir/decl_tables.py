"""A module's table of one kind of declaration once the module is edited: renamed in place, in O(1).

A letter typed into a block's label renames one entry of a table (``module "svc_001"`` ->
``"svc_001x"``): the new name must stand where the old one stood (where a build from scratch
puts it: tables list declarations in the order the files declare them), and the last build's
table must stay as it was (a snapshot reads it, ``stir.model.Module`` is immutable). A plain
``dict`` can do both only by building a new dict of every entry: at 1,000 modules the root's
200 calls and its 600 addresses were rebuilt on every keystroke (bench/README.md, "Issue 23: the
module's tables, session 15").

``DeclTable`` is a persistent map in Baker's way (the module tree's ``_hand_over`` does the
same): every version of one table shares one store (a ``dict`` of the entries, the list of keys
in their order and each key's place in it). The newest version reads the store directly; a
change (``replaced``) writes into the store and leaves the version it was made from a ``_Diff``:
the values and keys it had where the change wrote, and the version after it. An older version
reads through its diffs to the store, so it never sees a later change; nothing refers to an
older version from a newer one, so an old version is freed with the last snapshot that holds it.
A version more than ``_MAX_CHAIN`` changes behind copies itself into a store of its own the first
time it is read, so a stale snapshot's reads cost O(1) again.

Only edited modules' tables become ``DeclTable``s (``from_mapping``, once per module): a fresh
build's tables stay plain dicts, the fastest to read.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_ABSENT = object()  # (a diff's value: the key was not in the table)
_MAX_CHAIN = 16  # how many diffs an older version reads through before it copies itself


class _Store:
    """What every version of one table shares: the newest version's entries."""

    __slots__ = ("index", "keys", "place")

    def __init__(self, index: dict, keys: list):
        self.index = index  # key -> value
        self.keys = keys  # the keys in their order
        self.place = {key: at for at, key in enumerate(keys)}  # key -> its place in ``keys``


class _Diff:
    """How a version differs from the one made from it (``newer``): its values of the keys the
    change wrote (``_ABSENT``: not in it) and its keys at the places the change wrote."""

    __slots__ = ("values", "keys", "newer")

    def __init__(self, values: dict, keys: list[tuple[int, object]], newer: "DeclTable"):
        self.values = values
        self.keys = keys
        self.newer = newer


class DeclTable(Mapping, Generic[K, V]):
    """An immutable ordered map whose ``replaced`` version costs the entries it changes."""

    __slots__ = ("_store", "_diff")

    def __init__(self, store: _Store):  # (``from_mapping`` and ``replaced`` make them)
        self._store = store
        self._diff: _Diff | None = None  # None: the newest version, read from the store

    @classmethod
    def from_mapping(cls, mapping: Mapping[K, V]) -> "DeclTable[K, V]":
        """``mapping`` as a table (a ``DeclTable`` as it is), in its order."""
        if isinstance(mapping, DeclTable):
            return mapping
        return cls(_Store(dict(mapping), list(mapping)))

    # ---- reads ------------------------------------------------------------------------------

    def _newest_store(self) -> tuple[_Store, tuple[_Diff, ...]]:
        """The newest version's store and the diffs from this version to it (none for the newest)."""
        diff = self._diff
        if diff is None:
            return self._store, ()
        chain = []
        while diff is not None:
            chain.append(diff)
            newest = diff.newer
            diff = newest._diff
        store = newest._store  # (this version's, unless a version on the way copied itself)
        if len(chain) > _MAX_CHAIN:  # (a stale snapshot read again and again: read it from a copy of its own)
            self._store, self._diff = _Store(*_materialized(store, chain)), None
            return self._store, ()
        return store, tuple(chain)

    def get(self, key, default=None):
        if self._diff is None:
            return self._store.index.get(key, default)
        store, chain = self._newest_store()
        for diff in chain:
            value = diff.values.get(key, self)
            if value is not self:
                return default if value is _ABSENT else value
        return store.index.get(key, default)

    def __getitem__(self, key: K) -> V:
        value = self.get(key, _ABSENT)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        if self._diff is None:
            return key in self._store.index
        return self.get(key, _ABSENT) is not _ABSENT

    def __len__(self) -> int:
        return len(self._store.keys)  # (a change keeps the number of entries)

    def _keys(self) -> list:
        """This version's keys in their order (a copy: a later change does not reach an iteration under way)."""
        store, chain = self._newest_store()
        return list(store.keys) if not chain else _materialized(store, chain)[1]

    def __iter__(self) -> Iterator[K]:
        return iter(self._keys())

    def _items(self) -> list[tuple[K, V]]:
        store, chain = self._newest_store()
        if not chain:
            keys = list(store.keys)
            return list(zip(keys, map(store.index.__getitem__, keys)))  # (in C)
        return list(_materialized(store, chain)[0].items())

    def _values(self) -> list[V]:
        store, chain = self._newest_store()
        if not chain:
            return list(map(store.index.__getitem__, store.keys))  # (in C: a list, made before any later change)
        return list(_materialized(store, chain)[0].values())

    def keys(self) -> KeysView[K]:
        return KeysView(self)

    def items(self) -> ItemsView[K, V]:
        return _Items(self)

    def values(self) -> ValuesView[V]:
        return _Values(self)

    def __repr__(self) -> str:
        return f"DeclTable({dict(self._items())!r})"

    # ---- the one change ---------------------------------------------------------------------

    def replaced(self, changes: Mapping[K, tuple[K, V]]) -> "DeclTable[K, V]":
        """This table with each entry ``old key -> (new key, value)`` of ``changes`` replaced where
        it is: its value, and its key (a rename) unless it is the same. Every old key is in the
        table; the new keys are distinct, and none is in the table but as one of the old keys.
        Costs the changes when this is the newest version; else (a version the host moved past)
        a copy of the table first."""
        if self._diff is not None:
            return DeclTable.from_mapping(dict(self._items())).replaced(changes)
        store = self._store
        index, keys, place = store.index, store.keys, store.place
        values: dict = {}  # (everything this version had where the change writes, read before it writes)
        key_undo = []
        moves = []
        for old, (new, value) in changes.items():
            values[old] = index[old]
            at = place[old]
            key_undo.append((at, old))
            if new != old:
                values[new] = index.get(new, _ABSENT)
                moves.append((at, new, value))
            else:
                moves.append((at, _ABSENT, value))  # (the same key: its value alone)
        for old, (new, _) in changes.items():
            if new != old:
                del index[old]
                del place[old]
        for (at, new, value), old in zip(moves, changes):
            if new is _ABSENT:
                index[old] = value
            else:
                index[new] = value
                keys[at] = new
                place[new] = at
        newer = DeclTable(store)
        self._diff = _Diff(values, key_undo, newer)
        return newer


def _materialized(store: _Store, chain: tuple[_Diff, ...] | list[_Diff]) -> tuple[dict, list]:
    """The entries and keys of the version ``chain`` starts from: ``store``'s (the newest
    version's) undone by the diffs of ``chain``, the newest first."""
    keys = list(store.keys)
    values: dict = {}
    for diff in reversed(chain):
        for at, key in diff.keys:
            keys[at] = key
        values.update(diff.values)  # (the older version's value wins: applied last)
    index = store.index
    return {key: values[key] if key in values else index[key] for key in keys}, keys


class _Items(ItemsView):
    __slots__ = ()

    def __iter__(self):
        return iter(self._mapping._items())


class _Values(ValuesView):
    __slots__ = ()

    def __iter__(self):
        return iter(self._mapping._values())
