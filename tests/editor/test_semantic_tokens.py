"""Semantic tokens over stdio: the real server, pytest-lsp as the client, whole-output snapshots.

The tokens are decoded back to ``line:column text type modifiers`` lines with the legend the
server announced and the client's own reading of the text (not tfphi's line index), so that a
wrong delta, length, type or encoding shows as a changed line in the snapshot.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from editor_support import check_snapshot
from tfphi.features.semantic_tokens import semantic_tokens
from tfphi.lsp.handlers.semantic_tokens import encode
from tfphi.syntax.hclfile import new_parser, parse_file
from tfphi.text import LineIndex
from lsp_helpers import start_session, stop_session

# Every kind of token, a non-ASCII string (UTF-16 and UTF-8 columns differ after it), a block
# comment and a heredoc over several lines, and a tfvars file.
MAIN_TF = '''\
# Which engine each customer gets.
variable "customer_env" {
  type    = string
  default = "prod"
}

variable "sizes" {
  type = map(object({ class = string, storage = number }))
}

locals {
  greeting = "héllo ✓ ${var.customer_env}"
  engine   = var.customer_env == "prod" ? "15.4" : "14.9"
  /* a block comment
     over two lines */
  classes  = { for name, size in var.sizes : name => upper(size.class) if size.storage > 10 }
  banner   = <<-EOT
    env: ${var.customer_env}
    %{ if local.engine != null }engine ${local.engine}%{ endif }
  EOT
}

module "database" {
  source         = "./db"
  engine_version = local.engine
  replicas       = [for i in range(2) : "r-${i}"]
}

resource "aws_db_instance" "app" {
  count          = var.customer_env == "prod" ? 1 : 0
  engine_version = module.database.version
  tags           = { Name = "app-${count.index}", Enabled = true, Note = null }
  arns           = aws_s3_bucket.logs[*].arn
}

data "aws_ami" "base" {
  most_recent = !false
}

output "ami" {
  value = data.aws_ami.base.id
}
'''

TFVARS = 'customer_env = "dev" # for tests\nsizes = { small = { class = "t3", storage = 20 } }\n'


def decode(text: str, data: list[int], legend: types.SemanticTokensLegend, encoding: str) -> str:
    lines = text.split("\n")
    out = []
    line = column = 0
    for i in range(0, len(data), 5):
        d_line, d_col, length, type_id, bits = data[i : i + 5]
        line += d_line
        column = column + d_col if d_line == 0 else d_col
        source_line = lines[line]
        units = source_line.encode("utf-16-le" if encoding == "utf-16" else "utf-8")
        width = 2 if encoding == "utf-16" else 1
        codec = "utf-16-le" if encoding == "utf-16" else "utf-8"
        piece = units[column * width : (column + length) * width].decode(codec)
        character = len(units[: column * width].decode(codec))  # printed in characters, whatever the encoding
        modifiers = [name for bit, name in enumerate(legend.token_modifiers) if bits & (1 << bit)]
        out.append(f"{line + 1}:{character + 1} {piece!r} {legend.token_types[type_id]} {' '.join(modifiers)}".rstrip())
    return "\n".join(out) + "\n"


def write(folder: Path) -> None:
    (folder / "db").mkdir(parents=True)
    (folder / "main.tf").write_text(MAIN_TF, encoding="utf-8")
    (folder / "db" / "main.tf").write_text('variable "engine_version" {}\noutput "version" { value = var.engine_version }\n')
    (folder / "terraform.tfvars").write_text(TFVARS, encoding="utf-8")


async def tokens_of(tmp_path: Path, name: str, utf8: bool, rng: types.Range | None = None,
                    text: str | None = None) -> tuple[str, str]:
    folder = tmp_path / "ws"
    write(folder)
    if text is not None:
        (folder / name).write_text(text, encoding="utf-8")
    session = await start_session([folder], utf8=utf8)
    try:
        provider = session.initialize_result.capabilities.semantic_tokens_provider
        legend = provider.legend
        text = (folder / name).read_text(encoding="utf-8")
        u = session.open(folder / name, text)
        if rng is None:
            result = await session.client.text_document_semantic_tokens_full_async(
                types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=u)))
        else:
            result = await session.client.text_document_semantic_tokens_range_async(
                types.SemanticTokensRangeParams(text_document=types.TextDocumentIdentifier(uri=u), range=rng))
        return decode(text, result.data, legend, session.encoding), session.encoding
    finally:
        await stop_session(session)


async def test_every_token_of_a_terraform_file_utf16(tmp_path):
    decoded, encoding = await tokens_of(tmp_path, "main.tf", utf8=False)
    assert encoding == "utf-16"
    check_snapshot("semantic_tokens_main.txt", decoded)


async def test_the_same_tokens_in_utf8_columns(tmp_path):
    """The decoded text is the same whatever the encoding: only the integers differ."""
    decoded, encoding = await tokens_of(tmp_path, "main.tf", utf8=True)
    assert encoding == "utf-8"
    check_snapshot("semantic_tokens_main.txt", decoded)


async def test_tfvars_tokens(tmp_path):
    decoded, _ = await tokens_of(tmp_path, "terraform.tfvars", utf8=False)
    check_snapshot("semantic_tokens_tfvars.txt", decoded)


async def test_range_request_returns_the_tokens_of_those_lines(tmp_path):
    rng = types.Range(start=types.Position(line=11, character=0), end=types.Position(line=13, character=0))
    decoded, _ = await tokens_of(tmp_path, "main.tf", utf8=False, rng=rng)
    full = (Path(__file__).parent / "snapshots" / "semantic_tokens_main.txt").read_text(encoding="utf-8")
    expected = [line for line in full.splitlines() if line.startswith(("12:", "13:"))]
    assert len(expected) == 25
    assert decoded.splitlines() == expected


async def test_tokens_after_edits_are_the_tokens_of_a_fresh_open(tmp_path):
    """An open document keeps its tokens per top-level block (``BlockTokens``): after edits that
    add a line above blocks, type inside a label, a heredoc and a block comment, add a block
    and break then mend the syntax, the tokens the server sends are, whole, those a server that
    opens the final text sends (decoded with the client's reading of the text)."""
    folder = tmp_path / "ws"
    write(folder)
    session = await start_session([folder], utf8=False)
    try:
        legend = session.initialize_result.capabilities.semantic_tokens_provider.legend
        u = session.open(folder / "main.tf", MAIN_TF)

        async def tokens() -> list[int]:
            result = await session.client.text_document_semantic_tokens_full_async(
                types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=u)))
            return result.data

        first = await tokens()
        assert decode(MAIN_TF, first, legend, session.encoding) == decode(MAIN_TF, encode_fresh(MAIN_TF, "utf-16"), legend, "utf-16")
        for old, new in [("variable \"sizes\"", "\n# new line\nvariable \"sizes\""), ('"database"', '"databases"'),
                         ("env: ${", "env:  ${"), ("over two lines", "over 2 lines"), ("output \"ami\"", "locals {\n  z = 1\n}\noutput \"ami\""),
                         ("most_recent = !false", "most_recent = !false {"), ("most_recent = !false {", "most_recent = !false")]:
            session.replace(u, old, new)
            data = await tokens()
        text = session.texts[u]
    finally:
        await stop_session(session)
    (folder / "main.tf").write_text(text, encoding="utf-8")
    fresh, _ = await tokens_of(tmp_path / "again", "main.tf", utf8=False, text=text)
    assert decode(text, data, legend, "utf-16") == fresh


def encode_fresh(text: str, encoding: str) -> list[int]:
    """The tokens of a fresh parse of ``text``, encoded with no block kept."""
    source = text.encode()
    return encode(semantic_tokens(parse_file("main.tf", source, new_parser())), LineIndex(source, skip_bom=False), encoding)
