"""`crlookup refs`: what a rule cites and what cites it, followed both ways up to a depth
(crlookup.core.references finds and resolves the references when an edition is parsed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from crlookup.library.reader import Library


class Cited(NamedTuple):
    """An entry reached by following citations: its number ("glossary:Term" for a glossary
    entry), how many steps away, and one line about it."""

    number: str
    depth: int
    preview: str


@dataclass(frozen=True)
class Citations:
    """What a rule cites and what cites it, up to `depth` steps, each with a one-line preview."""

    edition: str
    number: str
    preview: str
    depth: int
    cites: tuple[Cited, ...]
    cited_by: tuple[Cited, ...]

    def to_dict(self) -> dict:
        def item(c: Cited) -> dict:
            return {
                "number": c.number,
                "edition": self.edition,
                "depth": c.depth,
                "preview": c.preview,
            }

        return {
            "rule": item(Cited(self.number, 0, self.preview)),
            "cites": [item(c) for c in self.cites],
            "cited_by": [item(c) for c in self.cited_by],
        }


def walk(
    lib: Library, edition: str, start: str, depth: int, outgoing: bool
) -> list[tuple[str, int]]:
    """Numbers reached from `start` by following citations (`outgoing`) or citers, up to
    `depth` steps, each with its distance; a glossary entry is reached but not followed."""
    seen = {start}
    out: list[tuple[str, int]] = []
    frontier = [start]
    for d in range(1, depth + 1):
        step = []
        for n in frontier:
            for m in lib.cites(edition, n) if outgoing else lib.cited_by(edition, n):
                if m not in seen:
                    seen.add(m)
                    step.append(m)
                    out.append((m, d))
        frontier = [m for m in step if not m.startswith("glossary:")]
    return out


def citations(lib: Library, edition: str, number: str, depth: int = 1) -> Citations:
    """The entries `number` of `edition` cites and that cite it, up to `depth` steps away.
    Citations of its subrules and of ranges that include it count."""

    def cited(found: list[tuple[str, int]]) -> tuple[Cited, ...]:
        return tuple(Cited(n, d, lib.preview(edition, n)) for n, d in found)

    return Citations(
        edition,
        number,
        lib.preview(edition, number),
        depth,
        cited(walk(lib, edition, number, depth, outgoing=True)),
        cited(walk(lib, edition, number, depth, outgoing=False)),
    )
