"""Where tfphi places a syntax error, case by case, against the real ``terraform fmt``
(syntax/syntax_errors.py): the line of Terraform's first error and its summary, for each kind
of error its parser reports, and for the shapes tree-sitter-hcl accepts and Terraform rejects."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from broken_files import marked_line
from terraform_cli import run_terraform

from tfphi.syntax.hclfile import parse_file
from tfphi.syntax.error_shapes import suspicious
from tfphi.syntax.syntax_errors import hcl_errors

ROOT = Path(__file__).resolve().parents[2]

# Each case is broken in one place; Terraform's first error is on the line marked "<-".
CASES = {
    "deleted =": 'variable "v" {\n  runtime lower(var.x)  # <-\n}\n',
    "deleted = before a string": 'terraform {\n  required_version  ">= 1.0"  # <-\n}\n',
    "two arguments on a line": 'locals {\n  a = 1   b = 2  # <-\n}\n',
    "argument then brace": 'output "o" {\n  value = 1 }  # <-\n',
    "block opened with an argument": 'output "o" {   value = 1  # <-\n}\n',
    "brace then more": 'locals {\n  a = 1\n} locals {  # <-\n}\n',
    "value on the next line": 'locals {\n  a =  # <-\n  1\n}\n',
    "operator at the end of a line": 'locals {\n  a = 1 +  # <-\n  2\n}\n',
    "traversal continued on the next line": 'locals {\n  a = var\n  .x  # <-\n}\n',
    "name alone": 'locals {\n  a  # <-\n  = 1\n}\n',
    "header split": 'output "o"  # <-\n{\n  value = 1\n}\n',
    "comma missing in a one-line object": 'locals {\n  a = { b = 1 c = 2 }  # <-\n}\n',
    "leading comma in an object": 'locals {\n  a = {\n    b = 1\n    , c = 2  # <-\n  }\n}\n',
    "unclosed block": 'locals {  # <-\n  a = 1\n',
    "unclosed object": 'locals {  # <- (the object takes the closing brace)\n  a = {\n    b = 1\n}\n',
    "unclosed call": 'locals {\n  a = lower(\n}  # <- (newlines do not count in parentheses)\n',
    "unclosed tuple": 'locals {\n  a = [1,\n}  # <-\n',
    "missing separator in a call": 'locals {\n  a = lower(1 2)  # <-\n}\n',
    "quoted argument name": 'locals {\n  "a" = 1  # <-\n}\n',
    "equals in a block header": 'resource "a" "b" = {  # <-\n}\n',
    "unterminated string": 'locals {\n  a = "x  # <-\n}\n',
    "unclosed interpolation": 'locals {\n  a = "${var.x"  # <-\n}\n',
    "interpolation in a label": 'resource "a" "${var.b}" {  # <-\n}\n',
    "invalid escape": 'locals {\n  a = "\\d"  # <-\n}\n',
    "unterminated heredoc": 'locals {\n  a = <<EOT\n  x\n}\n# <- (the end of the file)',
    "template if without endif": 'locals {\n  a = "%{ if true }x"  # <-\n}\n',
    "tuple for with a key": 'locals {\n  a = [for k, v in {} : k => v]  # <-\n}\n',
    "object for without a key": 'locals {\n  a = {for v in [] : v}  # <-\n}\n',
    "legacy index chained": 'locals {\n  a = var.x.0.1  # <-\n}\n',
    "number with two dots": 'locals {\n  a = 1.2.3  # <-\n}\n',
    "hex number": 'locals { a = 0x1F }  # <-\n',
    "semicolon": 'locals {\n  a = 1;  # <-\n}\n',
    "single quotes": "locals {\n  a = 'x'  # <-\n}\n",
    "bitwise operator": 'locals {\n  a = 1 & 2  # <-\n}\n',
    "missing false arm": 'locals {\n  a = true ? 1  # <-\n}\n',
    "unbalanced parentheses": 'locals {\n  a = (1 2)  # <-\n}\n',
    "dot without a name": 'locals {\n  a = var.[0]  # <-\n}\n',
    "index not closed": 'locals {\n  a = var.x[0\n}\n# <- (where recovery stops: the end of the file)',
}


def test_each_kind_of_error_is_placed_on_terraforms_line_with_its_summary(tmp_path):
    import re

    names = list(CASES)
    for i, name in enumerate(names):
        (tmp_path / f"c{i}.tf").write_text(CASES[name])
    proc = run_terraform(["fmt", "-check", "-no-color", "."], tmp_path)
    theirs: dict[str, tuple[int, str]] = {}
    for match in re.finditer(r"Error: (.*)\n\n  on (c\d+\.tf) line (\d+)", proc.stderr):
        summary, file, line = match.group(1), match.group(2), int(match.group(3))
        if file not in theirs or line < theirs[file][0]:
            theirs[file] = (line, summary)
    ours, expected = {}, {}
    for i, name in enumerate(names):
        source = CASES[name].encode()
        found = hcl_errors(source)
        ours[name] = (source[: found[0].start].count(b"\n") + 1, found[0].summary) if found else None
        expected[name] = theirs.get(f"c{i}.tf")
        # The analysis reports the same line (tfphi check, the editor).
        errors = parse_file("main.tf", source).errors
        assert errors, name
        assert source[: errors[0].span.start].count(b"\n") + 1 == expected[name][0], name
    assert ours == expected
    # The cases say where they break (their marker), and terraform agrees.
    assert {name: marked_line(CASES[name]) for name in names} == {name: expected[name][0] for name in names}


def test_a_file_terraform_accepts_has_no_error_and_is_rarely_looked_at():
    """The example workspace: no error, and no shape that asks for the slower check (the check
    every file gets is a few regular-expression searches)."""
    files = sorted(ROOT.glob("examples/**/*.tf"))
    assert files
    for path in files:
        assert hcl_errors(path.read_bytes()) == [], path
        assert not suspicious(path.read_bytes()), path


def test_a_generated_workspace_is_never_looked_at(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from generate import generate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    generate(tmp_path, 12)
    files = sorted(tmp_path.glob("**/*.tf"))
    assert len(files) >= 30
    assert [p for p in files if suspicious(p.read_bytes())] == []


def test_an_argument_set_twice():
    source = b'locals {\n  a = 1\n  a = 2\n}\n'
    assert [(e.summary, source[e.start:e.end]) for e in hcl_errors(source)] == [("Attribute redefined", b"a")]
    # tree-sitter-hcl accepts it and no shape of error_shapes finds it: the bodies are looked at for
    # it (test_argument_set_twice.py has the cases, against terraform).
    assert [(source[e.span.start : e.span.end], e.message) for e in parse_file("main.tf", source).errors] == [
        (b"a", "attribute redefined: the argument 'a' was already set; each argument may be set only once")]


def test_nesting_too_deep_for_the_check_keeps_tree_sitters_errors():
    source = b"locals {\n  a = " + b"(" * 5000 + b"1" + b")" * 4999 + b"\n}\n"
    assert hcl_errors(source) is None
    assert parse_file("main.tf", source).errors


@pytest.mark.parametrize("source, line, summary", [
    (b"\xef\xbb\xbflocals {\n  a = = 1\n}\n", 2, "Invalid expression"),  # a byte-order mark: offsets start at 3
    (b'locals {\r\n  a = 1 b = 2\r\n}\r\n', 2, "Missing newline after argument"),  # CRLF
    (b'locals {\n  a = <<-EOT\n    x ${1 +} y\n  EOT\n}\n', 3, "Invalid expression"),  # inside a heredoc
    (b'locals {\n  # a = = 1\n  /* b = = 2 */\n  c = "${"}"}"\n}\n', None, None),  # comments, nested strings
])
def test_the_scanner_reads_what_terraforms_reads(source, line, summary):
    found = hcl_errors(source)
    if line is None:
        assert found == []
    else:
        assert (source[: found[0].start].count(b"\n") + 1, found[0].summary) == (line, summary)


# A suspicious item (a "=" in a description, a "for") beside items that are fine or broken.
_ITEMS_CASES = {
    "fine items": b'variable "a" {\n  description = "set x = y here"\n}\n\nlocals {\n  b = {for k, v in {a = 1} : k => v}\n}\n',
    "an error in another item": b'variable "a" {\n  description = "set x = y here"\n}\nlocals {\n  a = 1   b = 2\n}\n',
    "an argument set twice across items": b'a = "set k = v here"\nb = 1\na = 2\n',
    "items sharing a line": b'locals {\n  a = "set k = v here"\n} locals {\n}\n',
    "a block comment running past the line": b'locals {\n  a = "set k = v here"\n} /* x\n  y = = */\nlocals {\n}\n',
}


def test_checking_only_the_suspicious_items_gives_the_whole_files_answer():
    """``terraform_placed`` given the tree checks only the top-level items whose own text has a
    suspicious shape, then the whole file when one of them has an error: over the differential
    test's broken files (those tree-sitter reads without an error) and a few made for it, the
    answer is the whole check's."""
    from broken_files import corpus, mutants, seed_of

    from tfphi.syntax.error_shapes import items_clean, terraform_placed
    from tfphi.syntax.hclfile import new_parser

    parser = new_parser()
    cases = [(name, text) for name, text in _ITEMS_CASES.items()]
    cases += [(f"{path.name}: {what}", text) for path in corpus(ROOT)
              for what, text in mutants(path.read_bytes(), 60, seed_of(path.relative_to(ROOT)))]
    compared = 0
    for name, text in cases:
        root = parser.parse(text).root_node
        if root.has_error or not suspicious(text):
            continue
        assert terraform_placed("main.tf", text, [], root) == terraform_placed("main.tf", text, []), name
        compared += 1
    assert compared >= 40
    found = {name: [(e.span.start, e.message) for e in terraform_placed("main.tf", text, [], parser.parse(text).root_node)]
             for name, text in _ITEMS_CASES.items()}
    assert found == {
        "fine items": [],
        "an error in another item": [(69, "missing newline after argument: an argument definition must end with a newline")],
        "an argument set twice across items": [(27, "attribute redefined: the argument 'a' was already set; each argument may be set only once")],
        "items sharing a line": [(34, "missing newline after block definition: a block definition must end with a newline")],
        "a block comment running past the line": [],
    }
    # The fine ones are shown fine without the whole check.
    assert [name for name, text in _ITEMS_CASES.items() if items_clean(text, parser.parse(text).root_node)] == [
        "fine items", "a block comment running past the line"]


