"""What a batch check pays per file and at its end, without changing what it reads or reports
(bench/README.md, "Issue 23: the cold check, session 15 (helper check7)"):

- ``loader.read_bytes`` asks a file for its size, not for the whole limit: reading ``limit + 1``
  bytes made Python allocate the whole limit (2 MiB) for every file, 17 us a file against 5.
  It still reads exactly what ``read(limit + 1)`` read, whatever the file is.
- ``cli.entry`` keeps what a batch command made referenced until ``os._exit``: when
  ``run_check`` returned, the whole analysis was freed object by object for nothing.
"""

from __future__ import annotations

import gc
import os
import threading
import tracemalloc
import weakref

import pytest

from tfphi import cli, loader

LIMIT = 2 * 1024 * 1024


def _oracle(path, limit: int) -> bytes:
    with open(path, "rb") as handle:  # what read_bytes read before session 15
        return handle.read(limit + 1)


@pytest.mark.parametrize("size", [0, 1, 4095, 65_537, LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + 70_000])
def test_a_regular_file_reads_what_reading_limit_plus_one_bytes_read(tmp_path, size):
    path = tmp_path / "main.tf"
    path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
    data = loader.read_bytes(path, LIMIT)
    assert data == _oracle(path, LIMIT)
    assert len(data) == min(size, LIMIT + 1)


def test_a_file_without_a_size_is_read_on_up_to_the_limit():
    """``/proc`` files say they are empty and are not: read on past the size stat gives."""
    assert os.stat("/proc/self/maps").st_size == 0
    for limit in (10, 100_000):
        data = loader.read_bytes("/proc/self/maps", limit)
        assert 0 < len(data) <= limit + 1
        if limit == 10:
            assert len(data) == 11  # (the maps of a Python process are longer than 11 bytes)


def test_a_pipe_is_read_in_pieces_up_to_the_limit(tmp_path):
    fifo = tmp_path / "pipe.tf"
    os.mkfifo(fifo)
    payload = b"a" * 200_000  # more than one piece of 64 KiB, more than the limit below

    def write():
        fd = os.open(fifo, os.O_WRONLY)
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view):]
        except BrokenPipeError:
            pass  # the reader stopped at its limit
        finally:
            os.close(fd)

    writer = threading.Thread(target=write)
    writer.start()
    data = loader.read_bytes(fifo, 150_000)
    writer.join(10)
    assert data == payload[:150_001]


def test_a_directory_is_an_error_as_before(tmp_path):
    with pytest.raises(IsADirectoryError):
        loader.read_bytes(tmp_path, LIMIT)


def test_reading_a_small_file_does_not_allocate_the_limit(tmp_path):
    """Fails on ``open(path, "rb").read(limit + 1)``: 2 MiB allocated for 100 bytes."""
    path = tmp_path / "main.tf"
    path.write_bytes(b'variable "x" {}\n' * 6)
    loader.read_bytes(path, LIMIT)  # (the first call's one-off allocations out of the way)
    tracemalloc.start()
    try:
        loader.read_bytes(path, LIMIT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024


def _workspace(root):
    (root / "main.tf").write_text('module "a" {\n  source = "./a"\n  x      = var.y\n}\n')
    (root / "a").mkdir()
    (root / "a" / "main.tf").write_text('variable "x" {}\nresource "aws_db_instance" "d" {\n  engine = var.x\n}\n'
                                        'output "o" { value = var.missing }\n')


def test_a_batch_check_keeps_what_it_made_for_the_exit(tmp_path, monkeypatch, capsys):
    """``main(argv, kept)``: the analysis and the diagnostics are still referenced after the
    command returned (freed by the process's exit, not object by object); without ``kept`` they
    are not kept."""
    _workspace(tmp_path)
    made = []
    load = cli.load_workspace

    def recording(*args, **kwargs):
        analysis = load(*args, **kwargs)
        made.append(weakref.ref(analysis))
        return analysis

    monkeypatch.setattr(cli, "load_workspace", recording)
    kept: list[object] = []
    assert cli.main(["check", str(tmp_path), "--format", "json", "--fail-on", "never"], kept) == 0
    gc.collect()
    analysis = made[0]()
    assert analysis is not None and kept[0] is analysis
    assert [d.code for d in kept[1]] == ["undefined-reference", "undefined-reference"]
    assert len(kept) == 2
    kept.clear()
    del analysis
    gc.collect()
    assert made[0]() is None  # (nothing else held it)
    capsys.readouterr()


@pytest.mark.parametrize("command", ["check", "trace", "specialize"])
def test_the_console_script_hands_a_batch_command_a_list_to_keep(tmp_path, monkeypatch, command):
    """``entry`` gives every batch command the list and exits without freeing it; ``serve`` none."""
    seen = []
    monkeypatch.setattr(cli.sys, "argv", ["tfphi", command, str(tmp_path)])
    monkeypatch.setattr(cli, "main", lambda argv, kept=None: seen.append(kept) or 0)

    class Exited(Exception):
        pass

    def exit_now(code):
        raise Exited(code)

    monkeypatch.setattr(cli.os, "_exit", exit_now)
    monkeypatch.setattr(cli.gc, "disable", lambda: None)  # (the test session keeps its collector)
    with pytest.raises(Exited):
        cli.entry()
    assert seen == [[]]


def test_serve_is_handed_nothing_to_keep(monkeypatch):
    seen = []
    monkeypatch.setattr(cli.sys, "argv", ["tfphi", "serve"])
    monkeypatch.setattr(cli, "main", lambda argv, kept=None: seen.append(kept) or 0)
    with pytest.raises(SystemExit):
        cli.entry()
    assert seen == [None]
