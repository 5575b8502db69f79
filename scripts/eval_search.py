"""Measure search quality on real rules questions: hit@1, hit@5 and hit@10.

Each question title of the StackExchange set (../shared/eval/stackexchange-mtg-cited-rules.jsonl,
read from there, never copied into the project) is run as a `crlookup search` query against
the newest English edition. A question counts as a hit at k when one of the top k results is
a rule its answer cites, or the rule or a subrule of one it cites (702.19 and 702.19b count for
each other): answers cite loosely and from many years of numbering, so this is lenient.

    python scripts/eval_search.py [--file PATH] [--limit N] [--field title|question]

With --chinese, the newest Chinese edition instead (issue 33), on queries the edition itself
gives: each keyword (the titled rules of 701 and 702, "702.19. 践踏": a hit is the rule or a
subrule of it) and each glossary term (a hit is its entry), and the size of the Chinese index.

    python scripts/eval_search.py --chinese
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
    ap.add_argument("--chinese", action="store_true", help="the Chinese edition's keywords")
    args = ap.parse_args()
    if args.chinese:
        return chinese()
    if not args.file.exists():
        sys.exit(f"{args.file}: not found (pass --file)")

    from crlookup.builder import pipeline as build
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


def chinese() -> None:
    """Hit@1 and hit@5 of the newest Chinese edition's keywords and glossary terms as queries."""
    import os

    from crlookup.builder import pipeline as build
    from crlookup.library import index

    lib = build.open_library()
    edition = lib.edition(lang="zh").id
    ix = index.Index(lib.index_path, "zh")
    keywords = [
        (r.title, r.number)
        for r in lib.entries(edition)
        if r.kind == "rule" and r.title and r.number.split(".")[0] in ("701", "702")
    ]
    terms = [(g.headwords[0] if g.headwords else g.term, g.term) for g in lib.glossary(edition)]
    times = []

    def measure(items, hit) -> tuple[int, int]:
        at1 = at5 = 0
        for query, wanted in items:
            t = time.perf_counter()
            found = ix.search(query, editions=(edition,), limit=5).hits
            times.append(time.perf_counter() - t)
            ranks = [i for i, h in enumerate(found) if hit(h, wanted)]
            at1 += bool(ranks) and ranks[0] == 0
            at5 += bool(ranks)
        return at1, at5

    k1, k5 = measure(keywords, lambda h, n: h.number == n or rule_of(h.number or "x.1") == n)
    g1, g5 = measure(terms, lambda h, term: h.kind == "glossary" and h.title == term)
    size = sum(
        os.path.getsize(os.path.join(d, f))
        for d, _, files in os.walk(os.path.join(lib.index_path, "zh"))
        for f in files
    )
    print(
        f"{edition}: keywords {len(keywords)}, hit@1 {k1} ({k1 / len(keywords):.3f}), "
        f"hit@5 {k5} ({k5 / len(keywords):.3f})"
    )
    print(
        f"glossary terms {len(terms)}, hit@1 {g1} ({g1 / len(terms):.3f}), "
        f"hit@5 {g5} ({g5 / len(terms):.3f})"
    )
    print(
        f"the Chinese index (every Chinese edition): {size / 2**20:.1f} MiB; query time: "
        f"median {statistics.median(times) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
