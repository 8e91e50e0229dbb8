"""The analysis host and its snapshots (rust-analyzer's ``AnalysisHost`` / ``Analysis`` split).

- ``AnalysisHost`` is the one mutable object: every input (a file's bytes or parsed tree, an
  unreadable file, a removal, the configuration) arrives through ``apply_change``. It knows
  nothing about the disk or LSP: the loader and the editor layer feed it.
- ``host.snapshot()`` returns an immutable ``Snapshot`` of the current revision: what every
  query (diagnostics, hovers, traces, the CLI) reads. Building a snapshot does the
  incremental work: the modules of edited directories are rebuilt, the declarations whose
  text changed are found, and only the field traces that read one of them are dropped. A
  declaration that merely *moved* (an edit above it) is the same object, and so are the
  traces that read it: spans are relative to their top-level block (``syntax.expr.Anchor``),
  absolute only when read.
- A snapshot answers until the host takes its next change; from then on every query on it
  raises ``Cancelled`` (revision-based cancellation: stale work stops instead of answering
  from old data), and its caches pass to the next snapshot.
- A module whose analysis raises is recorded in ``Snapshot.failures`` (with the traceback)
  and analysed as empty; the other modules are not affected.
"""

from __future__ import annotations

import functools
import posixpath
import weakref
from typing import Callable, Iterable, Iterator, Mapping, Sequence, Union

from tree_sitter import Parser

from . import records
from .addrs import AddressError, FieldAddress, parse_field_address
from .config import Config, ConfigProblem, FieldSpec
from .diagnostics import Diagnostic
from .records import record, field
from .stir.model import FileDecls, Module, Resource, assemble_module, declarations_by_address, kept_declarations, read_declarations
from .stir.module_changes import calls_differ, changed_calls, declared_addresses, interface_differs, modules_below
from .stir.terragrunt import Unit, deployed_dirs, is_terragrunt_path, place_of, read_units
from .stir.roots import roots_reaching
from .stir.file_findings import FileFindings, file_findings
from .stir.finding_diagnostics import FindingDiagnostics, finding_diagnostic
from .stir.references import Finding, ModuleInterfaces, NameTable, check_module, name_table
from .stir.workspace import MODULES_JSON, CallPath, Manifest, ModuleTree, build_module_tree, configuration_files, module_dir_of, parse_manifest
from .syntax import is_json_path
from .syntax.expr import Span
from .cancellation import Cancellation, Cancelled, Interrupt, Revision
from .retention import EDITOR, Retention
from .syntax.hclfile import HclFile, new_parser, parse_file, take_over_blocks
from .syntax.searches import CleanSources
from .tables import FrozenTable, Table, add_reader, readers_of, remove_reader
from .text import LineIndex
from .syntax.references import BlockCache
from .trace.result import TraceResult
from .trace.env import Env, SourceView, block_iterators
from .trace.tracer import Tracer

CONFIG_FILE = ".tfphi.toml"
CHANGE_LOG_LIMIT = 512  # revisions whose changed directories the host remembers (see ``changed_since``)

# Test-only fault injection: called with (stage, module dir) before a module is built
# ("build") and before its findings or traces are computed ("findings", "fields"). Nothing
# reachable from a workspace or a client sets it; tests assign it in-process.
_fault_injection: Callable[[str, str], None] | None = None


@record(frozen=True, slots=True)
class FileProblem:
    """A file that could not be analysed (not UTF-8, too large, unreadable)."""

    path: str
    message: str
    code: str = "syntax-error"  # or config-error: a variable file or Terragrunt file that cannot be read


@record(frozen=True, slots=True)
class FieldTrace:
    """One registered field of one resource, traced in one module instance."""

    resource: Resource
    field_path: tuple[str, ...]
    spec: FieldSpec
    result: TraceResult

    @property
    def field_name(self) -> str:
        return ".".join(self.field_path)


def file_kind(path: str) -> str | None:
    """What a workspace path is to tfphi: ``tf`` (Terraform's and OpenTofu's configuration files),
    ``tfvars``, ``manifest``, ``config``, ``terragrunt`` or None."""
    name = posixpath.basename(path)
    if path.endswith((".tf", ".tf.json", ".tofu", ".tofu.json")):
        return "tf"
    if path.endswith((".tfvars", ".tfvars.json")):
        return "tfvars"
    if path.endswith(MODULES_JSON) and (path == MODULES_JSON or path.endswith("/" + MODULES_JSON)):
        return "manifest"
    if name == CONFIG_FILE and "/" not in path:
        return "config"
    if is_terragrunt_path(path):
        return "terragrunt"
    return None


# ---- changes: the only way input reaches the host ------------------------------------------


@record(frozen=True, slots=True)
class SetSource:
    """A file's bytes (files tfphi does not read are ignored)."""

    path: str
    data: bytes


@record(frozen=True, slots=True)
class SetParsed:
    """A file already parsed (the editor reparses incrementally itself)."""

    hcl: HclFile


@record(frozen=True, slots=True)
class SetProblem:
    """A file that could not be analysed; it drops out of the workspace."""

    path: str
    message: str
    code: str = "syntax-error"  # config-error: a variable or Terragrunt file that cannot be read


@record(frozen=True, slots=True)
class Remove:
    path: str


@record(frozen=True, slots=True)
class SetConfig:
    """``.tfphi.toml`` text (None: no file) over the base configuration (``base``: new LSP settings)."""

    text: str | None
    problem: str | None = None
    base: Config | None = None


Change = Union[SetSource, SetParsed, SetProblem, Remove, SetConfig]


