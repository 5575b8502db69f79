"""Rules questions: read a question for the game's own terms, find the rules that decide it, say why.

A question is read against one edition (the newest of the question's language unless told
otherwise) through that edition's *lexicon*, built with the library (or on first use, for an
older edition) from its rules and glossary:

- the **terms** the edition names: keyword abilities and actions (701.x/702.x titles), section
  titles (card types, zones, steps and phases, "Life", "Counters"...; a step also without the
  word "step": "upkeep") and glossary headwords (in a translation, their English names too);
  each with the entries that define it (its rule and subrules, or what its glossary entry
  cites), its glossary definition, and the entries whose text names it;
- every entry's stemmed words, with its rule's title and text and its section's title as
  context, as BM25 postings; which entries cite which; keyword boilerplate ("Multiple
  instances of X are redundant"), found as text that three or more keywords share.

Reading a question: a rule written by number ("702.19b") names that rule; words are case-folded
and stemmed with the index's stemmers (so "blocking", "blocked" and "blocks" are one word),
misspelled words are read as the nearest word the edition uses (crlookup.spelling; not a
card's name, capitalised inside a sentence), number words also look for digits, question
boilerplate ("what happens if", "can I") and stop words are dropped, and players' phrases are
read as the rules' words for them (crlookup/thesaurus/<lang>.txt: "blink", "summoning sick",
"cast ... this turn"). Then every term the question names is recognised, longest first
("first strike" before "strike"); of two terms with one name, a keyword action and a thing
("counter", "exile"), the word's form and the word before it choose ("countered", "you exile";
"counters", "from exile").

The cards a question names are read too, with the library's cards (crlookup.cards; "Can my
Giant Spider block his Serra Angel?" turns on reach and flying): each card's layout and keywords
join the question's terms as strongly as terms it names itself, its types and the rules terms of
its text (crlookup.card_rules) less, its Oracle words as words worth CARD_WORDS; a card's
evidence counts only for entries the question's own words and terms reach, and its reasons
name the card ("Giant Spider (card): reach → 702.17b").

Ranking combines evidence, each piece kept as a reason shown to the user: BM25 over the words
(times how much of the question an entry covers), the entries defining a recognised term
(weighted by how rarely the rules name it), entries naming a term with its words in order, the
rules the defining entries cite (one reference followed), two question words side by side, how
often other rules cite an entry, and how often answers to real players' questions cite it, above
all for questions with the same words (crlookup/citations/: 400.7 and 601.2b decide many
questions, answers about "X" cite 107.3; a Russian question's words are those of the English
names of the terms it names); multiplayer and variant rules, and keyword boilerplate, count less
unless asked about. Bare headings ("702.19. Trample") are never answers; their subrules are, and
a further subrule of a rule already shown counts a little less than one of another.
The weights were set on tests/data/ask_dev.jsonl and checked on the other sets
(scripts/eval_ask.py).
"""

from __future__ import annotations

import itertools
import math
import os
import re
from array import array
from typing import NamedTuple

from crlookup import refs
from crlookup.i18n import N_, _, ngettext
from crlookup.library import KEYWORD_SECTIONS, CardsUnavailable, Library, keep, kept
from crlookup.model import Rule, fold
from crlookup.numbers import WRITTEN, read_lookalikes, ref_label, rule_of
from crlookup.words import NOUN_CUES, VERB_CUES, bases

LANGS = ("en", "ru")  # the languages questions are read in
LEXICON_DIR = "ask"  # beside the database: <library>/ask/<edition>.pickle
LEXICON_VERSION = 16
MAX_WORDS = 200

# how much each part of an entry counts when a question word occurs in it
TEXT, EXAMPLE, RULE_TITLE, SECTION_TITLE, RULE_TEXT = 1.0, 0.3, 0.6, 0.25, 0.2
VARIANT = 0.6  # multiplayer and casual-variant rules (chapters 8, 9) unless the question names one
K1, B = 1.2, 0.75  # BM25
HOME, MENTION, CITED = 1.0, 0.8, 0.5  # evidence from the terms recognised (times the term's weight)
KEYWORD = 1.0  # a keyword ability or action is defined by its own rule: worth more than rarity
PHRASE = 0.5  # two question words next to each other in the entry too (times their mean idf)
CITED_PRIOR = 0.5  # rules many others cite are central (times log(1 + how many cite it))
# rules judges' answers cite often decide many questions (times log(1 + answers citing it, and
# PARENT_SHARE of those citing its rule)); the more so if they cite it for questions with one of
# the question's words (times the log lift); in numbering from the July 2009 renumbering on
JUDGED, ASKED, PARENT_SHARE, JUDGED_FROM = 1.0, 0.25, 0.5, "2009-07-11"
ASKED_SHOWN = 3  # the words whose questions cite a rule most, in its reasons
TEMPLATE, TEMPLATE_SHARED = 0.6, 3  # keyword boilerplate said of 3 or more keywords
SAME_RULE = 0.9  # each further answer under the same rule, in the order shown
SHORTLIST = 300  # entries re-scored for phrases
GLOSSARY, SECTION = 0.6, 1.0  # a glossary term's or a section's entries, against a keyword's
MEANING = 0.15  # a word of a recognised term's glossary definition
NUMBER = 0.5  # a number written as a word ("one turn" is seldom about the number 1)
EXPANSION = 0.7  # a rules' word read for a player's phrase, against 1 for a word of the question
MAX_TERM_WORDS = 4
# a card the question names (crlookup.cards): the rules behind it (crlookup.card_rules) join the
# question's terms, each kind weighted against a term the question names itself (1.0): its
# keywords, its card types, the rules terms and symbols of its text; and its text's words
CARD_LINKS = {"layout": 1.0, "keyword": 1.0, "type": 0.2, "term": 0.5, "symbol": 0.5}
CARD_WORDS = 0.3  # a word of a named card's Oracle text, against 1 for a word of the question
GAP, MAX_GAP = "...", 4  # "cast ... this turn" in the thesaurus: up to 4 words between
SIGNED = "+N"  # in the thesaurus: a signed number, as players name loyalty abilities ("I +1'd
# Teferi", "his -3"); not one of power, toughness, life or a cost ("-3 toughness", "go to -1",
# "+1/+1"): not after NOT_LOYALTY's words, nor before a word starting as its stems do
_SIGNED = re.compile(r"(?<![\w/+\-−–*])[+\-−–]\d+(?:['’]?(?:d|ed)\b)?"  # "+1", "−3", "+1'd"
                     r"(?!\s*/|\s*[+\-−–]?\d|[\w%]|[.,]\d)")  # not "+1/+1", "+13+13", "+1.5"
