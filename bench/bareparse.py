#!/usr/bin/env python3
"""The floor for `tfphi check` on a real corpus: read and parse the same `.tf` files with
tree-sitter-hcl in one Python process, nothing else (no structure read, no analysis).

    python bench/bareparse.py DIR        # prints {"files": N, "bytes": B, "parse_s": S} as JSON

run.py runs it as a child process, like `tfphi check`, so both figures include the
interpreter's start-up and their imports.
"""
from __future__ import annotations

import json
import os
import sys
import time

SKIPPED_DIRS = {".git", ".terraform", "node_modules", ".terragrunt-cache"}  # as tfphi's loader


def tf_files(root: str) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        out.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith((".tf", ".tfvars")))
    return out


def main() -> int:
    t0 = time.perf_counter()
    import tree_sitter_hcl
    from tree_sitter import Language, Parser

    parser = Parser(Language(tree_sitter_hcl.language()))
    files = tf_files(sys.argv[1])
    total = 0
    for path in files:
        with open(path, "rb") as fh:
            source = fh.read()
        total += len(source)
        parser.parse(source)
    print(json.dumps({"files": len(files), "bytes": total, "parse_s": round(time.perf_counter() - t0, 4)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
