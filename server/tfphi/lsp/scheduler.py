"""When analysis runs: no debounce delay, coalesced changes, stale work cancelled, folders indexed with progress.

pygls 2 runs every handler on one asyncio loop. ``didChange`` applies its text edit
synchronously (so edits are never lost or reordered) and calls ``schedule``. One analysis
task runs at a time; it first yields once, so notifications already waiting land and are
coalesced into the same pass. A pass flushes every changed document into the analysis
(one incremental reparse each), takes each folder's snapshot, and publishes the module
directories that changed since the folder's last snapshot, the edited documents' directories
first. The rest is background work and gives way to the user: it yields to the loop at least
every ``SLICE_SECONDS``, between directories and inside one (its fields are traced one at a
time with ``Snapshot.field_steps``), so a change that arrives is read within a slice. When a
newer change arrived (the snapshot is cancelled), the rest of the pass is stale: it is
dropped and a new pass starts from the newest snapshot, the edited document first (the
directories not yet published are kept for it, and the fields already traced of a module
left halfway are kept by the analysis as long as nothing they read changed). A module whose
analysis raises is logged once and skipped; the others are published.

A field being traced in the background is itself preempted when the client sends anything
(``arrived``: a flag the transport's reader thread sets as bytes come in, ``note_arrival``,
without waiting for the loop): the trace stops at its next reference, the loop reads the
message, and the field is traced again later, with the declarations it finished memoized. A
keystroke then waits for a fraction of one field's trace instead of a whole slice. From the
message's arrival until the edit's diagnostics are out, no garbage collection starts. After an
edit's diagnostics, the pass listens for the client's next message for up to LISTEN_SECONDS
before background work resumes, so that the next keystroke of a burst finds the server idle
(bounded: LISTEN_LIMIT_SECONDS in a row without a background step at most).
"""

from __future__ import annotations

import asyncio
import gc
import heapq
import itertools
import logging
import sys
import time
from typing import Awaitable, Callable, Iterable, Iterator

from ..analysis import Cancelled, Snapshot
from ..trace.tracer import Preempted
from ..features.diagnostics import dir_diagnostics
from ..features.edit_diagnostics import diagnostics_after_edit
from ..stir.workspace import module_dir_of
from .focus import build_focus, open_dirs
from .publish import DiagnosticPublisher
from .snapshots import SnapshotBoard
from .workspace import Folder, LiveWorkspace

logger = logging.getLogger(__name__)

INDEX_REPORT_EVERY = 25  # files between two progress reports (and two yields to the loop)
SWITCH_INTERVAL_SECONDS = 0.0001
SLICE_SECONDS = 0.001  # background analysis runs this long at most before letting the loop read messages
FREEZE_EVERY_SECONDS = 0.25  # at most this long between two heap freezes while analysis runs (see _freeze_young)
# Loop iterations a pass gives way for: a message the reader thread read reaches its handler only
# in the second iteration (the first sets the executor future's result, which wakes the reader
# coroutine in the next). With one, a change that preempted background work was handled only at
# the pass's next yield, after the field under way: ~3 ms (p50) of a root edit at 1,000 modules.
GIVE_WAY_ITERATIONS = 3
# After an edit's diagnostics, background work waits this long for the client's next message (the
# next keystroke of a burst, the requests an editor sends once diagnostics are in) before it
# resumes: a message that comes while the loop is idle is read at once, where one that comes
# during background tracing waits for the reader thread to get the GIL and for the trace to stop.
LISTEN_SECONDS = 0.001
# ... but never for more than this in a row without a background step completing in between:
# a client that writes faster than LISTEN_SECONDS forever cannot starve the analysis.
LISTEN_LIMIT_SECONDS = 0.05


