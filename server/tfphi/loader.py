"""Reading a workspace from disk into an ``Analysis`` (the only I/O the CLI and server share).

The walker follows symbolic links to files and directories wherever they lead (a link back up
its own path is not followed again; a link to nothing or a loop is reported, except a
``terraform.tfvars`` that links to nothing, which Terraform ignores), skips ``.git``,
``.terraform`` (except ``modules.json`` and the modules it lists), ``node_modules``,
``.terragrunt-cache`` and whatever the configuration ignores, and reads only ``.tf``,
``.tf.json``, ``.tofu``, ``.tofu.json``, ``.tfvars``, ``.tfvars.json``, ``.tfphi.toml``,
``terragrunt.hcl`` and ``modules.json`` files.

Then it follows local module sources out of the workspace, as Terraform does (SPEC section 2):
``examples/complete-postgres`` calling ``../../`` reads the module there, under a path relative
to the workspace (``../../main.tf``). Only the called directory's own module files are read
(no walk below it), each directory once, and never one the configuration ignores. The modules
Terragrunt units deploy and the files they include (``find_in_parent_folders()``) are read the
same way (``stir.terragrunt``).
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import posixpath
from typing import Callable, Iterator, Union

# Paths are strings here (os.path): pathlib and what it imports were a tenth of a small
# check's start-up. Callers may pass a pathlib.Path (os.fspath accepts both). No forward
# reference in quotes: typing compiles one, 0.9 ms of every check's start-up.
PathLike = Union[str, os.PathLike]

from .analysis import CONFIG_FILE, AnalysisHost, SetParsed, Snapshot, file_kind
from .retention import EDITOR, Retention
from .syntax.copies import copy_under_path
from .syntax.hclfile import HclFile
from .syntax import is_json_path
from .config import Config
from .records import record
from .stir.deployments import is_auto_loaded
from .stir.terragrunt import deployed_dirs, generated_files, is_unit_file, place_of, wanted_paths
from .stir.roots import missing_local_targets
from .stir.workspace import MODULES_JSON

SKIPPED_DIRS = frozenset({".git", ".terraform", "node_modules", ".terragrunt-cache"})
MAX_FILES = 200_000


def is_ignored(rel: str, ignore: tuple[str, ...]) -> bool:
    """True when a relative path is under, or matches, an ``ignore`` entry."""
    for pattern in ignore:
        pattern = pattern.strip("/")
        if not pattern:
            continue
        if rel == pattern or rel.startswith(pattern + "/") or fnmatch.fnmatch(rel, pattern):
            return True
    return False


def read_bytes(path: PathLike, limit: int) -> bytes:
    """Reads at most ``limit + 1`` bytes, so a huge file never fills memory.

    A read first asks for the size the file has (and one byte more, to see its end): Python
    allocates the whole size asked for before it reads, and asking every file for ``limit + 1``
    bytes (2 MiB by default) cost 17 us a file against 5 (a 10,000-module workspace's 30,001
    files: 0.3 s of a 19 s check; bench/README.md, "the cold check, session 15"). What a file
    holds beyond its size (it grew, or a pipe or ``/proc`` file has none) is read on, in
    growing pieces, up to the limit, as before."""
    want = limit + 1
    with open(path, "rb", buffering=0) as handle:
        first = handle.read(min(os.fstat(handle.fileno()).st_size + 1, want))
        pieces, got, step = [first], len(first), 4096  # (the read that finds the end allocates a step)
        while got < want:
            more = handle.read(min(want - got, step))
            if not more:
                break
            pieces.append(more)
            got += len(more)
            step = min(2 * step, 1 << 20)
    return first if len(pieces) == 1 else b"".join(pieces)


@record(frozen=True, slots=True)
class LinkProblem:
    """Why a symbolic link is not read: ``code`` is the diagnostic it gets, None when it is
    ignored as Terraform ignores it (a ``terraform.tfvars`` that links to nothing)."""

    message: str
    code: str | None = "config-error"


def walk_workspace(root: PathLike, config: Config, skipped: list[tuple[str, LinkProblem]] | None = None) -> Iterator[str]:
    """Relative POSIX paths of every file tfphi reads under ``root``.

    Symbolic links to files and directories are followed wherever they lead, as Terraform
    follows them (SPEC 2); a directory link that leads back to a directory of its own path (a
    loop) is not followed again. Files that are links it will not read (a link to nothing, a
    loop) are appended to ``skipped`` as (relative path, problem) when a list is given; a
    ``terraform.tfvars`` that links to nothing is left out silently, as Terraform leaves it out.
    """
    root = os.path.realpath(root)
    real_of: dict[str, str] = {}
    count = 0
    # Depth first, each directory's files before its subdirectories, both sorted (what os.walk
    # with the names sorted in place gave). A directory's real path is its parent's plus its name
    # unless it is itself a link: only links are resolved (resolving every directory, and
    # testing every file for a link, was two thirds of the walk of the corpus, session 13).
    stack: list[tuple[str, str | None]] = [(root, root)]
    while stack:
        dirpath, real = stack.pop()
        if real is None:
            real = os.path.realpath(dirpath)
        if _loops(dirpath, real, root, real_of):
            continue
        listing = _listing(dirpath)
        if listing is None:  # (os.walk skipped a directory it could not list)
            continue
        dirs, files = listing
        real_of[dirpath] = real
        rel_dir = _posix(os.path.relpath(dirpath, root))
        rel_dir = "" if rel_dir == "." else rel_dir
        subdirs = sorted(
            (name, is_link) for name, is_link in dirs.items()
            if name not in SKIPPED_DIRS and not is_ignored(f"{rel_dir}/{name}".lstrip("/"), config.ignore)
        )
        for name in sorted(files):
            rel = f"{rel_dir}/{name}".lstrip("/")
            if _walked_kind(rel) and not is_ignored(rel, config.ignore):
                # Only a file that is itself a link can fail to resolve: check only those (resolving
                # every path cost more than reading the files).
                problem = link_problem(root, rel) if files[name] else None
                if problem is not None:
                    if skipped is not None and problem.code is not None:
                        skipped.append((rel, problem))
                    continue
                count += 1
                if count > MAX_FILES:
                    return
                yield rel
        if _TERRAFORM_DIR in dirs and os.path.isfile(os.path.join(dirpath, MODULES_JSON)):
            yield from _installed_modules(root, rel_dir, config)
        for name, is_link in reversed(subdirs):
            stack.append((os.path.join(dirpath, name), None if is_link else os.path.join(real, name)))


_TERRAFORM_DIR = MODULES_JSON.split("/", 1)[0]  # (``.terraform``: where the manifest is)


def _listing(dirpath: str) -> tuple[dict[str, bool], dict[str, bool]] | None:
    """The subdirectories (links to directories included) and the other entries of ``dirpath``,
    each with whether it is a symbolic link, or None when it cannot be listed (as os.walk reads
    them: an entry whose type cannot be read is not a directory)."""
    dirs: dict[str, bool] = {}
    files: dict[str, bool] = {}
    try:
        with os.scandir(dirpath) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                try:
                    is_link = entry.is_symlink()
                except OSError:
                    is_link = False
                (dirs if is_dir else files)[entry.name] = is_link
    except OSError:
        return None
    return dirs, files


def _walked_kind(rel: str) -> bool:
    """The files the walker reads: configuration, variable files, ``.tfphi.toml``, and
    ``terragrunt.hcl`` (the parents units include are read on demand, ``load_terragrunt_parents``)."""
    kind = file_kind(rel)
    return kind in ("tf", "tfvars", "config") or (kind == "terragrunt" and is_unit_file(rel))


def _loops(dirpath: str, real: str, root: str, real_of: dict[str, str]) -> bool:
    """True when ``dirpath`` is, links resolved, one of the directories on its own path (a link
    back up the tree): following it again would never end."""
    parent = os.path.dirname(dirpath)
    while len(parent) >= len(root):
        if real_of.get(parent) == real:
            return True
        if parent == root:
            break
        parent = os.path.dirname(parent)
    return False


def link_problem(root: PathLike, rel: str) -> LinkProblem | None:
    """Why the symbolic link ``rel`` is not read (None: it resolves, and is read wherever it leads):
    it loops, or it links to nothing. A ``terraform.tfvars`` that links to nothing is ignored, as
    Terraform ignores it; any other variable file, Terragrunt or configuration file that links to
    nothing is a ``config-error`` (Terraform fails until it exists)."""
    path = os.path.join(root, rel)
    try:
        os.stat(path)
        return None
    except ValueError:  # a NUL in the path
        return LinkProblem(f"{rel} cannot be read: its path holds a NUL byte")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return LinkProblem(f"{rel} is a symbolic link that loops; it cannot be read")
        if not os.path.islink(path):
            return None  # not a link: reading it says what is wrong
    if posixpath.basename(rel) in ("terraform.tfvars", "terraform.tfvars.json"):
        return LinkProblem(f"{rel} links to nothing; Terraform ignores it", None)
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return LinkProblem(f"{rel} is a symbolic link to {target}, which does not exist; "
                       "terraform plan fails until it exists")


def _inside(path: PathLike, root: str) -> bool:
    """True when ``path``, links resolved, is ``root`` (resolved) or under it; False when the links
    loop (what ``Path.resolve`` did: a missing path is resolved as far as it goes)."""
    try:
        real = os.path.realpath(path)
        os.stat(real)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return False
    except ValueError:  # a NUL in the path
        return False
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _posix(rel: str) -> str:
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


def _installed_modules(root: str, rel_dir: str, config: Config) -> Iterator[str]:
    """``modules.json`` and the ``.tf`` files of the modules it lists (inside the workspace only)."""
    manifest_rel = f"{rel_dir}/{MODULES_JSON}".lstrip("/")
    yield manifest_rel
    try:
        data = json.loads(read_bytes(os.path.join(root, manifest_rel), config.max_file_size))
        entries = data.get("Modules", []) if isinstance(data, dict) else []
    except (OSError, ValueError, RecursionError):
        return
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("Dir"), str) or not entry.get("Key"):
            continue
        try:
            module_dir = os.path.realpath(os.path.join(root, rel_dir, entry["Dir"]))
        except ValueError:  # a NUL in the manifest's path
            continue
        if not _inside(module_dir, root) or not os.path.isdir(module_dir):
            continue
        for name in sorted(os.listdir(module_dir)):
            child = os.path.join(module_dir, name)
            if name.endswith(".tf") and len(name) > 3 and os.path.isfile(child) and _inside(child, root):
                yield _posix(os.path.relpath(child, root))


def repository_root_of(root: PathLike) -> str | None:
    """The git work tree around ``root`` (a ``.git`` directory or file), relative to it (POSIX, ""
    for ``root`` itself); None outside any (Terragrunt's ``get_repo_root()`` is then unknown)."""
    try:
        start = os.path.realpath(root)
    except (OSError, ValueError):
        return None
    candidate = start
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            rel = _posix(os.path.relpath(candidate, start))
            return "" if rel == "." else rel
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return None
        candidate = parent


def location_of(root: PathLike) -> str | None:
    """``root``'s absolute path, links resolved, POSIX (Terragrunt's path functions need it)."""
    try:
        return _posix(os.path.realpath(root))
    except (OSError, ValueError):
        return None


def not_a_directory(dir: str) -> str | None:
    """Why ``dir`` cannot be read as a workspace (a usage error of every command and the API), or None."""
    if os.path.isdir(dir):
        return None
    return f"{dir} is not a directory" if os.path.exists(dir) else f"{dir} does not exist; nothing to analyse"


def nothing_to_analyse(snapshot: Snapshot, dir: str) -> str | None:
    """Why ``check``/``trace``/``specialize`` of ``dir`` would analyse nothing (SPEC 2: an error,
    never a pass), or None when there is something: a module, a file that could not be read, a unit."""
    if snapshot.modules or snapshot.problems or any(u.problems for u in snapshot.units):
        return None
    opaque = [u.opaque_reason for u in snapshot.units if u.opaque_reason is not None]
    if len(opaque) == 1:
        return f"nothing to analyse: {opaque[0]}"
    if opaque:
        return f"nothing to analyse: the {len(opaque)} Terragrunt units are opaque:\n" + "\n".join(f"  {o}" for o in opaque)
    return (f"{dir} holds no Terraform, OpenTofu or Terragrunt configuration (.tf, .tf.json, .tofu, "
            ".tofu.json or terragrunt.hcl files); nothing to analyse")


def load_workspace(root: PathLike, base: Config | None = None, progress: Callable[[int, int], None] | None = None,
                   retention: Retention = EDITOR) -> Snapshot:
    """Reads the files under ``root`` into an analysis host and returns its snapshot (the CLI's batch mode).
    ``progress(done, total)`` is called after each file (``check``'s progress line on a terminal).
    ``retention``: what the host keeps (``retention.BATCH``: ``tfphi check``'s, which releases each
    module's derived data once its diagnostics are taken)."""
    root = os.fspath(root)
    analysis = AnalysisHost((base or Config()).with_overrides(repo_root=repository_root_of(root), location=location_of(root)),
                            retention)
    config_path = os.path.join(root, CONFIG_FILE)
    if os.path.isfile(config_path):
        analysis.set_source(CONFIG_FILE, read_bytes(config_path, analysis.config.max_file_size))
    skipped: list[tuple[str, LinkProblem]] = []
    rels = [rel for rel in walk_workspace(root, analysis.config, skipped) if rel != CONFIG_FILE]
    copies = SameBytes()  # this load's files, by their bytes: nobody edits them
    _set_files(analysis, root, rels, copies, progress)
    for rel, problem in skipped:
        analysis.set_problem(rel, problem.message, problem.code or "config-error")
    load_outside_modules(root, analysis, copies=copies)
    return analysis.snapshot()


class SameBytes:
    """The files one batch load has read, by their bytes, to hand a file repeating the bytes of
    one read before to the analysis as a copy of it (``SetParsed``), neither parsed nor read
    again: what a file's bytes parse to does not depend on its path, which only its spans carry.
    A corpus repeats whole files (each example's ``versions.tf``; half of the 1,536 files of
    bench/README.md's eight module repositories; 15,868 of the 30,001 files of the generated
    10,000-module workspace). Only files read without their tree and without a syntax error are
    kept (a file with an error keeps its tree, and its errors name it): the copies share nothing
    that is changed later (``syntax.copies.copy_under_path``). It lives as long as the load that made
    it: nothing outlives the batch run, and the editor, which edits files, never uses one."""

    def __init__(self) -> None:
        self._firsts: dict[bytes, HclFile] = {}

    def copy(self, rel: str, data: bytes) -> "HclFile | None":
        """The file at ``rel`` as a copy of the file read before with the bytes ``data``, or None."""
        first = self._firsts.get(data)
        return None if first is None else copy_under_path(first, rel)

    def remember(self, hcl: "HclFile | None") -> None:
        """Keeps ``hcl`` (what the analysis read from the file's bytes) for the files after it."""
        if hcl is not None and hcl.tree is None and not hcl.errors and not is_json_path(hcl.path):
            self._firsts.setdefault(hcl.source, hcl)


def _set_files(analysis: AnalysisHost, root: str, rels: list[str], copies: SameBytes | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Reads ``rels`` into ``analysis``, in order; returns the paths it could read. With
    ``copies`` (a batch load), a file repeating the bytes of one read before is handed in parsed,
    as a copy of it; every other file as its bytes, which the analysis parses and reads itself
    (one process, one thread: see ARCHITECTURE.md, "No threads in the analysis")."""
    read: list[str] = []
    limit = analysis.config.max_file_size
    for done, rel in enumerate(rels, 1):
        try:
            data = read_bytes(os.path.join(root, rel), limit)
        except OSError as exc:
            analysis.set_problem(rel, f"{rel} cannot be read: {exc.strerror or exc}", unreadable_code(rel))
        else:
            copy = copies.copy(rel, data) if copies is not None and file_kind(rel) in _PARSED_KINDS else None
            if copy is not None:
                analysis.apply_change(SetParsed(copy))
            else:
                analysis.set_source(rel, data)
                if copies is not None:
                    copies.remember(analysis.files.get(rel) or analysis.tfvars.get(rel) or analysis.terragrunt.get(rel))
            read.append(rel)
        if progress is not None:
            progress(done, len(rels))
    return read


_PARSED_KINDS = frozenset({"tf", "tfvars", "terragrunt"})  # what the analysis parses (SetParsed takes)


def unreadable_code(rel: str) -> str:
    """The diagnostic of a file that cannot be read: ``config-error`` for a variable file or a
    Terragrunt file (SPEC 5), ``syntax-error`` for a configuration file."""
    return "config-error" if file_kind(rel) in ("tfvars", "terragrunt") else "syntax-error"


def load_outside_modules(root: PathLike, analysis: AnalysisHost, attempted: set[str] | None = None,
                         copies: SameBytes | None = None) -> list[str]:
    """Reads the modules outside ``root`` that local sources and Terragrunt units reach, and the
    files units include, until none is missing.

    Returns the relative paths of the files it read. ``attempted`` (directories already tried)
    lets a long-lived caller, such as the editor, resume without reading a directory twice.
    ``copies``: files repeating bytes read before are handed in as copies (``SameBytes``; batch loads only).
    """
    attempted = set() if attempted is None else attempted
    read: list[str] = []
    seen_real: set[str] = set()
    generated: dict[str, bytes] = {}
    while True:
        snapshot = analysis.snapshot()
        deployed = deployed_dirs(snapshot.units)
        missing = missing_local_targets(snapshot.modules, snapshot.tree, attempted, deployed)
        # the files Terragrunt units include (``find_in_parent_folders``: each candidate once)
        parents = [p for p in wanted_paths(snapshot.terragrunt, attempted, place_of(analysis.config))
                   if not is_ignored(p, analysis.config.ignore)]
        if not missing and not parents:
            # what the units' generate blocks write into their modules, as Terragrunt runs them
            files = generated_files(snapshot.units, snapshot.modules, snapshot.tree.callers, generated)
            new = {path: data for path, data in files.items() if generated.get(path) != data}
            if not new:
                return read
            generated.update(new)
            for path, data in new.items():
                analysis.set_source(path, data)
            continue
        attempted.update(missing)
        attempted.update(parents)
        rels = [p for p in parents if os.path.isfile(os.path.join(root, p))]
        for dir in missing:
            if not is_ignored(dir, analysis.config.ignore):
                rels.extend(_module_dir_files(root, dir, seen_real, auto_variables=dir in deployed))
        # the files of every directory this round reached, read as the workspace's
        read.extend(_set_files(analysis, os.fspath(root), rels, copies))


def module_files_in(directory: PathLike) -> list[str]:
    """Names of the module files (``.tf``, ``.tf.json``) directly in ``directory``, sorted; [] when unreadable."""
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.is_file())
    except OSError:
        return []
    return [name for name in names if file_kind(name) == "tf"]


def auto_variable_files_in(directory: PathLike) -> list[str]:
    """Names of the variable files Terraform loads by itself in ``directory`` (``terraform.tfvars``,
    ``*.auto.tfvars`` and their JSON forms), sorted; [] when unreadable."""
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.is_file())
    except OSError:
        return []
    return [name for name in names if is_auto_loaded(name)]


def _module_dir_files(root: PathLike, dir: str, seen_real: set[str], auto_variables: bool = False) -> list[str]:
    """The module files of one directory outside the workspace, as paths relative to ``root``
    (``auto_variables``: and its auto-loaded variable files: a Terragrunt unit deploys it as a
    root, and they win over the unit's inputs); a directory reached twice through links is read once."""
    directory = os.path.join(root, dir)
    try:
        real = os.path.realpath(directory, strict=True)  # a link loop raises here
    except (OSError, RuntimeError):
        return []
    if real in seen_real or not os.path.isdir(real):
        return []
    seen_real.add(real)
    names = module_files_in(directory) + (auto_variable_files_in(directory) if auto_variables else [])
    return [f"{dir}/{name}" for name in names]
