"""The text searches of an edited document, asked per chunk of lines with cached answers
(``syntax.reuse.suspicious_in_chunks``, ``rules_candidate_in_chunks``), answer exactly what the
whole-text searches answer: on every ``.tf`` file of the repository, the bench's generated
workspace, and those texts with shapes typed into them at random places."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from tfphi.syntax import reuse
from tfphi.syntax.error_shapes import suspicious
from tfphi.syntax.hclfile import rules_candidate

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from generate import generate  # noqa: E402

# Shapes the searches look for (and harmless text), typed anywhere: mid-line, at a line start.
TYPED = [b"=", b"}", b"${", b"${}", b"${ \n}", b"\\q", b"0x1", b" x", b"\n", b"(", b"a.0.1", b"{ a = 1", b"%{", b"#",
         b'"', b"\nfoo\n", b"\n  .", b"\nx", b"<<EOT\n", b"/*", b"*/", b"\nEOT\n", b"lower(x) y", b'\nresource "a" "${x}" {\n']


def _texts(tmp_path: Path) -> list[bytes]:
    files = sorted(p for p in REPO.glob("**/*.tf") if ".venv" not in p.parts and "node_modules" not in p.parts)
    generate(tmp_path / "ws", 30)
    files += sorted((tmp_path / "ws").glob("**/*.tf"))
    return [p.read_bytes() for p in files]


def test_chunked_searches_answer_as_the_whole_text(tmp_path):
    rng = random.Random(15)
    texts = _texts(tmp_path)
    assert len(texts) > 100
    checked = suspicious_seen = 0
    for source in texts:
        variants = [source]
        for _ in range(6):
            at = rng.randrange(len(source) + 1)
            if rng.random() < 0.5:
                at = source.rfind(b"\n", 0, at) + 1
            variants.append(source[:at] + rng.choice(TYPED) + source[at:])
        for text in variants:  # twice: the second answer comes from the cache
            for _ in range(2):
                assert reuse.suspicious_in_chunks(text) == suspicious(text)
                assert reuse.rules_candidate_in_chunks(text) == rules_candidate(text)
            checked += 1
            suspicious_seen += suspicious(text)
    assert suspicious_seen > checked // 10  # the typed shapes make many texts suspicious: both answers are tested


@pytest.mark.parametrize("text", [b"", b"a", b"\n", b"a = 1\n", b"x {\n}\ny {\n  a = ${}\n}\n"])
def test_chunks_cover_the_text(text):
    assert b"".join(reuse._chunks(text)) == text
