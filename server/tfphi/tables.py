"""Tables a snapshot takes without copying them: the host's maps of files, modules and listings.

A snapshot must keep the host's tables as they were when it was taken, while the host goes on
changing them; a keystroke changes one file and one module of thousands. Copying every table
per snapshot costs the workspace's size (3,000 files and 1,000 modules at 1,000 modules:
0.1 ms a root keystroke, and as much again to free the copies). A persistent map shares what
did not change instead. ``immutables.Map`` (a hash-array-mapped trie in C) was measured and
reverted: the VS Code client bundles a wheel of each native dependency for every CPython it
supports, and it had none for 3.14 (bench/README.md). This one is pure Python and two levels
deep, so that a read is one hash, one index and one ``dict`` look-up:

- ``Table`` (the host's, mutable) splits its entries among ``2**k`` plain dicts by the key's
  hash, with about as many dicts as entries in each (√n: 64 dicts of ~47 files at 3,000).
- ``Table.frozen()`` (a snapshot's) returns a ``FrozenTable`` holding the same dicts: a tuple of
  √n references, O(√n), shared by every snapshot taken until the next write.
- After a freeze, the host's first write into one of those dicts copies that dict alone
  (``_owned``): a write costs O(√n), and nothing a frozen table holds is ever written again.

Iteration follows the dicts, so its order is the keys' hash order, not insertion order (the
analysis sorts what it reports). A ``FrozenTable`` is read-only; it compares equal to any
mapping with the same items.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping, MutableMapping, ValuesView
from itertools import chain
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_MISSING = object()
_FIRST_CHUNKS = 8  # (a power of two: a key's dict is ``hash(key) & (chunks - 1)``)


class _Chunked(Mapping, Generic[K, V]):
    """The reads of both tables: the entries of ``_chunks[hash(key) & _mask]``."""

    __slots__ = ("_chunks", "_mask", "_len")
    _chunks: tuple[dict[K, V], ...] | list[dict[K, V]]

    def __getitem__(self, key: K) -> V:
        return self._chunks[hash(key) & self._mask][key]

    def get(self, key: K, default=None):
        return self._chunks[hash(key) & self._mask].get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._chunks[hash(key) & self._mask]

    def __iter__(self) -> Iterator[K]:
        return chain.from_iterable(self._chunks)

    def __len__(self) -> int:
        return self._len

    def items(self) -> ItemsView[K, V]:
        return _Items(self)

    def values(self) -> ValuesView[V]:
        return _Values(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self.items())!r})"


class _Items(ItemsView):
    __slots__ = ()

    def __iter__(self):
        return chain.from_iterable(map(dict.items, self._mapping._chunks))


class _Values(ValuesView):
    __slots__ = ()

    def __iter__(self):
        return chain.from_iterable(map(dict.values, self._mapping._chunks))


class FrozenTable(_Chunked[K, V]):
    """A snapshot's table: what the host's ``Table`` held when it was frozen, for good."""

    __slots__ = ()

    def __init__(self, chunks: tuple[dict[K, V], ...], length: int):  # (``Table.frozen`` makes them)
        self._chunks, self._mask, self._len = chunks, len(chunks) - 1, length


class Table(_Chunked[K, V], MutableMapping):
    """The host's table: a mutable map whose ``frozen()`` view costs O(√n) and never changes after."""

    # _owner[i]: the generation in which the host last copied _chunks[i] (it may write into it
    # while that is the current generation; a freeze starts a new one, so every dict is shared).
    __slots__ = ("_owner", "_generation", "_frozen")
    _chunks: list[dict[K, V]]

    def __init__(self, entries: Mapping[K, V] | None = None):
        self._reset(_FIRST_CHUNKS)
        if entries:
            self.update(entries)

    def _reset(self, count: int) -> None:
        self._chunks = [{} for _ in range(count)]
        self._mask, self._len = count - 1, 0
        self._generation = 0
        self._owner = [0] * count
        self._frozen: FrozenTable[K, V] | None = None

    def frozen(self) -> FrozenTable[K, V]:
        """The table as it is now, for good: its dicts shared until the host writes into one of them."""
        view = self._frozen
        if view is None:
            view = self._frozen = FrozenTable(tuple(self._chunks), self._len)
            self._generation += 1
        return view

    def _owned(self, index: int) -> dict[K, V]:
        """The dict at ``index``, copied first if a frozen table may hold it."""
        self._frozen = None
        chunk = self._chunks[index]
        if self._owner[index] != self._generation:
            chunk = self._chunks[index] = dict(chunk)
            self._owner[index] = self._generation
        return chunk

    def __setitem__(self, key: K, value: V) -> None:
        chunk = self._owned(hash(key) & self._mask)
        if key not in chunk:
            self._len += 1
        chunk[key] = value
        if self._len > len(self._chunks) ** 2:  # about as many dicts as entries in each
            self._spread(2 * len(self._chunks))

    def __delitem__(self, key: K) -> None:
        index = hash(key) & self._mask
        if key not in self._chunks[index]:
            raise KeyError(key)
        del self._owned(index)[key]
        self._len -= 1

    def pop(self, key: K, default=_MISSING):
        index = hash(key) & self._mask
        if key not in self._chunks[index]:
            if default is _MISSING:
                raise KeyError(key)
            return default
        self._len -= 1
        return self._owned(index).pop(key)

    def clear(self) -> None:
        self._reset(_FIRST_CHUNKS)

    def _spread(self, count: int) -> None:
        """Spreads the entries over ``count`` new dicts (amortized: the table has doubled twice since the last time)."""
        entries = list(self.items())
        self._reset(count)
        mask, chunks = self._mask, self._chunks
        for key, value in entries:
            chunks[hash(key) & mask][key] = value
        self._len = len(entries)


# An index of readers: per row, its one reader as itself, two or more as a set (most rows have
# one reader, and a set is 216 bytes): the host's dependency indexes (``trace.memo``'s readers,
# ``analysis``'s field dependencies).

def add_reader(index: dict, row, reader) -> None:
    """Notes ``reader`` under ``row``."""
    have = index.get(row)
    if have is None:
        index[row] = reader
    elif have.__class__ is set:
        have.add(reader)
    elif have != reader:
        index[row] = {have, reader}


def remove_reader(index: dict, row, reader) -> None:
    """Takes ``reader`` from under ``row`` (the row goes with its last reader)."""
    have = index.get(row)
    if have is None:
        return
    if have.__class__ is set:
        have.discard(reader)
        if len(have) == 1:
            index[row] = next(iter(have))
        elif not have:
            del index[row]
    elif have == reader:
        del index[row]


def readers_of(have) -> set | tuple:
    """The readers of one row's value (None: no row)."""
    if have is None:
        return ()
    return have if have.__class__ is set else (have,)
