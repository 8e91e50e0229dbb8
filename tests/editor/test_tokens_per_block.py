"""An open document's semantic tokens, kept per top-level block from one answer to the next
(``features.semantic_tokens.BlockTokens``) and encoded per block (``encode_blocks``), equal the
tokens of a fresh parse of the same text, whole, after generated edits: characters that open
or close something typed anywhere, lines added and deleted, in texts with heredocs, block
comments (on a block's last line too), a block that does not start its line, non-ASCII strings
and CRLF line endings, in UTF-16, UTF-8 and UTF-32 columns."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfphi.features.semantic_tokens import semantic_tokens
from tfphi.lsp.documents import Document, TextChange
from tfphi.lsp.handlers.semantic_tokens import encode, encode_blocks
from tfphi.syntax.hclfile import new_parser, parse_file
from tfphi.text import LineIndex

TEXT = '''# Which engine each customer gets.
variable "customer_env" {
  type    = string
  default = "prod"
}

locals {
  greeting = "héllo ✓ ${var.customer_env}"
  /* a block comment
     over two lines */
  classes  = { for name, size in var.sizes : name => upper(size.class) if size.storage > 10 }
  banner   = <<-EOT
    env: ${var.customer_env} ✓
    EOT
}
/* between
   blocks */ # and after
module "database" {
  source         = "./db"
  replicas       = [for i in range(2) : "r-${i}"]
}
output "ami" { value = data.aws_ami.base.id } # after a block, on its line
  locals { indented = "✓" } /* and a comment
  over two lines */
'''

FRAGMENTS = ["x", " ", "\n", '"', "{", "}", "#", "/*", "*/", "<<EOT\n", "EOT\n", "✓", "\r\n", "locals {\n  a = 1\n}\n", "# c\n"]


@st.composite
def edit(draw):
    return draw(st.floats(min_value=0, max_value=1)), draw(st.sampled_from([0] * 6 + [1, 3, 15])), draw(st.sampled_from(FRAGMENTS))


def _fresh(source: bytes, encoding: str) -> tuple[list, list[int]]:
    tokens = semantic_tokens(parse_file("main.tf", source, new_parser()))
    return tokens, encode(tokens, LineIndex(source, skip_bom=False), encoding)


def _check(text: str, edits, encoding: str) -> int:
    """Applies ``edits`` to an open document of ``text``, comparing its tokens after each with a
    fresh parse's; how many answers were encoded per block."""
    doc = Document("main.tf", 0, text.encode(), encoding)
    parser = new_parser()
    per_block = 0
    for version, (where, deleted, inserted) in enumerate([(0.0, 0, ""), *edits], 1):
        at = int(where * len(text))
        end = min(len(text), at + deleted)
        if 0 < end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
            end += 1  # (an editor's position is never inside a CRLF)
        if 0 < at < len(text) and text[at - 1] == "\r" and text[at] == "\n":
            at += 1
            end = max(at, end)
        start_byte, end_byte = len(text[:at].encode()), len(text[:end].encode())
        doc.apply([TextChange(inserted, (doc.position(start_byte), doc.position(end_byte)))], version)
        text = text[:at] + inserted + text[end:]
        hcl = doc.parse("main.tf", parser)
        assert hcl.source == text.encode()
        tokens, data = _fresh(hcl.source, encoding)
        assert semantic_tokens(hcl, doc.tokens) == tokens
        first, last = sorted((int(where * len(hcl.source)), int(where * len(hcl.source)) + 40 * deleted + 7))
        assert semantic_tokens(hcl, doc.tokens, (first, last)) == [t for t in tokens if t.end > first and t.start < last]
        ours = encode_blocks(hcl, doc.tokens, doc.line_index, encoding)
        if ours is not None:
            per_block += 1
            assert ours == data
    return per_block


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(edit(), min_size=1, max_size=10), crlf=st.booleans(),
       encoding=st.sampled_from(["utf-16", "utf-8", "utf-32"]))
def test_tokens_kept_per_block_equal_a_fresh_parse_s(edits, crlf: bool, encoding: str):
    _check(TEXT.replace("\n", "\r\n") if crlf else TEXT, edits, encoding)


def test_keystrokes_inside_blocks_are_encoded_per_block():
    """Characters typed in a label, a heredoc and a comment between blocks: every answer is
    encoded per block (the whole-file encoding is the fallback, not the rule)."""
    edits = [(TEXT.index('"database"') / len(TEXT), 0, "x"), (TEXT.index("env:") / len(TEXT), 0, " "),
             (TEXT.index("between") / len(TEXT), 0, "x")]
    assert _check(TEXT, edits, "utf-16") == len(edits) + 1
