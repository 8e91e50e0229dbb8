"""A broken text read from its pieces without its whole parse (``syntax.pieces.read_if_broken``)
is what ``hclfile.parse_file`` reads of it, and the pieces claim an error only where there is one.

Generated Terraform texts (blocks with nested blocks indented or not, headers split over lines,
strings over lines, templates, heredocs, ``#``/``//``/``/* */`` comments, top-level arguments,
CRLF), edited by characters typed anywhere (any character, with weight on what opens or closes
something) and deletions: whenever the pieces answer, the whole parse has an error and their
answer equals the whole path's (items, nodes, blocks, errors as placed, references, findings); an
open document edited keystroke by keystroke reads what a fresh parse reads."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfphi.lsp.documents import Document, TextChange
from tfphi.stir.file_findings import file_findings
from tfphi.syntax.hclfile import new_parser, parse_file
from tfphi.syntax.pieces import read_if_broken

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_region_parse import TABLE, _findings, _reading, _tree  # noqa: E402  (the region test's readings)

# Top-level items a text is made of (each ends with a line break).
ITEMS = [
    'variable "a" {\n  default = 1\n}\n',
    'locals {\n  b = var.a # a comment\n  c = "${local.b}-${var.missing}"\n}\n',
    'resource "null_resource" "r" {\n  triggers = {\n    x = local.c\n  }\n  lifecycle {\n    ignore_changes = [triggers]\n  }\n}\n',
    'module "m" {\n  source = "./m"\n  text   = "hello ${local.b}"\n}\n',
    'output "o" { value = module.m.x }\n',
    'data "d" "e" {}\n',
    # a nested block that starts its line: a cut inside a block
    'resource "null_resource" "n" {\nlifecycle {\n}\nprovisioner "local-exec" {\ncommand = "x"\n}\n}\n',
    # a header over lines (tree-sitter-hcl reads it; Terraform does not)
    'resource\n"null_resource" "s" {\n}\n', 'locals\nfoo {\n}\n',
    # strings over lines, with what looks like a block header inside
    'locals {\n  s = "one\nfoo {\n  two"\n}\n',
    'locals {\n  t = "${\nlocal.b\n}"\n  u = "$${not} %%{not} \\" }"\n}\n',
    # heredocs, a terminator-looking line in one, a header-looking line in one
    'locals {\n  h = <<EOT\nfoo {\n  EOT is not the end\n}\nEOT\n}\n',
    'locals {\n  i = <<-EOF\n    bar "x" {\n    EOF\n}\n',
    # comments over lines, one that starts its line and one that does not
    '/* a comment\nfoo {\n} */\n', 'x = 1 /* over\nbar {\n} */\n', '// c {\n', '# c }\n',
    # top-level arguments and a for expression over lines
    'top = 1\n', 'lst = [\nfor x in {a = 1} : x]\n',
    'obj = {\n  k = "v"\n}\n',
    '\n',
]

# What a user may type, with weight on what opens or closes something.
CHARS = list('"{}[]()#/*<$%\\=\n') + ["\r\n", "EOT\n", "<<EOT\n", "/*", "*/", "${", "a", " ", "x {", "}\n", "é"]


def _text(rnd) -> str:
    text = "".join(rnd.choice(ITEMS) for _ in range(rnd.randint(1, 9)))
    return text.replace("\n", "\r\n") if rnd.random() < 0.2 else text


def _edit(rnd, text: str) -> tuple[int, int, str]:
    """(start, end, inserted): a character (or one of ``CHARS``) typed anywhere, or a deletion."""
    start = rnd.randint(0, len(text))
    return start, min(len(text), start + rnd.choice([0] * 6 + [1, 3, 15])), rnd.choice(["", *CHARS])


def _same(ours, fresh) -> None:
    assert ours.source == fresh.source
    mine, theirs = _reading(ours), _reading(fresh)
    if ours.tree is not None and fresh.tree is not None:  # (both whole trees: compared whole)
        mine["nodes"], theirs["nodes"] = [_tree(ours.tree.root_node)], [_tree(fresh.tree.root_node)]
    elif ours.tree is None and fresh.tree is not None:  # (a region's parse or pieces: item by item)
        theirs["nodes"] = [_tree(top.node()) for top in fresh.top_levels()]
    elif ours.tree is not None and fresh.tree is None:
        mine["nodes"] = [_tree(top.node()) for top in ours.top_levels()]
    assert mine == theirs
    assert _findings(file_findings(ours, TABLE, None)) == _findings(file_findings(fresh, TABLE, None))


def _check_pieces(source: bytes) -> bool:
    """Whether the pieces answered; when they do, the text has an error and they read what the whole path reads."""
    ours = read_if_broken("main.tf", source)
    fresh = parse_file("main.tf", source, new_parser())
    if ours is None:
        return False
    assert fresh.nodes is not None, f"the pieces claimed an error in a text that has none: {source!r}"
    _same(ours, fresh)
    return True


# (uniform draws: positions anywhere in the text, hypothesis replaying a failure by its seed)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_the_pieces_answer_only_for_a_broken_text_and_as_its_whole_parse_does(rnd):
    text = _text(rnd)
    for _ in range(rnd.randint(1, 4)):
        start, end, inserted = _edit(rnd, text)
        text = text[:start] + inserted + text[end:]
    _check_pieces(text.encode())


# Texts the generator above found against wrong versions of the scan (``syntax.pieces._scan``):
FOUND = [
    # a "${" in a block's label is text to tree-sitter-hcl: the scan read it as a template, and
    # the quote after it as the opening of a string running to the end (the first version)
    'resource "null_resource" "n" {\nlifecycle {\n}\nprovisioner "l${ocal-exec" {\ncommand = "x"\n}\n}\n',
    # a "/*" comment read as code (its quote opens a string): with "/*" not skipped
    'locals\r\nfoo {\r\n}\r\n/*" a comment\r\nfoo {\r\n} */\r\n',
    # a heredoc read as code (its header-looking line a cut): without giving up at "<<"
    'locals {\r\n  i = <<-EOF\r\n    bar "x" {\r\n    EOF\r\n}\r\nlocals\r\nfoo {\r\n}\r\n',
    # a header over lines after a block's "}": with any "}" taken for the end of an item
    'variable "a" {\r\n  default = 1\r\n}\r\nlocals\r\nfoo {\r\n}\r\n',
]


@pytest.mark.parametrize("text", FOUND)
def test_what_the_generator_found(text: str):
    _check_pieces(text.encode())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False))
def test_a_broken_document_s_keystrokes_read_what_a_fresh_parse_reads(rnd):
    """An open document edited keystroke by keystroke (a keystroke in a broken text, or one that
    breaks a region, asks the pieces first: ``syntax.regions.parse_edit``) reads what a fresh parse reads."""
    parser = new_parser()
    text = _text(rnd)
    doc = Document("main.tf", 0, text.encode())
    doc.parse("main.tf", parser)
    for version in range(1, rnd.randint(2, 12)):
        start, end, inserted = _edit(rnd, text)
        if 0 < start < len(text) and text[start - 1] == "\r" and text[start] == "\n":
            start += 1  # (an editor's position is never inside a CRLF)
        end = max(start, end + (0 < end < len(text) and text[end - 1] == "\r" and text[end] == "\n"))
        at = len(text[:start].encode()), len(text[:end].encode())  # (the document's positions are of bytes)
        doc.apply([TextChange(inserted, (doc.position(at[0]), doc.position(at[1])))], version)
        text = text[:start] + inserted + text[end:]
        if rnd.random() < 0.8:  # (else parsed with the next keystroke's edit)
            _same(doc.parse("main.tf", parser), parse_file("main.tf", text.encode(), new_parser()))


ROOT = "".join(f'module "m{i}" {{\n  source = "./modules/m{i}"\n  name   = "n{i}"\n  count  = var.n\n}}\n\n' for i in range(30))


def test_the_usual_breakages_of_a_root_module_are_shown_by_its_pieces():
    """A keystroke that breaks a module call of a root module (a stray or a missing brace, a
    quote, a letter after a header, a bracket) is read from the pieces, whole parse unneeded."""
    at = ROOT.index('module "m12"')
    body = ROOT.index("name", at)
    cases = {
        "stray brace": ROOT[:body] + "}" + ROOT[body:],
        "missing brace": ROOT[: ROOT.index("}\n", at)] + ROOT[ROOT.index("}\n", at) + 1 :],
        "extra brace": ROOT[:body] + "{" + ROOT[body:],
        "quote": ROOT[:body] + '"' + ROOT[body:],
        "letter after a header": ROOT[: ROOT.index("{", at) + 1] + "x" + ROOT[ROOT.index("{", at) + 1 :],
        "bracket": ROOT[:body] + "[" + ROOT[body:],
        "equals": ROOT[:body] + "=" + ROOT[body:],
    }
    shown = {name: read_if_broken("main.tf", text.encode()) is not None for name, text in cases.items()}
    assert shown == dict.fromkeys(cases, True)
    for text in cases.values():
        _same(read_if_broken("main.tf", text.encode()), parse_file("main.tf", text.encode(), new_parser()))
