"""The analysis host: one mutable workspace, fed file by file, answering from cached snapshots.

All input arrives through ``set_source``/``set_parsed``/``remove``/``set_config``; nothing
here touches the disk or knows about LSP. A change marks its module directory dirty; the
next query rebuilds only that module, and re-traces only the fields whose traces read it.
"""

from __future__ import annotations

import dataclasses
import posixpath
from dataclasses import dataclass
from typing import Iterable, Sequence

from tree_sitter import Parser

from .config import Config, ConfigProblem, FieldSpec, parse_config_toml
from .stir.model import Module, Resource, build_module
from .stir.references import Finding, NameTable, block_findings, check_module, name_table
from .stir.workspace import MODULES_JSON, CallPath, Manifest, ModuleTree, build_module_tree, module_dir_of, parse_manifest
from .syntax.expr import Span
from .syntax.hclfile import HclFile, new_parser, parse_file
from .syntax.jsonfile import is_json_path, parse_json_file
from .syntax.references import MAX_CACHED_BLOCKS, BlockCache, block_references, reference_is_bound, top_level_nodes
from .trace.result import TraceResult
from .trace.tracer import Env, SourceView, Tracer, block_iterators

CONFIG_FILE = ".tfphi.toml"


@dataclass(frozen=True, slots=True)
class FileProblem:
    """A file that could not be analysed (not UTF-8, too large, unreadable)."""

    path: str
    message: str


@dataclass(frozen=True, slots=True)
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
    """What a workspace path is to tfphi: ``tf``, ``tfvars``, ``manifest``, ``config`` or None."""
    name = posixpath.basename(path)
    if path.endswith((".tf", ".tf.json")):
        return "tf"
    if path.endswith((".tfvars", ".tfvars.json")):
        return "tfvars"
    if path.endswith(MODULES_JSON) and (path == MODULES_JSON or path.endswith("/" + MODULES_JSON)):
        return "manifest"
    if name == CONFIG_FILE and "/" not in path:
        return "config"
    return None


