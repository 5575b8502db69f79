"""Rules questions: read a question for the game's own terms, find the rules that decide it, say why.

`ask` is the package's public face: it runs the stages of pipeline.py, each reading what the
one before returned. A question flows through the package's modules in this order:

- records.py: the records the stages pass one another (the question read, its candidates, the
  entries placed, the answers), importing nothing of crlookup but crlookup.core;
- analyzer.py: words as both the lexicon and the question read them (folded, stemmed, stop words);
- cited.py: what answers to real players' questions cite, and the words players write;
- lexicon.py: the edition a question is read against, as its lexicon (its terms, its entries'
  stemmed words, what cites what, the players' thesaurus); prepare.py makes it, and reads the
  edition's entry vectors (the build keeps both beside the library; another edition's are made
  in memory: `prepare.lexicon`, `prepare.vectors`); embedding.py: the shipped embedding model,
  and the vectors it made that ship;
- pipeline.py: the stages, in order:
  1. the question: procedure.py for a tournament question (the document that decides it),
     else question.py: its words, corrections and players' phrases, the terms and rules it
     names, the cards it names (named.py);
  2. the candidates: retrieve.py, the lexical retrieval (every entry's evidence, scored), and
     semantic.py, the semantic one (how close in meaning the question is to every entry; the
     named cards' rulings weighed), of both those ranking.py weighs (procedure.py ranks a
     tournament question's entries itself);
  3. the features: ranking.py describes each candidate by the same features;
  4. the ranking: ranking.py orders them by weights learned from real questions;
  5. the explanation: explain.py, the answers, each under its title, with the reasons that
     chose it;
- rulings.py: a card's ruling read as a question, through the same stages, many at once.

A question is read against an edition of its own language (crlookup.api chooses it, and
carries the answers to another language's rules when those are wanted).

(`crlookup.features.ask.lexicon` is the function `lexicon`, from prepare.py; import from the
module lexicon.py by name: `from crlookup.features.ask.lexicon import LEXICON_DIR`.)
"""

from __future__ import annotations

from typing import NamedTuple

from crlookup.core.model import detect_lang
from crlookup.features.ask import pipeline
from crlookup.features.ask.cited import citations
from crlookup.features.ask.explain import Told, title, told
from crlookup.features.ask.lexicon import Lexicon
from crlookup.features.ask.prepare import THROUGH_ENGLISH, lexicon
from crlookup.features.ask.question import checked, understand
from crlookup.features.ask.records import Answer, Question
from crlookup.features.ask.retrieve import rank
from crlookup.library.reader import Library

__all__ = [
    "THROUGH_ENGLISH",
    "Asked",
    "Lexicon",
    "Told",
    "ask",
    "checked",
    "citations",
    "detect_lang",
    "lexicon",
    "rank",
    "title",
    "told",
    "understand",
]


class Asked(NamedTuple):
    question: Question
    searched: str  # the edition the question was read against
    answers: list[Answer]  # in the edition asked for (carried over from `searched` if need be)
    read_as: tuple[str, ...] = ()  # how it was read: cards, terms (and where), corrections
    beside: tuple = ()  # with --parallel: each answer's counterpart (a Rule and its edition)

    def to_dict(self) -> dict:
        """Every answer with all its reasons (`why`), and `reasons` as the command line and
        the page say them: `shared` once (by every answer if `everywhere`, else by most), then
        each answer's `own`."""
        told = self.reasons()
        return {
            "question": self.question.asked_as or self.question.text,
            **({"read_in_english": self.question.text} if self.question.asked_as else {}),
            "read_against": self.searched,
            "read_as": list(self.read_as),
            "answers": [
                {
                    **a.to_dict(),
                    **(
                        {"parallel": twin[1].to_dict(twin[0]) if twin else None}
                        if self.beside
                        else {}
                    ),
                }
                for a, twin in zip(self.answers, self.beside or [None] * len(self.answers))
            ],
            "reasons": {
                "shared": list(told.shared),
                "everywhere": told.everywhere,
                "own": [list(own) for own in told.own],
            },
        }

    def reasons(self) -> Told:
        """The answers' reasons as people read them: what most answers share once, and what
        sets each apart (explain.told); --json keeps every answer's own."""
        return told(self.answers, self.read_as)


def ask(lib: Library, text: str, edition: str, limit: int = 5, asked_as: str = "") -> Asked:
    """Answer `text` from `edition` (an edition of the question's own language: crlookup.api
    chooses it, and carries the answers into another language's rules when those are wanted).
    `asked_as`: the question as asked when `text` is its reading in the edition's language
    (a Chinese question read in English terms): the model reads that, and answers show it.
    A tournament question is answered from the tournament document that decides it."""
    return Asked(*pipeline.run(lib, text, edition, limit, asked_as))
