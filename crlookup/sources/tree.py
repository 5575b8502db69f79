"""The shared builder every parser feeds: headings, numbered entries, examples, continuations.

A parser recognises the pieces of its format and calls `RuleTree` in document order; the
builder keeps the rules' order, attaches examples and continuation paragraphs to the entry
they follow, checks that numbers run forward, and produces `Rule` objects.

By default a number can be used once: a second entry of the same number is a `SourceError`,
and `fits` tells a parser that a number it meets cannot be the next entry (so it is text). A
source whose numbered lines are certain to be entries (the official text) builds its tree
with `as_printed=True`: Wizards' own slips are then kept as printed, each with a note naming
its line, never merged into a neighbour. A number printed twice is two entries in document
order; a subrule printed without its rule, or a number out of order, is an entry where it
stands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from crlookup.core import numbers
from crlookup.core.errors import SourceError
from crlookup.core.model import Rule, Source

# A rule whose whole text is a name ("702.19. Trample", "701.59. Forage", "702.19. 践踏") has
# it as its title; a Chinese sentence ends in "。" or has a "，" in it.
_TITLE_LIKE = re.compile(r"^[^.!?:;。！？：；，]{1,60}$")


@dataclass
class _Draft:
    number: str
    kind: str
    title: str
    paragraphs: list[str]
    line: int
    examples: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)


class RuleTree:
    """Collects the entries of one edition in document order."""

    def __init__(self, file: str, *, as_printed: bool = False):
        self.file = file
        self.as_printed = as_printed
        self._drafts: list[_Draft] = []
        self._seen: dict[str, int] = {}  # number -> index of its first draft
        self._section: str | None = None  # the last section heading
        self._in_order: str | None = None  # the last number printed in its place
        self.notes: list[str] = []

    @property
    def last(self) -> _Draft | None:
        return self._drafts[-1] if self._drafts else None

    def _last_number(self) -> str | None:
        last = self.last
        return last.number if last is not None else None

    def __len__(self) -> int:
        return len(self._drafts)

    def __contains__(self, number: str) -> bool:
        return number in self._seen

    def heading(self, number: str, title: str, line: int) -> None:
        """A chapter ("7") or section ("702") heading."""
        kind = numbers.parse(number).kind
        self._add(_Draft(number, kind, title.strip(), [], line))

    def entry(self, number: str, text: str, line: int) -> None:
        """A rule or subrule with the first paragraph of its text."""
        kind = numbers.parse(number).kind
        text = text.strip()
        title = text if kind == "rule" and _TITLE_LIKE.match(text) else ""
        self._add(_Draft(number, kind, title, [text] if text else [], line))

    def example(self, text: str, line: int) -> None:
        """An example of the rule above (`as_printed`: of a heading too, noted)."""
        if self.last is None or self.last.kind in ("chapter", "section"):
            if not self.as_printed:
                raise SourceError(self.file, line, "an example after a numbered rule", text)
            if self.last is None:
                self.notes.append(f"line {line}: an example before the first entry, left out")
                return
            self.notes.append(f"line {line}: an example right after the heading {self.last.number}")
        self.last.examples.append(text.strip())

    def continuation(self, text: str, line: int) -> None:
        """Another paragraph of the entry above (of its last example if it has one)."""
        if self.last is None:
            if self.as_printed:
                self.notes.append(f"line {line}: text before the first entry, left out")
                return
            raise SourceError(self.file, line, "a numbered rule before running text", text)
        target = self.last.examples if self.last.examples else self.last.paragraphs
        if target:
            target[-1] += "\n" + text.strip()
        else:
            target.append(text.strip())

    def card(self, name: str) -> None:
        """A card name the source marks in the text of the current entry."""
        if self.last is not None and name not in self.last.cards:
            self.last.cards.append(name)

    def fits(self, number: str) -> bool:
        """True if `number` can come next: new, after the last entry, under a known parent.

        In an `as_printed` tree "the last entry" is the last one printed in its place, so a
        slip does not shut out the heading after it."""
        if number in self._seen:
            return False
        n = numbers.parse(number)
        last = self._in_order if self.as_printed else self._last_number()
        if last is not None and not numbers.parse(last) < n:
            return False
        parent = n.parent
        return parent is None or str(parent) in self._seen or n.kind in ("section", "rule")

    def _add(self, draft: _Draft) -> None:
        slip = self._slip(draft)
        if slip:
            self.notes.append(f"line {draft.line}: {slip}")
        if not (slip and self.as_printed):
            self._in_order = draft.number
        self._seen.setdefault(draft.number, len(self._drafts))
        self._drafts.append(draft)
        if draft.kind == "section":
            self._section = draft.number

    def _slip(self, draft: _Draft) -> str | None:
        """What is wrong with the place of a new entry, if anything (a repeated number is a
        `SourceError` unless the tree is `as_printed`)."""
        number = draft.number
        if number in self._seen:
            if not self.as_printed:
                raise SourceError(self.file, draft.line, f"a new rule number, not {number} again")
            first = self._drafts[self._seen[number]].line
            return f"{number} printed twice (first at line {first}); kept as a second entry"
        last = self._in_order if self.as_printed else self._last_number()
        if last is not None and not numbers.parse(last) < numbers.parse(number):
            return f"{number} comes after {last}"
        if not self.as_printed or draft.kind not in ("rule", "subrule"):
            return None
        if self._section is not None and number.split(".")[0] != self._section:
            return f"{number} printed under section {self._section}"
        if draft.kind == "subrule" and numbers.rule_of(number) not in self._seen:
            return f"{number} printed without its rule {numbers.rule_of(number)}"
        return None

    def rules(self) -> tuple[Rule, ...]:
        return tuple(
            Rule(
                number=d.number,
                kind=d.kind,
                text="\n".join(d.paragraphs),
                source=Source(self.file, d.line),
                title=d.title,
                examples=tuple(d.examples),
                cards=tuple(d.cards),
            )
            for d in self._drafts
        )