class Analysis:
    """The workspace host. Not thread-safe: one owner applies changes and asks questions."""

    def __init__(self, config: Config | None = None):
        self.base_config = config or Config()
        self.config = self.base_config
        self.config_problems: list[ConfigProblem] = []
        self.config_text: str | None = None
        self.files: dict[str, HclFile] = {}
        self.tfvars: dict[str, HclFile] = {}
        self.problems: dict[str, FileProblem] = {}
        self._manifests: dict[str, Manifest] = {}
        self.manifest_problems: dict[str, str] = {}
        self._parser: Parser = new_parser()
        self._dir_files: dict[str, set[str]] = {}
        self._modules: dict[str, Module] = {}
        self._dirty: set[str] = set()
        self._tree: ModuleTree | None = None
        self._tracer: Tracer | None = None
        self._fields: dict[str, list[FieldTrace]] = {}  # module dir -> traced fields
        self._field_deps: dict[tuple[str, str], set[str]] = {}  # declaration read by a trace -> dirs whose fields read it
        self._findings: dict[str, list[Finding]] = {}
        self._block_refs: BlockCache = {}  # references per top-level block text (see syntax.references)
        self._block_findings: dict[tuple[bytes, int], list] = {}  # (block text, name table) -> findings
        self._table_ids: dict[tuple, int] = {}
        self._registered: tuple[Config, dict] | None = None
        self._prints: dict[str, dict[str, bytes]] = {}  # module dir -> declaration texts
        self._changed_dirs: set[str] = set()

    # ---- input -------------------------------------------------------------------------

    def set_source(self, path: str, data: bytes) -> None:
        """Adds or replaces a file from its bytes (files tfphi does not read are ignored)."""
        kind = file_kind(path)
        if kind is None:
            return
        problem = self._check_bytes(path, data)
        if kind == "config":
            self.set_config(data.decode("utf-8", "replace") if problem is None else None, problem)
            return
        if kind == "manifest":
            self._set_manifest(path, data.decode("utf-8", "replace") if problem is None else "")
            return
        if problem is not None:
            self.set_problem(path, problem)
            return
        self.problems.pop(path, None)
        parse = parse_json_file if is_json_path(path) else parse_file  # Terraform's JSON syntax (SPEC 2)
        self.set_parsed(parse(path, data, self._parser))

    def set_problem(self, path: str, message: str) -> None:
        """Records that a file could not be analysed; it drops out of the workspace."""
        self._drop(path)
        self.problems[path] = FileProblem(path, message)
        self._touch(module_dir_of(path))

    def set_parsed(self, hcl: HclFile) -> None:
        """Adds or replaces an already parsed file (the editor reparses incrementally itself)."""
        path = hcl.path
        self.problems.pop(path, None)
        if file_kind(path) == "tfvars":
            self.tfvars[path] = hcl
            return
        self.files[path] = hcl
        dir = module_dir_of(path)
        self._dir_files.setdefault(dir, set()).add(path)
        self._touch(dir)

    def remove(self, path: str) -> None:
        kind = file_kind(path)
        if kind == "config":
            self.set_config(None)
        elif kind == "manifest":
            self._manifests.pop(path, None)
            self.manifest_problems.pop(path, None)
            self._invalidate_all()
        else:
            self._drop(path)
            if self.problems.pop(path, None) is not None:
                self._touch(module_dir_of(path))

    def set_config(self, text: str | None, problem: str | None = None, base: Config | None = None) -> None:
        """Applies ``.tfphi.toml`` text on top of the base configuration (LSP settings or defaults)."""
        if base is not None:
            self.base_config = base
        self.config_text = text
        if problem is not None:
            self.config, self.config_problems = self.base_config, [ConfigProblem(problem)]
        elif text is None:
            self.config, self.config_problems = self.base_config, []
        else:
            self.config, self.config_problems = parse_config_toml(text, self.base_config)
        self._invalidate_all()

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
        self._invalidate_all()

    def _drop(self, path: str) -> None:
        if self.files.pop(path, None) is not None:
            dir = module_dir_of(path)
            self._dir_files.get(dir, set()).discard(path)
            self._touch(dir)
        self.tfvars.pop(path, None)

    def _touch(self, dir: str) -> None:
        self._dirty.add(dir)
        self._tracer = None

    def _invalidate_all(self) -> None:
        self._dirty.update(self._dir_files)
        self._tree = None
        self._tracer = None
        self._fields.clear()
        self._field_deps.clear()
        self._findings.clear()

    # ---- snapshot ----------------------------------------------------------------------

    def refresh(self) -> set[str]:
        """Brings the snapshot up to date; returns the module dirs whose diagnostics may have changed.

        Only what an edit touches is redone: the edited module is rebuilt, the declarations
        whose text changed are found, and only the fields whose traces read one of them are
        traced again. The module tree is rebuilt only when module calls change.
        """
        if not self._dirty and self._tree is not None:
            changed, self._changed_dirs = self._changed_dirs, set()
            return changed
        dirty, self._dirty = self._dirty, set()
        calls_changed = self._tree is None
        changed_decls: set[tuple[str, str]] = set()
        interface_changed: set[str] = set()
        for dir in dirty:
            old = self._modules.get(dir)
            paths = self._dir_files.get(dir)
            module = build_module(dir, {p: self.files[p].body for p in paths}) if paths else None
            old_prints = self._prints.pop(dir, {})
            if module is not None:
                self._modules[dir] = module
                self._prints[dir] = new_prints = self._fingerprints(module)
            else:
                self._modules.pop(dir, None)
                self._dir_files.pop(dir, None)
            if old is None or module is None or _call_signature(old) != _call_signature(module):
                calls_changed = True
                continue
            changed_decls |= {(dir, k) for k in old_prints.keys() | new_prints.keys() if old_prints.get(k) != new_prints.get(k)}
            if _interface(old) != _interface(module):
                interface_changed.add(dir)
        affected = set(dirty)
        if calls_changed:
            self._tree = build_module_tree(self._modules, dict(self._manifests))
            affected |= set(self._modules) | set(self._fields) | set(self._findings)
            self._fields.clear()
            self._field_deps.clear()
            self._findings.clear()
        else:
            for decl in changed_decls:
                affected |= self._field_deps.pop(decl, set())
            for dir in interface_changed:
                affected |= {caller for caller, _ in self._tree.callers.get(dir, ())}
            for dir in affected:
                self._fields.pop(dir, None)
            for dir in dirty | interface_changed:
                self._findings.pop(dir, None)
                for caller, _ in self._tree.callers.get(dir, ()):
                    if dir in interface_changed:
                        self._findings.pop(caller, None)
        self._tracer = Tracer(SourceView(self._modules, self._tree, self.text), self.config.limits)
        changed = affected | self._changed_dirs
        self._changed_dirs = set()
        return changed

    def _fingerprints(self, module: Module) -> dict[str, bytes]:
        """The source text of every declaration, by address: what changed is what differs.

        Taken when the module is built, while its spans still match the file bytes.
        """
        prints: dict[str, bytes] = {}
        for decl in module.declarations():
            span = decl.span
            hcl = self.files.get(span.file)
            prints[decl.address] = hcl.source[span.start : span.end] if hcl is not None else b""
        return prints

    @property
    def modules(self) -> dict[str, Module]:
        self._ensure()
        return self._modules

    @property
    def tree(self) -> ModuleTree:
        self._ensure()
        assert self._tree is not None
        return self._tree

    @property
    def tracer(self) -> Tracer:
        self._ensure()
        assert self._tracer is not None
        return self._tracer

    def _ensure(self) -> None:
        if self._dirty or self._tree is None or self._tracer is None:
            self._changed_dirs |= self.refresh()

    def files_in(self, dir: str) -> list[str]:
        """The ``.tf`` files of one module directory, sorted."""
        return sorted(self._dir_files.get(dir, ()))

    def problems_in(self, dir: str) -> list[FileProblem]:
        return [p for path, p in sorted(self.problems.items()) if module_dir_of(path) == dir]

    def text(self, span: Span) -> str:
        hcl = self.files.get(span.file) or self.tfvars.get(span.file)
        if hcl is None:
            return ""
        return hcl.source[span.start : span.end].decode("utf-8", "replace")

    # ---- queries -----------------------------------------------------------------------

    def findings(self, dir: str) -> list[Finding]:
        """Undefined references and missing arguments of one module (cached)."""
        self._ensure()
        cached = self._findings.get(dir)
        if cached is None:
            module = self._modules.get(dir)
            if module is None:
                cached = []
            else:
                table = name_table(module, self._modules, self._tree)
                cached = check_module(module, self._modules, self._tree, lambda path: self._file_findings(path, table))
            self._findings[dir] = cached
        return cached

    def _file_findings(self, path: str, table: NameTable) -> list[Finding]:
        """A file's undefined references, cached per top-level block text and name table.

        An edit inside one block of a large file resolves that block's references only.
        """
        hcl = self.files[path]
        source = hcl.source
        table_id = self._table_ids.setdefault(table.key, len(self._table_ids))
        if len(self._block_findings) > MAX_CACHED_BLOCKS:
            self._block_findings.clear()
            self._table_ids.clear()
            table_id = self._table_ids.setdefault(table.key, 0)
        findings: list[Finding] = []
        for top in top_level_nodes(hcl.tree.root_node):
            base = top.start_byte
            key = (source[base : top.end_byte], table_id)
            relative = self._block_findings.get(key)
            if relative is None:
                refs = block_references(top, source, self._block_refs)
                relative = self._block_findings[key] = block_findings(refs, table, lambda ref: reference_is_bound(top, ref))
            for start, end, message in relative:
                findings.append(Finding("undefined-reference", Span(path, base + start, base + end), message))
        return findings

    def field_traces(self, dir: str) -> list[FieldTrace]:
        """Every registered field of a module, traced once per call path (cached)."""
        self._ensure()
        cached = self._fields.get(dir)
        if cached is not None:
            return cached
        module = self._modules.get(dir)
        traces: list[FieldTrace] = []
        if module is not None:
            paths = self._tree.call_paths(dir) or [(("", dir),)]
            registered = self.registered_fields()
            for resource in module.resources.values():
                for field_path, spec in registered.get(resource.type, ()):
                    if spec.severity == "off" and not self.config.inlay_hints:
                        continue
                    for path in paths:
                        result, touched = self._tracer.trace_field(path, resource, field_path, spec.universe)
                        if result.expr_span is None:
                            break  # the field is not set on this resource
                        traces.append(FieldTrace(resource, field_path, spec, result))
                        for read in touched:
                            self._field_deps.setdefault(read, set()).add(dir)
        self._fields[dir] = traces
        return traces

    def registered_fields(self) -> dict[str, list[tuple[tuple[str, ...], FieldSpec]]]:
        """Registered fields grouped by resource type (cached per configuration)."""
        if self._registered is not None and self._registered[0] is self.config:
            return self._registered[1]
        by_type: dict[str, list[tuple[tuple[str, ...], FieldSpec]]] = {}
        for key, spec in sorted(self.config.fields.items()):
            resource_type, _, field = key.partition(".")
            if self.config.severity_override is not None:
                spec = self.config.field_spec(resource_type, field) or spec
            by_type.setdefault(resource_type, []).append((tuple(field.split(".")), spec))
        self._registered = (self.config, by_type)
        return by_type

    def trace_address(self, address: str, universe: Sequence | None = None) -> TraceResult | None:
        """Traces a configuration address (SPEC section 1) from the first root where it exists."""
        parts = address.split(".")
        calls: list[str] = []
        while len(parts) >= 2 and parts[0] == "module":
            calls.append(parts[1])
            parts = parts[2:]
        mode = "managed"
        if parts and parts[0] == "data":
            mode, parts = "data", parts[1:]
        if len(parts) < 3:
            return None
        resource_key, field_path = f"{parts[0]}.{parts[1]}", tuple(parts[2:])
        for root in self.tree.roots:
            path: CallPath = (("", root),)
            for call in calls:
                target = self.tree.targets.get((path[-1][1], call))
                if target is None or target.dir is None:
                    break
                path = path + ((call, target.dir),)
            else:
                module = self._modules.get(path[-1][1])
                table = module.data if mode == "data" else module.resources if module else {}
                resource = table.get(resource_key) if module else None
                if resource is None:
                    continue
                spec = self.config.field_spec(parts[0], ".".join(field_path))
                chosen = tuple(universe) if universe else (spec.universe if spec else ())
                result, _ = self.tracer.trace_field(path, resource, field_path, chosen, label=address)
                if result.expr_span is None:
                    return None
                return dataclasses.replace(result, address=address)
        return None

    def trace_expression(self, attribute, dir: str, body_chain: Iterable = ()) -> list[TraceResult]:
        """Traces an arbitrary attribute of module ``dir`` in each of its call paths (for hovers)."""
        results = []
        for path in self.tree.call_paths(dir) or [(("", dir),)]:
            env = Env(path)
            for body in body_chain:
                env = env.with_iterators(block_iterators(body, env))
            result, _ = self.tracer.trace_attribute(self.text(attribute.span).split("=")[0].strip(), attribute, env)
            results.append(result)
        return results

    def dirs(self) -> list[str]:
        self._ensure()
        return sorted(set(self._modules) | {module_dir_of(p) for p in self.problems})


def _call_signature(module: Module) -> tuple:
    return tuple(sorted((name, call.source) for name, call in module.calls.items()))


def _interface(module: Module) -> tuple:
    """What callers check against: output names, and variables with whether they have a default."""
    return (tuple(sorted(module.outputs)), tuple(sorted((n, v.default is None) for n, v in module.variables.items())))
