#!/usr/bin/env python3
"""Whether a change to the check leaves its output byte for byte the same: ``tfphi check`` of
each workspace in every format, written under ``--out``, one file per workspace and format.

    python bench/same_outputs.py --out /tmp/after --corpus /tmp/corpus
    PYTHONPATH=/tmp/base/server python bench/same_outputs.py --out /tmp/before --corpus /tmp/corpus
    diff -r /tmp/before /tmp/after     # nothing: the same bytes

``/tmp/base/server`` is the code before the change (``git archive <commit> server | tar -x -C
/tmp/base``): ``PYTHONPATH`` puts it before the installed package. The workspaces: the corpus
(``--corpus DIR``: the whole of it, and each of its repositories), ``examples/`` and a
generated workspace (``bench/generate.py``, ``--modules``, seed 3). A run's exit code is
written with its output; the progress line and the text format's summary go to stderr, which
is not compared.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
FORMATS = ("text", "json", "sarif", "github", "gitlab")


def workspaces(corpus: Path | None, generated: Path) -> list[tuple[str, Path]]:
    found = [("examples", REPO / "examples"), ("generated", generated)]
    if corpus is not None:
        found.append(("corpus", corpus))
        found += [(f"corpus-{d.name}", d) for d in sorted(corpus.iterdir()) if d.is_dir()]
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--modules", type=int, default=300)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/tfphi-same-outputs"))
    args = ap.parse_args()
    generated = args.workdir / f"ws_{args.modules}"
    if not generated.exists():
        sys.path.insert(0, str(BENCH))
        from generate import generate

        generate(generated, args.modules, seed=3)
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    for name, path in workspaces(args.corpus, generated):
        for fmt in FORMATS:
            run = subprocess.run([sys.executable, "-m", "tfphi", "check", str(path), "--format", fmt, "--quiet"],
                                 capture_output=True, env=env, cwd=REPO)
            (args.out / f"{name}.{fmt}").write_bytes(run.stdout + f"\nexit {run.returncode}\n".encode())
    print(f"wrote {len(list(args.out.iterdir()))} outputs to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
