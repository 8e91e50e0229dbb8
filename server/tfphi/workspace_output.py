"""The workspace parts of the CLI's JSON (SPEC section 1): ``root`` and ``deployments`` in
``trace --json``, sources relative to the root, and ``roots`` in ``check --format json``.

The per-result JSON (branches, conditions, gates) is ``features.trace_json``'s; this module
only adds what depends on which root configuration was traced.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .analysis import Analysis
from .features.locations import human_position
from .stir.roots import relative_to_root
from .trace.result import TraceResult

if TYPE_CHECKING:
    from .field_lookup import FieldMatch  # trace's (a lower layer): check does not import it (start-up)


def root_label(dir_arg: str, root: str) -> str:
    """The root module's directory relative to the current directory (``dir_arg``: DIR as given)."""
    return os.path.relpath(os.path.join(dir_arg, root or "."))


def root_location(analysis: Analysis, span, root: str) -> str | None:
    """``file:line:column`` with the file relative to the root module (``../`` above it)."""
    if span is None:
        return None
    line, column = human_position(analysis, span.file, span.start)
    return f"{relative_to_root(span.file, root)}:{line}:{column}"


def trace_json_document(analysis: Analysis, match: FieldMatch, result: TraceResult, data: dict[str, Any], dir_arg: str,
                        deployments: list[dict[str, Any]]) -> dict[str, Any]:
    """``trace --json``: ``root`` first, sources relative to it, ``deployments`` (``field_lookup.deployments_json``) last."""
    branches = data.get("branches", [])
    for entry, branch in zip(branches, result.branches):
        entry["source"] = root_location(analysis, branch.source, match.root)
    document: dict[str, Any] = {"root": root_label(dir_arg, match.root)}
    document.update(data)
    document["deployments"] = deployments
    return document


def text_roots_line(roots: list[str]) -> list[str]:
    """The ``Roots: ...`` detail line of ``check``'s text format (``roots``: the diagnostic's, as
    ``diagnostic_roots`` gives them), when a root other than DIR is involved."""
    if not roots or roots == ["."]:
        return []
    return [f"Root{'s' if len(roots) != 1 else ''}: {', '.join(roots)}."]


def check_json_entry(entry: dict[str, Any], roots: list[str]) -> dict[str, Any]:
    """A ``check --format json`` entry with ``roots`` (the diagnostic's, as ``diagnostic_roots``
    gives them; SPEC order: ..., message, roots, related)."""
    ordered: dict[str, Any] = {}
    for key, value in entry.items():
        if key == "related":
            ordered["roots"] = roots
        ordered[key] = value
    ordered.setdefault("roots", roots)
    return ordered
