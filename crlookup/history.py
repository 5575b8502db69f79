"""A rule's timeline through every edition of its language, following it across renumberings.

The library stores the alignment of each edition with the next (see crlookup.align.chain);
a timeline walks those links backwards and forwards from the rule asked about.
"""

from __future__ import annotations

from typing import NamedTuple

from crlookup.library import Library


class Step(NamedTuple):
    edition: str
    number: str | None  # None: the rule is not in this edition (removed, or not yet there)
    change: str  # "added" (first appears), "unchanged", "changed", "moved", "removed", "absent"
    previous: tuple[str, str] | None  # (edition, number) it is compared with
    words_added: int = 0
    words_removed: int = 0
    refs_only: bool = False
    typography: bool = False


class Links:
    """The stored alignments of one language's editions, loaded once, walked many times."""

    def __init__(self, lib: Library, lang: str):
        self.infos = {e.id: e for e in lib.editions()}
        pairs = [(a, b) for a, b in lib.alignment_pairs() if self.infos[a].lang == lang]
        self.links = {pair: {(m.old, m.new): m for m in lib.aligned(*pair)} for pair in pairs}
        self.by_new: dict = {}
        self.by_old: dict = {}
        for pair, ms in self.links.items():
            for m in ms.values():
                if m.new:
                    self.by_new[(pair[1], m.new)] = (pair[0], m)
                if m.old:
                    self.by_old.setdefault((pair[0], m.old), []).append((pair[1], m))

    def numbers(self, edition: str, number: str) -> dict[str, str]:
        """The rule's number in every edition it can be followed to (backwards and forwards)."""
        found = {edition: number}
        todo = [(edition, number)]
        while todo:
            ed, num = todo.pop()
            back = self.by_new.get((ed, num))
            steps = [(back[0], back[1].old)] if back else []
            steps += [(next_ed, m.new) for next_ed, m in self.by_old.get((ed, num), ())]
            for other, target in steps:
                if target and other not in found:
                    found[other] = target
                    todo.append((other, target))
        return found


def timeline(lib: Library, edition: str, number: str) -> list[Step]:
    """The rule's number and change in each edition of its language, oldest first."""
    if "." not in number:
        return _headings(lib, edition, number)
    links = Links(lib, lib.edition(edition).lang)
    infos, by_new = links.infos, links.by_new
    found = {ed: Step(ed, num, "", None) for ed, num in links.numbers(edition, number).items()}
    steps = []
    for ed in sorted(found, key=lambda e: infos[e].date):
        num = found[ed].number
        link = by_new.get((ed, num))
        if link is None:
            steps.append(Step(ed, num, "added", None))
            continue
        prev_ed, m = link
        steps.append(
            Step(ed, num, m.kind, (prev_ed, m.old) if m.old else None, m.words_added,
                 m.words_removed, m.refs_only, m.typography)
        )
    # where it disappears: a link out of the last edition it is in that leads nowhere
    last = steps[-1]
    for (old_ed, new_ed), ms in links.links.items():
        if old_ed == last.edition and new_ed not in found and not infos[new_ed].partial:
            m = ms.get((last.number, None))
            if m is not None and m.kind == "removed":
                steps.append(Step(new_ed, None, "removed", (old_ed, last.number)))
    return steps


def _headings(lib: Library, edition: str, number: str) -> list[Step]:
    """A chapter or section: the editions that have its number, and whether its title changed.

    Headings are not aligned (their rules are); the same number is the same heading.
    """
    lang = lib.edition(edition).lang
    steps: list[Step] = []
    previous = None
    for e in lib.editions():
        if e.lang != lang:
            continue
        here = lib.get(e.id, number)
        if here is None:
            if previous and not e.partial:
                steps.append(Step(e.id, None, "removed", previous))
                previous = None
            continue
        if previous is None:
            steps.append(Step(e.id, number, "added", None))
        else:
            before = lib.get(*previous)
            steps.append(Step(e.id, number, "unchanged" if before.title == here.title else "changed", previous))
        previous = (e.id, number)
    return steps
