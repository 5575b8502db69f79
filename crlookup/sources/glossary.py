"""Glossary entries from a term and its definition, the same for every source format.

"Control, Controller" (or "操控，操控者") is found by either word; "Bury (Obsolete)" (or "(устарело)") is marked
obsolete and found as "Bury"; "Cantrip (Informal)" is found as "Cantrip"; "See Active Player,
Nonactive Player Order." sends the reader to that term. A comma inside quotes («...», “...”)
does not split a term, and a part that is another entry's own term is not a headword of this
one ("Active Player, Nonactive Player Order" is not found as "Active Player").
"""

from __future__ import annotations

import re

from crlookup.core.chinese import has_chinese
from crlookup.core.model import Edition, GlossaryEntry, Source

_QUALIFIER = re.compile(
    r"\s*[(（](Obsolete|Informal|устар\.?|устарело|устаревшее|неоф\.?|已废止)[)）]\s*$", re.I
)
_OBSOLETE = {"obsolete", "устар", "устар.", "устарело", "устаревшее", "已废止"}
# the Chinese translators' remarks in a term: "使用/场上（译者注：这两个词在英文原文中相同）";
# "鹏洛客（旧译旅法师）" also names the old translation, found as a headword too
_REMARK = re.compile(r"\s*（(?:译者注|译注)[：:][^）]*）")
_FORMERLY = re.compile(r"\s*（旧译([^）]+)）")
_SEE = re.compile(r"^(?:See|Смотрите|См\.)\s+(?!rules?\b|section\b|правил|раздел)(.+?)\.?$", re.I)
_QUOTES = "\"'“”‘’«»„"
_QUOTED = re.compile(r"“([^”]*)”|\"([^\"]*)\"|«([^»]*)»")


def base_term(term: str) -> str:
    """The term without a trailing qualifier such as "(Obsolete)" or a translator's remark."""
    return _FORMERLY.sub("", _REMARK.sub("", _QUALIFIER.sub("", term))).strip()


def headwords(term: str) -> tuple[str, ...]:
    """The names a term is found by: the whole term and each comma-separated part (in
    Chinese also each part between "/" and the old translation a remark names)."""
    base = base_term(term)
    words = [base]
    parts = _split_outside_quotes(base)
    if has_chinese(base):
        parts = [p for part in parts for p in part.split("/")]
        parts += [m.group(1) for m in _FORMERLY.finditer(_QUALIFIER.sub("", term))]
    for part in parts if len(parts) > 1 else ():
        quoted = _QUOTED.findall(part)
        if quoted and not _QUOTED.sub("", part).strip():
            names = ["".join(q) for q in quoted]  # “Partner—[text],” “Partner with [name]”
        else:
            names = [part]
        for name in names:
            name = name.strip().strip(_QUOTES + ",").strip()
            if name and name not in words:
                words.append(name)
    return tuple(words)


def _split_outside_quotes(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for ch in text:
        if ch in "«“":
            quoted = True
        elif ch in "»”":
            quoted = False
        elif ch == '"':
            quoted = not quoted
        if ch in ",，" and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def entry(
    term: str, definition: str, source: Source, *, obsolete: bool = False, **extra
) -> GlossaryEntry:
    term = term.strip()
    definition = definition.strip()
    see = ""
    m = _SEE.match(definition)
    if m and "\n" not in definition:
        see = m.group(1).strip()
    q = _QUALIFIER.search(term)
    return GlossaryEntry(
        term=term,
        definition=definition,
        source=source,
        headwords=headwords(term),
        see=see,
        obsolete=obsolete or bool(q and q.group(1).lower() in _OBSOLETE),
        **extra,
    )


def distinct_headwords(edition: Edition) -> Edition:
    """Drop comma parts that are another entry's own term, so each name leads to one entry."""
    own = {base_term(g.term).lower() for g in edition.glossary}
    glossary = tuple(
        g._replace(
            headwords=(g.headwords[0], *tuple(h for h in g.headwords[1:] if h.lower() not in own))
        )
        if len(g.headwords) > 1
        else g
        for g in edition.glossary
    )
    return edition._replace(glossary=glossary)
