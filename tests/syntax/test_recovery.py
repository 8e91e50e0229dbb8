"""A syntax error costs the block it is in: the top-level blocks that tree-sitter-hcl's error
recovery swallowed after it are read again (``syntax.tree_errors.recover_top_levels``).

Typed into one of 30 module calls, a quote, a brace or an operator made tree-sitter drop up to
every block below it from the file's body (a string running to the next quote, a stray ``}``
ending the body, an unclosed ``{`` taking the rest as nested blocks)."""

from __future__ import annotations

import random

import pytest

from tfphi.syntax.hclfile import new_parser, parse_file

CALLS = 30


def _root() -> str:
    parts = ['locals {\n  name = "app"\n}\n']
    for i in range(CALLS):
        parts.append(f'''
module "svc_{i:02}" {{
  source = "./modules/svc_{i:02}"
  name   = "${{local.name}}-{i}"
  tags   = {{ Index = {i} }}
  zones  = ["a", "b"]
}}
''')
    return "".join(parts)


def _blocks(text: str) -> list[tuple[str, tuple[str, ...], bytes]]:
    hcl = parse_file("main.tf", text.encode(), new_parser())
    return [(b.type, b.labels, b.text) for b in hcl.body.blocks]


CHARACTERS = ['"', "}", "{", "=", "[", "(", "/", "'", "$", "*"]


@pytest.mark.parametrize("typed", CHARACTERS)
def test_a_character_typed_into_one_block_leaves_the_others_read(typed):
    text = _root()
    before = _blocks(text)
    rng = random.Random(typed)
    for _ in range(20):
        k = rng.randrange(CALLS)
        start = text.index(f'module "svc_{k:02}"')
        at = rng.randrange(start, text.index("\n}\n", start) + 2)  # before a character of the block
        after = _blocks(text[:at] + typed + text[at:])
        others = [b for b in before if b[1] != (f"svc_{k:02}",)]
        # Every other block is read as it was, in its order, wherever the error is.
        assert [b for b in after if b in others] == others, (at, typed)


def test_a_header_like_line_of_a_heredoc_does_not_cut_a_broken_region():
    # The quote left open breaks the first block; the heredoc's "server {" line starts a line
    # as a block header does, but its piece does not parse alone (nor does the piece before it,
    # cut inside the heredoc): the two are read together, and no block "server" appears.
    text = '''locals {
  a = "x
}

resource "aws_s3_bucket" "b" {
  bucket = "b"
}

locals {
  script = <<EOT
server {
  listen = 80
}
EOT
}
'''
    blocks = _blocks(text)
    # (tree-sitter reads nothing of the first block, its string running to the end of its piece)
    assert [(kind, labels) for kind, labels, _ in blocks] == [("resource", ("aws_s3_bucket", "b")), ("locals", ())]
    assert blocks[0][2] == b'resource "aws_s3_bucket" "b" {\n  bucket = "b"\n}'
    assert blocks[1][2] == text[text.index("locals {\n  script"):-1].encode()


def test_the_blocks_read_again_are_those_of_the_clean_text():
    # Read again alone, a block is what a file without the error reads: the same attributes.
    text = _root()
    at = text.index('module "svc_05"') + 3
    broken = parse_file("main.tf", (text[:at] + '"' + text[at:]).encode(), new_parser())
    clean = parse_file("main.tf", text.encode(), new_parser())
    after = {b.labels: b for b in broken.body.blocks}
    for block in clean.body.blocks[7:]:  # (one byte further on)
        other = after[block.labels]
        assert sorted(other.body.attributes) == sorted(block.body.attributes)
        assert (other.span.start, other.span.end) == (block.span.start + 1, block.span.end + 1)
        name, clean_name = other.body.attributes["name"], block.body.attributes["name"]
        assert (name.span.start, name.span.end) == (clean_name.span.start + 1, clean_name.span.end + 1)
        assert broken.text(name.span) == clean.text(clean_name.span)
