"""Every module tfphi imports is either the standard library or declared in pyproject.toml.

A fresh virtual environment gets exactly the declared distributions: an import that works only
because a package happens to be installed on the developer's machine (PyYAML for ``yamldecode``
once did) fails there. The server's imports must be in ``dependencies``; the tests' and the
benchmark's may also use the ``test`` and ``bench`` extras.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[2]


def _declared(*groups: str) -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for group in groups:
        requirements += project["optional-dependencies"][group]
    return {_normalize(re.match(r"[A-Za-z0-9_.-]+", req).group(0)) for req in requirements}


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported(paths: list[Path]) -> dict[str, str]:
    """Top-level names of absolute imports -> the first file importing each."""
    found: dict[str, str] = {}
    for path in paths:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], str(path.relative_to(REPO)))
    return found


def _undeclared(paths: list[Path], declared: set[str], local: set[str]) -> list[str]:
    distributions = metadata.packages_distributions()
    problems = []
    for name, where in sorted(_imported(paths).items()):
        if name in sys.stdlib_module_names or name in local or name == "__future__":
            continue
        dists = {_normalize(d) for d in distributions.get(name, [name])}
        if not dists & declared:
            problems.append(f"{name} (imported by {where}; distribution {sorted(dists)})")
    return problems


def test_server_imports_are_declared_dependencies():
    paths = sorted((REPO / "server").rglob("*.py"))
    assert _undeclared(paths, _declared(), {"tfphi"}) == []


# Scripts that run under another tool's interpreter, never imported by tfphi or its tests.
EXTERNAL = {
    # bench/run.py starts it with the Python that has Checkov (which pins its own python-hcl2 fork)
    "bench/checkov_render.py",
}


def test_test_and_bench_imports_are_declared():
    paths = sorted(
        p for d in ("tests", "bench") for p in (REPO / d).rglob("*.py") if str(p.relative_to(REPO)) not in EXTERNAL
    )
    local = {"tfphi"} | {p.stem for p in paths} | {p.parent.name for p in paths}
    assert _undeclared(paths, _declared("test", "bench"), local) == []


def test_yaml_is_declared():
    """The defect that started this: yamldecode needs PyYAML, and PyYAML is declared."""
    assert "pyyaml" in _declared()
