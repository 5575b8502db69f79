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


def timeline(lib: Library, edition: str, number: str) -> list[Step]:
    """The rule's number and change in each edition of its language, oldest first."""
    pairs = lib.alignment_pairs()
    infos = {e.id: e for e in lib.editions()}
    lang = infos[edition].lang
    pairs = [(a, b) for a, b in pairs if infos[a].lang == lang]
    links = {pair: {(m.old, m.new): m for m in lib.aligned(*pair)} for pair in pairs}
    by_new = {}
    by_old = {}
    for pair, ms in links.items():
        for m in ms.values():
            if m.new:
                by_new[(pair[1], m.new)] = (pair[0], m)
            if m.old:
                by_old.setdefault((pair[0], m.old), []).append((pair[1], m))
    found: dict[str, Step] = {edition: Step(edition, number, "", None)}
    # backwards, then forwards, along every stored link
    todo = [(edition, number)]
    seen = {(edition, number)}
    while todo:
        ed, num = todo.pop()
        if (ed, num) in by_new:
            prev_ed, m = by_new[(ed, num)]
            if m.old and (prev_ed, m.old) not in seen:
                seen.add((prev_ed, m.old))
                found.setdefault(prev_ed, Step(prev_ed, m.old, "", None))
                todo.append((prev_ed, m.old))
        for next_ed, m in by_old.get((ed, num), ()):
            if m.new and (next_ed, m.new) not in seen:
                seen.add((next_ed, m.new))
                found.setdefault(next_ed, Step(next_ed, m.new, "", None))
                todo.append((next_ed, m.new))
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
    for (old_ed, new_ed), ms in links.items():
        if old_ed == last.edition and new_ed not in found and not infos[new_ed].partial:
            m = ms.get((last.number, None))
            if m is not None and m.kind == "removed":
                steps.append(Step(new_ed, None, "removed", (old_ed, last.number)))
    return steps
