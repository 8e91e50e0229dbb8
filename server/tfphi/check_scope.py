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

import hashlib
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


def check_diagnostics(analysis: Analysis, roots: set[str] | None = None, shard: tuple[int, int] | None = None,
                      on_dir: Callable[[int, int], None] | None = None, files: Iterable[str] = ()) -> list[Diagnostic]:
    """The run's diagnostics, sorted (SPEC: file, position, code): every one when ``roots`` is
    None, else those that hold in one of ``roots`` or are on one of ``files`` (the files named on
    the command line); with ``shard``, only that shard's part.
    ``on_dir(done, total)`` is called after each directory (progress)."""
    dirs = analysis.dirs()
    if shard is not None:
        k, n = shard
        dirs = [d for d in dirs if shard_of_root(dir_owner(analysis, d), n) == k]
    if roots is not None:
        wanted = {display_dir(r) for r in roots}
        dirs = [d for d in dirs if d not in analysis.modules or set(roots_reaching(analysis.tree, d)) & roots]
    found: list[Diagnostic] = []
    for i, dir in enumerate(dirs, 1):
        found.extend(dir_diagnostics(analysis, dir))
        if on_dir is not None:
            on_dir(i, len(dirs))
    found.extend(d for d in config_diagnostics(analysis) if shard is None or _workspace_shard(analysis, d, shard[1]) == shard[0])
    if roots is not None:
        named = set(files)
        found = [d for d in found if d.file in named
                 or wanted & set(diagnostic_roots(analysis, d.file, d.code, d.span.start, d.span.end))]
    # sort_key starts with the file: the order of workspace_diagnostics (grouped by file, each group sorted).
    return sorted(found, key=sort_key)


def selected_roots(analysis: Analysis, paths: Iterable[tuple[str, bool]]) -> set[str]:
    """The union of ``roots_for_path`` over (path, is_file) pairs."""
    found: set[str] = set()
    for path, is_file in paths:
        found |= roots_for_path(analysis, path, is_file)
    return found
