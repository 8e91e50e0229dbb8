"""ARCHITECTURE.md's invariants, enforced on the source (read with ``ast``, nothing imported).

- Only ``tfphi.lsp`` imports pygls or lsprotocol.
- The analysis core does no I/O: no file-system, process, network or temporary-file module,
  no ``open()``; it never imports the layers above it (``lsp``, ``cli``, ``loader``).
- ``features`` never imports ``AnalysisHost``: features read snapshots. (``specialize`` builds
  a separate what-if host for the specialized files; it never changes the live one.)
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "tfphi"

CORE = ("syntax", "stir", "evaluate", "trace", "addrs", "analysis", "features", "specialize", "text", "config", "config_schema", "records", "values", "diagnostics")
ABOVE_CORE = ("tfphi.lsp", "tfphi.cli", "tfphi.loader", "tfphi.api", "tfphi.output", "tfphi.check_scope")
# Modules of the I/O layer that live beside the core they serve: ``specialize --out`` writes files,
# (``check``'s formats, ``tfphi.output``, find the repository root on disk for their paths: above the core.)
IO_LAYER = ("tfphi.specialize.outdir",)
LSP_LIBRARIES = ("pygls", "lsprotocol")
IO_MODULES = ("os", "pathlib", "subprocess", "socket", "shutil", "glob", "tempfile", "urllib", "http", "asyncio", "select")

# Exceptions to "the core does no I/O" (none: the functions that read files trace to Unbounded).
KNOWN_IO: dict[str, set[str]] = {}


def modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return found


def imports(module_name: str, tree: ast.Module) -> set[str]:
    """Absolute names of everything a module imports (relative imports resolved)."""
    package = module_name.split(".")
    is_package = (PACKAGE.parent / Path(*package) / "__init__.py").exists()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package if is_package else package[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.add(prefix)
            names.update(f"{prefix}.{alias.name}" for alias in node.names)
    return names


def is_core(name: str) -> bool:
    if name in IO_LAYER:
        return False
    parts = name.split(".")
    return len(parts) >= 2 and parts[0] == "tfphi" and parts[1] in CORE


def starts(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_only_lsp_imports_pygls_and_lsprotocol():
    offenders = {
        name: sorted(i for i in imports(name, tree) if starts(i, LSP_LIBRARIES))
        for name, tree in modules().items()
        if not starts(name, ("tfphi.lsp",))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_core_does_no_io_and_never_imports_the_layers_above_it():
    io: dict[str, set[str]] = {}
    upward: dict[str, list[str]] = {}
    for name, tree in modules().items():
        if not is_core(name):
            continue
        found = {f"import {i}" for i in imports(name, tree) if i.split(".")[0] in IO_MODULES and "." not in i}
        found |= {"open()" for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open"}
        if found:
            io[name] = found
        up = sorted(i for i in imports(name, tree) if starts(i, ABOVE_CORE))
        if up:
            upward[name] = up
    assert io == KNOWN_IO
    assert upward == {}


def test_features_read_snapshots_not_the_host():
    users = sorted(
        name for name, tree in modules().items()
        if starts(name, ("tfphi.features",)) and any(i.endswith(".AnalysisHost") for i in imports(name, tree))
    )
    assert users == []


def test_the_layers_listed_exist():
    names = modules()
    assert "tfphi.analysis" in names and "tfphi.lsp.server" in names and "tfphi.loader" in names
    assert any(is_core(n) for n in names)


def test_values_is_the_bottom_layer_and_evaluate_sits_below_the_tracer():
    """``values`` imports nothing of tfphi but records and lazy_re; ``evaluate`` nothing above syntax."""
    allowed_by_values = ("tfphi.values", "tfphi.records", "tfphi.lazy_re")
    below_trace = ("tfphi.values", "tfphi.records", "tfphi.lazy_re", "tfphi.text", "tfphi.syntax", "tfphi.evaluate")
    offenders = {}
    for name, tree in modules().items():
        allowed = allowed_by_values if starts(name, ("tfphi.values",)) else below_trace if starts(name, ("tfphi.evaluate",)) else None
        if allowed is None:
            continue
        bad = sorted(i for i in imports(name, tree) if i.startswith("tfphi.") and not starts(i, allowed))
        if bad:
            offenders[name] = bad
    assert offenders == {}


# Every top-level package or module of tfphi in one layer, bottom first (ARCHITECTURE.md's table).
# A module imports its own package and the layers below its own, never a layer above nor another
# package of its own layer; function-local imports count too.
LAYERS = (
    ("records", "lazy_re", "__version__"),
    ("values",),
    ("text", "addrs"),
    ("syntax",),
    ("diagnostics", "evaluate"),
    ("config", "config_schema"),
    ("stir",),
    ("trace",),
    ("analysis",),
    ("features", "specialize"),
    ("field_lookup", "diagnostic_roots"),
    ("workspace_output", "check_scope"),
    ("output", "loader"),
    ("api", "lsp"),
    ("cli",),
    ("__main__",),
)
# Arrows that break the order today, each a debt ARCHITECTURE.md names (importer, imported): the
# settings decoder and its records import each other; features and the specializer use each
# other (code lenses and diagnostics preview a specialization; the specializer reads fixes);
# stir.deployments reads the snapshot's tables. Nothing may be added to this list.
KNOWN_UPWARD = {
    ("config", "config_schema"), ("config_schema", "config"),
    ("features", "specialize"), ("specialize", "features"),
    ("stir", "analysis"),
}


def _top(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_every_import_goes_down_the_layers():
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    unplaced, wrong = set(), {}
    for name, tree in modules().items():
        here = _top(name)
        for imported in imports(name, tree):
            if not imported.startswith("tfphi.") or imported.count(".") < 1:
                continue
            there = _top(imported)
            if there == here:
                continue
            if here not in rank or there not in rank:
                unplaced.add(here if here not in rank else there)
            elif rank[there] >= rank[here] and (here, there) not in KNOWN_UPWARD:
                wrong.setdefault(f"{here} -> {there}", set()).add(name)
    assert unplaced == set(), "place every top-level module in LAYERS"
    assert wrong == {}


def test_the_known_upward_arrows_still_exist():
    """A debt paid is taken off KNOWN_UPWARD (the list only shrinks)."""
    found = set()
    for name, tree in modules().items():
        for imported in imports(name, tree):
            if imported.startswith("tfphi.") and imported.count(".") >= 1 and _top(imported) != _top(name):
                found.add((_top(name), _top(imported)))
    assert KNOWN_UPWARD <= found
