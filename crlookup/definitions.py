"""Glossary look-ups: a term by any of its headwords, typo-tolerant, with "See X." followed,
and keyword abilities and actions led to the rules that define them.

Matching folds case and ё/е; a term that matches no headword exactly is matched with rapidfuzz
against every headword and keyword name of the edition, best first.
"""

from __future__ import annotations

from typing import NamedTuple

from crlookup.library import Library
from crlookup.model import GlossaryEntry, Rule


def fold(text: str) -> str:
    return " ".join(text.casefold().replace("ё", "е").split())


class Definition(NamedTuple):
    """One answer to `define`: a glossary entry and/or the rule defining a keyword."""

    name: str
    entry: GlossaryEntry | None
    see: GlossaryEntry | None  # where a "See X." entry sends the reader
    rule: Rule | None  # the keyword's rule (701.x / 702.x), with its subrules below
    subrules: tuple[Rule, ...]
    score: float  # 100 for an exact match


def define(lib: Library, edition: str, term: str, limit: int = 5) -> list[Definition]:
    """Definitions of `term` in `edition`, best first (exact matches only, if there are any)."""
    entries = list(lib.glossary(edition))
    keywords = lib.keyword_rules(edition)
    names: dict[str, list] = {}
    for g in entries:
        for name in {*g.headwords, g.term, g.english} - {""}:
            names.setdefault(fold(name), []).append(g)
    by_title = {fold(r.title): r for r in keywords}
    for title in by_title:
        names.setdefault(title, [])
    wanted = fold(term)
    if wanted in names:
        found = [(wanted, 100.0)]
    else:
        from rapidfuzz import fuzz, process

        found = process.extract(wanted, list(names), scorer=fuzz.WRatio, limit=limit * 2, score_cutoff=80)
        found = [(name, float(score)) for name, score, _ in found]
    by_term = {fold(g.term): g for g in entries}
    out: list[Definition] = []
    seen: set = set()
    for name, score in found:
        rule = by_title.get(name)
        for entry in names[name] or [None]:
            key = (entry.term if entry else None, rule.number if rule else None)
            if key in seen:
                continue
            seen.add(key)
            see = by_term.get(fold(entry.see)) if entry and entry.see else None
            if rule is None and (entry or see):
                # a glossary entry of a keyword leads to its rule too
                for n in {fold(h) for h in (entry.headwords if entry else ())}:
                    rule = rule or by_title.get(n)
            subrules = tuple(lib.subtree(edition, rule.number)) if rule else ()
            out.append(Definition(entry.term if entry else rule.title, entry, see, rule, subrules, score))
    out.sort(key=lambda d: -d.score)
    return out[:limit]
