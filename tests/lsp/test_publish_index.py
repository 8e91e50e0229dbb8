"""The publisher's index of the files each module's published diagnostics point into: after any
sequence of publications, the directories it names for some files are exactly those whose last
published diagnostics (their own files and their related locations) point into one of them."""

from __future__ import annotations

import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st
from pygls.uris import from_fs_path

from tfphi.diagnostics import Diagnostic, Related
from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.workspace import LiveWorkspace
from tfphi.syntax.expr import Span

DIRS = ["", "envs/prod", "modules/db", "modules/cache"]
FILES = [f"{dir}/main.tf".lstrip("/") for dir in DIRS] + ["modules/db/outputs.tf"]


def _diagnostics(dir: str, related: set[str], count: int) -> list[Diagnostic]:
    own = f"{dir}/main.tf".lstrip("/")
    return [Diagnostic(own, Span(own, n, n + 1), "error", "undefined-reference", f"finding {n}",
                       tuple(Related(Span(file, 0, 1), "declared here") for file in sorted(related)))
            for n in range(count)]


@settings(max_examples=60, deadline=None)
@given(publications=st.lists(st.tuples(st.sampled_from(DIRS), st.sets(st.sampled_from(FILES), max_size=3),
                                       st.integers(min_value=0, max_value=2)), max_size=12),
       asked=st.sets(st.sampled_from(FILES)))
def test_the_directories_pointing_into_files_are_those_whose_last_diagnostics_do(publications, asked):
    with tempfile.TemporaryDirectory() as root:
        ws = LiveWorkspace("utf-16")
        folder = ws.add_folder(from_fs_path(root), "ws")
        publisher = DiagnosticPublisher(ws, lambda uri, version, items: None)
        last: dict[str, set[str]] = {}
        for dir, related, count in publications:
            diags = _diagnostics(dir, related, count)
            publisher.publish_dir(folder, dir, diags, set())
            last[dir] = {d.file for d in diags} | {r.span.file for d in diags for r in d.related}
        expected = {dir for dir, files in last.items() if files & asked}
        assert publisher.dirs_pointing_into(folder, asked) == expected
