"""A debug-only sampler of where the server's resident memory is: ``TFPHI_MEMORY_SAMPLE=SECONDS``.

When the server starts with that environment variable set (a number of seconds), a daemon
thread writes one line to stderr every that many seconds (docs/memory.md, "Where the resident
memory is"):

- ``rss``: the process's resident MiB, and its split by mapping (``/proc/self/smaps``): glibc's
  main heap (``heap``), anonymous mappings (``anon``: Python's object allocator's 1 MiB arenas,
  other threads' malloc arenas, large blocks glibc maps alone) and file mappings (``file``);
- ``py``: Python's object allocator: blocks in use (``sys.getallocatedblocks``), its arenas
  (``sys._debugmallocstats``: arenas held, ever allocated and the most held at once (how much
  transient peaks churn: tree-sitter allocates its trees through Python's allocator, a broken
  1,000-module root's parse 20-25 MiB of them), and the MiB of blocks in use, free in used pools
  and in empty pools, which pins an arena while a single block of it lives);
- ``c``: glibc's ``mallinfo2`` summed over its arenas: MiB taken from the system by ``brk`` and
  by ``mmap``, in use and free; and ``malloc_info``'s number of malloc arenas (one per thread
  that allocated, up to 8 per core);
- ``gc``: the objects the cycle collector tracks;
- whatever ``sizes`` returns (the host's tables and caches, by name).

Outside the analysis core and off by default: nothing reads it but a person. The thread holds
the interpreter's lock for a few milliseconds per sample (the object count for ~50 ms at 1,000
modules).
"""

from __future__ import annotations

import ctypes
import gc
import os
import re
import sys
import tempfile
import threading
import time
from typing import Callable, Mapping

ENV = "TFPHI_MEMORY_SAMPLE"
MIB = 2**20


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def start_from_environment(sizes: Callable[[], Mapping[str, int]] = dict) -> threading.Thread | None:
    """Starts the sampler when ``TFPHI_MEMORY_SAMPLE`` holds a positive number of seconds."""
    try:
        every = float(os.environ.get(ENV, ""))
    except ValueError:
        return None
    if not every > 0:
        return None
    thread = threading.Thread(target=_run, args=(every, sizes), name="tfphi-memory-sampler", daemon=True)
    thread.start()
    return thread


def _run(every: float, sizes: Callable[[], Mapping[str, int]]) -> None:
    t0 = time.monotonic()
    while True:
        time.sleep(every)
        try:
            line = sample_line(sizes)
        except Exception as exc:  # a debugging aid never takes the server down
            line = f"failed: {exc!r}"
        sys.stderr.write(f"tfphi memory t={time.monotonic() - t0:.0f}s {line}\n")
        sys.stderr.flush()


def sample_line(sizes: Callable[[], Mapping[str, int]] = dict) -> str:
    maps = mapping_split()
    py = pymalloc_stats()
    c = malloc_stats()
    parts = [
        f"rss={maps['rss']:.1f} heap={maps['heap']:.1f} anon={maps['anon']:.1f} file={maps['file']:.1f}",
        f"py: blocks={sys.getallocatedblocks()} arenas={py.get('arenas', -1)} (ever {py.get('arenas_total', -1)},"
        f" highest {py.get('highwater', -1)}) used={py.get('used', -1):.1f}"
        f" free_in_pools={py.get('free', -1):.1f} empty_pools={py.get('empty', -1):.1f}",
        f"c: brk+arenas={c.get('arena', -1):.1f} mmap={c.get('mmap', -1):.1f} inuse={c.get('inuse', -1):.1f}"
        f" free={c.get('free', -1):.1f} malloc_arenas={c.get('heaps', -1)}",
        f"gc={len(gc.get_objects())}",
    ]
    extra = sizes()
    if extra:
        parts.append(" ".join(f"{name}={value}" for name, value in extra.items()))
    return " | ".join(parts)


def mapping_split() -> dict[str, float]:
    """Resident MiB by kind of mapping (``/proc/self/smaps``)."""
    out = {"rss": 0.0, "heap": 0.0, "anon": 0.0, "file": 0.0}
    kind = "anon"
    try:
        with open("/proc/self/smaps") as smaps:
            for line in smaps:
                if line[0] in "0123456789abcdef" and "-" in line.split(" ", 1)[0]:
                    fields = line.split()
                    name = fields[5] if len(fields) > 5 else ""
                    kind = "heap" if name == "[heap]" else "file" if name.startswith("/") else "anon"
                elif line.startswith("Rss:"):
                    mib = int(line.split()[1]) / 1024
                    out[kind] += mib
                    out["rss"] += mib
    except OSError:
        pass
    return out


