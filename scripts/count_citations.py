"""Count how often answers to real rules questions cite each rule: crlookup/citations.txt.

`crlookup ask` gives a rule that judges' answers cite often a little more weight (it decides
many questions: 400.7, 601.2b, 704.3...). The counts come from the StackExchange rules
questions (../shared/eval/stackexchange-mtg-cited-rules.jsonl, CC BY-SA): for each rule
number, the number of questions whose answer cites it. Only numbers and counts are written,
never a question's or an answer's text.

The same file is the benchmark of scripts/eval_ask.py, which therefore scores each of its
questions with counts taken from the other half of the questions only (`count(..., fold=)`).

    python scripts/count_citations.py [--file PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SE = ROOT.parent / "shared" / "eval" / "stackexchange-mtg-cited-rules.jsonl"
OUT = ROOT / "crlookup" / "citations.txt"
HEADER = """\
# How many answers to real rules questions cite each rule (one question counts once).
# From the boardgames.stackexchange.com questions about Magic whose answers cite rules
# ({questions} questions, CC BY-SA; numbers and counts only). Answers cite the numbering of
# their time (2010 on). Made by scripts/count_citations.py; read by crlookup/ask.py.
"""


def questions(path: Path) -> list[list[str]]:
    """The cited rules of each question that cites any, in file order."""
    with open(path, encoding="utf-8") as f:
        items = [json.loads(line) for line in f if line.strip()]
    return [item["cited_rules"] for item in items if item.get("cited_rules")]


def count(cited: list[list[str]], fold: int | None = None) -> Counter:
    """Questions citing each rule number; with `fold` (0 or 1), only the questions whose
    position's parity is not `fold`, i.e. the other half."""
    sys.path.insert(0, str(ROOT))
    from crlookup.numbers import NumberError, parse

    counts: Counter = Counter()
    for k, rules in enumerate(cited):
        if fold is not None and k % 2 == fold:
            continue
        for number in set(rules):
            try:
                counts[str(parse(number))] += 1
            except NumberError:
                continue
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=SE, help="the StackExchange set")
    args = ap.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file}: not found (pass --file)")
    cited = questions(args.file)
    counts = count(cited)
    from crlookup.numbers import sort_key

    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(HEADER.format(questions=len(cited)))
        f.writelines(f"{number} {counts[number]}\n" for number in sorted(counts, key=sort_key))
    print(f"{OUT.relative_to(ROOT)}: {len(counts)} rules cited by {len(cited)} questions")


if __name__ == "__main__":
    main()
