"""The learned ranking: the candidates of both retrievals, each described by the same features,
ordered by a reranker trained on judges' questions with known answers (data/reranker.npz, made
by scripts/train_ranker.py).

The candidates are the best LEXICAL entries by the lexical score (retrieve.py) and the best
SEMANTIC entries by closeness in meaning (semantic.py). Each candidate's features say what the
question's words, its meaning, the terms it names, the answers to players' questions and the kind
of entry tell of it; the reranker reads them with the question's vector and the candidate's
together (`inputs`: what each dimension of the model's closeness is worth is learned). A rule the question
names by number comes first, with its subrules in order; after it, a further subrule of a rule
already chosen counts a little less (`best`). The groups of features that placed an
answer above the other candidates are its reasons.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from crlookup.core.i18n import N_
from crlookup.features.ask.cited import with_rule
from crlookup.features.ask.records import Placed

if TYPE_CHECKING:
    from crlookup.features.ask.lexicon import Lexicon
    from crlookup.features.ask.records import Candidates, Question

LEXICAL, SEMANTIC = 30, 15  # candidates from each retrieval
# and of the entries a named card carries (its keywords', types', terms' rules), and of those
# these cite ("See rule 704.5m"), the closest in meaning; and every entry a named card's
# ruling applies
CARRIED, LEADS = 40, 10
# and of the entries the best POINTERS lexical candidates point to ("See rule 704": a cited
# heading stands for its rules), the best POINTED by closeness in meaning: where a question's
# words reach a rule, the consequence it points to is a candidate too
POINTERS, POINTED = 10, 10
RANKER = "ranker.json"  # in the shipped data: the linear weights rulings are linked with
RERANKER = "reranker.npz"  # in the shipped data: the final ranking of a question's candidates
SAME_RULE = 0.9  # each further answer under the same rule, in the order shown (`best`)

# every feature, with the group it is told under (the order is the order of ranker.json's weights)
FEATURES = {
    "lexical": "words",  # the lexical score, as a share of the best candidate's
    "lexical_rank": "words",  # 1 / (1 + its place in the lexical order)
    "coverage": "words",  # the share of the question's words it has
    "phrases": "words",  # question words it has side by side
    "similarity": "meaning",  # cosine similarity to the question
    "similarity_gap": "meaning",  # that, less the best candidate's
    "similarity_rank": "meaning",  # 1 / (1 + its place by similarity)
    "rule_similarity": "meaning",  # its rule's similarity (a subrule's context)
    "family_similarity": "meaning",  # the best similarity among its rule's candidates
    "meaning_and_words": "meaning",  # similarity times the lexical share
    "term": "terms",  # it defines a term the question names
    "named": "terms",  # its text names such a term
    "cited": "terms",  # a rule defining such a term cites it
    "card": "terms",  # it defines a term a card the question names brings
    "card_keyword": "card",  # it is a rule of one of a named card's keywords
    "card_type": "card",  # it is a rule of one of a named card's card types
    "card_term": "card",  # it is a rule of a term or symbol of a named card's text
    "leads": "card",  # a rule of a named card's cites it ("See rule 704.5m")
    "pointed": "terms",  # one of the best lexical candidates cites it (or its heading)
    "ruling": "card",  # the closeness to the question of the closest ruling that applies it
    "ruling_first": "card",  # the ruling closest to the question applies it first
    "judged": "answers",  # log(1 + answers to players' questions citing it)
    "asked": "answers",  # how much more often for questions with the question's words
    "cited_by": "answers",  # log(1 + rules citing it)
    "subrule": "kind",  # a subrule rather than a rule
    "variant": "kind",  # a multiplayer or casual-variant rule
    "template": "kind",  # keyword boilerplate
    "length": "kind",  # log(1 + its length as the lexical retrieval weighs it)
}
GROUPS = {
    "words": N_("the question’s words"),
    "meaning": N_("closeness in meaning"),
    "terms": N_("the terms it names"),
    "card": N_("the cards named, and their rulings"),
    "answers": N_("what answers to players’ questions cite"),
    "kind": N_("the kind of rule"),
}
GROUPS_SHOWN = 2


def load_weights() -> list[float]:
    """Linear weights in FEATURES order (data/ranker.json): those a card's ruling is linked to
    its rules with (rulings.py)."""
    from crlookup.library import shipped

    with open(shipped.verified(RANKER), encoding="utf-8") as f:
        learned = json.load(f)["rulings"]
    return [learned.get(name, 0.0) for name in FEATURES]


class Linear:
    """A score that is the candidates' features times weights (in FEATURES order)."""

    reads_vectors = False

    def __init__(self, weights: list[float]):
        self.weights = weights

    def score(self, x):
        import numpy as np

        return np.asarray(x, dtype=np.float64) @ np.asarray(self.weights)


