"""What an analysis host keeps of what it derives: one policy, two values (docs/memory.md).

An editor's host (``EDITOR``, the language server's and the tests') keeps what the next edit
reads, so that a keystroke costs what it touches; a batch host (``BATCH``, ``tfphi check``'s:
nothing is edited after the load) keeps none of it and lets each module's traces go once its
subtree's diagnostics are taken. Both let the views of a file read without its tree (a file
on disk, not open in an editor) forget what they derived on demand once their module's
diagnostics are out: converted expressions, the bodies of blocks no module build reads, and on
a batch host the references of the undefined-reference check (``syntax.hclfile.forget_derived``;
an editor's host forgets once per parse of a file, after its module's first analysis, and keeps
what is read again later, an edit's re-trace or a hover, for a bounded number of modules:
``RereadViews``). Whatever a host lets go is derived again, the same, from the file's bytes when read: retention decides
what is held when, never what is reported (``tests/workspace/test_batch_check.py``,
``tests/host/test_host_property.py``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Iterable

from .records import record
from .syntax.hclfile import HclFile, forget_derived
from .text import LineIndex
from .trace.memo import MemoStore


@record(frozen=True, slots=True)
class Retention:
    """What a host keeps.

    ``keeps_edit_state``: what only an edit reads is kept: what each module's build read of
    each block (the next build takes the declarations over and compares them), each file's
    undefined references by block (``stir.file_findings``), what the last check of each
    module's calls found (``stir.references.ModuleInterfaces``), which declarations each
    field's trace read (the fields an edit traces again) and which memoized values read each
    declaration (``MemoStore.readers``). Without it, the memo indexes its entries by module
    instance instead, and a change forgets them all.

    ``reread_modules``: how many modules' views read again after they were forgotten the
    host keeps (``RereadViews``); 0 on a batch host, whose releases forget each time.

    ``releases_traces``: once a module's diagnostics are taken and no module still to be
    analysed is likely to read it (``check_scope.batch_schedule``), its field traces and the
    memoized values of its instances go (read again, they are traced again).
    """

    name: str
    keeps_edit_state: bool
    releases_traces: bool
    reread_modules: int = 0

    def memo_store(self) -> MemoStore:
        """The trace memo a host with this policy keeps."""
        return MemoStore(edits=self.keeps_edit_state)

    def reread_views(self, current: Callable[[str], HclFile | None]) -> "RereadViews":
        """What a host with this policy keeps of the views read again (``RereadViews``;
        ``current``: the host's file at a path)."""
        return RereadViews(self.reread_modules, not self.keeps_edit_state, current)

    def line_indexes(self) -> "LineIndexes":
        """The line indexes of the host's files it keeps (``LineIndexes``)."""
        return LineIndexes(LineIndexes.BOUND)

    def release(self, dir: str, drop_fields: Callable[[str], None], memo: MemoStore, files: Iterable[HclFile],
                reread: "RereadViews") -> None:
        """Lets go what the module in ``dir`` derived, its diagnostics taken: its traces
        (``drop_fields``) and its instances' memoized values when the policy releases traces,
        and what the views of its files read without their tree derived on demand."""
        if self.releases_traces:
            drop_fields(dir)
            memo.drop_instances_of(dir)
        for hcl in files:
            # An editor's host forgets once, after a module's first analysis: a module analysed
            # again after an edit keeps what it derived, as the next keystroke will likely read it
            # again (the edit state is kept once a module is edited, docs/memory.md); and it keeps
            # the references, which the next findings read. What is read again later is bounded
            # by ``reread``, not by this call (a hover or a caller's re-trace releases nothing).
            if self.releases_traces or not hcl.forgotten:
                reread.forget(dir, hcl)


class RereadViews:
    """The views of files not open that were read again after they were forgotten, kept for the
    ``bound`` modules read again most recently (in the order their first re-read came).

    An edit of a caller re-traces its callees, a hover reads expressions anywhere: each converts
    the expressions of files whose views were forgotten again, and nothing releases those
    modules again (their diagnostics are not published again). Kept for good, they added up to
    the views of the whole workspace (bench/README.md, "Issue 23: soak, session 10"). A file's
    views tell this cache once, when they first read its bytes again
    (``syntax.hclfile.forget_derived``'s ``on_reread``); past the bound, the module read again
    longest ago forgets them again. The bound is large enough that the modules a root's keystrokes
    re-trace again and again stay (docs/memory.md). With bound 0 nothing is kept (a batch host:
    it forgets at each release)."""

    def __init__(self, bound: int, references: bool, current: Callable[[str], HclFile | None]):
        self.bound = bound
        self.references = references  # (forget the undefined-reference check's references too)
        self._current = current  # path -> the host's file now
        self._modules: dict[str, list[str]] = {}  # dir -> the paths of its files read again, oldest first

    def forget(self, dir: str, hcl: HclFile) -> None:
        """Forgets what ``hcl``'s views derived, to be told when they read its bytes again."""
        notice = ReadAgain(self, dir, hcl.path) if self.bound else None
        forget_derived(hcl, references=self.references, on_reread=notice)

    def read_again(self, dir: str, path: str) -> None:
        """The views of ``path`` (in the module ``dir``) read its bytes again: kept, for at most
        ``bound`` modules."""
        modules = self._modules
        paths = modules.get(dir)
        if paths is None:
            modules[dir] = paths = []
        paths.append(path)
        while len(modules) > self.bound:
            oldest = next(iter(modules))
            for forgotten in modules.pop(oldest):
                hcl = self._current(forgotten)
                if hcl is not None:  # (a file parsed anew since: forgotten early, derived again the same)
                    self.forget(oldest, hcl)

    def modules(self) -> list[str]:
        """The modules whose views read again are kept, read again longest ago first."""
        return list(self._modules)


class ReadAgain:
    """The notice a forgotten file's views give when they first read its bytes again
    (``RereadViews.read_again`` of its module and path). One per file not open: three slots,
    56 bytes, where a ``functools.partial`` of the bound method was about 250 (the partial, its
    arguments' tuple, its keywords' dict and the bound method; 0.7 MiB traced at 1,000 modules).
    It names the file by path: holding the file itself, its views would hold a cycle through
    their converter, freed only by a full collection once the file is gone."""

    __slots__ = ("views", "dir", "path")

    def __init__(self, views: RereadViews, dir: str, path: str) -> None:
        self.views, self.dir, self.path = views, dir, path

    def __call__(self) -> None:
        self.views.read_again(self.dir, self.path)


class LineIndexes:
    """The line indexes of the host's files (path -> (its bytes, their index)) asked about most
    recently, at most ``bound`` of them: each publish of a module's diagnostics and each location
    an answer points at asks for one, and an index is kept while its bytes are the host's.

    Unbounded, this held an index for every file any answer had ever pointed into, filling
    towards the whole workspace over a soak (143 -> 286 of 3,000 files in 4 minutes at 1,000
    modules; 6.4 MiB for all of them: docs/memory.md, "Where the resident memory is"). An index
    of a small file is made again in tens of microseconds; the files open in an editor keep
    their own (``lsp.documents.Document.line_index``)."""

    BOUND = 256

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._kept: OrderedDict[str, tuple[bytes, LineIndex]] = OrderedDict()

    def get(self, path: str) -> tuple[bytes, LineIndex] | None:
        known = self._kept.get(path)
        if known is not None:
            self._kept.move_to_end(path)
        return known

    def __setitem__(self, path: str, known: tuple[bytes, LineIndex]) -> None:
        kept = self._kept
        kept[path] = known
        kept.move_to_end(path)
        while len(kept) > self.bound:
            kept.popitem(last=False)

    def pop(self, path: str, default=None):
        return self._kept.pop(path, default)

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, path: str) -> bool:
        return path in self._kept

    def __iter__(self):
        return iter(self._kept)

    def items(self):
        return self._kept.items()


# ---- an index of who read what ------------------------------------------------------------
#
# ``_Derived.field_deps`` (analysis: a declaration -> the modules whose field traces read it) has
# a row for every declaration a trace read, and most are read by their own module alone: a set of
# one was 216 bytes (36,000 of 43,000 rows at 10,000 modules, 7.5 MiB; docs/memory.md, "Session
# 13"). A row holds its one reader as itself, two or more as a set (as ``trace.memo``'s readers).


# 64 modules: a root label keystroke at 1,000 modules re-traces the renamed call's subtree from
# kept views (bench/README.md, "Issue 23: soak, session 10").
EDITOR = Retention("editor", keeps_edit_state=True, releases_traces=False, reread_modules=64)
BATCH = Retention("batch", keeps_edit_state=False, releases_traces=True)
