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
import marshal
import posixpath
import select
import sys
import threading
from typing import TYPE_CHECKING, Callable, Iterator, Union

# Paths are strings here (os.path): pathlib and what it imports were a tenth of a small
# check's start-up. Callers may pass a pathlib.Path (os.fspath accepts both).
PathLike = Union[str, "os.PathLike[str]"]

from .analysis import CONFIG_FILE, AnalysisHost, Snapshot, file_kind
from .syntax.hclfile import build_file, new_parser, prepared_file, same_bytes_shared
from .syntax.transfer import decode, encode
from .syntax import is_json_path

if TYPE_CHECKING:
    from .syntax.hclfile import HclFile
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
    """Reads at most ``limit + 1`` bytes, so a huge file never fills memory."""
    with open(path, "rb") as handle:
        return handle.read(limit + 1)


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
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if _loops(dirpath, real, root, real_of):
            dirnames[:] = []
            continue
        real_of[dirpath] = real
        rel_dir = _posix(os.path.relpath(dirpath, root))
        rel_dir = "" if rel_dir == "." else rel_dir
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIPPED_DIRS and not is_ignored(f"{rel_dir}/{d}".lstrip("/"), config.ignore)
        )
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}".lstrip("/")
            if _walked_kind(rel) and not is_ignored(rel, config.ignore):
                # Only a file that is itself a link can fail to resolve: check only those (resolving
                # every path cost more than reading the files).
                problem = link_problem(root, rel) if os.path.islink(os.path.join(dirpath, name)) else None
                if problem is not None:
                    if skipped is not None and problem.code is not None:
                        skipped.append((rel, problem))
                    continue
                count += 1
                if count > MAX_FILES:
                    return
                yield rel
        if os.path.isfile(os.path.join(dirpath, MODULES_JSON)):
            yield from _installed_modules(root, rel_dir, config)


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


def load_workspace(root: PathLike, base: Config | None = None, progress: Callable[[int, int], None] | None = None) -> Snapshot:
    """Reads the files under ``root`` into an analysis host and returns its snapshot (the CLI's batch mode).
    ``progress(done, total)`` is called after each file (``check``'s progress line on a terminal)."""
    root = os.fspath(root)
    analysis = AnalysisHost((base or Config()).with_overrides(repo_root=repository_root_of(root), location=location_of(root)))
    config_path = os.path.join(root, CONFIG_FILE)
    if os.path.isfile(config_path):
        analysis.set_source(CONFIG_FILE, read_bytes(config_path, analysis.config.max_file_size))
    skipped: list[tuple[str, LinkProblem]] = []
    rels = [rel for rel in walk_workspace(root, analysis.config, skipped) if rel != CONFIG_FILE]
    with same_bytes_shared():  # a file with the bytes of one read before is a copy of it
        _set_files(analysis, root, rels, share_work=True, progress=progress)
        for rel, problem in skipped:
            analysis.set_problem(rel, problem.message, problem.code or "config-error")
        load_outside_modules(root, analysis, share_work=True)
    return analysis.snapshot()


