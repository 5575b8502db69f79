"""Rule numbers: parse, compare and sort them; subrule letters; ranges like "601.2e–g"; homoglyphs.

The Comprehensive Rules number their entries at four depths:

    chapter  "7"        (the CR's own text calls it "section 7")
    section  "702"      ("rule 702, Keyword Abilities")
    rule     "702.19"
    subrule  "702.19b"

Subrule letters skip "l" and "o" and go past "z": ... 704.5y, 704.5z, 704.5aa.
Numbers sort numerically (100.9 < 100.10) and letters by length first (z < aa).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from crlookup.core.errors import NumberError

#: Subrule letters in order: the alphabet without "l" and "o".
LETTERS = "abcdefghijkmnpqrstuvwxyz"

#: Cyrillic letters that look like Latin lowercase letters; the Russian translation writes some
#: subrule letters with them ("105.2с" with a Cyrillic "с" is 105.2c).
HOMOGLYPHS = str.maketrans("асеорхукіјѕһԁԛԝАСЕОРХУКІЈЅҺ", "aceopxykijshdqwACEOPXYKIJSH")

_NUMBER = re.compile(r"^(\d)$|^(\d{3})(?:\.(\d+)([a-z]*))?$")
#: A section, rule or subrule number written in running text ("See rule 702.19b.", "702").
WRITTEN = re.compile(r"(?<![\w.])(\d{3}(?:\.\d+[a-z]*)?)\.?(?![\w.])")
_LOOKALIKE_LETTERS = re.compile(r"\d{3}\.\d+[a-zасеорхук]+", re.IGNORECASE)
#: Sections whose rules are named keyword actions and abilities (502: before July 2009).
KEYWORD_SECTIONS = ("701", "702", "502")


class RuleNumber(NamedTuple):
    """A parsed rule number: chapter, section, rule or subrule (compares numerically)."""

    section: int  # 1..9 for a chapter, 100..999 otherwise
    rule: int | None = None
    letters: str = ""

    @property
    def kind(self) -> str:
        if self.section < 10:
            return "chapter"
        if self.rule is None:
            return "section"
        return "subrule" if self.letters else "rule"

    @property
    def chapter(self) -> int:
        return self.section if self.section < 10 else self.section // 100

    @property
    def parent(self) -> RuleNumber | None:
        if self.letters:
            return RuleNumber(self.section, self.rule)
        if self.rule is not None:
            return RuleNumber(self.section)
        if self.section >= 10:
            return RuleNumber(self.section // 100)
        return None

    @property
    def key(self) -> tuple:
        """Sort key: numeric, with chapters before their sections and z before aa."""
        if self.section < 10:
            return (self.section, -1, -1, 0, "")
        return (
            self.chapter,
            self.section,
            -1 if self.rule is None else self.rule,
            len(self.letters),
            self.letters,
        )

    # Narrower than tuple's `other: tuple`: a RuleNumber compares with RuleNumbers only (a plain
    # tuple has no key), so these four overrides are deliberately not substitutable.
    def __lt__(self, other: RuleNumber) -> bool:  # type: ignore[override]
        return self.key < other.key

    def __le__(self, other: RuleNumber) -> bool:  # type: ignore[override]
        return self.key <= other.key

    def __gt__(self, other: RuleNumber) -> bool:  # type: ignore[override]
        return self.key > other.key

    def __ge__(self, other: RuleNumber) -> bool:  # type: ignore[override]
        return self.key >= other.key

    def __str__(self) -> str:
        if self.rule is None:
            return str(self.section)
        return f"{self.section}.{self.rule}{self.letters}"

    def contains(self, other: RuleNumber) -> bool:
        """True if `other` is this number or lies below it in the tree."""
        n: RuleNumber | None = other
        while n is not None:
            if n == self:
                return True
            n = n.parent
        return False


# A build parses the same numbers again and again (every edition's entries and references
# name them); a RuleNumber is immutable, so one parse serves them all.
@functools.lru_cache(maxsize=1 << 16)
def parse(text: str) -> RuleNumber:
    """Parse "7", "702", "702.19", "702.19b" (trailing periods or an ellipsis and Cyrillic
    look-alikes allowed)."""
    s = text.strip().translate(HOMOGLYPHS).lower()
    if s.endswith((".", "…")):  # "702.19b." as printed; "702.19b..." as typed
        s = s.rstrip(".…").rstrip()
    m = _NUMBER.match(s)
    if not m:
        raise NumberError(f"not a rule number: {text!r} (expected e.g. 702, 702.19 or 702.19b)")
    if m.group(1):
        return RuleNumber(int(m.group(1)))
    section = int(m.group(2))
    if section < 100:
        raise NumberError(f"not a rule number: {text!r} (sections run from 100)")
    if m.group(3) is None:
        return RuleNumber(section)
    return RuleNumber(section, int(m.group(3)), m.group(4))


def is_rule_number(text: str) -> bool:
    """Whether `text` is a CR number in its canonical form ("702.19b"; not "IPG 2.1")."""
    return bool(_NUMBER.match(text))


def without_subrules(text: str) -> bool:
    """Whether a rule number is written with its closing period, as official text prints a
    rule ("702.19."): asking for the rule without its subrules (a section's "702." is not; nor
    is an ellipsis, "702.19...")."""
    text = text.strip()
    return text.endswith(".") and not text.endswith("..") and "." in text[:-1]


def read_lookalikes(text: str) -> str:
    """`text` with the Cyrillic look-alike letters of subrule numbers in it read as Latin."""
    return _LOOKALIKE_LETTERS.sub(lambda m: m.group().translate(HOMOGLYPHS), text)


def rule_of(number: str) -> str:
    """The rule a subrule number belongs to ("702.19b" -> "702.19"); a rule or section as it is.
    Plain string work, for hot loops over numbers already known to be well formed."""
    return number.rstrip("abcdefghijkmnpqrstuvwxyz")


def sort_key(number: str) -> tuple:
    """Sort key for a number string: sorted(numbers, key=sort_key) is numeric order."""
    return parse(number).key


def letters_at(index: int) -> str:
    """The subrule letters of the index-th subrule (0 -> "a", 23 -> "z", 24 -> "aa")."""
    if index < 0:
        raise ValueError(index)
    n = len(LETTERS)
    width = 1
    while index >= n**width:
        index -= n**width
        width += 1
    out = []
    for _ in range(width):
        index, r = divmod(index, n)
        out.append(LETTERS[r])
    return "".join(reversed(out))


def letters_index(letters: str) -> int:
    """Inverse of letters_at: "a" -> 0, "aa" -> 24. Raises NumberError for "l", "o" or non-letters."""
    if not letters or any(c not in LETTERS for c in letters):
        raise NumberError(f"not subrule letters: {letters!r}")
    n = len(LETTERS)
    index = sum(n**w for w in range(1, len(letters)))
    value = 0
    for c in letters:
        value = value * n + LETTERS.index(c)
    return index + value


def expand_range(first: str, last: str) -> list[str] | None:
    """Expand a subrule range within one rule: ("601.2e", "601.2g") -> e, f, g.

    `last` may be just the letters ("g"). Returns None when the range is not a subrule
    range of one rule (such ranges are resolved against an edition's numbers instead).
    """
    a = parse(first)
    if not a.letters:
        return None
    b = RuleNumber(a.section, a.rule, last) if re.fullmatch(r"[a-z]+", last) else parse(last)
    if (b.section, b.rule) != (a.section, a.rule) or not b.letters:
        return None
    try:
        i, j = letters_index(a.letters), letters_index(b.letters)
    except NumberError:
        return None
    if j < i or j - i > 200:
        return None
    return [str(RuleNumber(a.section, a.rule, letters_at(k))) for k in range(i, j + 1)]


def ref_label(label: str) -> str:
    """A cited number as the CR writes it: chapter numbers are "section N"."""
    from crlookup.core.i18n import _

    return (
        _("section {number}").format(number=label) if label.isdigit() and len(label) == 1 else label
    )
