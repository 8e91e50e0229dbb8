"""Root configurations (SPEC section 2): which module directories a workspace's local sources
reach, which directories are roots, and how a path relative to DIR reads from a root.

Pure: module directories are POSIX paths relative to DIR (the directory tfphi was given, or
the editor's folder), ``""`` for DIR itself. A local source (``./``, ``../``) may lead out of
DIR, as Terraform follows it: such a module keeps a path that climbs out of DIR
(``../modules/db``), and so do its files (``../modules/db/main.tf``). The loader reads the
directories ``missing_local_targets`` names, then asks again, until nothing is missing.
"""

from __future__ import annotations

import posixpath
from typing import Iterable, Mapping

from ..addrs import ModuleCall
from .model import Module
from .workspace import CallPath, ModuleTree

def is_outside(dir: str) -> bool:
    """True when a module directory lies outside DIR (reached through a ``../`` source)."""
    return dir == ".." or dir.startswith("../")


def missing_local_targets(modules: Mapping[str, Module], tree: ModuleTree, attempted: Iterable[str] = (),
                          deployed: Iterable[str] = ()) -> list[str]:
    """Directories outside DIR that a local module source calls, or a Terragrunt unit deploys
    (``deployed``), not loaded nor tried yet.

    Directories inside DIR are the walker's: it has read every module there it may read.
    ``tree``: the module tree of ``modules``, which keeps the calls leading outside DIR
    (``ModuleTree.outside``): a keystroke that renames a call of a root of 200 calls looks at
    those calls, not at the 1,000 modules' calls.
    """
    done = set(attempted)
    wanted: set[str] = {d for d in deployed if is_outside(d) and d not in modules and d not in done}
    for target in tree.outside.values():
        if target not in modules and target not in done:
            wanted.add(target)
    return sorted(wanted)


def display_dir(dir: str) -> str:
    """A module directory as people read it: ``.`` for DIR itself."""
    return dir or "."


def roots_reaching(tree: ModuleTree, dir: str) -> tuple[str, ...]:
    """The roots whose configuration contains the module in ``dir``, sorted."""
    if dir in tree.roots:
        found = {dir}
    else:
        found = set()
    found |= {path[0][1] for path in tree.call_paths(dir)}
    return tuple(sorted(found))


def path_root(path: CallPath) -> str:
    """The root module directory a call path starts from."""
    return path[0][1]


def describe_call_path(path: CallPath) -> str:
    """``module.db -> module.db_instance``, then ``, from the root module examples/complete-mysql``
    when the root is not DIR itself (several roots can have a ``module.db``)."""
    calls = " -> ".join(str(ModuleCall(call)) for call, _ in path[1:]) or "the root module"
    root = path_root(path)
    return f"{calls}, from the root module {root}" if root else calls


def relative_to_root(path: str, root: str) -> str:
    """A path relative to DIR, re-read from the root module's directory (``../`` above it)."""
    if not root:
        return path
    return posixpath.relpath(path, root)


def join_dir(base: str, rel: str) -> str:
    """``base`` (a path relative to the current directory, as given) joined with a path relative
    to it, normalized: ``examples`` + ``complete-mysql`` is ``examples/complete-mysql``."""
    joined = posixpath.normpath(posixpath.join(base or ".", rel or "."))
    return joined
