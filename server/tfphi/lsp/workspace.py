"""The live workspace: one ``AnalysisHost`` per workspace folder, fed from the disk and the open documents.

- A document belongs to the deepest folder containing it; a file outside every folder gets
  a *loose* folder of its own directory (that directory only, not its subtree: a file opened
  from ``$HOME`` must not make the server walk ``$HOME``).
- Files that are not open come from the disk (``index_folder`` at start-up, ``file_event``
  afterwards); an open document's text wins over the disk until it is closed.
- Module directories outside a folder that its local sources reach (``envs/prod`` calling
  ``../../modules/db``) are read too, under paths that climb out of the folder
  (``../../modules/db/main.tf``), as Terraform follows them (SPEC 2); the server watches them.
  A document opened there belongs to the folder that reads it (no loose folder, no false
  errors), and its diagnostics are published only while it is open.
- Changes to open documents are applied to the document store at once and reach the
  host in ``flush`` (one incremental reparse per document per batch of changes).

This module does I/O (reading files) but knows nothing about JSON-RPC: the server module
turns its answers into messages.
"""

from __future__ import annotations

import codecs
import os
import posixpath
from pathlib import Path
from typing import Generator, Iterable, Iterator, TypeVar

from pygls.uris import from_fs_path, to_fs_path

from ..analysis import CONFIG_FILE, AnalysisHost, Snapshot, file_kind
from ..config import Config
from ..loader import (SKIPPED_DIRS, LinkProblem, is_ignored, link_problem, location_of, read_bytes, repository_root_of,
                      unreadable_code, walk_workspace)
from ..records import record, field
from ..stir.roots import missing_local_targets
from ..stir.deployments import is_auto_loaded
from ..stir.terragrunt import deployed_dirs, generated_files, is_unit_file, place_of, wanted_paths
from ..stir.workspace import module_dir_of
from ..text import Encoding, LineIndex
from .documents import Document, DocumentStore, TextChange

T = TypeVar("T")

# Background work in steps: a generator that yields between two pieces of work (a file read, a
# module built) and returns its result; the scheduler runs it on the loop, reading client messages
# between two steps (``AnalysisScheduler._in_steps``), ``run_steps`` at once.
Steps = Generator[None, None, T]

LOOSE_FOLDER_LIMIT = 500  # files read for a loose folder (and for one outside module directory)
MAX_OUTSIDE_ROUNDS = 32  # chains of ``../`` modules calling further ``../`` modules, followed this deep


@record(eq=False)
class Folder:
    """One workspace folder and its analysis host."""

    uri: str
    root: str  # normalized absolute file-system path
    name: str
    host: AnalysisHost
    loose: bool = False
    indexed: bool = False
    settings_problems: list[str] = field(default_factory=list)
    pending_dirs: set[str] = field(default_factory=set)  # module dirs whose diagnostics are not yet published
    nested: tuple[str, ...] = ()  # relative roots of deeper folders (their files are theirs)
    seen_revision: int = -1  # the host revision whose changes are in ``pending_dirs``
    outside: dict[str, str] = field(default_factory=dict)  # module dirs read from outside the folder -> real path
    outside_tried: set[str] = field(default_factory=set)  # outside module dirs already looked for
    outside_checked: object | None = None  # the module tree whose calls were last followed out
    reported_failures: set[str] = field(default_factory=set)  # module failures already logged
    repo_root: str | None = None  # the git work tree around the folder, relative to it (Config.repo_root)
    generated: dict[str, bytes] = field(default_factory=dict)  # files Terragrunt generate blocks write (not on disk)

    def rel_path(self, fs_path: str) -> str | None:
        """The POSIX path of ``fs_path`` relative to this folder, or None when it is outside."""
        if fs_path == self.root:
            return None
        prefix = self.root if self.root.endswith(os.sep) else self.root + os.sep
        if not fs_path.startswith(prefix):
            return None
        rel = fs_path[len(prefix):].replace(os.sep, "/")
        if self.loose and "/" in rel:
            return None
        return rel

    def outside_rel(self, fs_path: str) -> str | None:
        """The path of ``fs_path`` relative to this folder when it is a file of an outside module it reads."""
        if not self.outside:
            return None
        rel = os.path.relpath(fs_path, self.root).replace(os.sep, "/")
        return rel if posixpath.dirname(rel) in self.outside else None

    def snapshot(self) -> Snapshot:
        """The folder's analysis as of every change fed to it so far."""
        return self.host.snapshot()

    def fs_path(self, rel: str) -> str:
        path = os.path.join(self.root, *rel.split("/"))
        return os.path.normpath(path) if rel.startswith("../") else path

    def owns(self, rel: str) -> bool:
        """True when ``rel`` is this folder's (not a deeper folder's)."""
        return not any(rel == n or rel.startswith(n + "/") for n in self.nested)


