"""The cards a question names, read as a judge reads them ("Can my Giant Spider block his Serra
Angel?"), with the library's card database (crlookup.library.cards) for their names: `named_in`.
question.py reads what the cards it finds bring to the question (their rules, text and rulings).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.names import name_key
from crlookup.core.words import bases
from crlookup.library.cards import NAME, SHORT

if TYPE_CHECKING:
    from collections.abc import Callable

    from crlookup.library.cards import Cards


class Mention(NamedTuple):
    """A card named in running text: where, as written, and the card (or the cards a short
    name fits: "Thalia" is two)."""

    start: int
    end: int
    typed: str
    cards: tuple[int, ...]
    how: str  # "exact", "face", "partial" (a short name), "fuzzy"


# words after which a name is read as a card's: the card's owner ("my Shock", "his Island"),
# a subject that plays it ("I Clone", "he Fogs"; for names that are rules words), or playing
# it (also for names that are rules terms: "cast Vigilance")
OWNER_CUES = frozenset(
    {
        "my",
        "his",
        "her",
        "their",
        "your",
        "our",
        "opponents",
        "мой",
        "моя",
        "моё",
        "мое",
        "мои",
        "моего",
        "моей",
        "моему",
        "моим",
        "его",
        "её",
        "ее",
        "их",
        "твой",
        "твоя",
        "ваш",
    }
)
SUBJECT_CUES = frozenset({"i", "he", "she", "they", "we", "you", "я", "он", "она", "они"})
CAST_CUES = frozenset(
    {
        "cast",
        "casts",
        "casting",
        "play",
        "plays",
        "played",
        "playing",
        "named",
        "resolve",
        "resolves",
        "кастую",
        "кастует",
        "разыгрываю",
        "разыгрывает",
        "сыграл",
        "сыграла",
    }
)
_SMALL = frozenset(
    {
        "of",
        "the",
        "to",
        "a",
        "an",
        "and",
        "in",
        "on",
        "for",
        "from",
        "with",
        "at",
        "by",
        "or",
        "into",
        "en",
        "de",
        "la",
        "le",
        "s",
    }
)
_TEXT_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_CLAUSE_START = '.?!:;"“«(—'
MAX_NAME_WORDS = 8  # longer names are written out whole only by the few who paste them
_FUZZY_NAME = 90  # rapidfuzz ratio for a misspelt name in text ("Glistner Elf" 96)


def named_in(
    cards: Cards,
    text: str,
    *,
    known: Callable[[str], bool],
    rules: Callable[[str], bool],
    term: Callable[[str], bool],
    fuzzy: bool = True,
) -> list[Mention]:
    """The cards a text names, longest names first, read as a judge reads them.

    `known`: a word the rules or players use ("push", "humility"); `rules`: a word of the
    rules ("island", "goblin"); `term`: a rules term ("vigilance", "library"). A name
    counts when the text reads it as one:
    - capitalised (its words all, small words aside), unless it is a term (then only
      after "cast", "play", "named": "cast Vigilance") or one word of the rules (then
      after its owner or a subject: "my Island", "I Clone"); a single word at the start
      of a sentence only if it is no word of the rules ("Humility is out");
    - the part of a name before its comma ("Thalia") when it fits several cards, or one
      and is four letters or more and no word of the rules ("Azusa"; not "Bob");
    - written lowercase, if it has several words after its owner or "cast" ("cast dryad
      arbor"), or a word of it is not `known` ("glistener elf") and it has several words
      or is a whole name of six letters or more ("thragtusk").
    Possessives and inflections are read ("Giant Spider's", "I Shocked it", "he Fogs",
    "Lightning Helix'd"); with `fuzzy`, runs of capitalised words are matched to
    misspelt names ("Glistner Elf").
    """
    words = [(m.start(), m.end(), m.group()) for m in _TEXT_WORD.finditer(text)]
    keys = [name_key(w) for _s, _e, w in words]
    forms = {
        (i, n): _forms(words, keys, i, n)
        for i in range(len(words))
        for n in range(1, min(MAX_NAME_WORDS, len(words) - i) + 1)
    }
    present = cards.naming({f for fs in forms.values() for f in fs})
    out: list[Mention] = []
    i = 0
    while i < len(words):
        found = _name_at(cards, text, words, keys, i, forms, present, known, rules, term)
        if found is None and fuzzy:
            found = _misspelt_at(cards, text, words, keys, i, known)
        if found is None:
            i += 1
            continue
        n, mention = found
        out.append(_same_as_before(cards, mention, out))
        i += n
    return out


def _same_as_before(cards: Cards, mention: Mention, before: list[Mention]) -> Mention:
    """A name that is the short name of a card named before it is that card: "Urborg,
    Tomb of Yawgmoth ... is Urborg a Mountain?" (not the card named Urborg)."""
    key = name_key(re.sub(r"['’][sd]$", "", mention.typed))
    for earlier in before:
        for card_id in earlier.cards:
            name = cards.get(card_id).name
            if key != name_key(name) and key in {
                name_key(n.partition(", ")[0]) for n in (name, *name.split(" // "))
            }:
                return mention._replace(cards=(card_id,), how="partial")
    return mention


def _forms(words, keys, i: int, n: int) -> list[str]:
    """The keys the `n` words from word `i` may be a name as: as written, without a
    possessive ("Giant Spider's", "Lightning Helix'd"), or, capitalised, without an
    inflection ("Shocked", "Fogs", "Giant Growthed")."""
    key = " ".join(keys[i : i + n])
    last = words[i + n - 1][2]
    forms = [key]
    if last[-2:] in ("'s", "’s", "'d", "’d"):
        forms.append(key[:-1])
    if last[:1].isupper() and not last.isupper():
        head = key.rsplit(" ", 1)[0] + " " if n > 1 else ""
        forms += [head + b for b in sorted(bases(keys[i + n - 1]) - {keys[i + n - 1]})]
    return forms


def _name_at(cards: Cards, text, words, keys, i, forms, present, known, rules, term):
    """(words taken, Mention) of the longest name starting at word `i`, if it reads as one."""
    for n in range(min(MAX_NAME_WORDS, len(words) - i), 0, -1):
        for form in forms[(i, n)]:
            if form not in present:
                continue
            rows = cards.by_key(form)
            best = rows[0][1]
            ids = [c for c, kind, _a in rows if kind == best]
            paper = [c for c, kind, alchemy in rows if kind == best and not alchemy] or ids
            if not _reads_as_name(
                text, words, keys, i, n, form, best, len(paper), known, rules, term
            ):
                continue
            start, end = words[i][0], words[i + n - 1][1]
            typed = text[start:end]
            if len(paper) > 1:  # "Rampant Growth" rather than "Rampant, Growth"
                found = cards.get_many(paper)
                exact = [
                    c
                    for c in paper
                    if name_key(found[c].name) == form
                    and found[c].name.casefold() == typed.casefold()
                ]
                paper = exact or paper
            return n, Mention(start, end, typed, tuple(paper), ("exact", "face", "partial")[best])
    return None


def _reads_as_name(text, words, keys, i, n, key, kind, count, known, rules, term) -> bool:
    before = text[: words[i][0]].rstrip()
    prev = keys[i - 1] if i > 0 and before[-1:].isalnum() else ""
    span = [w for _s, _e, w in words[i : i + n]]
    plain = [name_key(re.split("['’]", w)[0]) for w in span]  # "What's" is "what"
    significant = [w for w, k in zip(span, plain) if k not in _SMALL] or span
    single = len(significant) == 1
    if not all(w[:1].isupper() for w in significant):  # written lowercase
        if not single and prev in OWNER_CUES | CAST_CUES:
            return True  # "can i cast dryad arbor", "my giant spider"
        distinctive = any(not known(k) and len(k) >= 4 for k in plain)
        return distinctive and (n > 1 or (kind == NAME and len(key) >= 6))
    if term(key):
        return prev in CAST_CUES
    if single and rules(plain[-1]):
        return prev in OWNER_CUES or prev in SUBJECT_CUES or prev in CAST_CUES
    if kind == SHORT and count == 1 and prev not in OWNER_CUES | CAST_CUES:
        return len(key) >= 4 and not rules(key)
    return True


def _misspelt_at(cards: Cards, text, words, keys, i, known):
    """A run of capitalised words from word `i` that is a misspelt name ("Glistner Elf")."""
    before = text[: words[i][0]].rstrip()
    if not words[i][2][:1].isupper() or (not before or before[-1] in _CLAUSE_START):
        return None
    n = 0
    while (
        i + n < len(words)
        and n < MAX_NAME_WORDS
        and (words[i + n][2][:1].isupper() or (keys[i + n] in _SMALL and n))
    ):
        n += 1
    while n and keys[i + n - 1] in _SMALL:
        n -= 1
    key = " ".join(keys[i : i + n])
    if n == 0 or len(key) < 6 or (n == 1 and known(key)):
        return None
    best = next(iter(cards.near(key, _FUZZY_NAME, 1)), None)
    if best is None or best[0].count(" ") != key.count(" "):
        return None
    rows = cards.by_key(best[0])
    paper = tuple(c for c, kind, alchemy in rows if kind == rows[0][1] and not alchemy)
    start, end = words[i][0], words[i + n - 1][1]
    return n, Mention(start, end, text[start:end], paper or (rows[0][0],), "fuzzy")
