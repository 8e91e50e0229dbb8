"""Gates are printed from the condition's structure (``trace/printer.py``), never pasted from the
source (issue 22, defect 9): every printed expression parses as Terraform and means what the
expression it was printed from means, which the real Terraform checks here."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from terraform_cli import run_terraform, terraform_binary
from tfphi.features.trace_json import trace_to_json
from tfphi.loader import load_workspace
from tfphi.syntax.hclfile import parse_file
from tfphi.trace.printer import print_expr

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))
from workspaces import Gen, Scope  # noqa: E402

# Written as people write them: layout, comments, a heredoc, nested conditionals, for expressions.
HANDWRITTEN = [
    '{\n  # on demand\n  a = "x" # the first\n  b = [1, 2,\n    3]\n}',
    '<<EOT\nline ${"one"}\n  two "q" $${not}\nEOT',
    'true ? (false ? "a" : "b") : "c"',
    '(true ? 1 : 2) + 3 * (4 - 1)',
    '!(1 < 2 && "a" == "a") || false',
    '[for k, v in { a = 1, b = 2 } : "${k}=${v}" if v > 1]',
    '{ for s in ["a", "b", "a"] : s => s... }',
    '{ (true ? "k" : "j") = 1, "with space" = 2, null_ = 3 }.k',
    'format("%s-%05.1f", "x", 2.25)',
    'concat([1], [2])[1] - -1',
    '"%{ if 1 > 2 }yes%{ else }no ${"x"}%{ endif }"',
    '"%{ for k, v in { a = 1, b = 2 } ~}${k}=${v},%{ endfor }"',
    '<<-EOT\n    ${"a"}\n      b %{ if true }c%{ endif }\n    EOT',
    '"${1 + 1}"',
    '<<EOT\n${1 + 1}\nEOT',
    '"${"a"}${1 + 1}%%{x}\\n\\t\\"\\\\"',
]


def _parsed(text: str):
    hcl = parse_file("printed.tf", f"x = {text}\n".encode())
    assert not hcl.errors, (text, hcl.errors)
    return hcl.body.attributes["x"].expr


def _expressions(count: int, seed: int) -> list[str]:
    gen = Gen(random.Random(seed))
    scope = Scope(['"a"', '" x "', '"prod"'], ["true", "false"], ["1", "2.5"])
    out = list(HANDWRITTEN)
    while len(out) < count:
        out.append(gen.value(scope, 3) if len(out) % 2 else gen.boolean(scope, 3))
    return out


def _evaluate(expressions: list[str], scratch: Path) -> list:
    """Each expression's JSON as Terraform computes it ("E" where it fails): locals of one
    configuration (an expression may span lines), read by one console run."""
    scratch.mkdir(exist_ok=True)
    (scratch / "main.tf").write_text("locals {\n" + "".join(f'  e{i} = try(jsonencode({e}\n), "E")\n' for i, e in enumerate(expressions)) + "}\n")
    rows = ", ".join(f"local.e{i}" for i in range(len(expressions)))
    done = run_terraform(["console", "-no-color"], scratch, stdin=f"jsonencode([{rows}])\n", timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(json.loads(done.stdout.strip()))


def test_printed_expressions_mean_what_they_were_printed_from(tmp_path: Path):
    terraform_binary()
    sources = _expressions(300, 22)
    printed = [print_expr(_parsed(text)) for text in sources]
    for text, line in zip(sources, printed):
        assert "\n" not in line and "#" not in line.replace('"#', ""), (text, line)
        assert print_expr(_parsed(line)) == line, (text, line)  # printing a printed expression changes nothing
    formatted = run_terraform(["fmt", "-no-color", "-"], tmp_path, stdin="".join(f"g{i} = {p}\n" for i, p in enumerate(printed)))
    assert formatted.returncode == 0, formatted.stderr
    theirs, ours = _evaluate(sources, tmp_path / "sources"), _evaluate(printed, tmp_path / "printed")
    differ = [(s, p, a, b) for s, p, a, b in zip(sources, printed, theirs, ours) if a != b]
    assert differ == []
    assert sum(v != "E" for v in theirs) > len(sources) // 2  # most of them evaluate: the comparison is not vacuous


CALLER_LITERAL = {
    "main.tf": '''variable "x" {
  type = string
}

module "c" {
  source = "./c"
  cfg = {
    # on-demand instances
    a = var.x # the caller's own value
    b = "y"
  }
}
''',
    "c/main.tf": '''variable "cfg" {
  type = any
}

resource "terraform_data" "r" {
  input = var.cfg.a == "p" ? "one" : "two"
}
''',
}


def test_a_callers_multi_line_literal_prints_as_one_expression(tmp_path: Path):
    """The issue's example: a gate inlining a caller's multi-line literal with comments."""
    for rel, text in CALLER_LITERAL.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    analysis = load_workspace(tmp_path)
    js = trace_to_json(analysis, analysis.trace_address("module.c.terraform_data.r.input"))
    assert [(b["value"], b["gate"]) for b in js["branches"]] == [
        ("one", '{ a = var.x, b = "y" }.a == "p"'),
        ("two", '{ a = var.x, b = "y" }.a != "p"'),
    ]
