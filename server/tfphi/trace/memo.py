"""Declaration-level trace results kept from one snapshot to the next (the host owns the store)."""

from __future__ import annotations

from ..records import record
from ..tables import add_reader, readers_of, remove_reader
from .result import Result


@record(slots=True)
class MemoEntry:
    result: Result
    depth_needed: int
    touched: frozenset[str]
    may_fail: bool  # some combination was dropped because Terraform rejects it


class MemoStore:
    """Hop results kept from one snapshot to the next (``AnalysisHost``): an entry is dropped when a
    declaration it read, or the declaration it is the value of, changes (``forget``). A declaration
    that only moved is the same object, and the spans of a result are relative to their blocks
    (``syntax.expr.Anchor``): the entry stays right where the text now is.

    ``readers`` is the exact inverse of the entries kept: a key stands under a declaration while
    its entry, which read that declaration, is in ``memo``; dropping an entry takes its key from
    under every declaration it read. Kept past its entry, a key stayed for good under the
    declarations that never change again, and so did the names a keystroke made up
    (``var.enxgine`` read while typed, declared nowhere): the index grew with the number of
    edits (bench/README.md, "Issue 23: soak, session 11")."""

    MAX_ENTRIES = 200_000

    def __init__(self, edits: bool = True) -> None:
        self.memo: dict[tuple, MemoEntry] = {}
        # (module dir, address) -> the memo key that read it, or a set of them when several did
        # (most declarations are read by one entry: a set is 216 bytes: ``tables.add_reader``).
        self.readers: dict[tuple[str, str], tuple | set[tuple]] = {}
        self.retired: list = []  # stores dropped whole, freed by ``release`` (outside the edit's time)
        # ``edits`` False (a batch host: nothing is edited, nothing is forgotten for a change): no
        # readers, only the keys of each module instance's dir, for ``drop_instances_of``.
        self.edits = edits
        self.by_dir: dict[str, list[tuple]] = {}
        # call path -> the memo keys of that module instance, the exact inverse of ``memo`` like
        # ``readers``: what ``forget_instances`` drops once a call is renamed or pointed elsewhere
        # (an editor's host only). A list: an instance has a few keys, and a set of three is 216
        # bytes against a list's 88 (3 MiB of the server at 10,000 modules).
        self.paths: dict[tuple, list[tuple]] = {}
        # (caller dir, call name) -> the call paths of ``paths`` that go through that call (a set
        # when several): what a changed call drops, found without walking every path.
        self.through: dict[tuple[str, str], tuple | set[tuple]] = {}

    def keep(self, key: tuple, entry: MemoEntry) -> None:
        if len(self.memo) >= self.MAX_ENTRIES:
            self.clear()
        replaced = self.memo.get(key)
        self.memo[key] = entry
        if not self.edits:
            self.by_dir.setdefault(key[1][-1][1], []).append(key)  # (kind, call path, ...): the instance's dir
            return
        readers = self.readers
        if replaced is not None:  # (traced again deeper: what the old entry read may differ)
            _remove_entry_reader(readers, replaced.touched, _declaration_of(key), key)
        else:
            self._add_path(key)
        for read in entry.touched:
            add_reader(readers, read, key)
        own = _declaration_of(key)
        if own is not None:
            add_reader(readers, own, key)

    def forget(self, declarations) -> None:
        if not self.edits:  # no readers to tell which entries read them: everything goes
            if declarations:
                self.clear()
            return
        memo, readers = self.memo, self.readers
        visits = sum(len(readers_of(readers.get(declaration))) for declaration in declarations)
        if visits > 256 and visits * 4 > len(memo):
            # Most of it (an edit to a declaration that every trace read): start afresh, and
            # leave freeing the old entries for later.
            self.clear()
            return
        for declaration in declarations:
            for key in readers_of(readers.pop(declaration, None)):
                self._drop(key)

    def forget_instances(self, calls: "set[tuple[str, str]]", roots: "set[str]") -> None:
        """Drops the entries of the module instances whose call path goes through one of
        ``calls`` ((caller dir, call name): renamed, added, removed or pointed elsewhere) or starts
        at one of ``roots`` (a module that became a root or stopped being one). Those paths are
        gone from the module tree, or lead elsewhere now; an entry of a gone instance reads
        nothing that changes when its path goes (a local of the called module reads that module
        alone), so ``forget`` never dropped it: a keystroke in a call's label left the entries
        of the instance it named for good, about 130 a minute in the soak at 1,000 modules
        (docs/memory.md, "Where the resident memory is")."""
        if not self.edits:
            if calls or roots:
                self.clear()
            return
        gone: set[tuple] = set()
        for call in calls:
            gone.update(readers_of(self.through.get(call)))
        if roots:  # (rare: a call pointed elsewhere made a module a root, or took its root away)
            gone.update(path for path in self.paths if path[0][1] in roots)
        for path in gone:
            for key in self.paths.get(path, ()).copy():
                self._drop(key)

    def _add_path(self, key: tuple) -> None:
        path = key[1]
        if path not in self.paths:
            for caller, call in zip(path, path[1:]):
                add_reader(self.through, (caller[1], call[0]), path)
        self.paths.setdefault(path, []).append(key)

    def _drop(self, key: tuple) -> None:
        """Drops one entry, and its key from under every declaration it read and its path."""
        entry = self.memo.pop(key, None)
        if entry is not None:
            _remove_entry_reader(self.readers, entry.touched, _declaration_of(key), key)
            path = key[1]
            keys = self.paths[path]
            keys.remove(key)
            if not keys:  # (its last entry: the path goes from under its calls)
                del self.paths[path]
                for caller, call in zip(path, path[1:]):
                    remove_reader(self.through, (caller[1], call[0]), path)

    def clear(self) -> None:
        self.retired.append((self.memo, self.readers, self.paths, self.through))
        self.memo, self.readers, self.paths, self.through = {}, {}, {}, {}
        self.by_dir = {}

    def drop_instances_of(self, dir: str) -> None:
        """Drops the entries of the module instances of ``dir`` (a batch host, once no trace is
        to read them: read again, they are traced again)."""
        memo = self.memo
        for key in self.by_dir.pop(dir, ()):
            memo.pop(key, None)

    def release(self) -> None:
        """Frees what ``forget`` and ``clear`` dropped (background work calls it between two steps)."""
        self.retired.clear()


def _remove_entry_reader(readers: dict, touched: frozenset, own: tuple[str, str] | None, key: tuple) -> None:
    """Takes ``key`` from under the declarations its entry read (``touched``) and its own."""
    for read in (*touched, own) if own is not None else touched:
        remove_reader(readers, read, key)


def _declaration_of(key: tuple) -> tuple[str, str] | None:
    """The declaration a memo entry is the value of (its reader touches it, the entry does not)."""
    kind = key[0]
    if kind in ("var", "local", "output"):
        return (key[1][-1][1], f"{kind}.{key[2]}")
    return None
