"""Files read from disk keep no tree-sitter tree (syntax.hclfile, keep_tree=False): their blocks
and attributes keep byte ranges and parse that range alone again when asked. Everything read
that way must equal what the file's own tree gives."""

from __future__ import annotations

from pathlib import Path

from tfphi.syntax.expr import LiteralExpr
from tfphi.syntax.hclfile import Attribute, Block, Body, parse_file
from tfphi.syntax.references import block_references

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").rglob("*.tf"))

EDGE = b'''variable "v" {
  type = object({ a = string })
  default = { a = "x" }
  nullable = false
  sensitive = (true)
  validation {
    condition     = contains(["x", "y"], var.v.a)
    error_message = "a must be x or y."
  }
}

locals {
  heredoc = <<-EOT
    hello ${var.v.a} %{ if true }yes%{ endif }
  EOT
  nested = { for k, x in var.m : k => [for y in x : y if y != "z"] }
}

resource "aws_security_group" "sg" {
  dynamic "ingress" {
    for_each = var.ports
    iterator = port
    content {
      from_port = port.value
      cidr_blocks = ["10.0.0.0/8"]
    }
  }
  tags = merge(local.tags, { Name = "sg-${var.v.a}" })
}

module "m" {
  source = "./child"
  x      = "\\u00e9 ${local.heredoc}"
}

output "o" { value = module.m.out }
'''


def _flatten(body: Body, out: list, prefix: str = "") -> list:
    for name, attr in sorted(body.attributes.items()):
        out.append((prefix + name, attr.span, attr.name_span, repr(attr.expr), attr.literal_string(), attr.literal_bool()))
        keyword = attr.literal_bool()  # a bare keyword, read from the bytes: the expression's value
        assert keyword is None or (isinstance(attr.expr, LiteralExpr) and attr.expr.value is keyword)
    for i, block in enumerate(body.blocks):
        key = f"{prefix}{block.type}{list(block.labels)}#{i}."
        out.append((key, block.span, block.type_span, block.label_spans))
        _flatten(block.body, out, key)
    return out


def _views(path: str, source: bytes, keep: bool):
    hcl = parse_file(path, source, keep_tree=keep)
    return hcl, _flatten(hcl.body, [])


def test_every_example_reads_the_same_without_its_tree():
    sources = [(p.relative_to(REPO).as_posix(), p.read_bytes()) for p in EXAMPLES] + [("edge.tf", EDGE)]
    assert len(sources) > 5
    for path, source in sources:
        kept, with_tree = _views(path, source, True)
        dropped, without = _views(path, source, False)
        assert kept.tree is not None and dropped.tree is None, path
        assert without == with_tree, path
        assert dropped.errors == kept.errors
        # references were read before the tree went, as the tree gives them
        tops_kept, tops_dropped = kept.top_levels(), dropped.top_levels()
        assert [(t.type, t.start_byte, t.end_byte) for t in tops_dropped] == [(t.type, t.start_byte, t.end_byte) for t in tops_kept]
        for a, b in zip(tops_kept, tops_dropped):
            assert b.refs == block_references(a.node(), source, {})
            # and the node parsed again is the same subtree
            assert str(b.node()) == str(a.node())


def test_blocks_read_in_any_order_without_the_tree():
    """Bodies and expressions asked for long after, out of order, across files (the reparse cache is small)."""
    sources = [EDGE.replace(b'"x"', b'"x%d"' % i) for i in range(20)]
    files = [parse_file(f"f{i}.tf", source, keep_tree=False) for i, source in enumerate(sources)]
    for i in reversed(range(20)):
        assert _flatten(files[i].body, []) == _flatten(parse_file(f"f{i}.tf", sources[i]).body, [])


