"""The shared builder every parser feeds: headings, numbered entries, examples, continuations.

A parser recognises the pieces of its format and calls `RuleTree` in document order; the
builder keeps the rules' order, attaches examples and continuation paragraphs to the entry
they follow, checks that numbers run forward, and produces `Rule` objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from crlookup import numbers
from crlookup.model import Rule, Source
from crlookup.sources import SourceError

# A rule whose whole text is a name ("702.19. Trample", "701.59. Forage") has it as its title.
_TITLE_LIKE = re.compile(r"^[^.!?:;]{1,60}$")


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

    def __init__(self, file: str):
        self.file = file
        self._drafts: list[_Draft] = []
        self._seen: dict[str, int] = {}
        self.notes: list[str] = []

    @property
    def last(self) -> _Draft | None:
        return self._drafts[-1] if self._drafts else None

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
        if self.last is None or self.last.kind in ("chapter", "section"):
            raise SourceError(self.file, line, "an example after a numbered rule", text)
        self.last.examples.append(text.strip())

    def continuation(self, text: str, line: int) -> None:
        """Another paragraph of the entry above (of its last example if it has one)."""
        if self.last is None:
            raise SourceError(self.file, line, "a numbered rule before running text", text)
        target = self.last.examples if self.last.examples else self.last.paragraphs
        if target:
            target[-1] += "\n" + text.strip()
        else:
            target.append(text.strip())

    def append_to_last_paragraph(self, text: str) -> None:
        """Join text onto the last paragraph without a break (a line split inside a sentence)."""
        last = self.last
        if last is None:
            return
        target = last.examples if last.examples else last.paragraphs
        if target:
            target[-1] += text
        else:
            target.append(text)

    def card(self, name: str) -> None:
        """A card name the source marks in the text of the current entry."""
        if self.last is not None and name not in self.last.cards:
            self.last.cards.append(name)

    def fits(self, number: str) -> bool:
        """True if `number` can come next: new, after the last entry, under a known parent."""
        if number in self._seen:
            return False
        n = numbers.parse(number)
        if self.last is not None and not numbers.parse(self.last.number) < n:
            return False
        parent = n.parent
        return parent is None or str(parent) in self._seen or n.kind in ("section", "rule")

    def _add(self, draft: _Draft) -> None:
        if draft.number in self._seen:
            raise SourceError(self.file, draft.line, f"a new rule number, not {draft.number} again")
        if self.last is not None and not (
            numbers.parse(self.last.number) < numbers.parse(draft.number)
        ):
            self.notes.append(f"line {draft.line}: {draft.number} comes after {self.last.number}")
        self._seen[draft.number] = len(self._drafts)
        self._drafts.append(draft)

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
