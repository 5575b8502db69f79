"""`ask`'s stages, run in order, each reading what the one before returned (records.py):

1. the question: a tournament question's route (procedure.route), else the question read
   against the edition's lexicon (question.understand, prepare.lexicon);
2. the candidates: the lexical retrieval (retrieve.rank), the closeness in meaning of every
   entry (semantic.query, prepare.vectors), the rulings of the cards the question names
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
    if not any(c.isalnum() for c in text):  # "?": no word to go on, so no answer (issue 54)
        return Question(text, "en", (), (), (), ()), edition, [], ()
    found = route(lib, text)
    if found is not None:
        searched, answers = tournament(lib, text, found, limit)
        if answers:  # a tournament question: its document's entries
            return Question(text, "en", (), (), (), ()), searched, answers, (found.why,)
    lex = lexicon(lib, edition)
    question = understand(lex, text, lib)
    if asked_as:
        question = question._replace(asked_as=asked_as)
    answers = answer(lib, lex, question, limit)
    told = situation(lib, text, edition, question)
    if told is not None:
        found, first = told
        searched, entries = tournament(lib, text, found, limit)
        entries = [
            e._replace(why=(_("At a tournament: {entry}").format(entry=heading(e)), *e.why))
            for e in entries
        ]
        # told closer to a tournament entry than to any rule: those first
        if entries and (first or not answers):
            kept = min(TOLD_RULES, len(answers), limit - 1)
            mixed = entries[: limit - kept] + answers[:kept]
            return question, searched, mixed, (found.why,)
        if entries:  # beside the rules
            beside = answers[: TOLD_PLACE - 1] + entries[:1] + answers[TOLD_PLACE - 1 :]
            answers = beside[:limit]
    return question, edition, answers, explain.readings(lex, question)


def heading(entry: Answer) -> str:
    """A tournament entry as a judge names it: "IPG 2.3 Hidden Card Error"."""
    from crlookup.core.documents import document_of, label

    return f"{label(document_of(entry.edition), entry.number)} {entry.title}".strip()


def route(lib: Library, text: str) -> procedure.Route | None:
    """The tournament document that decides an English question (and why), if it is a
    tournament question and the library has the document; else None (a rules question)."""
    if detect_lang(text) != "en":
        return None
    found = procedure.route(text, lib.memo(("procedure", "thesaurus"), procedure.thesaurus))
    return found if found is not None and lib.editions(found.document) else None


# How much closer in meaning a question must be to a tournament document's entry than to any
# rule of the CR for the entries to come first, when it has none of a tournament's words ("we
# forgot to untap", "I said no blocks, then wait"): chosen on the training part of the judge
# questions and the development sets (docs/tournament.md, "ask")
DESCRIBED = 0.01
# When the question tells of something gone wrong (procedure.IRREGULAR): how close, at least,
# for the entries to come first (TOLD_FIRST: the tournament situations of the training part
# were -0.005 or closer, its closest rules question with such words -0.017), and to be shown
# beside the rules (TOLD), at TOLD_PLACE; when the entries come first, the best TOLD_RULES
# rules follow them
TOLD_FIRST, TOLD = -0.006, -0.03
TOLD_PLACE, TOLD_RULES = 2, 2


def situation(
    lib: Library, text: str, edition: str, question: Question
) -> tuple[procedure.Route, bool] | None:
    """Whether an English question without a tournament's words tells a tournament situation:
    the document of the entry closest in meaning to it, and whether its entries come first
    (the entry DESCRIBED closer than every rule of `edition`, and no card named unless it tells
    of something gone wrong: a question about cards and what they do is a game question; or
    TOLD_FIRST close, telling of something gone wrong), or are shown beside the rules (it tells
    of something gone wrong, and the entry is within TOLD of the closest rule); else None."""
    if detect_lang(text) != "en" or lib.edition(edition).lang != "en":
        return None
    entries = procedure.candidates(lib)
    if not entries:
        return None
    from crlookup.core.documents import label

    query = semantic.query(lib, text)
    close = procedure.closeness(lib, entries, query)
    best = int(close.argmax())
    margin = float(close[best]) - float((vectors(lib, edition) @ query).max())
    irregular = bool(procedure.IRREGULAR.search(text))
    first = (margin >= DESCRIBED and not question.cards) or (irregular and margin >= TOLD_FIRST)
    if not first and not (irregular and margin >= TOLD):
        return None
    entry = entries[best]
    why = _("a situation closest in meaning to {entry}").format(
        entry=label(entry.document, entry.number)
    )
    return procedure.Route(entry.document, why), first


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
    placed = place(lex, question, found, lib.memo(("ask", "reranker"), ranking.Reranker), limit)
    return explain.answers(lib, lex, question, placed)


def candidates(
    lib: Library, lex: Lexicon, question: Question, similar: np.ndarray | None = None
) -> Candidates:
    """What the lexical and the semantic retrievals find for `question`, and the candidates
    of both the ranking weighs. `similar`: every entry's closeness in meaning to the question,
    if it is known (rulings.py embeds many questions at once)."""
    scores, reasons = rank(lex, question)
    query = entries = None
    if similar is None:
        entries = vectors(lib, lex.edition)
        query = semantic.query(lib, semantic.reading(lex, question))
        similar = entries @ query
    semantic.weigh(lib, lex, question, reasons)
    chosen = ranking.candidates(lex, scores, similar, reasons)
    return Candidates(scores, reasons, similar, chosen, query, entries)


def place(
    lex: Lexicon,
    question: Question,
    found: Candidates,
    scorer: ranking.Scorer,
    limit: int = 5,
) -> list[Placed]:
    """The best `limit` candidates, best first: their features, scored by `scorer` (the
    shipped reranker; rulings.py links rulings with linear weights of their own)."""
    return ranking.order(lex, found, ranking.features(lex, question, found), scorer, limit)