@record
class _Derived:
    """What snapshots compute lazily and hand on to the next revision."""

    fields: dict[str, list[FieldTrace]] = field(default_factory=dict)  # module dir -> traced fields
    # module dir -> {index of a (resource, field) unit -> its traces}: a module whose tracing
    # is under way, in steps that yield (``Snapshot.field_steps``); complete, it moves to ``fields``.
    partial: dict[str, dict[int, list[FieldTrace]]] = field(default_factory=dict)
    # module dir -> the checks its unit under way got through before a client message interrupted
    # it without finishing a reference: the next attempt goes past them before it gives way
    # (``Interrupt.grace``), so that the analysis cannot starve
    interrupted: dict[str, int] = field(default_factory=dict)
    field_deps: dict[tuple[str, str], str | set[str]] = field(default_factory=dict)  # declaration read -> dirs whose traces read it (one as itself: ``retention.add_reader``)
    # module dir -> the declarations its traces read: ``field_deps`` read the other way, so that a
    # module's traces dropped take it from under what they read (a name a keystroke made up,
    # declared nowhere, stayed in ``field_deps`` for good: bench/README.md, "soak, session 11")
    field_reads: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)  # module dir -> what raised (stage and traceback)

    def note_reads(self, dir: str, touched: Iterable[tuple[str, str]]) -> None:
        """Notes that the traces of ``dir`` read the declarations ``touched`` (what an edit re-traces)."""
        deps = self.field_deps
        reads = self.field_reads.get(dir)
        if reads is None:
            reads = self.field_reads[dir] = set()
        for read in touched:
            add_reader(deps, read, dir)
            reads.add(read)

    def drop_fields(self, dir: str) -> None:
        self.fields.pop(dir, None)
        self.partial.pop(dir, None)
        self.interrupted.pop(dir, None)
        deps = self.field_deps
        for read in self.field_reads.pop(dir, ()):
            remove_reader(deps, read, dir)  # (a row popped by the change under way is gone already)

    def clear(self) -> None:
        self.fields.clear()
        self.partial.clear()
        self.interrupted.clear()
        self.field_deps.clear()
        self.field_reads.clear()
        self.findings.clear()
        self.failures.clear()


@record(frozen=True, slots=True)
class Changes:
    """What changed between two snapshots, for whoever republishes diagnostics."""

    dirs: frozenset[str]  # module dirs whose diagnostics may differ (re-traced, rebuilt, findings redone)
    # The files where text moved (lines or columns, ``HclFile.moved``): any other module's kept
    # diagnostics that point into one of them may now print other positions. Which ones is the
    # publisher's to say (it knows the files each module's diagnostics point into); the host
    # does not look for them among the dependants of every declaration that moved (a new line
    # in the root moves ~200 declarations read by all 1,000 modules).
    moved_files: frozenset[str]


def fields_by_type(config: Config) -> dict[str, list[tuple[tuple[str, ...], FieldSpec]]]:
    """The registered fields of ``config`` grouped by resource type: each field's path of names
    and its spec (the severity override applied)."""
    by_type: dict[str, list[tuple[tuple[str, ...], FieldSpec]]] = {}
    for key, spec in sorted(config.fields.items()):
        resource_type, _, field_name = key.partition(".")
        if config.severity_override is not None:
            spec = config.field_spec(resource_type, field_name) or spec
        by_type.setdefault(resource_type, []).append((tuple(field_name.split(".")), spec))
    return by_type


