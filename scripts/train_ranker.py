"""Train `ask`'s reranker (crlookup/features/ask/ranking.py: Reranker) and write
data/reranker.npz, with what it was trained on in data/ranker.json.

The reranker scores each candidate of a question (ranking.candidates) from its features
(ranking.FEATURES) and the products of the question's vector with the candidate's and its rule's
(ranking.inputs): the mean of MODELS small networks (HIDDEN rectified units and a linear term),
each from its own seed, plus a linear score of the same inputs. Each network is learned
listwise: for every training question, the softmax of its candidates' scores should put its
weight on the right ones (a gold rule or a subrule of one, as scripts/eval_ask.py counts a
hit), with weight decay; full-batch Adam, EPOCHS steps, numpy, seeded. The linear score is
learned pairwise (logistic regression on a right candidate's inputs less a wrong one's,
scikit-learn). The same data gives the same weights.

Training questions, each counting its weight:
  - our own set, tests/data/ask_questions.jsonl, English and Russian (weight 1);
  - the judge questions written for training (../shared/eval/train-judge-questions.jsonl), the
    part not held out (eval_ask.judge_part: "judge-train"), those answered by the CR (weight 1);
  - the Comprehensive Rules' own examples, each a small situation whose answer is its rule
    (newest English edition; weight EXAMPLE each);
  - not by default (LEFT_OUT; --without nothing puts them in): the newest Chinese edition's
    examples, each read as a Chinese question is (in the English terms of the rules, the model
    reading it as written) and answered by its rule in the English edition of its date (weight
    EXAMPLE each): with them every set was worse, the Chinese one too (docs/how-ask-works.md).
No question of the development sets (the Chinese one too), the held-out set or the judge
questions held out is trained on, nor any training question close to one of theirs (TF-IDF cosine >= NEAR over word
unigrams and bigrams): those are dropped, and counted. The weak labels tried before (older
editions' examples naming a card, rulings read as questions) taught the card's features the
opposite of what judges' questions need (docs/how-ask-works.md) and are not used.

    python scripts/train_ranker.py [--check] [--cache FILE] [--without examples]

--check: train again and exit 1 unless data/reranker.npz holds the same weights (to 1e-4).
Needs the `train` extra (pip install -e ".[train]": scikit-learn, for the pairwise score and
the TF-IDF of NEAR).
Two cores: describing the questions ~1 minute, training ~4 minutes.
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
from eval_ask import DEV, DEV2, HOLDOUT, OWN, ZH, judge_questions, own, under

from crlookup.builder import pipeline as build
from crlookup.features import ask
from crlookup.features.ask import pipeline, ranking

OUT = ROOT / "data" / ranking.RERANKER
RECORD = ROOT / "data" / ranking.RANKER
EXAMPLE = 0.1  # the weight of each example question
JUDGE = 1.0  # the weight of each judge question
NEAR = 0.5
# the networks (chosen on the development sets: docs/how-ask-works.md, "The reranker")
MODELS, HIDDEN, EPOCHS, RATE, DECAY, SEED = 3, 16, 300, 0.01, 1e-2, 54
C = 0.1  # the pairwise linear score's regularisation (as the linear ranking before it had)
# The vectors' products, standardised, are weighed this much beside the features: a stronger
# prior against them, 768 inputs beside 28 (chosen on the development sets and the questions
# tests/test_ask.py and the docs' examples hold: 1.0, 0.5, 0.25 kept 185, 181, 178 first
# answers of 313 and 262, 261, 261 in the top five; of those questions, 0.5 and 0.25 placed 22
# and 24 of 25 where their tests want them, 1.0 20 of the first 23; docs/how-ask-works.md)
VECTORS = 0.25
PROCESSES = 2
LEFT_OUT = ("zh example",)  # measured and left out (the module's list)


def examples(lib, edition: str, lang: str = "en") -> list[dict]:
    """The examples of `edition`, each a question answered by its rule (a Chinese edition's
    under the number its rule has in the English edition of its date: the one a Chinese
    question is read against, crlookup.bilingual.ask_in_english)."""
    out = []
    for r in lib.entries(edition):
        for text in r.examples:
            text = re.sub(r"^(Example|Пример|例)[:：]\s*", "", text).strip()
            if text:
                out.append(
                    {
                        "question": text,
                        "lang": lang,
                        "gold": [r.number],
                        "weight": EXAMPLE,
                        "from": "example" if lang == "en" else f"{lang} example",
                    }
                )
    return out


def near_duplicates(items: list[dict], kept_out: list[dict]) -> list[bool]:
    """Whether each item is close to a question of `kept_out` (Chinese ones by their
    characters and pairs of characters, the others by their words and pairs of words)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    out = [False] * len(items)
    for chinese in (False, True):
        mine = [k for k, i in enumerate(items) if (i["lang"] == "zh") == chinese]
        theirs = [i["question"] for i in kept_out if (i.get("lang") == "zh") == chinese]
        if not mine or not theirs:
            continue
        if chinese:
            vec = TfidfVectorizer(analyzer="char", ngram_range=(1, 2), sublinear_tf=True)
        else:
            vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
        vec.fit([items[k]["question"] for k in mine] + theirs)
        sims = cosine_similarity(
            vec.transform([items[k]["question"] for k in mine]), vec.transform(theirs)
        )
        for k, near in zip(mine, (sims.max(axis=1) >= NEAR).tolist()):
            out[k] = near
    return out


