"""Make data/entry-vectors.npz: the vectors of every answerable entry of the editions of
crlookup.features.ask.prepare.EMBEDDED (the newest English and Russian editions among them), and
of the tournament documents' entries, so that building the library embeds nothing and `ask`
embeds nothing for its default editions.

Each distinct passage (crlookup.features.ask.prepare.passage: title, text, examples) is embedded once with
the shipped model (most entries read the same in many editions); vectors already in the file
for the same passage are kept, so a new edition costs only its new texts. The file holds the
passage keys (sha1, 12 hex digits), the vectors as int8 and one float32 scale per row (cosine
error about 1e-5 against the float vectors).

    python scripts/embed_entries.py [--check]

--check: say how many passages the file lacks or holds needlessly; exit 1 if any.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np

from crlookup.builder import pipeline as build
from crlookup.features.ask import procedure
from crlookup.features.ask.embedding import (
    DIM,
    SHIPPED_VECTORS,
    embed,
    passage_key,
    shipped_vectors,
    to_int8,
)
from crlookup.features.ask.prepare import EMBEDDED, passages

OUT = ROOT / "data" / SHIPPED_VECTORS


def wanted(lib) -> dict[bytes, str]:
    """Every distinct passage of the editions of EMBEDDED, and of the tournament documents'
    entries `ask` answers with (crlookup.features.ask.procedure), by key."""
    out: dict[bytes, str] = {}
    for info in lib.editions():
        if info.id in EMBEDDED:
            for text in passages(lib, info.id):
                if text:
                    out.setdefault(passage_key(text), text)
    for candidate in procedure.candidates(lib):
        for text in candidate.passages:
            out.setdefault(passage_key(text), text)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    lib = build.open_library()
    need = wanted(lib)
    have = shipped_vectors()
    missing = [k for k in need if k not in have]
    extra = [k for k in have if k not in need]
    print(f"{len(need)} passages; {len(missing)} to embed, {len(extra)} no longer needed")
    if args.check:
        sys.exit(1 if missing or extra else 0)
    start = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 640 < 32 or done == total:
            rate = done / (time.perf_counter() - start)
            print(f"  {done}/{total} ({rate:.1f} a second)", flush=True)

    fresh = embed([need[k] for k in missing], progress) if missing else np.zeros((0, DIM))
    vectors = {k: have[k] for k in need if k in have}
    vectors.update(zip(missing, fresh))
    keys = sorted(vectors)
    matrix = np.stack([vectors[k] for k in keys]).astype(np.float32)
    rows, scales = to_int8(matrix)
    stored = rows * scales[:, None]
    error = 1 - (stored * matrix).sum(axis=1) / (
        np.linalg.norm(stored, axis=1) * np.linalg.norm(matrix, axis=1)
    )
    np.savez(  # uncompressed: int8 rows do not compress (embedding.shipped_vectors)
        OUT, keys=np.array(keys, dtype="S12"), rows=rows, scales=scales.astype(np.float32)
    )
    print(
        f"{OUT.relative_to(ROOT)}: {len(keys)} vectors, {OUT.stat().st_size / 1e6:.1f} MB, "
        f"largest cosine error {error.max():.1e}"
    )


if __name__ == "__main__":
    main()
