"""Glossary look-ups: a term by any of its headwords, typo-tolerant, with "See X." followed,
and keyword abilities and actions led to the rules that define them.

Names are matched folded (case, ё/е, spacing); a name that matches nothing exactly is matched
with rapidfuzz against every headword and keyword name of the edition, best first.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import NamedTuple

from crlookup.core.errors import NotFound
from crlookup.core.i18n import _
from crlookup.core.model import GlossaryEntry, Rule, detect_lang, fold
from crlookup.features.shorthand import names_for
from crlookup.library.reader import Library


class Definition(NamedTuple):
    """One answer to `define`: a glossary entry and/or the rule defining a keyword."""

    name: str
    entry: GlossaryEntry | None
    see: GlossaryEntry | None  # where a "See X." entry sends the reader
    rule: Rule | None  # the keyword's rule (701.x / 702.x), with its subrules below
    subrules: tuple[Rule, ...]
    score: float  # 100 for an exact match


@dataclass(frozen=True)
class Definitions:
    """What `crlookup define` found for `query` in `edition`'s glossary, best first."""

    query: str
    edition: str
    found: tuple[Definition, ...]
    nearest: tuple[str, ...] = ()  # found nothing: the names nearest to the query

    def to_dict(self) -> dict:
        e = self.edition
        return {
            "query": self.query,
            "edition": e,
            "matches": [
                {
                    "name": d.name,
                    "score": d.score,
                    "glossary": d.entry.to_dict(e) if d.entry else None,
                    "see": d.see.to_dict(e) if d.see else None,
                    "rule": d.rule.to_dict(e) if d.rule else None,
                    "subrules": [r.to_dict(e) for r in d.subrules],
                }
                for d in self.found
            ],
        }


def lookup(
    lib: Library, term: str, lang: str | None = None, edition: str | None = None
) -> Definitions:
    """`term` in the glossary of `edition`, else of the newest edition of `lang` (by default
    the term's language, from its script) that has one; none found, an empty result
    (crlookup.api then tries the English glossary for a translation, and says NotFound)."""
    if edition:
        edition = lib.edition(edition).id
    else:
        lang = lang or detect_lang(term)
        edition = lib.glossary_edition(lang)
    found = tuple(define(lib, edition, term))
    return Definitions(term, edition, found, () if found else tuple(nearest(lib, edition, term)))


def in_tournament_documents(lib: Library, term: str) -> Definitions | None:
    """A tournament document's entry that `term` names, or that the judges' shorthand stands
    for ("REL": MTR 1.6, "HCE": IPG 2.3), as a definition; None if none is named."""
    from crlookup.features.shorthand import entry_named

    named = entry_named(lib, term)
    if named is None:
        return None
    edition, rule = lib.entry(named)
    found = Definition(
        rule.title, None, None, rule, tuple(lib.subtree(edition, rule.number)), 100.0
    )
    return Definitions(term, edition, (found,))


def not_found(found: Definitions) -> NotFound:
    """The error for a look-up that found nothing, with the nearest names there are (and what a
    tournament's shorthand stands for: "FNM" is Friday Night Magic)."""
    from crlookup.features.shorthand import spelled_out

    meant = spelled_out(found.query, "tournament")
    if meant:
        return NotFound(
            _(
                "{term} ({meant}) is the tournament documents' word, not the glossary's: "
                "crlookup search --doc all {query}"
            ).format(term=found.query, meant=meant, query=shlex.quote(meant)),
            [],
        )
    return NotFound(
        _("no glossary term or keyword {term!r} in {edition}").format(
            term=found.query, edition=found.edition
        ),
        list(found.nearest),
    )


#: How alike (rapidfuzz's ratio) a misspelt name must be to a name to be read as it:
#: "deathtuch" is deathtouch (95); "ward" is not "card" (75), in an edition without ward.
#: A short name needs more: one letter of four is a quarter of it.
MISSPELT = 85
MISSPELT_SHORT = 90
SHORT = 5


def _misspelt(wanted: str, score: float) -> bool:
    return score >= (MISSPELT_SHORT if len(wanted) <= SHORT else MISSPELT)


def nearest(lib: Library, edition: str, term: str, limit: int = 3) -> list[str]:
    """The names of `edition`'s glossary and keywords nearest to `term` (no answer of them)."""
    from rapidfuzz import fuzz, process

    names = [n for n in lib.names(edition) if len(n) > 2]
    found = process.extract(fold(term), names, scorer=fuzz.ratio, limit=limit, score_cutoff=60)
    return [name for name, _score, _ in found]


def define(lib: Library, edition: str, term: str, limit: int = 5) -> list[Definition]:
    """Definitions of `term` in `edition`, best first (only the exact one, if there is one;
    by the names it is looked up by: `names_for`)."""
    wanted = fold(term)
    exact = [n for n in names_for(term) if any(lib.named(edition, n))]
    if exact:
        matches = [(n, 100.0) for n in ([wanted] if wanted in exact else exact)]
    else:
        from rapidfuzz import fuzz, process

        names = [n for n in lib.names(edition) if len(n) > 2]
        found = process.extract(wanted, names, scorer=fuzz.ratio, limit=limit * 2, score_cutoff=75)
        matches = [(name, float(score)) for name, score, _ in found if _misspelt(wanted, score)]
    out: list[Definition] = []
    seen: set = set()
    for name, score in matches:
        entries, rule = lib.named(edition, name)
        candidates: list[GlossaryEntry | None] = [*entries] or [None]
        for entry in candidates:
            see = lib.glossary_term(edition, entry.see) if entry and entry.see else None
            if see is None and entry and entry.see:  # "See Active Player, ..." by headword
                see_entries, _ = lib.named(edition, fold(entry.see))
                see = see_entries[0] if see_entries else None
            if rule is None and entry is not None:  # a keyword's glossary entry leads to its rule
                rule = next(
                    (r for h in entry.headwords if (r := lib.named(edition, fold(h))[1])), None
                )
            key = (entry.term if entry else None, rule.number if rule else None)
            if key in seen:
                continue
            seen.add(key)
            subrules = tuple(lib.subtree(edition, rule.number)) if rule else ()
            if entry is not None:
                label = entry.term
            else:  # every name the library knows is a glossary entry's or a keyword rule's
                assert rule is not None
                label = rule.title
            out.append(Definition(label, entry, see, rule, subrules, score))
            if len(out) >= limit:
                return out
    return out
