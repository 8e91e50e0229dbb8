"""An argument set twice in one body, which tree-sitter-hcl reads without an error and Terraform
rejects ("Attribute redefined", at the second name): tfphi flags exactly the files the real
``terraform fmt`` rejects, on the line of its first error, whichever way the file is read (kept
tree, dropped tree, an edited document's parse that takes unchanged blocks over), and no file
where a name legitimately repeats (sibling blocks, objects' keys, heredocs, comments)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from broken_files import corpus, marked_line
from terraform_cli import run_terraform

from tfphi.syntax.searches import CleanSources
from tfphi.syntax.hclfile import new_parser, parse_file

ROOT = Path(__file__).resolve().parents[2]


def _message(name: str) -> str:
    return f"attribute redefined: the argument {name!r} was already set; each argument may be set only once"


# Terraform's first error is on the line marked "<-" (the second name); no marker: Terraform accepts it.
CASES = {
    "in a top-level block": 'locals {\n  a = 1\n  a = 2  # <-\n}\n',
    "three times": 'locals {\n  a = 1\n  a = 2  # <-\n  a = 3\n}\n',
    "in a nested block": ('resource "terraform_data" "r" {\n  input = 1\n  lifecycle {\n    create_before_destroy = true\n'
                          '    create_before_destroy = false  # <-\n  }\n}\n'),
    "three levels deep": 'resource "aws_instance" "a" {\n  b {\n    c {\n      y = 1\n      z = 2\n      y = 3  # <-\n    }\n  }\n}\n',
    "in a dynamic block's content": ('resource "aws_security_group" "s" {\n  dynamic "ingress" {\n    for_each = var.rules\n'
                                     '    content {\n      from_port = 1\n      to_port   = 2\n      from_port = 3  # <-\n    }\n  }\n}\n'),
    "beside nested blocks that repeat it": ('resource "aws_security_group" "s" {\n  description = "a"\n  ingress {\n    description = "b"\n  }\n'
                                            '  egress {\n    description = "c"\n  }\n  description = "d"  # <-\n}\n'),
    "in a variable (a body read as the file is)": 'variable "v" {\n  type    = string\n  default = "x"\n  type    = number  # <-\n}\n',
    "in a variable's validation": ('variable "v" {\n  validation {\n    condition     = true\n    condition     = false  # <-\n'
                                   '    error_message = "x"\n  }\n}\n'),
    "in a module call": 'module "m" {\n  source = "./m"\n  source = "./n"  # <-\n}\n',
    "in an output": 'output "o" {\n  value = 1\n  value = 2  # <-\n}\n',
    "in the top-level body": 'a = 1\nb = 2\na = 3  # <-\n',
    "after a block comment": 'resource "x" "y" {\n  a = 1\n  /* again */ a = 2  # <-\n}\n',
    "with a comment before its =": 'resource "x" "y" {\n  a = 1\n  a /* again */ = 2  # <-\n}\n',
    "at another indentation": 'resource "x" "y" {\n  a = 1\n        a = 2  # <-\n}\n',
    "at the start of the line, with a block between": 'resource "x" "y" {\na = 1\nb {\n}\na = 2  # <-\n}\n',
    "with CRLF line ends": 'resource "x" "y" {\r\n  a = 1\r\n  a = 2  # <-\r\n}\r\n',
    "a name that is not ASCII": 'resource "x" "y" {\n  é = 1\n  é = 2  # <-\n}\n',
    "with a heredoc before it": 'resource "x" "y" {\n  a = <<EOT\n  b = 1\nEOT\n  a = 2  # <-\n}\n',
    # Terraform accepts these:
    "sibling blocks repeat their arguments": ('resource "aws_security_group" "s" {\n  ingress {\n    from_port = 1\n  }\n'
                                              '  ingress {\n    from_port = 2\n  }\n}\n'),
    "dynamic blocks repeat for_each and content": ('resource "x" "y" {\n  dynamic "a" {\n    for_each = [1]\n    content {\n      v = 1\n    }\n  }\n'
                                                   '  dynamic "b" {\n    for_each = [2]\n    content {\n      v = 2\n    }\n  }\n}\n'),
    "one-line blocks": 'resource "x" "y" {\n  b { a = 1 }\n  b { a = 2 }\n}\n',
    "an object's keys repeat": 'locals {\n  x = {\n    a = 1\n    a = 2\n  }\n  y = { a = 1, a = 2 }\n}\n',
    "heredoc lines": 'resource "x" "y" {\n  a = <<-EOT\n    a = 1\n    a = 2\n  EOT\n}\n',
    "comment lines": 'resource "x" "y" {\n  a = 1\n  # a = 2\n  // a = 3\n  /* a = 4 */\n  /*\n  a = 5\n  */\n}\n',
    "the same name in two blocks": 'locals {\n  a = 1\n}\n\nlocals {\n  a = 2\n}\n',
    "an argument and a block of one name": 'resource "x" "y" {\n  a = 1\n  a {\n  }\n}\n',
    "an empty block and a comment after the body": 'resource "x" "y" {\n  a = 1\n  b {}\n  # a = 2\n}\n',
}


def _first_error(source: bytes, errors) -> tuple[int, str] | None:
    if not errors:
        return None
    return source[: errors[0].span.start].count(b"\n") + 1, errors[0].message


def _name_on(source: str, line: int) -> str:
    text = source.split("\n")[line - 1].replace("/* again */", "")
    return text.split("=")[0].strip()


def _theirs(tmp: Path, texts: list[bytes]) -> list[tuple[int, str] | None]:
    """Terraform's first error (line, summary) of each text, with one ``terraform fmt`` run."""
    for i, text in enumerate(texts):
        (tmp / f"c{i}.tf").write_bytes(text)
    proc = run_terraform(["fmt", "-check", "-no-color", "."], tmp)
    first: dict[str, tuple[int, str]] = {}
    for match in re.finditer(r"Error: (.*)\n\n  on (c\d+\.tf) line (\d+)", proc.stderr):
        summary, file, line = match.group(1), match.group(2), int(match.group(3))
        if file not in first or line < first[file][0]:
            first[file] = (line, summary)
    assert proc.stderr.count("Error:") >= len(first)
    return [first.get(f"c{i}.tf") for i in range(len(texts))]


