"""The same rule in two languages: which edition and number of language B pairs with a rule.

Editions of the same date pair by number (en-2019-01-25 702.19b is ru-2019-01-25 702.19b).
Otherwise the rule is followed through its own language's stored alignments to the edition
that has a translation of the same date, nearest in date first; the pair then says which
edition each side comes from, so the reader knows the texts may differ.
"""

from __future__ import annotations

from typing import NamedTuple

from crlookup.history import Links
from crlookup.model import Rule
from crlookup.read import Library


class Side(NamedTuple):
    edition: str
    rule: Rule | None  # None: this language has no counterpart


class Pair(NamedTuple):
    number: str  # the number asked about, in the first edition
    left: Side
    right: Side
    same_date: bool  # both sides come from editions of the same date


def counterpart_edition(lib: Library, edition: str, number: str, lang: str, links: Links | None = None):
    """(edition of `lang`, number there) for the rule, through same-date editions; or None."""
    links = links or Links(lib, lib.edition(edition).lang)
    infos = links.infos  # loaded once with the links, not again for every number
    source = infos[edition]
    numbers = links.numbers(edition, number)
    candidates = []
    for target in (e for e in infos.values() if e.lang == lang):
        twins = [e for e in infos.values() if e.lang == source.lang and e.date == target.date]
        for twin in twins:
            if twin.id in numbers:
                candidates.append((abs((target.date - source.date).days), target.id, numbers[twin.id]))
    if not candidates:
        return None
    _, target, num = min(candidates)
    return target, num


def pairs(lib: Library, edition: str, numbers: list[str], lang: str) -> list[Pair]:
    """Each of `numbers` (a rule and its subrules, say) of `edition` beside its `lang` twin."""
    source = lib.edition(edition)
    links = Links(lib, source.lang)
    out = []
    target_edition = None
    for n in numbers:
        found = counterpart_edition(lib, edition, n, lang, links)
        if found:
            target_edition, num = found
            right = Side(target_edition, lib.get(target_edition, num))
        else:
            right = Side(target_edition or "", None)
        out.append(Pair(n, Side(edition, lib.get(edition, n)), right,
                        bool(found) and lib.edition(found[0]).date == source.date))
    if target_edition:  # sides with no counterpart still name the edition searched
        out = [p if p.right.edition else p._replace(right=Side(target_edition, None)) for p in out]
    return out
