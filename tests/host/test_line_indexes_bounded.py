"""The line indexes an editor's host keeps are bounded: those of the files asked about most
recently, at most ``LineIndexes.BOUND``, whatever answers pointed into before.

Issue 23's soak found the host's line indexes filling towards the whole workspace (143 -> 286
of 3,000 files in 4 minutes at 1,000 modules, 6.4 MiB for all of them): each publish of a
module's diagnostics and each location an answer points at asked for one, and each was kept
while its file was unchanged (docs/memory.md, "Where the resident memory is").
"""

from __future__ import annotations

from tfphi.analysis import AnalysisHost, SetSource
from tfphi.retention import LineIndexes
from tfphi.text import LineIndex


def _files(n: int) -> dict[str, bytes]:
    return {f"modules/m{i}/main.tf": f'variable "v{i}" {{\n  default = "{i}"\n}}\n'.encode() for i in range(n)}


def test_the_host_keeps_the_line_indexes_asked_about_last_and_no_more():
    files = _files(LineIndexes.BOUND + 40)
    host = AnalysisHost()
    host.apply_change([SetSource(path, source) for path, source in files.items()])
    snapshot = host.snapshot()
    for path, source in files.items():
        index = snapshot.line_index(path)
        fresh = LineIndex(source)
        assert [index.position(offset, "utf-16") for offset in range(len(source) + 1)] == \
            [fresh.position(offset, "utf-16") for offset in range(len(source) + 1)]
    assert list(host._line_indexes) == list(files)[-LineIndexes.BOUND:]
    first_kept = list(files)[-LineIndexes.BOUND]
    assert snapshot.line_index(first_kept) is host._line_indexes.get(first_kept)[1]  # kept: the same index
    assert list(host._line_indexes)[-1] == first_kept  # ...and asked about last now


def test_a_bounded_cache_evicts_the_oldest():
    kept = LineIndexes(2)
    for path in ("a", "b", "c"):
        kept[path] = (path.encode(), LineIndex(path.encode()))
    assert list(kept) == ["b", "c"]
    kept.get("b")
    kept["d"] = (b"d", LineIndex(b"d"))
    assert list(kept) == ["b", "d"] and "c" not in kept and len(kept) == 2