NOT_LOYALTY = {
    "en": ({"to", "at", "gets", "get", "got", "gain", "gains", "gained", "give", "gives", "gave",
            "with", "by", "is", "are", "be", "was", "of", "than", "go", "goes", "went"},
           ("toughness", "power", "life", "mana", "damage", "card", "cost", "counter", "token",
            "creature")),
    "ru": ({"до", "на", "получает", "получил", "получило", "дает", "даёт", "с", "от"},
           ("выносл", "сил", "жизн", "ман", "урон", "карт", "стоим", "жетон", "фишк", "существ")),
}
# steps, phases and variants are named without these words too ("upkeep", "Two-Headed Giant")
GENERIC_WORDS = {"en": ("step", "phase", "variant", "variants"), "ru": ("шаг", "фаза", "вариант")}
ALIAS_MENTIONS = 60  # "upkeep" names the upkeep step; "end" (of "End Step") names too much

_SEE = re.compile(r"(See|Смотрите|Zobacz)\b.*", re.DOTALL)  # "See rule 702.2." ends a definition
_TOKEN = re.compile(r"\d+|[^\W\d_]+")
_NAME = re.compile(r"(?<![\w'’-])[^\W\d_a-zа-яё][^\W\d_]+")  # a capitalised word
_NAME_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_START = {"", ".", "?", "!", ":", "\"", "“", "«", "(", "'", "‘", "—", "–", "-"}
_CHAPTER_KIND = {
    "1": N_("game concept"), "2": N_("part of a card"), "3": N_("card type"), "4": N_("zone"),
    "5": N_("turn structure"), "6": N_("spells and abilities"), "7": N_("additional rule"),
    "8": N_("multiplayer rule"), "9": N_("casual variant"),
}
_KIND = {"701": N_("keyword action"), "702": N_("keyword ability"), "glossary": N_("glossary term")}

NUMBER_WORDS = {
    "en": {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
           "seven": "7", "eight": "8", "nine": "9", "ten": "10", "twenty": "20"},
    "ru": {"ноль": "0", "нуль": "0", "один": "1", "одна": "1", "одно": "1", "два": "2", "две": "2",
           "три": "3", "четыре": "4", "пять": "5", "шесть": "6", "семь": "7", "восемь": "8",
           "девять": "9", "десять": "10", "двадцать": "20"},
}

# Words a question is phrased with rather than about (added to each language's stop words).
BOILERPLATE = {
    "en": """happen happens happened happening work works working would could should get gets
        got still really actually exactly possible allowed also ok okay mtg magic rule rules
        question anyone someone know way something thing things like want wanted need say says
        said go goes going let lets does doing did whether mean means correct right wrong
        just even though since either yes able situation case thanks please hi hello
        understand explain may yet us isn doesn didn don won aren wasn weren hasn haven
        couldn wouldn shouldn""".split(),  # noqa: SIM905 (a list of words reads better so)
    "ru": """происходит произойдет произойдёт будет случится случается правило правила правилам
        правилу могу может можно ли работает работают вопрос подскажите пожалуйста скажите
        просто вообще это этот эта эти этим всё все что если как когда такое такой ситуация
        ситуации значит верно правильно ведь разве нужно надо должен должна должны""".split(),  # noqa: SIM905
}
# Stop words that decide rules questions ("before", "each", "no") are kept.
KEEP = {"en": {"before", "after", "during", "until", "each", "all", "no", "not", "only", "same",
               "other", "up", "down", "out", "under", "more", "than", "own", "against", "between",
               "into", "off", "once", "few", "most", "both", "any"},
        "ru": {"перед", "после", "до", "без", "не", "нет", "больше", "более", "другой", "один",
               "два", "три", "каждый"}}


class Analyzer:
    """Words of a text as the lexicon matches them: folded, stemmed, stop words marked."""

    def __init__(self, lang: str):
        self.lang = lang if lang in NUMBER_WORDS else "en"
        if self.lang == "ru":
            from crlookup.index import whoosh_compat

            whoosh_compat()  # the Snowball stemmers import it: without urllib, as for the index
            from whoosh.lang.snowball.russian import RussianStemmer

            self._stem = RussianStemmer().stem
        else:
            from whoosh.lang.porter2 import stem

            self._stem = stem
        self._cache: dict[str, str] = {}
        self.stop = _stop_words(self.lang)

    def stem(self, word: str) -> str:
        s = self._cache.get(word)
        if s is None:
            s = self._cache[word] = self._stem(word) if not word.isdigit() else word
        return s

    def words(self, text: str) -> list[str]:
        """The folded words of `text` (digits kept; single letters other than x dropped)."""
        return [w for w in _TOKEN.findall(fold(text)) if len(w) > 1 or w.isdigit() or w == "x"]

    def names(self, text: str) -> set[str]:
        """The folded words `text` writes capitalised inside a sentence ("Can I Vindicate the
        emblem?", "my Viscera Seer"): names of cards, most likely, never typos of rules words."""
        return {
            fold(m.group()) for m in _NAME.finditer(text)
            if not m.group().isupper() and text[: m.start()].rstrip()[-1:] not in _SENTENCE_START
        }

    def inflected(self, words: list[str], others: list[str], ing: bool = False) -> bool:
        """Whether two names (their folded words) are one name inflected, word by word
        ("counters"/"counter", "tapped"/"tap", "abilities"/"ability"), not one derived from the
        other ("commander"/"command", "phasing"/"phase"; with `ing`, a player's "floated" is
        their "floating"); stop words aside. Russian: always."""
        if self.lang != "en":
            return True
        words = [w for w in words if w not in self.stop]
        others = [w for w in others if w not in self.stop]
        return len(words) == len(others) and all(
            bases(a, ing) & bases(b, ing) for a, b in zip(words, others)
        )

    def verb(self, word: str, before: str) -> bool | None:
        """Whether `word` (after the word `before`) is a verb ("countered", "can exile"), a
        noun ("counters", "in exile", "a +1/+1 counter"), or either (None). English only."""
        if self.lang != "en":
            return None
        if word.endswith(("ed", "ing")) or before in VERB_CUES:
            return True
        if before in NOUN_CUES or before.isdigit() or word.endswith("s") and not word.endswith("ss"):
            return False
        return None

    def stems(self, text: str) -> list[str]:
        """The stems of `text` that count, in order (stop words left out)."""
        return [self.stem(w) for w in self.words(text) if w not in self.stop]


