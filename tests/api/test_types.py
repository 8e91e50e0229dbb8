"""``tfphi.api`` type-checks under ``mypy --strict`` (the surface ``py.typed`` promises callers).

The rest of tfphi is not annotated for ``--strict``: its modules are skipped (their names are
``Any`` here) but for ``records`` (read, not reported: its ``@record`` is a ``dataclass_transform``
that gives the results their typed constructors), so this checks what the API declares and how
it uses what it calls, in a second.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CONFIG = """\
[mypy]
strict = True
cache_dir = {cache}

[mypy-tfphi.*]
follow_imports = skip

[mypy-tfphi.api]
follow_imports = normal

[mypy-tfphi.records]
follow_imports = silent
"""


def test_the_api_passes_mypy_strict(tmp_path: Path):
    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG.format(cache=tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), "-p", "tfphi.api"],
                          cwd=REPO / "server", capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Success: no issues found in 1 source file"), proc.stdout
