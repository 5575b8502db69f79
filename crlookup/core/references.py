"""Cross-references: find them in rule, example and glossary text, resolve them, blank them.

Forms recognised, in English, Russian and Chinese: "rule 702.2", "See rule 702.4", "rules
510.1c–d" (a range), "rules 601.2b and 601.2e–g", "section 8", "rule 903", "правило 702.2",
"правила 510.1c–d", "раздел 8", "главу 5" (a chapter), "参见规则510", "规则601.2b与601.2e-h",
"第6章" (a chapter), Cyrillic look-alike letters ("207.2с"), and bare numbers in running text
("as specified in 101.4a"). A reference that
names no entry of its edition is kept, with no targets, so that it can be audited.

In a built library, crlookup.features.refs follows them both ways from one rule (`crlookup refs`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

from crlookup.core import numbers
from crlookup.core.errors import NumberError
from crlookup.core.model import Edition, Reference

if TYPE_CHECKING:
    pass

_LETTER = "a-z" + "асеорху"  # subrule letters, and the Cyrillic look-alikes used for them
_NUM = rf"\d{{3}}(?:\.\d+[{_LETTER}]*)?(?![\d{_LETTER}])"
_DASH = r"\s*(?:[–—‐-]|through|до|至)\s*"
_ITEM = rf"(?:{_NUM}|\d(?![\d.]))(?:{_DASH}(?:{_NUM}|[{_LETTER}]+(?![A-Za-z0-9_{_LETTER}])))?"
_JOIN = r"\s*(?:,\s*(?:and|or|и|или)?|and|or|и|или|和|或|及|与|以及|、)\s*"
# the Russian text calls a chapter "глава" ("смотрите главу 5"), a section "раздел"; the
# Chinese writes "规则" (rule) before a number without a space
_KEYWORD = (
    r"(?:\b(?P<kw>rules?|sections?|subrules?|правил[а-яё]*|подправил[а-яё]*|раздел[а-яё]*"
    r"|глав(?:а|е|у|ы|ой|ах))\s+|(?P<zh>规则)\s*)"
)
_CHAPTER_ZH = re.compile(r"第(?P<first>\d)章")  # "第6章": chapter 6
_CITED_LIST = re.compile(rf"{_KEYWORD}(?P<list>{_ITEM}(?:{_JOIN}{_ITEM})*)", re.I)
_ITEM_RE = re.compile(
    rf"(?P<first>{_NUM}|\d(?![\d.]))(?:{_DASH}(?P<last>{_NUM}|[{_LETTER}]+(?![A-Za-z0-9_{_LETTER}])))?",
    re.I,
)
_BARE = re.compile(rf"(?<![\d.\w]){_ITEM}", re.I)
_BARE_NUMBER = re.compile(r"^\d{3}\.\d+")
_DIGIT = re.compile(r"\d")


def find(text: str) -> list[Reference]:
    """The cross-references in a text, in order of appearance."""
    return [ref for _start, _end, ref in spans(text)]


def blank(text: str) -> str:
    """`text` with the numbers of the rules it cites blanked, the words citing them kept ("see
    rule 117.9" is "see rule _____"): a text's own words and numbers, without its references'.
    (Not spaces: "главу 5 702" would become a reference to 702.)"""
    out = list(text)
    for start, end, _ref in spans(text):
        out[start:end] = "_" * (end - start)
    return "".join(out)


def spans(text: str) -> list[tuple[int, int, Reference]]:
    """The cross-references in a text with where each is written (start, end), in order of
    appearance: what a view makes links of."""
    if not _DIGIT.search(text):  # most texts cite nothing: no number, no reference
        return []
    found: list[tuple[int, int, Reference]] = []
    taken: list[tuple[int, int]] = []
    for m in _CHAPTER_ZH.finditer(text):
        found.append((m.start("first"), m.end("first"), Reference(m.group(), m.group("first"))))
        taken.append((m.start(), m.end()))
    for m in _CITED_LIST.finditer(text):
        kw = m.group("kw") or ""
        section_word = kw.lower().startswith(("section", "раздел", "глав"))
        base = m.start("list")
        for item in _ITEM_RE.finditer(m.group("list")):
            ref = _reference(item, section_word)
            if ref:
                found.append((base + item.start(), base + item.end(), ref))
        taken.append((m.start(), m.end()))
    for m in _BARE.finditer(text):
        if any(a <= m.start() < b for a, b in taken) or not _BARE_NUMBER.match(m.group()):
            continue
        bare = _ITEM_RE.match(m.group())
        ref = _reference(bare, False) if bare is not None else None
        if bare is not None and ref:
            found.append((m.start(), m.start() + bare.end(), ref))
    return sorted(found, key=lambda p: p[0])


def _reference(item: re.Match, section_word: bool) -> Reference | None:
    first_text = item.group("first")
    if len(first_text) == 1 and not section_word:
        return None
    try:
        first = str(numbers.parse(first_text))
    except NumberError:
        return None
    last = None
    if item.group("last"):
        end = item.group("last").translate(numbers.HOMOGLYPHS)
        if end.isalpha():
            n = numbers.parse(first)
            if not n.letters:
                return Reference(item.group().strip(), first)
            last = f"{n.section}.{n.rule}{end.lower()}"
        else:
            try:
                last = str(numbers.parse(end))
            except NumberError:
                return Reference(item.group("first"), first)
    return Reference(item.group().strip(), first, last)


class Resolver:
    """Resolves references against the numbers of one edition."""

    def __init__(self, edition_numbers):
        self.numbers = set(edition_numbers)
        self.ordered = sorted(self.numbers, key=numbers.sort_key)
        self.keys = [numbers.sort_key(n) for n in self.ordered]

    def targets(self, ref: Reference) -> tuple[str, ...]:
        if not ref.last:
            return (ref.first,) if ref.first in self.numbers else ()
        expanded = numbers.expand_range(ref.first, ref.last)
        if expanded is not None:
            return tuple(n for n in expanded if n in self.numbers)
        a, b = numbers.parse(ref.first), numbers.parse(ref.last)
        if b < a:
            return ()
        kinds = {a.kind, b.kind}
        lo, hi = bisect_left(self.keys, a.key), bisect_right(self.keys, b.key)
        return tuple(n for n in self.ordered[lo:hi] if numbers.parse(n).kind in kinds)

    def resolve(self, refs) -> tuple[Reference, ...]:
        return tuple(r._replace(targets=self.targets(r)) for r in refs)


def link(edition: Edition) -> Edition:
    """The edition with every rule's and glossary entry's references found and resolved."""
    resolver = Resolver(r.number for r in edition.rules)
    rules = tuple(
        r._replace(refs=resolver.resolve(_find_all(r.text, *r.examples))) for r in edition.rules
    )
    glossary = tuple(
        g._replace(refs=resolver.resolve(find(g.definition))) for g in edition.glossary
    )
    return edition._replace(rules=rules, glossary=glossary)


def _find_all(*texts: str) -> list[Reference]:
    return [ref for t in texts for ref in find(t)]


# --------------------------------------------------------------------------- in a library