class AnalysisHost:
    """The workspace's inputs and the incremental state carried from one snapshot to the next.

    Not thread-safe: one owner applies changes and takes snapshots. A snapshot takes the tables it
    holds (``tables.Table``) frozen: in O(√n), sharing every entry the host did not change since.
    """

    def __init__(self, config: Config | None = None, retention: Retention = EDITOR):
        # ``retention``: what the host keeps of what it derives (``retention.Retention``): an
        # editor's host keeps what the next edit reads; a batch host (``tfphi check``'s, set by
        # the command line: nothing is edited) keeps none of it and lets each module's traces go
        # once its diagnostics are taken. The same answers either way (docs/memory.md).
        self.retention = retention
        self.base_config = config or Config()
        self.config = self.base_config
        self.config_problems: list[ConfigProblem] = []
        self.config_text: str | None = None
        self.files: Table[str, HclFile] = Table()
        self.tfvars: Table[str, HclFile] = Table()
        self.terragrunt: Table[str, HclFile] = Table()  # terragrunt.hcl files and the parents they include
        self._units: tuple[Unit, ...] = ()
        self.problems: Table[str, FileProblem] = Table()
        self.manifest_problems: Table[str, str] = Table()
        self._manifests: dict[str, Manifest] = {}
        self._parser: Parser = new_parser()
        self._dir_files: dict[str, set[str]] = {}
        self._listing: Table[str, tuple[str, ...]] = Table()  # module dir -> its files, sorted (as of the last snapshot)
        self._revision = Revision()
        self.interrupt = Interrupt()
        # The latest snapshot, held weakly: it points at its host, and a host pointing back would
        # make a cycle that only a full garbage collection frees, which the server never runs on the
        # heap it keeps (lsp/collector.py). What it derived is the host's, handed on to the next.
        self._latest: weakref.ref[Snapshot] | None = None
        self._derived = _Derived()
        self._derived_revision: int | None = None  # the revision ``_derived`` was advanced to
        self._log: list[tuple[int, Changes]] = []
        self._log_floor = 0  # revisions at or below this are no longer in the log
        # derived state that outlives snapshots
        self._modules: Table[str, Module] = Table()
        self._declared: dict[str, dict[str, object]] = {}  # module dir -> declaration address -> the declaration
        # module dir -> what its last build read of each file; with ``_declared``, kept once a module is
        # built again (an edit), derived from its module the first time (``stir.model.kept_declarations``)
        self._decls: dict[str, dict[str, FileDecls]] = {}
        self._moved_paths: set[str] = set()  # files whose blocks moved since the last snapshot
        self._tree: ModuleTree | None = None
        self._dirty: set[str] = set()
        self._built_ahead: set[str] = set()  # new modules ``build_steps`` built under the current settings
        self._everything = True  # the next snapshot re-derives everything (config, manifests)
        self._build_failures: dict[str, str] = {}
        # content-addressed caches (safe to share between snapshots)
        self._block_refs: BlockCache = {}
        self.clean_sources = CleanSources()  # (public: the editor's documents parse against it too)
        # (config, its registered fields grouped by resource type, those types): computed once per configuration
        self._registered: tuple[Config | None, dict[str, list[tuple[tuple[str, ...], FieldSpec]]], frozenset[str]] = (None, {}, frozenset())
        # The tracers' declaration-level results, kept across snapshots while nothing they read changed or moved.
        self._trace_memo = retention.memo_store()
        self._reread_views = retention.reread_views(self.files.get)  # views of files not open read again, bounded
        # path -> what the last answer for the file found (``stir.file_findings.FileFindings``)
        self._findings_of_files: dict[str, FileFindings] = {}
        self._finding_diagnostics: dict[str, FindingDiagnostics] = {}  # module dir -> its findings' diagnostics (an editor's host)
        self._interfaces = ModuleInterfaces(keep=retention.keeps_edit_state)  # what callers check against each module (entries go with their module)
        self._line_indexes = retention.line_indexes()  # path -> (the host's bytes of it, their line index), the latest asked
        # Work done, counted for tests that hold an edit to what it touches (not timed):
        # modules built, and (resource, field) units traced, since the host was made.
        self.modules_built = 0
        self.units_traced = 0

    @property
    def revision(self) -> int:
        return self._revision.value

    def line_index(self, path: str, source: bytes) -> LineIndex:
        """The line index of ``source``, a snapshot's bytes of ``path``: kept while they are the host's bytes of it."""
        known = self._line_indexes.get(path)
        if known is not None and known[0] is source:
            return known[1]
        index = LineIndex(source)
        held = self.files.get(path) or self.tfvars.get(path) or self.terragrunt.get(path)
        if held is not None and held.source is source:  # (an older snapshot's bytes are not kept)
            self._line_indexes[path] = (source, index)
        return index

    def release(self) -> None:
        """Frees derived state that the last snapshots dropped (for background work to call between two steps)."""
        self._trace_memo.release()

    # ---- input -------------------------------------------------------------------------

    def apply_change(self, change: Change | Iterable[Change]) -> None:
        """Applies one change or several; the snapshot taken before is cancelled."""
        changes = (change,) if isinstance(change, (SetSource, SetParsed, SetProblem, Remove, SetConfig)) else change
        for one in changes:
            self._revision.value += 1
            if isinstance(one, SetSource):
                self._set_source(one.path, one.data)
            elif isinstance(one, SetParsed):
                self._set_parsed(one.hcl)
            elif isinstance(one, SetProblem):
                self._set_problem(one.path, one.message, one.code)
            elif isinstance(one, Remove):
                self._remove(one.path)
            elif isinstance(one, SetConfig):
                self._set_config(one.text, one.problem, one.base)
            else:
                raise TypeError(f"not a change: {one!r}")

    # Shorthands for one change each.
    def set_source(self, path: str, data: bytes) -> None:
        self.apply_change(SetSource(path, data))

    def set_parsed(self, hcl: HclFile) -> None:
        self.apply_change(SetParsed(hcl))

    def set_problem(self, path: str, message: str, code: str = "syntax-error") -> None:
        self.apply_change(SetProblem(path, message, code))

    def remove(self, path: str) -> None:
        self.apply_change(Remove(path))

    def set_config(self, text: str | None, problem: str | None = None, base: Config | None = None) -> None:
        self.apply_change(SetConfig(text, problem, base))

    def _set_source(self, path: str, data: bytes) -> None:
        kind = file_kind(path)
        if kind is None:
            return
        problem = self._check_bytes(path, data)
        if kind == "config":
            self._set_config(data.decode("utf-8", "replace") if problem is None else None, problem, None)
            return
        if kind == "manifest":
            self._set_manifest(path, data.decode("utf-8", "replace") if problem is None else "")
            return
        if problem is not None:
            self._set_problem(path, problem, "config-error" if kind == "terragrunt" else "syntax-error")
            return
        self.problems.pop(path, None)
        if is_json_path(path):  # Terraform's JSON syntax (SPEC 2)
            from .syntax.jsonfile import parse_json_file  # only for such files (start-up)

            self._set_parsed(parse_json_file(path, data, self._parser))
        else:  # files set from disk are not edited here: their trees are dropped once read
            self._set_parsed(parse_file(path, data, self._parser, keep_tree=False, refs_cache=self._block_refs,
                                          clean=self.clean_sources, traced=self._traced_types()))

    def _traced_types(self) -> frozenset[str]:
        """The resource types with a registered field: a file read from disk reads their bodies
        at once, as a trace will (``parse_file``'s ``traced``; a cost, never a result: a body
        read later from a parse of its block is the same)."""
        return self._configured_fields()[2]

    def registered_fields(self) -> dict[str, list[tuple[tuple[str, ...], FieldSpec]]]:
        """The current configuration's registered fields grouped by resource type (``fields_by_type``; read-only):
        every snapshot of one configuration reads the same, computed once, not once per keystroke."""
        return self._configured_fields()[1]

    def _configured_fields(self):
        if self._registered[0] is not self.config:
            by_type = fields_by_type(self.config)
            self._registered = (self.config, by_type, frozenset(by_type))
        return self._registered

    def _set_problem(self, path: str, message: str, code: str = "syntax-error") -> None:
        self._drop(path)
        self.problems[path] = FileProblem(path, message, code)
        self._dirty.add(module_dir_of(path))

    def _set_parsed(self, hcl: HclFile) -> None:
        path = hcl.path
        self.problems.pop(path, None)
        self._line_indexes.pop(path, None)
        kind = file_kind(path)
        if kind == "tfvars":
            self.tfvars[path] = hcl
            return
        if kind == "terragrunt":
            self.terragrunt[path] = hcl
            self._tree = None  # units are roots: the module tree is derived again
            return
        old = self.files.get(path)
        if old is not None:
            take_over_blocks(hcl, old)  # (a parse that took the blocks of ``old`` over already did)
        if hcl.moved:
            self._moved_paths.add(path)
        self.files[path] = hcl
        dir = module_dir_of(path)
        self._dir_files.setdefault(dir, set()).add(path)
        self._dirty.add(dir)

    def _remove(self, path: str) -> None:
        kind = file_kind(path)
        if kind == "config":
            self._set_config(None, None, None)
        elif kind == "manifest":
            self._manifests.pop(path, None)
            self.manifest_problems.pop(path, None)
            self._everything = True
        else:
            self._drop(path)
            if self.problems.pop(path, None) is not None:
                self._dirty.add(module_dir_of(path))

    def _set_config(self, text: str | None, problem: str | None, base: Config | None) -> None:
        if base is not None:
            self.base_config = base
        self.config_text = text
        self._built_ahead.clear()  # built under the old settings (their files may differ: ``engine``)
        if problem is not None:
            self.config, self.config_problems = self.base_config, [ConfigProblem(problem)]
        elif text is None:
            self.config, self.config_problems = self.base_config, []
        else:
            from .config_schema import parse_config_toml  # cattrs, only for a workspace with a .tfphi.toml (start-up)

            self.config, self.config_problems = parse_config_toml(text, self.base_config)
        self._everything = True

    def _check_bytes(self, path: str, data: bytes) -> str | None:
        if len(data) > self.config.max_file_size:
            return f"{path} is {len(data):,} bytes, larger than the {self.config.max_file_size:,}-byte limit; it was skipped"
        if b"\x00" in data:
            return f"{path} contains NUL bytes (a binary file?); it was skipped"
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"{path} is not valid UTF-8 (byte {exc.start}); it was skipped"
        return None

    def _set_manifest(self, path: str, text: str) -> None:
        root_dir = path[: -len(MODULES_JSON)].rstrip("/")
        manifest, problem = parse_manifest(root_dir, text)
        if manifest is None:
            self._manifests.pop(path, None)
            self.manifest_problems[path] = problem or "unreadable"
        else:
            self._manifests[path] = manifest
            self.manifest_problems.pop(path, None)
        self._everything = True

    def _drop(self, path: str) -> None:
        self._findings_of_files.pop(path, None)
        self._line_indexes.pop(path, None)
        if self.files.pop(path, None) is not None:
            dir = module_dir_of(path)
            self._dir_files.get(dir, set()).discard(path)
            self._dirty.add(dir)
        self.tfvars.pop(path, None)
        if self.terragrunt.pop(path, None) is not None:
            self._tree = None

    # ---- snapshots -----------------------------------------------------------------------

    def snapshot(self) -> "Snapshot":
        """The immutable analysis of the current revision (the same object until the next change)."""
        latest = self._latest() if self._latest is not None else None
        if latest is not None and latest.revision == self.revision:
            return latest
        if self._derived_revision != self.revision:  # (else: the same revision, its snapshot let go)
            changes = self._advance(self._derived)
            self._derived_revision = self.revision
            self._log.append((self.revision, changes))
            if len(self._log) > CHANGE_LOG_LIMIT:
                self._log_floor = self._log.pop(0)[0]
            # The files read so far share their blocks' references; the next ones need not (the
            # cache holds a copy of every block's text: 3.4 MiB at 1,000 modules, docs/memory.md).
            self._block_refs = {}
        snap = Snapshot(self, self._derived)
        self._latest = weakref.ref(snap)
        return snap

    def build_steps(self) -> Iterator[None]:
        """Builds the new modules the next snapshot would build, one a step (a folder's first index:
        a thousand modules, 0.1 s in one step otherwise), so that it assembles only the module tree.
        Built as that snapshot would build them, and, as there, the tree is derived again."""
        for dir in sorted(self._dirty - self._modules.keys()):
            listed = self._dir_files.get(dir)
            paths = configuration_files(listed, self.config.engine) if listed else None
            if dir in self._dirty and dir not in self._modules and paths and (built := self._build(dir, paths, {})):
                self._modules[dir], self._listing[dir], self._tree = built[0], tuple(paths), None
                self._dirty.discard(dir)
                self._built_ahead.add(dir)
            yield  # (a module that fails is built again, and recorded, by the snapshot)

    def changed_since(self, revision: int) -> Changes | None:
        """What changed in the snapshots after ``revision``; None when it is too old to tell (assume everything).

        The host then forgets the changes at or before ``revision``: its reader (the server's
        scheduler) has seen them, and the log holds no more than what it has not seen yet (each
        entry names up to every module: a root edit's, 1,000 of them, over hundreds of edits).
        """
        if revision < self._log_floor:
            return None
        if self._log and self._log[0][0] <= revision:
            self._log = [entry for entry in self._log if entry[0] > revision]
            self._log_floor = revision
        dirs: set[str] = set()
        files: set[str] = set()
        for rev, changes in reversed(self._log):
            if rev <= revision:
                break
            dirs |= changes.dirs
            files |= changes.moved_files
        return Changes(frozenset(dirs), frozenset(files))

    def _advance(self, derived: _Derived) -> Changes:
        """Brings the derived state to the current revision; returns what may have changed.

        Only what an edit touches is redone: the edited modules are rebuilt, the declarations
        that are new objects (their block's text changed) are found, and only the fields whose
        traces read one of them are traced again. A declaration whose block the parse took over
        is the same object wherever it now is, and so is every trace that read it: nothing is
        moved or copied. The module tree is rebuilt only when module calls change.
        """
        dirty, self._dirty = self._dirty, set()
        moved_paths, self._moved_paths = self._moved_paths, set()
        if self._everything:
            dirty |= set(self._dir_files) - self._built_ahead
            self._tree = None
            derived.clear()
            self._everything = False
        self._built_ahead.clear()
        calls_changed = self._tree is None
        changed_decls: set[tuple[str, str]] = set()
        moved_files: set[str] = set()
        interface_changed: set[str] = set()
        call_dirs: set[str] = set()  # modules whose calls (names, sources) changed
        old_modules: dict[str, Module] = {}  # the dirty modules as the current tree read them
        keeps = self.retention.keeps_edit_state
        for dir in dirty:
            old = self._modules.get(dir)
            if old is not None:
                old_modules[dir] = old
            listed = self._dir_files.get(dir)
            paths = configuration_files(listed, self.config.engine) if listed else None  # OpenTofu's same-name rule
            kept = dir in self._decls
            old_declared = self._declared.pop(dir, {})
            old_decls = self._decls.pop(dir, {})
            if old is not None and not kept:  # not kept (``retention``): derived from the last build's module
                old_declared = declarations_by_address(old)
                old_decls = kept_declarations(old, {path: self.files[path].body for path in old.files if path in self.files})
            previous = (old, old_declared, old_decls) if old is not None and kept and dir not in self._build_failures else None
            built = self._build(dir, paths, old_decls, previous) if paths else None
            module, new_declared, new_decls = built if built is not None else (None, {}, {})
            if module is not None:
                self._modules[dir] = module
                if keeps and old is not None:  # what the next build takes over and compares, once a module is built again
                    self._declared[dir] = new_declared
                    self._decls[dir] = new_decls
            else:
                self._modules.pop(dir, None)
                self._finding_diagnostics.pop(dir, None)
                if not listed:
                    self._dir_files.pop(dir, None)
                    self._build_failures.pop(dir, None)
            if old is None or module is None:
                calls_changed = True
                continue
            # Only declarations of the files that changed can have changed: a declaration is the
            # same while it is the same object (its block taken over by the parse).
            changed_here: list[str] = []
            old_get, new_get = old_declared.get, new_declared.get
            for address in declared_addresses(old_decls, new_decls) if kept else old_declared.keys() | new_declared.keys():
                if old_get(address) is not new_get(address):
                    changed_here.append(address)
            changed_decls.update((dir, address) for address in changed_here)
            moved_files |= new_decls.keys() & moved_paths
            # The calls (names and sources) are the same unless a call's text changed, or a call
            # was added or removed: its address is among the changed ones.
            if calls_differ(old, module, changed_here):
                call_dirs.add(dir)
            if interface_differs(old, module, changed_here):
                interface_changed.add(dir)
        if interface_changed or calls_changed:
            self._interfaces.interfaces_changed()
        affected = set(dirty)
        if call_dirs and not calls_changed:
            # Calls renamed, added, removed or pointed elsewhere in modules that are all still
            # there: only the calls of those modules are resolved again, and only the modules
            # below them (whose call paths may differ now) lose their traces and findings.
            old_tree = self._tree
            calls = {(dir, name) for dir in call_dirs for name in changed_calls(old_modules[dir], self._modules[dir])}
            old_deployed = set(deployed_dirs(self._units))
            self._units = read_units(self.terragrunt, self._modules, place_of(self.config))
            deployed = deployed_dirs(self._units)
            self._tree = build_module_tree(self._modules, dict(self._manifests), deployed,
                                           (old_tree, calls) if set(deployed) == old_deployed else None)
            reached = {t.dir for tree in (old_tree, self._tree) for call in calls
                       if (t := tree.targets.get(call)) is not None and t.dir is not None}
            roots_changed = set(old_tree.roots) ^ set(self._tree.roots)
            reached |= roots_changed
            self._trace_memo.forget_instances(calls, roots_changed)  # (the instances whose path went)
            below = reached | modules_below(reached, old_tree, self._modules, old_modules) | modules_below(reached, self._tree, self._modules)
            for dir in below:
                derived.drop_fields(dir)
                derived.findings.pop(dir, None)
            affected |= below
        if calls_changed:
            self._trace_memo.clear()
            self._units = read_units(self.terragrunt, self._modules, place_of(self.config))
            self._tree = build_module_tree(self._modules, dict(self._manifests), deployed_dirs(self._units))
            affected |= set(self._modules) | set(derived.fields) | set(derived.findings)
            derived.clear()
        else:
            assert self._tree is not None
            self._trace_memo.forget(changed_decls)
            for decl in changed_decls:
                affected.update(readers_of(derived.field_deps.pop(decl, None)))
            for dir in interface_changed:
                affected |= {caller for caller, _ in self._tree.callers.get(dir, ())}
            for dir in affected:
                derived.drop_fields(dir)
            findings_stale = dirty | interface_changed
            for dir in dirty:  # a caller's findings may point into the edited module
                findings_stale |= {caller for caller, _ in self._tree.callers.get(dir, ())}
            for dir in findings_stale:
                derived.findings.pop(dir, None)
            affected |= findings_stale
        for key in [k for k in derived.failures if k.startswith("build:") or k.split(":", 1)[1] in affected]:
            del derived.failures[key]  # what is redone may fail again, or not
        derived.failures.update({f"build:{d}": tb for d, tb in self._build_failures.items()})
        for dir in dirty:
            paths = tuple(configuration_files(self._dir_files.get(dir) or (), self.config.engine))
            if not paths:
                self._listing.pop(dir, None)
            elif self._listing.get(dir) != paths:  # (a write copies one of the table's dicts: ``tables.Table``)
                self._listing[dir] = paths
        return Changes(frozenset(affected), frozenset(moved_files))

    def _build(self, dir: str, paths: set[str], previous: Mapping[str, FileDecls],
               last: tuple[Module, dict[str, object], Mapping[str, FileDecls]] | None = None,
               ) -> tuple[Module, dict[str, object], dict[str, FileDecls]] | None:
        """Builds one module, taking over what the last build read of the blocks its files' parses
        took over: the module, the declaration of each address, and each file's declarations; a
        module that raises is recorded and analysed as absent. ``last``: the last build (its
        tables are updated for the changed blocks, ``assemble_module``)."""
        try:
            if _fault_injection is not None:
                _fault_injection("build", dir)
            self.modules_built += 1
            files = self.files
            decls = {path: read_declarations(files[path].body, previous.get(path), files[path].splice) for path in paths}
            module, declared = assemble_module(dir, decls, last)
        except Exception:  # noqa: BLE001 - one module's failure must not stop the others
            self._build_failures[dir] = _format_exc()
            return None
        self._build_failures.pop(dir, None)
        return module, declared, decls

    def _file_findings(self, files: Mapping[str, HclFile], path: str, table: NameTable) -> list[Finding]:
        """A file's undefined references, from what the last answer for it found of the blocks
        this parse shares with it (``stir.file_findings``): an edit inside one block resolves
        that block's references only. What is kept is the current parse's blocks, nothing of a
        text the file no longer has."""
        answer = file_findings(files[path], table, self._findings_of_files.get(path))
        if self.retention.keeps_edit_state:  # (else no file is read again after an edit)
            self._findings_of_files[path] = answer
        return answer.findings