def test_each_case_is_flagged_exactly_when_terraform_rejects_it_on_its_line(tmp_path):
    names = list(CASES)
    theirs = _theirs(tmp_path, [CASES[n].encode() for n in names])
    # Terraform agrees with each case's marker, and says "Attribute redefined".
    assert {n: theirs[i] for i, n in enumerate(names)} == {
        n: (marked_line(CASES[n]), "Attribute redefined") if marked_line(CASES[n]) else None for n in names}
    for name in names:
        source = CASES[name].encode()
        line = marked_line(CASES[name])
        expected = (line, _message(_name_on(CASES[name], line))) if line else None
        clean = CleanSources()  # (the host's: the blocks found to set nothing twice are remembered)
        for keep_tree in (True, False):  # an open document's parse, a file read from disk
            assert _first_error(source, parse_file("main.tf", source, keep_tree=keep_tree, clean=clean).errors) == expected, (name, keep_tree)
        # Asked again, the blocks found clean are remembered: the same answers.
        assert _first_error(source, parse_file("main.tf", source, keep_tree=False, clean=clean).errors) == expected, name


def test_every_argument_of_the_example_workspace_set_twice(tmp_path):
    """Each one-line argument of the example workspace written a second time below itself (in
    every kind of body of a real configuration), and each nested block written twice (a name
    repeated legitimately): flagged exactly when Terraform rejects, on its line."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from generate import generate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    generate(tmp_path / "ws", 6)  # dynamic blocks, sibling blocks, objects
    cases: list[tuple[str, bytes]] = []
    for path in corpus(ROOT) + sorted((tmp_path / "ws").glob("**/*.tf")):
        source = path.read_bytes()
        lines = source.split(b"\n")
        for i, line in enumerate(lines):
            if re.match(rb"\s*[\w-]+\s*=\s*[^{\[(\s<]", line) and not line.rstrip().endswith((b"(", b"[", b"{")):
                cases.append((f"{path.name}:{i + 1} twice", b"\n".join(lines[: i + 1] + [line] + lines[i + 1 :])))
            header = re.match(rb"(\s+)[\w-]+( \"[^\"]*\")* \{$", line)
            if header:
                end = next(j for j in range(i + 1, len(lines)) if lines[j] == header.group(1) + b"}")
                block = lines[i : end + 1]
                cases.append((f"{path.name}:{i + 1} block twice", b"\n".join(lines[: end + 1] + block + lines[end + 1 :])))
    (tmp_path / "tf").mkdir()
    theirs = _theirs(tmp_path / "tf", [text for _, text in cases])
    ours = [_first_error(text, parse_file("main.tf", text, keep_tree=False).errors) for _, text in cases]
    assert [(case, t and t[0]) for (case, _), t in zip(cases, theirs)] == [(case, o and o[0]) for (case, _), o in zip(cases, ours)]
    assert sum(t is not None and t[1] == "Attribute redefined" for t in theirs) >= 300  # (386 of 488)
    assert sum(t is None for t in theirs) >= 80  # the repeated blocks, which Terraform accepts (102)
    assert all(o is None or o[1].startswith("attribute redefined") for o in ours)


def _edited(previous, source: bytes):
    """``source`` parsed as an edited document's next version (unchanged blocks taken over)."""
    return parse_file("main.tf", source, new_parser(), previous=previous)


