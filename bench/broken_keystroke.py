"""A broken document's keystrokes, in-process: the pieces first (``syntax.pieces``) against the whole parse.

    python bench/broken_keystroke.py [--modules 1000] [--keystrokes 30] [--workdir DIR]

The root ``main.tf`` of the ``--modules`` workspace (bench/generate.py, seed 0), open in a
``Document``. For each breakage (a stray ``}`` typed in a module call, its closing ``}`` deleted,
a ``"`` typed, a letter typed after a header's ``{``), in a module call half-way down the file:
the keystroke that breaks the text, then ``--keystrokes`` letters typed into values of other
module calls while it stays broken, then the breakage taken back. Per phase: the CPU time (the process's: the machine is shared) of
``Document.parse`` (p50, max) and the peak of the memory traced by ``tracemalloc`` during one
parse (py-tree-sitter allocates tree-sitter's nodes through ``PyMem_*``: the trees are traced),
once with the pieces asked first (this checkout) and once with the old path (the whole text
parsed first: ``regions.read_if_broken`` answering None), in one run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from tfphi.lsp.documents import Document, TextChange  # noqa: E402
from tfphi.syntax import regions  # noqa: E402
from tfphi.syntax.hclfile import new_parser  # noqa: E402

MIB = 1024 * 1024


def _breakages(text: str) -> dict[str, tuple[int, int, str]]:
    """(start, end, inserted) per breakage, in the module call half-way down ``text``."""
    calls = [i for i in range(len(text)) if text.startswith('module "', i) and (i == 0 or text[i - 1] == "\n")]
    at = calls[len(calls) // 2]
    brace = text.index("{", at) + 1
    value = text.index('= "', at) + 3  # (inside the source's string)
    line = text.index("\n  env", at) + 3  # (the start of an argument's name)
    close = text.index("\n}", at) + 1
    return {"stray }": (line, line, "}"), "deleted }": (close, close + 1, ""), 'typed "': (value, value, '"'),
            "letter after {": (brace, brace, "x")}


def _run(text: str, breakage: tuple[int, int, str], keystrokes: int, traced: bool) -> dict[str, list[float]]:
    parser = new_parser()
    doc = Document("main.tf", 0, text.encode())
    doc.parse("main.tf", parser)
    version = 0
    out: dict[str, list[float]] = {"break": [], "while broken": [], "take back": []}

    def keystroke(phase: str, start: int, end: int, inserted: str) -> None:
        nonlocal version
        version += 1
        doc.apply([TextChange(inserted, (doc.position(start), doc.position(end)))], version)
        gc.collect()
        if traced:
            tracemalloc.start()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            doc.parse("main.tf", parser)
            out[phase].append((tracemalloc.get_traced_memory()[1] - base) / MIB)
            tracemalloc.stop()
        else:
            t0 = time.process_time()
            doc.parse("main.tf", parser)
            out[phase].append((time.process_time() - t0) * 1000)

    start, end, inserted = breakage
    keystroke("break", start, end, inserted)
    assert doc.hcl.errors, "the breakage left the text valid"
    source = doc.source
    # letters typed into values of module calls far from the breakage (the text is ASCII: bytes are characters)
    values = [i + 3 for i in range(len(source)) if source.startswith(b'= "', i)]
    for n in range(keystrokes):
        at = values[(n * 7919) % len(values)]
        at += (len(doc.source) - len(source)) if at > start else 0
        keystroke("while broken", at, at, "q")
    # the breakage taken back, its place moved by the letters typed above it
    shift = sum(1 for n in range(keystrokes) if values[(n * 7919) % len(values)] < start)
    keystroke("take back", start + shift, start + shift + len(inserted), text[start:end])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--keystrokes", type=int, default=30)
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="tfphi-broken-"))
    generate(work / "ws", args.modules)
    text = (work / "ws" / "main.tf").read_text()
    print(f"root main.tf: {len(text.encode()):,} bytes, {args.modules} modules, {args.keystrokes} keystrokes while broken")
    real = regions.read_if_broken
    for name, breakage in _breakages(text).items():
        for mode in ("whole first", "pieces first"):
            regions.read_if_broken = real if mode == "pieces first" else (lambda *a, **k: None)
            try:
                times = _run(text, breakage, args.keystrokes, traced=False)
                peaks = _run(text, breakage, min(args.keystrokes, 5), traced=True)
            finally:
                regions.read_if_broken = real
            row = "  ".join(f"{phase} {statistics.median(ms):6.1f}/{max(ms):6.1f} ms CPU peak {max(peaks[phase]):5.1f} MiB"
                            for phase, ms in times.items())
            print(f"{name:15} {mode:13} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
