"""Fixture helpers for feature tests: multi-file fixture text in, an Analysis and a cursor out.

A fixture is source text where ``#- path.tf`` starts a file (``#- path.tf crlf`` writes it with
CRLF line endings) and ``$0`` marks the cursor. Nothing touches the disk: files go straight to
``Analysis.set_source``.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

from snapshots import check_snapshot

from tfphi.analysis import Analysis, AnalysisHost
from tfphi.features.diagnostics import Diagnostic, dir_diagnostics
from tfphi.stir.workspace import module_dir_of
from tfphi.syntax.expr import Span

CURSOR = "$0"


@dataclass(frozen=True)
class Cursor:
    path: str
    offset: int  # byte offset


def parse_fixture(text: str) -> tuple[dict[str, bytes], Cursor | None]:
    """The files of a fixture (path -> bytes) and the cursor, if one is marked."""
    text = textwrap.dedent(text).lstrip("\n")
    files: dict[str, bytes] = {}
    cursor: Cursor | None = None
    chunks: list[tuple[str, list[str], bool]] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("#- "):
            header = line[3:].split()
            chunks.append((header[0], [], "crlf" in header[1:]))
        elif chunks:
            chunks[-1][1].append(line)
        elif line.strip():
            raise ValueError("a fixture starts with a '#- path' line")
    for path, lines, crlf in chunks:
        body = "".join(lines)
        if crlf:
            body = body.replace("\r\n", "\n").replace("\n", "\r\n")
        if CURSOR in body:
            before, after = body.split(CURSOR, 1)
            assert CURSOR not in after, "one cursor per fixture"
            cursor = Cursor(path, len(before.encode("utf-8")))
            body = before + after
        files[path] = body.encode("utf-8")
    return files, cursor


def analysis_of(files: dict[str, bytes]) -> Analysis:
    host = AnalysisHost()
    for path, data in files.items():
        host.set_source(path, data)
    return host.snapshot()


def load(text: str) -> tuple[Analysis, Cursor | None, dict[str, bytes]]:
    """The analysis of a fixture, its cursor and its files."""
    files, cursor = parse_fixture(text)
    return analysis_of(files), cursor, files


def span_text(files: dict[str, bytes], span: Span) -> str:
    return files[span.file][span.start : span.end].decode("utf-8")


def unbounded_diagnostics(analysis: Analysis, dir: str) -> list[Diagnostic]:
    return [d for d in dir_diagnostics(analysis, dir) if d.code == "unbounded-field"]


def apply_edits(files: dict[str, bytes], edits) -> dict[str, bytes]:
    """The files after applying text edits (byte spans), last edit first within a file."""
    out = dict(files)
    for edit in sorted(edits, key=lambda e: (e.file, e.span.start), reverse=True):
        data = out[edit.file]
        out[edit.file] = data[: edit.span.start] + edit.new_text.encode("utf-8") + data[edit.span.end :]
    return out


def field_dir(cursor: Cursor) -> str:
    return module_dir_of(cursor.path)


# ---- whole-output snapshots (expect-test style) ------------------------------------------------

SNAPSHOTS = os.path.join(os.path.dirname(__file__), "snapshots")


def expect_snapshot(kind: str, actual: str) -> None:
    """Compares ``actual`` with ``snapshots/<kind>/<test>[-n].md`` as a whole.

    The name comes from the running test (a test that checks several outputs gets -2, -3...).
    ``TFPHI_UPDATE_SNAPSHOTS=1 pytest ...`` rewrites the files instead (``snapshots.check_snapshot``).
    """
    test = os.environ.get("PYTEST_CURRENT_TEST", "unknown").split("::")[-1].split(" ")[0]
    test = test.replace("[", "-").replace("]", "").replace("/", "_")
    seen = _SNAPSHOT_COUNTS.get(test, 0) + 1
    _SNAPSHOT_COUNTS[test] = seen
    name = test.removeprefix("test_") + (f"-{seen}" if seen > 1 else "")
    path = os.path.join(SNAPSHOTS, kind, name + ".md")
    text = actual.rstrip("\n") + "\n"
    check_snapshot(Path(path), text)


_SNAPSHOT_COUNTS: dict[str, int] = {}
