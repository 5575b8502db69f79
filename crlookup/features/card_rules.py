"""The rules behind a card: its keywords, ability and flavor words, types, and the rules terms
and symbols of its text, each linked to the rule of an edition that governs it.

Everything is read from the edition itself, so that `--edition` links an older edition's
numbers (Reach is 702.17 in 2026 and 502.70 before July 2009):

- a multi-part card's **layout** is the glossary term of `LAYOUTS` (split: "Split Cards",
  709; adventure: "Adventurer Card", 715);
- a **keyword** (the card's keyword list) is a keyword rule's title (701.x, 702.x; 502.x
  before the renumbering), or a glossary headword that leads to one ("Swampwalk": See
  Landwalk; "Megamorph": rule 702.37), also as "<keyword> token" (Treasure) and without a
  trailing "from"/"with" (Hexproof from); a keyword that ends with a keyword's name is that
  keyword's variant (Wizardcycling is Cycling), as is a land type's "-walk" (Desertwalk);
- an **ability word** is one of the list "The ability words are ..." (207.2c); a **flavor
  word** is any other word that opens an ability ("Lord of Torment — ...": 207.2d);
- a **type** (supertype, card type, subtype) is a glossary headword (Aura: 303.4), else an
  item of the edition's lists "The creature types are ..." (Spider: 205.3m), whose "(see rule
  301.5)" it follows;
- a **term** is a glossary headword or keyword name in the Oracle text, in any of its forms
  ("dies", "countered", "tokens"), longest first, the card's own name left out; **symbols**
  and a few shapes of text are the glossary terms of `PATTERNS` ({T} is Tap Symbol, "[+1]:"
  a Loyalty Ability, "Whenever ..., if ..." an Intervening "If" Clause, "{T}: Add {G}" a
  Mana Ability, "can't be blocked" an Evasion Ability).

Keyword lists hold digital-only mechanics the Comprehensive Rules have no rule for (MTG
Arena's Conjure, Seek, Perpetually...): those are `DIGITAL_ONLY` and link to nothing, saying so.

`lookup` also gives the card's official rulings (crlookup.library.cards), newest first, each
with the rules it applies (crlookup.features.rulings.rules_for), or why the library has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from itertools import product
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.errors import EditionsPending, NotFound
from crlookup.core.i18n import _
from crlookup.core.model import Card, GlossaryEntry, fold
from crlookup.core.words import NOUN_CUES, VERB_CUES, bases

if TYPE_CHECKING:
    from crlookup.library.cards import Found
    from crlookup.library.reader import Library

# Shapes of a card's text, the glossary term (by its English headword) each stands for, and
# what it is: a symbol (shown as written) or a shape of words (shown as the term)
PATTERNS: tuple[tuple[str, str, str], ...] = (
    (r"\{T\}", "Tap Symbol", "symbol"),
    (r"\{Q\}", "Untap Symbol", "symbol"),
    (r"\{E\}", "Energy Symbol", "symbol"),
    (r"\{S\}", "Snow Mana Symbol", "symbol"),
    (r"\{TK\}", "Ticket Symbol", "symbol"),
    (r"\{CHAOS\}", "Chaos Symbol", "symbol"),
    (r"\{P\}", "Pawprint Symbol", "symbol"),
    (r"\{H\}", "Phyrexian Symbol", "symbol"),
    (r"\{[WUBRGC]/[WUBRG]/P\}", "Hybrid Phyrexian Mana Symbols", "symbol"),
    (r"\{[WUBRGC]/P\}", "Phyrexian Mana Symbol", "symbol"),
    (r"\{2/[WUBRG]\}", "Monocolored Hybrid Mana Symbols", "symbol"),
    (r"\{[WUBRGC]/[WUBRG]\}", "Hybrid Mana Symbols", "symbol"),
    (r"\{[XYZ]\}", "X", "symbol"),
    (r"\{(?:\d+|[WUBRGC]|½|∞)\}", "Mana Symbol", "symbol"),
    (r"(?m)^\[[+−-]?[\dX]+\]:", "Loyalty Ability", "term"),
    (r"(?m)^(?:When|Whenever|At)\b[^.\n]*?, if\b", "Intervening “If” Clause", "term"),
    (r"(?m):\s*Add\b", "Mana Ability", "term"),
    (r"\bcan[’']t be blocked\b", "Evasion Ability", "term"),
    # the abilities a card's text has: the rules that handle them (the glossary's last rule:
    # "See rule 113, “Abilities,” and rule 603, “Handling Triggered Abilities.”")
    (r"(?m)^(?:When|Whenever|At)\b", "Triggered Ability", "term"),
    (r"(?m)^[^\n:“\"(]*\{[^}\n]+\}[^\n:“\"(]*:\s", "Activated Ability", "term"),
)
# the rules of those abilities: a word's term whose rule is one of theirs ("becomes", 603.2e,
# of a "Whenever … becomes the target" trigger) is said by the ability's link
ABILITIES = frozenset({"Triggered Ability", "Activated Ability"})
SHAPES = frozenset(term for _pattern, term, _kind in PATTERNS)  # (not a word's: a shape's)
# The card data's layouts and the glossary term (English headword) of the rule for each; the
# layouts of Sagas, Classes, planes, schemes and the like are their types, mutate and aftermath
# their keywords; Un-set hosts and augments have no rule (100.7)
LAYOUTS = {
    "adventure": "Adventurer Card",
    "split": "Split Cards",
    "aftermath": "Split Cards",
    "flip": "Flip Cards",
    "transform": "Double-Faced Cards",
    "modal_dfc": "Modal Double-Faced Cards",
    "meld": "Meld Cards",
    "leveler": "Leveler Cards",
    "prototype": "Prototype Card",
    "prepare": "Preparation Card",
}
# Mechanics of MTG Arena's digital-only cards: the Comprehensive Rules have no rule for them.
DIGITAL_ONLY = frozenset(
    {
        "boon",
        "conjure",
        "double team",
        "heist",
        "incorporate",
        "intensity",
        "perpetually",
        "seek",
        "specialize",
        "starting intensity",
    }
)
# a glossary headword that is also a word of almost every card says nothing of one
_TOO_COMMON = frozenset(
    {
        "card",
        "player",
        "object",
        "you",
        "your",
        "you, your",
        "if",
        "during",
        "type",
        "effect",
        "ability",
        "cost",
        "name",
        "text box",
        "permanent card",
    }
)
# the game's own vocabulary (its players, objects, zones, life and damage), that a card's text
# uses to say what it does, not what it does: measured over 3,000 cards drawn with seed 55, a
# link of each on 5-30% of them (control 30%, spell 15%, hand 14%, deals 13%, graveyard 13%,
# library 11%, life 10%, battlefield 9%, opponent 9%, permanent 7%); by its glossary term
VOCABULARY = frozenset(
    {
        "control, controller",
        "spell",
        "damage",
        "deal",
        "hand",
        "graveyard",
        "library",
        "battlefield",
        "life",
        "life, life total",
        "opponent",
        "permanent",
    }
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_PLACEHOLDER = re.compile(r"\s*\[[^\]]*\]")  # "Partner with [name]", "Venture into [Quality]"
# "The land types are Cave, Desert, ...", "One creature type is two words long: Time Lord."
_TYPE_LIST = re.compile(
    r"(?:long:|(?:types are|type is)(?![^.:]*:))\s+(.+?)(?:\.\s+(?=[A-Z])|\.?$)"
)
_SEE_RULE = re.compile(r"\s*\(see rules? ([\d.a-z]+)[^)]*\)")
_ABILITY_WORDS = re.compile(r"ability words are (.+?)\.?$")
_FLAVOR = re.compile(r"(?m)^(?:•\s*)?([^—\n(]{2,60}?)\s+[—-]\s")  # "Raid — ", "Golden Rule - "
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][”\"]))\s+(?=[A-Z“\"(])")
_SEE = re.compile(r"\s*(?:See|Смотрите|Zobacz)\b.*$", re.DOTALL)
_SENSE = re.compile(r"^\d\.\s+")
# after the verb/noun cues of crlookup.words: the word after a verb of two senses ("counter
# target spell", "exile it"), and after a noun ("counters on it"); "a" counts as an article
_VERB_NEXT = frozenset({"target", "it", "that", "them", "all", "up", "each", "another", "any"})
_NOUN_NEXT = frozenset({"on", "from", "counter", "counters", "zone"})
MAX_TERM_WORDS = 5


class Link(NamedTuple):
    """One rule behind a card."""

    kind: str  # "layout", "keyword", "ability word", "flavor word", "type", "term", "symbol"
    name: str  # as the card writes it: "Reach", "Landfall", "Aura", "dies", "{T}"
    number: str  # the rule of the edition that governs it ("" if none does)
    title: str  # that rule's title or the glossary term ("Reach", "Dies", "Tap Symbol")
    summary: str  # the rule's first sentence(s), or the glossary definition's
    glossary: str = ""  # the glossary term it was found through, if any

    @property
    def digital_only(self) -> bool:
        """A keyword of MTG Arena's digital-only cards, which no rule governs."""
        return self.kind == "keyword" and not self.number and name_form(self.name) in DIGITAL_ONLY

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "name": self.name,
            "number": self.number or None,
            "title": self.title,
            "summary": self.summary,
            "glossary": self.glossary or None,
            "digital_only": self.digital_only,
        }


