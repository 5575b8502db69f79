"""Words as the lexicon and a question read them: folded, stemmed, stop words marked.

Words are case-folded and stemmed with the index's stemmers (so "blocking", "blocked" and
"blocks" are one word); question boilerplate ("what happens if", "can I") counts as stop words,
and the stop words that decide rules questions ("before", "each", "no") do not.
"""

from __future__ import annotations

import functools
import re

from crlookup.core import references as refs
from crlookup.core.model import fold
from crlookup.core.words import NOUN_CUES, VERB_CUES, bases

STEMS_KEPT = 1 << 15  # an analyzer's stems of the words last seen (the rules have ~20,000)
_TOKEN = re.compile(r"\d+|[^\W\d_]+")
_NAME = re.compile(r"(?<![\w'’-])[^\W\d_a-zа-яё][^\W\d_]+")  # a capitalised word
_SENTENCE_START = {"", ".", "?", "!", ":", '"', "“", "«", "(", "'", "‘", "—", "–", "-"}

NUMBER_WORDS = {
    "en": {
        "zero": "0",
        "one": "1",
        "two": "2",
        "three": "3",
        "four": "4",
        "five": "5",
        "six": "6",
        "seven": "7",
        "eight": "8",
        "nine": "9",
        "ten": "10",
        "twenty": "20",
    },
    "ru": {
        "ноль": "0",
        "нуль": "0",
        "один": "1",
        "одна": "1",
        "одно": "1",
        "два": "2",
        "две": "2",
        "три": "3",
        "четыре": "4",
        "пять": "5",
        "шесть": "6",
        "семь": "7",
        "восемь": "8",
        "девять": "9",
        "десять": "10",
        "двадцать": "20",
    },
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
KEEP = {
    "en": {
        "before",
        "after",
        "during",
        "until",
        "each",
        "all",
        "no",
        "not",
        "only",
        "same",
        "other",
        "up",
        "down",
        "out",
        "under",
        "more",
        "than",
        "own",
        "against",
        "between",
        "into",
        "off",
        "once",
        "few",
        "most",
        "both",
        "any",
    },
    "ru": {
        "перед",
        "после",
        "до",
        "без",
        "не",
        "нет",
        "больше",
        "более",
        "другой",
        "один",
        "два",
        "три",
        "каждый",
    },
}


class Analyzer:
    """Words of a text as the lexicon matches them: folded, stemmed, stop words marked."""

    def __init__(self, lang: str):
        self.lang = lang if lang in NUMBER_WORDS else "en"
        if self.lang == "ru":
            from crlookup.library.index import whoosh_compat

            whoosh_compat()  # the Snowball stemmers import it: without urllib, as for the index
            from whoosh.lang.snowball.russian import RussianStemmer

            self._stem = RussianStemmer().stem
        else:
            from whoosh.lang.porter2 import stem

            self._stem = stem
        # the stems of the words last seen, STEMS_KEPT of them (the rules have some 20,000
        # distinct words; a server reads new words all day: kept without bound, about 90
        # bytes each, they were tens of MB a day: issue 53)
        self.stem = functools.lru_cache(maxsize=STEMS_KEPT)(self._stemmed)
        self.stop = _stop_words(self.lang)

    def _stemmed(self, word: str) -> str:
        return self._stem(word) if not word.isdigit() else word

    def words(self, text: str) -> list[str]:
        """The folded words of `text` (digits kept; single letters other than x dropped)."""
        return [w for w in _TOKEN.findall(fold(text)) if len(w) > 1 or w.isdigit() or w == "x"]

    def names(self, text: str) -> set[str]:
        """The folded words `text` writes capitalised inside a sentence ("Can I Vindicate the
        emblem?", "my Viscera Seer"): names of cards, most likely, never typos of rules words."""
        return {
            fold(m.group())
            for m in _NAME.finditer(text)
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
        if (
            before in NOUN_CUES
            or before.isdigit()
            or (word.endswith("s") and not word.endswith("ss"))
        ):
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
