"""Data-driven fixtures for the core tests (rust-analyzer style).

A fixture is one text holding several files; a line ``#- path`` starts a file::

    #- main.tf
    variable "x" { default = "a" }
    #- modules/db/main.tf
    ...

``trace`` / ``check_trace`` trace one address and compare a compact rendering with an
expected string kept inline in the test; ``diagnostics`` / ``check_diagnostics`` do the same
for the diagnostics of the whole workspace.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tfphi.analysis import Analysis, AnalysisHost
from tfphi.features.diagnostics import workspace_diagnostics
from tfphi.features.locations import human_range
from tfphi.trace.result import TraceResult
from tfphi.values.value import to_display


def parse_fixture(fixture: str) -> dict[str, bytes]:
    """``{path: bytes}`` of a fixture text (dedented; a single file without a header is main.tf)."""
    text = textwrap.dedent(fixture).strip("\n")
    files: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        if line.startswith("#- "):
            current = line[3:].strip()
            files[current] = []
            continue
        if current is None:
            if not line.strip():
                continue
            current = "main.tf"
            files[current] = []
        files[current].append(line)
    return {path: ("\n".join(lines).strip("\n") + "\n").encode("utf-8") for path, lines in files.items()}


def analysis_of(fixture: str | dict[str, bytes]) -> Analysis:
    files = parse_fixture(fixture) if isinstance(fixture, str) else fixture
    host = AnalysisHost()
    config = files.get(".tfphi.toml")
    if config is not None:
        host.set_source(".tfphi.toml", config)
    for path, data in files.items():
        if path != ".tfphi.toml":
            host.set_source(path, data)
    return host.snapshot()


def trace(fixture: str, address: str, universe=None) -> TraceResult:
    result = analysis_of(fixture).trace_address(address, universe)
    assert result is not None, f"{address} names no field"
    return result


def render(result: TraceResult) -> str:
    if result.kind == "unbounded":
        return f"unbounded: {result.reason}"
    lines = [result.kind]
    lines.extend(f"{to_display(b.value)} <- {b.cond}" for b in result.branches)
    return "\n".join(lines)


def check_trace(fixture: str, address: str, expected: str, universe=None) -> TraceResult:
    result = trace(fixture, address, universe)
    actual = render(result)
    assert actual == textwrap.dedent(expected).strip(), f"\n--- actual ---\n{actual}\n--- expected ---\n{textwrap.dedent(expected).strip()}"
    return result


def diagnostics(fixture: str | dict[str, bytes], analysis: Analysis | None = None) -> list[str]:
    """``file:line:col-line:col severity[code] first message line``, in output order."""
    analysis = analysis or analysis_of(fixture)
    out = []
    for items in workspace_diagnostics(analysis).values():
        for d in items:
            if d.position is not None:
                (sl, sc), (el, ec) = d.position, d.position
            else:
                (sl, sc), (el, ec) = human_range(analysis, d.span)
            out.append(f"{d.file}:{sl}:{sc}-{el}:{ec} {d.severity}[{d.code}] {d.message.splitlines()[0]}")
    return out


def check_diagnostics(fixture: str, expected: str) -> list[str]:
    actual = diagnostics(fixture)
    want = [line.strip() for line in textwrap.dedent(expected).strip().splitlines() if line.strip()]
    assert actual == want, "\n--- actual ---\n" + "\n".join(actual) + "\n--- expected ---\n" + "\n".join(want)
    return actual


def write_fixture(fixture: str | dict[str, bytes], root: Path) -> Path:
    files = parse_fixture(fixture) if isinstance(fixture, str) else fixture
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "tfphi", *args], capture_output=True, cwd=cwd, env=env, timeout=120)