class Term(NamedTuple):
    """A glossary entry as the linker uses it: its senses ("Exile: 1. A zone. 2. To put an
    object into the exile zone ...") each with the rules it cites (the entry's, if it names
    none of its own)."""

    term: str
    definition: str
    targets: tuple[str, ...]
    senses: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def sense(self, verb: bool | None) -> tuple[str, tuple[str, ...]]:
        """The sense (its text, its rules) of a verb ("To cancel ..."), of a noun, or the first."""
        if verb is not None:
            for text, targets in self.senses:
                if text.startswith("To ") == verb:
                    return text, targets
        return self.senses[0] if self.senses else (self.definition, self.targets)


class Vocabulary(NamedTuple):
    """What an edition names, for linking cards to it."""

    edition: str
    keywords: dict[str, str]  # folded keyword title -> its rule
    glossary: dict[str, Term]  # folded headword (English names too) -> entry, "See" followed
    ability_words: frozenset[str]
    ability_rule: str  # the rule listing the ability words
    subtypes: dict[str, tuple[str, bool]]  # folded subtype -> the rule that lists it, or the
    # rule the list cites for it ("Equipment (see rule 301.5)": True)
    subtype_rules: dict[str, str]  # that rule -> what it lists ("creature types")
    longest: int  # the most words of a name


