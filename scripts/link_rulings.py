"""Make data/ruling-links.sqlite: every shipped card ruling linked to the rules it applies
(crlookup.features.ask.rulings.link: read as `ask` reads a question, against the newest English
edition), with its vector as the model reads it as a passage (for `ask` to weigh a named card's
rulings without embedding them), keyed by the ruling's text (crlookup.features.rulings.key).

    python scripts/link_rulings.py [--rulings FILE] [--processes N]

The rulings are read from data/cards-rulings.jsonl.gz (or FILE); each distinct text is linked
once. Two processes on two cores, one thread each (OMP_NUM_THREADS=1: the model's threads
spin against each other otherwise): about 20 minutes to link, 10 more to embed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crlookup.features import rulings
from crlookup.features.ask import rulings as reading

RULINGS = ROOT / "data" / "cards-rulings.jsonl.gz"
OUT = ROOT / "data" / rulings.LINKS


def _part(texts: list[str]) -> list[tuple[list[str], tuple[bytes, float]]]:
    """Each ruling's rules, and its vector as the model reads it as a passage (int8, scale)."""
    import crlookup
    from crlookup.features.ask.embedding import load_model

    lib = crlookup.open().reader  # (the library as read: ask reads it so)
    start = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 1024 < 64 or done == total:
            print(
                f"  {done}/{total} ({done / (time.perf_counter() - start):.0f} a second)",
                flush=True,
            )

    linked = reading.link(lib, texts, lib.edition().id, progress)
    from crlookup.features.ask.embedding import embed, to_int8
    from crlookup.features.ask.semantic import passage

    matrix = embed([passage(t) for t in texts], model=lib.memo(("ask", "model"), load_model))
    rows, scales = to_int8(matrix)  # as entry-vectors.npz
    return [
        (numbers, (row.tobytes(), float(scale)))
        for numbers, row, scale in zip(linked, rows, scales)
    ]


def main() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rulings", type=Path, default=RULINGS)
    ap.add_argument("--processes", type=int, default=2)
    args = ap.parse_args()
    with gzip.open(args.rulings, "rt", encoding="utf-8") as f:
        texts = sorted({json.loads(line)["text"] for line in f})
    import crlookup

    edition = crlookup.open().reader.edition().id
    n = args.processes
    parts = [texts[i::n] for i in range(n)]
    with ProcessPoolExecutor(n) as pool:
        found = list(pool.map(_part, parts))
    links: dict[str, list[str]] = {}
    vectors: dict[str, tuple[bytes, float]] = {}
    for part, made in zip(parts, found):
        for text, (linked, vector) in zip(part, made):
            links[rulings.key(text)] = linked
            vectors[rulings.key(text)] = vector
    rulings.save(str(OUT), edition, links, vectors)
    print(
        f"{OUT.relative_to(ROOT)}: {len(links)} rulings linked, {OUT.stat().st_size / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
