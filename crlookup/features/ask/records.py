"""The records `ask`'s stages pass one another (pipeline.py runs them): the question read
(`Question`, its `Word`s), the candidates found for it (`Candidates`), each one the ranking
placed (`Placed`), and the answers (`Answer`) with the reasons that chose them (`Reason`).

Plain data, importing nothing of crlookup but crlookup.core: every stage may read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np


class Word(NamedTuple):
    """A word of the question as read: as typed, as searched for, its stem, and how much it
    counts."""

    typed: str  # as written in the question (folded); for a player's phrase, the phrase
    read: str  # the word searched for (a correction, the typed word, or the rules' word)
    stem: str
    weight: float = 1.0  # the rules' words a player's phrase stands for count less
    said: str = ""  # for the rules' words read for a player's phrase: that phrase
    card: str = ""  # for a word of the Oracle text of a card the question names: its name


class Question(NamedTuple):
    """A question as understood: its words, the corrections made, the terms recognised."""

    text: str
    lang: str
    words: tuple[Word, ...]  # the words that count, in order; then the rules' words for phrases
    terms: tuple[tuple[int, str], ...]  # (term position in the lexicon, the words that named it)
    phrases: tuple[tuple[str, str], ...]  # (a player's phrase, the rules' words read for it)
    numbers: tuple[str, ...]  # numbers written in the question ("20 life")
    inferred: frozenset[int] = frozenset()  # terms read from a player's phrase, not named
    rules: tuple[str, ...] = ()  # rule and subrule numbers the question names ("is 702.19b ...")
    cards: tuple[tuple[str, str], ...] = ()  # (as written, the card's name) of the cards named
    # the terms the named cards bring: (term, the card's name, its word for it, how much it
    # counts, the kind of link: crlookup.features.card_rules.Link.kind)
    card_terms: tuple[tuple[int, str, str, float, str], ...] = ()
    # the official rulings of the cards named (one card each): (the card's name, date, text,
    # the rules it applies), for the ranking to weigh against the question
    card_rulings: tuple[tuple[str, str, str, tuple[str, ...]], ...] = ()
    asked_as: str = ""  # the question as asked, when `text` is its English reading (Chinese)

    @property
    def corrections(self) -> list[tuple[str, str]]:
        return [
            (w.typed, w.read)
            for w in self.words
            if w.typed != w.read and not w.read.isdigit() and not w.said and not w.card
        ]


class Candidates(NamedTuple):
    """What was found for a question: every entry with lexical evidence, its score and the
    evidence (retrieve.rank; the named cards' rulings that apply it: semantic.weigh), every
    entry's closeness in meaning to the question (semantic.query), and the candidates
    the ranking weighs, by their positions in the lexicon (ranking.candidates); and what the
    final ranking reads beside their features (ranking.inputs): the question's vector and the
    edition's entry vectors (None where the similarities were given: rulings.py)."""

    scores: dict[int, float]
    reasons: dict[int, dict]
    similar: np.ndarray  # a cosine similarity for each entry, in document order
    chosen: list[int]
    query: np.ndarray | None = None  # the question's vector, as the model read it
    entries: np.ndarray | None = None  # the edition's entry vectors (prepare.vectors)


class Placed(NamedTuple):
    """One chosen entry: its position in the lexicon, its score relative to the best answer's
    (1.0 for the best, and for a rule the question names by number), its lexical evidence
    (retrieve.rank's reasons) and the groups of features that placed it above the other
    candidates, strongest first (none for a rule named by number)."""

    i: int
    score: float
    reasons: dict
    groups: tuple[str, ...]


class Reason(str):
    """A reason an answer was chosen, as said (a str: --json and the views take it as one).
    `key` is what makes another answer's reason the same reason: its text, unless the reason
    counts something of each answer ("18 answers … cite it": "judged"); `groups` are the
    ranking's groups a "lifted above the other candidates" reason names."""

    key: str
    groups: tuple[str, ...]

    def __new__(cls, text: str, key: str = "", groups: tuple[str, ...] = ()) -> Reason:
        reason = super().__new__(cls, text)
        reason.key = key or text
        reason.groups = groups
        return reason


class Answer(NamedTuple):
    """One rule that decides the question, with the evidence that chose it."""

    edition: str
    number: str
    title: str  # the rule's title, or its parent rule's ("Trample" for 702.19c)
    text: str
    score: float
    why: tuple[str, ...]
    deciding: str = ""  # the words of `text` that decide the question (ask --brief)

    def to_dict(self) -> dict:
        from crlookup.core.documents import document_of

        return {
            "document": document_of(self.edition),
            "edition": self.edition,
            "number": self.number,
            "title": self.title,
            "text": self.text,
            "score": self.score,
            "why": list(self.why),
        }