_WORKER: dict = {}


def _start_worker() -> None:
    from crlookup.bilingual import english_twin

    lib = build.open_library()
    lexicons = {lang: ask.lexicon(lib, lib.edition(lang=lang).id) for lang in ("en", "ru")}
    chinese = lib.edition(lang="zh").id
    lexicons["zh"] = ask.lexicon(lib, english_twin(lib, chinese))
    for lex in lexicons.values():
        lex.citations = ask.citations()
    _WORKER.update(lib=lib, lexicons=lexicons, chinese=chinese)


def _understood(lib, lex, item: dict):
    """The question as `ask` reads it: a Chinese one in the English terms of the rules, the
    model reading it as asked (crlookup.bilingual.ask_in_english)."""
    if item["lang"] != "zh":
        return ask.understand(lex, item["question"], lib)
    from crlookup.bilingual import read_in_english

    english, _read = read_in_english(lib, _WORKER["chinese"], item["question"])
    return ask.understand(lex, english, lib)._replace(asked_as=item["question"])


def describe(item: dict) -> tuple:
    """A training question's candidates, as the reranker reads them (ranking.inputs), and
    which of them are right (empty if the question is not read, or none is found)."""
    lib, lex = _WORKER["lib"], _WORKER["lexicons"][item["lang"]]
    width = len(ranking.FEATURES) + 2 * lex_dim(lib, lex)
    nothing = (np.zeros((0, width), dtype=np.float32), np.zeros(0, dtype=bool))
    try:
        q = _understood(lib, lex, item)
    except QuestionError:
        return nothing
    found = pipeline.candidates(lib, lex, q)
    if not found.chosen or not found.scores:
        return nothing
    x = ranking.inputs(lex, found, ranking.features(lex, q, found))
    right = [any(under(lex.numbers[i], g) for g in item["gold"]) for i in found.chosen]
    return x.astype(np.float32), np.array(right, dtype=bool)


def lex_dim(lib, lex) -> int:
    from crlookup.features.ask.prepare import vectors

    return int(vectors(lib, lex.edition).shape[1])


def _item_key(item: dict) -> str:
    import hashlib

    return hashlib.sha1(json.dumps(item, sort_keys=True).encode()).hexdigest()


def describe_all(items: list[dict], cache: Path | None) -> list[tuple]:
    """Every item described (describe) in PROCESSES processes, reusing what `cache` holds from
    an earlier run with the same features."""
    import os
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    stamp = list(ranking.FEATURES)
    known: dict = {}
    if cache and cache.exists():
        stored = pickle.loads(cache.read_bytes())
        if stored.get("features") == stamp:
            known = stored["rows"]
    todo = [i for i in items if _item_key(i) not in known]
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the model's threads spin against each other
    with ProcessPoolExecutor(PROCESSES, initializer=_start_worker) as pool:
        for n, (item, found) in enumerate(zip(todo, pool.map(describe, todo, chunksize=8)), 1):
            known[_item_key(item)] = found
            if n % 100 == 0:
                print(f"  described {n}/{len(todo)}", file=sys.stderr)
    if cache:
        cache.write_bytes(pickle.dumps({"features": stamp, "rows": known}))
    return [known[_item_key(item)] for item in items]


