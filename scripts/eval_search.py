"""Measure search quality on real rules questions: hit@1, hit@5 and hit@10.

Each question title of the StackExchange set (../shared/eval/stackexchange-mtg-cited-rules.jsonl,
read from there, never copied into the project) is run as a `crlookup search` query against
the newest English edition. A question counts as a hit at k when one of the top k results is
a rule its answer cites, or the rule or a subrule of one it cites (702.19 and 702.19b count for
each other): answers cite loosely and from many years of numbering, so this is lenient.

    python scripts/eval_search.py [--file PATH] [--limit N] [--field title|question]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from crlookup.core.errors import QueryError
from crlookup.core.numbers import rule_of

DEFAULT = (
    Path(__file__).resolve().parents[2] / "shared" / "eval" / "stackexchange-mtg-cited-rules.jsonl"
)


def related(a: str, b: str) -> bool:
    """The same rule, or one is a subrule (or rule) of the other, or a rule of the other's
    section."""
    return (
        a == b
        or a.startswith(b + ".")
        or b.startswith(a + ".")
        or rule_of(a) == b
        or rule_of(b) == a
    )


def questions(path: Path, field: str, limit: int | None):
    with open(path, encoding="utf-8") as f:
        for line in f:
            item = json.loads(line)
            if item.get("cited_rules"):
                yield item[field], item["cited_rules"]
                if limit is not None:
                    limit -= 1
                    if limit <= 0:
                        return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEFAULT)
    ap.add_argument("--limit", type=int, help="evaluate only the first N questions")
    ap.add_argument("--field", choices=("title", "question"), default="title")
    args = ap.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file}: not found (pass --file)")

    from crlookup.build import pipeline as build
    from crlookup.library import index

    lib = build.open_library()
    edition = lib.edition(lang="en").id
    ix = index.Index(lib.index_path, "en")
    hits = {1: 0, 5: 0, 10: 0}
    times = []
    n = 0
    for text, cited in questions(args.file, args.field, args.limit):
        n += 1
        t = time.perf_counter()
        try:
            found = ix.search(text[:500], editions=(edition,), limit=10).hits
        except QueryError:
            found = []
        times.append(time.perf_counter() - t)
        numbers = [h.number for h in found]
        for k in hits:
            if any(related(num, c) for num in numbers[:k] if num for c in cited):
                hits[k] += 1
    print(f"{n} questions with cited rules ({args.field}s as queries), edition {edition}")
    for k, v in hits.items():
        print(f"hit@{k}: {v / n:.3f} ({v})")
    print(
        f"query time: median {statistics.median(times) * 1000:.1f} ms, "
        f"p90 {sorted(times)[int(0.9 * len(times))] * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
