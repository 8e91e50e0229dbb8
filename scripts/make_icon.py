#!/usr/bin/env python3
"""Draws the VS Code extension's icon, vscode-client/images/icon.png (256x256 RGBA), with the
standard library only: a violet rounded square holding a white phi (a ring crossed by a bar),
anti-aliased by 4x4 supersampling. Run it again after changing the drawing; the PNG is committed.

    python3 scripts/make_icon.py
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

SIZE = 256
SAMPLES = 4
BACKGROUND = (92, 56, 178)
FOREGROUND = (255, 255, 255)
OUT = Path(__file__).resolve().parents[1] / "vscode-client" / "images" / "icon.png"


def inside_rounded_square(x: float, y: float, radius: float = 48) -> bool:
    cx = min(max(x, radius), SIZE - radius)
    cy = min(max(y, radius), SIZE - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2


def inside_phi(x: float, y: float) -> bool:
    centre = SIZE / 2
    ring = math.hypot((x - centre) / 1.0, (y - centre) / 0.82)
    if 52 <= ring <= 74:
        return True
    return abs(x - centre) <= 11 and 34 <= y <= SIZE - 34


def pixel(px: int, py: int) -> tuple[int, int, int, int]:
    covered = ink = 0
    for i in range(SAMPLES):
        for j in range(SAMPLES):
            x, y = px + (i + 0.5) / SAMPLES, py + (j + 0.5) / SAMPLES
            if inside_rounded_square(x, y):
                covered += 1
                ink += inside_phi(x, y)
    total = SAMPLES * SAMPLES
    if not covered:
        return (0, 0, 0, 0)
    t = ink / covered
    rgb = tuple(round(b + (f - b) * t) for b, f in zip(BACKGROUND, FOREGROUND))
    return (*rgb, round(255 * covered / total))


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main() -> None:
    rows = [b"".join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(png(SIZE, SIZE, rows))
    print(f"wrote {OUT} ({SIZE}x{SIZE})")


if __name__ == "__main__":
    main()
