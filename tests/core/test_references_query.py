"""References read by one tree-sitter query (syntax.references, error-free blocks) must be what
the walk along each reference's siblings reads, less the references bound around them, which can
never be undefined (``reference_is_bound`` says which)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfphi.syntax.hclfile import new_parser
from tfphi.syntax.references import (
    Unbound,
    block_references,
    is_bound_check,
    _block_references_fast,
    _block_references_walk,
    reference_is_bound,
    top_level_nodes,
)

REPO = Path(__file__).resolve().parents[2]

CASES = {
    "steps": b'x = var.a.b[0][*].c.d\ny = var.l.*.z\nz = local.m[var.k].x\n',
    "white space and comments between steps": b'x = var.a .b\ny = var.a\n  .b\nz = var.a /* c */ .b\nw = var.a # c\n'
                                               b'v = var. a.b\nu = var./* c */a . b\n',
    "for expressions": b'x = [for k, v in var.m : v.name if k.x]\ny = { for s in local.l : s.id => var.s.id }\n',
    "template for": b'x = "%{ for z in var.l }${z.a}${var.z.a}%{ endfor }"\n',
    "dynamic blocks": b'''resource "aws_security_group" "sg" {
  dynamic "ingress" {
    for_each = var.ports
    content { from_port = ingress.value.port }
  }
  dynamic "egress" {
    for_each = var.ports
    iterator = port
    content {
      from_port = port.value
      to_port   = egress.value
    }
  }
}
''',
    "names that are no references": b'''variable "v" { type = map(object({ a = string })) }
resource "aws_instance" "i" {
  provider = aws.west
  lifecycle {
    ignore_changes       = [tags.x, ami]
    replace_triggered_by = [aws_instance.other.id]
  }
  ami = data.aws_ami.a.id
}
moved {
  from = aws_instance.a
  to   = aws_instance.b
}
module "m" {
  source    = "./m"
  providers = { aws = aws.west }
  x         = module.other.out
}
''',
    "a loop variable named like a root": b'x = [for var in local.l : var.name]\ny = var.name\n',
    # ``.name`` steps are read from the bytes; the tree is asked where the bytes are unsure.
    "dots the bytes alone cannot read": "x = concat(var.l...)\ny = var.\u00f1ame.b\nz = var.a\u00e9.b[0]\n"
                                        "w = var.a-b.c\nv = var.a.0.b\nu = var.a.*.b\nt = var.a[*].b.c\n"
                                        "s = { for k, v in var.m : k => v.x... }\nr = var.a./* c */b.c\n".encode(),
    # Where the names of those regions are found in the text: only an attribute's name or a
    # block's type counts, not the same word in a string, a comment, a longer name or a value.
    "region names elsewhere": b'''resource "aws_instance" "i" {
  description = "type = var.a.b, provider = aws.west"
  # provider = aws.east
  types       = var.t.x
  type_x      = { type = var.o.k }
  tag         = type.name.x
  nested "lifecycle" { lifecycle_x = var.n.m }
  dynamic_x   = dynamic.a.b
  provider    = aws.west
}
''',
}


def _check(source: bytes) -> int:
    tree = new_parser().parse(source)
    dropped = 0
    for top in top_level_nodes(tree.root_node):
        assert not top.has_error
        fast = _block_references_fast(top, source)
        walk = _block_references_walk(top, source)
        assert list(fast) == [ref for ref in walk if not reference_is_bound(top, ref)]
        dropped += len(walk) - len(fast)
    return dropped


@pytest.mark.parametrize("name", sorted(CASES))
def test_query_reads_what_the_walk_reads(name):
    _check(CASES[name])


def test_bound_references_are_left_out():
    assert _check(CASES["dynamic blocks"]) == 2  # ingress.value.port, port.value (not egress.value: the iterator is port)
    assert _check(CASES["names that are no references"]) == 6
    assert _check(CASES["a loop variable named like a root"]) == 1
    assert _check(CASES["region names elsewhere"]) == 1  # aws.west, in provider = ...


def test_every_example_reads_the_same():
    for path in sorted((REPO / "examples").rglob("*.tf")):
        _check(path.read_bytes())


def test_nested_binding_regions_are_decided_by_the_regions_around_each_reference():
    """200 nested ``for`` expressions (each binds ``a``) and a reference in each, beside one
    that no region binds: the query leaves out what ``reference_is_bound`` says is bound."""
    depth = 200
    source = b"x = " + b"[for a in " * depth + b"var.l" + b" : a.b if c.d]" * depth + b"\n"
    assert _check(source) == depth


def test_too_many_binding_regions_keep_every_reference(monkeypatch):
    """Hostile nesting: past MAX_REGIONS the references are kept and decided later."""
    from tfphi.syntax import references

    monkeypatch.setattr(references, "MAX_REGIONS", 64)  # (1,024: the same, slower)
    depth = references.MAX_REGIONS + 5
    source = b"x = " + b"[for a in " * depth + b"var.l" + b" : a.b]" * depth + b"\n"
    tree = new_parser().parse(source)
    (top,) = top_level_nodes(tree.root_node)
    fast = _block_references_fast(top, source)
    assert fast == _block_references_walk(top, source)
    assert [ref[0] for ref in fast].count("a") == depth
    # so these are checked one by one later, on the block's node
    assert not isinstance(fast, Unbound)
    check = is_bound_check(fast, lambda: top)
    assert [check(ref) for ref in fast] == [False] + [True] * depth  # var.l, then each a.b


def test_the_check_asks_for_no_node_when_the_query_left_the_bound_out():
    """The undefined-reference check asks ``reference_is_bound`` (on a parse of the block again,
    once the file's tree is gone) only for references the query could not decide."""
    source = CASES["dynamic blocks"]
    (top,) = top_level_nodes(new_parser().parse(source).root_node)
    fast = _block_references_fast(top, source)
    assert isinstance(fast, Unbound) and fast

    def no_node():
        raise AssertionError("the block's node was asked for")

    check = is_bound_check(fast, no_node)
    assert [check(ref) for ref in fast] == [False] * len(fast)


def test_each_text_has_references_of_its_own():
    """Through one cache, the references of two block texts are two objects, even when neither
    has any (``hclfile._read_top_block`` finds the first block of a text by their identity), and
    an error-free block's are a tuple (``Unbound``: the host keeps one per block)."""
    source = b'variable "a" {\n  type = string\n}\n\nvariable "b" {\n  type = number\n}\n\nvariable "a" {\n  type = string\n}\n'
    tops = top_level_nodes(new_parser().parse(source).root_node)
    cache: dict = {}
    first, second, again = (block_references(top, source, cache) for top in tops)
    assert first is not second and first == second == () and isinstance(first, Unbound)
    assert again is first  # (the same text)
