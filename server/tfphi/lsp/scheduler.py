"""When analysis runs: no debounce delay, coalesced changes, stale work cancelled, folders indexed with progress.

pygls 2 runs every handler on one asyncio loop. ``didChange`` applies its text edit
synchronously (so edits are never lost or reordered) and calls ``schedule``. One analysis
task runs at a time; it first yields once, so notifications already waiting land and are
coalesced into the same pass. A pass flushes every changed document into the analysis
(one incremental reparse each), takes each folder's snapshot, and publishes the module
directories that changed since the folder's last snapshot, the edited documents' directories
first.

The rest is background work and gives way to the client through one mechanism, the
snapshot's ``Cancelled``: the transport sets the hosts' ``Interrupt`` as a message's bytes come
in (``note_arrival``: from the kernel's SIGIO on the loop's thread, or from a reader thread),
and the background trace under way stops at its next check (every expression it traces); the
pass lets the loop read the message, then goes on where it was (the trace resumes from what it
finished: ``Snapshot.field_steps``). The message counts as read once the transport has handled
it (``message_handled``), not once the pass has given way: its bytes may not be read yet (a
reader thread may still be waiting for the interpreter lock). Background work also
gives way every ``SLICE_SECONDS``. When the message was a change (the snapshot is stale), the
rest of the pass is dropped and a new pass starts from the newest snapshot, the edited
document first (the directories not yet published are kept for it, and the fields already
traced of a module left halfway are kept by the analysis as long as nothing they read
changed). A module whose analysis raises is logged once and skipped; the others are published.

A folder's index is background work too, given in steps (``lsp.workspace.Steps``): the walk a
file found a step, the focus (``lsp/focus.py``) a file read or a module built a step, the files
a file read a step, then the folder's modules a module built a step (``AnalysisHost.build_steps``),
so that the folder's first snapshot assembles only their tree. ``_in_steps`` runs them and gives
way between two steps by the test above (a client message waits, or the slice is over): no step
is longer than one file's parse or one module's build, however many files the folder has.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from typing import Awaitable, Callable, Iterable, Iterator, TypeVar

from ..analysis import Snapshot
from ..cancellation import Cancelled
from ..features.diagnostics import dir_diagnostics
from ..stir.workspace import module_dir_of
from .collector import QuietCollector
from .focus import focus_steps, open_dirs
from .publish import DiagnosticPublisher
from .snapshots import SnapshotBoard
from .workspace import Folder, LiveWorkspace, Steps

logger = logging.getLogger(__name__)
T = TypeVar("T")

INDEX_REPORT_EVERY = 25  # files between two progress reports (the loop reads messages between any two files)
# Loop iterations a held request takes to run once its snapshot is offered (the waiter's future,
# the task awaiting it, the protocol's release task): with one yield, the first hover waited for
# three more batches of files to be read (~0.1-0.25 s at 1,000 modules, loaded machine).
FOCUS_HANDOVER_ITERATIONS = 4
SLICE_SECONDS = 0.001  # background analysis runs this long at most before letting the loop read messages
# Loop iterations a pass gives way for: a message the reader thread read reaches its handler only
# in the second iteration (the first sets the executor future's result, which wakes the reader
# coroutine in the next). With one, a change that interrupted background work was handled only at
# the pass's next yield, after the field under way: ~3 ms (p50) of a root edit at 1,000 modules.
GIVE_WAY_ITERATIONS = 3


class Progress:
    """Work-done progress for one token; every call is a no-op when the client does not support it."""

    async def begin(self, title: str, message: str | None = None) -> None: ...

    def report(self, message: str, percentage: int) -> None: ...

    def end(self, message: str) -> None: ...


ProgressFactory = Callable[[], Awaitable[Progress]]
Log = Callable[[str], None]


class AnalysisScheduler:
    def __init__(self, ws: LiveWorkspace, publisher: DiagnosticPublisher, progress: ProgressFactory, log_error: Log,
                 watch_outside: Callable[[], None] = lambda: None):
        self.ws = ws
        self._collector: QuietCollector | None = None  # full garbage collections when quiet (``collect_when_quiet``)
        self._watch_outside = watch_outside
        self.publisher = publisher
        self._progress = progress
        self._log_error = log_error
        self._generation = 0
        self._task: asyncio.Task | None = None
        self._forced: set[str] = set()
        self._indexing: dict[Folder, asyncio.Task] = {}
        # Per folder, its pending directories in a heap (sorted order, entries no longer pending
        # skipped when they reach the top): an edit during the first analysis restarts the pass,
        # which then goes on where the last one stopped without walking, or sorting, the
        # directories already done (a thousand of them: most of a leaf edit's growth with the
        # workspace when they were sorted, then walked, each time).
        self._queues: dict[Folder, list[str]] = {}
        self._slice_end = 0.0  # when background work gives way next
        self.passes = 0  # completed passes (for tests and benchmarks)
        self.stopped = False
        # What requests read: each folder's complete snapshot, offered by the passes (lsp/snapshots.py).
        self.board = SnapshotBoard(ws, self._wanted)

    # ---- client messages ----------------------------------------------------------------------

    def note_arrival(self) -> None:
        """Client bytes came in (called by the transport as they come, while the loop may be running
        Python: from a SIGIO handler or a reader thread): background work stops at its next check
        (``cancellation.Interrupt``) and lets the loop read them."""
        for folder in list(self.ws.folders):
            folder.host.interrupt.waiting = True
        if self._collector is not None:
            self._collector.note_arrival()

    def message_handled(self) -> None:
        """The loop dispatched a client message (the transport reads every message that came in
        before it returns to the loop): background work need not give way to it any more.

        Only this clears ``Interrupt.waiting``: a pass that gave way and found the message still
        unread (the reader thread had not handed it over yet) gives way again at its next check,
        not after a fresh slice (1.63 ms p50 of a root keystroke at 1,000 modules waited so)."""
        for folder in self.ws.folders:
            folder.host.interrupt.waiting = False

    # ---- analysis passes -------------------------------------------------------------------

    def schedule(self, forced: tuple[str, ...] | set[str] = ()) -> None:
        """Asks for a pass; ``forced`` URIs get their diagnostics published even when unchanged."""
        if self.stopped:
            return
        self._generation += 1
        self._forced.update(forced)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def collect_when_quiet(self, collector: QuietCollector) -> None:
        """Full garbage collections from now on when quiet (``lsp/collector.py``), not on an allocation."""
        self._collector = collector

    def _busy(self) -> bool:
        """Whether a pass or an indexing runs."""
        return (self._task is not None and not self._task.done()) or any(not t.done() for t in self._indexing.values())

    def _wanted(self) -> None:
        """A request waits for a snapshot: a pass makes it, unless one is already under way."""
        if not self.stopped and (self._task is None or self._task.done()):
            self.schedule()

    async def _run(self) -> None:
        while not self.stopped:
            await asyncio.sleep(0)  # let notifications already queued land: they join this pass
            generation = self._generation
            try:
                finished = await self._pass(generation)
            except Exception:  # noqa: BLE001 - the analysis must never take the server down
                logger.exception("analysis pass failed")
                self._log_error("tfphi: an analysis pass failed; see the server log")
                self._forced.clear()
                return
            if finished and generation == self._generation:
                if self._collector is not None:
                    self._collector.pass_done(self._busy)
                return

    async def _pass(self, generation: int) -> bool:
        ws = self.ws
        ws.flush()
        self.board.refresh_focus()
        for gone in ws.take_dropped_folders():
            self.publisher.forget_folder(gone)
            self.board.forget(gone)
            self._queues.pop(gone, None)
        for folder in ws.folders:
            if not folder.indexed:
                self.ensure_indexed(folder)
        folders = [f for f in ws.folders if f.indexed]
        snapshots = [self._take_snapshot(folder) for folder in folders]
        for folder, snapshot in zip(folders, snapshots):
            self.board.offer(folder, snapshot)  # requests waiting for it run at the pass's next yield
        urgent: set[tuple[int, str]] = set()
        for uri in self._forced:
            found = ws.locate(uri, create=False)
            if found is not None:
                urgent.add((id(found[0]), module_dir_of(found[1])))
        position = {id(f): i for i, f in enumerate(folders)}
        first = sorted((position[f], d) for f, d in urgent if f in position and d in folders[position[f]].pending_dirs)
        work = itertools.chain(first, self._queued(folders))
        self._slice_end = time.perf_counter() + SLICE_SECONDS
        for i, dir in work:
            if generation != self._generation:
                return False
            folder, snapshot = folders[i], snapshots[i]
            if dir not in folder.pending_dirs or folder not in ws.folders:
                continue
            if snapshot.cancelled:
                return False  # the folder took a newer change: start again from it
            edited = (id(folder), dir) in urgent
            try:
                # Background work gives way (see the module's docstring); an edited document's
                # module is analysed at once.
                if not edited and not await self._in_background(generation, folder, snapshot, dir):
                    return False
                diags = dir_diagnostics(snapshot, dir)
                # Publishing them (converted, written) is a step of its own too.
                if not edited and self._due(folder) and not await self._pause(generation, folder, snapshot):
                    return False
            except Cancelled:
                return False
            except Exception:  # noqa: BLE001 - one module's failure never stops the others
                logger.exception("diagnostics of %s in %s failed", dir or ".", folder.root)
                self._log_error(f"tfphi: analysing the module {dir or '.'} failed; its diagnostics are not updated (see the server log)")
                diags = None
            folder.pending_dirs.discard(dir)
            if diags is not None:
                self.publisher.publish_dir(folder, dir, diags, self._forced)
                snapshot.release(dir)  # what the host's retention lets go once they are out (docs/memory.md)
            self._report_failures(folder, snapshot)
            if edited or self._due(folder):
                if not await self._pause(generation, folder, snapshot):
                    return False
                folder.host.release()  # what the last snapshots dropped, freed after the edit's diagnostics
        if generation != self._generation:
            return False
        for folder, snapshot in zip(folders, snapshots):
            if not snapshot.cancelled:
                self.publisher.publish_config(folder, snapshot, self._forced)
        if not any(not f.indexed for f in ws.folders):
            self.publisher.publish_leftovers(self._forced)
        self.passes += 1
        return True

    async def _in_background(self, generation: int, folder: Folder, snapshot: Snapshot, dir: str) -> bool:
        """Traces a module's fields, then its findings, giving way to the client; False when the
        work went stale (a newer pass, or the folder took a change)."""
        while True:
            try:
                for _ in snapshot.field_steps(dir):
                    if self._due(folder) and not await self._pause(generation, folder, snapshot):
                        return False
                break
            except Cancelled:  # a client message is waiting (or the work is stale: ``_pause`` says)
                if not await self._pause(generation, folder, snapshot):
                    return False
        # The module's findings (undefined references, missing arguments) are a step of their own,
        # between two chances to give way.
        if self._due(folder) and not await self._pause(generation, folder, snapshot):
            return False
        snapshot.findings(dir)
        return not self._due(folder) or await self._pause(generation, folder, snapshot)

    def _due(self, folder: Folder) -> bool:
        """Whether background work is to give way now: its slice is over, or a client message waits."""
        return folder.host.interrupt.waiting or time.perf_counter() >= self._slice_end

    async def _pause(self, generation: int, folder: Folder, snapshot: Snapshot) -> bool:
        """Lets the loop read what arrived, and says whether the work is still current (no newer
        pass, snapshot not cancelled)."""
        await self._give_way()
        self._slice_end = time.perf_counter() + SLICE_SECONDS
        return generation == self._generation and not snapshot.cancelled

    @staticmethod
    async def _give_way() -> None:
        """Lets the loop handle what arrived before the pass goes on (GIVE_WAY_ITERATIONS)."""
        for _ in range(GIVE_WAY_ITERATIONS):
            await asyncio.sleep(0)

    def _add_pending(self, folder: Folder, dirs: Iterable[str]) -> None:
        """Directories whose diagnostics are to be published again (their analysis may differ)."""
        pending = folder.pending_dirs
        queue = self._queues.setdefault(folder, [])
        for dir in dirs:
            if dir not in pending:
                pending.add(dir)
                heapq.heappush(queue, dir)

    def _queued(self, folders: list[Folder]) -> Iterator[tuple[int, str]]:
        """Each folder's pending directories in sorted order; the pass discards each one it publishes.

        A directory stays at the top of its queue while it is worked on, so a pass dropped
        halfway leaves it there for the next; entries no longer pending (published, or first in
        a pass as an edited document's directory) are popped when they reach the top.
        """
        for i, folder in enumerate(folders):
            queue = self._queues.get(folder)
            pending = folder.pending_dirs
            while queue and folder in self.ws.folders:
                if queue[0] not in pending:
                    heapq.heappop(queue)
                    continue
                yield i, queue[0]

    def _take_snapshot(self, folder: Folder) -> Snapshot:
        """The folder's current snapshot; what changed since the last one joins its pending directories."""
        if self.ws.load_outside(folder):  # an edit added a call to a module outside the folder
            self.ws.flush()
            self._watch_outside()
        snapshot = folder.snapshot()
        changes = folder.host.changed_since(folder.seen_revision)
        if changes is None:  # too old to tell: everything, and whatever was published before
            self._add_pending(folder, set(snapshot.dirs()) | self.publisher.published_dirs(folder))
        else:
            self._add_pending(folder, changes.dirs)
            # Traces that only moved keep their results; their published positions may not.
            self._add_pending(folder, self.publisher.dirs_pointing_into(folder, changes.moved_files))
        folder.seen_revision = snapshot.revision
        self._report_failures(folder, snapshot)
        return snapshot

    def _report_failures(self, folder: Folder, snapshot: Snapshot) -> None:
        """Logs each module whose analysis raised, once (the module is analysed as empty meanwhile)."""
        failures = snapshot.failures
        for key in sorted(failures.keys() - folder.reported_failures):
            stage, _, dir = key.partition(":")
            logger.error("analysing %s (%s) in %s failed:\n%s", dir or ".", stage, folder.root, failures[key])
            self._log_error(f"tfphi: analysing the module {dir or '.'} failed ({stage}); it is analysed as empty (see the server log)")
        folder.reported_failures = set(failures)

    async def idle(self) -> None:
        """Waits until no pass or indexing is running (for tests and benchmarks)."""
        while (self._task is not None and not self._task.done()) or any(not t.done() for t in self._indexing.values()):
            await asyncio.sleep(0.005)

    # ---- indexing --------------------------------------------------------------------------

    async def _in_steps(self, folder: Folder, steps: Steps[T]) -> T:
        """Runs background work given in steps (``lsp.workspace.Steps``: a file read, a module built)
        on the loop, which reads what arrived between two steps: the indexing's one way to give
        way, by the test a pass's background work gives way by (``_due``: a client message waits,
        or its slice is over). Returns the work's result."""
        slice_end = time.perf_counter() + SLICE_SECONDS
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value
            if folder.host.interrupt.waiting:
                await self._give_way()
            elif time.perf_counter() >= slice_end:
                await asyncio.sleep(0)  # (a message whose bytes come in meanwhile sets ``waiting``)
            else:
                continue
            slice_end = time.perf_counter() + SLICE_SECONDS

    async def _focus(self, folder: Folder, rels: list[str], focused: frozenset[str], read: dict[str, bytes]) -> frozenset[str]:
        """Before the rest of the folder, the open documents' root configurations (``lsp/focus.py``),
        made again when a document of another module was opened; returns the modules it covers."""
        dirs = open_dirs(self.ws, folder)
        if dirs <= focused:
            return focused
        try:
            focus = await self._in_steps(folder, focus_steps(self.ws, folder, rels, dirs, read))
            # Made in steps, between which a pass may have fed the open documents' changes to the
            # folder: the focus takes them too (a change not fed yet: the pass that feeds it does).
            if focus is not None and not self.ws.has_pending() and not focus.follow(self.ws, folder):
                focus = None
        except Exception:  # noqa: BLE001 - requests wait for the folder's index instead
            logger.exception("reading the open documents' modules of %s first failed", folder.root)
            focus = None
        if folder not in self.ws.folders:
            return dirs
        self.board.offer_focus(folder, focus)
        for _ in range(FOCUS_HANDOVER_ITERATIONS):  # the requests waiting for it run now, not after the next files
            await asyncio.sleep(0)
        return dirs

    def ensure_indexed(self, folder: Folder) -> None:
        task = self._indexing.get(folder)
        if task is None or task.done():
            self._indexing[folder] = asyncio.get_running_loop().create_task(self._index(folder))

    async def _index(self, folder: Folder) -> None:
        ws = self.ws
        progress = await self._progress()
        try:
            await progress.begin(f"tfphi: indexing {folder.name}", "reading files")
            ws.read_config(folder)
            rels = await self._in_steps(folder, ws.scan_steps(folder))
            host = folder.host
            keep = set(rels) | {rel for _, rel in ws.open_documents_in(folder)} | {p for p in host.files if p.startswith("../")} \
                | set(folder.generated)
            for stale in [p for p in (*host.files, *host.tfvars, *host.problems) if p not in keep]:
                host.remove(stale)  # re-indexing after the ignore list changed
            total = len(rels)
            read: dict[str, bytes] = {}  # what the focus read from disk
            focused = await self._focus(folder, rels, frozenset(), read)
            for start in range(0, total, INDEX_REPORT_EVERY):
                await self._in_steps(folder, ws.load_steps(folder, rels[start:start + INDEX_REPORT_EVERY], read))
                if folder not in ws.folders:
                    return
                n = min(start + INDEX_REPORT_EVERY, total)
                progress.report(f"{n}/{total} files", int(100 * n / max(total, 1)))
                await asyncio.sleep(0)
                focused = await self._focus(folder, rels, focused, read)
            # The folder's modules, built one a step: its first snapshot then assembles only their tree.
            await self._in_steps(folder, host.build_steps())
            if ws.load_outside(folder):  # modules outside the folder that its sources reach: part of the index
                self._watch_outside()
            progress.report(f"{total}/{total} files: analysing", 100)
            folder.indexed = True
            # The progress ends when the first diagnostics of the whole folder are out, so a
            # client (or a person) sees the work the first analysis still does. Edits that
            # arrive meanwhile go first: each pass publishes the edited documents' modules first.
            self.schedule()
            while self._task is not None and not self._task.done() and not self.stopped:
                await asyncio.sleep(0.01)
            progress.end(f"indexed {total} files")
        except Exception:  # noqa: BLE001
            logger.exception("indexing %s failed", folder.root)
            self._log_error(f"tfphi: indexing {folder.root} failed; see the server log")
            folder.indexed = True
            progress.end("indexing failed")
        self.schedule()

