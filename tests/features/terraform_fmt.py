"""Files for the feature tests that run the real ``terraform fmt`` (``terraform_cli``)."""

from __future__ import annotations

from pathlib import Path

def write_files(root: Path, files: dict[str, bytes]) -> Path:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root
