"""``tfphi check`` spelled out in full is read without argparse (start-up: argparse and what it
loads were a tenth of a small check); whatever it reads must be what argparse reads, and
anything else must go to argparse. And a check imports only what it uses (ARCHITECTURE.md,
"Start-up")."""

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
    ["check", "d", "--format", "github"],
    ["check", "--format", "gitlab"],
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
    ["check", "d", "--output", "report.json"],
    ["check", "--shard", "1/2"],
    ["check", "-x"],
    ["check", "--", "d"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_check_reads_what_argparse_reads(argv):
    fast = _plain_check(argv)
    slow = build_parser().parse_args(argv)
    assert fast is not None
    assert (fast.command, fast.paths, fast.format, fast.fail_on) == (slow.command, slow.paths, slow.format, slow.fail_on)


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


# A root and a local module, with a conditional, locals, outputs and a registered field: what
# a check reads, without .tfphi.toml, variable files, syntax errors or function calls.
WORKSPACE = {
    "main.tf": (
        'variable "replica" {\n  type    = bool\n  default = false\n}\n'
        'variable "engine" {\n  type = string\n}\n'
        'locals {\n  engine = var.replica ? null : var.engine\n}\n'
        'module "db" {\n  source = "./modules/db"\n  engine = local.engine\n}\n'
        'output "id" {\n  value = module.db.id\n}\n'
    ),
    "modules/db/main.tf": (
        'variable "engine" {\n  type = string\n}\n'
        'resource "aws_db_instance" "this" {\n  engine = var.engine\n}\n'
        'output "id" {\n  value = aws_db_instance.this.id\n}\n'
    ),
}

# What such a check does not use, and what each cost at start-up when it was imported anyway.
NOT_FOR_A_CHECK = (
    "dataclasses", "inspect", "ast", "dis",  # records are not dataclasses (records.py)
    "traceback", "linecache", "tokenize", "textwrap",  # only for a module whose analysis raises
    "cattrs", "attrs", "tfphi.config_schema",  # only when a configuration is decoded
    "argparse", "pathlib", "importlib.resources",  # a plain check reads its arguments itself
    "tfphi.lsp", "pygls", "lsprotocol", "asyncio",  # the server
    "tfphi.specialize", "tfphi.output.sarif", "tfphi.output.github", "tfphi.output.gitlab", "tfphi.field_lookup",  # other commands, formats, variable files
    "tfphi.evaluate.functions", "tfphi.trace.strategies",  # only when a function call is traced
    "tfphi.syntax.syntax_errors",  # only for a file the error pre-check flags
    "tfphi.syntax.jsonfile",  # only for files in Terraform's JSON syntax
    "hashlib",  # only for --shard (OpenSSL: 2 ms)
    "threading",  # the reparser's per-thread state is _thread's local, which threading re-exports
)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_check_imports_only_what_it_uses(tmp_path, fmt):
    for rel, text in WORKSPACE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    code = (
        "import sys\n"
        "from tfphi.cli import main\n"
        f"main(['check', {str(tmp_path)!r}, '--format', {fmt!r}, '--fail-on', 'never'])\n"
        f"names = {NOT_FOR_A_CHECK!r}\n"
        "print(sorted(m for m in sys.modules if m in names or m.startswith(tuple(n + '.' for n in names))))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "unbounded-field" in run.stdout + run.stderr  # the check did trace the field
    assert run.stdout.rstrip().splitlines()[-1] == "[]"


# The function registry is loaded by the first traced call; the standard and third-party modules
# only some functions need are loaded by those functions (``evaluate.functions.deferred``).
FUNCTION_MODULES = ("re2", "decimal", "csv", "yaml", "datetime", "ipaddress", "uuid", "base64", "hashlib")


def test_a_traced_function_call_imports_only_the_functions_it_calls(tmp_path):
    for rel, text in WORKSPACE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text.replace("engine = var.engine\n}", "engine = lower(var.engine)\n}"))
    code = (
        "import sys\n"
        "from tfphi.cli import main\n"
        f"main(['check', {str(tmp_path)!r}, '--format', 'json', '--fail-on', 'never'])\n"
        "print('tfphi.evaluate.functions.registry' in sys.modules)\n"
        f"print(sorted(m for m in {FUNCTION_MODULES!r} if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "unbounded-field" in run.stdout + run.stderr
    assert run.stdout.rstrip().splitlines()[-2:] == ["True", "[]"]
