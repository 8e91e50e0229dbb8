"""Syntax errors in a file with Windows line endings (CRLF) are the errors of the same file with
LF endings, placed on the same line and column, and Terraform's (``terraform fmt``): the shapes
tree-sitter-hcl accepts and Terraform rejects (``error_shapes.suspicious``) are found before a
``"\\r\\n"`` as before a ``"\\n"``, in a file read whole and in a keystroke's region
(``syntax.regions``).

The texts are the syntax-error tests' own: each kind of error Terraform's parser reports
(tests/features/test_syntax_errors.py, with and without its ``# <-`` mark, which hides a shape
at a line's end behind a comment), the items cases, and the differential test's broken files
(the example workspace with one token deleted or inserted by a seeded generator,
tests/features/broken_files.py), and shapes at a line's end written for it. On main before
session 14, 44 of these 584 CRLF texts were reported clean, each rejected by Terraform: three
kinds of error ("argument then brace", "value on the next line", "operator at the end of a
line": no ``"\\r"`` expected before the line's end in the reversed search, ``_LINE_ENDS``), 17
of the line-end shapes (a block type alone on its line too, ``_NAME_ALONE``) and 24 broken files.
"""

from __future__ import annotations

import re
from pathlib import Path

from broken_files import corpus, mutants, seed_of
from test_syntax_differential import terraform_verdicts
from test_syntax_errors import _ITEMS_CASES, CASES

from tfphi.lsp.documents import Document, TextChange
from tfphi.syntax.error_shapes import suspicious
from tfphi.syntax.hclfile import new_parser, parse_file
from tfphi.syntax.searches import search_blocks
from tfphi.syntax.syntax_errors import hcl_errors

ROOT = Path(__file__).resolve().parents[2]
MUTANTS_PER_FILE = 60  # (the differential test's)
_MARK = re.compile(r"[ \t]*# <-[^\n]*")

# Shapes at a line's end, written for this test: the ones a "\r" before the "\n" hid, each with
# its operand or value on the next line, or a name alone on its line.
LINE_ENDS = {
    "name alone, then =": 'locals {\n  a\n  = 1\n}\n',
    "name alone, then a value": 'locals {\n  a\n  b = 1\n}\n',
    "name alone in a block": 'resource "a" "b" {\n  lifecycle {\n    x\n  }\n}\n',
    "name alone before a comment": 'locals {\n  a # note\n  = 1\n}\n',
    "block type alone, its { below": 'locals\n{\n  a = 1\n}\n',
    "nested block type alone, its { below": 'resource "a" "b" {\n  lifecycle\n  {\n  }\n}\n',
    "name alone, then a block": 'resource "a" "b" {\n  dynamic\n  x {\n  }\n}\n',
    "a name alone in a list is fine": 'locals {\n  a = [\n    b\n  ]\n}\n',
    **{f"{op} ending a line": f'locals {{\n  a = 1 {op}\n  2\n}}\n' for op in ("+", "-", "*", "%", "&&", "||", "==", "<", "!=")},
    "ternary split": 'locals {\n  a = true ?\n  1 : 2\n}\n',
    "traversal split": 'locals {\n  a = var.\n  x\n}\n',
    "= ending a line": 'locals {\n  a =\n  1\n}\n',
    "argument then its block's brace": 'output "o" {\n  value = 1 }\n',
    "argument then its block's brace, an object": 'output "o" {\n  value = { a = 1 } }\n',
    "a heredoc's marker alone is fine": 'locals {\n  a = <<EOT\n  x\nEOT\n}\n',
}


def texts() -> list[tuple[str, str]]:
    """(name, LF text) of every case: the kinds of error with and without their mark, the line
    ends above, the items cases and the broken files."""
    cases = [(f"{name} (marked)", text) for name, text in CASES.items()]
    cases += [(name, _MARK.sub("", text)) for name, text in CASES.items()]
    cases += list(LINE_ENDS.items())
    cases += [(name, text.decode()) for name, text in _ITEMS_CASES.items()]
    for path in corpus(ROOT):
        source = path.read_bytes()
        assert b"\r" not in source, path  # (LF texts: the CRLF ones are made from them)
        cases += [(f"{path.relative_to(ROOT)}: {what}", text.decode("utf-8", "replace"))
                  for what, text in mutants(source, MUTANTS_PER_FILE, seed_of(path.relative_to(ROOT)))]
    return cases


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def _place(source: bytes, at: int) -> tuple[int, int]:
    """(1-based line, 0-based byte column) of ``at``: the same in a CRLF text as in its LF one."""
    return source[:at].count(b"\n") + 1, at - (source.rfind(b"\n", 0, at) + 1)