VOCABULARY_DIR = "card_rules"  # beside the database: <library>/card_rules/<edition>.pickle
VOCABULARY_VERSION = 1  # raise it when what a vocabulary holds changes


def name_form(text: str) -> str:
    """A name as names are matched here: folded, placeholders and curly apostrophes aside."""
    return fold(_PLACEHOLDER.sub("", text)).replace("’", "'")


def vocabulary(lib: Library, edition: str) -> Vocabulary:
    """The edition's vocabulary, once per open library: as the build kept it beside the library
    (for the newest edition of each language), else read from the edition now, in memory (some
    20 ms; a question never writes the library)."""
    from crlookup.library.database import kept

    def load() -> Vocabulary:
        found = kept(lib.path, VOCABULARY_DIR, edition)
        if isinstance(found, tuple) and len(found) == 2 and found[0] == VOCABULARY_VERSION:
            try:
                return Vocabulary(*found[1])
            except TypeError:
                pass
        return read_vocabulary(lib, edition)

    return lib.memo(("card vocabulary", edition), load)


def read_vocabulary(lib: Library, edition: str) -> Vocabulary:
    keywords = {
        name_form(name): ref
        for name, ref in lib.db.execute(
            "SELECT name, ref FROM names WHERE edition = ? AND kind = 'rule'", (edition,)
        )
    }
    entries = list(lib.glossary(edition))
    by_term = {g.term: g for g in entries}
    glossary: dict[str, Term] = {}
    by_name: dict[str, GlossaryEntry] = {}
    for g in entries:
        for name in {*g.headwords, g.term, g.english} - {""}:
            by_name.setdefault(name_form(name), g)
    for name, g in by_name.items():
        seen = g
        if g.see:  # "Swampwalk: See Landwalk."
            seen = by_term.get(g.see) or by_name.get(name_form(g.see)) or g
        targets = tuple(t for ref in (seen.refs or g.refs) for t in ref.targets)
        glossary[name] = Term(
            seen.term, seen.definition, targets, _senses(seen.definition, targets)
        )
    ability_rule = ""
    ability_words: frozenset[str] = frozenset()
    subtypes: dict[str, tuple[str, bool]] = {}
    subtype_rules: dict[str, str] = {}
    rows = lib.db.execute(
        "SELECT number, text FROM entries WHERE edition = ? AND kind = 'subrule' AND "
        "(text LIKE '%ability words are%' OR text LIKE '%types are%' OR text LIKE '%type is%' "
        "OR text LIKE '%types. One%')",
        (edition,),
    )
    for number, text in rows:
        m = _ABILITY_WORDS.search(text)
        if m and not ability_rule:
            ability_rule = number
            ability_words = frozenset(name_form(w) for w in _items(m.group(1)))
            continue
        for m in _TYPE_LIST.finditer(text):
            what = re.search(r"called (?:an? )?(\w+ types?)", text)
            subtype_rules[number] = what.group(1) if what else ""
            for item in _items(m.group(1)):
                cited = _SEE_RULE.search(item)
                name = name_form(_SEE_RULE.sub("", item))
                if name and name not in subtypes:
                    subtypes[name] = (
                        (cited.group(1).rstrip("."), True) if cited else (number, False)
                    )
    names = [*keywords, *glossary, *subtypes]
    longest = max((n.count(" ") + 1 for n in names), default=1)
    return Vocabulary(
        edition,
        keywords,
        glossary,
        ability_words,
        ability_rule,
        subtypes,
        subtype_rules,
        min(longest, MAX_TERM_WORDS),
    )


