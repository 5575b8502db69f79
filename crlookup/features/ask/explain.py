"""The answers: the rules chosen for a question, each under its title, with the reasons that
chose it said in the user's language."""

from __future__ import annotations

from typing import NamedTuple

from crlookup.core.i18n import _, ngettext
from crlookup.core.model import Rule, fold
from crlookup.core.numbers import ref_label, rule_of
from crlookup.features.ask.lexicon import Lexicon
from crlookup.features.ask.question import Question
from crlookup.features.ask.ranking import GROUPS, order
from crlookup.features.ask.retrieve import rank
from crlookup.library.reader import Library

ASKED_SHOWN = 3  # the words whose questions cite a rule most, in its reasons
RULING_WORDS = 24  # the words of a ruling shown in the reasons it gives


class Answer(NamedTuple):
    """One rule that decides the question, with the evidence that chose it."""

    edition: str
    number: str
    title: str  # the rule's title, or its parent rule's ("Trample" for 702.19c)
    text: str
    score: float
    why: tuple[str, ...]

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


def answer(lib: Library, lex: Lexicon, question: Question, limit: int = 5) -> list[Answer]:
    """The entries of the lexicon's edition that best decide `question`, best first: the
    lexical and the semantic candidates, ordered by the learned weights (ranking.py)."""
    from crlookup.features.ask import semantic
    from crlookup.features.ask.ranking import load_weights

    scores, reasons = rank(lex, question)
    similar = semantic.similarities(lib, lex.edition, semantic.reading(lex, question))
    semantic.weigh(lib, lex, question, reasons)
    learned = lib.memo(("ask", "weights"), load_weights)
    out = []
    for placed in order(lex, question, scores, reasons, similar, limit, learned):
        rule = lib.get(lex.edition, lex.numbers[placed.i])
        assert rule is not None  # the lexicon was read from this edition's entries
        why = _explain(lex, question, placed.reasons, rule.number)
        if placed.groups:
            why.append(
                _("lifted above the other candidates by: {groups}").format(
                    groups=", ".join(_(GROUPS[g]) for g in placed.groups)
                )
            )
        out.append(
            Answer(
                lex.edition,
                rule.number,
                title(lib, lex.edition, rule),
                rule.text,
                placed.score,
                tuple(why),
            )
        )
    return out


def title(lib: Library, edition: str, rule: Rule) -> str:
    """What an answer is shown under: its rule's title (a subrule's, its rule's), else its
    section's ("601.2b": Casting Spells)."""
    for number in (rule_of(rule.number), rule.number.split(".")[0]):
        found = rule if number == rule.number else lib.get(edition, number)
        if found is not None and found.title:
            return found.title
    return ""


def _explain(lex: Lexicon, question: Question, reasons: dict, number: str = "") -> list[str]:
    why = [
        _("{number} is named in the question").format(number=number)
        for number in reasons.get("written", ())
    ]
    for k in reasons.get("terms", ()):
        t = lex.terms[k]
        where = f" ({ref_label(t.number)})" if t.number else ""
        why.append(
            _("{kind} “{name}”{where} recognised").format(kind=t.label, name=t.name, where=where)
        )
    carried = [(card, name) for card, name, _k in reasons.get("card", ())]
    more = [(card, name) for card, name, _kind in reasons.get("carried", ())]
    for card, name in dict.fromkeys(carried + more):
        why.append(  # "Giant Spider (card): reach → 702.17b"
            _("{card} (card): {name} → {number}").format(card=card, name=fold(name), number=number)
        )
    for ruling in reasons.get("ruling", ())[:1]:
        why.append(
            _("{card}, ruling ({date}): {text}").format(
                card=ruling.card, date=ruling.date, text=_clipped(ruling.text)
            )
        )
    for k in reasons.get("named", ()):
        if k not in reasons.get("terms", ()):
            why.append(_("names “{name}”").format(name=lex.terms[k].name))
    for i in reasons.get("cited", ())[:2]:
        why.append(_("cited by {number}").format(number=lex.numbers[i]))
    words = [w for w in question.words if w.stem in reasons["words"]]
    shown: list[str] = []
    for w in (w for w in words if not w.said and not w.card):
        label = w.typed if w.typed == w.read else f"{w.typed} → {w.read}"
        if label not in shown:
            shown.append(label)
    if shown:
        why.append(_("words matched: {words}").format(words=", ".join(shown)))
    own = {w.stem for w in words if not w.card}
    from_cards: dict[str, list[str]] = {}
    for w in words:
        if w.card and w.stem not in own and w.read not in from_cards.setdefault(w.card, []):
            from_cards[w.card].append(w.read)
    for card, matched in from_cards.items():
        why.append(
            _("{card} (card): words matched: {words}").format(card=card, words=", ".join(matched))
        )
    surface = {w.stem: w.read for w in question.words if not w.said and not w.card}
    for a, b in reasons.get("phrases", ()):
        why.append(
            _("“{words}” side by side, as in the question").format(
                words=f"{surface[a]} {surface[b]}"
            )
        )
    for said, meant in question.phrases:
        used = [w.read for w in words if w.said == said]
        if used:
            why.append(
                _("“{said}” read as “{meant}” (matched: {words})").format(
                    said=said, meant=meant, words=", ".join(dict.fromkeys(used))
                )
            )
    if reasons.get("asked"):
        read_as: dict[str, str] = {}
        for w in question.words:
            read_as.setdefault(w.stem, w.read)
        for k, _named in question.terms:  # a translation's terms, by their English names
            for s in lex.terms[k].english_stems:
                read_as.setdefault(s, lex.terms[k].english)
        strongest = sorted(reasons["asked"], reverse=True)[:ASKED_SHOWN]
        asked = dict.fromkeys(read_as[s] for _lift, s in strongest)
        why.append(
            _("answers to players’ questions with {words} cite it often").format(
                words=", ".join(f"“{word}”" for word in asked)
            )
        )
    if reasons.get("judged"):
        why.append(
            ngettext(
                "{count} answer to players’ rules questions cites it",
                "{count} answers to players’ rules questions cite it",
                reasons["judged"],
            ).format(count=reasons["judged"])
        )
    return why


def _clipped(text: str, words: int = RULING_WORDS) -> str:
    """The first `words` words of `text`, "…" after them if there were more."""
    split = text.split()
    return " ".join(split[:words]) + (" …" if len(split) > words else "")
