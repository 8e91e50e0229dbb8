"""Requests read snapshots: which snapshot answers a request, and an awaitable for when there is one.

A request never feeds a change to a host or builds anything: the scheduler does, in its passes,
and offers each folder's snapshot here once it is complete (every file of the folder read,
every change so far fed). A request about a document is answered from that snapshot when it
holds the document's current text (no document has a change the scheduler has not fed, and the
snapshot is still the host's newest), else it waits (``wait``) until the scheduler offers one
that does. Before a folder's first complete snapshot, a document of a module the folder's focus
answers for (``lsp/focus.py``: the open documents' root configurations, read and built first) is
answered from the focus's snapshot, complete for those roots.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from ..analysis import Snapshot
from ..stir.workspace import module_dir_of
from .focus import Focus
from .workspace import Folder, LiveWorkspace

logger = logging.getLogger(__name__)

# What ``ready`` says of a request that needs no folder: its document is in none (the handler answers null).
NOWHERE = ("nowhere",)

Answer = tuple[Folder, str, Snapshot]


class SnapshotBoard:
    """The newest complete snapshot of each folder, the focus snapshots, and the requests waiting for one."""

    def __init__(self, ws: LiveWorkspace, wanted: Callable[[], None] = lambda: None):
        self.ws = ws
        self._wanted = wanted  # asks the scheduler for a pass (a request waits for a snapshot no pass is making)
        self._complete: dict[Folder, Snapshot] = {}
        self._focus: dict[Folder, Focus] = {}
        self._waiters: list[tuple[str | None, asyncio.Future]] = []
        self.focus_answers = 0  # requests answered from a focus snapshot (for tests and benchmarks)

    # ---- what the scheduler offers ----------------------------------------------------------

    def offer(self, folder: Folder, snapshot: Snapshot) -> None:
        """A complete snapshot of ``folder`` (every file read, every change fed): its focus is over."""
        self._complete[folder] = snapshot
        self._focus.pop(folder, None)
        self.wake()

    def offer_focus(self, folder: Folder, focus: Focus | None) -> None:
        """The focus of a folder being indexed (None: there is none, requests wait for the index)."""
        if focus is None:
            self._focus.pop(folder, None)
        else:
            self._focus[folder] = focus
        self.wake()

    def focus_of(self, folder: Folder) -> Focus | None:
        return self._focus.get(folder)

    def forget(self, folder: Folder) -> None:
        self._complete.pop(folder, None)
        self._focus.pop(folder, None)

    def refresh_focus(self) -> None:
        """Feeds the open documents' changes to every focus (the scheduler calls it after feeding the
        hosts); a focus whose module tree they changed is dropped (its roots may be others now)."""
        for folder, focus in list(self._focus.items()):
            try:
                followed = folder in self.ws.folders and focus.follow(self.ws, folder)
            except Exception:  # noqa: BLE001 - the folder's index answers instead
                logger.exception("a focus of %s could not take the open documents' changes", folder.root)
                followed = False
            if not followed:
                del self._focus[folder]
        self.wake()

    # ---- what requests read ---------------------------------------------------------------------

    def ready(self, uri: str | None) -> Answer | tuple | None:
        """The folder, path and snapshot a request about ``uri`` reads (``NOWHERE`` when no folder
        holds it), or None while there is no complete snapshot with the document's current text.
        ``uri`` None: a request about no document, ready once every folder has its snapshot."""
        ws = self.ws
        if uri is None:
            if ws.has_pending() or any(self._current(folder) is None for folder in ws.folders):
                return None
            return NOWHERE
        if ws.has_pending():
            return None  # a change the scheduler has not fed yet (to this document or another: both count)
        found = ws.locate(uri, create=False)
        if found is None:
            return NOWHERE
        folder, rel = found
        snapshot = self._current(folder)
        if snapshot is not None:
            return folder, rel, snapshot
        focus = self._focus.get(folder)
        if focus is not None and not focus.snapshot.cancelled and module_dir_of(rel) in focus.dirs:
            return folder, rel, focus.snapshot
        return None

    def answer(self, uri: str) -> Answer | tuple | None:
        """``ready``, counting the answers a focus gives."""
        found = self.ready(uri)
        if found is not None and found is not NOWHERE and found[2] is not self._complete.get(found[0]):
            self.focus_answers += 1
        return found

    def _current(self, folder: Folder) -> Snapshot | None:
        snapshot = self._complete.get(folder)
        if snapshot is None or snapshot.cancelled or not folder.indexed:
            return None
        return snapshot

    async def wait(self, uri: str | None) -> None:
        """Until ``ready(uri)``: resolved by the scheduler's next offer that makes it so."""
        if self.ready(uri) is not None:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((uri, future))
        self._wanted()
        try:
            await future
        finally:
            self._waiters = [(u, f) for u, f in self._waiters if f is not future]

    def wake(self) -> None:
        """Resolves the waiters whose snapshot is now there."""
        for uri, future in self._waiters:
            if not future.done() and self.ready(uri) is not None:
                future.set_result(None)

    def waiting(self) -> bool:
        return any(not future.done() for _, future in self._waiters)