def _span_text(files: Mapping[str, HclFile], tfvars: Mapping[str, HclFile], span: Span) -> str:
    hcl = files.get(span.file) or tfvars.get(span.file)
    return "" if hcl is None else hcl.source[span.start : span.end].decode("utf-8", "replace")


class Snapshot:
    """The analysis of one revision: what requests and the CLI read.

    Its inputs never change. Queries compute lazily and cache; once the host has taken a
    newer change they raise ``Cancelled``.
    """

    def __init__(self, host: AnalysisHost, derived: _Derived):
        self.revision = host.revision
        self._cancellation = Cancellation(host.revision, host._revision, host.interrupt)
        self._host = host
        self._derived = derived
        self.base_config = host.base_config
        self.config = host.config
        self.config_problems = list(host.config_problems)
        self.config_text = host.config_text
        self.files: FrozenTable[str, HclFile] = host.files.frozen()
        self.tfvars: FrozenTable[str, HclFile] = host.tfvars.frozen()
        self.terragrunt: FrozenTable[str, HclFile] = host.terragrunt.frozen()
        self.units: tuple[Unit, ...] = host._units  # Terragrunt units (stir.terragrunt)
        self.problems: FrozenTable[str, FileProblem] = host.problems.frozen()
        self.manifest_problems: FrozenTable[str, str] = host.manifest_problems.frozen()
        self.modules: FrozenTable[str, Module] = host._modules.frozen()
        assert host._tree is not None
        self.tree: ModuleTree = host._tree
        self._interface_generation = host._interfaces.generation  # (the call checks it may reuse: ``stir.references.CallChecks``)
        self._dir_files: FrozenTable[str, tuple[str, ...]] = host._listing.frozen()
        # The tracer reads text through the snapshot's tables and checks cancellation through ``Cancellation``, not the
        # snapshot: a replaced snapshot is freed by reference counting once nothing reads it (tests/lsp/test_scheduler.py).
        self.tracer = Tracer(SourceView(self.modules, self.tree, functools.partial(_span_text, self.files, self.tfvars)),
                             self.config.limits, store=host._trace_memo, check=self._cancellation.check)
        self._registered = host.registered_fields()
        self._roots_reaching: dict[str, tuple[str, ...]] = {}  # module dir -> the roots whose configuration holds it

    # ---- state -----------------------------------------------------------------------------

    @property
    def cancelled(self) -> bool:
        """Whether the host has moved past this snapshot (its work is stale for good)."""
        return self._cancellation.host_revision.value != self.revision

    def check_cancelled(self) -> None:
        """Raises ``Cancelled`` when the host has moved on, or when a client message waits while
        background work runs (``Interrupt``); long work calls it between steps, the tracer at
        every reference."""
        self._cancellation.check()

    @property
    def failures(self) -> dict[str, str]:
        """Modules whose analysis raised: ``stage:dir`` -> traceback (the module is analysed as empty)."""
        return dict(self._derived.failures)

    # ---- files -----------------------------------------------------------------------------

    def files_in(self, dir: str) -> list[str]:
        """The ``.tf`` files of one module directory, sorted."""
        return list(self._dir_files.get(dir, ()))

    def problems_in(self, dir: str) -> list[FileProblem]:
        return [p for path, p in sorted(self.problems.items()) if module_dir_of(path) == dir]

    def text(self, span: Span) -> str:
        if span.file in self.terragrunt:
            return _span_text(self.terragrunt, {}, span)
        return _span_text(self.files, self.tfvars, span)

    def dirs(self) -> list[str]:
        return sorted(set(self.modules) | set(self._dir_files) | {module_dir_of(p) for p in self.problems})

    def line_index(self, path: str) -> LineIndex | None:
        """The line index of a file this snapshot holds (None for any other path); the host keeps it while the file is unchanged."""
        hcl = self.files.get(path) or self.tfvars.get(path) or self.terragrunt.get(path)
        return self._host.line_index(path, hcl.source) if hcl is not None else None

    def roots_reaching(self, dir: str) -> tuple[str, ...]:
        """The roots whose configuration contains the module in ``dir``, sorted (remembered: a check asks once per diagnostic)."""
        found = self._roots_reaching.get(dir)
        if found is None:
            found = self._roots_reaching[dir] = roots_reaching(self.tree, dir)
        return found

    # ---- queries -----------------------------------------------------------------------

    def findings(self, dir: str) -> list[Finding]:
        """Undefined references and missing arguments of one module (cached)."""
        self.check_cancelled()
        derived = self._derived
        cached = derived.findings.get(dir)
        if cached is None:
            module = self.modules.get(dir)
            cached = []
            if module is not None:
                try:
                    if _fault_injection is not None:
                        _fault_injection("findings", dir)
                    interfaces = self._host._interfaces
                    generation = self._interface_generation
                    table = name_table(module, self.modules, self.tree, interfaces, generation)
                    cached = check_module(module, self.modules, self.tree, lambda path: self._host._file_findings(self.files, path, table),
                                          interfaces, table, generation)
                except Exception:  # noqa: BLE001 - isolate the module
                    derived.failures[f"findings:{dir}"] = _format_exc()
                    cached = []
            derived.findings[dir] = cached
        return cached

    def finding_diagnostics(self, dir: str, findings: Iterable[Finding]) -> list[Diagnostic]:
        """The diagnostics of ``findings`` (some of the module's in ``dir``, in order): on an
        editor's host each made once per finding and kept by the host for the next edit
        (``stir.finding_diagnostics``), the same objects while their findings are."""
        host = self._host
        if not host.retention.keeps_edit_state:
            return [finding_diagnostic(finding) for finding in findings]
        kept = host._finding_diagnostics.get(dir)
        if kept is None:
            kept = host._finding_diagnostics[dir] = FindingDiagnostics()
        out = kept.diagnostics(findings)
        if kept.empty:
            host._finding_diagnostics.pop(dir, None)
        return out

    def release(self, dir: str) -> None:
        """Lets go what was derived for the module in ``dir``, as the host's ``Retention`` says,
        once its diagnostics are taken: what its files' views read without their tree derived on
        demand (bodies, expressions, references; ``syntax.hclfile.forget_derived``), and on a
        batch host its field traces and the memoized values of its instances. A later query
        derives them again, the same. The server releases a module once it has published its
        diagnostics; a batch check once no module still to be analysed is likely to read it
        (``check_scope.batch_schedule``)."""
        host = self._host
        files = self.files
        host.retention.release(dir, self._derived.drop_fields, host._trace_memo,
                               [files[path] for path in self._dir_files.get(dir, ()) if path in files], host._reread_views)

    @property
    def retention(self) -> Retention:
        """What the host keeps (``retention.Retention``)."""
        return self._host.retention

    def field_traces(self, dir: str) -> list[FieldTrace]:
        """Every registered field of a module, traced once per call path (cached)."""
        self.check_cancelled()
        cached = self._cached_fields(dir)
        if cached is not None:
            return cached
        for _ in self._field_steps(dir):
            pass
        return self._derived.fields[dir]

    def field_steps(self, dir: str) -> Iterator[None]:
        """Traces a module's fields one (resource, field) at a time, yielding after each.

        For work that must give way (the server's background analysis): what is traced is kept,
        so a later call, or ``field_traces``, goes on from there as long as nothing it read
        changed. Raises ``Cancelled`` when resumed on a snapshot the host has moved past, and,
        while it runs, as soon as a client message waits (the host's ``Interrupt``: the trace
        under way stops at its next check, at every expression it traces). The unit a message interrupted is traced again
        by the next call: the references it finished are memoized, so it goes on from there; if it
        finished none, the next attempt goes over the same checks, and one further, before it gives
        way (``Interrupt.grace``): a client that writes faster than one field's trace cannot
        starve the analysis, and a message waits for one reference traced anew at most.
        """
        self.check_cancelled()
        if self._cached_fields(dir) is not None:
            return
        interrupt, interrupted, tracer = self._host.interrupt, self._derived.interrupted, self.tracer
        interrupt.arm(interrupted.pop(dir, 0))
        finished = tracer.memoized
        try:
            for _ in self._field_steps(dir):
                interrupt.armed = False  # (requests run while the caller gives way)
                yield
                if self.cancelled:  # resumed on a snapshot the host has moved past
                    raise Cancelled(f"revision {self.revision} was superseded")
                interrupt.arm()  # (its checks are the references traced: an attempt resumed counts them as the last did)
                finished = tracer.memoized
        except Cancelled:
            if not self.cancelled and tracer.memoized == finished:
                interrupted[dir] = interrupt.checks
            raise
        finally:
            interrupt.armed = False

    def _cached_fields(self, dir: str) -> list[FieldTrace] | None:
        """The complete traces of a module (their spans relative to their blocks: right for the
        current text); None when they must be traced."""
        return self._derived.fields.get(dir)

    def _field_steps(self, dir: str) -> Iterator[None]:
        derived = self._derived
        units: list[tuple[Resource, tuple[str, ...], FieldSpec]] = []
        done = derived.partial.setdefault(dir, {})
        try:
            if _fault_injection is not None:
                _fault_injection("fields", dir)
            module = self.modules.get(dir)
            units = self._units(module) if module is not None else []
            paths = self.tree.call_paths(dir) or [(("", dir),)]
            for i, unit in enumerate(units):
                if i in done:
                    continue
                done[i] = self._trace_unit(dir, unit, paths)
                if i + 1 < len(units):
                    yield
        except Cancelled:  # the unit under way is traced again when resumed
            raise
        except Exception:  # noqa: BLE001 - isolate the module
            derived.failures[f"fields:{dir}"] = _format_exc()
            derived.partial.pop(dir, None)
            derived.fields[dir] = []
            return
        derived.partial.pop(dir, None)
        derived.fields[dir] = [trace for i in range(len(units)) for trace in done[i]]

    def _units(self, module: Module) -> list[tuple[Resource, tuple[str, ...], FieldSpec]]:
        """The (resource, registered field) pairs a module traces, in a stable order."""
        registered = self.registered_fields()
        units = []
        for resource in module.resources.values():
            for field_path, spec in registered.get(resource.type, ()):
                if spec.severity == "off" and not self.config.inlay_hints:
                    continue
                units.append((resource, field_path, spec))
        return units

    def _trace_unit(self, dir: str, unit: tuple[Resource, tuple[str, ...], FieldSpec], paths) -> list[FieldTrace]:
        """One field of one resource, in each call path of its module."""
        resource, field_path, spec = unit
        self._host.units_traced += 1
        keeps_deps = self._host.retention.keeps_edit_state  # (what an edit re-traces)
        traces: list[FieldTrace] = []
        for path in paths:
            result, touched = self.tracer.trace_field(path, resource, field_path, spec.universe)
            if result.expr_span is None:
                break  # the field is not set on this resource
            traces.append(FieldTrace(resource, field_path, spec, result))
            if keeps_deps:
                self._derived.note_reads(dir, touched)
        return traces

    def registered_fields(self) -> dict[str, list[tuple[tuple[str, ...], FieldSpec]]]:
        """Registered fields grouped by resource type (the host's, for this snapshot's configuration)."""
        return self._registered

    def trace_address(self, address: FieldAddress | str, universe: Sequence | None = None) -> TraceResult | None:
        """Traces a configuration address (SPEC section 1) from the first root where it exists; text
        (a caller's argument) is parsed once here, and None when it is not a field address."""
        self.check_cancelled()
        if isinstance(address, str):
            try:
                address = parse_field_address(address)
            except AddressError:
                return None
        label = str(address)
        for root in self.tree.roots:
            path: CallPath = (("", root),)
            for step in address.module.steps:
                target = self.tree.targets.get((path[-1][1], step.name))
                if target is None or target.dir is None:
                    break
                path = path + ((step.name, target.dir),)
            else:
                module = self.modules.get(path[-1][1])
                table = module.data if address.mode == "data" else module.resources if module else {}
                resource = table.get(address.resource_key) if module else None
                if resource is None:
                    continue
                spec = self.config.field_spec(address.type, ".".join(address.field))
                chosen = tuple(universe) if universe else (spec.universe if spec else ())
                result, _ = self.tracer.trace_field(path, resource, address.field, chosen, label=label)
                if result.expr_span is None:
                    return None
                return records.replace(result, address=label)
        return None

    def trace_expression(self, attribute, dir: str, body_chain: Iterable = ()) -> list[TraceResult]:
        """Traces an arbitrary attribute of module ``dir`` in each of its call paths (for hovers)."""
        self.check_cancelled()
        results = []
        for path in self.tree.call_paths(dir) or [(("", dir),)]:
            env = Env(path)
            for body in body_chain:
                env = env.with_iterators(block_iterators(body, env))
            result, _ = self.tracer.trace_attribute(self.text(attribute.span).split("=")[0].strip(), attribute, env)
            results.append(result)
        return results


# The read API features take: a snapshot (rust-analyzer calls its snapshot type ``Analysis`` too).
Analysis = Snapshot


def analyse(changes: Iterable[Change], config: Config | None = None) -> Snapshot:
    """A snapshot of a workspace given whole (tests, and fresh analyses to compare with)."""
    host = AnalysisHost(config)
    host.apply_change(list(changes))
    return host.snapshot()


def _format_exc() -> str:
    """The exception being handled, with its traceback (``traceback`` and the ``linecache``,
    ``tokenize`` and ``textwrap`` it loads are imported on a failure only: start-up)."""
    import traceback

    return traceback.format_exc()