class _ListenBudget:
    """How long a pass may listen in a row: LISTEN_LIMIT_SECONDS from the first listen after
    ``reset``."""

    __slots__ = ("since",)

    def __init__(self):
        self.since: float | None = None

    def reset(self) -> None:
        self.since = None

    def spent(self) -> bool:
        now = time.perf_counter()
        if self.since is None:
            self.since = now
            return False
        return now - self.since >= LISTEN_LIMIT_SECONDS


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
        # Set to True by whoever reads the client (another thread, ``note_arrival``) when a message
        # arrives; background tracing stops at it (see the module's docstring). Cleared by the loop.
        self.arrived = [False]
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
        self._current: list[Snapshot] = []  # the snapshots of the last pass
        self._listening: asyncio.Future | None = None  # resolved by the client's next message (see _listen)
        self._background_wait = _ListenBudget()  # listening after edits, renewed by a background step
        self._replaced: list[Snapshot] = []  # and those it replaced, not yet freed
        # The last diagnostics published for the modules of edited documents, with the snapshot they
        # came from (None once the host moved on): what an edit's early answer starts from.
        self._published: dict[tuple[Folder, str], tuple[Snapshot, list] | None] = {}
        # Documents whose edit was answered early: their module goes first in the next build (its
        # publication is the next early answer's start), without forcing a publication.
        self._answered: dict[str, tuple[Folder, str]] = {}
        self._unbuilt_wait = _ListenBudget()  # listening after early answers, renewed by a build
        self.passes = 0  # completed passes (for tests and benchmarks)
        # The transport reads the client in a thread (lsp/transport.py), which needs the GIL to
        # hand a message to the loop: while analysis runs it gets it only when the interpreter
        # switches threads, every 5 ms by default. A change waited that long before the loop
        # even saw it; 0.1 ms bounds that wait (the reader is blocked in read() the rest of
        # the time, and no other thread runs Python, so switching costs nothing then). With
        # 0.5 ms, the reader of a keystroke that came while background analysis ran waited
        # 0.7 ms (median, wake-up included) for the GIL, most of a leaf edit's growth at 1,000
        # modules; with 0.1 ms, 0.3 ms (measured on a busy loop, at a load of 9).
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_SECONDS))
        self._frozen_at = 0.0
        self.stopped = False
        # What requests read: each folder's complete snapshot, offered by the passes (lsp/snapshots.py).
        self.board = SnapshotBoard(ws, self._wanted)

    # ---- client messages ----------------------------------------------------------------------

    def note_arrival(self) -> None:
        """Client bytes came in (called by the transport's reader thread, not the loop's).

        Background tracing stops at its next reference (``arrived``), and no garbage collection
        starts until the loop has handled the message: a collection of the young objects that
        background analysis made took 0.3-3 ms at 1,000 modules (the snapshots' copies of the
        workspace's file and module tables are among them, and every entry is visited), and it
        landed in a third of the keystrokes made during the first analysis. The collector is
        switched on again when background work resumes, or after the message when no pass runs
        (``message_handled``); what the message allocated is collected then.
        """
        self.arrived[0] = True
        gc.disable()

    def message_handled(self) -> None:
        """The loop dispatched a client message: with no pass to run, nothing else waits for it."""
        self._stop_listening()
        if self._task is None or self._task.done():
            self.arrived[0] = False
            gc.enable()

    def _stop_listening(self) -> None:
        if self._listening is not None and not self._listening.done():
            self._listening.set_result(None)

    def _handed_over(self) -> None:
        """What arrived was handled and background work goes on: collections may run again, and
        the snapshots the pass replaced are freed."""
        self.arrived[0] = False
        gc.enable()
        self._replaced.clear()

    # ---- analysis passes -------------------------------------------------------------------

    def schedule(self, forced: tuple[str, ...] | set[str] = ()) -> None:
        """Asks for a pass; ``forced`` URIs get their diagnostics published even when unchanged."""
        if self.stopped:
            return
        self._generation += 1
        self._forced.update(forced)
        self._stop_listening()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def _wanted(self) -> None:
        """A request waits for a snapshot: a pass makes it, unless one is already under way."""
        if not self.stopped and (self._task is None or self._task.done()):
            self.schedule()

    async def _run(self) -> None:
        try:
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
                    return
        finally:
            # However the passes end (done, failed, stopped, cancelled), the collector is on
            # again (a message that arrived meanwhile was handled: see note_arrival).
            gc.enable()

    async def _pass(self, generation: int) -> bool:
        ws = self.ws
        started = time.perf_counter()
        self.arrived[0] = False  # what arrived before this pass has been read
        if self._forced and self._publish_edit_early():
            await self._listen(self._unbuilt_wait)  # a burst's next keystroke comes before the module is built
            if generation != self._generation:
                return False
        if ws.flush():
            self._unbuilt_wait.reset()
        self.board.refresh_focus()
        for key, base in self._published.items():
            if base is not None and base[0].cancelled:
                self._published[key] = None  # (it held the texts and trees of the documents' last parses)
        for gone in ws.take_dropped_folders():
            self.publisher.forget_folder(gone)
            self.board.forget(gone)
            self._queues.pop(gone, None)
            self._published = {key: base for key, base in self._published.items() if key[0] is not gone}
        for folder in ws.folders:
            if not folder.indexed:
                self.ensure_indexed(folder)
        folders = [f for f in ws.folders if f.indexed]
        # The snapshots this pass replaces are freed once the edit's diagnostics are out
        # (``_handed_over``): their copies of the workspace's tables took 0.05-0.1 ms to free at
        # 1,000 modules, in the middle of the edit's pass.
        if len(self._replaced) > 8:
            self._replaced.clear()
        self._replaced.extend(self._current)
        snapshots = self._current = [self._take_snapshot(folder) for folder in folders]
        for folder, snapshot in zip(folders, snapshots):
            self.board.offer(folder, snapshot)  # requests waiting for it run at the pass's next yield
        urgent: set[tuple[int, str]] = set()
        for uri in self._forced | self._answered.keys():
            found = ws.locate(uri, create=False)
            if found is not None:
                urgent.add((id(found[0]), module_dir_of(found[1])))
        position = {id(f): i for i, f in enumerate(folders)}
        first = sorted((position[f], d) for f, d in urgent if f in position and d in folders[position[f]].pending_dirs)
        work = itertools.chain(first, self._queued(folders))
        deadline = time.perf_counter() + SLICE_SECONDS
        listen = False  # set once an edited document's directory is published
        for i, dir in work:
            if generation != self._generation:
                return False
            folder, snapshot = folders[i], snapshots[i]
            if dir not in folder.pending_dirs or folder not in ws.folders:
                continue
            if listen and (id(folder), dir) not in urgent:
                listen = False
                await self._listen(self._background_wait)
                if generation != self._generation:
                    return False
                deadline = time.perf_counter() + SLICE_SECONDS
            self._freeze_young()
            if snapshot.cancelled:
                return False  # the folder took a newer change: start again from it
            try:
                if (id(folder), dir) not in urgent:
                    # Background work gives way: its fields are traced in steps, and the loop
                    # runs every SLICE_SECONDS, so an edit that arrives meanwhile is read and
                    # this pass drops what is left (the edited document goes first in the next).
                    # A client message preempts even the field under way (``arrived``).
                    tracer = snapshot.tracer
                    retrying = False
                    while True:
                        # A field preempted once is traced to its end the next time: a client
                        # that writes faster than one field's trace cannot starve the analysis.
                        tracer.preempt = None if retrying else self.arrived
                        try:
                            for _ in snapshot.field_steps(dir):
                                tracer.preempt = self.arrived  # (a field traced again is done: the next ones give way)
                                self._background_wait.reset()  # background work went on
                                if time.perf_counter() >= deadline or self.arrived[0]:
                                    tracer.preempt = None
                                    if not await self._pause(generation, snapshot):
                                        return False
                                    deadline = time.perf_counter() + SLICE_SECONDS
                                    tracer.preempt = self.arrived
                            break
                        except Preempted:
                            retrying = True  # let the loop read the message, then trace that field again
                        finally:
                            tracer.preempt = None
                        if not await self._pause(generation, snapshot):
                            return False
                        deadline = time.perf_counter() + SLICE_SECONDS
                    # The module's findings (undefined references, missing arguments) are a step of
                    # their own, between two chances to give way: with the rest of its diagnostics
                    # they were up to a few milliseconds that no message could interrupt.
                    if time.perf_counter() >= deadline or self.arrived[0]:
                        if not await self._pause(generation, snapshot):
                            return False
                        deadline = time.perf_counter() + SLICE_SECONDS
                    snapshot.findings(dir)
                    if time.perf_counter() >= deadline or self.arrived[0]:
                        if not await self._pause(generation, snapshot):
                            return False
                        deadline = time.perf_counter() + SLICE_SECONDS
                diags = dir_diagnostics(snapshot, dir)
            except Cancelled:
                return False
            except Exception:  # noqa: BLE001 - one module's failure never stops the others
                logger.exception("diagnostics of %s in %s failed", dir or ".", folder.root)
                self._log_error(f"tfphi: analysing the module {dir or '.'} failed; its diagnostics are not updated (see the server log)")
                diags = None
            folder.pending_dirs.discard(dir)
            if diags is not None:
                self.publisher.publish_dir(folder, dir, diags, self._forced)
                if (id(folder), dir) in urgent or (folder, dir) in self._published:  # an edited document's module
                    self._published[(folder, dir)] = (snapshot, diags)
                    if self._answered:  # built and published: the next early answers start from here
                        self._answered = {uri: key for uri, key in self._answered.items() if key != (folder, dir)}
                        self._unbuilt_wait.reset()
            if (id(folder), dir) in urgent:
                listen = True
            else:
                self._background_wait.reset()  # background work went on
            self._report_failures(folder, snapshot)
            if time.perf_counter() >= deadline or (id(folder), dir) in urgent or self.arrived[0]:
                await self._give_way()
                if generation == self._generation and not snapshot.cancelled:
                    self._handed_over()
                    folder.host.release()  # what the last snapshots dropped, freed after the edit's diagnostics
                else:
                    self.arrived[0] = False
                deadline = time.perf_counter() + SLICE_SECONDS
        if generation != self._generation:
            return False
        for folder, snapshot in zip(folders, snapshots):
            if not snapshot.cancelled:
                self.publisher.publish_config(folder, snapshot, self._forced)
        if not any(not f.indexed for f in ws.folders):
            self.publisher.publish_leftovers(self._forced)
        self.passes += 1
        self._replaced.clear()
        if all(f.indexed for f in ws.folders):
            # What a long pass built (the first analysis) is frozen at its end; after an edit's
            # short pass the periodic rule is enough (a collection of the young objects at the
            # end of every pass was 0.2-1 ms at 1,000 modules, in the way of the next keystroke).
            self._freeze_young(force=time.perf_counter() - started >= FREEZE_EVERY_SECONDS)
        return True

    def _publish_edit_early(self) -> bool:
        """Publishes the edited document's diagnostics before its module is built again, when they
        follow from the module's last published ones (``features.edit_diagnostics``: a keystroke
        in a value); True when it did. The pass builds the module afterwards all the same, and
        publishes the document again only if its list differs (it does not: tests/host)."""
        edited = self.ws.edited_alone()
        if edited is None:
            return False
        folder, rel, doc = edited
        dir = module_dir_of(rel)
        base = self._published.get((folder, dir))
        if doc.uri not in self._forced or base is None or dir in folder.pending_dirs:
            return False
        snapshot, published = base
        if snapshot.cancelled or snapshot.files.get(rel) is not doc.hcl:
            return False
        try:
            diags = diagnostics_after_edit(snapshot, dir, published, rel, doc.source)
        except Exception:  # noqa: BLE001 - the module is built instead
            logger.exception("working out the diagnostics of %s from the last ones failed", rel)
            return False
        if diags is None:
            return False
        self.publisher.publish_edited(folder, rel, doc, diags)
        self._forced.discard(doc.uri)
        self._answered[doc.uri] = (folder, dir)
        return True

    async def _pause(self, generation: int, snapshot) -> bool:
        """Between two steps of a module's tracing: freeze the young heap, let the loop read what
        arrived, and say whether the work is still current (no newer pass, snapshot not cancelled)."""
        self._freeze_young()
        await self._give_way()
        if generation == self._generation and not snapshot.cancelled:
            self._handed_over()
            return True
        self.arrived[0] = False  # (the collector stays off until the newer pass has published the edit)
        return False

    async def _listen(self, budget: "_ListenBudget") -> None:
        """Waits up to LISTEN_SECONDS for the client's next message (``schedule`` or
        ``message_handled`` ends the wait), unless ``budget``'s LISTEN_LIMIT_SECONDS are spent.

        After an edit's diagnostics (``_background_wait``): at 1,000 modules, a keystroke that came
        while background analysis ran waited for the reader thread to get the GIL (up to the switch
        interval), for the trace under way to reach its next reference and for the pass to give
        way: about half of the difference with 10 modules, where the server is idle when the next
        keystroke comes. A human's keystrokes are tens of milliseconds apart, so this costs the
        analysis at most 1 ms each; a burst gets the idle server. Its budget is renewed when a
        background step completes: a client that never pauses cannot starve the analysis.

        After an edit answered early (``_publish_edit_early``, ``_unbuilt_wait``): in a burst of
        keystrokes each is answered early and the module is built for the last; the budget is
        renewed when the module is built.
        """
        if not budget.spent():
            await self._wait_for_message()

    async def _wait_for_message(self) -> None:
        """Until the client's next message (``schedule`` or ``message_handled``), LISTEN_SECONDS at most."""
        loop = asyncio.get_running_loop()
        waiter = self._listening = loop.create_future()
        timer = loop.call_later(LISTEN_SECONDS, self._stop_listening)
        try:
            await waiter
        finally:
            timer.cancel()
            self._listening = None

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

    def _freeze_young(self, force: bool = False) -> None:
        """Collects the young generations and freezes what survives, at most every FREEZE_EVERY_SECONDS.

        What analysis builds stays in memory (traces, modules), and Python's full collection
        walks every object not frozen: without frequent freezes, the objects a long stretch
        of analysis built made a 60-100 ms full collection every ~10 keystrokes while the
        first analysis ran (measured at 1,000 modules). Frozen objects are still freed by
        reference counting when an edit replaces them; the analysis makes no reference
        cycles, and young ones are collected before each freeze.
        """
        if self.arrived[0] and not force:
            return  # a message waits: not now
        now = time.perf_counter()
        if force or now - self._frozen_at >= FREEZE_EVERY_SECONDS:
            gc.collect(1)
            gc.freeze()
            self._frozen_at = time.perf_counter()

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
            self._add_pending(folder, self.publisher.dirs_pointing_into(folder, changes.moved, changes.moved_files))
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

    def _focus(self, folder: Folder, rels: list[str], focused: frozenset[str], read: dict[str, bytes]) -> frozenset[str]:
        """Before the rest of the folder, the open documents' root configurations (``lsp/focus.py``),
        made again when a document of another module was opened; returns the modules it covers."""
        dirs = open_dirs(self.ws, folder)
        if dirs <= focused:
            return focused
        try:
            focus = build_focus(self.ws, folder, rels, dirs, read)
        except Exception:  # noqa: BLE001 - requests wait for the folder's index instead
            logger.exception("reading the open documents' modules of %s first failed", folder.root)
            focus = None
        self.board.offer_focus(folder, focus)
        return dirs

    def ensure_indexed(self, folder: Folder) -> None:
        task = self._indexing.get(folder)
        if task is None or task.done():
            self._indexing[folder] = asyncio.get_running_loop().create_task(self._index(folder))

    def _freeze_heap(self) -> None:
        """After indexing (and after every pass, see ``_pass``), move the workspace's objects out of the collector's sight.

        A full collection walks every object; with a large workspace's syntax trees and
        graph in memory that is a 100 ms pause in the middle of some keystroke (measured:
        one every ~25 edits of a large root module). Frozen objects are still freed by
        reference counting when an edit replaces them; the analysis makes no reference
        cycles, and young ones are collected before each freeze.
        """
        if all(f.indexed for f in self.ws.folders):
            gc.collect()
            gc.freeze()

    async def _index(self, folder: Folder) -> None:
        ws = self.ws
        progress = await self._progress()
        try:
            await progress.begin(f"tfphi: indexing {folder.name}", "reading files")
            ws.read_config(folder)
            rels = ws.scan(folder)
            host = folder.host
            keep = set(rels) | {rel for _, rel in ws.open_documents_in(folder)} | {p for p in host.files if p.startswith("../")} \
                | set(folder.generated)
            for stale in [p for p in (*host.files, *host.tfvars, *host.problems) if p not in keep]:
                host.remove(stale)  # re-indexing after the ignore list changed
            total = len(rels)
            read: dict[str, bytes] = {}  # what the focus read from disk
            focused = self._focus(folder, rels, frozenset(), read)
            for n, rel in enumerate(rels, 1):
                if folder not in ws.folders:
                    return
                ws.load(folder, rel, read.pop(rel, None))
                if n % INDEX_REPORT_EVERY == 0:
                    progress.report(f"{n}/{total} files", int(100 * n / max(total, 1)))
                    await asyncio.sleep(0)
                    focused = self._focus(folder, rels, focused, read)
            if ws.load_outside(folder):  # modules outside the folder that its sources reach: part of the index
                self._watch_outside()
            progress.report(f"{total}/{total} files: analysing", 100)
            folder.indexed = True
            self._freeze_heap()
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
