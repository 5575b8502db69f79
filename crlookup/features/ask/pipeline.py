"""`ask`'s stages, run in order, each reading what the one before returned (records.py):

1. the question: a tournament question's route (procedure.route), else the question read
   against the edition's lexicon (question.understand, prepare.lexicon);
2. the candidates: the lexical retrieval (retrieve.rank), the closeness in meaning of every
   entry (semantic.similarities, prepare.vectors), the rulings of the cards the question names
   weighed (semantic.weigh), and of all those the candidates the ranking weighs
   (ranking.candidates); a tournament question's entries are ranked by procedure.rank;
3. the candidates' features (ranking.features);
4. the ranking: the best candidates by the learned weights (ranking.order);
5. the explanation: the answers, each with the reasons that chose it (explain.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup.core.i18n import _
from crlookup.core.model import detect_lang
from crlookup.features.ask import explain, procedure, ranking, semantic
from crlookup.features.ask.prepare import lexicon, vectors
from crlookup.features.ask.question import understand
from crlookup.features.ask.records import Answer, Candidates, Placed, Question
from crlookup.features.ask.retrieve import rank

if TYPE_CHECKING:
    import numpy as np

    from crlookup.features.ask.lexicon import Lexicon
    from crlookup.library.reader import Library


def run(
    lib: Library, text: str, edition: str, limit: int = 5, asked_as: str = ""
) -> tuple[Question, str, list[Answer], tuple[str, ...]]:
    """Every stage for `text`, read against `edition` (`asked_as`: crlookup.features.ask.ask):
    the question as read, the edition it was answered from, the answers, and how the question
    was read (the fields of crlookup.features.ask.Asked)."""
    found = route(lib, text) or described(lib, text, edition)
    if found is not None:
        searched, answers = tournament(lib, text, found, limit)
        if answers:  # a tournament question: its document's entries
            return Question(text, "en", (), (), (), ()), searched, answers, (found.why,)
    lex = lexicon(lib, edition)
    question = understand(lex, text, lib)
    if asked_as:
        question = question._replace(asked_as=asked_as)
    return question, edition, answer(lib, lex, question, limit), explain.readings(lex, question)


def route(lib: Library, text: str) -> procedure.Route | None:
    """The tournament document that decides an English question (and why), if it is a
    tournament question and the library has the document; else None (a rules question)."""
    if detect_lang(text) != "en":
        return None
    found = procedure.route(text, lib.memo(("procedure", "thesaurus"), procedure.thesaurus))
    return found if found is not None and lib.editions(found.document) else None


# How much closer in meaning a question must be to a tournament document's entry than to any
# rule of the CR to be answered from that document, when it has none of a tournament's words
# ("we forgot to untap", "I said no blocks, then wait"): chosen on the training and
# development sets (docs/how-ask-works.md: the closest rules question was 0.006 closer)
DESCRIBED = 0.01


def described(lib: Library, text: str, edition: str) -> procedure.Route | None:
    """The tournament document an English question without a tournament's words describes a
    situation of: the document of the entry closest in meaning to it, if that entry is
    DESCRIBED closer than every rule of `edition`; else None."""
    if detect_lang(text) != "en" or lib.edition(edition).lang != "en":
        return None
    entries = procedure.candidates(lib)
    if not entries:
        return None
    from crlookup.core.documents import label

    question = semantic.query(lib, text)
    close = procedure.closeness(lib, entries, question)
    best = int(close.argmax())
    if float(close[best]) - float((vectors(lib, edition) @ question).max()) < DESCRIBED:
        return None
    entry = entries[best]
    return procedure.Route(
        entry.document,
        _("a situation closest in meaning to {entry}").format(
            entry=label(entry.document, entry.number)
        ),
    )


def tournament(
    lib: Library, text: str, found: procedure.Route, limit: int = 5
) -> tuple[str, list[Answer]]:
    """The newest English edition of the routed document, and the tournament entries that
    answer the question, best first, explained."""
    edition = lib.edition(lang="en", document=found.document).id
    return edition, explain.entries(
        lib, text, found, procedure.rank(lib, text, found, semantic.query(lib, text))[:limit]
    )


def answer(lib: Library, lex: Lexicon, question: Question, limit: int = 5) -> list[Answer]:
    """The entries of the lexicon's edition that best decide `question`, best first: its
    candidates, placed by their features and the learned weights, explained."""
    found = candidates(lib, lex, question)
    placed = place(lex, question, found, limit, lib.memo(("ask", "weights"), ranking.load_weights))
    return explain.answers(lib, lex, question, placed)


def candidates(
    lib: Library, lex: Lexicon, question: Question, similar: np.ndarray | None = None
) -> Candidates:
    """What the lexical and the semantic retrievals find for `question`, and the candidates
    of both the ranking weighs. `similar`: every entry's closeness in meaning to the question,
    if it is known (rulings.py embeds many questions at once)."""
    scores, reasons = rank(lex, question)
    if similar is None:
        entries = vectors(lib, lex.edition)
        similar = semantic.similarities(lib, entries, semantic.reading(lex, question))
    semantic.weigh(lib, lex, question, reasons)
    return Candidates(scores, reasons, similar, ranking.candidates(lex, scores, similar, reasons))


def place(
    lex: Lexicon,
    question: Question,
    found: Candidates,
    limit: int = 5,
    learned: list[float] | None = None,
) -> list[Placed]:
    """The best `limit` candidates, best first: their features, weighed by the learned
    weights (or `learned`)."""
    return ranking.order(lex, found, ranking.features(lex, question, found), limit, learned)
