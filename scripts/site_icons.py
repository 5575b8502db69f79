"""Write the static site's app icons (crlookup/ui/site/icons/): PNGs at the sizes the web app
manifest names, drawn here in plain Python (zlib): the accent colour with a white page; the
maskable one keeps the page inside the safe zone (the middle 80%).

    python scripts/site_icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "crlookup" / "ui" / "site" / "icons"
ACCENT, WHITE = (0x8A, 0x1C, 0x1C), (0xFF, 0xFF, 0xFF)


def png(size: int, inset: float) -> bytes:
    rows = []
    lo, hi = int(size * inset), int(size * (1 - inset))
    left, right = int(size * (inset + 0.08)), int(size * (1 - inset - 0.08))
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            page = left <= x < right and lo <= y < hi
            line = (
                page and (y - lo) % max(1, size // 12) < max(1, size // 40) and y > lo + size // 10
            )
            row += bytes(ACCENT if line or not page else WHITE)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))  # fmt: skip


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for name, size, inset in (("icon-192", 192, 0.15), ("icon-512", 512, 0.15),
                              ("icon-maskable-512", 512, 0.25)):  # fmt: skip
        (OUT / f"{name}.png").write_bytes(png(size, inset))
        print(OUT / f"{name}.png")