def _as_lf(piece: bytes) -> bytes:
    return piece.replace(b"\r\n", b"\n")


def verdict(source: bytes, errors=None) -> list:
    """The syntax errors tfphi reports for ``source`` (``parse_file``, or ``errors``), each as its
    message, where it starts and ends (line, column) and the text it covers."""
    if errors is None:
        errors = parse_file("main.tf", source).errors
    return [(e.message, _place(source, e.span.start), _place(source, e.span.end), _as_lf(source[e.span.start : e.span.end]))
            for e in errors]


def regions(source: bytes) -> list:
    """Where the text tree-sitter could not read starts and ends (line, column), for each error:
    what the error keeps from being reported undefined (``SyntaxProblem.region``)."""
    return [None if e.region is None else (_place(source, e.region.start), _place(source, e.region.end))
            for e in parse_file("main.tf", source).errors]


def scanner_verdict(source: bytes) -> list | None:
    """What ``syntax_errors.hcl_errors`` (the check a suspicious file gets) finds: summary and place of each error."""
    found = hcl_errors(source)
    return None if found is None else [(e.summary, _place(source, e.start), _place(source, e.end)) for e in found]


def terraform_first_errors(tmp: Path, sources: list[bytes]) -> list[int | None]:
    """The line of Terraform's first error in each file (None: it accepts it): the differential
    test's one run of ``terraform fmt -check`` over a directory of them."""
    return [line for _, line in terraform_verdicts(tmp, sources)]


def test_a_crlf_file_has_the_errors_of_its_lf_text_on_the_same_lines_and_columns():
    cases = texts()
    differ, regions_differ = {}, {}
    for name, text in cases:
        lf, cr = text.encode(), crlf(text)
        if suspicious(lf) != suspicious(cr):
            differ[name] = ("suspicious", suspicious(lf), suspicious(cr))
        elif verdict(lf) != verdict(cr):
            differ[name] = ("errors", verdict(lf), verdict(cr))
        elif scanner_verdict(lf) != scanner_verdict(cr):
            differ[name] = ("scanner", scanner_verdict(lf), scanner_verdict(cr))
        if regions(lf) != regions(cr):
            regions_differ[name] = (regions(lf), regions(cr))
    assert len(cases) >= 500
    assert differ == {}
    # The text tree-sitter could not read is the same too (an unterminated heredoc's block, up to
    # the end: ``tree_errors.unclosed_brace`` reads a CRLF heredoc since session 14), but where
    # tree-sitter's own recovery reads the CRLF text otherwise: here it reads the block around
    # the "'" as a block (with a MISSING heredoc in it) where the LF text is one ERROR node, and
    # the region starts at Terraform's error. The error reported is the same.
    assert regions_differ == {"single quotes (marked)": ([((1, 0), (4, 0))] * 2, [((2, 6), (4, 0))] * 2)}


def test_a_crlf_file_s_first_error_is_on_terraform_s_line(tmp_path):
    """Terraform reads the CRLF texts as their LF ones (its scanner's newline is "\\r\\n" or
    "\\n"): the differential test's comparison, on the CRLF texts."""
    cases = texts()
    sources = [crlf(text) for _, text in cases]
    theirs = terraform_first_errors(tmp_path, sources)
    ours = [(lambda errors: _place(source, errors[0].span.start)[0] if errors else None)(parse_file("main.tf", source).errors)
            for source in sources]
    disagreements = [(name, t, o) for (name, _), t, o in zip(cases, theirs, ours) if t != o]
    assert sum(line is not None for line in theirs) >= len(cases) * 3 // 4
    assert disagreements == []


def _seam(text: str) -> int:
    """Where a block may be typed in ``text``: the start of its second top-level block."""
    return [m.start() for m in re.finditer(r"(?m)^(?=[a-z])", text)][1]


_DOCUMENT = 'variable "a" {\n  default = 1\n}\n\nlocals {\n  b = var.a\n}\n\noutput "o" { value = local.b }\n'