def _set_files(analysis: AnalysisHost, root: str, rels: list[str], share_work: bool,
               progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Reads ``rels`` into ``analysis``, in order; returns the paths it could read (``share_work``:
    see ``_read_files``)."""
    read: list[str] = []
    for done, (rel, data, hcl) in enumerate(_read_files(root, rels, analysis.config.max_file_size, share_work), 1):
        if progress is not None:
            progress(done, len(rels))
        if isinstance(data, OSError):
            analysis.set_problem(rel, f"{rel} cannot be read: {data.strerror or data}", unreadable_code(rel))
            continue
        with prepared_file(data, hcl):
            analysis.set_source(rel, data)
        read.append(rel)
    return read


def unreadable_code(rel: str) -> str:
    """The diagnostic of a file that cannot be read: ``config-error`` for a variable file or a
    Terragrunt file (SPEC 5), ``syntax-error`` for a configuration file."""
    return "config-error" if file_kind(rel) in ("tfvars", "terragrunt") else "syntax-error"


def _read_files(root: str, rels: list[str], limit: int, share_work: bool = False
                ) -> Iterator[tuple[str, "bytes | OSError", "HclFile | None"]]:
    """(path, bytes or the error reading them, the file already parsed and read, or None) for
    each path, in order.

    tree-sitter's Python binding holds the interpreter lock while it parses (its allocator is
    Python's), so no thread can parse beside the analysis. With ``share_work`` and enough
    bytes, a worker process forked once the files are read parses and reads part of them
    and sends what it read through a pipe (``syntax.transfer``), while this process parses
    and reads the others; each file is handed to the analysis, in order, as soon as every file
    before it is read, as the file it would have read itself (``syntax.hclfile.prepared_file``):
    the analysis of the first files overlaps the worker's reading of later ones. Each distinct content is read once:
    a file repeating earlier bytes is read as a copy of them (``same_bytes_shared``). The
    worker shares nothing with the analysis: bytes in, builtins out, as ``parse_file`` reads
    them. Without a worker (small workspaces, other threads running, no ``fork``), or for
    what a failing worker did not send, each file is parsed as the analysis takes it."""
    items: list[tuple[str, bytes | OSError]] = []
    for rel in rels:
        try:
            items.append((rel, read_bytes(os.path.join(root, rel), limit)))
        except OSError as exc:
            items.append((rel, exc))
    worker = _Worker.start(items, limit) if share_work else None
    if worker is None:
        for rel, data in items:
            yield rel, data, None
        return
    try:
        yield from worker.read_in_order(items)
    finally:
        worker.close()


# The share of the distinct native-syntax bytes the worker process parses and reads: sending
# what it read costs it more than taking it costs this process (measured on bench/README.md's
# corpus and 1,000-module workspace), and the rest of the check runs here after both.
WORKER_SHARE = 0.55
# Below this many such bytes the worker is not started: forking, and the worker's exit, cost
# more than a small workspace's parse (a check of one example directory stays as fast).
WORKER_MIN_BYTES = 256 << 10
PIPE_SIZE = 1 << 20  # the worker's answers waiting in the pipe (Linux allows 1 MiB unprivileged)


def _split(items: list[tuple[str, "bytes | OSError"]], limit: int) -> tuple[list[int], list[int]]:
    """The first file of each distinct native content, split into (this process's, the worker's),
    the worker's spread evenly over the order (both lists ascending); ([], []) when too few bytes."""
    distinct: set[bytes] = set()
    candidates: list[tuple[int, int]] = []
    for i, (rel, data) in enumerate(items):
        if isinstance(data, bytes) and len(data) <= limit and file_kind(rel) in ("tf", "tfvars") \
                and not is_json_path(rel) and data not in distinct:
            distinct.add(data)
            candidates.append((i, len(data)))
    if sum(size for _, size in candidates) < WORKER_MIN_BYTES:
        return [], []
    here: list[int] = []
    there: list[int] = []
    given = seen = 0
    for i, size in candidates:
        seen += size
        if given + size / 2 <= WORKER_SHARE * seen:
            there.append(i)
            given += size
        else:
            here.append(i)
    return here, there


def _read_one(rel: str, data: bytes, parser, cache: dict) -> "HclFile":
    """``parse_file(rel, data, keep_tree=False)`` of bytes read for the first time (no copy of earlier ones)."""
    return build_file(rel, data, parser.parse(data), keep_tree=False, refs_cache=cache, native=True)


def _wait_readable(fd: int) -> None:
    """Waits until the worker has written to ``fd`` or ended (``poll``: ``select.select``
    refuses a descriptor numbered 1024 or more, which a process with many files open gets)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    poller.poll()


class _Worker:
    """The forked worker of ``_read_files``: it parses and reads its files in order and writes
    each as ``marshal``'d (index, ``syntax.transfer.encode``) with a 4-byte length before it."""

    def __init__(self, pid: int, read_end: int, here: list[int], there: list[int]):
        self.pid, self.fd = pid, read_end
        self.here, self.there = here, there
        self.buffer = bytearray()
        self.ended = False  # the pipe is closed: the worker finished or failed

    @classmethod
    def start(cls, items: list[tuple[str, "bytes | OSError"]], limit: int) -> "_Worker | None":
        if not (hasattr(os, "fork") and sys.platform.startswith("linux")) or threading.active_count() > 1:
            return None  # forking a process with other threads could copy a lock someone holds
        here, there = _split(items, limit)
        if not there:
            return None
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return None
        try:
            import fcntl

            fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        except (ImportError, AttributeError, OSError):
            pass  # a smaller pipe only makes the worker wait more
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return None
        if pid == 0:  # the worker
            os.close(read_end)
            code = 1
            try:
                _work(items, there, os.fdopen(write_end, "wb"))
                code = 0
            finally:
                os._exit(code)  # nothing of the parent's to flush or free
        os.close(write_end)
        os.set_blocking(read_end, False)
        return cls(pid, read_end, here, there)

    def read_in_order(self, items: list[tuple[str, "bytes | OSError"]]
                      ) -> Iterator[tuple[str, "bytes | OSError", "HclFile | None"]]:
        """``_read_files``'s answer: this process reads its own files one by one, takes what
        the worker has sent so far between two of them, and hands the analysis every item as
        soon as all before it are handed (the analysis's work on them overlaps the worker's).
        It never waits for the worker while it has files of its own to read; when the worker
        ends early, what it did not send is handed without a reading (parsed as taken)."""
        read: dict[int, HclFile] = {}
        unread = set(self.here) | set(self.there)  # items not handed before they are read
        expected = iter(self.there)
        parser, cache = new_parser(), {}
        next_item = 0

        def ready() -> Iterator[tuple[str, "bytes | OSError", "HclFile | None"]]:
            nonlocal next_item
            while next_item < len(items) and next_item not in unread:
                rel, data = items[next_item]
                yield rel, data, read.pop(next_item, None)
                next_item += 1

        for i in self.here:
            rel, data = items[i]
            read[i] = _read_one(rel, data, parser, cache)
            unread.discard(i)
            self._receive(items, expected, read, unread, block=False)
            yield from ready()
        while not self.ended and unread:
            self._receive(items, expected, read, unread, block=True)
            yield from ready()
        unread.clear()  # the worker ended without sending these: parsed as the analysis takes them
        yield from ready()

    def _receive(self, items, expected, read: dict, unread: set, block: bool) -> None:
        """Decodes the complete messages in the pipe (``block``: waits for one, or for the end)."""
        while not self.ended:
            try:
                chunk = os.read(self.fd, PIPE_SIZE)
            except BlockingIOError:
                if not block:
                    return
                _wait_readable(self.fd)
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.ended = True
            self.buffer += chunk
            if self._decode_complete(items, expected, read, unread) and block:
                return

    def _decode_complete(self, items, expected, read: dict, unread: set) -> int:
        """Decodes the complete messages in the buffer; returns how many."""
        buffer, at, count = self.buffer, 0, 0
        while len(buffer) - at >= 4:
            size = int.from_bytes(buffer[at : at + 4], "little")
            if len(buffer) - at - 4 < size:
                break
            at += 4 + size
            try:
                index, encoded = marshal.loads(buffer[at - size : at])
                if index != next(expected, None):
                    raise ValueError("out of step")
                if encoded is not None:
                    rel, data = items[index]
                    read[index] = decode(encoded, rel, data)
            except Exception:  # out of step or unreadable: the rest is read as the analysis takes it
                self.ended = True
                break
            unread.discard(index)
            count += 1
        del buffer[:at]
        return count

    def close(self) -> None:
        os.close(self.fd)  # a worker still writing gets a broken pipe and exits
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _work(items: list[tuple[str, "bytes | OSError"]], indices: list[int], out) -> None:
    parser = new_parser()
    cache: dict = {}
    for i in indices:
        rel, data = items[i]
        try:
            encoded = encode(_read_one(rel, data, parser, cache))
        except Exception:  # the analysis reads the file itself and meets the problem there
            encoded = None
        message = marshal.dumps((i, encoded))
        out.write(len(message).to_bytes(4, "little"))
        out.write(message)
        out.flush()
    out.close()


def load_outside_modules(root: PathLike, analysis: AnalysisHost, attempted: set[str] | None = None,
                         share_work: bool = False) -> list[str]:
    """Reads the modules outside ``root`` that local sources and Terragrunt units reach, and the
    files units include, until none is missing.

    Returns the relative paths of the files it read. ``attempted`` (directories already tried)
    lets a long-lived caller, such as the editor, resume without reading a directory twice.
    ``share_work``: a worker process may read part of them (``_read_files``; batch runs only).
    """
    attempted = set() if attempted is None else attempted
    read: list[str] = []
    seen_real: set[str] = set()
    generated: dict[str, bytes] = {}
    while True:
        snapshot = analysis.snapshot()
        deployed = deployed_dirs(snapshot.units)
        missing = missing_local_targets(snapshot.modules, attempted, deployed)
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
        read.extend(_set_files(analysis, os.fspath(root), rels, share_work))


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
