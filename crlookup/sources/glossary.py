"""Glossary entries from a term and its definition, the same for every source format.

"Control, Controller" is found by either word; "Bury (Obsolete)" is marked obsolete;
"See Active Player, Nonactive Player Order." sends the reader to that term.
"""

from __future__ import annotations

import re

from crlookup.model import GlossaryEntry, Source

_OBSOLETE = re.compile(r"\s*\((?:Obsolete|устар\.?)\)\s*$", re.I)
_SEE = re.compile(r"^(?:See|Смотрите|См\.)\s+(?!rules?\b|section\b|правил|раздел)(.+?)\.?$", re.I)
_QUOTES = "\"'“”‘’«»"


def headwords(term: str) -> tuple[str, ...]:
    """The names a term is found by: the whole term and each comma-separated part."""
    base = _OBSOLETE.sub("", term).strip()
    words = [base]
    if "," in base:
        for part in base.split(","):
            part = part.strip().strip(_QUOTES + ",").strip()
            if part and part not in words:
                words.append(part)
    return tuple(words)


def entry(term: str, definition: str, source: Source, **extra) -> GlossaryEntry:
    term = term.strip()
    definition = definition.strip()
    see = ""
    m = _SEE.match(definition)
    if m and "\n" not in definition:
        see = m.group(1).strip()
    return GlossaryEntry(
        term=term,
        definition=definition,
        source=source,
        headwords=headwords(term),
        see=see,
        obsolete=bool(_OBSOLETE.search(term)),
        **extra,
    )
