"""Train `ask`'s ranking weights (crlookup/ask/ranking.py) and write data/ranker.json.

A linear model, learned pairwise (logistic regression on the differences between a right and a
wrong candidate of the same question, scikit-learn, no intercept): each question's candidates
(ranking.candidates) are described by ranking.FEATURES; a right one is a gold rule or a subrule
of one (as scripts/eval_ask.py counts a hit). In two stages (`fit`): the features but the
card's keep the weights of `--base` (data/ranker.json's `base`: learned on our own set and the
newest examples before the cards were evidence), and a factor for them and the card's
features (a named card's type, its rulings) are learned on every question.

Training questions, each pair weighted so that a question counts its weight in all:
  - our own set, tests/data/ask_questions.jsonl, English and Russian (weight 1);
  - the judge questions written for training (../shared/eval/train-judge-questions.jsonl), the
    part not held out (eval_ask.judge_part: "judge-train"), those answered by the CR (weight
    JUDGE each): questions naming cards whose deciding rule is the card's keyword, type or text;
  - the Comprehensive Rules' own examples, each a small situation whose answer is its rule
    (newest English edition; weight 0.1 each);
  - not by default (LEFT_OUT; --leave-out nothing puts them in): the examples of every older
    English edition that name a card, under their rule carried to the newest edition along
    the stored alignments (weight 0.1 each): situations with cards,
    whose card evidence (ranking.py: its keywords, types, rulings) the weights must learn;
  - nor by default: official rulings, each read as a question naming its card ("Blood Moon: If a nonbasic
    land ..."), answered by the rule it was linked to first (data/ruling-links.sqlite; weak
    labels: the first link is right for about 0.6 of rulings), without the ruling itself among
    the card's evidence (weight RULING each, RULINGS of them drawn at random). No ruling of a
    card a kept-out question names is used.
Levers measured and left out (docs/how-ask-works.md: How it ranks): glossary definitions as
questions, the Russian edition's examples, the StackExchange question titles, other weights
and C, gradient-boosted trees.
No question of the development sets, the held-out set or the judge questions held out is trained on, nor any training question
close to one of theirs (TF-IDF cosine >= NEAR over word unigrams and bigrams): those are
dropped, and counted. Our own set is also measured by 5-fold cross-validation (each fold ranked
with weights learned without it).

    python scripts/train_ranker.py [--check] [--cache FILE]

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
from eval_ask import DEV, DEV2, HOLDOUT, OWN, judge_questions, own, under

from crlookup.builder import pipeline as build
from crlookup.features import ask
from crlookup.features.ask import pipeline, ranking

OUT = ROOT / "data" / ranking.RANKER
EXAMPLE = 0.1  # the weight of each example question
JUDGE = 1.0  # the weight of each judge question
RULING, RULINGS, SEED = 0.05, 1500, 30  # each ruling question's weight; how many; drawn by seed
NEAR = 0.5
C = 0.1  # (1.0 before the judge questions; with them, 0.1 was level on the development set,
# a little better on the second and on the judge questions held out)
# The weak labels left out by default since the judge questions teach the card's features
# (docs/how-ask-works.md; with them, 2,838 more questions to describe: 28 minutes)
LEFT_OUT = ("older example", "ruling")
FOLDS = 5
PROCESSES = 2
CARD_ONLY = ("older example", "ruling")  # questions the card's features alone are learned on


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


def older_examples(lib, edition: str) -> list[dict]:
    """The examples of the older English editions of the main line that the newest has not,
    each under its rule's number in `edition` (carried along the stored alignments; dropped if
    its rule is gone)."""
    import itertools

    from crlookup.core.alignment import main_line
    from crlookup.library.alignments import stored

    line = [e.id for e in main_line(lib.editions(), "en")]
    assert line[-1] == edition
    seen = {text for item in examples(lib, edition) for text in [item["question"]]}
    carry: dict[str, str | None] = {}  # a number of the edition at hand -> the newest's
    out = []
    for older, newer in reversed(list(itertools.pairwise(line))):
        matches = stored(lib, older, newer) or []
        moved = {m.old: m.new for m in matches if m.old}

        entries = list(lib.entries(older))
        steps = {r.number: moved.get(r.number, r.number) for r in entries}
        carry = {  # the first step is to the newest itself
            n: step if step is None or not carry else carry.get(step) for n, step in steps.items()
        }
        for r in entries:
            target = carry[r.number]
            for text in r.examples:
                text = re.sub(r"^Example:\s*", "", text).strip()
                if text and target and text not in seen:
                    seen.add(text)
                    out.append(
                        {
                            "question": text,
                            "lang": "en",
                            "gold": [target],
                            "weight": EXAMPLE,
                            "from": "older example",
                            "needs card": True,
                        }
                    )
    return out


def ruling_questions(lib, avoided: set[str]) -> list[dict]:
    """RULINGS rulings drawn at random (of cards not in `avoided`), each as a question naming
    its card, answered by the rule it was linked to first."""
    import random

    from crlookup.features.rulings import rules_for

    cards = lib.cards()
    pool = []
    for card in cards.all():
        if card.name in avoided:
            continue
        for r in cards.rulings(card):
            pool.append((card.name, r.text))
    pool.sort()
    random.Random(SEED).shuffle(pool)
    out = []
    for name, text in pool:
        linked = rules_for(lib, text)
        if not linked:
            continue
        out.append(
            {
                "question": f"{name}: {text}",
                "lang": "en",
                "gold": linked[:1],
                "weight": RULING,
                "from": "ruling",
                "ruling": text,
                "needs card": True,
            }
        )
        if len(out) == RULINGS:
            break
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
        if item.get("needs card") and not q.cards:
            return
        if item.get("ruling"):  # not its own evidence
            q = q._replace(card_rulings=tuple(r for r in q.card_rulings if r[2] != item["ruling"]))
        found = pipeline.candidates(lib, lex, q)
        if not found.chosen:
            return
        rows = ranking.features(lex, q, found)
        self.args = (lex, found, rows)
        self.rows = np.array(rows)
        self.right = np.array(
            [any(under(lex.numbers[i], g) for g in item["gold"]) for i in found.chosen]
        )

    def useful(self) -> bool:
        return bool(self.right.any() and (~self.right).any())

    def found(self, weights: list[float]) -> list[str]:
        if self.args is None:
            return []
        lex = self.args[0]
        return [lex.numbers[p.i] for p in ranking.order(*self.args, limit=10, learned=weights)]


def fit(described: list[Described], base_weights: dict | None = None) -> list[float]:
    """In two stages: the features but the card's (ranking.FEATURES' group "card"), as
    `base_weights` has them (else learned on the questions that are not CARD_ONLY); then, on
    every question, their score (their weights times one factor) and the card's features.
    The weights in FEATURES order.

    (Learned all at once, the weights fit the few questions naming cards at the cost of the
    others: second development 0.492 -> 0.425-0.450 at hit@1; the first stage learned again
    with the cards' candidates among the others, 0.458.)"""
    names = list(ranking.FEATURES)
    card = np.array(  # the card's features, and any the base has no weight for
        [ranking.FEATURES[n] == "card" or (base_weights or {n: 0}).get(n) is None for n in names]
    )
    if base_weights:
        base = [base_weights[n] for n, second in zip(names, card) if not second]
    else:
        first = [d for d in described if d.item["from"] not in CARD_ONLY]
        base = _fit([_columns(d, ~card) for d in first])
    stage = [_columns(d, card, np.array(base)) for d in described]
    second = _fit(stage)
    factor, extra = second[0], iter(second[1:])
    weights, rest = [], iter(base)
    for is_card in card:
        weights.append(round(next(extra) if is_card else factor * next(rest), 6))
    return weights


class _Columns:
    """A described question with only some of its features (and the score of the others)."""

    def __init__(self, item: dict, rows, right):
        self.item, self.rows, self.right = item, rows, right

    def useful(self) -> bool:
        return bool(self.right.any() and (~self.right).any())


def _columns(d: Described, keep, base=None) -> _Columns:
    rows = d.rows[:, keep] if len(d.rows) else np.zeros((0, int(keep.sum())))
    if base is not None:
        scored = d.rows[:, ~keep] @ base if len(d.rows) else np.zeros(0)
        rows = np.column_stack([scored, rows]) if len(d.rows) else np.zeros((0, rows.shape[1] + 1))
    return _Columns(d.item, rows, d.right)


def _fit(described: list) -> list[float]:
    """Pairwise logistic regression; the weights in column order, for unscaled features."""
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


_WORKER: dict = {}


def _start_worker() -> None:
    lib = build.open_library()
    lexicons = {lang: ask.lexicon(lib, lib.edition(lang=lang).id) for lang in ("en", "ru")}
    for lex in lexicons.values():
        lex.citations = ask.citations()
    _WORKER.update(lib=lib, lexicons=lexicons)


def _describe(item: dict) -> tuple:
    d = Described(_WORKER["lib"], _WORKER["lexicons"], item)
    return d.rows, d.right


def _item_key(item: dict) -> str:
    import hashlib

    return hashlib.sha1(json.dumps(item, sort_keys=True).encode()).hexdigest()


def describe_apart(items: list[dict], cache: Path | None) -> list[Described]:
    """The items described in PROCESSES processes (their features and which candidates are
    right; not what order() needs, so they are trained on, never measured), reusing what
    `cache` holds from an earlier run with the same features."""
    import os
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    known: dict = {}
    stamp = list(ranking.FEATURES)
    if cache and cache.exists():
        stored = pickle.loads(cache.read_bytes())
        if set(stamp) <= set(stored.get("features", ())):  # the same, or some dropped since
            keep = [stored["features"].index(name) for name in stamp]
            known = {k: (rows[:, keep], right) for k, (rows, right) in stored["rows"].items()}
    todo = [i for i in items if _item_key(i) not in known]
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the model's threads spin against each other
    with ProcessPoolExecutor(PROCESSES, initializer=_start_worker) as pool:
        for n, (item, found) in enumerate(zip(todo, pool.map(_describe, todo, chunksize=8)), 1):
            known[_item_key(item)] = found
            if n % 250 == 0:
                print(f"  {n}/{len(todo)}", file=sys.stderr)
    if cache:
        cache.write_bytes(pickle.dumps({"features": stamp, "rows": known}))
    out = []
    for item in items:
        d = Described.__new__(Described)
        d.item, d.args = item, None
        d.rows, d.right = known[_item_key(item)]
        out.append(d)
    return out


def train(
    cache: Path | None = None, leave_out: tuple[str, ...] = (), base: dict | None = None
) -> dict:
    lib = build.open_library()
    lexicons = {lang: ask.lexicon(lib, lib.edition(lang=lang).id) for lang in ("en", "ru")}
    for lex in lexicons.values():
        lex.citations = ask.citations()
    english = lexicons["en"].edition
    ours = [dict(i, weight=1.0, **{"from": "own"}) for i in own(OWN)]
    ours += [
        dict(i, weight=JUDGE, **{"from": "judge"})
        for i in judge_questions("judge-train")
        if not any(g.split(" ", 1)[0] in ("MTR", "IPG", "JAR") for g in i["gold"])
    ]
    kept_out = own(DEV) + own(DEV2) + own(HOLDOUT) + judge_questions("judge")
    avoided = {  # the cards the kept-out questions name: none of their rulings is trained on
        name
        for item in kept_out
        if item["lang"] == "en"
        for _typed, name in ask.understand(lexicons["en"], item["question"], lib).cards
    }
    extra = examples(lib, english) + older_examples(lib, english) + ruling_questions(lib, avoided)
    near = near_duplicates(ours + extra, kept_out)
    dropped: dict[str, int] = {}
    for item, n in zip(ours + extra, near):
        if n:
            dropped[item["from"]] = dropped.get(item["from"], 0) + 1
    items = [i for i, n in zip(ours + extra, near) if not n and i["from"] not in leave_out]
    print(
        f"{len(items)} training questions (dropped as close to a kept-out one: {dropped})",
        file=sys.stderr,
    )
    mine_from = ("own", "judge")
    described = [Described(lib, lexicons, item) for item in items if item["from"] in mine_from]
    described += describe_apart([item for item in items if item["from"] not in mine_from], cache)
    mine = [d for d in described if d.item["from"] == "own"]
    others = [d for d in described if d.item["from"] != "own"]
    folds = []
    for k in range(FOLDS):
        held = mine[k::FOLDS]
        rest = [d for j, d in enumerate(mine) if j % FOLDS != k]
        folds.append((held, fit(rest + others, base)))
    cv = {"hit@1": 0.0, "hit@5": 0.0, "mrr": 0.0}
    for held, weights in folds:
        m = measure(held, weights)
        for key in cv:
            cv[key] += m[key] * len(held) / len(mine)
    weights = fit(described, base)
    counts = {}
    for d in described:
        counts[d.item["from"]] = counts.get(d.item["from"], 0) + 1
    return {
        "about": "ask's ranking weights (crlookup/ask/ranking.py); made by scripts/train_ranker.py",
        "trained_on": counts,
        "dropped_near_kept_out": dropped,
        "own_cross_validated": {k: round(v, 3) for k, v in cv.items()},
        "base": base,
        "weights": dict(zip(ranking.FEATURES, weights)),
    }


def kept_rulings() -> dict:
    """The weights a card's ruling is linked with (ranking.load_weights("rulings")), as
    data/ranker.json has them: not learned here (rulings.py says why)."""
    kept = json.loads(OUT.read_text(encoding="utf-8"))["rulings"]
    return {name: kept.get(name, 0.0) for name in ranking.FEATURES}  # a new feature: unweighed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--cache", type=Path, help="keep the described questions here, to train again")
    ap.add_argument(
        "--leave-out",
        action="append",
        choices=("example", "older example", "ruling", "nothing"),
        help="train without these questions (by default: " + ", ".join(LEFT_OUT) + ")",
    )
    ap.add_argument(
        "--base",
        type=Path,
        default=OUT,
        help="the ranking whose weights of the features but the card's are kept (its `base`, "
        "else its `weights`); 'none': learn them again",
    )
    args = ap.parse_args()
    base = None
    if str(args.base) != "none":
        kept = json.loads(args.base.read_text(encoding="utf-8"))
        base = {
            name: weight
            for name, weight in kept.get("base", kept["weights"]).items()
            if ranking.FEATURES.get(name) != "card"
        }
    left_out = LEFT_OUT if args.leave_out is None else tuple(args.leave_out)
    made = train(args.cache, left_out, base)
    made["rulings"] = kept_rulings()
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