def test_bytes_found_clean_once_are_not_searched_again(monkeypatch):
    """A corpus repeats whole files: bytes found free of errors skip the searches next time,
    wherever they are (the host's ``CleanSources``); bytes with an error are checked each time
    (their errors name the file)."""
    from tfphi.syntax import hclfile, searches

    clean = b'variable "a" {\n  description = "set x = y here"\n}\n'  # suspicious, and fine
    broken = b'locals {\n  a = 1   b = 2\n}\n'
    found = searches.CleanSources()
    assert parse_file("one/main.tf", clean, keep_tree=False, clean=found).errors == []
    assert clean in found
    monkeypatch.setattr(hclfile, "terraform_placed", None)  # not called again for these bytes
    assert parse_file("two/main.tf", clean, keep_tree=False, clean=found).errors == []
    monkeypatch.undo()
    first = parse_file("one/main.tf", broken, clean=found).errors
    second = parse_file("two/main.tf", broken, clean=found).errors
    assert [(e.span.file, e.span.start) for e in first + second] == [("one/main.tf", 19), ("two/main.tf", 19)]
    assert broken not in found
    assert clean not in searches.CleanSources()  # each owner its own (the analysis host's)
    # bounded by the bytes held: past the bound it starts again
    monkeypatch.setattr(searches.CleanSources, "MAX_BYTES", len(clean) + 10)
    found = searches.CleanSources()
    parse_file("one/main.tf", clean, clean=found)
    parse_file("one/other.tf", clean + b"\n", clean=found)
    assert clean not in found and clean + b"\n" in found
