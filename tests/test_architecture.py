"""ARCHITECTURE.md's invariants, enforced on the source (read with ``ast``, nothing imported).

- Only ``tfphi.lsp`` imports pygls or lsprotocol.
- The analysis core does no I/O: no file-system, process, network or temporary-file module,
  no ``open()``; it never imports the layers above it (``lsp``, ``cli``, ``loader``).
- ``features`` never imports ``AnalysisHost``: features read snapshots. (``specialize`` builds
  a separate what-if host for the specialized files; it never changes the live one.)
"""

from __future__ import annotations

import ast
import functools
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


@functools.cache
def modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return found


def _source(module_name: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` reads (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module_name.split(".")
    is_package = (PACKAGE.parent / Path(*package) / "__init__.py").exists()
    base = package if is_package else package[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(module_name: str, tree: ast.AST) -> set[str]:
    """Absolute names of everything a module imports (relative imports resolved)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            prefix = _source(module_name, node)
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
# package of its own layer; function-local imports and ``if TYPE_CHECKING:`` imports count too.
LAYERS = (
    ("records", "lazy_re", "tables", "__version__"),
    ("values",),
    ("text", "addrs"),
    ("syntax",),
    ("diagnostics", "evaluate"),
    ("config",),
    ("config_schema",),
    ("stir",),
    ("trace",),
    ("retention", "cancellation"),
    ("analysis",),
    ("features",),
    ("specialize",),
    ("field_lookup", "diagnostic_roots"),
    ("workspace_output", "check_scope"),
    ("output", "loader"),
    ("api", "lsp"),
    ("cli",),
    ("__main__",),
)


def _top(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _own_imports(name: str, tree: ast.Module) -> set[str]:
    """What a module imports of tfphi (``tfphi.x...``), leaving out the package ``tfphi`` itself."""
    return {i for i in imports(name, tree) if i.startswith("tfphi.")}


def test_every_import_goes_down_the_layers():
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    unplaced, wrong = set(), {}
    for name, tree in modules().items():
        here = _top(name)
        for imported in _own_imports(name, tree):
            there = _top(imported)
            if there == here:
                continue
            if here not in rank or there not in rank:
                unplaced.add(here if here not in rank else there)
            elif rank[there] >= rank[here]:
                wrong.setdefault(f"{here} -> {there}", set()).add(name)
    assert unplaced == set(), "place every top-level module in LAYERS"
    assert wrong == {}


def _package_of(name: str) -> str:
    """The unit of the cycle test: a package (``tfphi.lsp.handlers``) or a top-level module."""
    path = PACKAGE.parent / Path(*name.split("."))
    if (path / "__init__.py").exists():
        return name
    parent = name.rsplit(".", 1)[0]
    return name if parent == "tfphi" else parent


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_packages_or_top_level_modules():
    """Packages (``lsp.handlers`` and ``lsp`` are two) and top-level modules import each other in
    one direction only; modules inside one package may still use each other, and a subpackage
    its package's modules (``lsp.handlers`` reads ``lsp.server``; ``lsp.main`` registers them)."""
    names = modules()
    graph: dict[str, set[str]] = {}
    for name, tree in names.items():
        here = _package_of(name)
        for imported in _own_imports(name, tree):
            target = imported if imported in names else imported.rsplit(".", 1)[0]
            if target not in names:
                continue
            there = _package_of(target)
            if there != here and not here.startswith(there + "."):  # a package's modules may read its __init__
                graph.setdefault(here, set()).add(there)
    assert _cycles(graph) == []


def test_no_module_imports_another_modules_private_names():
    """``from x import _y`` (or ``x._y``) reaches into another module: what is shared is public."""
    offenders = []
    for name, tree in modules().items():
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _source(name, node)
                if not source.startswith("tfphi"):
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        offenders.append(f"{name}: from {source} import {alias.name}")
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("tfphi"):
                        aliases[alias.asname or alias.name.split(".")[0]] = alias.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__") and aliases[node.value.id] in modules()):
                offenders.append(f"{name}: {node.value.id}.{node.attr}")
    assert sorted(set(offenders)) == []


def _function_local_imports(tree: ast.Module, name: str) -> list[tuple[int, str]]:
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in fn.body:
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        own = sorted(i for i in _own_imports(name, inner) if i.count(".") >= 1)
                        if own:  # the module imported (``from . import m`` names the package and m)
                            found.append((inner.lineno, max(own, key=lambda i: (i in modules(), len(i)))))
    return sorted(set(found))


# The function-local imports of tfphi modules outside cli.py (module, imported module), each one
# a start-up boundary a small ``tfphi check`` must not cross (tests/core/test_cli_fast_path.py,
# NOT_FOR_A_CHECK); the import says why where it stands. The list may only shrink.
LOCAL_IMPORTS_ALLOWED = {
    ("tfphi.analysis", "tfphi.config_schema"),  # cattrs: only for a workspace with a .tfphi.toml
    ("tfphi.analysis", "tfphi.syntax.jsonfile"),  # only for files in Terraform's JSON syntax
    ("tfphi.trace.tracer", "tfphi.trace.strategies"),  # the function library: once a call is traced
    ("tfphi.stir.terragrunt", "tfphi.evaluate.functions.registry"),  # the same, once a Terragrunt file calls one
    ("tfphi.syntax.error_shapes", "tfphi.syntax.syntax_errors"),  # syntax_errors: the first file its pre-check flags
}


def test_function_local_imports_only_in_the_command_line():
    """The command line loads what a command alone needs; elsewhere an import inside a function
    hides an edge from readers (and from the layering above): it needs a reason and a place here."""
    found = set()
    for name, tree in modules().items():
        if name == "tfphi.cli":
            continue
        for _, imported in _function_local_imports(tree, name):
            found.add((name, _module_of(imported)))
    assert found == LOCAL_IMPORTS_ALLOWED


def _module_of(imported: str) -> str:
    names = modules()
    return imported if imported in names else imported.rsplit(".", 1)[0]


def test_every_function_local_import_in_the_command_line_says_why():
    """On its line, or in a comment right above the group of imports it belongs to."""
    lines = (PACKAGE / "cli.py").read_text(encoding="utf-8").splitlines()
    silent = []
    for line, _ in _function_local_imports(ast.parse("\n".join(lines)), "tfphi.cli"):
        above = line - 2
        while above >= 0 and lines[above].lstrip().startswith(("from ", "import ")) and "#" not in lines[above]:
            above -= 1
        if "#" not in lines[line - 1] and not (above >= 0 and "#" in lines[above]):
            silent.append(line)
    assert silent == []


def test_no_module_over_a_thousand_lines():
    long = {str(path.relative_to(PACKAGE)): n for path in PACKAGE.rglob("*.py")
            if (n := path.read_text(encoding="utf-8").count("\n")) > 1000}
    assert long == {}


def _table_rows() -> list[str]:
    """The modules cell of each row of ARCHITECTURE.md's layer table, bottom first."""
    text = (PACKAGE.parents[1] / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text[text.index("## Layers"):].split("\n\n")[1]
    return [line.split("|")[2] for line in table.splitlines()[2:]]


def test_architecture_md_places_every_module_in_the_layers_of_the_test():
    """The table a reader sees is the one the layering test enforces: its rows name the same
    top-level modules and packages in the same order, and each package's row lists its modules."""
    import re

    rows, listed = [], {}
    for cell in _table_rows():
        row = set()
        for name, inner in re.findall(r"`(\w+)/` \(([^()]*(?:\([^()]*\)[^()]*)*)\)", cell):
            row.add(name)
            listed[name] = set(re.findall(r"`(\w+/?)`", re.sub(r"\([^()]*\)", "", inner)))
        row |= {name for name in re.findall(r"`(\w+)(?:\.py)?`", re.sub(r"`\w+/` \(([^()]*(?:\([^()]*\)[^()]*)*)\)", "", cell))}
        rows.append(row)
    flat = [set(layer) for layer in LAYERS]
    merged = []  # a table row may hold consecutive rows of LAYERS ("then")
    for row in rows:
        taken = set()
        while flat and flat[0] <= row - taken:
            taken |= flat.pop(0)
        merged.append(taken == row)
    assert all(merged) and not flat
    for package, names in listed.items():
        here = PACKAGE / package
        actual = {p.stem for p in here.glob("*.py") if p.name != "__init__.py"}
        actual |= {f"{p.parent.name}/" for p in here.glob("*/__init__.py")}
        assert names == actual, package

