"""Count what answers to real rules questions cite: crlookup/citations/.

`crlookup ask` gives a rule that judges' answers cite often a little more weight (it decides
many questions: 400.7, 601.2b, 704.3...), and more again when the question has a word whose
questions' answers cite that rule unusually often ("X" and 107.3, "hexproof" and 702.11). Both
come from the StackExchange rules questions (../shared/eval/stackexchange-mtg-cited-rules.jsonl,
CC BY-SA), each question read as its title and the first 150 words of its body:

- crlookup/citations/rules.txt: for each rule number, how many questions' answers cite it;
- crlookup/citations/en.txt: for each question word (stem, as `ask` reads English) in at least
  5 questions, the rules cited for at least 5 of them and at least 1.5 times as often as for
  questions in general, with the natural log of that ratio (the lift);
- crlookup/citations/words.txt: the words (of 4 letters or more) that at least 3 of the
  questions use: players' words, which `ask` never takes for typos of the rules' words ("sure"
  is no "surge", "dead" no "dread"); typos seldom recur, and those that do are all but
  harmless ("oponent").

A citation of a subrule counts for its rule too. Only numbers, single words, stems and counts
are written, never a question's or an answer's text. The same file is the benchmark of
scripts/eval_ask.py, which therefore answers each of its questions with what the other half of
the questions says (`cited(..., fold=)`; words.txt is not split so: see its entry above).

    python scripts/count_citations.py [--file PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

from crlookup.core.errors import NumberError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crlookup.core.numbers import parse, rule_of, sort_key
from crlookup.features.ask.analyzer import Analyzer
from crlookup.features.ask.cited import Cited

SE = ROOT.parent / "shared" / "eval" / "stackexchange-mtg-cited-rules.jsonl"
OUT = ROOT / "crlookup" / "citations"
MAX_WORDS = 150  # of a body (scripts/eval_ask.py reads bodies so too)
MIN_QUESTIONS, MIN_TOGETHER, MIN_LIFT = 5, 5, 1.5
MIN_WRITERS, MIN_LETTERS = 3, 4  # words.txt: in at least 3 questions, of 4 letters or more
HEADER = """\
# {what}
# From the boardgames.stackexchange.com questions about Magic whose answers cite rules
# ({questions} questions, CC BY-SA; numbers, words and counts only). Answers cite the
# numbering of their time (2010 on). Made by scripts/count_citations.py; read by
# crlookup/ask/cited.py.
"""


class Question:
    def __init__(self, item: dict):
        self.text = item["title"] + "\n" + " ".join(item["question"].split()[:MAX_WORDS])
        self.rules = set()
        for number in item["cited_rules"]:
            try:
                self.rules.add(str(parse(number)))
            except NumberError:
                continue


def questions(path: Path) -> list[Question]:
    """The questions whose answers cite rules, in file order."""
    with open(path, encoding="utf-8") as f:
        items = [json.loads(line) for line in f if line.strip()]
    return [Question(item) for item in items if item.get("cited_rules")]


def cited(qs: list[Question], fold: int | None = None, lang: str = "en") -> Cited:
    """What the answers cite; with `fold` (0 or 1), of the questions whose position's parity is
    not `fold` only, i.e. the other half."""
    an = Analyzer(lang)
    counts: Counter = Counter()  # questions citing a rule (as cited)
    rules_of: Counter = Counter()  # questions citing a rule or a subrule of it
    stems_of: Counter = Counter()  # questions with a word
    together: Counter = Counter()  # questions with a word citing a rule (or a subrule of it)
    n = 0
    for k, q in enumerate(qs):
        if fold is not None and k % 2 == fold:
            continue
        n += 1
        counts.update(q.rules)
        rules = q.rules | {rule_of(r) for r in q.rules}
        rules_of.update(rules)
        stems = set(an.stems(q.text))
        stems_of.update(stems)
        together.update((s, r) for s in stems for r in rules)
    words: dict[str, dict[str, float]] = defaultdict(dict)
    for (s, r), c in together.items():
        if c >= MIN_TOGETHER and stems_of[s] >= MIN_QUESTIONS:
            lift = c * n / (stems_of[s] * rules_of[r])
            if lift >= MIN_LIFT:
                words[s][r] = round(math.log(lift), 3)
    return Cited(dict(counts), dict(words))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=SE, help="the StackExchange set")
    args = ap.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file}: not found (pass --file)")
    qs = questions(args.file)
    found = cited(qs)
    OUT.mkdir(exist_ok=True)
    with open(OUT / "rules.txt", "w", encoding="utf-8", newline="\n") as f:
        f.write(
            HEADER.format(
                what="How many answers to real rules questions cite each rule "
                "(one question counts once).",
                questions=len(qs),
            )
        )
        f.writelines(
            f"{number} {found.counts[number]}\n" for number in sorted(found.counts, key=sort_key)
        )
    with open(OUT / "en.txt", "w", encoding="utf-8", newline="\n") as f:
        f.write(
            HEADER.format(
                what="Question words (stems) and the rules answers to questions "
                "with them cite unusually often: number:ln(lift).",
                questions=len(qs),
            )
        )
        for stem in sorted(found.words):
            rules = sorted(found.words[stem].items(), key=lambda p: sort_key(p[0]))
            f.write(stem + " " + " ".join(f"{r}:{v}" for r, v in rules) + "\n")
    an = Analyzer("en")
    writers: Counter = Counter()
    for q in qs:
        writers.update({w for w in an.words(q.text) if len(w) >= MIN_LETTERS and w.isalpha()})
    written = sorted(w for w, n in writers.items() if n >= MIN_WRITERS)
    with open(OUT / "words.txt", "w", encoding="utf-8", newline="\n") as f:
        f.write(
            HEADER.format(
                what=f"Words of {MIN_LETTERS} letters or more that {MIN_WRITERS} or "
                "more questions use: players' words, not typos.",
                questions=len(qs),
            )
        )
        f.writelines(w + "\n" for w in written)
    pairs = sum(len(v) for v in found.words.values())
    print(
        f"crlookup/citations/: {len(found.counts)} rules cited by {len(qs)} questions; "
        f"{len(found.words)} words with {pairs} rules they ask about; {len(written)} words "
        "players write"
    )


if __name__ == "__main__":
    main()
