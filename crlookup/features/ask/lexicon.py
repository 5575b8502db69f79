"""An edition's lexicon: what questions are read against and ranked with, kept beside the library.

It is built (build.py) with the library, or on first use for an older edition, from the
edition's rules and glossary, and holds:

- the **terms** the edition names: keyword abilities and actions (701.x/702.x titles), section
  titles (card types, zones, steps and phases, "Life", "Counters"...; a step also without the
  word "step": "upkeep") and glossary headwords (in a translation, their English names too);
  each with the entries that define it (its rule and subrules, or what its glossary entry
  cites), its glossary definition, and the entries whose text names it;
- every entry's stemmed words, with its rule's title and text and its section's title as
  context, as BM25 postings; which entries cite which; keyword boilerplate ("Multiple
  instances of X are redundant"), found as text that three or more keywords share;
- the thesaurus: players' phrases and the rules' words for them (crlookup/thesaurus/<lang>.txt:
  "blink", "summoning sick", "cast ... this turn"), as read then.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.i18n import N_, _
from crlookup.features.ask.analyzer import Analyzer
from crlookup.features.ask.cited import JUDGED_FROM, Cited, citations

if TYPE_CHECKING:
    from array import array

LEXICON_DIR = "ask"  # beside the database: <library>/ask/<edition>.pickle
LEXICON_VERSION = 17
MAX_TERM_WORDS = 4
EXPANSION = 0.7  # a rules' word read for a player's phrase, against 1 for a word of the question
GAP = "..."  # "cast ... this turn" in the thesaurus: a few words between (question.MAX_GAP)
SIGNED = "+N"  # in the thesaurus: a signed number, as players name loyalty abilities ("I +1'd
# Teferi", "his -3"; which signed numbers do: question._loyalty)
_CHAPTER_KIND = {
    "1": N_("game concept"),
    "2": N_("part of a card"),
    "3": N_("card type"),
    "4": N_("zone"),
    "5": N_("turn structure"),
    "6": N_("spells and abilities"),
    "7": N_("additional rule"),
    "8": N_("multiplayer rule"),
    "9": N_("casual variant"),
}
_KIND = {"701": N_("keyword action"), "702": N_("keyword ability"), "glossary": N_("glossary term")}


class Term(NamedTuple):
    """A game term the edition names, and where it is defined."""

    name: str  # as the edition writes it: "Trample", "Untap Step", "Loyalty Ability"
    kind: str  # a key of _KIND or a chapter digit of _CHAPTER_KIND
    number: str  # the rule or section defining it ("" for a glossary term citing nothing)
    stems: tuple[str, ...]
    homes: tuple[tuple[int, int], ...]  # ranges of entry positions [lo, hi) that define it
    mentions: int  # how many entries name it (its words in order)
    names: tuple[str, ...] = ()  # every name it goes by, folded ("counters", "counter")
    english: str = ""  # in a translation: its English name, as the glossary gives it
    english_stems: tuple[str, ...] = ()  # and that name's stems, as English is read

    @property
    def label(self) -> str:
        kind = _KIND.get(self.kind) or _CHAPTER_KIND.get(self.kind[:1], "")
        return _(kind) if kind else ""


class Lexicon:
    """One edition read for answering questions (see the module docstring).

    Plain data, pickled with the library: `edition`, `lang`; per entry (by position in
    document order) `numbers`, `kinds`, `parents` (its rule's position, -1), `lengths` (0: not
    an answer), `sequences` (its text's stems), `cites`, `cited_by`, `template`; `postings`
    (stem -> positions and weighted counts), `count` and `average` (answerable entries, their
    mean length), `vocab` (words and counts, for spelling); `terms`, `term_index` (stems ->
    the terms with them, told apart by their words), `mention_sets`, `meanings` (each term's
    glossary words); `titles` by number; `phrases`, the thesaurus as read then (with a stamp of
    its file).
    """

    # The data's fields, as prepare.build_lexicon makes them: declared for the type checker
    # only (annotations without values make no class attributes; __init__ sets them all).
    version: int
    edition: str
    lang: str
    numbers: list[str]
    kinds: list[str]
    titles: dict[str, str]
    parents: array[int]
    lengths: array[float]
    average: float
    count: int
    postings: dict[str, tuple[array[int], array[float]]]  # stem -> (positions, weights)
    vocab: dict[str, int]
    terms: list[Term]
    term_index: dict[tuple[str, ...], tuple[int, ...]]
    cites: list[tuple[int, ...]]
    meanings: list[tuple[str, ...]]
    template: array[int]
    mention_sets: list[array[int]]
    sequences: list[str]
    cited_by: array[int]
    phrases: tuple[str, dict]

    def __init__(self, data: dict):
        self.__dict__.update(data)
        self._analyzer: Analyzer | None = None
        self._phrasebook: dict | None = None
        self._citations: Cited | None = None
        self._term_numbers: dict[str, int] | None = None
        self._positions: dict[str, int] | None = None

    @property
    def positions(self) -> dict[str, int]:
        """Each entry's number, and its position."""
        if self._positions is None:
            self._positions = {n: i for i, n in enumerate(self.numbers)}
        return self._positions

    @property
    def analyzer(self) -> Analyzer:
        if self._analyzer is None:
            self._analyzer = Analyzer(self.lang)
        return self._analyzer

    @property
    def citations(self) -> Cited:
        """What answers to players' questions cite, by rule number; nothing for an edition
        numbered before the renumbering those answers use."""
        if self._citations is None:
            self._citations = citations() if self.edition[3:] >= JUDGED_FROM else Cited({}, {})
        return self._citations

    @citations.setter
    def citations(self, cited: Cited) -> None:
        self._citations = cited

    @property
    def term_numbers(self) -> dict[str, int]:
        """Each rule or section that defines a term, and that term (the first, of several)."""
        if self._term_numbers is None:
            self._term_numbers = {}
            for k, t in enumerate(self.terms):
                if t.number:
                    self._term_numbers.setdefault(t.number, k)
        return self._term_numbers

    @property
    def phrasebook(self) -> dict:
        """The thesaurus of the lexicon's language: as read when the lexicon was built, unless
        its file has changed since (reading it stems some 500 words, a tenth of a question's time)."""
        if self._phrasebook is None:
            stamp, kept = getattr(self, "phrases", ("", None))
            if kept is None or stamp != _thesaurus_stamp(self.lang):
                kept = thesaurus(self.analyzer)
            self._phrasebook = kept
        return self._phrasebook

    def rule_position(self, i: int) -> int:
        """The position of entry `i`'s rule: its parent's for a subrule, else its own."""
        return self.parents[i] if self.parents[i] >= 0 else i

    def data(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


def thesaurus(an: Analyzer) -> dict[tuple[str, ...], tuple]:
    """Players' phrases ("blink", "summoning sick") and the rules' words for them.

    Read from crlookup/thesaurus/<lang>.txt: one line each, alternatives separated by "|",
    then "=" and the words the Comprehensive Rules use. Keys are the phrases' stems; values
    are (the rules' words, their words, their stems, the phrases' own words: a question's words
    must be these, inflected, not others with their stems).
    """
    out: dict[tuple[str, ...], tuple] = {}
    try:
        with open(_thesaurus_path(an.lang), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        if "=" not in line or line.lstrip().startswith("#"):
            continue
        said, _eq, meant = line.partition("=")
        words = tuple(w for w in an.words(meant) if w not in an.stop)
        value = (meant.strip(), words, tuple(an.stem(w) for w in words))
        for phrase in said.split("|"):  # stop words included: "go first", "in response"
            if phrase.strip() == SIGNED:  # no words: understand() finds signed numbers itself
                out[(SIGNED,)] = (*value, ((SIGNED,),))
                continue
            parts = [tuple(an.stem(w) for w in an.words(part)) for part in phrase.split("...")]
            key = sum(((GAP, *part) if k else part for k, part in enumerate(parts)), ())
            if parts[0] and key != value[2]:  # "deathtoucher" stems to "deathtouch" itself
                forms = out[key][3] if key in out and out[key][:3] == value else ()
                out[key] = (*value, (*forms, tuple(an.words(phrase.replace("...", " ")))))
    return out


def _thesaurus_path(lang: str) -> str:
    package = os.path.dirname(os.path.abspath(__file__))  # crlookup/features/ask/
    return os.path.join(package, "thesaurus", lang + ".txt")


def _thesaurus_stamp(lang: str) -> str:
    """What the thesaurus file holds, in short ("" if there is none)."""
    import hashlib

    try:
        with open(_thesaurus_path(lang), "rb") as f:
            return hashlib.sha1(f.read()).hexdigest()
    except OSError:
        return ""
