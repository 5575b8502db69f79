"""The answers: the rules chosen for a question, each under its title, with the reasons that
chose it said in the user's language, and the words of its text that decide the question (a
tournament question's entries too); and how the question was read (`readings`).

Each answer keeps every reason that chose it (its `why`, as --json gives it); `told` says which
of them set it apart from the other answers shown, and which most of them share (said once).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.documents import DOCUMENTS
from crlookup.core.i18n import _, ngettext
from crlookup.core.model import fold
from crlookup.core.numbers import ref_label, rule_of
from crlookup.features.ask.analyzer import Analyzer
from crlookup.features.ask.procedure import expanded, thesaurus
from crlookup.features.ask.ranking import GROUPS
from crlookup.features.ask.records import Answer, Reason

if TYPE_CHECKING:
    from crlookup.core.model import Rule
    from crlookup.features.ask.lexicon import Lexicon
    from crlookup.features.ask.procedure import Candidate, Route
    from crlookup.features.ask.records import Placed, Question
    from crlookup.library.reader import Library

ASKED_SHOWN = 3  # the words whose questions cite a rule most, in its reasons
RULING_WORDS = 24  # the words of a ruling shown in the reasons it gives
DECIDING_WORDS = 18  # the words of an answer's text shown as what decides the question
SHARED = 0.75  # a reason this share of the answers shown give (two at least) is said once
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_LEADING = re.compile(r"^[\W_]+")


def answers(lib: Library, lex: Lexicon, question: Question, placed: list[Placed]) -> list[Answer]:
    """The entries the ranking placed (ranking.order), as answers: each under its title, with
    the reasons that chose it and the words of its text that decide the question."""
    out = []
    for p in placed:
        rule = lib.get(lex.edition, lex.numbers[p.i])
        assert rule is not None  # the lexicon was read from this edition's entries
        why = _explain(lex, question, p.reasons, rule.number)
        if p.groups:
            why.append(_lifted(p.groups))
        weights = {s: _idf(lex, s) for s in p.reasons.get("words", ())}
        out.append(
            Answer(
                lex.edition,
                rule.number,
                title(lib, lex.edition, rule),
                rule.text,
                p.score,
                tuple(why),
                deciding(lex.analyzer, rule.text, weights),
            )
        )
    return out


def entries(
    lib: Library, text: str, found: Route, ranked: list[tuple[float, Candidate, list[str]]]
) -> list[Answer]:
    """A tournament question's answers: the entries procedure.rank chose (with the stems each
    matched), each saying which document it came from and why, in the question's words (the
    judges' abbreviations spelled out)."""
    an = Analyzer("en")
    written: dict[str, str] = {}  # a stem -> the question's word for it
    for word in re.findall(
        r"[^\W\d_]+", expanded(text, lib.memo(("procedure", "thesaurus"), thesaurus))
    ):
        written.setdefault(an.stem(word.lower()), word.lower())
    out = []
    for score, e, stems in ranked:
        matched = [written.get(w, w) for w in stems]
        why = [found.why] if e.document == found.document else []
        if e.penalty:
            why.append(_("penalty: {penalty}").format(penalty=e.penalty))
        why.append(
            _("{document}: matches {words}").format(
                document=DOCUMENTS[e.document], words=", ".join(matched[:8]) or "-"
            )
        )
        words = deciding(an, e.text, dict.fromkeys(stems, 1.0))
        out.append(Answer(e.edition, e.number, e.title, e.text, round(score, 3), tuple(why), words))
    return out


def readings(lex: Lexicon, question: Question) -> tuple[str, ...]:
    """How the question was read, for the reader: the cards it names, the terms it names
    ("aura (glossary term 303)", "face up (glossary term, section 4)") and the corrections."""
    card = _("card")
    out = [
        f"{typed} ({card})" if typed.casefold() == name.casefold() else f"{typed} ({card}: {name})"
        for typed, name in question.cards
    ]
    for k, named in question.terms:
        t = lex.terms[k]
        where = (", " if len(t.number) == 1 else " ") + ref_label(t.number) if t.number else ""
        out.append(f"{named} ({t.label}{where})")
    out += [f"{typed} → {fixed}" for typed, fixed in question.corrections]
    return tuple(out)


class Told(NamedTuple):
    """How the reasons of the answers shown are told: those most of them share once
    (`shared`; `everywhere` if every answer gives each), and each answer's others (`own`)."""

    shared: tuple[str, ...]
    everywhere: bool
    own: tuple[tuple[str, ...], ...]


def told(answers: Sequence[Answer], said: Sequence[str] = ()) -> Told:
    """The reasons of `answers` told once each: a reason SHARED of them give (two at least) is
    said once if they all say it alike, and left out if each says it its own way (how many
    answers to players' questions cite each); of "lifted above the other candidates by", only
    the groups few of them share; a reason already `said` (how the question was read) not
    again."""
    needed = max(2, math.ceil(SHARED * len(answers)))
    keys: Counter[str] = Counter()
    groups: Counter[str] = Counter()
    texts: dict[str, set[str]] = {}
    for a in answers:
        keys.update({_key(r) for r in a.why})
        for r in a.why:
            texts.setdefault(_key(r), set()).add(str(r))
            groups.update(r.groups if isinstance(r, Reason) else ())
    common = {k for k, n in keys.items() if n >= needed}
    lifted = {g for g, n in groups.items() if n >= needed}
    own = []
    for a in answers:
        mine: list[str] = []
        for r in a.why:
            if isinstance(r, Reason) and r.groups:
                apart = tuple(g for g in r.groups if g not in lifted)
                mine += [_lifted(apart)] if apart else []
            elif _key(r) not in common and r not in said:
                mine.append(r)
        own.append(tuple(mine))
    shared = [
        r
        for r in dict.fromkeys(r for a in answers for r in a.why)
        if _key(r) in common
        and len(texts[_key(r)]) == 1
        and r not in said
        and not (isinstance(r, Reason) and r.groups)
    ]
    everywhere = all(keys[_key(r)] == len(answers) for r in shared)
    return Told(tuple(shared), everywhere, tuple(own))