def _references(an: Analyzer, text: str) -> tuple[list[str], int]:
    """The words of `text` but for the numbers of the rules it cites ("see rule 117.9": "9
    cards" is not about that), and how many words those numbers made (they still make it
    longer to read)."""
    kept = an.words(refs.blank(text))
    return kept, len(an.words(text)) - len(kept)


def _stop_words(lang: str) -> frozenset[str]:
    """The language's stop words (whoosh's lists), less KEEP, plus BOILERPLATE."""
    from whoosh.lang import stopwords_for_language

    words = set(stopwords_for_language("russian" if lang == "ru" else "english"))
    words = (words - KEEP[lang]) | set(BOILERPLATE[lang])
    return frozenset(fold(w).replace("'", "").replace("’", "") for w in words) | {"s", "t"}


# --------------------------------------------------------------------------- the lexicon


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

    def __init__(self, data: dict):
        self.__dict__.update(data)
        self._analyzer: Analyzer | None = None
        self._phrasebook: dict | None = None
        self._citations: Cited | None = None
        self._term_numbers: dict[str, int] | None = None

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

    def data(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


def build_lexicon(lib: Library, edition: str) -> Lexicon:
    """Read every entry and glossary term of `edition` into a lexicon."""
    lang = lib.edition(edition).lang
    an = Analyzer(lang)
    entries = list(lib.entries(edition))
    numbers = [r.number for r in entries]
    position = {n: i for i, n in enumerate(numbers)}
    kinds = [r.kind for r in entries]
    titles: dict[str, str] = {r.number: r.title for r in entries if r.title}

    # the entries a number covers: itself and its subtree, contiguous in document order
    depth = {"chapter": 0, "section": 1, "rule": 2, "subrule": 3}
    ends = [len(entries)] * len(entries)
    stack: list[int] = []
    for i, r in enumerate(entries):
        while stack and depth[kinds[stack[-1]]] >= depth[r.kind]:
            ends[stack.pop()] = i
        stack.append(i)

    answerable = [
        r.kind in ("rule", "subrule") and bool(r.text) and r.text != r.title for r in entries
    ]
    sequences: list[list[str]] = []
    referring: list[int] = []  # how many words of each entry's text are rule numbers it cites
    postings: dict[str, dict[int, float]] = {}
    lengths = array("f")
    vocab: dict[str, int] = {}
    parents = array("i")
    for i, r in enumerate(entries):
        head = r.number.split(".")[0]
        rule = rule_of(r.number) if r.kind == "subrule" else ""
        parents.append(position.get(rule, -1))
        text_words, text_refs = _references(an, r.text)
        example_words, example_refs = _references(an, " ".join(r.examples))
        referring.append(text_refs)
        for w in (*an.words(r.title), *text_words, *example_words):
            vocab[w] = vocab.get(w, 0) + 1
        seq = [an.stem(w) for w in text_words if w not in an.stop]
        sequences.append(seq)
        if not answerable[i]:
            lengths.append(0.0)
            continue
        weights: dict[str, float] = {}
        examples = [an.stem(w) for w in example_words if w not in an.stop]
        parts = [(seq, TEXT), (examples, EXAMPLE),
                 (an.stems(titles.get(rule, "")), RULE_TITLE),
                 (sequences[position[rule]] if rule in position and not titles.get(rule) else [], RULE_TEXT),
                 (an.stems(titles.get(head, "")), SECTION_TITLE)]
        for stems, weight in parts:
            for s in stems:
                weights[s] = weights.get(s, 0.0) + weight
        parent_refs = referring[position[rule]] if rule in position and not titles.get(rule) else 0
        lengths.append(sum(weights.values()) + TEXT * text_refs + EXAMPLE * example_refs
                       + RULE_TEXT * parent_refs)
        for s, w in weights.items():
            postings.setdefault(s, {})[i] = w
    for g in lib.glossary(edition):
        for w in an.words(g.term):
            vocab[w] = vocab.get(w, 0) + 1

    # terms: keyword titles, other titled rules, section titles, glossary headwords; names
    # with the same stems are one term when they are one word inflected ("Counters",
    # "Counter"), two when one is derived from the other ("Command", "Commander")
    found: dict[tuple, dict] = {}  # (stems, words, a keyword action?) -> term
    families: dict[tuple, list[tuple]] = {}  # stems -> the keys of found with them

    english_analyzer = Analyzer("en") if lang != "en" else None

    def add(name: str, kind: str, number: str, targets: list[str], meaning: str = "",
            english: str = "") -> None:
        stems = tuple(an.stems(name))[:MAX_TERM_WORDS]
        homes = [(position[t], ends[position[t]]) for t in targets if t in position]
        if not stems or not homes and kind != "glossary":
            return
        words = an.words(name)
        keys = families.setdefault(stems, [])
        fits = [key for key in keys if kind == "glossary" or key[2] == (kind == "701")]
        key = next(  # the same words; else the same name inflected; a keyword action apart
            (key for key in fits if key[1] == tuple(words)),
            next((key for key in fits if an.inflected(words, key[1])),
                 (stems, tuple(words), kind == "701")),
        )
        if key not in keys:
            keys.append(key)
        term = found.setdefault(
            key, {"name": name, "kind": kind, "number": number, "homes": [], "meaning": (),
                  "names": []}
        )
        if fold(name) not in term["names"]:
            term["names"].append(fold(name))
        if english and english_analyzer and not term.get("english"):
            term["english"] = english
        if meaning and not term["meaning"]:  # the glossary's words for it
            term["meaning"] = tuple(dict.fromkeys(
                s for s in an.stems(_SEE.sub("", meaning)) if not s.isdigit() and s not in stems
            ))
        if term["kind"] == "glossary" and kind != "glossary":  # the rule names it better
            term.update(name=name, kind=kind, number=number)
        term["homes"] += [h for h in homes if h not in term["homes"]]

    for r in entries:
        head = r.number.split(".")[0]
        if r.kind == "rule" and r.title:
            add(r.title, head if head in KEYWORD_SECTIONS[:2] else head[:1], r.number, [r.number])
        elif r.kind == "section" and r.title and not r.number.endswith("00"):
            add(r.title, head[:1], r.number, [r.number])
    for g in lib.glossary(edition):
        targets = [t for ref in g.refs for t in ref.targets]
        number = targets[0] if targets else ""
        for name in g.headwords or (g.term,):
            add(name, "glossary", number, targets, g.definition, g.english)
        if g.english and lang != "en":  # players name keywords in English too ("trample")
            add(g.english, "glossary", number, targets, g.definition, g.english)

    # steps, phases and variants are also named without that word ("upkeep", "cleanup",
    # "Two-Headed Giant"), where what is left names little else
    generic = {an.stem(w) for w in GENERIC_WORDS.get(lang, ())}
    taken = {key[0] for key in found}
    for (stems, words, action), t in list(found.items()):
        short = tuple(s for s in stems if s not in generic)
        if t["kind"] in "589" and short and short != stems and short not in taken:
            found[(short, words, action)] = {**t, "alias": True}

    def indexed(keys) -> dict[tuple[str, ...], tuple[int, ...]]:
        index: dict[tuple[str, ...], tuple[int, ...]] = {}
        for k, (stems, _words, _action) in enumerate(keys):
            index[stems] = (*index.get(stems, ()), k)
        return index

    index = indexed(found)
    mentions: list[set[int]] = [set() for _ in found]
    for i, seq in enumerate(sequences):
        if not answerable[i]:
            continue
        for n in range(1, MAX_TERM_WORDS + 1):
            for j in range(len(seq) - n + 1):
                for k in index.get(tuple(seq[j : j + n]), ()):
                    mentions[k].add(i)
    kept = [k for k, t in enumerate(found.values())
            if not t.get("alias") or len(mentions[k]) <= ALIAS_MENTIONS]
    keep = set(kept)
    found = {key: t for k, (key, t) in enumerate(found.items()) if k in keep}
    mentions = [mentions[k] for k in kept]
    index = indexed(found)
    terms = [
        Term(t["name"], t["kind"], t["number"], stems, tuple(t["homes"]), len(mentions[k]),
             tuple(t["names"]), t.get("english", ""),
             tuple(english_analyzer.stems(t["english"])) if t.get("english") else ())
        for k, ((stems, _words, _action), t) in enumerate(found.items())
    ]
    # keyword boilerplate: a subrule that says of its keyword what others say of theirs
    # ("Multiple instances of flanking are redundant", "The wither rules function no matter
    # what zone ...") rarely decides a question
    shapes: dict[str, list[int]] = {}
    for i, r in enumerate(entries):
        rule = rule_of(r.number)
        name = titles.get(rule, "") if r.kind == "subrule" else ""
        if name and rule.split(".")[0] in KEYWORD_SECTIONS[:2]:
            shape = re.sub(re.escape(name), "X", fold(r.text), flags=re.IGNORECASE)
            shapes.setdefault(shape, []).append(i)
    template = array("b", [0] * len(entries))
    for same in shapes.values():
        if len(same) >= TEMPLATE_SHARED:
            for i in same:
                template[i] = 1
    cites = [
        tuple(sorted({position[t] for ref in r.refs for t in ref.targets if t in position}))
        for r in entries
    ]
    cited_by = array("H", [0] * len(entries))
    for targets in cites:
        for t in targets:
            cited_by[t] += 1
    packed = {
        s: (array("H", list(docs)), array("f", list(docs.values())))
        for s, docs in postings.items()
    }
    n = sum(answerable)
    return Lexicon({
        "version": LEXICON_VERSION, "edition": edition, "lang": lang, "numbers": numbers,
        "kinds": kinds, "titles": titles, "parents": parents, "lengths": lengths,
        "average": sum(lengths) / max(n, 1), "count": n, "postings": packed, "vocab": vocab,
        "terms": terms, "term_index": index, "cites": cites,
        "meanings": [t.get("meaning", ()) for t in found.values()],
        "template": template,
        "mention_sets": [array("H", sorted(m)) for m in mentions],
        "sequences": [" " + " ".join(seq) + " " if answerable[i] else "" for i, seq in enumerate(sequences)],
        "cited_by": cited_by,
        "phrases": (_thesaurus_stamp(lang), thesaurus(an)),
    })


def lexicon(lib: Library, edition: str) -> Lexicon:
    """The edition's lexicon: saved with the library when it was built, else built now and kept."""
    data = kept(lib.path, LEXICON_DIR, edition)
    if isinstance(data, dict) and data.get("version") == LEXICON_VERSION:
        return Lexicon(data)
    lex = build_lexicon(lib, edition)
    save_lexicon(lex, lib.path)
    return lex


def save_lexicon(lex: Lexicon, library_path: str) -> None:
    """Keep the lexicon beside the library (crlookup.library.keep)."""
    keep(library_path, LEXICON_DIR, lex.edition, lex.data())


def build_lexicons(library_path: str, editions: list[str]) -> None:
    """Build and save the lexicons of `editions` (while the library is being built), and the
    vocabularies that cards are linked to their rules with (crlookup.card_rules)."""
    from crlookup import card_rules
    from crlookup.store import _connect

    lib = Library(library_path, _connect(library_path))
    try:
        for edition in editions:
            save_lexicon(build_lexicon(lib, edition), lib.path)
            card_rules.save_vocabulary(lib, edition)
    finally:
        lib.close()


# --------------------------------------------------------------------------- reading a question


class Cited(NamedTuple):
    """What answers to real players' rules questions cite (crlookup/citations/, made by
    scripts/count_citations.py)."""

    counts: dict[str, int]  # rule number -> answers citing it
    words: dict[str, dict[str, float]]  # question stem -> rules cited unusually often -> log lift


_CITED: list[Cited] = []  # read once


def citations() -> Cited:
    """What answers cite, read once. The questions counted are English, so `words` are English
    stems: a question in another language reaches them through the English names of the
    terms it names ("защитник" is Defender)."""
    if not _CITED:
        counts = {number: int(n) for number, n in _citation_rows("rules.txt")}
        words = {stem: {r: float(v) for r, _, v in (p.partition(":") for p in rest)}
                 for stem, *rest in _citation_rows("en.txt")}
        _CITED.append(Cited(counts, words))
    return _CITED[0]


def _citation_rows(name: str) -> list[list[str]]:
    """The rows of crlookup/citations/<name>, split on spaces, its # header left out (none if
    the file is missing)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "citations", name)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


class Word(NamedTuple):
    typed: str  # as written in the question (folded); for a player's phrase, the phrase
    read: str  # the word searched for (a correction, the typed word, or the rules' word)
    stem: str
    weight: float = 1.0  # the rules' words a player's phrase stands for count less
    said: str = ""  # for the rules' words read for a player's phrase: that phrase
    card: str = ""  # for a word of the Oracle text of a card the question names: its name


def thesaurus(an: Analyzer) -> dict[tuple[str, ...], tuple]:
    """Players' phrases ("blink", "summoning sick") and the rules' words for them.

    Read from crlookup/thesaurus/<lang>.txt: one line each, alternatives separated by "|",
    then "=" and the words the Comprehensive Rules use. Keys are the phrases' stems; values
    are (the rules' words, their words, their stems, the phrases' own words: a question's words
    must be these, inflected, not others with their stems).
    """
    out = {}
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
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "thesaurus", lang + ".txt")


def _thesaurus_stamp(lang: str) -> str:
    """What the thesaurus file holds, in short ("" if there is none)."""
    import hashlib

    try:
        with open(_thesaurus_path(lang), "rb") as f:
            return hashlib.sha1(f.read()).hexdigest()
    except OSError:
        return ""


def _phrase_at(key: tuple[str, ...], stems: list[str], j: int) -> list[int] | None:
    """Where the words of the phrase `key` that starts at `j` are (a GAP skips up to MAX_GAP
    words, which are not the phrase's)."""
    parts: list[list[str]] = [[]]
    for s in key:
        if s == GAP:
            parts.append([])
        else:
            parts[-1].append(s)
    at, where = j, []
    for k, part in enumerate(parts):
        starts = [at] if k == 0 else range(at, min(at + MAX_GAP, len(stems)) + 1)
        at = next((x for x in starts if stems[x : x + len(part)] == part), None)
        if at is None:
            return None
        where += range(at, at + len(part))
        at += len(part)
    return where


def _loyalty(an: Analyzer, text: str) -> dict[tuple[int, ...], str]:
    """The signed numbers of `text` that name loyalty abilities ("I +1'd Teferi", "his -3"):
    where their words are among `an.words(text)`, and each as written."""
    before_words, after_stems = NOT_LOYALTY[an.lang]
    out = {}
    for m in _SIGNED.finditer(text):
        before = an.words(text[: m.start()])
        after = an.words(text[m.end() :])
        if (text[: m.start()].rstrip().endswith("/")  # "+2 / +2"
                or before[-1:] and before[-1] in before_words
                or after[:1] and after[0].startswith(after_stems)):
            continue
        at = len(before)
        out[tuple(range(at, at + len(an.words(m.group()))))] = m.group()
    return out


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
    # the terms the named cards bring: (term, the card's name, its word for it, how much it counts)
    card_terms: tuple[tuple[int, str, str, float], ...] = ()

    @property
    def corrections(self) -> list[tuple[str, str]]:
        return [(w.typed, w.read) for w in self.words
                if w.typed != w.read and not w.read.isdigit() and not w.said and not w.card]


class QuestionError(ValueError):
    """A question that cannot be read (the message says why, in one line)."""


def detect_lang(text: str) -> str:
    """The question's language from its script: Cyrillic is Russian, anything else English."""
    return "ru" if re.search(r"[\u0400-\u04ff]", text) else "en"


def understand(lex: Lexicon, text: str, lib: Library | None = None) -> Question:
    """Read `text` against the lexicon: words, corrections, numbers and recognised terms; with
    the library, the cards it names too (if the library has cards)."""
    an = lex.analyzer
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    if not text:
        raise QuestionError(_("the question is empty"))
    if len(text.split()) > MAX_WORDS:
        raise QuestionError(_("a question of at most {count} words, please").format(count=MAX_WORDS))
    # a rule or subrule written by number is named, not searched for; its digits are no words
    latin = read_lookalikes(text)
    written = [n for n in WRITTEN.findall(latin) if "." in n]
    rules = tuple(n for n in dict.fromkeys(written) if n in lex.numbers)
    words_text = (  # the text read for words
        WRITTEN.sub(lambda m: " " if "." in m.group(1) else m.group(), latin) if written else text
    )
    named_cards = _named_cards(lex, lib, words_text) if lib is not None else []
    for mention, _cards in named_cards:  # a card's name is no question words but the rules'
        kept = _NAME_WORD.sub(  # ("Clone", "Fog": the card and what it does)
            lambda m: m.group() if fold(m.group()) in lex.vocab else " " * len(m.group()),
            mention.typed)
        words_text = words_text[: mention.start] + kept + words_text[mention.end :]
    numbers_ = NUMBER_WORDS[an.lang]
    phrasebook = lex.phrasebook
    slang = {w for key in phrasebook for w in key}
    tokens: list[Word] = []  # every word, stop words included (players' phrases have them)
    digits: list[Word] = []  # "three" is also looked for as "3" ("Two-Headed Giant" stays)
    names = an.names(words_text)
    for typed in an.words(words_text):
        read = typed
        if typed in numbers_:
            digits.append(Word(typed, numbers_[typed], numbers_[typed], NUMBER))
        elif (typed not in an.stop and not typed.isdigit() and len(typed) >= 4
              and typed not in names and not _known(lex, typed) and an.stem(typed) not in slang):
            read = _nearest(lex, typed) or typed
        tokens.append(Word(typed, read, an.stem(read)))
    signed = phrasebook.get((SIGNED,))
    loyalty = _loyalty(an, words_text) if signed else {}
    taken_by_sign = {p for at in loyalty for p in at}  # "+1'd" is no number 1
    kept = [p for p, w in enumerate(tokens)
            if w.typed not in an.stop and w.read not in an.stop and p not in taken_by_sign]
    words = [tokens[p] for p in kept]
    sequences = [(words, kept)]  # the question's words, then the rules' words for each phrase
    phrases: list[tuple[int, str, str]] = []
    stems = [w.stem for w in tokens]
    taken = [False] * len(stems)
    # players' phrases, longest first, a phrase with a gap as long as it reaches ("cast ...
    # this turn"); the words in its gap are not its own: "cast Llanowar Elves this turn" names
    # the card too. A phrase is its own words, inflected, not others with their stems
    # ("unblocked" is not "unblockable", "activated" not "active")
    gapped = [(key, meant) for key, meant in phrasebook.items() if GAP in key]
    found: list[tuple[list[int], tuple]] = []
    for j in range(len(stems)):
        for n in range(min(6, len(stems) - j), 0, -1):
            meant = phrasebook.get(tuple(stems[j : j + n]))
            if meant is not None and any(
                    an.inflected([w.read for w in tokens[j : j + n]], list(form), ing=True)
                    for form in meant[3]):
                found.append((list(range(j, j + n)), meant))
        found += [(at, meant) for key, meant in gapped
                  if key[0] == stems[j] and (at := _phrase_at(key, stems, j)) is not None]
    found += [(list(at), signed) for at in loyalty]
    for at, meant in sorted(found, key=lambda f: (f[0][0] - f[0][-1], f[0][0])):
        if any(taken[p] for p in at):
            continue
        for p in at:
            taken[p] = True
        j = at[0]
        said = loyalty.get(tuple(at)) or " ".join(w.typed for w in tokens[j : at[-1] + 1])
        phrases.append((j, said, meant[0]))
        extra = [Word(said, w, s, EXPANSION, said) for w, s in zip(meant[1], meant[2])]
        sequences.append((extra, [j] * len(extra)))
    terms: list[tuple[int, int, str]] = []  # (where in the question, term, the words naming it)
    inferred: set[int] = set()  # terms named only by the rules' words for a player's phrase
    for seq_number, (seq_words, where) in enumerate(sequences):
        seq = [w.stem for w in seq_words]
        taken = [False] * len(seq)
        for n in range(MAX_TERM_WORDS, 0, -1):  # longest first: "first strike" before "strike"
            for j in range(len(seq) - n + 1):
                if any(taken[j : j + n]):
                    continue
                before = tokens[where[j] - 1].typed if not seq_number and where[j] else ""
                card = not seq_number and all(w.typed in names for w in seq_words[j : j + n])
                k = _named(lex, lex.term_index.get(tuple(seq[j : j + n])), seq_words[j : j + n],
                           before, card)
                if k is not None:
                    taken[j : j + n] = [True] * n
                    if k not in (t for _p, t, _named in terms):
                        named = " ".join(w.read for w in seq_words[j : j + n])  # as read
                        terms.append((where[j], k, named))
                        if seq_number:
                            inferred.add(k)
    all_words = words + [w for extra, _where in sequences[1:] for w in extra]
    found_numbers = tuple(w.read for w in words + digits if w.read.isdigit())
    all_words += digits
    card_terms, card_words = _card_evidence(lex, lib, named_cards, {k for _p, k, _n in terms})
    return Question(
        text, lex.lang, tuple(all_words + card_words),
        tuple((k, named) for _p, k, named in sorted(terms)),
        tuple((said, meant) for _p, said, meant in sorted(phrases)), found_numbers,
        frozenset(inferred), rules,
        tuple((m.typed, card.name) for m, found in named_cards for card in found[:1]),
        tuple(card_terms),
    )


def _named_cards(lex: Lexicon, lib: Library, text: str) -> list[tuple]:
    """The cards `text` names (crlookup.cards.Cards.named_in), each mention with the cards it
    is read as: one, or for a short name that fits several ("Thalia") the one whose text
    shares the most words with the question, else all of them (what they share counts)."""
    try:
        cards = lib.cards()
    except CardsUnavailable:
        return []
    an = lex.analyzer
    written_words = written("en")

    def rules(word: str) -> bool:
        return word in lex.vocab or word in an.stop or word.isdigit() or word in NUMBER_WORDS[an.lang]

    def known(word: str) -> bool:
        return rules(word) or any(b in lex.vocab or b in written_words for b in bases(word))

    def term(name: str) -> bool:
        words = name.split()
        ks = lex.term_index.get(tuple(an.stem(w) for w in words if w not in an.stop), ())
        return any(len(n.split()) == len(words) and an.inflected(words, an.words(n))
                   for k in ks for n in lex.terms[k].names)

    asked = set(an.stems(text))
    out = []
    for mention in cards.named_in(text, known=known, rules=rules, term=term):
        found = [cards.get(i) for i in mention.cards]
        if len(found) > 1:
            overlap = [len(asked & set(an.stems(" ".join(f.text for f in c.faces)))) for c in found]
            if overlap.count(max(overlap)) == 1:
                found = [found[overlap.index(max(overlap))]]
        out.append((mention, found))
    return out


def _card_evidence(lex: Lexicon, lib: Library | None, named_cards: list[tuple],
                   named: set[int]) -> tuple[list, list[Word]]:
    """What the named cards bring to the question: their rules as the lexicon's terms
    (crlookup.card_rules; for cards one name may mean, the rules all of them have), weighted
    by kind, unless the question names the term itself; and the words of their Oracle text."""
    if not named_cards:
        return [], []
    from crlookup import card_rules

    an = lex.analyzer
    by_number = lex.term_numbers
    terms: dict[int, tuple[int, str, str, float]] = {}
    words: list[Word] = []
    for mention, found in named_cards:
        linked = [card_rules.links(lib, lex.edition, card) for card in found]
        shared = set.intersection(*({link.number for link in links} for links in linked))
        card = found[0].name if len(found) == 1 else mention.typed
        for link in linked[0]:
            weight = CARD_LINKS.get(link.kind, 0.0)
            k = by_number.get(link.number)
            if (not weight or k is None or k in named or link.number not in shared
                    or link.kind == "type" and not link.glossary):  # "Spider": a list of types
                continue
            if k not in terms or terms[k][3] < weight:
                terms[k] = (k, card, link.name, weight)
        if len(found) == 1:
            own = {fold(n) for f in found[0].faces for n in (f.name, found[0].name)}
            text = fold(" ".join(f.text for f in found[0].faces))
            for name in own:
                text = text.replace(name, " ")
            for w in dict.fromkeys(an.words(text)):
                if w not in an.stop:
                    words.append(Word(card, w, an.stem(w), CARD_WORDS, card=card))
    return list(terms.values()), words


def _named(lex: Lexicon, ks: tuple[int, ...] | None, words: list[Word],
           before: str = "", card: bool = False) -> int | None:
    """Of the terms with these stems, the one the words name: "commander" is Commander, not
    the command zone; "phase" is Phase, not Phasing; "countered", "I counter" the keyword
    action Counter, "counters", "a +1/+1 counter" Counters (`before`: the word typed before
    them); else the first that names a rule ("blocking" is Block), unless the words are part
    of a card's name (`card`: "Evolving Wilds" is no Evolve)."""
    if not ks:
        return None
    an = lex.analyzer
    typed = [w.read for w in words]
    named = [k for k in ks
             if any(an.inflected(typed, an.words(name)) for name in lex.terms[k].names)]
    actions = [k for k in named if lex.terms[k].kind == "701"]
    if actions and len(actions) < len(named):  # a verb's, or a noun's?
        verb = an.verb(typed[-1], before)
        if verb is not None:
            return (actions if verb else [k for k in named if k not in actions])[0]
    if named or card:
        return next(iter(named), None)
    # none by its own words: a rule's term that the words derive from ("blocking" is Block),
    # not a glossary entry that names no rule ("unblocked" is no "Unblockable", obsolete)
    return next((k for k in ks if lex.terms[k].number), None)


def _known(lex: Lexicon, word: str) -> bool:
    """A word of the rules, or one players write: no typo to correct ("sure" is no "surge")."""
    return word in lex.vocab or lex.analyzer.stem(word) in lex.postings or word in written(lex.lang)


_WRITTEN: dict[str, frozenset[str]] = {}  # read once


def written(lang: str) -> frozenset[str]:
    """The words players write in rules questions (crlookup/citations/words.txt, English)."""
    if lang not in _WRITTEN:
        rows = _citation_rows("words.txt") if lang == "en" else []
        _WRITTEN[lang] = frozenset(word for word, *_rest in rows)
    return _WRITTEN[lang]


def _nearest(lex: Lexicon, word: str) -> str | None:
    from crlookup.spelling import nearest

    # typos ("deathtuch", "tramlpe", "libary") score 86-95; "shrink" as "shrine" 83
    return nearest(word, lex.vocab, 85)


# --------------------------------------------------------------------------- answering


class Answer(NamedTuple):
    """One rule that decides the question, with the evidence that chose it."""

    edition: str
    number: str
    title: str  # the rule's title, or its parent rule's ("Trample" for 702.19c)
    text: str
    score: float
    why: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"edition": self.edition, "number": self.number, "title": self.title,
                "text": self.text, "score": self.score, "why": list(self.why)}


def answer(lib: Library, lex: Lexicon, question: Question, limit: int = 5) -> list[Answer]:
    """The entries of the lexicon's edition that best decide `question`, best first."""
    scores, reasons = rank(lex, question)
    out = []
    for i in best(lex, scores, limit):
        rule = lib.get(lex.edition, lex.numbers[i])
        out.append(Answer(lex.edition, rule.number, _title(lib, lex.edition, rule), rule.text,
                          round(scores[i], 2), tuple(_explain(lex, question, reasons[i], rule.number))))
    return out


def _title(lib: Library, edition: str, rule: Rule) -> str:
    """What an answer is shown under: its rule's title (a subrule's, its rule's), else its
    section's ("601.2b": Casting Spells)."""
    for number in (rule_of(rule.number), rule.number.split(".")[0]):
        found = rule if number == rule.number else lib.get(edition, number)
        if found is not None and found.title:
            return found.title
    return ""


def best(lex: Lexicon, scores: dict[int, float], limit: int) -> list[int]:
    """The best `limit` entries; each further subrule of a rule already chosen counts a little
    less, so that a question about two things shows the rules of both."""
    pool = sorted(scores, key=lambda i: (-scores[i], i))[: limit * 6]
    chosen: list[int] = []
    taken: dict[int, int] = {}
    while pool and len(chosen) < limit:
        def adjusted(i: int) -> float:
            group = lex.parents[i] if lex.parents[i] >= 0 else i
            return scores[i] * SAME_RULE ** taken.get(group, 0)

        i = max(pool, key=lambda i: (adjusted(i), -i))
        pool.remove(i)
        chosen.append(i)
        group = lex.parents[i] if lex.parents[i] >= 0 else i
        taken[group] = taken.get(group, 0) + 1
    return chosen


def rank(lex: Lexicon, question: Question) -> tuple[dict[int, float], dict[int, dict]]:
    """Every entry with some evidence for the question: its score and the evidence."""
    counts: dict[str, list[float]] = {}
    for w in question.words:
        if not w.card:
            counts.setdefault(w.stem, []).append(w.weight)
    weights = {s: max(ws) + 0.25 * (len(ws) - 1) for s, ws in counts.items()}
    from_cards = set()  # stems only the named cards' text has: no part of what the question asks
    for w in question.words:
        if w.card and w.stem not in counts:
            weights[w.stem] = max(weights.get(w.stem, 0.0), w.weight)
            from_cards.add(w.stem)
    meaning = {}  # what the glossary says the recognised terms mean: context, not question
    if MEANING:
        for k, _named in question.terms:
            meaning.update((stem, MEANING) for stem in lex.meanings[k] if stem not in weights)
    scores: dict[int, float] = {}
    matched: dict[int, set[str]] = {}
    total = 0.0
    idf: dict[str, float] = {}
    for stem, qw in weights.items():
        docs = lex.postings.get(stem)
        if docs is None:
            continue
        positions, tfs = docs
        df = len(positions)
        idf[stem] = math.log(1 + (lex.count - df + 0.5) / (df + 0.5))
        total += idf[stem] if stem not in from_cards else 0.0
        for i, tf in zip(positions, tfs):
            norm = K1 * (1 - B + B * lex.lengths[i] / lex.average)
            scores[i] = scores.get(i, 0.0) + qw * idf[stem] * tf * (K1 + 1) / (tf + norm)
            matched.setdefault(i, set()).add(stem)
    for i in scores:  # how much of the question an entry covers, how central it is
        covered = sum(idf[s] for s in matched[i] if s not in from_cards) / (total or 1.0)
        scores[i] *= 0.4 + 0.6 * covered
        scores[i] += CITED_PRIOR * math.log1p(lex.cited_by[i])
    judged = lex.citations.counts
    if judged:
        for i in scores:
            cites = _with_rule(judged, lex.numbers[i])
            scores[i] += JUDGED * math.log1p(cites)
    for stem, qw in meaning.items():  # only for entries the question itself found
        docs = lex.postings.get(stem)
        if docs is None:
            continue
        positions, tfs = docs
        if len(positions) > lex.count / 8:  # "card", "player": too common to tell anything
            continue
        weight = math.log(1 + (lex.count - len(positions) + 0.5) / (len(positions) + 0.5))
        for i, tf in zip(positions, tfs):
            if i in scores:
                norm = K1 * (1 - B + B * lex.lengths[i] / lex.average)
                scores[i] += qw * weight * tf * (K1 + 1) / (tf + norm)
    for i in scores:
        if lex.template[i]:
            scores[i] *= TEMPLATE
    reasons: dict[int, dict] = {i: {"words": matched[i]} for i in scores}
    for i in scores:
        if judged.get(lex.numbers[i]):
            reasons[i]["judged"] = judged[lex.numbers[i]]
    named_variant = any(
        lex.numbers[lo][:1] in "89" for k, _named in question.terms for lo, _hi in lex.terms[k].homes
    )
    if not named_variant:
        for i in scores:
            if lex.numbers[i][:1] in "89":
                scores[i] *= VARIANT
    stems = [w.stem for w in question.words if not w.said and not w.card]
    pairs = {(a, b) for a, b in itertools.pairwise(stems) if a != b and a in idf and b in idf}
    if pairs:
        for i in sorted(scores, key=scores.__getitem__, reverse=True)[:SHORTLIST]:
            seq = lex.sequences[i]
            for a, b in pairs:
                if f" {a} {b} " in seq:
                    scores[i] += PHRASE * (idf[a] + idf[b]) / 2
                    reasons[i].setdefault("phrases", []).append((a, b))

    # the question's own terms, then its cards': those only for entries the question's own
    # words and terms reach ("Serra Angel" brings Vigilance, but the question is about blocking)
    carried = [(k, (card, name), factor) for k, card, name, factor in question.card_terms]
    asked: set[int] | None = None
    for k, card, factor in [(k, None, EXPANSION if k in question.inferred else 1.0)
                            for k, _named in question.terms] + carried:
        if card and asked is None:
            asked = {i for i in scores if matched.get(i, set()) - from_cards
                     or any(reasons[i].get(r) for r in ("terms", "named", "cited"))}
        term = lex.terms[k]
        kind = GLOSSARY if term.kind == "glossary" else SECTION if term.kind.isdigit() else 1.0
        weight = _weight(lex, term) * kind * factor
        why, item = ("card", (*card, k)) if card else ("terms", k)
        for lo, hi in term.homes:
            for i in range(lo, hi):
                if lex.lengths[i] and (not card or i in asked):
                    _add(scores, reasons, i, HOME * weight, why, item)
                    for c in lex.cites[i]:
                        if lex.lengths[c] and not lo <= c < hi and (not card or c in asked):
                            _add(scores, reasons, c, CITED * weight / 2, "cited", i)
        if len(term.stems) > 1:
            for i in lex.mention_sets[k]:
                if not card or i in asked:
                    _add(scores, reasons, i, MENTION * weight, "named", k)
    asked = lex.citations.words
    tables = {w.stem: asked[w.stem] for w in question.words if w.stem in asked}
    tables.update((s, asked[s]) for k, _named in question.terms
                  for s in lex.terms[k].english_stems if s in asked)
    if tables:  # rules answers cite for questions with the question's words
        for i in scores:
            for stem, table in tables.items():
                lift = _with_rule(table, lex.numbers[i])
                if lift:
                    scores[i] += ASKED * lift
                    reasons[i].setdefault("asked", []).append((lift, stem))
    if question.rules:  # the rules the question names by number come first, with their subrules
        top = max(scores.values(), default=0.0) + 1.0
        for number in question.rules:
            i = lex.numbers.index(number)
            subtree = [i]  # and its subrules, which follow it
            while subtree[-1] + 1 < len(lex.numbers) and lex.parents[subtree[-1] + 1] == i:
                subtree.append(subtree[-1] + 1)
            for j in subtree:
                if lex.lengths[j]:
                    _add(scores, reasons, j, top, "written", number)
    return scores, reasons


def _with_rule(by_number: dict[str, float], number: str) -> float:
    """A subrule's value plus PARENT_SHARE of its rule's."""
    rule = rule_of(number)
    own = by_number.get(number, 0)
    return own + PARENT_SHARE * by_number.get(rule, 0) if rule != number else own


def _weight(lex: Lexicon, term: Term) -> float:
    """How much recognising a term tells: the rarer its name in the rules, the more."""
    rarity = math.log((lex.count + 1) / (term.mentions + 1)) if term.mentions else 1.0
    return rarity + (KEYWORD if term.kind in KEYWORD_SECTIONS[:2] else 0.0)


def _add(scores: dict, reasons: dict, i: int, value: float, why: str, item) -> None:
    r = reasons.setdefault(i, {"words": set()})
    items = r.setdefault(why, [])
    if item in items:
        return
    items.append(item)
    scores[i] = scores.get(i, 0.0) + value


def _explain(lex: Lexicon, question: Question, reasons: dict, number: str = "") -> list[str]:
    why = [_("{number} is named in the question").format(number=number)
           for number in reasons.get("written", ())]
    for k in reasons.get("terms", ()):
        t = lex.terms[k]
        where = f" ({ref_label(t.number)})" if t.number else ""
        why.append(_("{kind} “{name}”{where} recognised").format(kind=t.label, name=t.name, where=where))
    for card, name, _k in reasons.get("card", ()):  # "Giant Spider (card): reach → 702.17b"
        why.append(_("{card} (card): {name} → {number}").format(card=card, name=fold(name),
                                                                 number=number))
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
        why.append(_("{card} (card): words matched: {words}").format(
            card=card, words=", ".join(matched)))
    surface = {w.stem: w.read for w in question.words if not w.said and not w.card}
    for a, b in reasons.get("phrases", ()):
        why.append(_("“{words}” side by side, as in the question").format(
            words=f"{surface[a]} {surface[b]}"))
    for said, meant in question.phrases:
        used = [w.read for w in words if w.said == said]
        if used:
            why.append(_("“{said}” read as “{meant}” (matched: {words})").format(
                said=said, meant=meant, words=", ".join(dict.fromkeys(used))))
    if reasons.get("asked"):
        said = {}
        for w in question.words:
            said.setdefault(w.stem, w.read)
        for k, _named in question.terms:  # a translation's terms, by their English names
            for s in lex.terms[k].english_stems:
                said.setdefault(s, lex.terms[k].english)
        strongest = sorted(reasons["asked"], reverse=True)[:ASKED_SHOWN]
        shown = dict.fromkeys(said[s] for _lift, s in strongest)
        why.append(_("answers to players’ questions with {words} cite it often").format(
            words=", ".join(f"“{word}”" for word in shown)))
    if reasons.get("judged"):
        why.append(ngettext("{count} answer to players’ rules questions cites it",
                            "{count} answers to players’ rules questions cite it",
                            reasons["judged"]).format(count=reasons["judged"]))
    return why


class Asked(NamedTuple):
    question: Question
    searched: str  # the edition the question was read against
    answers: list[Answer]  # in the edition asked for (carried over from `searched` if need be)


def ask(lib: Library, text: str, *, edition: str | None = None, lang: str | None = None,
        limit: int = 5) -> Asked:
    """Answer `text` from `edition`, else the newest edition of `lang`, else of its own language.

    The question is read against an edition of its own language; when the rules are wanted in
    another language, each answer is carried to its counterpart there (through same-date
    translations and the stored alignments), and says so.
    """
    own = detect_lang(text)
    target = lib.edition(edition) if edition else lib.edition(lang=lang or own)
    searched = target if target.lang == own else lib.edition(lang=own)
    lex = lexicon(lib, searched.id)
    question = understand(lex, text, lib)
    found = answer(lib, lex, question, limit)
    if searched.id != target.id:
        found = _carry(lib, found, target.id)
    return Asked(question, searched.id, found)


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
            out.append(a._replace(why=a.why + (_("no counterpart in {edition}").format(edition=target),)))
            continue
        note = _("the counterpart of {edition} {number}").format(edition=a.edition, number=a.number)
        out.append(Answer(target, rule.number, _title(lib, target, rule), rule.text, a.score,
                          a.why + (note,)))
    return out
