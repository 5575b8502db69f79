"""What real players' rules questions and their answers tell (crlookup/citations/, made by
scripts/count_citations.py): the rules the answers cite, by rule and by question word, and
the words players write (no typos)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

from crlookup.core.numbers import rule_of

JUDGED_FROM = "2009-07-11"  # the answers cite rules in numbering from the July 2009 renumbering on
PARENT_SHARE = 0.5  # of the answers citing a subrule's rule, the share counted for the subrule


class Cited(NamedTuple):
    """What answers to real players' rules questions cite (crlookup/citations/, made by
    scripts/count_citations.py)."""

    counts: dict[str, int]  # rule number -> answers citing it
    words: dict[str, dict[str, float]]  # question stem -> rules cited unusually often -> log lift


_CITED: list[Cited] = []  # read once


def with_rule(by_number: Mapping[str, float], number: str) -> float:
    """A subrule's value plus PARENT_SHARE of its rule's (answers cite rules loosely)."""
    rule = rule_of(number)
    own = by_number.get(number, 0)
    return own + PARENT_SHARE * by_number.get(rule, 0) if rule != number else own


def citations() -> Cited:
    """What answers cite, read once. The questions counted are English, so `words` are English
    stems: a question in another language reaches them through the English names of the
    terms it names ("защитник" is Defender)."""
    if not _CITED:
        counts = {number: int(n) for number, n in _citation_rows("rules.txt")}
        words = {
            stem: {r: float(v) for r, _, v in (p.partition(":") for p in rest)}
            for stem, *rest in _citation_rows("en.txt")
        }
        _CITED.append(Cited(counts, words))
    return _CITED[0]


def _citation_rows(name: str) -> list[list[str]]:
    """The rows of crlookup/citations/<name>, split on spaces, its # header left out (none if
    the file is missing)."""
    package = os.path.dirname(os.path.abspath(__file__))  # crlookup/features/ask/
    path = os.path.join(package, "citations", name)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


_WRITTEN: dict[str, frozenset[str]] = {}  # read once


def written(lang: str) -> frozenset[str]:
    """The words players write in rules questions (crlookup/citations/words.txt, English)."""
    if lang not in _WRITTEN:
        rows = _citation_rows("words.txt") if lang == "en" else []
        _WRITTEN[lang] = frozenset(word for word, *_rest in rows)
    return _WRITTEN[lang]