class Reranker:
    """The final ranking (data/reranker.npz, made by scripts/train_ranker.py): what reads the
    question and each candidate together. Its inputs (`inputs`) are a candidate's FEATURES
    and the elementwise products of the question's vector with the candidate's and with its
    rule's (the model's own vectors: a learned closeness, each of the model's dimensions
    weighed); its score, the mean of a few small networks' (one hidden layer of rectified
    units, beside a linear term), each trained from its own seed on the same questions, plus
    a linear score of the same inputs learned pairwise (scripts/train_ranker.py)."""

    reads_vectors = True

    def __init__(self, path: str | None = None):
        import numpy as np

        from crlookup.library import shipped

        with np.load(path or shipped.verified(RERANKER)) as data:
            self.mean, self.scale = data["mean"], data["scale"]
            self.hidden_w, self.hidden_b = data["hidden_w"], data["hidden_b"]
            self.out_w, self.linear_w = data["out_w"], data["linear_w"]
            self.pairwise_w = data["pairwise_w"]
            self.features = [str(n) for n in data["features"]]
        if self.features != list(FEATURES):
            raise ValueError(f"{RERANKER} was trained on other features: train it again")

    def score(self, x):
        import numpy as np

        z = ((np.asarray(x, dtype=np.float32) - self.mean) / self.scale).astype(np.float32)
        hidden = np.maximum(np.einsum("nd,kdh->knh", z, self.hidden_w) + self.hidden_b[:, None], 0)
        networks = np.einsum("knh,kh->n", hidden, self.out_w) + z @ self.linear_w.sum(axis=0)
        return (networks / len(self.out_w) + z @ self.pairwise_w).astype(np.float64)


Scorer = Linear | Reranker


def inputs(lex: Lexicon, found: Candidates, rows: list[list[float]]):
    """What the reranker reads of each candidate (`rows`: their features): the features, the
    question's vector times the candidate's, and times its rule's (a bare heading's is zeros)."""
    import numpy as np

    if found.query is None or found.entries is None:
        raise ValueError("the reranker reads the question's vector: none was given")
    q = np.asarray(found.query, dtype=np.float32)[None, :]
    own = found.entries[found.chosen]
    rules = found.entries[[lex.rule_position(i) for i in found.chosen]]
    return np.hstack([np.asarray(rows, dtype=np.float32), q * own, q * rules])


def candidates(lex: Lexicon, scores: dict[int, float], similar, reasons: dict | None = None):
    """The best LEXICAL entries by lexical score, then the best SEMANTIC others by similarity,
    then the best CARRIED others a named card carries by similarity, and those its rulings
    apply."""
    import numpy as np

    chosen = sorted(scores, key=lambda i: (-scores[i], i))[:LEXICAL]
    taken = set(chosen)
    for i in np.argsort(-similar, kind="stable")[: SEMANTIC + LEXICAL].tolist():
        if len(chosen) >= LEXICAL + SEMANTIC:
            break
        if i not in taken and lex.lengths[i]:
            chosen.append(i)
            taken.add(i)
    if reasons is None:
        reasons = {}
    pointed = [i for i in _pointed(lex, chosen[:POINTERS], reasons) if i not in taken]
    pointed.sort(key=lambda i: (-float(similar[i]), i))
    for i in pointed[:POINTED]:
        chosen.append(i)
        taken.add(i)
    if reasons:
        carried = [i for i, r in reasons.items() if r.get("carried") and i not in taken]
        carried.sort(key=lambda i: (-float(similar[i]), i))
        leads = [
            i
            for i, r in reasons.items()
            if r.get("leads") and not r.get("carried") and i not in taken
        ]
        leads.sort(key=lambda i: (-float(similar[i]), i))
        ruled = [i for i, r in reasons.items() if r.get("ruling") and i not in taken]
        for i in dict.fromkeys(carried[:CARRIED] + leads[:LEADS] + sorted(ruled)):
            if i not in taken:
                chosen.append(i)
                taken.add(i)
    return chosen