def pymalloc_stats() -> dict[str, float]:
    """Python's object allocator, read from ``sys._debugmallocstats`` (which writes to file
    descriptor 2: redirected to a temporary file for the call)."""
    text = _captured_fd2(sys._debugmallocstats)
    stats: dict[str, float] = {}
    for key, pattern in (("arenas", r"# arenas allocated current\s*=\s*([\d,]+)"),
                         ("arenas_total", r"# arenas allocated total\s*=\s*([\d,]+)"),
                         ("highwater", r"# arenas highwater mark\s*=\s*([\d,]+)"),
                         ("used", r"# bytes in allocated blocks\s*=\s*([\d,]+)"),
                         ("free", r"# bytes in available blocks\s*=\s*([\d,]+)"),
                         ("empty", r"\d+ unused pools \* \d+ bytes\s*=\s*([\d,]+)")):
        found = re.search(pattern, text)
        if found:
            value = int(found.group(1).replace(",", ""))
            stats[key] = value if key.startswith(("arenas", "highwater")) else value / MIB
    return stats


def malloc_stats() -> dict[str, float]:
    """glibc's figures (``mallinfo2``, ``malloc_info``'s arenas); empty elsewhere."""
    try:
        libc = ctypes.CDLL(None)
        mallinfo2 = libc.mallinfo2
    except (OSError, AttributeError):
        return {}
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    stats = {"arena": info.arena / MIB, "mmap": info.hblkhd / MIB, "inuse": info.uordblks / MIB, "free": info.fordblks / MIB}
    try:
        libc.fdopen.restype = ctypes.c_void_p
        libc.fdopen.argtypes = [ctypes.c_int, ctypes.c_char_p]
        libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.fclose.argtypes = [ctypes.c_void_p]
        with tempfile.TemporaryFile() as tmp:
            stream = libc.fdopen(os.dup(tmp.fileno()), b"w")
            libc.malloc_info(0, stream)
            libc.fclose(stream)
            tmp.seek(0)
            stats["heaps"] = tmp.read().count(b"<heap nr=")
    except (AttributeError, OSError):
        pass
    return stats


def _captured_fd2(call: Callable[[], None]) -> str:
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with tempfile.TemporaryFile() as tmp:
            os.dup2(tmp.fileno(), 2)
            try:
                call()
            finally:
                os.dup2(saved, 2)
            tmp.seek(0)
            return tmp.read().decode("utf-8", "replace")
    finally:
        os.close(saved)


def container_sizes(named: Mapping[str, object]) -> dict[str, int]:
    """The length of every container attribute (dict, set, list, tuple, a bounded cache) of each object,
    as ``name.attribute``: what a host, store or cache holds, for the sampler's log."""
    sizes: dict[str, int] = {}
    for name, obj in named.items():
        try:
            attributes = vars(obj)
        except TypeError:
            continue
        for attribute, value in attributes.items():
            if hasattr(value, "__len__") and not isinstance(value, (str, bytes, type)):  # (a bounded cache too)
                try:
                    sizes[f"{name}.{attribute}"] = len(value)
                except TypeError:
                    pass
    return sizes


def server_sizes(server) -> dict[str, int]:
    """The containers of the server's long-lived objects: each folder's host and its caches, the
    documents, the publisher, the scheduler, the protocol (read racily from the sampler's thread:
    a figure, not a state)."""
    named: dict[str, object] = {"ws": server.ws, "docs": server.ws.documents, "publisher": server.publisher,
                                "scheduler": server.scheduler, "protocol": server.protocol}
    for i, folder in enumerate(list(server.ws.folders)):
        host = folder.host
        named.update({f"f{i}": folder, f"f{i}.host": host})
        for attribute in ("_trace_memo", "_reread_views", "clean_sources", "_interfaces"):
            if hasattr(host, attribute):
                named[f"f{i}.host.{attribute}"] = getattr(host, attribute)
    sizes = container_sizes(named)
    for i, folder in enumerate(list(server.ws.folders)):
        sizes.update({f"f{i}.{name}": value for name, value in memo_paths(folder.host).items()})
    sizes["docs.bytes"] = sum(len(doc.source) for doc in server.ws.documents)
    collector = getattr(server.scheduler, "_collector", None)
    if collector is not None:
        sizes.update({"full_collections": collector.collections, "heap_trims": collector.trimmer.trims})
    return sizes


def memo_paths(host) -> dict[str, int]:
    """How many module-instance call paths the host's memo keys name, and how many of its keys
    name a path that the host's module tree no longer has (a call renamed since)."""
    memo = getattr(getattr(host, "_trace_memo", None), "memo", None)
    tree = getattr(host, "_tree", None)
    if memo is None or tree is None:
        return {}
    keys = list(memo)
    paths = {key[1] for key in keys}
    dead_paths = {path for path in paths if not _live(path, tree)}
    universes = {key[3] for key in keys if len(key) > 3}
    return {"memo.paths": len(paths), "memo.dead_paths": len(dead_paths),
            "memo.dead_keys": sum(1 for key in keys if key[1] in dead_paths), "memo.universes": len(universes)}


def _live(path, tree) -> bool:
    if not path or path[0][1] not in tree.roots:
        return False
    for (_, caller_dir), (name, dir) in zip(path, path[1:]):
        target = tree.targets.get((caller_dir, name))
        if target is None or target.dir != dir:
            return False
    return True
