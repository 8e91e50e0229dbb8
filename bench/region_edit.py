"""A keystroke's parse (``Document.parse``) and an open document's semantic tokens, in-process.

    python bench/region_edit.py [--modules 1000] [--edits 200] [--workdir DIR]

Files: the root ``main.tf`` of the ``--modules`` workspace (bench/generate.py, seed 0), the same
with CRLF line endings, and a file of the same size full of heredocs and block comments (IAM
policies with ``"arn:...:bucket/*"`` in heredocs, ``/* */`` comments spanning lines, user_data
scripts in ``<<-EOF`` heredocs), LF and CRLF. In each, the edit shapes of bench/run.py (a
character typed into a value, a new line between blocks, ``#`` at the start of an argument
line, a character typed into a block's label), each typed and taken back ``--edits`` times:
per keystroke the wall time of ``Document.parse`` (p50, p99) and how many parses read the
edited region alone (``syntax.regions``). Then, per file, the time of a full semantic tokens
answer after a keystroke: the tokens of the parse and their LSP encoding, per block when the
document keeps them (``BlockTokens``, session 14), else walked and encoded whole.

Run it against another checkout's code for a before/after pair (the script reads only public
names): ``PYTHONPATH=/work/main/server python bench/region_edit.py``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from tfphi.features.semantic_tokens import semantic_tokens  # noqa: E402
from tfphi.lsp.documents import Document, TextChange  # noqa: E402
from tfphi.lsp.handlers import semantic_tokens as token_handler  # noqa: E402
from tfphi.syntax.hclfile import new_parser  # noqa: E402

# (name, pattern whose empty group 1 marks the caret, what is typed), as bench/shapes.py's rows.
ROOT_SHAPES = (
    ("value", r'^\s*engine_version\s+= var\.env == "prod" \? "1()5\.4"', "x"),
    ("newline", r'^module "svc_0*1" \{\n(?:.*\n)*?\}()', "\n"),
    ("comment", r'^()  engine_version\s+= var\.env == "prod"', "#"),
    ("label", r'^module "svc_0*1()"', "x"),
)
HEREDOC_SHAPES = (
    ("value", r'^  name   = "p0*7()"', "x"),
    ("newline", r'^resource "aws_iam_policy" "p7" \{\n(?:.*\n)*?\}()', "\n"),
    ("comment", r'^()  name   = "p7"', "#"),
    ("label", r'^resource "aws_iam_policy" "p7()"', "x"),
)


def heredoc_file(size: int) -> str:
    """IAM policies and instances with user_data, ``size`` bytes or just over (ten of each at least)."""
    parts: list[str] = []
    i = 0
    while sum(map(len, parts)) < size or i < 10:
        parts.append(f'''/* policy {i}
   for the bucket */
resource "aws_iam_policy" "p{i}" {{
  name   = "p{i}"
  policy = <<EOT
{{
  "Statement": [{{
    "Effect": "Allow",
    "Action": ["s3:GetObject"],
    "Resource": "arn:aws:s3:::bucket-{i}/*"
  }}]
}}
EOT
}}

resource "aws_instance" "i{i}" {{
  ami       = "ami-{i}"
  user_data = <<-EOF
    #!/bin/bash
    echo hello {i} ${{var.x}}
    EOF
}}

''')
        i += 1
    return "".join(parts)


def position(doc: Document, offset: int) -> tuple[int, int]:
    return doc.position(offset)


def keystrokes(text: str, shape: tuple[str, str, str], crlf: bool, edits: int) -> dict:
    """``Document.parse`` per keystroke of ``shape`` typed and taken back ``edits`` times."""
    name, pattern, typed = shape
    found = re.search(pattern, text, re.MULTILINE)
    assert found is not None, f"shape {name} not found"
    at = len(text[: found.start(1)].encode())
    if crlf:
        at += text.count("\n", 0, found.start(1))
        typed = typed.replace("\n", "\r\n")
        text = text.replace("\n", "\r\n")
    doc = Document("file:///main.tf", 0, text.encode())
    parser = new_parser()
    doc.parse("main.tf", parser)
    size = len(typed.encode())
    times, regions = [], 0
    for version in range(1, 2 * edits + 1):
        if version % 2:
            change = TextChange(typed, (position(doc, at), position(doc, at)))
        else:
            change = TextChange("", (position(doc, at), position(doc, at + size)))
        doc.apply([change], version)
        start = time.perf_counter()
        hcl = doc.parse("main.tf", parser)
        times.append(time.perf_counter() - start)
        regions += hcl.tree is None and hcl.items is not None
    times = times[2:]  # (the first edit after opening parses the whole text)
    return {"p50": statistics.median(times) * 1e3, "p99": sorted(times)[int(0.99 * (len(times) - 1))] * 1e3,
            "regions": regions, "parses": 2 * edits}


def tokens_after_keystroke(text: str, crlf: bool, rounds: int) -> float:
    """The p50 milliseconds of a full semantic tokens answer after a keystroke in a label."""
    if crlf:
        text = text.replace("\n", "\r\n")
    doc = Document("file:///main.tf", 0, text.encode())
    parser = new_parser()
    hcl = doc.parse("main.tf", parser)
    encode_blocks = getattr(token_handler, "encode_blocks", None)
    kept = getattr(doc, "tokens", None)

    def answer(hcl) -> list[int]:
        if encode_blocks is not None and kept is not None:
            data = encode_blocks(hcl, kept, doc.line_index, "utf-16")
            if data is not None:
                return data
        return token_handler.encode(semantic_tokens(hcl), doc.line_index, "utf-16")

    answer(hcl)
    at = text.index('" {') if '" {' in text else 0
    times = []
    for version in range(1, 2 * rounds + 1):
        change = TextChange("x", (position(doc, at), position(doc, at))) if version % 2 else \
            TextChange("", (position(doc, at), position(doc, at + 1)))
        doc.apply([change], version)
        hcl = doc.parse("main.tf", parser)
        start = time.perf_counter()
        answer(hcl)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=1000, help="modules of the generated workspace (default 1000)")
    ap.add_argument("--edits", type=int, default=200, help="keystrokes per shape, each typed and taken back (default 200)")
    ap.add_argument("--tokens", type=int, default=10, help="keystrokes followed by a full tokens answer (default 10)")
    ap.add_argument("--workdir", type=Path, default=None, help="where the workspace is generated (default: a temporary folder)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        ws = (args.workdir or Path(tmp)) / f"ws_{args.modules}"
        if not (ws / "main.tf").exists():
            generate(ws, args.modules, seed=0)
        root = (ws / "main.tf").read_text()
        files = {"root": (root, ROOT_SHAPES), "heredocs": (heredoc_file(len(root)), HEREDOC_SHAPES)}
        print(f"{'file':>14} {'KB':>5} {'shape':>8} {'p50 ms':>7} {'p99 ms':>7} {'region':>8}")
        for name, (text, shapes) in files.items():
            for crlf in (False, True):
                label = name + ("-crlf" if crlf else "")
                for shape in shapes:
                    r = keystrokes(text, shape, crlf, args.edits)
                    print(f"{label:>14} {len(text) // 1024:>5} {shape[0]:>8} {r['p50']:>7.2f} {r['p99']:>7.2f} "
                          f"{r['regions']:>4}/{r['parses']}", flush=True)
        print(f"\n{'file':>14} {'tokens after a keystroke, p50 ms':>34}")
        for name, (text, _) in files.items():
            for crlf in (False, True):
                print(f"{name + ('-crlf' if crlf else ''):>14} {tokens_after_keystroke(text, crlf, args.tokens):>34.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
