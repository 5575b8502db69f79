"""Measure `crlookup ask` against plain `crlookup search` on rules questions: hit@1, hit@5, MRR.

Two sets:
  (a) the StackExchange questions whose answers cite rules
      (../shared/eval/stackexchange-mtg-cited-rules.jsonl, read from there, never copied into
      the project), titles and bodies each used as the question; lenient: a hit is a cited rule
      or its rule/subrule (702.19 and 702.19b count for each other), since answers cite loosely
      and in the numbering of their time; `ask` answers each with what the answers to the
      other half of the questions cite only (see scripts/count_citations.py);
  (b) our own questions with gold rule numbers, each set written by a different person, a hit
      being a gold number or a subrule of one: tests/data/ask_questions.jsonl (the reported
      set), tests/data/ask_dev.jsonl (the development set, looked at while tuning),
      tests/data/ask_holdout.jsonl (written after those two, never tuned on) and
      tests/data/ask_dev2.jsonl (a second development set, written later by three writers who
      saw none of the others, each on one part of the game, with more cards named; looked at
      while tuning from the day it was written); tests/data/ask_zh_dev.jsonl: Chinese questions
      (the development set of the Chinese edition: `ask` reads them through the English rules,
      crlookup.bilingual.read_in_english).
  (c) the judge questions written for training (../shared/eval/train-judge-questions.jsonl,
      read from there: 147, of kinds card, card-pair, general, tournament and
      tournament-plain), split for good by a hash of the question's text (`judge_part`): a
      quarter held out ("judge", 39 questions: never trained on), the rest for training
      ("judge-train", 108). Each is answered by the whole of `ask` (crlookup.api: a tournament
      question by its document), a hit being a CR gold or a subrule of one, or the tournament
      entry itself ("IPG 2.3", "MTR 4.8", "JAR <its number>"); the figures are also given by kind.
  dev2 and the held-out set say of each question whether it needs a card's text ("card": the
  fact, printed on a card it names, that decides it and that it does not state: "Giant Spider:
  reach"; labelled by a reader who did not see ask's answers); for them the figures are also
  given for the questions that need none and for those that do, which reading the cards a
  question names is for (`--no-cards`: ask without reading them, as before there were cards).

Both systems answer from the newest edition of the question's language (English questions
from the newest English edition, Russian ones from the Russian edition); MRR counts the first
hit within the top 10.

    python scripts/eval_ask.py [--set se|own|dev|dev2|holdout|zh|judge|judge-train|all]
                               [--limit N] [--misses]
                               [--only ask|search] [--no-cards]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import count_citations  # beside this script

from crlookup.core.errors import QueryError, QuestionError
from crlookup.core.numbers import rule_of

ROOT = Path(__file__).resolve().parents[1]
SE = ROOT.parent / "shared" / "eval" / "stackexchange-mtg-cited-rules.jsonl"
OWN = ROOT / "tests" / "data" / "ask_questions.jsonl"
DEV = ROOT / "tests" / "data" / "ask_dev.jsonl"
HOLDOUT = ROOT / "tests" / "data" / "ask_holdout.jsonl"
DEV2 = ROOT / "tests" / "data" / "ask_dev2.jsonl"
ZH = ROOT / "tests" / "data" / "ask_zh_dev.jsonl"
JUDGE = ROOT.parent / "shared" / "eval" / "train-judge-questions.jsonl"
JUDGE_HELD_OUT = 4  # one question in this many is held out (by the hash of its text)
K = 10
MAX_WORDS = count_citations.MAX_WORDS  # bodies are cut to their first words, as pasted


def related(a: str, b: str) -> bool:
    """The same rule, or one is a subrule (or rule) of the other."""
    return a == b or rule_of(a) == b or rule_of(b) == a


def under(number: str, gold: str) -> bool:
    """`number` is `gold` or a subrule of it (702.19b under 702.19; 702.19 not under 702.19b)."""
    return (
        number == gold
        or number.startswith(gold + ".")
        or ("." in gold and rule_of(number) == gold and number != gold)
    )


def stackexchange(path: Path, field: str, limit: int | None):
    """The questions citing rules; each with what the answers to the other half of them cite
    (`ask` weighs rules by what answers cite: crlookup/citations/, counted from this very
    file), so that no question is helped by its own answer."""
    questions = count_citations.questions(path)
    halves = [count_citations.cited(questions, fold) for fold in (0, 1)]
    k = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            item = json.loads(line)
            if item.get("cited_rules"):
                text = " ".join(item[field].split()[:MAX_WORDS])
                yield {
                    "question": text,
                    "lang": "en",
                    "gold": item["cited_rules"],
                    "citations": halves[k % 2],
                }
                k += 1
                if limit is not None:
                    limit -= 1
                    if limit <= 0:
                        return


def judge_part(question: str) -> str:
    """Which part of the judge questions `question` is in, for good: "judge" (held out) or
    "judge-train"."""
    import hashlib

    digest = int(hashlib.sha1(question.encode("utf-8")).hexdigest(), 16)
    return "judge" if digest % JUDGE_HELD_OUT == 0 else "judge-train"


def judge_questions(part: str) -> list[dict]:
    """The judge questions of one part (judge_part), each as our sets have them (question,
    gold, lang) with its kind and the cards it names."""
    rows = [json.loads(line) for line in JUDGE.open(encoding="utf-8") if line.strip()]
    return [
        {
            "question": r["q"],
            "gold": r["gold"],
            "lang": "en",
            "kind": r["kind"],
            "cards": r["cards"],
        }
        for r in rows
        if judge_part(r["q"]) == part
    ]


def own(path: Path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class Systems:
    def __init__(self):
        from crlookup.builder import pipeline as build
        from crlookup.features import ask
        from crlookup.features.ask import pipeline
        from crlookup.library import index

        self.ask, self.pipeline, self.index = ask, pipeline, index
        self.lib = build.open_library()
        self.editions = {lang: self.lib.edition(lang=lang).id for lang in ("en", "ru")}
        self.lexicons = {lang: ask.lexicon(self.lib, e) for lang, e in self.editions.items()}
        self.indexes = {lang: index.Index(self.lib.index_path, lang) for lang in ("en", "ru")}
        self.cards = True  # read the cards a question names (--no-cards: as before cards)
        from crlookup import api

        self.api = api.open()
        self.editions["zh"] = self.api.edition(lang="zh").id
        self.indexes["zh"] = index.Index(self.lib.index_path, "zh")

    def by_ask(self, text: str, lang: str, cited=None) -> list[str]:
        if lang == "zh":  # read through the English rules: the whole of crlookup.api's ask
            try:
                return [a.number for a in self.api.ask(text, limit=K).answers]
            except QuestionError:
                return []
        lex = self.lexicons[lang]
        lex.citations = self.ask.citations() if cited is None else cited
        try:
            q = self.ask.understand(lex, text, self.lib if self.cards else None)
        except QuestionError:
            return []
        return [a.number for a in self.pipeline.answer(self.lib, lex, q, K)]

    def by_api(self, text: str) -> list[str]:
        """The answers of the whole of `ask` (a tournament question's entries as judges write
        them: "IPG 2.3"; the CR's by number)."""
        from crlookup.core.documents import document_of, label

        try:
            answers = self.api.ask(text, limit=K).answers
        except QuestionError:
            return []
        return [
            a.number
            if document_of(a.edition) == "cr"
            else label(document_of(a.edition), a.number).replace("appendix ", "")
            for a in answers
        ]

    def by_search(self, text: str, lang: str, cited=None) -> list[str]:
        try:
            hits = self.indexes[lang].search(text, editions=(self.editions[lang],), limit=K).hits
        except QueryError:
            return []
        return [h.number for h in hits if h.number]


def evaluate(systems: Systems, items, match, misses: bool, label: str) -> dict:
    out = {}
    for name in systems.chosen:
        run = systems.by_ask if name == "ask" else systems.by_search
        h1 = h5 = rr = n = 0
        times = []
        for item in items:
            n += 1
            t = time.perf_counter()
            found = run(item["question"], item.get("lang", "en"), item.get("citations"))
            times.append(time.perf_counter() - t)
            rank = next(
                (r for r, num in enumerate(found, 1) if any(match(num, g) for g in item["gold"])),
                None,
            )
            if rank:
                h1 += rank == 1
                h5 += rank <= 5
                rr += 1 / rank
            if misses and name == "ask" and (rank is None or rank > 1):
                print(
                    f"  [{rank or '-'}] {item['question'][:90]}  gold {item['gold']}  got {found[:5]}"
                )
        out[name] = {
            "n": n,
            "hit@1": h1 / n,
            "hit@5": h5 / n,
            "mrr": rr / n,
            "median_ms": statistics.median(times) * 1000,
        }
    print(f"{label} ({next(iter(out.values()))['n']} questions)")
    for name, m in out.items():
        print(
            f"  {name:6}  hit@1 {m['hit@1']:.3f}  hit@5 {m['hit@5']:.3f}  MRR {m['mrr']:.3f}"
            f"  (median {m['median_ms']:.1f} ms a question)"
        )
    return out


def evaluate_set(systems: Systems, items, misses: bool, label: str) -> None:
    """One of our sets, and its parts: each language, if it has more than one; the questions
    that need a card's text and the others, if it says which."""
    evaluate(systems, items, under, misses, label)
    langs = sorted({i.get("lang", "en") for i in items})
    for lang in langs if len(langs) > 1 else ():
        evaluate(
            systems,
            [i for i in items if i.get("lang", "en") == lang],
            under,
            False,
            f"  of which {lang}",
        )
    if items and all("card" in i for i in items):
        for part, needs in (("needing no card's text", False), ("needing a card's text", True)):
            evaluate(
                systems,
                [i for i in items if bool(i["card"]) == needs],
                under,
                False,
                f"  of which {part}",
            )


def judge_hit(number: str, gold: str) -> bool:
    """A tournament gold is the entry itself; a CR gold, the rule or a subrule of it."""
    if gold.split(" ", 1)[0] in ("MTR", "IPG", "JAR"):
        return number == gold
    return under(number, gold)


def evaluate_judge(systems: Systems, part: str, misses: bool) -> None:
    """A part of the judge questions through the whole of `ask`, and by kind."""
    items = judge_questions(part)
    chosen, systems.chosen = systems.chosen, ("ask",)
    by_ask = systems.by_ask
    systems.by_ask = lambda text, lang, cited=None: systems.by_api(text)  # type: ignore[method-assign]
    try:
        evaluate(systems, items, judge_hit, misses, f"judge questions, {part}")
        for kind in sorted({i["kind"] for i in items}):
            evaluate(
                systems,
                [i for i in items if i["kind"] == kind],
                judge_hit,
                False,
                f"  of which {kind}",
            )
    finally:
        systems.chosen, systems.by_ask = chosen, by_ask


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--set",
        choices=("se", "own", "dev", "dev2", "holdout", "zh", "judge", "judge-train", "all"),
        default="all",
    )
    ap.add_argument("--file", type=Path, default=SE, help="the StackExchange set")
    ap.add_argument("--limit", type=int, help="only the first N StackExchange questions")
    ap.add_argument("--misses", action="store_true", help="print the questions ask misses at 1")
    ap.add_argument("--only", choices=("ask", "search"), help="evaluate one system only")
    ap.add_argument("--no-cards", action="store_true", help="ask without reading named cards")
    args = ap.parse_args()
    systems = Systems()
    systems.cards = not args.no_cards
    systems.chosen = (args.only,) if args.only else ("ask", "search")
    if args.set in ("own", "all"):
        evaluate_set(systems, own(OWN), args.misses, f"own set, {OWN.name}")
    if args.set in ("dev", "all") and DEV.exists():
        evaluate_set(systems, own(DEV), args.misses, f"development set, {DEV.name}")
    if args.set in ("dev2", "all") and DEV2.exists():
        evaluate_set(systems, own(DEV2), args.misses, f"second development set, {DEV2.name}")
    if args.set in ("zh", "all") and ZH.exists():
        evaluate_set(systems, own(ZH), args.misses, f"Chinese development set, {ZH.name}")
    if args.set in ("holdout", "all") and HOLDOUT.exists():
        evaluate_set(systems, own(HOLDOUT), False, f"held-out set, {HOLDOUT.name}")
    for part in ("judge", "judge-train"):
        if args.set in (part, "all") and JUDGE.exists():
            evaluate_judge(systems, part, args.misses)
    if args.set in ("se", "all"):
        if not args.file.exists():
            sys.exit(f"{args.file}: not found (pass --file)")
        for field in ("title", "question"):
            items = list(stackexchange(args.file, field, args.limit))
            evaluate(systems, items, related, False, f"StackExchange, {field}s as questions")


if __name__ == "__main__":
    main()