def deciding(an: Analyzer, text: str, weights: Mapping[str, float]) -> str:
    """The words of `text` that decide the question: up to DECIDING_WORDS words of one
    sentence whose stems weigh most in `weights` (the question's words it matched); of equals,
    a whole sentence, else one's beginning, else the earliest; with none matched, the text's
    beginning ("…" where it is cut)."""
    heads = tuple({s[:2] for s in weights})  # a word's stem begins as the word does
    memo: dict[str, set[str]] = {}

    def matched(word: str) -> set[str]:
        found = memo.get(word)
        if found is None:
            bare = _LEADING.sub("", word).casefold().startswith(heads)
            found = memo[word] = set(an.stems(word)) & weights.keys() if bare else set()
        return found

    best: tuple[float, bool, bool] = (-1.0, False, False)
    tokens, start = [""], 0
    for sentence in _SENTENCES.split(text):
        words = sentence.split()
        stems = [matched(w) for w in words]
        for i in range(max(1, len(words) - DECIDING_WORDS + 1)) if words else ():
            # in one order (sorted): a float sum in a set's order differs from run to run
            weight = sum(weights[s] for s in sorted(set().union(*stems[i : i + DECIDING_WORDS])))
            rank = (weight, weight > 0 and len(words) <= DECIDING_WORDS, i == 0)
            if rank > best:
                best, tokens, start = rank, words, i
    end = start + DECIDING_WORDS
    cut = " ".join(tokens[start:end])
    return ("… " if start else "") + cut + (" …" if end < len(tokens) else "")


def _key(reason: str) -> str:
    return reason.key if isinstance(reason, Reason) else reason


def _lifted(groups: tuple[str, ...]) -> Reason:
    return Reason(
        _("lifted above the other candidates by: {groups}").format(
            groups=", ".join(_(GROUPS[g]) for g in groups)
        ),
        "lifted",
        groups,
    )


def _idf(lex: Lexicon, stem: str) -> float:
    docs = lex.postings.get(stem)
    df = len(docs[0]) if docs else 0
    return math.log(1 + (lex.count - df + 0.5) / (df + 0.5))


def title(lib: Library, edition: str, rule: Rule) -> str:
    """What an answer is shown under: its rule's title (a subrule's, its rule's), else its
    section's ("601.2b": Casting Spells)."""
    for number in (rule_of(rule.number), rule.number.split(".")[0]):
        found = rule if number == rule.number else lib.get(edition, number)
        if found is not None and found.title:
            return found.title
    return ""


SUPERTYPES = {"basic", "legendary", "ongoing", "snow", "world"}  # said as adjectives


def _carried(card: str, name: str, kind: str, number: str) -> str:
    """Why a named card brings a rule, in plain words: "Vampire Nighthawk has deathtouch
    (702.2b)", "Hill Giant is a creature (302.6)", "Prodigal Pyromancer's text has {T}
    (107.5)"."""
    if kind in ("keyword", "ability word"):
        return _("{card} has {name} ({number})").format(card=card, name=name, number=number)
    if kind in ("type", "layout"):
        if name in SUPERTYPES:  # "is legendary"
            said = _("{card} is {name} ({number})")
        elif name[:1] in "aeiou":
            said = _("{card} is an {name} ({number})")
        else:
            said = _("{card} is a {name} ({number})")
        return said.format(card=card, name=name, number=number)
    return _("{card}’s text has “{name}” ({number})").format(card=card, name=name, number=number)


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
    kinds = {(card, name): kind for card, name, kind in reasons.get("carried", ())}
    carried = [(card, name) for card, name, _k in reasons.get("card", ())]
    for card, name in dict.fromkeys(carried + list(kinds)):
        kind = kinds.get((card, name), "")
        said = name if kind == "symbol" else fold(name)  # {T}, not {t}
        why.append(_carried(card, said, kind, number))
    for card, name, kind in reasons.get("leads", ())[:1]:
        if (card, name) not in kinds:
            why.append(  # "Pacifism: the rules of its enchant cite 704.5m"
                _("{card}: the rules of its {name} cite {number}").format(
                    card=card, name=name if kind == "symbol" else fold(name), number=number
                )
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
            Reason(
                ngettext(
                    "{count} answer to players’ rules questions cites it",
                    "{count} answers to players’ rules questions cite it",
                    reasons["judged"],
                ).format(count=reasons["judged"]),
                "judged",
            )
        )
    return why


def _clipped(text: str, words: int = RULING_WORDS) -> str:
    """The first `words` words of `text`, "…" after them if there were more."""
    split = text.split()
    return " ".join(split[:words]) + (" …" if len(split) > words else "")
