"""`crlookup refs`: what a rule cites and what cites it, followed both ways up to a depth
(crlookup.core.references finds and resolves the references when an edition is parsed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from crlookup.library.reader import Library


class Cited(NamedTuple):
    """An entry reached by following citations: its number ("glossary:Term" for a glossary
    entry; "IPG 2.1", "CR 603.3b" for another document's), how many steps away, one line about
    it, and the edition it is in (another document's newest, for those)."""

    number: str
    depth: int
    preview: str
    edition: str = ""
    via: tuple[str, ...] = ()  # a direct one: the rule's own entries (its subrules) it links


#: A preview's length: a line of a wide terminal (the view cuts it to the one it is shown on).
PREVIEW = 300


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
                "edition": c.edition or self.edition,
                "depth": c.depth,
                "preview": c.preview,
                "via": list(c.via),
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
    `depth` steps, each with its distance; a glossary entry, and another document's entry
    ("IPG 2.1", "CR 603.3b"), is reached but not followed."""
    info = lib.edition(edition)
    seen = {start}
    out: list[tuple[str, int]] = []
    frontier = [start]
    for d in range(1, depth + 1):
        step = []
        for n in frontier:
            if outgoing:
                found = lib.cites(edition, n)
            else:
                found = lib.cited_by(edition, n) + lib.cited_elsewhere(info, n)
            for m in found:
                if m not in seen:
                    seen.add(m)
                    step.append(m)
                    out.append((m, d))
        frontier = [m for m in step if not m.startswith("glossary:") and not _elsewhere(m)]
    return out


def citations(lib: Library, edition: str, number: str, depth: int = 1) -> Citations:
    """The entries `number` of `edition` cites and that cite it, up to `depth` steps away.
    Citations of its subrules and of ranges that include it count."""

    from crlookup.core.errors import CrlookupError

    def cited(found: list[tuple[str, int]], links: dict[str, list[str]]) -> tuple[Cited, ...]:
        out = []
        for n, d in found:
            via = tuple(links.get(n, ())) if d == 1 else ()
            via = () if via == (number,) else via
            if not _elsewhere(n):  # this edition's
                out.append(Cited(n, d, lib.preview(edition, n, PREVIEW), via=via))
                continue
            try:  # another document's, in its newest edition
                there, rule = lib.entry(n)
            except CrlookupError:
                out.append(Cited(n, d, "", via=via))
                continue
            out.append(Cited(n, d, lib.preview(there, rule.number, PREVIEW), there, via))
        return tuple(out)

    outgoing, incoming = lib.citing(edition, number)
    return Citations(
        edition,
        number,
        lib.preview(edition, number, PREVIEW),
        depth,
        cited(walk(lib, edition, number, depth, outgoing=True), outgoing),
        cited(walk(lib, edition, number, depth, outgoing=False), incoming),
    )


def _elsewhere(number: str) -> bool:
    """Whether a cited number is another document's ("IPG 2.1", "CR 603.3b")."""
    return " " in number and not number.startswith("glossary:")
