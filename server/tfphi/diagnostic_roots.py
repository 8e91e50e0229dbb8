"""Which root configurations a diagnostic holds in (``roots`` in ``check --format json``).

A module reached from several roots gets one diagnostic per place, not one per root (SPEC
section 1): its ``roots`` lists every root in whose configuration the finding holds. For a
field the tracer finds Unbounded, that is the roots of the call paths where it is Unbounded
(the same field can be decided in one root and open in another); for everything else about a
module's text, every root that reaches the module. A variable file belongs to the root whose
deployments it holds; ``.tfphi.toml`` and manifests to every root.

Pure: reads an ``Analysis``.
"""

from __future__ import annotations

import posixpath

from .analysis import Analysis, file_kind
from .stir.deployments import is_variable_file, owning_root
from .stir.roots import display_dir
from .trace.result import UNBOUNDED


def diagnostic_roots(analysis: Analysis, file: str, code: str, span_start: int, span_end: int) -> list[str]:
    """The roots (as ``display_dir`` prints them) in which a diagnostic on ``file`` holds, sorted."""
    tree = analysis.tree
    dir = posixpath.dirname(file)
    kind = file_kind(file)
    if kind in ("tf", None) and (dir in analysis.modules or file in analysis.problems):
        if code == "unbounded-field":
            found = {
                t.result.call_path[0][1]
                for t in analysis.field_traces(dir)
                if t.result.kind == UNBOUNDED and t.result.expr_span is not None
                and (t.result.expr_span.file, t.result.expr_span.start, t.result.expr_span.end) == (file, span_start, span_end)
                and t.result.call_path
            }
            if found:
                return sorted(display_dir(r) for r in found)
        return [display_dir(r) for r in analysis.roots_reaching(dir)]
    if kind == "terragrunt":  # a unit's diagnostic holds in the root it deploys
        return sorted({display_dir(u.module_dir) for u in analysis.units if u.path == file and u.module_dir in tree.roots})
    if is_variable_file(file):
        owner = owning_root(file, analysis.modules)
        return [display_dir(owner)] if owner is not None else []
    return [display_dir(r) for r in tree.roots]