def _senses(definition: str, targets: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The numbered senses of a definition, each with the rules it cites, or with the
    entry's rules where it cites none ("See rule 406" after both senses of Exile)."""
    lines = definition.split("\n")
    numbered = [line for line in lines if _SENSE.match(line)]
    if len(numbered) < 2:
        return ()
    shared = " ".join(line for line in lines if not _SENSE.match(line))
    out = []
    for line in numbered:
        text = _SENSE.sub("", line)
        own = tuple(t for t in targets if re.search(rf"\b{re.escape(t)}\b", text))
        common = tuple(t for t in targets if re.search(rf"\b{re.escape(t)}\b", shared))
        out.append((text, own or common or targets))
    return tuple(out)


def _items(listing: str) -> list[str]:
    """The items of "a, b (see rule 301.5), and c"."""
    return [i.strip() for i in re.split(r",\s+(?:and\s+)?|\s+and\s+", listing) if i.strip()]


# --------------------------------------------------------------------------- linking


def links(lib: Library, edition: str, card: Card) -> list[Link]:
    """Every rule behind `card` in `edition`: its layout's, its keywords', ability and flavor
    words', types', then the terms' and symbols' of its text, each once, in that order."""
    vocab = vocabulary(lib, edition)
    found: list[tuple[str, str, str, Term | None]] = []  # kind, name, number, glossary entry
    layout = vocab.glossary.get(name_form(LAYOUTS.get(card.layout, "")))
    if layout is not None:
        found.append(("layout", card.layout, layout.targets[0] if layout.targets else "", layout))
    for keyword in _keywords(card):
        found.append(_keyword(vocab, keyword, card))
    for face in card.faces:
        for word in _types(face.type_line, vocab):
            found.append(_type(vocab, word))
    text = "\n".join(f.text for f in card.faces)
    names = {card.name, *(f.name for f in card.faces)}
    names |= {n.split(", ")[0] for n in names if ", " in n}
    found += _terms(vocab, text, names)
    out: list[Link] = []
    seen: set[tuple[str, str]] = set()
    abilities = {n for kind, name, n, _e in found if name in ABILITIES and n}
    for kind, name, number, entry in found:
        if kind == "term" and name not in SHAPES and number.split(".")[0] in abilities:
            continue  # a word's ("becomes", 603.2e: the trigger's 603 says it)
        link = _link(lib, vocab, kind, name, number, entry)
        key = (link.number, fold(link.title if link.number else link.name))
        if key not in seen:  # Reach the keyword and "reach" in its reminder text: once
            seen.add(key)
            out.append(link)
    return out


class CardRuling(NamedTuple):
    """One of a card's official rulings, with the rules it applies (numbers of the newest
    English edition, best first: crlookup.features.rulings)."""

    date: str  # "2018-03-16"
    text: str
    face: str  # the face it was given under ("Turn"), "" for the whole card
    rules: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "date": self.date,
            "text": self.text,
            "face": self.face or None,
            "rules": list(self.rules),
        }


