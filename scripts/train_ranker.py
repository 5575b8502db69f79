"""Train `ask`'s ranking weights (crlookup/ask/ranking.py) and write data/ranker.json.

A linear model, learned pairwise (logistic regression on the differences between a right and a
wrong candidate of the same question, scikit-learn, no intercept): each question's candidates
(ranking.candidates) are described by ranking.FEATURES; a right one is a gold rule or a subrule
of one (as scripts/eval_ask.py counts a hit).

Training questions, each pair weighted so that a question counts its weight in all:
  - our own set, tests/data/ask_questions.jsonl, English and Russian (weight 1);
  - the Comprehensive Rules' own examples, each a small situation whose answer is its rule
    (newest English edition; weight 0.1 each).
Levers measured and left out (README: How `ask` ranks): glossary definitions as questions,
the Russian edition's examples, the StackExchange question titles, other weights and C,
gradient-boosted trees.
No question of the development sets or the held-out set is trained on, nor any training question
close to one of theirs (TF-IDF cosine >= NEAR over word unigrams and bigrams): those are
dropped, and counted. Our own set is also measured by 5-fold cross-validation (each fold ranked
with weights learned without it).

    python scripts/train_ranker.py [--check]

--check: train again and exit 1 unless data/ranker.json holds the same weights. Needs the
`train` extra (pip install -e ".[train]").
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from crlookup.core.errors import QuestionError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np
from eval_ask import DEV, DEV2, HOLDOUT, OWN, own, under

from crlookup.build import pipeline as build
from crlookup.features import ask
from crlookup.features.ask import ranking, semantic
from crlookup.features.ask.retrieve import rank

OUT = ROOT / "data" / ranking.RANKER
EXAMPLE = 0.1  # the weight of each example question
NEAR = 0.5
C = 1.0
FOLDS = 5


def examples(lib, edition: str) -> list[dict]:
    out = []
    for r in lib.entries(edition):
        for text in r.examples:
            text = re.sub(r"^(Example|Пример):\s*", "", text).strip()
            if text:
                out.append(
                    {
                        "question": text,
                        "lang": "en",
                        "gold": [r.number],
                        "weight": EXAMPLE,
                        "from": "example",
                    }
                )
    return out


def near_duplicates(items: list[dict], kept_out: list[dict]) -> list[bool]:
    """Whether each item is close to a question of `kept_out`."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    vec.fit([i["question"] for i in items + kept_out])
    sims = cosine_similarity(
        vec.transform([i["question"] for i in items]),
        vec.transform([i["question"] for i in kept_out]),
    )
    return (sims.max(axis=1) >= NEAR).tolist()


class Described:
    """A question's candidates, their features and which are right."""

    def __init__(self, lib, lexicons, item: dict):
        lex = lexicons[item["lang"]]
        self.item = item
        try:
            q = ask.understand(lex, item["question"], lib)
        except QuestionError:
            q = None
        self.rows = np.zeros((0, len(ranking.FEATURES)))
        self.right = np.zeros(0, dtype=bool)
        self.args = None
        if q is None:
            return
        scores, reasons = rank(lex, q)
        similar = semantic.similarities(lib, lex.edition, semantic.reading(lex, q))
        chosen = ranking.candidates(lex, scores, similar)
        if not chosen:
            return
        self.args = (lex, q, scores, reasons, similar)
        self.rows = np.array(ranking.features(lex, q, scores, reasons, similar, chosen))
        self.right = np.array([any(under(lex.numbers[i], g) for g in item["gold"]) for i in chosen])

    def useful(self) -> bool:
        return bool(self.right.any() and (~self.right).any())

    def found(self, weights: list[float]) -> list[str]:
        if self.args is None:
            return []
        lex = self.args[0]
        return [lex.numbers[p.i] for p in ranking.order(*self.args, limit=10, learned=weights)]


