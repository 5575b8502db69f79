"""Measure `crlookup ask` on tournament questions: hit@1 and hit@5 against the entries that
govern them (MTR, IPG, JAR), and how many rules questions are taken for tournament ones.

Sets (tests/data/), each written by a different person, a hit being a gold entry ("IPG 2.1",
"MTR C", "JAR <case title>"):
  ask_tournament_dev.jsonl (45): looked at while tuning;
  ask_tournament_holdout.jsonl (30): written after it; its misses were looked at once while
    the judges' thesaurus was written (so it is no longer held out);
  ask_tournament_fresh.jsonl (36): written last by someone who saw neither, measured after
    the ranking was set (the gate's words were then widened once for its misses).
The CR's four sets (ask_questions, ask_dev, ask_holdout, ask_dev2: 310 questions) must all
stay with the CR.

    python scripts/eval_tournament.py [--misses]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import crlookup
from crlookup.core.documents import document_of, label
from crlookup.features.ask import pipeline

DATA = ROOT / "tests" / "data"
SETS = ("ask_tournament_dev", "ask_tournament_holdout", "ask_tournament_fresh")
RULES_SETS = ("ask_questions", "ask_dev", "ask_holdout", "ask_dev2")


def gold(lib, entry: str) -> str:
    """An entry as `label` writes it, without "appendix" (a JAR case found by its title)."""
    doc, rest = entry.split(" ", 1)
    if doc == "JAR":
        for r in lib.entries(lib.edition(document="jar").id):
            if r.title.strip() == rest.strip():
                return f"JAR {r.number}"
    return entry.replace("appendix ", "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--misses", action="store_true", help="print each question missed at 1")
    args = ap.parse_args()
    lib = crlookup.open()
    total = [0, 0, 0]
    for name in SETS:
        questions = [json.loads(line) for line in (DATA / f"{name}.jsonl").open(encoding="utf-8")]
        hit1 = hit5 = 0
        for q in questions:
            wanted = {gold(lib, g) for g in q["gold"]}
            answers = lib.ask(q["question"]).answers
            got = [
                label(document_of(a.edition), a.number).replace("appendix ", "") for a in answers
            ]
            hit1 += bool(got) and got[0] in wanted
            hit5 += bool(wanted & set(got[:5]))
            if args.misses and not (got and got[0] in wanted):
                print(f"  {sorted(wanted)} got {got[:3]}: {q['question']}")
        n = len(questions)
        total = [total[0] + n, total[1] + hit1, total[2] + hit5]
        print(f"{name:28s} n={n:3d}  hit@1 {hit1 / n:.2f}  hit@5 {hit5 / n:.2f}")
    n = total[0]
    print(f"{'all':28s} n={n:3d}  hit@1 {total[1] / n:.2f}  hit@5 {total[2] / n:.2f}")
    # by the question's tournament words, or by the situation it describes (its entries first)
    from crlookup.features import ask

    edition = lib.edition().id
    lex = ask.lexicon(lib.reader, edition)

    def situation_first(q: str) -> bool:
        told = pipeline.situation(lib.reader, q, edition, ask.understand(lex, q, lib.reader))
        return told is not None and told[1]

    taken = [
        q
        for name in RULES_SETS
        for line in (DATA / f"{name}.jsonl").open(encoding="utf-8")
        if (item := json.loads(line)).get("lang", "en") == "en"
        and (pipeline.route(lib.reader, q := item["question"]) is not None or situation_first(q))
    ]
    print(f"rules questions taken for tournament ones: {len(taken)} of the four CR sets")
    for q in taken:
        print(f"  {q}")


if __name__ == "__main__":
    main()
