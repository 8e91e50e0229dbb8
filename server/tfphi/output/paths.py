"""Paths as a repository's CI sees them: relative to the enclosing git work tree.

GitHub annotations, GitLab's Code Quality report and SARIF name files relative to the
repository root (the checkout), whatever directory ``tfphi check`` was given. ``os.path``
only: pathlib is not a plain check's start-up.
"""

from __future__ import annotations

import os


def repository_root(dir: str) -> str:
    """The enclosing git work tree of ``dir`` (a ``.git`` directory or file), else ``dir`` itself (absolute, real)."""
    start = os.path.realpath(dir)
    candidate = start
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return start
        candidate = parent


def repository_path(root: str, dir: str, file: str) -> str:
    """``file`` (relative to ``dir``) as a POSIX path relative to ``root`` (``../`` when outside it)."""
    absolute = os.path.normpath(os.path.join(os.path.realpath(dir), file))
    relative = os.path.relpath(absolute, root)
    return relative.replace(os.sep, "/")
