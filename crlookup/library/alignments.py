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
        self.lib = lib
        self.infos = {e.id: e for e in lib.editions()}
        self.back: dict[str, list[str]] = {}
        self.forward: dict[str, list[str]] = {}
        for old, new in lib.alignment_pairs():
            if self.infos[old].lang == lang:
                self.forward.setdefault(old, []).append(new)
                self.back.setdefault(new, []).append(old)

    def _rows(self, old: str, new: str, side: str, number: str) -> list[Match]:
        rows = self.lib.db.execute(
            "SELECT kind, old, new, similarity, words_added, words_removed, refs_only, typography "
            f"FROM aligned WHERE old_edition = ? AND new_edition = ? AND {side} = ?",
            (old, new, number),
        ).fetchall()
        return [_match(r) for r in rows]

    def previous(self, edition: str, number: str) -> tuple[str, Match] | None:
        """The older edition the entry is aligned with, and how; None where it is not."""
        for old in self.back.get(edition, ()):
            found = self._rows(old, edition, "new", number)
            return old, found[0] if found else Match(
                "unchanged", number, number, 100.0, 0, 0, False
            )
        return None

    def following(self, edition: str, number: str) -> list[tuple[str, Match]]:
        """The newer editions the entry is aligned with, and how."""
        out = []
        for new in self.forward.get(edition, ()):
            found = self._rows(edition, new, "old", number)
            out += [(new, m) for m in found] or [
                (new, Match("unchanged", number, number, 100.0, 0, 0, False))
            ]
        return out

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