def fit(described: list[Described]) -> list[float]:
    """Pairwise logistic regression; the weights in FEATURES order, for unscaled features."""
    from sklearn.linear_model import LogisticRegression

    allrows = np.vstack([d.rows for d in described])
    scale = allrows.std(axis=0)
    scale[scale == 0] = 1.0
    xs, ys, ws = [], [], []
    for d in described:
        if not d.useful():
            continue
        pos, neg = d.rows[d.right] / scale, d.rows[~d.right] / scale
        diffs = (pos[:, None, :] - neg[None, :, :]).reshape(-1, len(scale))
        w = d.item.get("weight", 1.0) / len(diffs)
        xs += [diffs, -diffs]
        ys += [np.ones(len(diffs)), np.zeros(len(diffs))]
        ws += [np.full(len(diffs), w)] * 2
    model = LogisticRegression(C=C, fit_intercept=False, max_iter=5000)
    model.fit(np.vstack(xs), np.concatenate(ys), sample_weight=np.concatenate(ws))
    return [round(float(c), 6) for c in model.coef_[0] / scale]


def measure(described: list[Described], weights: list[float]) -> dict:
    h1 = h5 = rr = 0.0
    for d in described:
        found = d.found(weights)
        place = next(
            (p for p, n in enumerate(found, 1) if any(under(n, g) for g in d.item["gold"])), None
        )
        if place:
            h1 += place == 1
            h5 += place <= 5
            rr += 1 / place
    n = len(described) or 1
    return {"hit@1": round(h1 / n, 3), "hit@5": round(h5 / n, 3), "mrr": round(rr / n, 3)}


def train() -> dict:
    lib = build.open_library()
    lexicons = {lang: ask.lexicon(lib, lib.edition(lang=lang).id) for lang in ("en", "ru")}
    for lex in lexicons.values():
        lex.citations = ask.citations()
    english = lexicons["en"].edition
    ours = [dict(i, weight=1.0, **{"from": "own"}) for i in own(OWN)]
    extra = examples(lib, english)
    kept_out = own(DEV) + own(DEV2) + own(HOLDOUT)
    near = near_duplicates(ours + extra, kept_out)
    dropped: dict[str, int] = {}
    for item, n in zip(ours + extra, near):
        if n:
            dropped[item["from"]] = dropped.get(item["from"], 0) + 1
    items = [i for i, n in zip(ours + extra, near) if not n]
    print(
        f"{len(items)} training questions (dropped as close to a kept-out one: {dropped})",
        file=sys.stderr,
    )
    described = []
    for n, item in enumerate(items, 1):
        described.append(Described(lib, lexicons, item))
        if n % 250 == 0:
            print(f"  {n}/{len(items)}", file=sys.stderr)
    mine = [d for d in described if d.item["from"] == "own"]
    others = [d for d in described if d.item["from"] != "own"]
    folds = []
    for k in range(FOLDS):
        held = mine[k::FOLDS]
        rest = [d for j, d in enumerate(mine) if j % FOLDS != k]
        folds.append((held, fit(rest + others)))
    cv = {"hit@1": 0.0, "hit@5": 0.0, "mrr": 0.0}
    for held, weights in folds:
        m = measure(held, weights)
        for key in cv:
            cv[key] += m[key] * len(held) / len(mine)
    weights = fit(described)
    counts = {}
    for d in described:
        counts[d.item["from"]] = counts.get(d.item["from"], 0) + 1
    return {
        "about": "ask's ranking weights (crlookup/ask/ranking.py); made by scripts/train_ranker.py",
        "trained_on": counts,
        "dropped_near_kept_out": dropped,
        "own_cross_validated": {k: round(v, 3) for k, v in cv.items()},
        "weights": dict(zip(ranking.FEATURES, weights)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    made = train()
    text = json.dumps(made, indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = OUT.exists() and json.loads(OUT.read_text())["weights"] == made["weights"]
        print(f"{OUT.relative_to(ROOT)}: {'up to date' if same else 'differs'}")
        sys.exit(0 if same else 1)
    OUT.write_text(text, encoding="utf-8")
    print(
        f"{OUT.relative_to(ROOT)}: {made['trained_on']}, own set cross-validated "
        f"{made['own_cross_validated']}"
    )


if __name__ == "__main__":
    main()
