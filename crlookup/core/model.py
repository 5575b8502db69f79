"""The rule tree: editions, their numbered entries, examples, glossary and cross-references;
and the cards whose rules text the rules govern.

Plain immutable records with no I/O. Parsers build them, the library saves and loads them,
the CLI renders them. Numbers are kept as canonical strings ("702.19b"); `crlookup.numbers`
orders them.

They are `NamedTuple`s rather than frozen dataclasses for one measured reason: every
crlookup command is a fresh process, and creating these classes as dataclasses costs about
7 ms at import, a tenth of the time budget of `crlookup rule --json`. Change them with
`record._replace(field=value)`.
"""

from __future__ import annotations

from datetime import date
from typing import NamedTuple

from crlookup.core.chinese import has_chinese
from crlookup.core.numbers import rule_of

KINDS = ("chapter", "section", "rule", "subrule")


class Source(NamedTuple):
    """Where an entry came from: a file name and a 1-based line number."""

    file: str
    line: int


class Reference(NamedTuple):
    """A cross-reference as written ("rules 601.2e–g") and what it points to in its edition.

    `first`/`last` are the numbers as written (`last` only for a range); `targets` are the
    numbers of the same edition it resolved to, empty when it resolved to nothing.
    """

    text: str
    first: str
    last: str | None = None
    targets: tuple[str, ...] = ()

    @property
    def resolved(self) -> bool:
        return bool(self.targets)

    @property
    def label(self) -> str:
        """The cited number or range in CR style: "601.2e–g", "510.1c–510.2"."""
        if not self.last:
            return self.first
        common = rule_of(self.first)
        if self.last.startswith(common) and self.last[len(common) :].isalpha():
            return f"{self.first}–{self.last[len(common) :]}"
        return f"{self.first}–{self.last}"


class Rule(NamedTuple):
    """One numbered entry: a chapter, section, rule or subrule.

    `text` is clean text without its examples (paragraphs joined with a newline); for chapters
    and sections it is empty and `title` holds the heading. A rule whose whole text is a name
    ("702.19. Trample") has that name as `title` too.
    """

    number: str
    kind: str
    text: str
    source: Source
    title: str = ""
    examples: tuple[str, ...] = ()
    refs: tuple[Reference, ...] = ()
    cards: tuple[str, ...] = ()  # card names mentioned in the text (where the source marks them)
    translations: tuple[
        tuple[str, str], ...
    ] = ()  # (lang, name) for titles other editions translate
    # A tournament document's named parts beside its text, in document order: for an IPG
    # infraction ("penalty", "Warning"), ("philosophy", …), ("additional remedy", …),
    # ("upgrade", …). The text is the entry's main text (an infraction's definition).
    parts: tuple[tuple[str, str], ...] = ()
    # Judges' commentary printed beside the text (the annotated MTR): not the document's own
    # words, so never part of its text, its references or the index; shown on request.
    annotations: tuple[str, ...] = ()

    def to_dict(self, edition: str) -> dict:
        """The JSON form shared by `export`, `rule --json` and the other commands."""
        out = {
            "edition": edition,
            "number": self.number,
            "kind": self.kind,
            "title": self.title,
            "text": self.text,
            "examples": list(self.examples),
            **_refs_dict(self.refs),
            "cards": list(self.cards),
            "translations": dict(self.translations),
            "source": {"file": self.source.file, "line": self.source.line},
        }
        if self.parts:
            out["parts"] = dict(self.parts)
        return out


class GlossaryEntry(NamedTuple):
    """A glossary term with its definition.

    `headwords` are the names it is found by ("Control, Controller" -> both); `see` is the
    term a "See X." entry sends the reader to; `obsolete` marks "(Obsolete)" terms.
    For a translated glossary, `term` is the edition's own term and `english` the original.
    """

    term: str
    definition: str
    source: Source
    headwords: tuple[str, ...] = ()
    see: str = ""
    obsolete: bool = False
    refs: tuple[Reference, ...] = ()
    english: str = ""
    unofficial: bool = False  # a translation the translators marked unofficial
    translations: tuple[tuple[str, str], ...] = ()

    def to_dict(self, edition: str) -> dict:
        return {
            "edition": edition,
            "number": None,
            "kind": "glossary",
            "title": self.term,
            "text": self.definition,
            "examples": [],
            **_refs_dict(self.refs),
            "headwords": list(self.headwords),
            "see": self.see or None,
            "obsolete": self.obsolete,
            "english": self.english or None,
            "unofficial": self.unofficial,
            "translations": dict(self.translations),
            "source": {"file": self.source.file, "line": self.source.line},
        }


