"""``tfphi check`` spelled out in full is read without argparse (start-up: argparse and what it
loads were a tenth of a small check); whatever it reads must be what argparse reads, and
anything else must go to argparse."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tfphi.cli import _plain_check, build_parser

PLAIN = [
    ["check"],
    ["check", "dir"],
    ["check", "json"],
    ["check", "dir", "--format", "json"],
    ["check", "--format", "sarif", "dir"],
    ["check", "--fail-on", "never", "--format", "text", "d"],
    ["check", "d", "--format", "json", "--format", "text"],
]
NOT_PLAIN = [
    [],
    ["trace", "d", "a.b.c"],
    ["check", "--help"],
    ["check", "--format=json", "d"],
    ["check", "--form", "json", "d"],
    ["check", "--format", "xml", "d"],
    ["check", "--format"],
    ["check", "a", "b"],
    ["check", "-x"],
    ["check", "--", "d"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_check_reads_what_argparse_reads(argv):
    fast = _plain_check(argv)
    slow = build_parser().parse_args(argv)
    assert fast is not None
    assert (fast.command, fast.dir, fast.format, fast.fail_on) == (slow.command, slow.dir, slow.format, slow.fail_on)


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_goes_to_argparse(argv):
    assert _plain_check(argv) is None


def test_a_plain_check_imports_neither_argparse_nor_pathlib(tmp_path):
    (tmp_path / "main.tf").write_text('variable "x" {}\n')
    code = (
        "import sys\n"
        "from tfphi.cli import main\n"
        f"main(['check', {str(tmp_path)!r}, '--format', 'json'])\n"
        "print(sorted(m for m in ('argparse', 'pathlib', 'cattrs', 'importlib.resources') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.rstrip().splitlines()[-1] == "[]"