def test_an_edited_document_reports_the_argument_set_twice_and_forgets_it():
    """An open document's parse after an edit takes unchanged top-level blocks over from the
    previous parse and looks only at the blocks read anew: an edit that sets an argument a
    second time (in a nested block, and in the top-level body) is flagged, and undoing it is not."""
    head = b'locals {\n  a = 1\n}\n\n'
    block = b'resource "x" "y" {\n  ingress {\n    p = 1\n  }\n  ingress {\n    p = 2\n  }\n}\n'
    tail = b'\nresource "x" "z" {\n  q = 1\n}\n'
    clean = parse_file("main.tf", head + block + tail)
    assert clean.errors == []
    steps = [  # typed one character at a time into the second ingress block
        block.replace(b"    p = 2\n", b"    p = 2\n" + b"    p = 3"[:n] + b"\n") for n in range(5, 10)]
    previous = clean
    seen = []
    for text in steps:
        source = head + text + tail
        hcl = _edited(previous, source)
        seen.append([(source[: e.span.start].count(b"\n") + 1, e.message.split(":")[0]) for e in hcl.errors])
        previous = hcl
    # As terraform fmt reports each step: "p" and "p " (no "="), "p =" and "p = " (no value, and
    # set twice), "p = 3" (set twice).
    assert seen == [[(11, "argument or block definition required")]] * 2 + [
        [(11, "attribute redefined"), (11, "invalid expression")]] * 2 + [[(11, "attribute redefined")]]
    assert previous.errors[0].message == _message("p")
    undone = _edited(previous, head + block + tail)
    assert undone.errors == []
    # Again from a clean parse: the edit that sets it twice, in one step (the other blocks taken over).
    again = _edited(undone, head + steps[-1] + tail)
    assert _first_error(head + steps[-1] + tail, again.errors) == (11, _message("p"))
    # In the top-level body (a .tfvars file): attributes are read anew on every parse.
    tfvars = parse_file("main.tf", b'a = 1\nb = 2\n')
    twice = _edited(tfvars, b'a = 1\nb = 2\na = 3\n')
    assert _first_error(b'a = 1\nb = 2\na = 3\n', twice.errors) == (3, _message("a"))


@pytest.mark.parametrize("source", [
    b'locals {\n  a = 1\n  a = 2\n}\n',
    b'resource "x" "y" {\n  b {\n    a = 1\n    a = 2\n  }\n}\n',
])
def test_without_the_whole_check_the_error_is_still_reported(monkeypatch, source):
    """Where the check of the whole file cannot say (a file nested deeper than it reads), the
    argument set twice is reported alone, as Terraform words it."""
    from tfphi.syntax import syntax_errors

    monkeypatch.setattr(syntax_errors, "hcl_errors", lambda source: None)
    line = source[: source.rfind(b"a = 2")].count(b"\n") + 1
    assert [(source[: e.span.start].count(b"\n") + 1, e.message) for e in parse_file("main.tf", source).errors] == [(line, _message("a"))]


