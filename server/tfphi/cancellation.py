"""How work on a snapshot stops: ``Cancelled``, raised when the host has moved on or a client
message waits (the one cancellation mechanism; ARCHITECTURE.md)."""

from __future__ import annotations


class Revision:
    """The host's revision counter, shared with its snapshots so they know when they are stale."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class Cancelled(Exception):
    """Work on a snapshot stops: the host took a change after the snapshot was made (the work
    is stale), or a client message waits while the work was to give way (``Interrupt``)."""


class Interrupt:
    """A client message waits for the thread that runs the analysis (the server's loop).

    The host owns one; the server sets ``waiting`` from the thread that reads the client, as
    bytes come in, and clears it once the loop has handled them. Work that is to give way to the
    client (the server's background analysis: ``Snapshot.field_steps``) raises ``Cancelled``
    at its next check while it is set; requests, which the loop runs one at a time, do not.

    Work that gave way is resumed later. What it finished is kept (the tracer memoizes every
    reference it finished), so the next attempt goes on from there quickly; an attempt that
    finished nothing goes over the same checks again, and one further, before it gives way
    (``grace``: the checks it got through). So each attempt gets further than the last: a client
    that never pauses cannot starve the analysis, and a message waits for one reference traced
    anew at most, not for a whole field's trace.
    """

    __slots__ = ("waiting", "armed", "checks", "grace")

    def __init__(self) -> None:
        self.waiting = False
        self.armed = False  # background work is under way (``Snapshot.field_steps``)
        self.checks = 0  # the checks it made since it was armed
        self.grace = 0  # the checks it makes before it may give way

    def arm(self, grace: int = 0) -> None:
        """Background work starts (or resumes an attempt that finished nothing: ``grace``, the checks it got through)."""
        self.armed, self.checks, self.grace = True, 0, grace


class Cancellation:
    """What a snapshot checks, and its tracer at every expression: its revision against the host's,
    and the host's interrupt. Apart from the snapshot, so the tracer does not point back at it."""

    __slots__ = ("revision", "host_revision", "interrupt")

    def __init__(self, revision: int, host_revision: Revision, interrupt: Interrupt):
        self.revision = revision
        self.host_revision = host_revision
        self.interrupt = interrupt

    def check(self) -> None:
        if self.host_revision.value != self.revision:
            raise Cancelled(f"revision {self.revision} was superseded by {self.host_revision.value}")
        interrupt = self.interrupt
        if interrupt.armed:
            interrupt.checks += 1
            if interrupt.waiting and interrupt.checks > interrupt.grace:
                raise Cancelled("a client message is waiting")