def _pointed(lex: Lexicon, pointers: list[int], reasons: dict) -> list[int]:
    """The answerable entries the `pointers` cite, a cited heading by its rules and subrules
    (303.4's "See rule 704" reaches 704.5m), each marked with the entry citing it."""
    found: dict[int, None] = {}
    for p in pointers:
        for c in lex.cites[p]:
            reached = [c]
            if not lex.lengths[c]:  # a heading: everything under it, which follows it
                j = c + 1
                while j < len(lex.numbers) and _under(lex.numbers[j], lex.numbers[c]):
                    reached.append(j)
                    j += 1
            for i in reached:
                if lex.lengths[i] and i != p:
                    found[i] = None
                    marks = reasons.setdefault(i, {"words": set()}).setdefault("pointed", [])
                    if p not in marks:
                        marks.append(p)
    return list(found)


def _under(number: str, heading: str) -> bool:
    """Whether `number` is under `heading`: 704.5m under 704 and 704.5, 702.10 under neither
    702.1 nor 70."""
    if "." not in heading:
        return number.startswith(heading + ".")
    return number.startswith(heading) and number[len(heading) :].isalpha()


def features(lex: Lexicon, question: Question, found: Candidates) -> list[list[float]]:
    """Each candidate's features (of `found.chosen`), in FEATURES order."""
    scores, reasons, similar, chosen = found[:4]
    top = max((scores.get(i, 0.0) for i in chosen), default=0.0) or 1.0
    wanted = set(chosen)
    lexical_place = {
        i: p for p, i in enumerate(sorted(scores, key=lambda i: (-scores[i], i))) if i in wanted
    }
    sims = {i: float(similar[i]) for i in chosen}
    best_sim = max(sims.values(), default=0.0)
    sim_place = {i: p for p, i in enumerate(sorted(chosen, key=lambda i: (-sims[i], i)))}
    stems = {w.stem for w in question.words if not w.card and not w.said}
    judged = lex.citations.counts
    rule = lex.rule_position
    family: dict[int, float] = {}  # the best similarity among each rule's candidates
    for i in chosen:
        family[rule(i)] = max(family.get(rule(i), -1.0), sims[i])
    rows = []
    for i in chosen:
        r = reasons.get(i, {})
        # a rule that is a bare heading has no vector (zeros): its subrule's own similarity
        rule_sim = float(similar[rule(i)]) or sims[i]
        number = lex.numbers[i]
        row = {
            "lexical": scores.get(i, 0.0) / top,
            "lexical_rank": 1 / (1 + lexical_place[i]) if i in lexical_place else 0.0,
            "coverage": len(r.get("words", set()) & stems) / len(stems) if stems else 0.0,
            "phrases": len(r.get("phrases", ())),
            "similarity": sims[i],
            "similarity_gap": sims[i] - best_sim,
            "similarity_rank": 1 / (1 + sim_place[i]),
            "rule_similarity": rule_sim,
            "family_similarity": family[rule(i)],
            "meaning_and_words": sims[i] * scores.get(i, 0.0) / top,
            "term": float(bool(r.get("terms"))),
            "named": float(bool(r.get("named"))),
            "cited": float(bool(r.get("cited"))),
            "card": float(bool(r.get("card"))),
            "card_keyword": float(any(k == "keyword" for *_c, k in r.get("carried", ()))),
            "card_type": float(any(k == "type" for *_c, k in r.get("carried", ()))),
            "card_term": float(any(k in ("term", "symbol") for *_c, k in r.get("carried", ()))),
            "leads": float(bool(r.get("leads"))),
            "pointed": float(bool(r.get("pointed"))),
            "ruling": max((w.similarity for w in r.get("ruling", ())), default=0.0),
            "ruling_first": float(any(w.first for w in r.get("ruling", ()))),
            "judged": math.log1p(with_rule(judged, number)) if judged else 0.0,
            "asked": sum(lift for lift, _stem in r.get("asked", ())),
            "cited_by": math.log1p(lex.cited_by[i]),
            "subrule": float(lex.kinds[i] == "subrule"),
            "variant": float(number[:1] in "89"),
            "template": float(lex.template[i]),
            "length": math.log1p(lex.lengths[i]),
        }
        rows.append([row[name] for name in FEATURES])
    return rows


