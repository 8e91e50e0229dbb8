"""Which part of a workspace one ``tfphi check`` run reports (SPEC section 1): the root
configurations its PATH arguments stand for, and the K-th of N shards of them.

- A directory stands for the roots under it, and for those whose configuration reaches a
  module under it (a module directory that another module calls is no root of its own).
- A file stands for the root configurations that contain it, so a pre-commit hook can pass
  the names of the files a commit changes: a module's file for every root that reaches the
  module, a variable file for the root it deploys.
- ``--shard K/N`` splits the work by module directory: each directory is analysed by the shard
  of the first root (in sorted order) whose configuration reaches it, and a root goes to the
  shard its path's hash picks, so a root keeps its shard when others are added or removed (a
  code-scanning category keeps its alerts). Every diagnostic belongs to one directory, so the
  shards' diagnostics together are exactly the unsharded run's, none repeated, none dropped.
  A variable file's diagnostics go with its root; the workspace-wide ones (``.tfphi.toml``,
  module manifests) belong to shard 1.

Pure: reads an ``Analysis``; paths are relative to the loaded directory, POSIX.
"""

from __future__ import annotations

import posixpath
from typing import Callable, Iterable

from .analysis import Analysis
from .diagnostic_roots import diagnostic_roots
from .diagnostics import Diagnostic, sort_key
from .features.diagnostics import config_diagnostics, dir_diagnostics
from .stir.deployments import is_variable_file, owning_root
from .stir.roots import display_dir, roots_reaching


class ShardError(ValueError):
    """``--shard`` is not ``K/N`` with 1 <= K <= N."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` as ``(2, 4)``."""
    k, slash, n = text.partition("/")
    if not slash or not k.isdigit() or not n.isdigit() or not 1 <= int(k) <= int(n):
        raise ShardError(f"--shard takes K/N with 1 <= K <= N (e.g. 2/4), not {text!r}")
    return int(k), int(n)


