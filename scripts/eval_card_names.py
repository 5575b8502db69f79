"""How well a name no card has leads to the card meant: `Cards.find`'s nearest names, measured.

Names are made from the paper cards' own (seeded): 3 to 6 typos; 2 typos and a word of another
card's name; the name inside other words ("the X card rulings"); each word cut short. Only those
that `find` answers "none" (no card within the fuzzy cutoff, no name with those words) are
counted: for each kind, how often the card meant is the first of the nearest names, and among
the three shown; and the milliseconds `find` took (median and worst).

    CRLOOKUP_HOME=... python scripts/eval_card_names.py [--names 4000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time


def typo(draw: random.Random, name: str, count: int) -> str:
    chars = list(name)
    for _ in range(count):
        i = draw.randrange(len(chars))
        what = draw.random()
        if what < 0.4:
            chars[i] = draw.choice("abcdefghijklmnopqrstuvwxyz")
        elif what < 0.7:
            del chars[i]
        else:
            chars.insert(i, draw.choice("aeiou"))
        chars = chars or ["x"]
    return "".join(chars)


def made(draw: random.Random, names: list[str]) -> tuple[str, str, str]:
    """(kind, what is typed, the name meant)."""
    meant, other = draw.choice(names), draw.choice(names)
    roll = draw.random()
    if roll < 0.3:
        return "3 to 6 typos", typo(draw, meant, draw.randint(3, 6)), meant
    if roll < 0.5:
        return "inside other words", f"the {meant.split(' // ')[0]} card rulings", meant
    if roll < 0.85:
        return "2 typos and a word", f"{typo(draw, meant, 2)} {draw.choice(other.split())}", meant
    return "words cut short", " ".join(w[: max(2, len(w) - 2)] for w in meant.split()), meant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", type=int, default=4000, help="names made (before filtering)")
    args = parser.parse_args()
    import crlookup
    from crlookup.core.errors import CrlookupError

    lib = crlookup.open()
    cards = lib.reader.cards()
    names = [r[0] for r in cards.db.execute("SELECT name FROM cards WHERE alchemy = 0")]
    draw = random.Random(11)
    kinds: dict[str, list[tuple[bool, bool, float]]] = {}
    for _ in range(args.names):
        kind, typed, meant = made(draw, names)
        try:
            started = time.perf_counter()
            found = cards.find(typed)
            took = time.perf_counter() - started
        except CrlookupError:
            continue
        if found.how != "none":
            continue
        shown = [c.name for c in found.candidates]
        kinds.setdefault(kind, []).append((shown[:1] == [meant], meant in shown, took))
    print(f"{'kind':20} {'names':>5} {'first':>6} {'top 3':>6} {'ms p50':>7} {'worst':>6}")
    for kind, rows in sorted(kinds.items()):
        times = [t for *_f, t in rows]
        print(
            f"{kind:20} {len(rows):5} {sum(r[0] for r in rows) / len(rows):6.2f} "
            f"{sum(r[1] for r in rows) / len(rows):6.2f} {statistics.median(times) * 1000:7.1f} "
            f"{max(times) * 1000:6.1f}"
        )
    lib.close()


if __name__ == "__main__":
    main()
