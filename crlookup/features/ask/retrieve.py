"""Lexical retrieval: every entry's evidence for a question, scored.

Ranking combines evidence, each piece kept as a reason (explain.py shows them): BM25 over the
words (times how much of the question an entry covers), the entries defining a recognised term
(weighted by how rarely the rules name it), entries naming a term with its words in order, the
rules the defining entries cite (one reference followed), two question words side by side, how
often other rules cite an entry, and how often answers to real players' questions cite it, above
all for questions with the same words (cited.py: 400.7 and 601.2b decide many questions, answers
about "X" cite 107.3; a Russian question's words are those of the English names of the terms it
names); multiplayer and variant rules, and keyword boilerplate, count less unless asked about.
Bare headings ("702.19. Trample") are never answers; their subrules are.
The weights were set on tests/data/ask_dev.jsonl and checked on the other sets
(scripts/eval_ask.py).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from crlookup.core.numbers import KEYWORD_SECTIONS
from crlookup.features.ask.cited import with_rule
from crlookup.features.ask.lexicon import EXPANSION, Lexicon, Term

if TYPE_CHECKING:
    from crlookup.features.ask.records import Question

VARIANT = 0.6  # multiplayer and casual-variant rules (chapters 8, 9) unless the question names one
K1, B = 1.2, 0.75  # BM25
HOME, MENTION, CITED = 1.0, 0.8, 0.5  # evidence from the terms recognised (times the term's weight)
KEYWORD = 1.0  # a keyword ability or action is defined by its own rule: worth more than rarity
PHRASE = 0.5  # two question words next to each other in the entry too (times their mean idf)
CITED_PRIOR = 0.5  # rules many others cite are central (times log(1 + how many cite it))
# rules judges' answers cite often decide many questions (times log(1 + answers citing it, and
# cited.PARENT_SHARE of those citing its rule)); the more so if they cite it for questions with
# one of the question's words (times the log lift)
JUDGED, ASKED = 1.0, 0.25
TEMPLATE = 0.6  # keyword boilerplate (the lexicon's `template` entries)
SHORTLIST = 300  # entries re-scored for phrases
GLOSSARY, SECTION = 0.6, 1.0  # a glossary term's or a section's entries, against a keyword's
MEANING = 0.15  # a word of a recognised term's glossary definition


def rank(lex: Lexicon, question: Question) -> tuple[dict[int, float], dict[int, dict]]:
    """Every entry with some evidence for the question: its score and the evidence."""
    counts: dict[str, list[float]] = {}
    for w in question.words:
        if not w.card:
            counts.setdefault(w.stem, []).append(w.weight)
    weights = {s: max(ws) + 0.25 * (len(ws) - 1) for s, ws in counts.items()}
    from_cards = set()  # stems only the named cards' text has: no part of what the question asks
    for w in question.words:
        if w.card and w.stem not in counts:
            weights[w.stem] = max(weights.get(w.stem, 0.0), w.weight)
            from_cards.add(w.stem)
    meaning: dict[
        str, float
    ] = {}  # what the glossary says the recognised terms mean: context, not question
    if MEANING:
        for k, _named in question.terms:
            meaning.update((stem, MEANING) for stem in lex.meanings[k] if stem not in weights)
    scores: dict[int, float] = {}
    matched: dict[int, set[str]] = {}
    total = 0.0
    idf: dict[str, float] = {}
    for stem, qw in weights.items():
        docs = lex.postings.get(stem)
        if docs is None:
            continue
        positions, tfs = docs
        df = len(positions)
        idf[stem] = math.log(1 + (lex.count - df + 0.5) / (df + 0.5))
        total += idf[stem] if stem not in from_cards else 0.0
        for i, tf in zip(positions, tfs):
            norm = K1 * (1 - B + B * lex.lengths[i] / lex.average)
            scores[i] = scores.get(i, 0.0) + qw * idf[stem] * tf * (K1 + 1) / (tf + norm)
            matched.setdefault(i, set()).add(stem)
    for i in scores:  # how much of the question an entry covers, how central it is
        covered = sum(idf[s] for s in matched[i] if s not in from_cards) / (total or 1.0)
        scores[i] *= 0.4 + 0.6 * covered
        scores[i] += CITED_PRIOR * math.log1p(lex.cited_by[i])
    judged = lex.citations.counts
    if judged:
        for i in scores:
            cites = with_rule(judged, lex.numbers[i])
            scores[i] += JUDGED * math.log1p(cites)
    for stem, qw in meaning.items():  # only for entries the question itself found
        docs = lex.postings.get(stem)
        if docs is None:
            continue
        positions, tfs = docs
        if len(positions) > lex.count / 8:  # "card", "player": too common to tell anything
            continue
        weight = math.log(1 + (lex.count - len(positions) + 0.5) / (len(positions) + 0.5))
        for i, tf in zip(positions, tfs):
            if i in scores:
                norm = K1 * (1 - B + B * lex.lengths[i] / lex.average)
                scores[i] += qw * weight * tf * (K1 + 1) / (tf + norm)
    for i in scores:
        if lex.template[i]:
            scores[i] *= TEMPLATE
    reasons: dict[int, dict] = {i: {"words": matched[i]} for i in scores}
    for i in scores:
        if judged.get(lex.numbers[i]):
            reasons[i]["judged"] = judged[lex.numbers[i]]
    named_variant = any(
        lex.numbers[lo][:1] in "89"
        for k, _named in question.terms
        for lo, _hi in lex.terms[k].homes
    )
    if not named_variant:
        for i in scores:
            if lex.numbers[i][:1] in "89":
                scores[i] *= VARIANT
    stems = [w.stem for w in question.words if not w.said and not w.card]
    pairs = list(  # in the question's order: the same sums and reasons in every process
        dict.fromkeys(
            (a, b) for a, b in itertools.pairwise(stems) if a != b and a in idf and b in idf
        )
    )
    if pairs:
        for i in sorted(scores, key=scores.__getitem__, reverse=True)[:SHORTLIST]:
            seq = lex.sequences[i]
            for a, b in pairs:
                if f" {a} {b} " in seq:
                    scores[i] += PHRASE * (idf[a] + idf[b]) / 2
                    reasons[i].setdefault("phrases", []).append((a, b))

    # the question's own terms, then its cards': those score only for entries the question's
    # own words and terms reach ("Serra Angel" brings Vigilance, but the question is about
    # blocking); the others are only marked as carried by the card (its keyword, type...), for
    # the ranking to weigh as candidates of their own (ranking.py)
    carried = [
        (k, (card, name, kind), factor) for k, card, name, factor, kind in question.card_terms
    ]
    asked: set[int] | None = None
    for k, card, factor in [
        (k, None, EXPANSION if k in question.inferred else 1.0) for k, _named in question.terms
    ] + carried:
        if card and asked is None:
            asked = {
                i
                for i in scores
                if matched.get(i, set()) - from_cards
                or any(reasons[i].get(r) for r in ("terms", "named", "cited"))
            }
        reach = asked if card else None  # a card's term: only the entries asked about
        term = lex.terms[k]
        kind = GLOSSARY if term.kind == "glossary" else SECTION if term.kind.isdigit() else 1.0
        weight = _weight(lex, term) * kind * factor
        why, item = ("card", (card[0], card[1], k)) if card else ("terms", k)
        for lo, hi in term.homes:
            for i in range(lo, hi):
                if lex.lengths[i] and card:
                    carries = reasons.setdefault(i, {"words": set()}).setdefault("carried", [])
                    if card not in carries:  # (the card's name, its word, the link's kind)
                        carries.append(card)
                    for c in lex.cites[i]:  # what its rules lead to ("See rule 704.5m")
                        if lex.lengths[c] and not lo <= c < hi:
                            leads = reasons.setdefault(c, {"words": set()}).setdefault("leads", [])
                            if card not in leads:
                                leads.append(card)
                if lex.lengths[i] and (reach is None or i in reach):
                    _add(scores, reasons, i, HOME * weight, why, item)
                    for c in lex.cites[i]:
                        if lex.lengths[c] and not lo <= c < hi and (reach is None or c in reach):
                            _add(scores, reasons, c, CITED * weight / 2, "cited", i)
        if len(term.stems) > 1:
            for i in lex.mention_sets[k]:
                if reach is None or i in reach:
                    _add(scores, reasons, i, MENTION * weight, "named", k)
    by_word = lex.citations.words
    tables = {w.stem: by_word[w.stem] for w in question.words if w.stem in by_word}
    tables.update(
        (s, by_word[s])
        for k, _named in question.terms
        for s in lex.terms[k].english_stems
        if s in by_word
    )
    if tables:  # rules answers cite for questions with the question's words
        for i in scores:
            for stem, table in tables.items():
                lift = with_rule(table, lex.numbers[i])
                if lift:
                    scores[i] += ASKED * lift
                    reasons[i].setdefault("asked", []).append((lift, stem))
    if question.rules:  # the rules the question names by number come first, with their subrules
        top = max(scores.values(), default=0.0) + 1.0
        for number in question.rules:
            i = lex.numbers.index(number)
            subtree = [i]  # and its subrules, which follow it
            while subtree[-1] + 1 < len(lex.numbers) and lex.parents[subtree[-1] + 1] == i:
                subtree.append(subtree[-1] + 1)
            for j in subtree:
                if lex.lengths[j]:
                    _add(scores, reasons, j, top, "written", number)
    return scores, reasons


def _weight(lex: Lexicon, term: Term) -> float:
    """How much recognising a term tells: the rarer its name in the rules, the more."""
    rarity = math.log((lex.count + 1) / (term.mentions + 1)) if term.mentions else 1.0
    return rarity + (KEYWORD if term.kind in KEYWORD_SECTIONS[:2] else 0.0)


def _add(scores: dict, reasons: dict, i: int, value: float, why: str, item) -> None:
    r = reasons.setdefault(i, {"words": set()})
    items = r.setdefault(why, [])
    if item in items:
        return
    items.append(item)
    scores[i] = scores.get(i, 0.0) + value
