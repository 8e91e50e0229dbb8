#!/usr/bin/env python3
"""What the server keeps after indexing, traced in one process.

    python bench/mem_traced.py [--modules 1000] [--workdir DIR] [--top 25] [--by lineno|filename|holder]

The language server's own objects (``LiveWorkspace``, ``DiagnosticPublisher``,
``AnalysisScheduler``) index ``bench/generate.py``'s workspace on one asyncio loop, as
``bench/edit_cpu.py`` does (every file read from disk, every module analysed, its diagnostics
published and ``Snapshot.release`` after each, as the scheduler does), then a full collection
(``gc.collect()``) and tracemalloc's total of what is still allocated, with the largest
allocation sites. About 9 MiB of the server's RSS at 10,000 modules per MiB traced at 1,000
(bench/README.md, "Issue 23: server memory at 10,000 modules, session 10").

``--by holder`` (no tracemalloc) names what holds the memory instead of where it was allocated:
every object the workspace reaches, once each (code, classes and modules left out), by its type
and the attribute it was first reached through (``hclfile.Body.attributes``: the dicts that
bodies hold; ``{}`` a dict's values, ``{k}`` its keys, ``[]`` a sequence's items), with
``sys.getsizeof`` (an object's instance dict counted with it). ``--duplicates`` prints, for the
strings, tuples and frozensets reached, how many are equal to one reached before and their bytes:
what sharing equal values would save (docs/memory.md, "Session 13").
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import threading
import tracemalloc
import types
from collections import Counter, deque
from pathlib import Path

from tfphi.lsp.publish import DiagnosticPublisher
from tfphi.lsp.scheduler import AnalysisScheduler, Progress
from tfphi.lsp.workspace import LiveWorkspace

sys.path.insert(0, str(Path(__file__).parent))
from edit_cpu import run_with_client  # noqa: E402
from generate import generate  # noqa: E402


def index(ws_dir: Path) -> LiveWorkspace:
    """The workspace after the server's first analysis of ``ws_dir`` (kept alive for the caller)."""
    published = threading.Event()
    ws = LiveWorkspace()

    def send(uri, version, items):
        published.set()

    async def progress() -> Progress:
        return Progress()

    scheduler = AnalysisScheduler(ws, DiagnosticPublisher(ws, send), progress, lambda m: print(m, file=sys.stderr))

    def client(loop: asyncio.AbstractEventLoop) -> None:
        published.wait()
        asyncio.run_coroutine_threadsafe(scheduler.idle(), loop).result()
        loop.call_soon_threadsafe(lambda: setattr(scheduler, "stopped", True))

    run_with_client(ws, ws_dir, scheduler, client)
    return ws


_NOT_FOLLOWED = (type, types.ModuleType, types.FunctionType, types.CodeType, types.BuiltinFunctionType,
                 types.MethodType, types.FrameType)
_CONTAINERS = (list, tuple, set, frozenset)


def _type_name(cls: type) -> str:
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__.rsplit('.', 1)[-1]}.{cls.__qualname__}"


def _attributes(obj) -> list[tuple[str, object]]:
    """(name, value) of an object's instance dict and slots."""
    out = list(vars(obj).items()) if isinstance(getattr(obj, "__dict__", None), dict) else []
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            try:
                out.append((name, getattr(obj, name)))
            except AttributeError:
                pass
    return out


def holders(root) -> tuple[Counter, Counter, Counter]:
    """Bytes and counts of what ``root`` reaches by (holder, type), breadth first, each object once;
    and the bytes of the strings, tuples and frozensets equal to one reached before, by type."""
    size: Counter = Counter()
    count: Counter = Counter()
    duplicated: Counter = Counter()
    first: dict = {}
    seen = {id(root)}
    queue = deque([(root, "workspace")])
    while queue:
        obj, label = queue.popleft()
        cls = type(obj)
        key = (label, _type_name(cls))
        size[key] += sys.getsizeof(obj)
        count[key] += 1
        if cls in (str, tuple, frozenset):
            try:
                if first.setdefault((cls, obj), obj) is not obj:
                    duplicated[cls.__name__] += sys.getsizeof(obj)
            except TypeError:  # (a tuple holding something unhashable)
                pass
        if cls is dict:
            children = [(k, label + "{k}") for k in obj] + [(v, label + "{}") for v in obj.values()]
        elif isinstance(obj, _CONTAINERS):
            children = [(v, label + "[]") for v in obj]
        else:
            attrs = _attributes(obj)
            own = getattr(obj, "__dict__", None)
            if isinstance(own, dict):
                size[key] += sys.getsizeof(own)
                seen.add(id(own))
            children = [(v, f"{_type_name(cls)}.{name}") for name, v in attrs]
            named = {id(v) for _, v in children}
            children += [(v, f"{_type_name(cls)}.?") for v in gc.get_referents(obj) if id(v) not in named and v is not own]
        for child, where in children:
            if id(child) not in seen and not isinstance(child, _NOT_FOLLOWED):
                seen.add(id(child))
                queue.append((child, where))
    return size, count, duplicated


def print_holders(ws, top: int, duplicates: bool) -> None:
    size, count, duplicated = holders(ws)
    print(f"reached from the workspace: {sum(size.values()) / 2**20:.1f} MiB, {sum(count.values()):,} objects")
    for (label, name), total in size.most_common(top):
        n = count[(label, name)]
        print(f"{total / 2**20:7.2f} MiB {n:9,d} {total / n:6.0f} B  {name:28s} {label}")
    if duplicates:
        for name, total in duplicated.most_common():
            print(f"equal to one reached before: {name} {total / 2**20:.2f} MiB")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--workdir", type=Path, help="where to generate the workspace (default: a temporary directory)")
    ap.add_argument("--top", type=int, default=25, help="how many allocation sites to print")
    ap.add_argument("--by", default="lineno", choices=["lineno", "filename", "holder"])
    ap.add_argument("--duplicates", action="store_true", help="with --by holder: the bytes of equal strings, tuples and frozensets")
    args = ap.parse_args(argv)
    ws_dir = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-mem-"))
    if not (ws_dir / "main.tf").exists():
        generate(ws_dir, args.modules)
    if args.by == "holder":
        ws = index(ws_dir)
        gc.collect()
        print_holders(ws, args.top, args.duplicates)
        return 0
    tracemalloc.start()
    ws = index(ws_dir)
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    total = sum(stat.size for stat in snapshot.statistics("filename"))
    print(f"traced after indexing {args.modules} modules: {total / 2**20:.1f} MiB")
    for stat in snapshot.statistics(args.by)[: args.top]:
        frame = stat.traceback[0]
        print(f"{stat.size / 2**20:7.2f} MiB {stat.count:9,d}  {frame.filename.split('tfphi/')[-1]}:{frame.lineno}")
    del ws
    return 0


if __name__ == "__main__":
    sys.exit(main())
