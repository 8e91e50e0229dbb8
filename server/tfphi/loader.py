"""Reading a workspace from disk into an ``Analysis`` (the only I/O the CLI and server share).

The walker never follows symbolic links out of the workspace, skips ``.git``, ``.terraform``
(except ``modules.json`` and the modules it lists), ``node_modules``, ``.terragrunt-cache``
and whatever the configuration ignores, and reads only ``.tf``, ``.tf.json``, ``.tfvars``,
``.tfvars.json``, ``.tfphi.toml`` and ``modules.json`` files.

Then it follows local module sources out of the workspace, as Terraform does (SPEC section 2):
``examples/complete-postgres`` calling ``../../`` reads the module there, under a path relative
to the workspace (``../../main.tf``). Only the called directory's own module files are read
(no walk below it), each directory once, and never one the configuration ignores.
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import queue
import sys
import threading
from typing import TYPE_CHECKING, Iterator, Union

# Paths are strings here (os.path): pathlib and what it imports were a tenth of a small
# check's start-up. Callers may pass a pathlib.Path (os.fspath accepts both).
PathLike = Union[str, "os.PathLike[str]"]

from .analysis import CONFIG_FILE, AnalysisHost, Snapshot, file_kind
from .syntax.hclfile import new_parser, prepared_tree, same_bytes_shared
from .syntax import is_json_path

if TYPE_CHECKING:
    from tree_sitter import Tree
from .config import Config
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
    """Reads at most ``limit + 1`` bytes, so a huge file never fills memory."""
    with open(path, "rb") as handle:
        return handle.read(limit + 1)


def walk_workspace(root: PathLike, config: Config, skipped: list[tuple[str, str]] | None = None) -> Iterator[str]:
    """Relative POSIX paths of every file tfphi reads under ``root``.

    Files it will not read (a symbolic link out of the workspace or in a loop) are appended
    to ``skipped`` as (relative path, message) when a list is given.
    """
    root = os.path.realpath(root)
    seen_dirs: set[tuple[int, int]] = set()
    count = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        stat = os.stat(dirpath)
        if (stat.st_dev, stat.st_ino) in seen_dirs:
            dirnames[:] = []
            continue
        seen_dirs.add((stat.st_dev, stat.st_ino))
        rel_dir = _posix(os.path.relpath(dirpath, root))
        rel_dir = "" if rel_dir == "." else rel_dir
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIPPED_DIRS and not is_ignored(f"{rel_dir}/{d}".lstrip("/"), config.ignore)
        )
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}".lstrip("/")
            if file_kind(rel) in ("tf", "tfvars", "config") and not is_ignored(rel, config.ignore):
                # os.walk never descends through a linked directory and ``root`` is resolved, so
                # only a file that is itself a link can lead out: resolve only those (resolving
                # every path cost more than reading the files).
                problem = link_problem(root, rel) if os.path.islink(os.path.join(dirpath, name)) else None
                if problem is not None:
                    if skipped is not None:
                        skipped.append((rel, problem))
                    continue
                count += 1
                if count > MAX_FILES:
                    return
                yield rel
        if os.path.isfile(os.path.join(dirpath, MODULES_JSON)):
            yield from _installed_modules(root, rel_dir, config)


def link_problem(root: PathLike, rel: str) -> str | None:
    """Why ``rel`` must not be read: it leads out of ``root`` through a symbolic link (of the file
    or of a directory on its path), or the links loop (else None)."""
    if not _inside(os.path.join(root, rel), os.path.realpath(root)):
        return f"{rel} is a symbolic link that leads outside the workspace or loops; it was skipped"
    return None


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


def load_workspace(root: PathLike, base: Config | None = None) -> Snapshot:
    """Reads the files under ``root`` into an analysis host and returns its snapshot (the CLI's batch mode)."""
    root = os.fspath(root)
    analysis = AnalysisHost(base)
    config_path = os.path.join(root, CONFIG_FILE)
    if os.path.isfile(config_path):
        analysis.set_source(CONFIG_FILE, read_bytes(config_path, analysis.config.max_file_size))
    skipped: list[tuple[str, str]] = []
    rels = [rel for rel in walk_workspace(root, analysis.config, skipped) if rel != CONFIG_FILE]
    with same_bytes_shared():  # a file with the bytes of one read before is a copy of it
        for rel, data, tree in _read_ahead(root, rels, analysis.config.max_file_size):
            if isinstance(data, OSError):
                analysis.set_problem(rel, f"{rel} cannot be read: {data.strerror or data}")
                continue
            with prepared_tree(data, tree):
                analysis.set_source(rel, data)
        for rel, message in skipped:
            analysis.set_problem(rel, message)
        load_outside_modules(root, analysis)
    return analysis.snapshot()


READ_AHEAD = 16  # files read and parsed ahead of the analysis: their trees are all in memory at once


def _read_ahead(root: str, rels: list[str], limit: int) -> Iterator[tuple[str, "bytes | OSError", "Tree | None"]]:
    """(path, bytes or the error reading them, tree-sitter tree or None) for each path, in order.

    A helper thread reads the files and parses the native-syntax ones (tree-sitter runs
    without the GIL) while the caller's thread reads the structure of the files before
    them: on two cores the parse of a workspace costs little wall time beyond the analysis
    that reads it. The helper only reads bytes and parses them; everything that changes the
    analysis stays on the caller's thread (ARCHITECTURE.md: no threads in the analysis), and
    the tree reaches it through ``syntax.hclfile.prepared_tree``. At most READ_AHEAD files
    wait, so their trees never pile up (a tree is about 60 bytes per byte of source). Bytes
    it parsed already are not parsed again: the caller reads such a file as a copy of the
    first (``syntax.hclfile.same_bytes_shared``; it parses them itself when it has none)."""
    if len(rels) < 2:  # nothing to overlap
        for rel in rels:
            try:
                yield rel, read_bytes(os.path.join(root, rel), limit), None
            except OSError as exc:
                yield rel, exc, None
        return
    waiting: queue.Queue = queue.Queue(maxsize=READ_AHEAD)
    stop = threading.Event()

    def work() -> None:
        parser = new_parser()
        parsed: set[bytes] = set()  # bytes parsed already: a file repeating them is a copy (same_bytes_shared)
        try:
            for rel in rels:
                if stop.is_set():
                    return
                try:
                    data = read_bytes(os.path.join(root, rel), limit)
                except OSError as exc:
                    waiting.put((rel, exc, None))
                    continue
                tree = None
                if file_kind(rel) in ("tf", "tfvars") and not is_json_path(rel) and len(data) <= limit and data not in parsed:
                    tree = parser.parse(data)
                    parsed.add(data)
                waiting.put((rel, data, tree))
        finally:
            waiting.put(None)

    helper = threading.Thread(target=work, name="tfphi-read-ahead", daemon=True)
    interval = sys.getswitchinterval()
    # The helper needs the GIL for a moment after each parse; by default it would wait up to
    # 5 ms for it while this thread reads structure, and fall behind.
    sys.setswitchinterval(min(interval, 0.0005))
    helper.start()
    try:
        while (item := waiting.get()) is not None:
            yield item
    finally:
        stop.set()
        while helper.is_alive():  # let a helper blocked on a full queue see the stop
            try:
                waiting.get(timeout=0.05)
            except queue.Empty:
                pass
        sys.setswitchinterval(interval)


def load_outside_modules(root: PathLike, analysis: AnalysisHost, attempted: set[str] | None = None) -> list[str]:
    """Reads the modules outside ``root`` that local sources reach, until none is missing.

    Returns the relative paths of the files it read. ``attempted`` (directories already tried)
    lets a long-lived caller, such as the editor, resume without reading a directory twice.
    """
    attempted = set() if attempted is None else attempted
    read: list[str] = []
    seen_real: set[str] = set()
    while True:
        missing = missing_local_targets(analysis.snapshot().modules, attempted)
        if not missing:
            return read
        attempted.update(missing)
        rels: list[str] = []
        for dir in missing:
            if not is_ignored(dir, analysis.config.ignore):
                rels.extend(_module_dir_files(root, dir, seen_real))
        # the files of every directory this round reached, read and parsed ahead as the workspace's
        for rel, data, tree in _read_ahead(os.fspath(root), rels, analysis.config.max_file_size):
            if isinstance(data, OSError):
                analysis.set_problem(rel, f"{rel} cannot be read: {data.strerror or data}")
                continue
            with prepared_tree(data, tree):
                analysis.set_source(rel, data)
            read.append(rel)


def module_files_in(directory: PathLike) -> list[str]:
    """Names of the module files (``.tf``, ``.tf.json``) directly in ``directory``, sorted; [] when unreadable."""
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.is_file())
    except OSError:
        return []
    return [name for name in names if file_kind(name) == "tf"]


def _module_dir_files(root: PathLike, dir: str, seen_real: set[str]) -> list[str]:
    """The module files of one directory outside the workspace, as paths relative to ``root``;
    a directory reached twice through links is read once."""
    directory = os.path.join(root, dir)
    try:
        real = os.path.realpath(directory, strict=True)  # a link loop raises here
    except (OSError, RuntimeError):
        return []
    if real in seen_real or not os.path.isdir(real):
        return []
    seen_real.add(real)
    return [f"{dir}/{name}" for name in module_files_in(directory)]
