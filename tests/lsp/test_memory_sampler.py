"""The debug-only memory sampler (``TFPHI_MEMORY_SAMPLE``): off unless asked, and its line reads
the server's parts without failing (a debugging aid never takes the server down)."""

from __future__ import annotations

import re

from tfphi.lsp.main import create_server
from tfphi.lsp.memory_sampler import ENV, sample_line, server_sizes, start_from_environment


def test_off_unless_the_environment_asks(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert start_from_environment() is None
    for bad in ("", "0", "-3", "soon"):
        monkeypatch.setenv(ENV, bad)
        assert start_from_environment() is None


def test_a_line_splits_the_memory_and_names_the_server_s_tables():
    server = create_server()
    line = sample_line(lambda: server_sizes(server))
    assert re.match(r"rss=[\d.]+ heap=[\d.]+ anon=[\d.]+ file=[\d.]+ \| py: blocks=\d+ arenas=\d+ \(ever \d+, highest \d+\) used=[\d.]+ "
                    r"free_in_pools=[\d.]+ empty_pools=[\d.]+ \| c: brk\+arenas=[\d.]+ mmap=[\d.]+ inuse=[\d.]+ "
                    r"free=[\d.]+ malloc_arenas=\d+ \| gc=\d+ \| ", line), line
    assert " docs._docs=0 " in line and " protocol._request_futures=0 " in line and "docs.bytes=0" in line
