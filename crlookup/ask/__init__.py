"""Rules questions: read a question for the game's own terms, find the rules that decide it, say why.

A question flows through the package's modules in this order:

- analyzer.py: words as both the lexicon and the question read them (folded, stemmed, stop words);
- lexicon.py: the edition a question is read against, as its lexicon (its terms, its entries'
  stemmed words, what cites what, the players' thesaurus), kept beside the library; build.py
  builds it, with the library (crlookup.build) or on first use for an older edition
  (`build.lexicon`: the one kept, else built now);
- cited.py: what answers to real players' questions cite, and the words players write;
- question.py: the question read: its words, corrections and players' phrases, the terms and
  rules it names, the cards it names;
- retrieve.py: the lexical retrieval: every entry's evidence for the question, scored;
- semantic.py: the semantic retrieval: how close in meaning the question is to every entry
  (the shipped embedding model of embedding.py; entry vectors made by build.py);
- ranking.py: the candidates of both, ordered by weights learned from real questions;
- explain.py: the answers, each under its title, with the reasons that chose it.

`ask` runs them all: a question is read against an edition of its own language (the newest unless
told otherwise), and its answers are carried to another language's rules when those are wanted.

(`crlookup.ask.lexicon` is the function `lexicon`, from build.py; import from the module
lexicon.py by name: `from crlookup.ask.lexicon import LEXICON_DIR`.)
"""

from __future__ import annotations

from typing import NamedTuple

from crlookup.ask.build import lexicon
from crlookup.ask.cited import citations
from crlookup.ask.explain import Answer, _title, answer
from crlookup.ask.lexicon import Lexicon
from crlookup.ask.question import Question, detect_lang, understand
from crlookup.ask.retrieve import rank
from crlookup.i18n import _
from crlookup.read import Library

__all__ = [
    "Answer",
    "Asked",
    "Lexicon",
    "Question",
    "answer",
    "ask",
    "citations",
    "detect_lang",
    "lexicon",
    "rank",
    "readings",
    "understand",
]


class Asked(NamedTuple):
    question: Question
    searched: str  # the edition the question was read against
    answers: list[Answer]  # in the edition asked for (carried over from `searched` if need be)
    read_as: tuple[str, ...] = ()  # how it was read: cards, terms (and where), corrections

    def to_dict(self) -> dict:
        return {
            "question": self.question.text,
            "read_against": self.searched,
            "read_as": list(self.read_as),
            "answers": [a.to_dict() for a in self.answers],
        }


def readings(lex: Lexicon, question: Question) -> tuple[str, ...]:
    """How the question was read, for the reader: the cards it names, the terms it names
    ("aura (glossary term 303)", "face up (glossary term, section 4)") and the corrections."""
    from crlookup.numbers import ref_label

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


def ask(
    lib: Library,
    text: str,
    *,
    edition: str | None = None,
    lang: str | None = None,
    limit: int = 5,
    progress=None,
) -> Asked:
    """Answer `text` from `edition`, else the newest edition of `lang`, else of its own language.

    The question is read against an edition of its own language; when the rules are wanted in
    another language, each answer is carried to its counterpart there (through same-date
    translations and the stored alignments), and says so. `progress(done, total)` is told
    while the edition's entries are embedded, the first time an edition not shipped is asked.
    """
    own = detect_lang(text)
    target = lib.edition(edition) if edition else lib.edition(lang=lang or own)
    searched = target if target.lang == own else lib.edition(lang=own)
    lex = lexicon(lib, searched.id)
    question = understand(lex, text, lib)
    found = answer(lib, lex, question, limit, progress)
    if searched.id != target.id:
        found = _carry(lib, found, target.id)
    return Asked(question, searched.id, found, readings(lex, question))


def _carry(lib: Library, found: list[Answer], target: str) -> list[Answer]:
    """The answers as the counterpart rules of `target` (kept as they are where none exists)."""
    from crlookup.bilingual import counterpart_edition
    from crlookup.history import Links

    info = lib.edition(target)
    links = Links(lib, info.lang)
    out = []
    for a in found:
        source_lang = lib.edition(a.edition).lang
        if source_lang == info.lang:
            twin = (target, links.numbers(a.edition, a.number).get(target))
        else:
            twin = counterpart_edition(lib, a.edition, a.number, info.lang)
            if twin and twin[0] != target:
                twin = (target, links.numbers(twin[0], twin[1]).get(target))
        rule = lib.get(target, twin[1]) if twin and twin[1] else None
        if rule is None:
            out.append(
                a._replace(why=(*a.why, _("no counterpart in {edition}").format(edition=target)))
            )
            continue
        note = _("the counterpart of {edition} {number}").format(edition=a.edition, number=a.number)
        out.append(
            Answer(
                target, rule.number, _title(lib, target, rule), rule.text, a.score, (*a.why, note)
            )
        )
    return out
