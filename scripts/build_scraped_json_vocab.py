"""Build crlookup/sources/scraped_json_vocab.json: the English the scraped-JSON parser knows.

The scraped JSON edition (data/cr-2024-07-30-en.json) lost every PDF line break without a space
("verycommon"). Its parser repairs those joins with the vocabulary of the official English
editions of `EDITIONS` (members of data/official-cr-archive.tar.xz, read with the official text
parser), folded to
ASCII the way the scraper wrote text (’ -> ', "Dandân" -> "Dandan"):

- "words": every word of their rules, examples and glossary, lower-cased, with its count;
- "pairs": every two words printed side by side (with a space between), with their count;
- "tokens": the few pieces of their text (between spaces, without the punctuation around them)
  that the parser's piece grammar does not cover: "e.g", "d20", "Celebr-8000", URLs;
- "corrections": the hand corrections below, for joins the vocabulary cannot see.

Run it again when EDITIONS or CORRECTIONS change; a test checks
that the committed file is what this script builds:

    python scripts/build_scraped_json_vocab.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import itertools

from crlookup.sources import scraped_json, text

OUT = ROOT / "crlookup" / "sources" / "scraped_json_vocab.json"

#: Joins that make a real word, so no vocabulary can tell them from it: (as the scraper wrote
#: it, as the official text reads), long enough to occur only there. Each was checked against
#: the same rule in the 2022-11-18 and 2026-08-07 editions.
CORRECTIONS = [
    ('the step doesn\'t "backup" so', 'the step doesn\'t "back up" so'),  # 513.2
    ("(cards, mana, and soon)", "(cards, mana, and so on)"),  # 720.5a
]


def vocabulary(files: list[Path]) -> dict:
    words: Counter = Counter()
    pairs: Counter = Counter()
    pieces: list[str] = []
    for path in files:
        [edition] = text.read(path, path.read_bytes())
        for rule in edition.rules:
            pieces += [rule.text, rule.title, *rule.examples]
        for entry in edition.glossary:
            pieces += [entry.term, entry.definition]
    pieces = [scraped_json.ascii_fold(p) for p in pieces]
    for piece in pieces:
        words.update(w.lower() for w in scraped_json.WORD.findall(piece))
        chunks = piece.split()
        for a, b in itertools.pairwise(chunks):
            if a[-1].isalpha() and b[0].isalpha():
                left, right = scraped_json.WORD.findall(a)[-1], scraped_json.WORD.findall(b)[0]
                pairs[f"{left.lower()} {right.lower()}"] += 1
    joins = scraped_json.Joins(words, pairs)
    tokens = {
        joins.core(chunk) for piece in pieces for chunk in piece.split() if not joins.valid(chunk)
    }
    return {
        "about": "Built by scripts/build_scraped_json_vocab.py from the official English editions "
        "in data/ (do not edit by hand; corrections live in that script).",
        "sources": [p.name for p in files],
        "words": dict(sorted(words.items())),
        "pairs": dict(sorted(pairs.items())),
        "tokens": sorted(t for t in tokens if t),
        "corrections": [list(c) for c in CORRECTIONS],
    }


def render(data: dict) -> str:
    return json.dumps(data, ensure_ascii=True, indent=0) + "\n"


#: the official editions the vocabulary is read from: the newest, and four from 2009 on
#: whose encodings and spellings differ (the editions that were shipped on their own)
EDITIONS = (
    "MagicCompRules-2009-07-11.txt",
    "MagicCompRules-2014-02-01.txt",
    "MagicCompRules-2019-01-25.txt",
    "MagicCompRules-2022-11-18.txt",
    "MagicCompRules-2026-08-07.txt",
)


def main() -> None:
    import tarfile
    import tempfile

    folder = Path(tempfile.mkdtemp())
    with tarfile.open(ROOT / "data" / "official-cr-archive.tar.xz") as tar:
        for name in EDITIONS:
            (folder / name).write_bytes(tar.extractfile(name).read())
    files = [folder / name for name in EDITIONS]
    data = vocabulary(files)
    OUT.write_text(render(data), encoding="utf-8")
    print(
        f"{OUT.relative_to(ROOT)}: {len(data['words'])} words, {len(data['pairs'])} pairs, "
        f"{len(data['tokens'])} other tokens, {len(data['corrections'])} corrections, "
        f"from {len(files)} files"
    )


if __name__ == "__main__":
    main()