def fit(described: list[tuple], weights: list[float]) -> dict:
    """The reranker's arrays (as ranking.Reranker reads them), learned on the described
    questions that have a right and a wrong candidate, each counting its weight."""
    kept = [(x, r, w) for (x, r), w in zip(described, weights) if r.any() and (~r).any()]
    x = np.vstack([k[0] for k in kept]).astype(np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    scale[len(ranking.FEATURES) :] /= VECTORS  # (Reranker reads z = (x - mean) / scale)
    z = (x - mean) / scale
    sizes = [len(k[0]) for k in kept]
    starts = np.cumsum([0, *sizes[:-1]])
    question = np.repeat(np.arange(len(kept)), sizes)
    right = np.concatenate([k[1] for k in kept]).astype(np.float64)
    weight = np.array([k[2] for k in kept]) / sum(k[2] for k in kept)
    models = [_network(z, starts, question, right, weight, SEED + k) for k in range(MODELS)]
    pairwise = _pairwise(z, starts, sizes, right.astype(bool), weight)
    return {
        "mean": mean.astype(np.float32),
        "scale": scale.astype(np.float32),
        "hidden_w": np.stack([m[0] for m in models]).astype(np.float32),
        "hidden_b": np.stack([m[1] for m in models]).astype(np.float32),
        "out_w": np.stack([m[2] for m in models]).astype(np.float32),
        "linear_w": np.stack([m[3] for m in models]).astype(np.float32),
        "pairwise_w": pairwise.astype(np.float32),
        "features": np.array(list(ranking.FEATURES)),
    }


def _pairwise(z, starts, sizes, right, weight) -> np.ndarray:
    """A linear score of the same inputs, learned pairwise: logistic regression (no intercept,
    C) on the differences between a right and a wrong candidate of one question, each
    question's pairs counting its weight."""
    from sklearn.linear_model import LogisticRegression

    xs, ys, ws = [], [], []
    for start, size, w in zip(starts, sizes, weight):
        rows, good = z[start : start + size], right[start : start + size]
        diffs = (rows[good][:, None, :] - rows[~good][None, :, :]).reshape(-1, z.shape[1])
        xs += [diffs, -diffs]
        ys += [np.ones(len(diffs)), np.zeros(len(diffs))]
        ws += [np.full(len(diffs), w / len(diffs))] * 2
    model = LogisticRegression(C=C, fit_intercept=False, max_iter=5000)
    sample = np.concatenate(ws)
    model.fit(np.vstack(xs), np.concatenate(ys), sample_weight=sample / sample.mean())
    return model.coef_[0]


def _network(z, starts, question, right, weight, seed: int) -> tuple:
    """One network, learned listwise: each question's loss is minus the log of the softmax
    weight its right candidates get, weighed by the question's weight; Adam, DECAY."""
    rng = np.random.default_rng(seed)
    dim = z.shape[1]
    params = [
        rng.normal(0, 1 / np.sqrt(dim), (dim, HIDDEN)),  # hidden weights
        np.zeros(HIDDEN),  # hidden biases
        rng.normal(0, 1 / np.sqrt(HIDDEN), HIDDEN),  # output weights
        np.zeros(dim),  # the linear term
    ]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    for t in range(1, EPOCHS + 1):
        w1, b1, w2, wl = params
        hidden = np.maximum(z @ w1 + b1, 0)
        s = hidden @ w2 + z @ wl
        e = np.exp(s - np.maximum.reduceat(s, starts)[question])
        every = np.add.reduceat(e, starts)[question]
        rights = np.add.reduceat(e * right, starts)[question]
        g = (e / every - right * e / np.maximum(rights, 1e-300)) * weight[question]
        back = np.outer(g, w2) * (hidden > 0)
        grads = [z.T @ back, back.sum(axis=0), hidden.T @ g, z.T @ g]
        for k, (p, grad) in enumerate(zip(params, grads)):
            if k != 1:
                grad = grad + DECAY * p
            first[k] = 0.9 * first[k] + 0.1 * grad
            second[k] = 0.999 * second[k] + 0.001 * grad * grad
            step = (first[k] / (1 - 0.9**t)) / (np.sqrt(second[k] / (1 - 0.999**t)) + 1e-8)
            p -= RATE * step
    return tuple(params)


def training_items(without: tuple[str, ...] = ()) -> tuple[list[dict], dict]:
    """The training questions (the module's list), and how many were dropped as close to a
    kept-out question, by source."""
    lib = build.open_library()
    english = lib.edition(lang="en").id
    ours = [dict(i, weight=1.0, **{"from": "own"}) for i in own(OWN)]
    ours += [
        dict(i, weight=JUDGE, **{"from": "judge"})
        for i in judge_questions("judge-train")
        if not any(g.split(" ", 1)[0] in ("MTR", "IPG", "JAR") for g in i["gold"])
    ]
    kept_out = own(DEV) + own(DEV2) + own(HOLDOUT) + own(ZH) + judge_questions("judge")
    extra = examples(lib, english) + examples(lib, lib.edition(lang="zh").id, "zh")
    near = near_duplicates(ours + extra, kept_out)
    dropped: dict[str, int] = {}
    for item, n in zip(ours + extra, near):
        if n:
            dropped[item["from"]] = dropped.get(item["from"], 0) + 1
    items = [i for i, n in zip(ours + extra, near) if not n and i["from"] not in without]
    return items, dropped


def train(cache: Path | None = None, without: tuple[str, ...] = ()) -> tuple[dict, dict]:
    items, dropped = training_items(without)
    print(
        f"{len(items)} training questions (dropped as close to a kept-out one: {dropped})",
        file=sys.stderr,
    )
    described = describe_all(items, cache)
    arrays = fit(described, [i["weight"] for i in items])
    counts: dict[str, int] = {}
    useful: dict[str, int] = {}  # those with a right and a wrong candidate: what is learned from
    for item, (_x, right) in zip(items, described):
        counts[item["from"]] = counts.get(item["from"], 0) + 1
        if right.any() and (~right).any():
            useful[item["from"]] = useful.get(item["from"], 0) + 1
    record = {
        "trained_on": counts,
        "with_a_right_and_a_wrong_candidate": useful,
        "dropped_near_kept_out": dropped,
        "networks": {
            "models": MODELS,
            "hidden": HIDDEN,
            "epochs": EPOCHS,
            "rate": RATE,
            "decay": DECAY,
            "seed": SEED,
            "pairwise_c": C,
            "vectors": VECTORS,
        },
    }
    return arrays, record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--cache", type=Path, help="keep the described questions here, to train again")
    ap.add_argument(
        "--without",
        action="append",
        choices=("example", "zh example", "own", "judge", "nothing"),
        help="train without these questions (an ablation; by default: " + ", ".join(LEFT_OUT) + ")",
    )
    ap.add_argument("--out", type=Path, default=OUT, help="where to write the reranker")
    args = ap.parse_args()
    without = LEFT_OUT if args.without is None else tuple(args.without)
    arrays, record = train(args.cache, without)
    if args.check:
        with np.load(OUT) as shipped:
            same = all(
                shipped[k].shape == v.shape
                and (
                    np.array_equal(shipped[k], v)
                    if v.dtype.kind == "U"
                    else np.allclose(shipped[k], v, atol=1e-4)
                )
                for k, v in arrays.items()
            )
        print(f"{OUT.relative_to(ROOT)}: {'up to date' if same else 'differs'}")
        sys.exit(0 if same else 1)
    with open(args.out, "wb") as f:
        np.savez_compressed(f, **arrays)
    if args.out == OUT:
        kept = json.loads(RECORD.read_text(encoding="utf-8"))
        made = {
            "about": "ask's ranking: the reranker's training (data/reranker.npz) and the linear "
            "weights rulings are linked with; made by scripts/train_ranker.py",
            "reranker": record,
            "rulings": kept["rulings"],
        }
        RECORD.write_text(json.dumps(made, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {record['trained_on']}")


if __name__ == "__main__":
    main()
