"""Broken Terraform files for the syntax-error differential test: real configurations with one
token deleted or one token inserted, at positions chosen by a seeded generator."""

from __future__ import annotations

import random
import zlib
import re
from pathlib import Path

# Tokens as Terraform's scanner sees them, closely enough to delete one whole token.
_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|[A-Za-z_][\w-]*|\d+(?:\.\d+)?|==|!=|<=|>=|&&|\|\||=>|\$\{|[{}()\[\]=,.:?!<>+\-*/%]')
INSERTIONS = [b"{", b"}", b"=", b'"', b"(", b")", b"[", b"]", b",", b"?", b"x =", b"${", b"%{", b".", b":", b"*",
              b"=>", b"...", b"'", b";", b"<<EOT\n", b"\n"]


def tokens(source: bytes) -> list[tuple[int, int]]:
    """Byte ranges of the tokens outside comments."""
    out = []
    for line_start, line in _lines(source):
        code = line.split(b"#")[0] if b'"' not in line else line
        for match in _TOKEN.finditer(code):
            out.append((line_start + match.start(), line_start + match.end()))
    return out


def _lines(source: bytes):
    start = 0
    for line in source.split(b"\n"):
        yield start, line
        start += len(line) + 1


def mutants(source: bytes, count: int, seed: int) -> list[tuple[str, bytes]]:
    """``count`` broken variants of ``source``: (what was done, new text)."""
    rng = random.Random(seed)
    spans = tokens(source)
    out = []
    for _ in range(count):
        start, end = rng.choice(spans)
        roll = rng.random()
        if roll < 0.1 and b"\n" in source[end:]:
            # Two lines joined into one: what "missing newline" errors are made of.
            at = source.index(b"\n", end)
            out.append((f"join the line at byte {at}", source[:at] + b" " + source[at + 1:]))
        elif roll < 0.55:
            out.append((f"delete {source[start:end]!r} at byte {start}", source[:start] + source[end:]))
        else:
            token = rng.choice(INSERTIONS)
            at = rng.choice((start, end))
            out.append((f"insert {token!r} at byte {at}", source[:at] + b" " + token + b" " + source[at:]))
    return out


def corpus(root: Path) -> list[Path]:
    """The real configurations mutated: the repository's example workspace."""
    return sorted(root.glob("examples/**/*.tf"))


def seed_of(path: Path) -> int:
    """A seed that is the same on every run and machine (``hash()`` is salted per process)."""
    return zlib.crc32(path.as_posix().encode())


def marked_line(source: str) -> int | None:
    """The 1-based line of a case's ``# <-`` mark: where Terraform reports its error (None: no error)."""
    lines = [i + 1 for i, line in enumerate(source.split("\n")) if "# <-" in line]
    return lines[0] if lines else None
