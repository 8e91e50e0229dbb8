"""The first answer comes first: the root configurations of the open documents, read and built
before the rest of a folder.

Opening a file in a large folder, a user waits for the first hover. The folder's index reads and
builds every file (3,000 files at 1,000 modules: seconds, most of it parsing), so before it a
*focus* host, apart from the folder's, reads what the open documents' modules need to be complete
for their roots:

- every file that is not a module's ``.tf`` (variable files, the manifests of installed modules);
- every file that may hold a module call into a module on a call path from a root to an open
  module (its bytes hold ``module "x"``, ``module x`` or, in JSON, ``"module":``, and the called
  directory's name: a superset), until no more callers are found: every call path from a root
  to an open module is then the whole folder's;
- every file of the modules on those call paths, of the modules an open module calls, and of the
  modules whose outputs a module read so far names (``module.NAME`` in its bytes: a superset),
  and so on down.

Requests about a document of an open module are answered from the focus's snapshot until the
folder's complete snapshot exists (``lsp/snapshots.py``); everything else waits for that. A focus
is never made when what it would read is most of the folder, or reaches a module outside it or a
Terragrunt unit (the index reads those with rules of its own), and it is dropped when an edit
changes its module tree. It publishes no diagnostics: the folder's analysis does, once complete.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..analysis import AnalysisHost, Snapshot, file_kind
from ..records import record
from ..stir.workspace import local_target
from ..stir.workspace import is_installed_dir, is_local_source, module_dir_of
from ..syntax import is_json_path
from .workspace import Steps, parseable, run_steps

if TYPE_CHECKING:
    from .workspace import Folder, LiveWorkspace

# A module block's header (``module "x" {``, ``module x {``), or a JSON configuration's ``"module":``
# (a superset: "submodule x" too); no leading ``\b``, so that the search looks for the literal first.
MODULE_BLOCK = re.compile(rb'module(?:\s*"|\s+[A-Za-z_])')
# A string that ends climbing (``"../.."``, ``"../../"``, ``".."``): a source into a directory above its caller.
CLIMBING_SOURCE = re.compile(rb'\.\.(?:/\.)*/?"')
MODULE_REFERENCE = re.compile(rb'\bmodule\s*\.\s*([A-Za-z_][A-Za-z0-9_-]*)')
MAX_SHARE = 0.5  # a focus reading more than this share of the folder's files is not made: no first answer comes sooner


@record(eq=False)
class Focus:
    """A host holding the open modules' root configurations, and its snapshot."""

    host: AnalysisHost
    dirs: frozenset[str]  # the open documents' module directories: what it answers for
    snapshot: Snapshot

    def follow(self, ws: "LiveWorkspace", folder: "Folder") -> bool:
        """Takes the folder's open documents' texts; False when that changed the module tree."""
        host = self.host
        for doc, rel in ws.open_in(folder):
            kind = file_kind(rel)
            if kind is None:
                continue
            if kind not in ("tf", "tfvars"):
                return False  # the settings, a manifest or a Terragrunt file: the folder's index reads them
            hcl = doc.hcl if not doc.dirty else None
            if hcl is None or hcl.path != rel:
                return False  # not parsed as the folder's host reads it (bytes it reports as a problem)
            if host.files.get(rel) is not hcl and host.tfvars.get(rel) is not hcl:
                host.set_parsed(hcl)
        snapshot = host.snapshot()
        if snapshot.tree is not self.snapshot.tree:
            return False
        self.snapshot = snapshot
        return True


def open_dirs(ws: "LiveWorkspace", folder: "Folder") -> frozenset[str]:
    """The module directories of the folder's open ``.tf`` documents."""
    return frozenset(module_dir_of(rel) for _, rel in ws.open_in(folder) if file_kind(rel) == "tf")


def build_focus(ws: "LiveWorkspace", folder: "Folder", rels: list[str], dirs: frozenset[str],
                read: dict[str, bytes] | None = None, max_share: float = MAX_SHARE) -> Focus | None:
    """A focus on the modules ``dirs`` of ``folder`` (whose files are ``rels``), or None when none is
    worth making (more than ``max_share`` of the files to read). ``read`` receives the bytes it
    read from disk (the index reads them from there)."""
    return run_steps(focus_steps(ws, folder, rels, dirs, read, max_share))