@dataclass(frozen=True)
class CardLookup:
    """A card as `crlookup card` shows it: how its name was found (`found`: the card, or the
    candidates that fit as well) and, for one card, the rules of `edition` behind it and its
    rulings, newest first (None, with why in `rulings_unavailable`, when the library has
    none: its rulings file was missing or damaged; empty, with why in `rulings_unavailable`,
    when the card has none in the data, which stops in October 2018: `no_rulings`)."""

    found: Found
    edition: str | None
    links: tuple[Link, ...]
    rulings: tuple[CardRuling, ...] | None = ()
    rulings_unavailable: str | None = None

    @property
    def card(self) -> Card | None:
        return self.found.card

    def to_dict(self) -> dict:
        return {
            **self.found.to_dict(),
            "edition": self.edition,
            "card": self.card.to_dict() if self.card else None,
            "rules": [link.to_dict() for link in self.links],
            "rulings": None if self.rulings is None else [r.to_dict() for r in self.rulings],
            "rulings_unavailable": self.rulings_unavailable,
        }


def lookup(
    lib: Library, name: str, edition: str | None = None, lang: str | None = None
) -> CardLookup:
    """The card `name` finds (misspelt, partial or a face's name will do) with the rules of
    `edition` (else the newest of `lang`, else English) behind it; several cards that fit as
    well come back as candidates, without rules. `NotFound` (the nearest names) for none."""
    found = lib.cards().find(name)
    if found.how == "none":
        raise NotFound(
            _("no card named {name!r}").format(name=found.query), [c.name for c in found.candidates]
        )
    if found.card is None:
        return CardLookup(found, None, ())
    edition = lib.edition(edition, lang=lang).id
    unavailable = lib.cards().rulings_unavailable
    behind = tuple(links(lib, edition, found.card))
    given = None if unavailable else rulings(lib, found.card)
    if given == ():
        unavailable = no_rulings(lib, behind)
    return CardLookup(found, edition, behind, given, unavailable)


def no_rulings(lib: Library, behind: tuple[Link, ...]) -> str:
    """Why a card has no rulings in the library, which is not that it has none: the rulings
    stop in October 2018. The card is newer when a rule behind it (its layout's, a type's, by
    their glossary terms; a keyword's, by its name) was not in the Comprehensive Rules in force then
    (Bonecrusher Giant's "Adventurer Card"); the card data has no printings, so otherwise
    crlookup cannot tell."""
    from babel.dates import format_date

    from crlookup.core.i18n import language

    until = lib.cards().rulings_until() or ""
    try:
        day = date.fromisoformat(until)
        then = lib.edition(until).id
    except (ValueError, NotFound, EditionsPending):
        then = None
    when = format_date(day, "LLLL y", locale=language()) if then else until
    named = (
        link.glossary or (link.title if link.kind == "keyword" else "")
        for link in behind
        if link.kind in ("layout", "keyword", "type")
    )
    newer = next((n for n in named if then and n and not any(lib.named(then, fold(n)))), None)
    if newer:
        return _(
            "no rulings in crlookup's data (it stops in {when}; this card is newer: "
            "“{term}” came into the rules after that)"
        ).format(when=when, term=newer)
    return _(
        "no rulings in crlookup's data (it stops in {when}; crlookup cannot tell when this "
        "card was first printed: a card printed since has rulings it lacks)"
    ).format(when=when)


def rulings(lib: Library, card: Card) -> tuple[CardRuling, ...]:
    """The card's rulings (every face's), newest first, each with the rules it applies."""
    found = lib.cards().rulings(card)
    if not found:
        return ()
    from crlookup.features.rulings import rules_for  # the shipped links, read on first use

    return tuple(CardRuling(r.date, r.text, r.name, tuple(rules_for(lib, r.text))) for r in found)


def keyword_links(lib: Library, edition: str, card: Card) -> list[Link]:
    """The links of the card's keywords alone (what `links` gives after its layout's)."""
    vocab = vocabulary(lib, edition)
    return [_link(lib, vocab, *_keyword(vocab, k, card)) for k in _keywords(card)]


def _keywords(card: Card) -> list[str]:
    """The card's keywords in the order its text has them (the others after), each once:
    "Jump" of "Jump-start", "Hexproof" beside "Hexproof from" are one keyword; "Swampwalk"
    comes before the "Landwalk" the card data also lists for it."""
    text = fold(" ".join(f.text for f in card.faces))
    kept = [
        k
        for k in card.keywords
        if not any(other != k and other.startswith(k) for other in card.keywords)
    ]
    return sorted(kept, key=lambda k: (text.find(fold(k)) % (len(text) + 1), kept.index(k)))