def order(
    lex: Lexicon,
    found: Candidates,
    rows: list[list[float]],
    scorer: Scorer,
    limit: int = 5,
) -> list[Placed]:
    """The best `limit` candidates, described by their features (`rows`, as `features` gives
    them), scored by `scorer` (the shipped Reranker, read once a library: pipeline.answer; or
    linear weights: rulings.py), best first. An answer's
    reasons are the groups of inputs that lift it most: its score, less its score with a
    group's inputs set to the candidates' mean (a linear score's weights times the features'
    distance from their mean)."""
    if not found.scores:  # no word of the question is in the rules: its meaning alone is no answer
        return []
    import numpy as np

    chosen, reasons = found.chosen, found.reasons
    x = inputs(lex, found, rows) if scorer.reads_vectors else np.asarray(rows, dtype=np.float64)
    scored = scorer.score(x)
    score = dict(zip(chosen, scored.tolist()))
    named = sorted(i for i in chosen if reasons.get(i, {}).get("written"))[:limit]
    rest = [i for i in chosen if i not in named]
    top = max((score[i] for i in rest), default=0.0)
    relative = {i: 1.0 if i in named else math.exp(score[i] - top) for i in chosen}
    shown = named + best(lex, {i: relative[i] for i in rest}, limit - len(named))
    lifts = _lifts(scorer, x, [chosen.index(i) for i in shown if i not in named], scored)
    placed = []
    for i in shown:
        by_group = lifts.get(chosen.index(i), {})
        groups = tuple(
            g for g in sorted(by_group, key=by_group.__getitem__, reverse=True) if by_group[g] > 0
        )[:GROUPS_SHOWN]
        placed.append(Placed(i, round(relative[i], 3), reasons.get(i, {"words": set()}), groups))
    return placed


def _lifts(scorer: Scorer, x, rows: list[int], scored) -> dict[int, dict[str, float]]:
    """For each of `rows` (of the inputs `x`), how much each group of inputs lifts its score
    above what it would be with that group's inputs at the candidates' mean (the question's
    vector times the entry's are the group "meaning")."""
    import numpy as np

    if not rows:
        return {}
    names = list(FEATURES.values())
    columns: dict[str, list[int]] = {}
    for c in range(x.shape[1]):
        columns.setdefault(names[c] if c < len(names) else "meaning", []).append(c)
    mean = x.mean(axis=0)
    groups = list(columns)
    trial = np.repeat(x[rows], len(groups), axis=0)
    for k, g in enumerate(groups):
        trial[k :: len(groups), columns[g]] = mean[columns[g]]
    without = scorer.score(trial).reshape(len(rows), len(groups))
    return {
        r: {g: float(scored[r] - without[n, k]) for k, g in enumerate(groups)}
        for n, r in enumerate(rows)
    }


def best(lex: Lexicon, scores: dict[int, float], limit: int) -> list[int]:
    """The best `limit` entries; each further subrule of a rule already chosen counts a little
    less, so that a question about two things shows the rules of both."""
    pool = sorted(scores, key=lambda i: (-scores[i], i))[: limit * 6]
    chosen: list[int] = []
    taken: dict[int, int] = {}
    while pool and len(chosen) < limit:

        def adjusted(i: int) -> float:
            return scores[i] * SAME_RULE ** taken.get(lex.rule_position(i), 0)

        i = max(pool, key=lambda i: (adjusted(i), -i))
        pool.remove(i)
        chosen.append(i)
        group = lex.rule_position(i)
        taken[group] = taken.get(group, 0) + 1
    return chosen
