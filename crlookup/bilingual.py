"""The same rule in two languages: which edition and number of language B pairs with a rule;
the layer beside crlookup.api that carries a feature's result into another language (no
feature imports it: each returns its own language's hits).

Editions of the same date pair by number (en-2019-01-25 702.19b is ru-2019-01-25 702.19b).
Otherwise the rule is followed through its own language's stored alignments to the edition
that has a translation of the same date, nearest in date first; the pair then says which
edition each side comes from, so the reader knows the texts may differ.

`parallel` is `rule --parallel` (a rule and its subrules beside their counterparts);
`counterparts` gives `search --parallel` each hit's counterpart; `definitions_through_english`
finds a term a translation's glossary lacks through the English one (`define --lang ru`);
`carried` gives `ask` each answer's counterpart in the language asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from crlookup.core.model import Rule, fold
from crlookup.core.numbers import without_subrules
from crlookup.library.alignments import Links
from crlookup.library.reader import Library


class Side(NamedTuple):
    edition: str
    rule: Rule | None  # None: this language has no counterpart


class Pair(NamedTuple):
    number: str  # the number asked about, in the first edition
    left: Side
    right: Side
    same_date: bool  # both sides come from editions of the same date


def counterpart_edition(
    lib: Library, edition: str, number: str, lang: str, links: Links | None = None
):
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
                candidates.append(
                    (abs((target.date - source.date).days), target.id, numbers[twin.id])
                )
    if not candidates:
        return None
    _, target_id, num = min(candidates)
    return target_id, num


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
        out.append(
            Pair(
                n,
                Side(edition, lib.get(edition, n)),
                right,
                bool(found) and lib.edition(found[0]).date == source.date,
            )
        )
    if target_edition:  # sides with no counterpart still name the edition searched
        out = [p if p.right.edition else p._replace(right=Side(target_edition, None)) for p in out]
    return out


@dataclass(frozen=True)
class Parallel:
    """A rule and its subrules (`pairs`) in two languages (`langs`: its edition's first)."""

    langs: tuple[str, str]
    edition: str
    pairs: tuple[Pair, ...]

    def to_dict(self) -> dict:
        first, other = self.langs

        def side(s: Side) -> dict:
            return (
                s.rule.to_dict(s.edition)
                if s.rule
                else {"edition": s.edition or None, "missing": True}
            )

        return {
            "editions": {first: self.edition, other: self.pairs[0].right.edition or None},
            "same_date": self.pairs[0].same_date,
            "pairs": [
                {"number": p.number, first: side(p.left), other: side(p.right)} for p in self.pairs
            ],
        }


def parallel(
    lib: Library, number: str, langs: tuple[str, str], edition: str | None = None
) -> Parallel:
    """The rule `number` (of `edition`, else the newest of langs[0]) and its subrules beside
    their counterparts in the other language; a trailing period ("702.19.") leaves out the
    subrules. With `edition`, its own language goes first."""
    alone = without_subrules(number)
    first, other = langs
    if edition:
        edition, rule = lib.entry(number, edition)
        own = lib.edition(edition).lang
        if own != first:
            first, other = own, (other if other != own else first)
    else:
        edition, rule = lib.entry(number, lang=first)
    lib.edition(lang=other)  # NotFound if the library has no edition in that language
    below = (
        [] if alone or rule.kind in ("chapter", "section") else lib.subtree(edition, rule.number)
    )
    found = pairs(lib, edition, [rule.number] + [r.number for r in below], other)
    return Parallel((first, other), edition, tuple(found))


def counterparts(lib: Library, hits, lang: str, other: str) -> dict[int, dict]:
    """For `search --parallel`: each hit's counterpart in language `other`, by hit position
    (a rule through `counterpart_edition`; a glossary entry by its English name)."""
    target = lib.glossary_edition(other) if other != lang else None
    links = Links(lib, lang)
    out = {}
    for i, h in enumerate(hits):
        if h.number:
            found = counterpart_edition(lib, h.edition, h.number, other, links)
            rule = lib.get(*found) if found else None
            if rule:
                out[i] = {
                    "edition": found[0],
                    "number": rule.number,
                    "title": rule.title,
                    "text": rule.text,
                }
        elif target:
            entry = lib.glossary_term(h.edition, h.title)
            name = (entry.english or entry.term) if entry else h.title
            twins, _ = lib.named(target, fold(name))
            if twins:
                out[i] = {
                    "edition": target,
                    "number": None,
                    "title": twins[0].term,
                    "text": twins[0].definition,
                }
    return out


def definitions_through_english(lib: Library, edition: str, term: str) -> list:
    """An English term the edition's glossary lacks: its keyword rule, in the edition's language.

    ("define adapt --lang ru": the Russian glossary has no Adapt, but 701.42 of the Russian
    edition is its rule, found by pairing the English rule with its translation.)
    """
    from crlookup.features.definitions import Definition, define

    english = lib.glossary_edition("en")
    out = []
    for d in define(lib, english, term):
        if d.rule is None:
            continue
        found = counterpart_edition(lib, english, d.rule.number, lib.edition(edition).lang)
        if found and found[0] == edition:
            rule = lib.get(edition, found[1])
            if rule is not None:
                subrules = tuple(lib.subtree(edition, rule.number))
                out.append(Definition(d.name, None, None, rule, subrules, d.score))
    return out


def carried(lib: Library, edition: str, number: str, target: str) -> str | None:
    """The number in edition `target` of rule `number` of `edition` (of the same language,
    through the stored alignments; of another, through same-date translations), or None."""
    info = lib.edition(target)
    links = Links(lib, info.lang)
    if lib.edition(edition).lang == info.lang:
        return links.numbers(edition, number).get(target)
    twin = counterpart_edition(lib, edition, number, info.lang)
    if twin and twin[0] != target:
        return links.numbers(twin[0], twin[1]).get(target)
    return twin[1] if twin else None
