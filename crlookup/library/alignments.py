"""The alignments a library stores (each edition with the next on its language's main line:
crlookup.core.alignment.chain), read: two editions' matches (`stored`), and a rule followed
through them, backwards and forwards (`Links`), for history, diff and the other language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup.core.alignment import Match, align

if TYPE_CHECKING:
    from crlookup.library.reader import Library


def align_editions(lib, old: str, new: str, entries=None) -> list[Match]:
    """Align two editions of the library (any two of the same language); `entries` maps an
    edition to its entries, for those already read."""
    entries = entries if entries is not None else {}
    for e in (old, new):
        if e not in entries:
            entries[e] = list(lib.entries(e))
    return align(entries[old], entries[new])


def stored(lib, old: str, new: str) -> list[Match] | None:
    """The alignment the build stored for two editions of `chain`, or None if it stored none.

    Only what changed is stored: an entry of `old` that no stored match names is unchanged,
    at the same number, in `new`.
    """
    if (
        lib.db.execute(
            "SELECT 1 FROM chain WHERE old_edition = ? AND new_edition = ?", (old, new)
        ).fetchone()
        is None
    ):
        return None
    rows = lib.db.execute(
        "SELECT kind, old, new, similarity, words_added, words_removed, refs_only, typography "
        "FROM aligned WHERE old_edition = ? AND new_edition = ?",
        (old, new),
    ).fetchall()
    by_old: dict[str, list[Match]] = {}
    out: list[Match] = []
    for r in rows:
        m = _match(r)
        if m.old is None:
            out.append(m)
        else:
            by_old.setdefault(m.old, []).append(m)
    kept = []
    for (number,) in lib.db.execute(
        "SELECT number FROM entry WHERE edition = ? AND twin = 0 AND kind IN ('rule', 'subrule') "
        "ORDER BY seq",
        (old,),
    ):
        kept += by_old.pop(number, []) or [Match("unchanged", number, number, 100.0, 0, 0, False)]
    return kept + [m for ms in by_old.values() for m in ms] + out


def _unchanged(number: str) -> Match:
    """The match of an entry no stored match names: unchanged, at its number."""
    return Match("unchanged", number, number, 100.0, 0, 0, False)


def main_source(matches: list[Match]) -> Match:
    """Of the matches that lead to an entry (`Links.sources`), the one it comes from: its own
    counterpart, else (an entry new in its edition, others merged into it) the merged entry it
    holds the most words of (the fewest of its words added to that one's)."""
    own = matches[0]
    merged = [m for m in matches[1:] if m.kind == "merged"]
    if own.old is not None or not merged:
        return own
    return min(merged, key=lambda m: (m.words_added, -m.similarity, m.old or ""))


def _match(row: tuple) -> Match:
    """A Match from a row of `aligned`, in its column order (SQLite stores the flags as 0/1)."""
    kind, old, new, similarity, added, removed, refs_only, typography = row
    return Match(kind, old, new, similarity, added, removed, bool(refs_only), bool(typography))


class Links:
    """The alignments the library stored for one language's editions, followed on demand.

    Each step is one look-up in the library (only changes are stored: an entry no stored
    match names is unchanged at its number), so following a rule through 120 editions reads
    a few hundred rows, not the alignments of every edition.
    """

    def __init__(self, lib: Library, lang: str):
        lib.every_edition()  # a rule is followed through all of them (EditionsPending: not yet)
        self.lib = lib
        self.infos = {e.id: e for e in lib.editions()}
        self._read: dict[tuple[str, str, str, str], list[Match]] = {}  # each look-up, once
        self.back: dict[str, list[str]] = {}
        self.forward: dict[str, list[str]] = {}
        for old, new in lib.alignment_pairs():
            if self.infos[old].lang == lang:
                self.forward.setdefault(old, []).append(new)
                self.back.setdefault(new, []).append(old)

    def _rows(self, old: str, new: str, side: str, number: str) -> list[Match]:
        key = (old, new, side, number)
        if key not in self._read:
            rows = self.lib.db.execute(
                "SELECT kind, old, new, similarity, words_added, words_removed, refs_only, "
                f"typography FROM aligned WHERE old_edition = ? AND new_edition = ? AND {side} = ?",
                (old, new, number),
            ).fetchall()
            self._read[key] = [_match(r) for r in rows]
        return self._read[key]

    def sources(self, edition: str, number: str) -> tuple[str, list[Match]] | None:
        """The older edition the entry is aligned with, and every match that leads to it
        there: first its own (its counterpart, "split" from one, or "added"), then those of the
        entries "merged" into it; None where it is not aligned."""
        for old in self.back.get(edition, ()):
            found = self._rows(old, edition, "new", number)
            own = [m for m in found if m.kind != "merged"] or [_unchanged(number)]
            return old, own[:1] + [m for m in found if m.kind == "merged"]
        return None

    def previous(self, edition: str, number: str) -> tuple[str, Match] | None:
        """The older edition the entry is aligned with, and how: its counterpart there; for an
        entry new in `edition` that others were merged into, the one it holds the most words
        of (a "merged" match); None where it is not aligned."""
        found = self.sources(edition, number)
        if found is None:
            return None
        old, matches = found
        return old, main_source(matches)

    def following(self, edition: str, number: str) -> list[tuple[str, Match]]:
        """The newer editions the entry is aligned with, and how: in each, first its own
        match (its counterpart, "merged" into one, or "removed"), then the entries "split"
        from it."""
        out = []
        for new in self.forward.get(edition, ()):
            found = self._rows(edition, new, "old", number)
            own = [m for m in found if m.kind != "split"] or [_unchanged(number)]
            out += [(new, m) for m in own[:1] + [m for m in found if m.kind == "split"]]
        return out

    def changes_under(
        self, old: str, new: str, old_range: tuple[str, str], new_range: tuple[str, str]
    ) -> list[Match]:
        """The stored matches of two aligned editions whose older number is in `old_range` or
        whose newer one is in `new_range` ((from, to): from <= number < to, as strings: the
        entries under a rule or a section), leaving out those of an entry whose only change,
        at its number, is of quotes and spacing or of the numbers it cites."""
        columns = "kind, old, new, similarity, words_added, words_removed, refs_only, typography"
        told = "(kind != 'changed' OR typography = 0 AND refs_only = 0)"
        rows = self.lib.db.execute(
            f"SELECT {columns} FROM aligned WHERE old_edition = ? AND new_edition = ? "
            f"AND old >= ? AND old < ? AND {told} "
            f"UNION SELECT {columns} FROM aligned WHERE new_edition = ? AND old_edition = ? "
            f"AND new >= ? AND new < ? AND {told}",
            (old, new, *old_range, new, old, *new_range),
        ).fetchall()
        return [_match(r) for r in rows]

    def numbers(self, edition: str, number: str) -> dict[str, str]:
        """The rule's number in every edition it can be followed to (backwards and forwards)."""
        found = {edition: number}
        todo = [(edition, number)]
        while todo:
            ed, num = todo.pop()
            back = self.previous(ed, num)
            steps = [(back[0], back[1].old)] if back else []
            steps += [(next_ed, m.new) for next_ed, m in self.following(ed, num)]
            for other, target in steps:
                if target and other not in found:
                    found[other] = target
                    todo.append((other, target))
        return found
