"""The real server with a fault injected into one module's analysis (tests only).

    python tests/lsp/faulty_server.py MODULE_DIR STAGE

Sets ``tfphi.analysis._fault_injection``, a hook nothing in a workspace or a client can
reach, so that analysing MODULE_DIR raises at STAGE (build, findings or fields); then
serves over stdio exactly as ``tfphi serve`` does.
"""

from __future__ import annotations

import sys

import tfphi.analysis as analysis
from tfphi.lsp.main import run_server


def main() -> int:
    bad_dir, stage = sys.argv[1], sys.argv[2]

    def fault(at: str, dir: str) -> None:
        if dir == bad_dir and at == stage:
            raise RuntimeError(f"injected fault in {dir} ({at})")

    analysis._fault_injection = fault
    return run_server()


if __name__ == "__main__":
    sys.exit(main())
