"""What an analysis host keeps of what it derives: one policy, two values (docs/memory.md).

An editor's host (``EDITOR``, the language server's and the tests') keeps what the next edit
reads, so that a keystroke costs what it touches; a batch host (``BATCH``, ``tfphi check``'s:
nothing is edited after the load) keeps none of it and lets each module's traces go once its
subtree's diagnostics are taken. Both let the views of a file read without its tree (a file
on disk, not open in an editor) forget what they derived on demand once their module's
diagnostics are out: converted expressions, the bodies of blocks no module build reads, and on
a batch host the references of the undefined-reference check (``syntax.hclfile.forget_derived``;
an editor's host forgets once per parse of a file, after its module's first analysis). Whatever a
host lets go is derived again, the same, from the file's bytes when read: retention decides
what is held when, never what is reported (``tests/workspace/test_batch_check.py``,
``tests/host/test_host_property.py``).
"""

from __future__ import annotations

from typing import Callable, Iterable

from .records import record
from .syntax.hclfile import HclFile, forget_derived
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

    ``releases_traces``: once a module's diagnostics are taken and no module still to be
    analysed is likely to read it (``check_scope.batch_schedule``), its field traces and the
    memoized values of its instances go (read again, they are traced again).
    """

    name: str
    keeps_edit_state: bool
    releases_traces: bool

    def memo_store(self) -> MemoStore:
        """The trace memo a host with this policy keeps."""
        return MemoStore(edits=self.keeps_edit_state)

    def release(self, dir: str, drop_fields: Callable[[str], None], memo: MemoStore, files: Iterable[HclFile]) -> None:
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
            # the references, which the next findings read.
            if self.releases_traces or not hcl.forgotten:
                forget_derived(hcl, references=not self.keeps_edit_state)


EDITOR = Retention("editor", keeps_edit_state=True, releases_traces=False)
BATCH = Retention("batch", keeps_edit_state=False, releases_traces=True)
