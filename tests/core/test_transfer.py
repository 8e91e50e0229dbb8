"""A file read without its tree crosses from the batch loader's worker process as plain tuples
(syntax.transfer): what ``decode`` makes must be, slot by slot, what the file read here is,
and what it reads later (bodies, expressions, spans, references) must be the same too."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from tfphi.records import fields
from tfphi.syntax import transfer
from tfphi.syntax.hclfile import Attribute, Block, Body, HclFile, SyntaxProblem, parse_file
from tfphi.syntax.references import Unbound

from .test_dropped_trees import EDGE, _flatten

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("examples", "tests") for p in (REPO / d).rglob("*") if p.suffix in (".tf", ".tfvars"))


def _state(x):
    """Every slot of every object the file holds (converters by what they carry)."""
    if isinstance(x, HclFile):
        return ("file", x.path, x.source, x.tree, _state(x.body), [_state(e) for e in x.errors],
                [(kind, start, end, type(refs).__name__, refs) for kind, start, end, refs in x.tops])
    if isinstance(x, Body):
        return ("body", [(name, _state(a)) for name, a in x.attributes.items()], [_state(b) for b in x.blocks])
    if isinstance(x, (Attribute, Block)):
        slots = transfer.ATTRIBUTE_SLOTS if isinstance(x, Attribute) else transfer.BLOCK_SLOTS
        return (type(x).__name__,) + tuple((s, _state(getattr(x, s))) for s in sorted(slots))
    if isinstance(x, SyntaxProblem):
        return ("problem", x.span, x.message, x.region)
    if type(x).__name__ == "ExprConverter":
        return ("converter", x.source, x.file, x.keep_nodes, x.base, x.end, x.anchor and (x.anchor.file, x.anchor.start))
    return x


def _across(hcl: HclFile) -> HclFile | None:
    encoded = transfer.encode(hcl)
    if encoded is None:
        return None
    return transfer.decode(marshal.loads(marshal.dumps(encoded)), hcl.path, hcl.source)


def test_the_codec_knows_every_slot_of_blocks_and_attributes():
    # A slot added to Attribute or Block must be carried by syntax.transfer .
    assert set(Attribute.__slots__) == transfer.ATTRIBUTE_SLOTS
    assert set(Block.__slots__) == transfer.BLOCK_SLOTS
    assert tuple(f.name for f in fields(HclFile)) == transfer.HCLFILE_FIELDS


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_example_file_crosses_unchanged(path):
    source = path.read_bytes()
    rel = str(path.relative_to(REPO))
    hcl = parse_file(rel, source, keep_tree=False, refs_cache={})
    back = _across(hcl)
    if hcl.tree is not None:  # syntax errors: the tree is kept, and the file is read where it is needed
        assert back is None and hcl.errors
        return
    assert _state(back) == _state(hcl)
    # and what is read later, from the bytes or a parse of a range, is the same
    assert _flatten(back.body, []) == _flatten(parse_file(rel, source, keep_tree=False, refs_cache={}).body, [])


def test_a_generated_workspace_crosses_unchanged(tmp_path):
    import runpy

    runpy.run_path(str(REPO / "bench" / "generate.py"))["generate"](tmp_path, 30)
    files = sorted(p for p in tmp_path.rglob("*") if p.suffix in (".tf", ".tfvars"))
    assert len(files) > 50
    for path in files:
        hcl = parse_file(path.relative_to(tmp_path).as_posix(), path.read_bytes(), keep_tree=False, refs_cache={})
        assert _state(_across(hcl)) == _state(hcl), path


def test_the_edge_cases_cross_unchanged_and_read_the_same_later():
    hcl = parse_file("edge.tf", EDGE, keep_tree=False, refs_cache={})
    back = _across(hcl)
    assert _state(back) == _state(hcl)
    assert any(isinstance(refs, Unbound) for *_, refs in back.tops)
    assert any(b._body is None for b in back.body.blocks) and any(b._body is not None for b in back.body.blocks)
    assert _flatten(back.body, []) == _flatten(parse_file("edge.tf", EDGE, keep_tree=False, refs_cache={}).body, [])


def test_terraform_errors_without_a_tree_cross_and_a_kept_tree_does_not():
    hex_literal = b'variable "v" {\n  default = 0x10\n}\nlocals {\n  a = "${}"\n}\n'
    hcl = parse_file("hex.tf", hex_literal, keep_tree=False, refs_cache={})
    assert hcl.tree is None and hcl.errors  # Terraform's rules, not tree-sitter's
    assert _state(_across(hcl)) == _state(hcl)
    broken = parse_file("broken.tf", b'resource "x" "y" {\n  a = \n', keep_tree=False, refs_cache={})
    assert broken.tree is not None and transfer.encode(broken) is None  # read where it is needed


def test_a_body_already_converted_is_not_carried():
    hcl = parse_file("v.tf", b'variable "v" {\n  default = "a${1}"\n}\n', keep_tree=False, refs_cache={})
    hcl.body.blocks[0].body.attributes["default"].expr  # converted: holds a node-derived Expr
    assert transfer.encode(hcl) is None