def shard_of_root(root: str, count: int) -> int:
    """The shard (1-based, of ``count``) that analyses a root: a hash of its path, stable across runs and machines."""
    import hashlib  # only a sharded check hashes: loading OpenSSL was 2 ms of every check's start-up

    digest = hashlib.sha256(display_dir(root).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def _under(path: str, dir: str) -> bool:
    return not dir or path == dir or path.startswith(dir + "/")


def roots_for_path(analysis: Analysis, path: str, is_file: bool) -> set[str]:
    """The root configurations a PATH argument (relative to the loaded directory) stands for."""
    tree = analysis.tree
    if is_file:
        dir = posixpath.dirname(path)
        if dir in analysis.modules:
            return set(roots_reaching(tree, dir))
        if is_variable_file(path):
            owner = owning_root(path, analysis.modules)
            if owner is None:
                return set()
            return {owner} if owner in tree.roots else set(roots_reaching(tree, owner))
        path = dir  # .tfphi.toml, terragrunt.hcl...: the directory that holds it
    found = {root for root in tree.roots if _under(root, path)}
    for dir in analysis.modules:
        if _under(dir, path):
            found.update(roots_reaching(tree, dir))
    return found


def dir_owner(analysis: Analysis, dir: str) -> str:
    """The root whose shard analyses a directory: the first root reaching it, else the directory itself."""
    reaching = roots_reaching(analysis.tree, dir) if dir in analysis.modules else ()
    if reaching:
        return reaching[0]
    if dir not in analysis.modules:  # a folder of variable files (env/): the root module above it
        above = dir
        while above and above not in analysis.modules and posixpath.basename(above) != "..":
            above = posixpath.dirname(above)
        if above in analysis.modules:
            return dir_owner(analysis, above)
    return dir


def _workspace_shard(analysis: Analysis, d: Diagnostic, count: int) -> int:
    """The shard of a diagnostic that is not a module directory's: a variable file's goes with its
    root, the configuration's and the manifests' to shard 1."""
    if is_variable_file(d.file):
        owner = owning_root(d.file, analysis.modules)
        if owner is not None:
            return shard_of_root(dir_owner(analysis, owner), count)
    return 1


# A diagnostic's place, what ``diagnostic_roots`` answers for: (file, code, start, end).
RootsKey = tuple[str, str, int, int]


def roots_key(d: Diagnostic) -> RootsKey:
    """What the roots of ``d`` are kept by in ``check_diagnostics``'s ``known_roots``."""
    return d.file, d.code, d.span.start, d.span.end


def check_diagnostics(analysis: Analysis, roots: set[str] | None = None, shard: tuple[int, int] | None = None,
                      on_dir: Callable[[int, int], None] | None = None, files: Iterable[str] = (),
                      known_roots: dict[RootsKey, list[str]] | None = None) -> list[Diagnostic]:
    """The run's diagnostics, sorted (SPEC: file, position, code): every one when ``roots`` is
    None, else those that hold in one of ``roots`` or are on one of ``files`` (the files named on
    the command line); with ``shard``, only that shard's part.
    ``on_dir(done, total)`` is called after each directory (progress). ``known_roots``, when
    given, receives the roots of each diagnostic (``diagnostic_roots``, by ``roots_key``), worked
    out while its module's traces are at hand: on a batch host (``Snapshot.release``) the
    modules are analysed in ``batch_schedule``'s order and released as it says once their
    diagnostics are taken, so the report must read the roots from there (``CheckReport``)."""
    dirs = analysis.dirs()
    if shard is not None:
        k, n = shard
        dirs = [d for d in dirs if shard_of_root(dir_owner(analysis, d), n) == k]
    if roots is not None:
        wanted = {display_dir(r) for r in roots}
        dirs = [d for d in dirs if d not in analysis.modules or set(roots_reaching(analysis.tree, d)) & roots]
    places = {} if known_roots is None else known_roots
    found: list[Diagnostic] = []
    if analysis.retention.releases_traces:
        steps = batch_schedule(analysis, dirs)
    else:
        steps = [(dir, ()) for dir in dirs]
    for i, (dir, releases) in enumerate(steps, 1):
        taken = dir_diagnostics(analysis, dir)
        if roots is not None or known_roots is not None:
            for d in taken:  # (before the module is released: the roots of its fields read its traces)
                _roots_of(analysis, d, places)
        found.extend(taken)
        for done in releases:
            analysis.release(done)
        if on_dir is not None:
            on_dir(i, len(dirs))
    found.extend(d for d in config_diagnostics(analysis) if shard is None or _workspace_shard(analysis, d, shard[1]) == shard[0])
    if roots is not None:
        named = set(files)
        found = [d for d in found if d.file in named or wanted & set(_roots_of(analysis, d, places))]
    if known_roots is not None:
        for d in found:
            _roots_of(analysis, d, places)
    # sort_key starts with the file: the order of workspace_diagnostics (grouped by file, each group sorted).
    return sorted(found, key=sort_key)


def _roots_of(analysis: Analysis, d: Diagnostic, places: dict[RootsKey, list[str]]) -> list[str]:
    key = roots_key(d)
    known = places.get(key)
    if known is None:
        known = places[key] = diagnostic_roots(analysis, *key)
    return known


def batch_schedule(analysis: Analysis, dirs: list[str]) -> list[tuple[str, list[str]]]:
    """``dirs`` in the order a batch check analyses them, each with the module directories to
    release once its diagnostics are taken (``Snapshot.release``).

    Depth first from the roots (sorted, calls by name), then from the modules no root reaches; a
    module is released once its whole subtree is analysed. A module's traces read its callers'
    arguments, variables and locals up to the root, call path by call path, and its callees'
    outputs: all of them are held while it is analysed. What a later module reads of a released
    one (a sibling's output passed through a caller's argument) is derived again when read: a
    few expressions, against holding every module of the largest subtree until its end
    (measured at 2,000 modules: releasing a module only once its callers' subtrees were done
    held 10 MiB more at the peak, for more CPU). The order decides what is held when, not what
    is reported (tests/workspace/test_batch_check.py)."""
    children: dict[str, list[str]] = {}
    for (caller, _), target in sorted(analysis.tree.targets.items()):
        if target.dir is not None and target.dir != caller and target.dir not in children.setdefault(caller, []):
            children[caller].append(target.dir)
    wanted = set(dirs)
    steps: list[tuple[str, list[str]]] = []
    before: list[str] = []  # released before any module is analysed (none wanted yet): after the first
    seen: set[str] = set()
    for start in list(analysis.tree.roots) + sorted(analysis.modules) + dirs:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(children.get(start, ())))]
        if start in wanted:
            steps.append((start, before))
            before = []
        while stack:
            dir, rest = stack[-1]
            child = next(rest, None)
            if child is None:  # its subtree is analysed
                stack.pop()
                (steps[-1][1] if steps else before).append(dir)
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(children.get(child, ()))))
                if child in wanted:
                    steps.append((child, before))
                    before = []
    return steps


def selected_roots(analysis: Analysis, paths: Iterable[tuple[str, bool]]) -> set[str]:
    """The union of ``roots_for_path`` over (path, is_file) pairs."""
    found: set[str] = set()
    for path, is_file in paths:
        found |= roots_for_path(analysis, path, is_file)
    return found
