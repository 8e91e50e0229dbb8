"""Syntax errors against Terraform's own parser (SPEC 5): ``terraform fmt -check`` (no provider,
no network) rejects broken files and names a line; tfphi must flag the same files, there.

The broken files are real configurations (the example workspace) with one token deleted or
inserted by a seeded generator, so every run checks the same cases.
"""

from __future__ import annotations

import re
from pathlib import Path

from broken_files import corpus, mutants, seed_of
from terraform_cli import run_terraform

from tfphi.syntax.error_shapes import UNCLOSED
from tfphi.syntax.hclfile import parse_file

ROOT = Path(__file__).resolve().parents[2]
MUTANTS_PER_FILE = 60
_LINE = re.compile(r"on \S+ line (\d+)")


def terraform_verdict(tmp: Path, text: bytes) -> tuple[bool, int | None]:
    """Whether terraform rejects the file, and the line of its first error."""
    (tmp / "main.tf").write_bytes(text)
    proc = run_terraform(["fmt", "-check", "-no-color", "main.tf"], tmp)
    rejects = "Error:" in proc.stderr
    match = _LINE.search(proc.stderr)
    return rejects, int(match.group(1)) if rejects and match else None


def tfphi_verdict(text: bytes) -> tuple[bool, int | None]:
    errors = parse_file("main.tf", text).errors
    if not errors:
        return False, None
    return True, text[: errors[0].span.start].count(b"\n") + 1


def test_an_unclosed_block_is_reported_at_its_opening_line_as_terraform_does(tmp_path):
    checked = 0
    for path in corpus(ROOT):
        source = path.read_bytes()
        for match in re.finditer(rb"^}\s*$", source, re.M):  # each top-level block's closing brace
            broken = source[: match.start()] + source[match.end():]
            expected = terraform_verdict(tmp_path, broken)
            assert expected[0], f"terraform accepts {path} without the brace at byte {match.start()}"
            assert tfphi_verdict(broken) == expected, f"{path}: brace at byte {match.start()} deleted"
            errors = parse_file("main.tf", broken).errors
            assert errors[0].message == UNCLOSED
            checked += 1
    assert checked >= 20


def terraform_verdicts(tmp: Path, texts: list[bytes]) -> list[tuple[bool, int | None]]:
    """``terraform_verdict`` of many files with one run of terraform: each is a file of one
    directory, and ``fmt`` reports every file's errors."""
    for i, text in enumerate(texts):
        (tmp / f"m{i}.tf").write_bytes(text)
    proc = run_terraform(["fmt", "-check", "-no-color", "."], tmp)
    first: dict[str, int] = {}
    for match in re.finditer(r"on (m\d+\.tf) line (\d+)", proc.stderr):
        first[match.group(1)] = min(first.get(match.group(1), 1 << 30), int(match.group(2)))
    assert proc.stderr.count("Error:") >= len(first)
    return [(f"m{i}.tf" in first, first.get(f"m{i}.tf")) for i in range(len(texts))]


def test_broken_files_are_flagged_exactly_when_terraform_rejects_them_on_its_line(tmp_path):
    cases = [(f"{path.relative_to(ROOT)}: {what}", text)
             for path in corpus(ROOT)
             for what, text in mutants(path.read_bytes(), MUTANTS_PER_FILE, seed_of(path.relative_to(ROOT)))]
    theirs = terraform_verdicts(tmp_path, [text for _, text in cases])
    disagreements = [(case, expected, tfphi_verdict(text))
                     for (case, text), expected in zip(cases, theirs) if tfphi_verdict(text) != expected]
    assert len(cases) == MUTANTS_PER_FILE * len(corpus(ROOT))
    assert sum(rejected for rejected, _ in theirs) >= len(cases) * 3 // 4  # most mutants break the file
    # Every file Terraform rejects, tfphi flags, on the line of Terraform's first error; every
    # file tfphi flags, Terraform rejects. The mutants include what tree-sitter-hcl accepts and
    # Terraform does not: joined lines, an "=" deleted (runtime lower(x)), a newline inserted.
    assert disagreements == []


def test_what_an_unclosed_block_swallows_is_not_reported_as_undefined():
    from features_support import load

    from tfphi.features.diagnostics import dir_diagnostics

    analysis, _, _ = load('''
#- main.tf
variable "a" {
  type = string
}

locals {
  x = var.a

resource "aws_db_instance" "app" {
  engine_version = local.x
}

output "o" {
  value = aws_db_instance.app.engine_version
}
''')
    found = [(d.code, analysis.text(d.span), d.message) for d in dir_diagnostics(analysis, "")]
    # The blocks below the unclosed one start their lines as `terraform fmt` writes them: they are
    # read as they were before the brace went missing (syntax/tree_errors.py, recover_top_levels),
    # so the resource keeps its own finding and the output's reference to it is defined.
    assert found == [
        ("syntax-error", "{", f"syntax error: {UNCLOSED}"),
        ("unbounded-field", "local.x", "can't determine the value of engine_version: var.a has no default value, "
         "and no validation block lists the allowed values; var.a is declared at main.tf:1."),
    ]


def test_what_an_unclosed_block_swallows_unread_is_not_reported_as_undefined():
    from features_support import load

    from tfphi.features.diagnostics import dir_diagnostics

    # Indented, the resource is no block header to read the rest of the file from again: the
    # unclosed block swallows it, and the output's reference to it is not reported.
    analysis, _, _ = load('''
#- main.tf
locals {
  x = "a"

  resource "aws_db_instance" "app" {
    engine_version = local.x
  }

output "o" {
  value = aws_db_instance.app.engine_version
}
''')
    found = [(d.code, analysis.text(d.span), d.message) for d in dir_diagnostics(analysis, "")]
    assert found == [("syntax-error", "{", f"syntax error: {UNCLOSED}")]