def normalize_fs_path(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def uri_to_fs(uri: str) -> str | None:
    """The normalized file-system path of a ``file:`` URI (None for other schemes)."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return normalize_fs_path(path) if path else None


class LiveWorkspace:
    """Folders, documents and the mapping between URIs and (folder, relative path)."""

    def __init__(self, encoding: Encoding = "utf-16", lsp_config: Config | None = None):
        self.documents = DocumentStore(encoding)
        self.lsp_config: Config = lsp_config or Config()
        self.folders: list[Folder] = []  # deepest first
        self._pending: set[str] = set()  # URIs of documents whose text reached neither the host
        self._open_paths: dict[str, str] = {}  # fs path -> the URI the client opened it with
        self._flushed: dict[str, tuple[Folder, str]] = {}  # URI -> where its text was last fed
        self._open_by_dir: dict[Folder, dict[str | None, frozenset[str]]] | None = None  # ``open_files_by_dir``; None: to make again
        self.dropped_folders: list[Folder] = []  # loose folders gone since the last pass

    @property
    def encoding(self) -> Encoding:
        return self.documents.encoding

    # ---- folders -------------------------------------------------------------------------

    def add_folder(self, uri: str, name: str | None = None, loose: bool = False) -> Folder | None:
        """Adds a workspace folder (not yet indexed); None for non-file URIs or a folder already present."""
        root = uri_to_fs(uri)
        if root is None:
            return None
        for folder in self.folders:
            if folder.root == root:
                if folder.loose and not loose:
                    folder.loose = False  # a loose folder promoted to a real one
                    folder.indexed = False
                    folder.name = name or folder.name
                    return folder
                return None
        folder = Folder(uri, root, name or os.path.basename(root) or root, AnalysisHost(self.lsp_config), loose=loose,
                        repo_root=repository_root_of(root))
        folder.host.set_config(None, base=self.folder_base(folder))
        self.folders.append(folder)
        self._sort_folders()
        if not loose:  # a folder inside another takes its files away from the outer one
            for outer in self.folders:
                rel = outer.rel_path(root) if outer is not folder else None
                if rel is not None:
                    host = outer.host
                    for path in [p for p in (*host.files, *host.tfvars, *host.problems) if p.startswith(rel + "/")]:
                        host.remove(path)
        self._reassign_open_documents()
        return folder

    def remove_folder(self, uri: str) -> Folder | None:
        root = uri_to_fs(uri)
        for folder in self.folders:
            if folder.root == root:
                self.folders.remove(folder)
                self._sort_folders()
                self._reassign_open_documents()
                return folder
        return None

    def _sort_folders(self) -> None:
        self.folders.sort(key=lambda f: (-f.root.count(os.sep), f.loose, f.root))
        for folder in self.folders:
            nested = []
            for other in self.folders:
                if other is not folder and not other.loose:
                    rel = folder.rel_path(other.root) if not folder.loose else None
                    if rel is not None:
                        nested.append(rel)
            folder.nested = tuple(sorted(nested))

    def _reassign_open_documents(self) -> None:
        """After the folder set changed, open documents may belong elsewhere: feed them again."""
        for doc in self.documents:
            self._pending.add(doc.uri)

    def locate(self, uri: str, create: bool = True) -> tuple[Folder, str] | None:
        """The folder a URI belongs to (the deepest containing it) and its relative path.

        With ``create``, a file outside every folder gets a loose folder of its own directory.
        """
        fs = uri_to_fs(uri)
        if fs is None:
            return None
        for folder in self.folders:
            rel = folder.rel_path(fs)
            if rel is not None and folder.owns(rel) and not folder.loose:
                return folder, rel
        readers = self.outside_readers(fs)
        if readers:
            return readers[0]  # a module a folder reads from outside: that folder's, not a loose one
        for folder in self.folders:
            rel = folder.rel_path(fs)
            if rel is not None and folder.loose:
                return folder, rel
        if not create:
            return None
        parent = os.path.dirname(fs)
        folder = self.add_folder(from_fs_path(parent) or "", os.path.basename(parent), loose=True)
        if folder is None:
            return None
        rel = folder.rel_path(fs)
        return (folder, rel) if rel is not None else None

    def outside_readers(self, fs: str) -> list[tuple[Folder, str]]:
        """The (non-loose) folders that read ``fs`` as a file of a module outside them, with its path there."""
        found = []
        for folder in self.folders:
            if not folder.loose:
                rel = folder.outside_rel(fs)
                if rel is not None:
                    found.append((folder, rel))
        return found

    def publishes(self, folder: Folder, rel: str) -> bool:
        """Whether ``folder`` publishes diagnostics for ``rel``: its own files always; a file outside
        every folder only while it is open, and only from the first folder that reads it."""
        if not rel.startswith("../"):
            return True
        fs = folder.fs_path(rel)
        if not self._is_open(fs) or any(f.rel_path(fs) is not None and not f.loose for f in self.folders):
            return False
        readers = self.outside_readers(fs)
        return bool(readers) and readers[0][0] is folder

    # ---- modules outside the folder ------------------------------------------------------------

    def load_outside(self, folder: Folder) -> bool:
        """Reads the module directories outside ``folder`` that its local sources reach, until none is
        missing; True when it read any. Cheap when module calls did not change (same module tree)."""
        if folder.loose:
            return False
        read_any = False
        for _ in range(MAX_OUTSIDE_ROUNDS):
            snapshot = folder.snapshot()
            if folder.outside_checked is snapshot.tree:
                break
            folder.outside_checked = snapshot.tree
            tried = folder.outside_tried | set(folder.outside)
            deployed = deployed_dirs(snapshot.units)
            missing = missing_local_targets(snapshot.modules, snapshot.tree, tried, deployed)
            parents = [p for p in wanted_paths(snapshot.terragrunt, tried, place_of(folder.host.config))
                       if not is_ignored(p, folder.host.config.ignore)]
            for path in parents:  # the files Terragrunt units include: each candidate tried once
                folder.outside_tried.add(path)
                if os.path.isfile(folder.fs_path(path)):
                    read_any |= self.load(folder, path)
            if not missing and not parents:
                break
            for dir in missing:
                folder.outside_tried.add(dir)
                if not is_ignored(dir, folder.host.config.ignore):
                    read_any |= self._load_outside_dir(folder, dir, dir in deployed)
        self._set_generated(folder, folder.snapshot())
        if read_any:
            self._reassign_open_documents()  # a document opened there now belongs to this folder
        return read_any

    def _set_generated(self, folder: Folder, snapshot: Snapshot) -> None:
        """The files Terragrunt units' ``generate`` blocks write into their modules (``stir.terragrunt``),
        as the loader sets them: files of the analysis that are not on disk."""
        if not snapshot.units and not folder.generated:
            return
        files = generated_files(snapshot.units, snapshot.modules, snapshot.tree.callers, folder.generated)
        for path in [p for p in folder.generated if p not in files]:
            del folder.generated[path]
            folder.host.remove(path)
        for path, data in files.items():
            if folder.generated.get(path) != data:
                folder.generated[path] = data
                folder.host.set_source(path, data)

    def _load_outside_dir(self, folder: Folder, dir: str, auto_variables: bool = False) -> bool:
        """The module files (``.tf``, ``.tofu``) directly in one outside directory (``auto_variables``:
        and its auto-loaded variable files, for a module a Terragrunt unit deploys); never through a link loop."""
        path = folder.fs_path(dir)
        try:
            real = os.path.realpath(path, strict=True)
        except (OSError, RuntimeError):
            return False
        if not os.path.isdir(real) or real in folder.outside.values():
            return False
        folder.outside[dir] = real
        try:
            names = sorted(e.name for e in os.scandir(path) if e.is_file() and (
                file_kind(e.name) == "tf" or auto_variables and is_auto_loaded(e.name)))
        except OSError:
            return False
        for name in names[:LOOSE_FOLDER_LIMIT]:
            self.load(folder, f"{dir}/{name}")
        return True

    def outside_dirs(self) -> dict[str, str]:
        """Every outside module directory some folder reads: real path -> a folder-relative name (for watchers)."""
        return {real: dir for folder in self.folders for dir, real in folder.outside.items()}

    # ---- reading the disk ------------------------------------------------------------------

    def scan(self, folder: Folder) -> list[str]:
        """Relative paths of the files to read from disk for ``folder`` (after its config is read)."""
        return run_steps(self.scan_steps(folder))

    def scan_steps(self, folder: Folder) -> Steps[list[str]]:
        """``scan`` in steps of one file found (the walk of a folder of 30,000 files takes a second)."""
        root = Path(folder.root)
        if folder.loose:
            try:
                names = sorted(os.listdir(folder.root))
            except OSError:
                return []
            rels = [n for n in names if file_kind(n) in ("tf", "tfvars", "config") and os.path.isfile(folder.fs_path(n))]
            return rels[:LOOSE_FOLDER_LIMIT]
        rels = []
        skipped: list[tuple[str, LinkProblem]] = []
        for rel in walk_workspace(root, folder.host.config, skipped):
            if folder.owns(rel):
                rels.append(rel)
            yield
        rels.extend(rel for rel, _ in skipped if folder.owns(rel))  # ``_load`` reports them
        return rels

    def read_config(self, folder: Folder) -> None:
        """Reads ``.tfphi.toml`` first: its ``ignore`` decides what the walk reads."""
        if self._is_open(folder.fs_path(CONFIG_FILE)):
            return
        self._load(folder, CONFIG_FILE)

    def load(self, folder: Folder, rel: str, data: bytes | None = None) -> bool:
        """Reads one file from disk (``data``: its bytes, read already) into the folder's host, unless
        it is open (the editor's text wins)."""
        if self._is_open(folder.fs_path(rel)):
            return False
        return self._load(folder, rel, data=data)

    def load_steps(self, folder: Folder, rels: list[str], read: dict[str, bytes]) -> Steps[None]:
        """``load`` of each of ``rels`` (``read``: bytes read already, taken out as they are used),
        a file a step; stops when the folder goes."""
        for rel in rels:
            if folder not in self.folders:
                return
            self.load(folder, rel, read.pop(rel, None))
            yield

    def load_into(self, folder: Folder, rel: str, host: AnalysisHost, data: bytes | None = None) -> bool:
        """Reads one file of ``folder`` from disk (``data``: its bytes, read already) into another host
        than the folder's (``lsp/focus.py``)."""
        return self._load(folder, rel, host, data)

    def peek(self, folder: Folder, rel: str) -> bytes | None:
        """The bytes of one file of ``folder`` on disk (the open text when it is open); None when unreadable."""
        fs = folder.fs_path(rel)
        uri = self._open_paths.get(fs)
        doc = self.documents.get(uri) if uri else None
        if doc is not None:
            return doc.source
        try:
            return read_bytes(fs, folder.host.config.max_file_size)
        except OSError:
            return None

    def _load(self, folder: Folder, rel: str, host: AnalysisHost | None = None, data: bytes | None = None) -> bool:
        path = folder.fs_path(rel)
        host = host or folder.host
        if not rel.startswith("../") and os.path.islink(path) and (problem := link_problem(folder.root, rel)) is not None:
            if problem.code is None:  # ignored, as Terraform ignores it (a terraform.tfvars linking to nothing)
                host.remove(rel)
                return False
            host.set_problem(rel, problem.message, problem.code)
            return True
        if not os.path.isfile(path):
            if file_kind(rel) == "config":
                host.set_config(None, base=self.folder_base(folder))
            return False
        try:
            if data is None:
                data = read_bytes(Path(path), host.config.max_file_size)
        except OSError as exc:
            host.set_problem(rel, f"{rel} cannot be read: {exc.strerror or exc}", unreadable_code(rel))
            return True
        if file_kind(rel) == "config":
            text, problem = _config_text(data, host.config.max_file_size)
            host.set_config(text, problem, base=self.folder_base(folder))
        else:
            host.set_source(rel, data)
        return True

    def file_event(self, uri: str, deleted: bool) -> Folder | None:
        """A watched file was created, changed or deleted on disk; returns the folder it changed, if any."""
        fs = uri_to_fs(uri)
        if fs is None:
            return None
        found = self.locate(uri, create=False)
        if found is None:
            return None
        folder, rel = found
        if self._is_open(fs):
            return None  # the editor's text wins; the disk is read again when it closes
        kind = file_kind(rel)
        host = folder.host
        if kind is None:
            if deleted:  # maybe a directory: drop everything under it
                prefix = rel + "/"
                gone = [p for p in list(host.files) + list(host.tfvars) + list(host.problems) if p.startswith(prefix)]
                for path in gone:
                    host.remove(path)
                return folder if gone else None
            return None
        if not self.accepts(folder, rel):
            return None
        for other, other_rel in self.outside_readers(fs):
            if other is not folder and kind == "tf":  # the same outside module, read by another folder too
                if deleted or not os.path.isfile(fs):
                    other.host.remove(other_rel)
                else:
                    self._load(other, other_rel)
        if deleted or not os.path.isfile(fs):
            if kind == "config":
                host.set_config(None, base=self.folder_base(folder))
            else:
                host.remove(rel)
            return folder
        old_ignore = host.config.ignore
        self._load(folder, rel)
        if kind == "config" and host.config.ignore != old_ignore:
            folder.indexed = False  # what the walk reads changed: the folder is read again
        return folder

    def accepts(self, folder: Folder, rel: str) -> bool:
        """True when the folder's host reads ``rel`` (kind, ignore list, skipped dirs, nested folders)."""
        kind = file_kind(rel)
        if kind is None or not folder.owns(rel):
            return False
        if kind == "config":
            return True
        if kind == "terragrunt" and not (is_unit_file(rel) or rel in folder.host.terragrunt):
            return False  # a .hcl file no unit includes (yet): read when one does (``load_outside``)
        if is_ignored(rel, folder.host.config.ignore):
            return False
        parts = rel.split("/")[:-1]
        if any(part in SKIPPED_DIRS for part in parts):
            # .terraform: the manifest and the modules it lists (already read), nothing else
            return kind == "manifest" or rel in folder.host.files
        return True

    def _is_open(self, fs_path: str) -> bool:
        return normalize_fs_path(fs_path) in self._open_paths

    # ---- documents -------------------------------------------------------------------------

    def open(self, uri: str, version: int, text: str, language_id: str = "") -> Document:
        doc = self.documents.open(uri, version, text, language_id)
        fs = uri_to_fs(uri)
        if fs is not None:
            self._open_paths[fs] = uri
        self._pending.add(uri)
        return doc

    def change(self, uri: str, version: int | None, changes: Iterable[TextChange]) -> Document:
        """Applies changes now (KeyError: not open; StaleVersion: old version); the host sees them at ``flush``."""
        doc = self.documents.change(uri, version, changes)
        self._pending.add(uri)
        return doc

    def close(self, uri: str) -> Folder | None:
        """Closes a document: its file goes back to what the disk says."""
        doc = self.documents.close(uri)
        self._pending.discard(uri)
        fs = uri_to_fs(uri)
        if fs is not None:
            self._open_paths.pop(fs, None)
        where = self._flushed.pop(uri, None)
        if where is not None:
            self._open_by_dir = None
        if doc is None or where is None:
            return None
        folder, rel = where
        if folder not in self.folders:
            return None
        for other, other_rel in self.outside_readers(fs) if fs else ():
            if other is not folder:
                self._load(other, other_rel)
        if os.path.isfile(folder.fs_path(rel)) and self.accepts(folder, rel):
            self._load(folder, rel)
        elif file_kind(rel) == "config":
            folder.host.set_config(None, base=self.folder_base(folder))
        else:
            folder.host.remove(rel)
        self._owned_outside_changed()  # a closed file outside the folder is no longer the user's
        return folder

    def _moved_away(self, folder: Folder, rel: str) -> None:
        """A document no longer belongs to ``folder``: the disk's text if it still reads the file, else nothing.

        A loose folder left without documents goes (its diagnostics are cleared by whoever
        takes ``dropped_folders``).
        """
        fs = folder.fs_path(rel)
        if not folder.loose and (folder.outside_rel(fs) is not None or folder.rel_path(fs) is not None) and os.path.isfile(fs):
            self._load(folder, rel)
        else:
            folder.host.remove(rel)
        if folder.loose and not any(where[0] is folder for where in self._flushed.values()):
            self.folders.remove(folder)
            self._sort_folders()
            self.dropped_folders.append(folder)

    def take_dropped_folders(self) -> list[Folder]:
        dropped, self.dropped_folders = self.dropped_folders, []
        return dropped

    def has_pending(self) -> bool:
        return bool(self._pending)

    def open_in(self, folder: Folder) -> Iterator[tuple[Document, str]]:
        """The open documents that belong to ``folder`` now (fed to its host or not), with their paths."""
        for doc in self.documents:
            found = self.locate(doc.uri, create=False)
            if found is not None and found[0] is folder:
                yield doc, found[1]

    def flush(self) -> set[Folder]:
        """Feeds every changed document to its folder's host (one reparse each); returns the folders touched."""
        touched: set[Folder] = set()
        pending, self._pending = self._pending, set()
        for uri in sorted(pending):
            doc = self.documents.get(uri)
            if doc is None:
                continue
            found = self.locate(uri)
            previous = self._flushed.get(uri)
            if previous is not None and previous != found and previous[0] in self.folders:
                self._moved_away(previous[0], previous[1])  # the document moved to another folder
                touched.add(previous[0])
            if found is None:
                continue
            folder, rel = found
            if previous != found:
                self._flushed[uri] = (folder, rel)
                self._open_by_dir = None
            if not self.accepts(folder, rel):
                continue
            host = folder.host
            kind = file_kind(rel)
            if kind in ("tf", "tfvars") and parseable(doc.source, host.config.max_file_size):
                host.set_parsed(doc.parse(rel, self.documents.parser, host.clean_sources))
                fs = uri_to_fs(uri)
                for other, other_rel in self.outside_readers(fs) if fs else ():
                    if other is not folder:  # another folder reads the same module from outside it
                        other.host.set_parsed(doc.parse(other_rel, self.documents.parser, other.host.clean_sources))
                        touched.add(other)
            elif kind == "config":
                text, problem = _config_text(doc.source, host.config.max_file_size)
                host.set_config(text, problem, base=self.folder_base(folder))
            else:
                host.set_source(rel, doc.source)  # a manifest, or bytes the host reports as a problem
            touched.add(folder)
        return touched | self._owned_outside_changed()

    # ---- configuration -----------------------------------------------------------------------

    def folder_base(self, folder: Folder) -> Config:
        """The settings a folder's ``.tfphi.toml`` applies over: the LSP settings, where the folder lies
        in its git work tree (Terragrunt's ``get_repo_root()``), and which modules outside it are the user's."""
        return self.lsp_config.with_overrides(repo_root=folder.repo_root, location=location_of(folder.root),
                                              owned_outside=self.owned_outside(folder))

    def owned_outside(self, folder: Folder) -> tuple[str, ...]:
        """The directories outside ``folder`` that are the user's (``Config.owned_outside``, SPEC 2): the
        other workspace folders, and the module directories of the open documents it reads from outside.
        Diagnostics about the other modules outside it go to the user's calls into them."""
        owned = set()
        for other in self.folders:
            if other is not folder and not other.loose:
                rel = posixpath.relpath(other.root, folder.root)
                if rel == ".." or rel.startswith("../"):
                    owned.add(rel + "/")  # the whole tree: another folder's modules are the user's
        for fs in self._open_paths:
            rel = folder.outside_rel(fs)
            if rel is not None:
                owned.add(posixpath.dirname(rel))
        return tuple(sorted(owned))

    def _reset_config(self, folder: Folder) -> None:
        """The folder's configuration again, over a new base (its ``.tfphi.toml`` text and problem kept)."""
        host = folder.host
        problem = next((p.message for p in host.config_problems if host.config_text is None), None)
        host.set_config(host.config_text, problem, base=self.folder_base(folder))

    def _owned_outside_changed(self) -> set[Folder]:
        """The folders whose modules outside them changed owner (a document opened or closed, a folder
        added): their configuration is set again, so their diagnostics move to or from the calls."""
        changed = {f for f in self.folders if not f.loose and f.host.base_config.owned_outside != self.owned_outside(f)}
        for folder in changed:
            self._reset_config(folder)
        return changed

    def set_lsp_config(self, config: Config) -> None:
        """New LSP settings: each folder's effective config is the settings with its ``.tfphi.toml`` on top."""
        self.lsp_config = config
        for folder in self.folders:
            old_ignore = folder.host.config.ignore
            self._reset_config(folder)
            if folder.host.config.ignore != old_ignore:
                folder.indexed = False

    # ---- positions and URIs ------------------------------------------------------------------

    def uri_for(self, folder: Folder, rel: str) -> str:
        """The URI of a folder's file: the one the client opened it with, else built from its path."""
        fs = folder.fs_path(rel)
        return self._open_paths.get(fs) or from_fs_path(fs) or fs

    def document_for(self, folder: Folder, rel: str) -> Document | None:
        uri = self._open_paths.get(folder.fs_path(rel))
        return self.documents.get(uri) if uri else None

    def line_index(self, folder: Folder, rel: str, snapshot: Snapshot | None = None) -> LineIndex | None:
        """The line index of the bytes ``snapshot`` (by default the host) holds for ``rel`` (the open text once flushed)."""
        held = snapshot or folder.host
        hcl = held.files.get(rel) or held.tfvars.get(rel)
        doc = self.document_for(folder, rel)
        if hcl is not None:
            if doc is not None and doc.source is hcl.source and not hcl.source.startswith(codecs.BOM_UTF8):
                return doc.line_index  # the open text's, which each change updates (no BOM: the same index)
            return folder.host.line_index(rel, hcl.source)  # (kept by the host while they are its bytes)
        if doc is not None:
            return doc.line_index
        if file_kind(rel) == "config" and held.config_text is not None:
            return LineIndex(held.config_text.encode("utf-8"))  # (a small file, asked about rarely)
        return None

    def version_for(self, folder: Folder, rel: str) -> int | None:
        doc = self.document_for(folder, rel)
        return doc.version if doc is not None else None

    def module_dir_of(self, rel: str) -> str:
        return module_dir_of(rel)

    def open_files_by_dir(self, folder: Folder) -> dict[str | None, frozenset[str]]:
        """The relative paths of the documents fed to ``folder`` (``open_documents_in``): the ``.tf``
        files by module directory, the others under None. Made again only once a document was fed
        to another place or closed: a keystroke's publication read each open document's kind and
        directory (64 µs with the 83 documents open at 1,000 modules, for each module published)."""
        if self._open_by_dir is None:
            by_folder: dict[Folder, dict[str | None, set[str]]] = {}
            for where_folder, rel in self._flushed.values():
                key = module_dir_of(rel) if file_kind(rel) == "tf" else None
                by_folder.setdefault(where_folder, {}).setdefault(key, set()).add(rel)
            self._open_by_dir = {f: {key: frozenset(rels) for key, rels in by_dir.items()} for f, by_dir in by_folder.items()}
        return self._open_by_dir.get(folder, _NO_OPEN_FILES)

    def open_documents_in(self, folder: Folder) -> Iterator[tuple[Document, str]]:
        for doc in self.documents:
            where = self._flushed.get(doc.uri)
            if where is not None and where[0] is folder:
                yield doc, where[1]


_NO_OPEN_FILES: dict[str | None, frozenset[str]] = {}  # (never written)


def run_steps(steps: Steps[T]) -> T:
    """Runs background work given in steps to its end, at once; returns its result."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def parseable(data: bytes, limit: int) -> bool:
    """True when the host can parse these bytes (size, no NUL, valid UTF-8); else it reports why."""
    if len(data) > limit or b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _config_text(data: bytes, limit: int) -> tuple[str | None, str | None]:
    if len(data) > limit:
        return None, f"{CONFIG_FILE} is larger than the {limit:,}-byte limit; using the defaults"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"{CONFIG_FILE} is not valid UTF-8 (byte {exc.start}); using the defaults"


__all__ = ["Folder", "LiveWorkspace", "Steps", "normalize_fs_path", "run_steps", "uri_to_fs"]