def _keyword(vocab: Vocabulary, keyword: str, card: Card):
    """(kind, name, number, glossary entry) of one of the card's keywords."""
    name = name_form(keyword)
    tries = [name, f"{name} token", re.sub(r" (?:token|from|with)$", "", name)]
    for form in tries:
        if form in vocab.keywords:
            return "keyword", keyword, vocab.keywords[form], None
        entry = vocab.glossary.get(form)
        if entry is not None and entry.targets:
            return "keyword", keyword, entry.targets[0], entry
    for title, number in vocab.keywords.items():  # "wizardcycling", "legendary landwalk"
        if len(title) > 4 and name.endswith(title) and name != title:
            return "keyword", keyword, number, None
    for subtype in vocab.subtypes:  # "desertwalk": a land type's landwalk
        rest = name[len(subtype) :]
        if name.startswith(subtype) and len(rest) > 3 and f"land{rest}" in vocab.keywords:
            return "keyword", keyword, vocab.keywords[f"land{rest}"], None
    if name in vocab.ability_words or any(w.startswith(name + " ") for w in vocab.ability_words):
        return "ability word", keyword, vocab.ability_rule, None
    if name in DIGITAL_ONLY:
        return "keyword", keyword, "", None
    if any(name_form(m.group(1)) == name for f in card.faces for m in _FLAVOR.finditer(f.text)):
        entry = vocab.glossary.get("flavor word")
        return "flavor word", keyword, entry.targets[0] if entry and entry.targets else "", entry
    return "keyword", keyword, "", None


def _types(type_line: str, vocab: Vocabulary) -> list[str]:
    """The supertypes, card types and subtypes of a type line, as written ("Time Lord" and
    "Urza's" whole)."""
    before, _dash, after = type_line.partition("—")
    words = _WORD.findall(before)
    rest = _WORD.findall(after)
    i = 0
    while i < len(rest):
        for n in (3, 2, 1):
            phrase = " ".join(rest[i : i + n])
            if n == 1 or name_form(phrase) in vocab.subtypes:
                words.append(phrase)
                i += n
                break
    return words


def _type(vocab: Vocabulary, word: str):
    """A type's rule: the one the CR's list of its kind cites for it ("Aura (see rule
    303.4)"), else its glossary entry's, else that list's."""
    name = name_form(word)
    entry = vocab.glossary.get(name)
    listed, cited = vocab.subtypes.get(name, ("", False))
    if cited or (listed and not (entry and entry.targets)):
        return "type", word, listed, entry if cited else None
    if entry is not None and entry.targets:
        return "type", word, entry.targets[0], entry
    return "type", word, "", entry


def _terms(vocab: Vocabulary, text: str, own_names: set[str]):
    """(kind, name, number, entry) of the rules terms and symbols of a card's text, in order."""
    hits: list[tuple[int, str, str, str, Term | None]] = []
    for pattern, term, kind in PATTERNS:
        entry = vocab.glossary.get(name_form(term))
        if entry is None:
            continue
        target = (
            (entry.targets[-1] if term in ABILITIES else entry.targets[0]) if entry.targets else ""
        )
        for m in re.finditer(pattern, text):
            shown = m.group().strip() if kind == "symbol" else term
            hits.append((m.start(), kind, shown, target, entry))
    masked = text
    for name in sorted(own_names, key=len, reverse=True):
        masked = masked.replace(name, " " * len(name))
    words = [(m.start(), m.group()) for m in _WORD.finditer(masked)]
    folded = [name_form(w) for _at, w in words]
    i = 0
    while i < len(words):
        for n in range(min(vocab.longest, len(words) - i), 0, -1):
            verb = _verb(
                folded[i + n - 1],
                folded[max(0, i - 2) : i],
                folded[i + n] if i + n < len(folded) else "",
                masked[: words[i][0]],
            )
            match = _term(vocab, folded[i : i + n], verb)
            if match is not None:
                number, entry = match
                shown = masked[words[i][0] : words[i + n - 1][0] + len(words[i + n - 1][1])]
                hits.append((words[i][0], "term", shown, number, entry))
                i += n
                break
        else:
            i += 1
    for _at, kind, shown, number, entry in sorted(hits, key=lambda h: h[0]):
        yield kind, shown, number, entry