def test_a_shape_typed_into_a_crlf_document_is_reported_as_in_an_lf_one():
    """A keystroke's parse of an open document (``syntax.regions``, a region of the text read
    alone): each case's text typed (pasted) between two blocks of an error-free document reports
    what a fresh parse of the whole text reports, the same with CRLF endings as with LF ones."""
    checked = 0
    for name, case in [*LINE_ENDS.items(), *((n, _MARK.sub("", t)) for n, t in CASES.items())]:
        for newline in ("\n", "\r\n"):
            document, typed = _DOCUMENT.replace("\n", newline), case.replace("\n", newline)
            at = _seam(document)
            parser = new_parser()
            doc = Document("main.tf", 0, document.encode())
            doc.parse("main.tf", parser)
            doc.apply([TextChange(typed, (doc.position(at), doc.position(at)))], 1)
            edited = doc.parse("main.tf", parser)
            text = (document[:at] + typed + document[at:]).encode()
            assert edited.source == text
            fresh = parse_file("main.tf", text, new_parser())
            assert verdict(text, edited.errors) == verdict(text, fresh.errors), (name, newline)
            if newline == "\n":
                lf = verdict(text, fresh.errors)
            else:
                assert verdict(text, fresh.errors) == lf, name
            checked += 1
    assert checked == 2 * (len(LINE_ENDS) + len(CASES))


def test_a_line_end_shape_typed_inside_a_crlf_block_is_reported(tmp_path):
    """Lines typed inside a block of an error-free document (one keystroke, a paste), which
    tree-sitter reads without an error and Terraform rejects: the same error, on the same line
    and column, with either line ending, on Terraform's line."""
    typed = {"c = 1 +\n  2": ("invalid expression", (6, 9)), "c = 1 ==\n  2": ("invalid expression", (6, 10)),
             "c = var.\n  a": ("invalid attribute name", (6, 10)), "c\n  = 2": ("argument or block definition required", (6, 2)),
             "c = [1]\n  }": ("argument or block definition required", (9, 0)),
             "c = 1 }": ("missing newline after argument", (6, 8))}
    found, texts = {}, []
    for newline in ("\n", "\r\n"):
        document = _DOCUMENT.replace("\n", newline)
        at = document.index("  b = var.a")
        for lines in typed:
            parser = new_parser()
            doc = Document("main.tf", 0, document.encode())
            doc.parse("main.tf", parser)
            text = "  " + lines.replace("\n", newline) + newline
            doc.apply([TextChange(text, (doc.position(at), doc.position(at)))], 1)
            edited = doc.parse("main.tf", parser)
            assert verdict(edited.source, edited.errors) == verdict(edited.source, parse_file("main.tf", edited.source).errors)
            errors = verdict(edited.source, edited.errors)
            found[newline, lines] = (errors[0][0].split(":")[0], errors[0][1]) if errors else None
            texts.append(edited.source)
    assert found == {(newline, lines): where for newline in ("\n", "\r\n") for lines, where in typed.items()}
    assert terraform_first_errors(tmp_path, texts) == [line for _, (line, _) in found.values()]


def test_a_crlf_document_s_keystroke_searches_its_blocks_not_the_whole_text():
    """After a keystroke, the shapes' search asks each top-level block's own answer and searches
    the text between them (``searches.search_blocks``), in a CRLF document as in an LF one: a
    block ending its line before a CRLF's "\\r" is a whole line (before session 14 every search
    of a Windows file was the whole text's)."""
    searched = {}
    for newline in ("\n", "\r\n"):
        document = _DOCUMENT.replace("\n", newline)
        parser = new_parser()
        doc = Document("main.tf", 0, document.encode())
        doc.parse("main.tf", parser)
        at = document.index("var.a")
        doc.apply([TextChange("x", (doc.position(at), doc.position(at)))], 1)
        edited = doc.parse("main.tf", parser)
        texts: list[bytes] = []
        assert search_blocks(0, lambda text: texts.append(text) or suspicious(text), edited.source, edited.items) is False
        searched[newline] = [_as_lf(text) for text in texts]
    assert searched["\r\n"] == searched["\n"] == [
        b'\nvariable "a" {\n  default = 1\n}', b"\nlocals {\n  b = xvar.a\n}", b'\noutput "o" { value = local.b }', b"\n\n\n\n\n"]
