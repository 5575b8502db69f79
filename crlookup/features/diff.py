"""`crlookup diff`: the changes between two editions of a library, each with what a reader sees
of it (the changed words; the text of an entry added or removed), followed across renumberings
by the alignments the build stored (crlookup.core.alignment says how entries are matched).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from crlookup.core import documents, numbers
from crlookup.core.alignment import KINDS, Match, full_text, number_of, word_diff
from crlookup.core.errors import BadInput
from crlookup.core.i18n import _
from crlookup.library.alignments import align_editions, stored

# --------------------------------------------------------------------------- editions


def summary(matches: list[Match]) -> dict:
    """Counts per kind of change, overall and per section (of the newer number, else older)."""
    total = dict.fromkeys(KINDS, 0)
    sections: dict[str, dict[str, int]] = {}
    for m in matches:
        total[m.kind] += 1
        section = number_of(m).split(".")[0]
        sections.setdefault(section, dict.fromkeys(KINDS, 0))[m.kind] += 1
    typography = sum(1 for m in matches if m.typography)
    return {
        "total": total,
        "typography_only": typography,
        "sections": dict(sorted(sections.items())),
    }


# --------------------------------------------------------------------------- diff


class Change(NamedTuple):
    """One change between two editions: how the entry was matched (`match`), the words that
    changed (`diff`, `word_diff` runs) and, for an entry added or removed, its whole `text`."""

    match: Match
    diff: tuple[tuple[str, str], ...] = ()
    text: str = ""

    @property
    def shown(self) -> bool:
        """Worth showing a reader: not a change of quotes, dashes or spacing alone."""
        return not (self.match.kind == "changed" and self.match.typography)


@dataclass(frozen=True)
class EditionDiff:
    """What changed from edition `old` to `new` (at or below `section`, if given): the counts
    per kind, the changes in rule order, and the title of each section shown."""

    old: str
    new: str
    section: str | None
    counts: dict
    changes: tuple[Change, ...]
    titles: dict
    summary: bool = False  # the counts alone were asked for (diff --summary): its JSON is them

    def to_dict(self) -> dict:
        if self.summary:
            return self.counts

        def change(c: Change) -> dict:
            m = c.match
            return {
                "kind": m.kind,
                "old": {"edition": self.old, "number": m.old} if m.old else None,
                "new": {"edition": self.new, "number": m.new} if m.new else None,
                "similarity": m.similarity,
                "words_added": m.words_added,
                "words_removed": m.words_removed,
                "refs_only": m.refs_only,
                "typography": m.typography,
                "diff": [list(op) for op in c.diff] or None,
                "text": c.text or None,
            }

        return {
            "old": self.old,
            "new": self.new,
            "section": self.section,
            "summary": self.counts,
            "changes": [change(c) for c in self.changes],
        }


def diff(lib, old: str, new: str, section: str | None = None, words: bool = True) -> EditionDiff:
    """The changes from edition `old` to `new` of the same language, followed across
    renumberings (the stored alignment where the build made one). A partial `new` edition
    lacks sections rather than removing them: their rules are not counted as removed.
    `words` false leaves out the word diffs and texts (for the counts alone)."""
    old_info, new_info = lib.edition(old), lib.edition(new)
    if old_info.document != new_info.document:
        raise BadInput(
            _("{old} and {new} are editions of different documents").format(
                old=old_info.id, new=new_info.id
            )
        )
    if old_info.lang != new_info.lang:
        raise BadInput(
            _("{old} and {new} are in different languages").format(old=old_info.id, new=new_info.id)
        )
    cr = old_info.document == "cr"
    under = numbers.parse(section) if section and cr else None
    old, new = old_info.id, new_info.id
    matches = stored(lib, old, new) or align_editions(lib, old, new)
    if under is not None:
        matches = [
            m
            for m in matches
            if any(n and under.contains(numbers.parse(n)) for n in (m.old, m.new))
        ]
    elif section:  # a tournament document's section: "2" holds 2.1, 2.2, ...
        wanted = documents.number(section)
        matches = [
            m for m in matches if any(n and n.split(".")[0] == wanted for n in (m.old, m.new))
        ]
    if new_info.partial:
        present = {n.split(".")[0] for n in lib.numbers(new)}
        matches = [
            m
            for m in matches
            if not (m.kind == "removed" and number_of(m).split(".")[0] not in present)
        ]
    changed = sorted(
        (m for m in matches if m.kind != "unchanged"),
        key=lambda m: numbers.sort_key(number_of(m)) if cr else documents.sort_key(number_of(m)),
    )
    out, titles = [], {}
    for m in changed:
        c = Change(m)
        if words and c.shown:
            sec = number_of(m).split(".")[0]
            if sec not in titles:
                titles[sec] = lib.preview(new if m.new else old, sec)
            if (
                m.kind in ("changed", "moved")
                and not m.refs_only
                and (m.words_added or m.words_removed)
            ):
                a, b = lib.get(old, m.old), lib.get(new, m.new)
                c = c._replace(diff=tuple(word_diff(full_text(a), full_text(b))))
            elif m.kind in ("added", "removed"):
                c = c._replace(
                    text=full_text(lib.get(new if m.kind == "added" else old, m.new or m.old))
                )
        out.append(c)
    shown_section = str(under) if under else (documents.number(section) if section else None)
    return EditionDiff(old, new, shown_section, summary(matches), tuple(out), titles)
