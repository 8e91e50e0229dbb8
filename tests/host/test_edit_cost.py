"""A keystroke costs what it touches, counted in work, not time: in a root module of 50 module
calls, a keystroke that breaks one call (a quote, a brace, an opened brace left open), and its
undo, rebuild one module and trace again at most the fields below that call.

tree-sitter-hcl's error recovery swallowed every block after such a keystroke, so the calls
below it disappeared: the soak of bench/README.md ("Issue 23: soak, session 9") saw one keystroke
re-analyse 589 modules, and the memory each such pass left behind. The counters are the host's
(``AnalysisHost.modules_built``, ``units_traced``); the edits go through an open document, as the
server feeds them, and the diagnostics after each undo are the first ones again.
"""

from __future__ import annotations

import pytest

from tfphi.analysis import AnalysisHost, SetParsed, SetSource
from tfphi.features.diagnostics import dir_diagnostics
from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.hclfile import new_parser

CALLS = 50
BROKEN = 23  # the call the keystrokes break


def _workspace() -> dict[str, str]:
    """A root of CALLS calls, each to a module of its own that calls a leaf module of its own."""
    root = ['variable "env" {\n  type    = string\n  default = "dev"\n}\n']
    files: dict[str, str] = {}
    for i in range(CALLS):
        root.append(f'''
module "svc_{i:02}" {{
  source  = "./modules/svc_{i:02}"
  env     = var.env
  version = var.env == "prod" ? "15.{i}" : "14.{i}"
}}
''')
        files[f"modules/svc_{i:02}/main.tf"] = f'''variable "env" {{
  type = string
}}

variable "version" {{
  type = string
}}

module "leaf" {{
  source = "../leaf_{i:02}"
  engine = var.env == "prod" ? "postgres" : "mysql"
}}

resource "aws_db_instance" "this" {{
  engine         = module.leaf.engine
  engine_version = var.version
}}
'''
        files[f"modules/leaf_{i:02}/main.tf"] = '''variable "engine" {
  type = string
}

resource "aws_elasticache_cluster" "this" {
  engine         = var.engine
  engine_version = "7.1"
}

output "engine" {
  value = var.engine
}
'''
    files["main.tf"] = "".join(root)
    return files


def _diagnostics(host: AnalysisHost, dirs) -> dict[str, list]:
    snapshot = host.snapshot()
    return {dir: dir_diagnostics(snapshot, dir) for dir in sorted(dirs)}


def _place(text: str, needle: str, after: int = 0) -> int:
    at = text.index(f'module "svc_{BROKEN:02}"')
    return text.index(needle, at) + after


# (what, where in the broken call's block, what is typed)
KEYSTROKES = [
    ("a quote in a value", lambda t: _place(t, "var.env\n"), '"'),
    ("a quote in the label", lambda t: _place(t, f'svc_{BROKEN:02}"', 1), '"'),
    ("a closing brace in an argument", lambda t: _place(t, "var.env\n"), "}"),
    ("an opening brace left open", lambda t: _place(t, "var.env\n"), "{"),
    ("an equals sign after the label", lambda t: _place(t, " {\n"), "="),
    ("a comment opened", lambda t: _place(t, "source"), "/*"),
]


@pytest.mark.parametrize("what, where, typed", KEYSTROKES, ids=[k[0] for k in KEYSTROKES])
def test_a_keystroke_that_breaks_one_call_costs_that_call(what, where, typed):
    files = _workspace()
    host = AnalysisHost()
    host.apply_change([SetSource(path, text.encode()) for path, text in files.items()])
    every_dir = host.snapshot().dirs()
    assert len(every_dir) == 2 * CALLS + 1
    first = _diagnostics(host, every_dir)  # everything analysed, as the server does after indexing
    parser = new_parser()
    doc = Document("main.tf", 0, files["main.tf"].encode())
    doc.parse("main.tf", parser)
    text = files["main.tf"]
    at = where(text)
    line, column = text.count("\n", 0, at), at - text.rfind("\n", 0, at) - 1
    subtree = {"", f"modules/svc_{BROKEN:02}", f"modules/leaf_{BROKEN:02}"}
    # The fields below one call: its module's and its leaf's (the root traces none).
    assert host.units_traced % CALLS == 0
    most_units = host.units_traced // CALLS
    for version, change in enumerate([
        TextChange(typed, ((line, column), (line, column))),
        TextChange("", ((line, column), (line, column + len(typed)))),  # taken back
    ], 1):
        built, traced, revision = host.modules_built, host.units_traced, host.revision
        doc.apply([change], version)
        host.apply_change(SetParsed(doc.parse("main.tf", parser)))
        host.snapshot()
        changed = host.changed_since(revision)
        assert changed is not None
        now = _diagnostics(host, changed.dirs)
        assert (version, changed.dirs - subtree) == (version, frozenset())
        assert (version, host.modules_built - built) == (version, 1)  # the root alone
        assert host.units_traced - traced <= most_units, (version, host.units_traced - traced)
        if version == 1:
            assert any(d.code == "syntax-error" for d in now[""])
    assert doc.text == text
    assert _diagnostics(host, every_dir) == first