def test_a_checked_workspace_reports_every_file_that_sets_an_argument_twice(tmp_path):
    """``tfphi check`` of a generated workspace whose modules repeat each other's files (the
    loader hands repeats in as copies, ``loader.SameBytes``): every file with an argument set
    twice is reported, on its line, and nothing else is."""
    import json
    import subprocess

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from generate import generate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    generate(tmp_path / "ws", 100)
    expected = []
    for path in sorted((tmp_path / "ws").glob("modules/leaf_*/main.tf")):
        text = path.read_text()
        at = text.index('    protocol    = "-1"\n')
        path.write_text(text[:at] + '    protocol    = "-1"\n' + text[at:])
        expected.append((str(path.relative_to(tmp_path / "ws")), text[:at].count("\n") + 2, _message("protocol")))
    assert len(expected) >= 60
    proc = subprocess.run([sys.executable, "-m", "tfphi", "check", str(tmp_path / "ws"), "--format", "json"],
                          capture_output=True, timeout=300)
    assert proc.returncode == 1
    found = [(d["file"], d["range"]["start"]["line"], d["message"].removeprefix("syntax error: "))
             for d in json.loads(proc.stdout)["diagnostics"] if d["code"] == "syntax-error"]
    assert sorted(found) == sorted(expected)


def test_blocks_nested_ten_thousand_deep_are_looked_at_in_linear_time():
    """Each level sets the same argument once (legitimately), the deepest twice: the walk enters
    only blocks holding two lines of a repeated name, found by bisection (a search of each nested
    block's text took 17 s here), and reports it alone (the whole check cannot nest that deep)."""
    depth = 10_000
    source = ('resource "a" "b" {\n' + "b {\n  x = 1\n" * depth + "  x = 2\n" + "}\n" * depth + "}\n").encode()
    assert _first_error(source, parse_file("deep.tf", source, keep_tree=False).errors) == (2 * depth + 2, _message("x"))
    clean = source.replace(b"  x = 2\n", b"")
    assert parse_file("deep.tf", clean, keep_tree=False).errors == []


def _walk_everything(source: bytes) -> bool:
    """Whether any body of the file sets an argument twice: every body of the tree read, no search first."""
    tree = new_parser().parse(source)
    body = next((c for c in tree.root_node.children if c.type == "body"), None)
    stack = [body] if body is not None else []
    while stack:
        names = set()
        for item in stack.pop().children:
            if item.type == "attribute":
                name = source[item.start_byte : item.child(0).end_byte]
                if name in names:
                    return True
                names.add(name)
            elif item.type == "block":
                stack.extend(c for c in item.children if c.type == "body")
    return False


def test_the_search_misses_nothing_a_walk_of_every_body_finds(tmp_path):
    """Argument lines of real files copied to random places, at random indentations, some after a
    block comment: wherever tree-sitter and the whole check (``hcl_errors``, itself compared with
    terraform above) find no other error, tfphi flags exactly the files where a walk of every body
    finds an argument set twice: for a file read from disk, an open document, and the same line
    typed into the open original (the parse that takes unchanged blocks over)."""
    import random

    from tfphi.syntax.syntax_errors import hcl_errors

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from generate import generate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    generate(tmp_path / "ws", 6)
    sources = [p.read_bytes() for p in corpus(ROOT) + sorted((tmp_path / "ws").glob("**/*.tf"))]
    rng = random.Random(20261123)
    compared = flagged = 0
    for _ in range(700):
        original = rng.choice(sources)
        lines = original.split(b"\n")
        arguments = [line.strip() for line in lines if re.match(rb"\s*[\w-]+\s*=\s*[^{\[(\s<]", line) and not line.rstrip().endswith((b"(", b"[", b"{"))]
        if not arguments:
            continue
        line = b" " * rng.choice((0, 2, 4, 6, 9)) + rng.choice((b"", b"", b"/* c */ ")) + rng.choice(arguments)
        lines.insert(rng.randrange(1, len(lines)), line)
        source = b"\n".join(lines)
        if new_parser().parse(source).root_node.has_error:
            continue
        summaries = {e.summary for e in hcl_errors(source) or []}
        if summaries - {"Attribute redefined"}:
            continue  # another error: the whole check answers for the file anyway
        expected = _walk_everything(source)
        assert expected == ("Attribute redefined" in summaries)
        for keep_tree in (False, True):
            assert bool(parse_file("main.tf", source, keep_tree=keep_tree).errors) == expected, (source, keep_tree)
        # The line typed into the open, error-free original: the blocks it did not touch are taken over.
        assert bool(_edited(parse_file("main.tf", original), source).errors) == expected, source
        compared += 1
        flagged += expected
    assert compared >= 600 and 150 <= flagged <= compared - 150  # (692 and 273)
