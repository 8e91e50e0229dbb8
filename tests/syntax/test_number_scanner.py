"""Number literals read as HCL's scanner reads them, whatever tree-sitter-hcl's tokens are."""

from __future__ import annotations

from tree_sitter import Point

from tfphi.syntax.expr import LiteralExpr
from tfphi.syntax.hclfile import new_parser, parse_file
from tfphi.syntax.scanner import respelled_tokens, tree_sitter_spelling


def spelled(text: str) -> str:
    return tree_sitter_spelling(text.encode()).decode()


def test_only_numbers_in_expressions_are_spelled_for_tree_sitter():
    source = '''a = 3e3 # 4e4
b = "5e5 ${6e6} $${7e7}" // 8e8
c = x-9e9 + y1e1 + -2E+2 + 1.5e3 + z.4e1
/* 1e1 */ d = <<EOT
3e3 ${1e-1}
EOT
é = "é" + 2e2
'''
    assert spelled(source) == '''a = 303 # 4e4
b = "5e5 ${606} $${7e7}" // 8e8
c = x-9e9 + y1e1 + -2002 + 1.5e3 + z.401
/* 1e1 */ d = <<EOT
3e3 ${1001}
EOT
é = "é" + 202
'''
    assert tree_sitter_spelling(b"a = 1.5e3") is not None and tree_sitter_spelling(b"a = 1") == b"a = 1"


def test_byte_offsets_after_non_ascii_text():
    source = 'x = "ü" + 1e2'.encode()
    [(start, end)] = respelled_tokens(source)
    assert source[start:end] == b"1e2"


def value_of(text: str):
    hcl = parse_file("main.tf", text.encode())
    return hcl.body.attributes["a"].expr


def test_the_literal_value_is_the_whole_literal():
    for text, value in [("3e3", 3000), ("1E+2", 100), ("25e-1", 2.5), ("007", 7), ("1.5e3", 1500)]:
        expr = value_of(f"a = {text}\n")
        assert isinstance(expr, LiteralExpr) and expr.value == value, text


def test_an_incremental_parse_reads_a_literal_an_edit_completes():
    """Typing ``3`` after ``1e`` changes how bytes before the edit are spelled: the parse is done afresh."""
    parser = new_parser()
    old = b"a = 1e\nb = 2\n"
    tree = parser.parse(old)
    new = b"a = 1e3\nb = 2\n"
    tree.edit(start_byte=6, old_end_byte=6, new_end_byte=7, start_point=Point(0, 6),
              old_end_point=Point(0, 6), new_end_point=Point(0, 7))
    edited = parse_file("main.tf", new, parser, tree)
    fresh = parse_file("main.tf", new)
    assert str(edited.tree.root_node) == str(fresh.tree.root_node)
    assert not edited.errors and edited.body.attributes["a"].expr.value == 1000