def _verb(word: str, before: list[str], after: str, text_before: str) -> bool | None:
    """Whether a word of two senses is a verb ("Counter target spell", "you exile", "the
    exiled card"), a noun ("a lore counter", "from exile", "counters on it") or either (None),
    from its form and the words around it."""
    last = before[-1] if before else ""
    if word.endswith(("ed", "ing")):
        return True
    if not text_before.strip() or text_before.rstrip()[-1] in ".:,;\n•—":
        return True  # a clause starts with its verb: "[+1]: Draw a card", ", exile one of them"
    if last in NOUN_CUES or last == "a" or last.isdigit():
        return False
    if last in VERB_CUES:
        return True
    if after in _VERB_NEXT:
        return True
    if after in _NOUN_NEXT or any(w in NOUN_CUES or w == "a" or w.isdigit() for w in before):
        return False
    return None


def _term(vocab: Vocabulary, words: list[str], verb: bool | None = None):
    """(number, entry) of the keyword or glossary term these words name in some form; of a
    keyword action with a thing of its name (Counter, Counters; Exile, the zone), the verb's
    or the noun's."""
    forms = [sorted(bases(w), key=lambda b: (b != w, -len(b))) for w in words]
    if len(words) > 1 and any(len(f) > 1 for f in forms[:-1]):
        forms = [[w] for w in words[:-1]] + [forms[-1]]  # inflect only the last of several
    for combination in product(*forms):
        name = " ".join(combination)
        if name in _TOO_COMMON:
            return None
        entry = vocab.glossary.get(name)
        if entry is not None and name not in vocab.keywords and name_form(entry.term) in VOCABULARY:
            return None
        if name in vocab.keywords and (verb is not False or entry is None or not entry.senses):
            return vocab.keywords[name], entry and entry._replace(senses=(entry.sense(True),))
        if entry is not None:
            text, targets = entry.sense(verb)
            return (targets[0] if targets else ""), entry._replace(senses=((text, targets),))
    return None


def _link(
    lib: Library, vocab: Vocabulary, kind: str, name: str, number: str, entry: Term | None
) -> Link:
    if kind == "type" and entry is None and vocab.subtype_rules.get(number):
        return Link(kind, name, number, name, vocab.subtype_rules[number])  # "creature types"
    rule = lib.get(vocab.edition, number) if number else None
    if rule is not None and (entry is None or kind in ("keyword", "ability word")):
        title = rule.title or (entry.term if entry else "") or name
        return Link(
            kind, name, number, title, gist(lib, vocab.edition, rule), entry.term if entry else ""
        )
    if entry is not None:
        text, _targets = entry.sense(None)
        definition = _SEE.sub("", text).strip() or text
        return Link(kind, name, number, entry.term, first_sentences(definition), entry.term)
    if rule is not None:  # a subtype from a list that says not what it lists
        return Link(kind, name, number, name, gist(lib, vocab.edition, rule))
    return Link(kind, name, "", name, "")


def gist(lib: Library, edition: str, rule) -> str:
    """A rule's first sentence; for a keyword's rule (a title alone) its first subrule's,
    with the next sentence too when the first only classifies it ("Reach is a static
    ability.")."""
    entries = [rule] if rule.text and rule.text != rule.title else []
    if not entries or rule.kind in ("rule", "section"):
        entries += lib.subtree(edition, rule.number)[:3]
    return _lead(
        [
            s
            for r in entries
            if r.text and r.text != r.title
            for s in _SENTENCE_END.split(r.text.split("\n")[0])
        ]
    )


def first_sentences(text: str) -> str:
    """The first sentence of `text`, and the second if the first is a short one."""
    return _lead(_SENTENCE_END.split(" ".join(text.split())))


def _lead(sentences: list[str], short: int = 50) -> str:
    """The first of the sentences, and the next too if the first is shorter than `short`."""
    if not sentences:
        return ""
    return " ".join(sentences[:2]) if len(sentences[0]) < short else sentences[0]


def unlinked(lib: Library, edition: str, card: Card) -> list[str]:
    """The card's keywords that link to no rule of the edition (digital-only ones included)."""
    return [link.name for link in keyword_links(lib, edition, card) if not link.number]