def focus_steps(ws: "LiveWorkspace", folder: "Folder", rels: list[str], dirs: frozenset[str],
                read: dict[str, bytes] | None = None, max_share: float = MAX_SHARE) -> Steps[Focus | None]:
    """``build_focus`` in steps of one file read or one module built (the scheduler's loop reads
    client messages between them: ``AnalysisScheduler._in_steps``)."""
    if folder.loose or not dirs or any(d.startswith("../") for d in dirs):
        return None
    opened = {rel: doc for doc, rel in ws.open_in(folder)}
    if any(file_kind(rel) not in (None, "tf", "tfvars") for rel in opened):
        return None  # an open settings, manifest or Terragrunt file: the folder's index reads it
    by_dir: dict[str, list[str]] = {}
    first: list[str] = []
    calls: list[tuple[str, bytes]] = []  # the files that may hold a module call, with their bytes
    for rel in rels:
        kind = file_kind(rel)
        if kind == "terragrunt":
            return None
        if kind != "tf":
            first.append(rel)
            continue
        by_dir.setdefault(module_dir_of(rel), []).append(rel)
        if rel in opened:
            continue
        data = ws.peek(folder, rel)
        if data is None:
            first.append(rel)  # unreadable: read as the index reads it (a problem)
            continue
        if read is not None:
            read[rel] = data
        if MODULE_BLOCK.search(data):
            calls.append((rel, data))
        yield
    for rel, doc in opened.items():
        if file_kind(rel) == "tf" and MODULE_BLOCK.search(doc.source):
            calls.append((rel, doc.source))
    installed = sorted(d for d in by_dir if is_installed_dir(d))
    main = folder.host
    host = AnalysisHost(main.base_config)
    host.set_config(main.config_text, None, base=main.base_config)
    loaded: set[str] = set()

    def load(rel: str) -> None:
        if rel in loaded:
            return
        loaded.add(rel)
        doc = opened.get(rel)
        if doc is None:
            ws.load_into(folder, rel, host, read.get(rel) if read is not None else None)
        elif file_kind(rel) in ("tf", "tfvars") and parseable(doc.source, host.config.max_file_size):
            host.set_parsed(doc.parse(rel, ws.documents.parser))  # the parse the folder's host gets too
        elif file_kind(rel) in ("tf", "tfvars"):
            host.set_source(rel, doc.source)  # bytes it reports as a problem, as the folder's host does

    for rel in first:
        load(rel)
        yield
    needed, path, searched = set(dirs), set(dirs), set()
    while True:
        for dir in needed:
            for rel in by_dir.get(dir, ()):
                load(rel)
                yield
        for rel in opened:
            if module_dir_of(rel) in needed:
                load(rel)
        for target in sorted(path - searched):  # the files that may call a module on the call paths
            searched.add(target)
            for rel, data in calls:
                if rel not in loaded and _may_call(rel, data, target):
                    load(rel)
                yield  # (10,000 files searched for each target: 10-20 ms)
        if len(loaded) > max_share * max(len(rels), 1):
            return None
        yield from host.build_steps()
        snapshot = host.snapshot()
        grown, path = _needed(snapshot, dirs, needed, installed)
        if any(d.startswith("../") for d in grown):
            return None
        if grown == needed and path <= searched:
            return Focus(host, dirs, snapshot)
        needed = grown


def _may_call(rel: str, data: bytes, target: str) -> bool:
    """Whether the file ``rel`` (bytes ``data``) may hold a module call into ``target``. A local
    source resolves to ``target`` only if it names its last component, or ends climbing (``../..``)
    from inside it; an installed module is found through a manifest, whatever its caller's text."""
    if is_installed_dir(target):
        return True
    if (not target or module_dir_of(rel).startswith(target + "/")) and CLIMBING_SOURCE.search(data):
        return True
    return bool(target) and target.rsplit("/", 1)[-1].encode("utf-8") in data


def _needed(snapshot: Snapshot, opened: frozenset[str], needed: set[str], installed: list[str]) -> tuple[set[str], set[str]]:
    """``needed`` with the callers of the open modules up to their roots (and those call paths' modules), the modules an open module
    calls, and the modules whose outputs a needed module's text names. A call resolves only to a
    module read: a local source names its directory, and a call no module read resolves brings
    every module ``terraform init`` installed (``installed``), one of which its manifest may list.

    A trace reaches a caller through its module call's arguments, never through the caller's own
    outputs: what a caller's ``output`` blocks name is not needed (a root's outputs name every
    module it calls); a module reached through its outputs needs what all its blocks name."""
    tree = snapshot.tree
    grown = set(needed)
    path = set(opened)
    stack = list(opened)
    while stack:
        for caller, _ in tree.callers.get(stack.pop(), ()):
            if caller not in path:
                path.add(caller)
                stack.append(caller)
    grown |= path
    full: set[str] = set()
    stack = [(dir, False) for dir in path]
    while stack:
        dir, whole = stack.pop()
        module = snapshot.modules.get(dir)
        if module is None:
            continue
        named = _named_modules(snapshot, dir, outputs=whole)
        for name, call in module.calls.items():
            if not (dir in opened or name in named):
                continue
            target = tree.targets.get((dir, name))
            if target is not None and target.dir is not None:
                found = [target.dir]
            elif call.source is not None and is_local_source(call.source) and not is_installed_dir(dir):
                found = [local] if (local := local_target(dir, call.source)) is not None else []
            else:
                found = installed
            for target_dir in found:
                if target_dir not in full:
                    grown.add(target_dir)
                    full.add(target_dir)
                    stack.append((target_dir, True))
    return grown, path


def _named_modules(snapshot: Snapshot, dir: str, outputs: bool) -> set[str]:
    """The names of ``module.NAME`` in the files of ``dir`` (a superset: comments and strings too),
    leaving out its ``output`` blocks unless ``outputs``."""
    named: set[str] = set()
    for rel in snapshot.files_in(dir):
        hcl = snapshot.files.get(rel)
        if hcl is None:
            continue
        if outputs or is_json_path(rel) or hcl.errors:
            pieces = [hcl.source]
        else:
            pieces = [hcl.source[b.span.start:b.span.end] for b in hcl.body.blocks if b.type != "output"]
            pieces.extend(hcl.source[a.span.start:a.span.end] for a in hcl.body.attributes.values())
        for piece in pieces:
            named.update(m.group(1).decode("ascii") for m in MODULE_REFERENCE.finditer(piece))
    return named