def test_a_file_with_syntax_errors_reads_its_blocks_alone():
    # A file with an error is read piece by piece from its block headers (tree_errors.parse_in_pieces)
    # and keeps no tree of the whole text: the pieces with an error keep theirs, the blocks without
    # one read their ranges alone again, and read what the clean text reads.
    clean = parse_file("broken.tf", EDGE, keep_tree=True)
    for tail in (b'output "o" { value = }', b'output "o" { value = }\nresource "x" {'):
        broken = EDGE.replace(b'output "o" { value = module.m.out }', tail)
        hcl = parse_file("broken.tf", broken, keep_tree=False)
        assert hcl.tree is None and hcl.errors
        assert [(b.type, b.labels) for b in hcl.body.blocks[:4]] == [(b.type, b.labels) for b in clean.body.blocks[:4]]
        assert _flatten(Body({}, hcl.body.blocks[:4]), []) == _flatten(Body({}, clean.body.blocks[:4]), [])
        assert isinstance(hcl.body.blocks[4], Block) and hcl.body.blocks[4]._node is not None  # (its piece's node)


def test_a_bare_keyword_is_read_from_the_bytes():
    hcl = parse_file("edge.tf", EDGE, keep_tree=False)
    attrs = hcl.body.blocks[0].body.attributes
    assert [(name, attrs[name].literal_bool()) for name in ("nullable", "sensitive", "type")] == [
        ("nullable", False), ("sensitive", None), ("type", None)]  # "(true)" is no bare keyword


def test_a_copy_for_the_same_bytes_reads_what_a_parse_of_them_reads():
    """A file the batch loader read before, copied for the same bytes at another path
    (``copy_under_path``, ``loader.SameBytes``): everything read from the copy is what a parse
    at that path gives, also after the first file's lazy bodies were read."""
    from tfphi.syntax.copies import copy_under_path

    sources = [p.read_bytes() for p in EXAMPLES] + [EDGE]
    firsts = [parse_file("a/main.tf", source, keep_tree=False) for source in sources]
    _flatten(firsts[-1].body, [])  # the first's lazy bodies and expressions read
    copies = [copy_under_path(first, "b/main.tf") for first in firsts]
    for first, copy, source in zip(firsts, copies, sources):
        fresh = parse_file("b/main.tf", source, keep_tree=False)
        assert copy is not first and copy.path == "b/main.tf" and copy.tree is None
        assert _flatten(copy.body, []) == _flatten(fresh.body, [])
        assert copy.errors == fresh.errors == []
        assert copy.tops == fresh.tops
        for block in copy.body.blocks:  # every slot set (a slot added to Block must be copied too)
            assert all(hasattr(block, slot) for slot in Block.__slots__), block
            assert all(hasattr(attr, slot) for attr in block.body.attributes.values() for slot in Attribute.__slots__)


def test_bodies_of_traced_resource_types_are_read_with_the_tree():
    """``traced`` (the resource types with a registered field, whose bodies every check traces):
    their bodies, nested blocks included, are read while the file's tree is at hand instead of
    from a parse of the block again (bench/README.md, issue 23's real corpus: a GKE cluster is
    26 KB), and read what the tree gives; other resources still wait."""
    sources = [(p.relative_to(REPO).as_posix(), p.read_bytes()) for p in EXAMPLES] + [("edge.tf", EDGE)]
    for path, source in sources:
        kept = parse_file(path, source, keep_tree=True)
        types = sorted({b.labels[0] for b in kept.body.blocks if b.type == "resource" and b.labels})
        traced = frozenset(types[::2])  # every other type: both kinds in one file
        dropped = parse_file(path, source, keep_tree=False, traced=traced)
        resources = [b for b in dropped.body.blocks if b.type == "resource"]
        assert [b._body is not None for b in resources] == [b.labels[0] in traced for b in resources], path
        assert _flatten(dropped.body, []) == _flatten(kept.body, []), path


def test_the_host_reads_the_bodies_of_its_registered_resource_types_at_once():
    from tfphi.analysis import AnalysisHost

    host = AnalysisHost()
    host.set_source("main.tf", b'resource "aws_db_instance" "db" {\n  engine = "postgres"\n  tags { a = 1 }\n}\n'
                    b'resource "aws_s3_bucket" "b" {\n  bucket = "x"\n}\n')
    db, bucket = host.files["main.tf"].body.blocks
    assert "aws_db_instance.engine" in host.config.fields and not any(k.startswith("aws_s3_bucket.") for k in host.config.fields)
    assert db._body is not None and db._body.blocks[0]._body is not None  # nested blocks too
    assert bucket._body is None
    assert db.body.attributes["engine"].literal_string() == "postgres"