class Edition(NamedTuple):
    """One edition of a document (the Comprehensive Rules unless `document` says another:
    crlookup.core.documents): a language and an effective date."""

    lang: str
    date: date
    source: str  # the source file's name
    rules: tuple[Rule, ...]
    glossary: tuple[GlossaryEntry, ...] = ()
    title: str = "Magic: The Gathering Comprehensive Rules"
    partial: bool = False
    notes: tuple[str, ...] = ()  # what the parser repaired or noticed, for auditing
    given_id: str = ""  # an id the user chose when ingesting
    document: str = "cr"  # "cr", "mtr", "ipg" or "jar" (crlookup.core.documents.DOCUMENTS)
    dated: int = 0  # the line of the source that states the effective date (0: none does)

    @property
    def id(self) -> str:
        """ "<lang>-<effective date>" ("ipg-2024-09-23", "mtr-zh-2026-02-27" for another
        document), unless the user gave another id."""
        return self.given_id or edition_id(self.lang, self.date, self.document)


class Face(NamedTuple):
    """One face (or half, or part) of a card, as its Oracle text gives it.

    `missing` marks a face the source names but whose text it lacks (the second half of
    446 split, adventure, modal double-faced and other multi-part cards).
    """

    name: str
    mana_cost: str = ""
    type_line: str = ""
    text: str = ""  # the Oracle text; lines separated by "\n"
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None
    missing: bool = False

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "mana_cost": self.mana_cost,
            "type_line": self.type_line,
            "oracle_text": self.text,
            "power": self.power,
            "toughness": self.toughness,
            "loyalty": self.loyalty,
            "missing": self.missing,
        }


class Card(NamedTuple):
    """A card with its current Oracle text: one face, or several for a multi-part card.

    `name` is the card's full name ("Bonecrusher Giant // Stomp"); `faces` holds every part,
    the first being the one a single-faced card is (so `faces[0]` is always there).
    `keywords` are the source's for the whole card.
    """

    name: str
    layout: str
    faces: tuple[Face, ...]
    keywords: tuple[str, ...] = ()
    color_identity: tuple[str, ...] = ()
    melds_into: str = ""
    alchemy: bool = False  # a digital-only Alchemy rebalancing ("A-" names)
    source: Source | None = None

    @property
    def faces_incomplete(self) -> bool:
        return any(f.missing for f in self.faces)

    def to_dict(self) -> dict:
        front = self.faces[0]
        return {
            "name": self.name,
            "layout": self.layout,
            "mana_cost": front.mana_cost,
            "type_line": front.type_line,
            "oracle_text": front.text,
            "power": front.power,
            "toughness": front.toughness,
            "loyalty": front.loyalty,
            "keywords": list(self.keywords),
            "color_identity": list(self.color_identity),
            "faces": [f.to_dict() for f in self.faces] if len(self.faces) > 1 else [],
            "faces_incomplete": self.faces_incomplete,
            "melds_into": self.melds_into or None,
            "is_alchemy": self.alchemy,
        }


class Ruling(NamedTuple):
    """An official ruling on a card (Gatherer's): its date ("2018-03-16") and text, given
    under `name`, the card's name or one of its faces' ("Turn", "Burn"; "" in the card
    database when the ruling was given under several of a card's names)."""

    name: str
    date: str
    text: str
    source: Source | None = None


def _refs_dict(refs: tuple[Reference, ...]) -> dict:
    """`refs`: every number cited (ranges expanded); `unresolved`: what names no entry."""
    cited: list[str] = []
    for ref in refs:
        cited.extend(t for t in ref.targets if t not in cited)
    return {"refs": cited, "unresolved": [r.label for r in refs if not r.resolved]}


def detect_lang(query: str) -> str:
    """A query's language from its script: Chinese characters are Chinese ("deathtouch 死触"
    too), Cyrillic is Russian, anything else English."""
    if has_chinese(query):
        return "zh"
    return "ru" if any("\u0400" <= c <= "\u04ff" for c in query) else "en"


def fold(text: str) -> str:
    """The form in which words are matched: case-folded, ё as е, single spaces."""
    return " ".join(text.casefold().replace("ё", "е").split())


# What a user may name an edition (`ingest --id`) and its language (`--lang`): ids name files
# (ask's vectors/<id>.pickle), so never "../../evil".
GIVEN_ID = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
GIVEN_LANG = r"[a-z]{2,3}(?:-[a-z0-9]{2,8})?"


def check_given(id_: str | None = None, lang: str | None = None) -> None:
    """BadInput for an edition id or a language a user gave that cannot be one."""
    import re

    from crlookup.core.errors import BadInput

    if id_ is not None and (not re.fullmatch(GIVEN_ID, id_) or ".." in id_):
        raise BadInput(
            f"--id: expected letters, digits, '.', '_' and '-' (at most 64, no '..'), found {id_!r}"
        )
    if lang is not None and not re.fullmatch(GIVEN_LANG, lang):
        raise BadInput(f"--lang: expected a language code such as en, ru, zh or pl, found {lang!r}")


def edition_id(lang: str, day: date, document: str = "cr") -> str:
    """An edition's id: "en-2024-07-30" for the CR; "ipg-2024-09-23" for another document in
    English, "mtr-zh-2026-02-27" in another language."""
    if document == "cr":
        return f"{lang}-{day.isoformat()}"
    if lang == "en":
        return f"{document}-{day.isoformat()}"
    return f"{document}-{lang}-{day.isoformat()}"
