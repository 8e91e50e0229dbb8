"""``tfphi specialize --out OUTDIR``: the whole specialized configuration on disk (SPEC section 7).

The one place the specializer writes, called only by the CLI: a copy of the root configuration
(the root module's directory and every module directory its calls reach, with everything in
them: templates, archives), each at its place below the directory OUTDIR mirrors, then every
file of the preview over it: rewritten files, generated modules, ``moved/<deployment>.tf``
and ``provenance.json``. Terraform's working data (``.terraform``, state, lock info) and version
control are left behind: OUTDIR is a configuration to init and plan, not a copy of a workspace.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .preview import Preview

# Never copied: Terraform's working directory and state, VCS data, caches the walker skips too.
SKIPPED_NAMES = {".git", ".terraform", "node_modules", ".terragrunt-cache", ".terraform.tfstate.lock.info"}
SKIPPED_PREFIXES = ("terraform.tfstate",)


class OutdirError(Exception):
    """OUTDIR cannot be written (it is not empty, or lies inside what it would copy)."""


def write_outdir(workspace: Path, preview: Preview, outdir: Path) -> list[str]:
    """Copies the configuration ``preview`` mirrors into ``outdir`` and writes its files; returns their paths."""
    target = Path(os.path.abspath(outdir))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise OutdirError(f"{outdir} exists and is not an empty directory; pass a new or empty one")
    for src_rel, dst_rel in (preview.copies or {"": ""}).items():
        source = Path(os.path.normpath(os.path.join(os.path.abspath(workspace), src_rel)))
        if target == source or source in target.parents:
            inside = target.relative_to(source).parts[0] if target != source else None
        else:
            inside = None
        shutil.copytree(source, target / dst_rel, symlinks=True, dirs_exist_ok=True, ignore=_ignore(source, inside))
    written = []
    for rel, text in preview.files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()  # never write through a link into the original workspace
        path.write_text(text, encoding="utf-8")
        written.append(rel)
    return written


def _ignore(source: Path, inside: str | None):
    def ignore(dir: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in SKIPPED_NAMES or n.startswith(SKIPPED_PREFIXES)}
        if inside is not None and Path(dir).resolve() == source:
            skipped.add(inside)  # OUTDIR inside the configuration: do not copy it into itself
        return skipped

    return ignore


def relative(path: Path) -> str:
    """``path`` as it is best printed: relative to the current directory when below it."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
