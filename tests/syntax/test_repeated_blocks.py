"""A top-level block whose text was read before by the same host (files read together from disk,
``hclfile._read_top_block``) is a copy of the first block read, not read again from the tree:
each file still reads exactly as it reads alone (its views, its errors), its blocks are its own
objects anchored in it, and what the first block read later, on demand, is not what decides the
copy's (docs/performance.md, "The corpus check, session 13")."""

from __future__ import annotations

from tfphi.syntax.hclfile import parse_file

from .test_compact_views import TRACED, views

VERSIONS = b'terraform {\n  required_version = ">= 1.0"\n  required_providers {\n    aws = { source = "hashicorp/aws" }\n  }\n}\n'
VARIABLE = b'variable "name" {\n  type        = string\n  description = "The name."\n  default     = "x"\n}\n'
DB = b'resource "aws_db_instance" "this" {\n  engine         = "postgres"\n  engine_version = var.version\n}\n'
TWICE = b'resource "aws_s3_bucket" "b" {\n  bucket = "a"\n  bucket = "b"\n}\n'


def _alone(path: str, source: bytes) -> list:
    return views(parse_file(path, source, keep_tree=True, traced=TRACED))


def test_files_sharing_blocks_read_as_each_alone():
    files = {"a/versions.tf": VERSIONS + b"\n" + VARIABLE,
             "b/main.tf": b"# the same blocks, elsewhere\n" + VARIABLE + b"\n" + DB + b"\n" + VERSIONS,
             "c/main.tf": DB + VARIABLE}
    cache: dict = {}
    read = {path: parse_file(path, source, keep_tree=False, traced=TRACED, refs_cache=cache) for path, source in files.items()}
    for path, source in files.items():
        assert views(read[path]) == _alone(path, source), path
    first, second = read["a/versions.tf"].body.blocks[1], read["b/main.tf"].body.blocks[0]
    assert (first.type, first.labels) == (second.type, second.labels) == ("variable", ("name",))
    assert second is not first and second._anchor is not first._anchor
    assert second.span.file == "b/main.tf" and second.span.start == len(b"# the same blocks, elsewhere\n")
    assert second.body.attributes["default"] is not first.body.attributes["default"]


def test_an_argument_set_twice_in_a_body_read_later_is_still_reported():
    # The first file's block is not eager: its body is read only when asked, and its reading
    # said nothing of the argument set twice (the file's text search did). The second file's
    # copy must not take that body over as read, or the error would be lost.
    cache: dict = {}
    first = parse_file("a/main.tf", TWICE, keep_tree=False, traced=TRACED, refs_cache=cache)
    assert [e.message for e in first.errors] == [e[2] for e in _alone("a/main.tf", TWICE)[2]]
    first.body.blocks[0].body  # read on demand
    second = parse_file("b/main.tf", b"\n" + TWICE, keep_tree=False, traced=TRACED, refs_cache=cache)
    assert views(second) == _alone("b/main.tf", b"\n" + TWICE)
    assert any("attribute redefined" in e.message for e in second.errors)


def test_a_block_read_for_other_traced_types_is_read_again():
    # Whether a resource's body is read at once depends on the host's traced types: a block read
    # under other types is no copy's first.
    cache: dict = {}
    plain = parse_file("a/main.tf", DB, keep_tree=False, traced=frozenset(), refs_cache=cache)
    traced = parse_file("b/main.tf", DB, keep_tree=False, traced=TRACED, refs_cache=cache)
    assert plain.body.blocks[0]._body is None
    assert traced.body.blocks[0]._body is not None  # read at once, as for a traced type
    assert views(traced) == _alone("b/main.tf", DB)
