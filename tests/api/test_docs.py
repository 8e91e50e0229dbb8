"""The Python examples of README.md and docs/api.md run, and print what the page says they print.

Each ```python block of a page runs in one namespace per page (a later block may use what an
earlier one defined), from the repository's root; a ```text block right after it is its
expected output, compared whole. So the documentation cannot drift from the API.
"""

from __future__ import annotations

import io
import os
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def examples(page: Path) -> list[tuple[str, str | None]]:
    """(code, expected output or None) for each Python block of the page that uses tfphi's API."""
    blocks = [(m.group(1), m.group(2), m.end(), m.start()) for m in FENCE.finditer(page.read_text(encoding="utf-8"))]
    text = page.read_text(encoding="utf-8")
    found = []
    for i, (lang, body, end, _) in enumerate(blocks):
        if lang != "python":
            continue
        expected = None
        if i + 1 < len(blocks) and blocks[i + 1][0] == "text" and not text[end:blocks[i + 1][3]].strip():
            expected = blocks[i + 1][1]
        found.append((body, expected))
    return found


def pages() -> list[Path]:
    return [p for p in (REPO / "README.md", REPO / "docs" / "api.md")
            if any("tfphi.api" in code for code, _ in examples(p))]


def test_the_pages_have_api_examples():
    assert [p.relative_to(REPO).as_posix() for p in pages()] == ["README.md", "docs/api.md"]
    # the README's example is the seed's toy compiler
    readme = "".join(code for code, _ in examples(REPO / "README.md"))
    assert "aws_db_instance.app.engine_version" in readme and "compile=" in readme and "fallback=" in readme


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_the_examples_print_what_the_page_says(page: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(REPO)
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    checked = 0
    for code, expected in [e for e in examples(page) if page.name != "README.md" or "tfphi" in e[0]]:
        out = io.StringIO()
        with redirect_stdout(out):
            exec(compile(code, f"{page.name} example", "exec"), namespace)
        if expected is not None:
            assert out.getvalue() == expected, f"{page.name}: the example's output differs from the page\n{code}"
            checked += 1
    assert checked >= 1
    assert os.getcwd() == str(REPO)
