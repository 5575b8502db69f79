"""The judges' words for the tournament documents' words (shorthand.txt, one line each): "GRV"
is a Game Rule Violation, "HCE" a Hidden Card Error, "phone" the MTR's electronic devices.

`ask` reads them in a question (crlookup.features.ask.procedure: the document that decides it,
its entries' words); typed alone, an entry's name or shorthand is that entry (`entry_named`:
`crlookup HCE`, `crlookup "missed trigger"`, `crlookup REL`); `define` defines the glossary term a
rules' shorthand stands for ("APNAP", "ETB"), and `search` searches a shorthand's words
(`spelled_out`).
"""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crlookup.library.reader import Library

SHORTHAND = "shorthand.txt"  # beside this module
INFRACTIONS = "ipg"  # the document whose entries a name finds first
MAX_WORDS = 10  # an infraction's name is short, with its category ("Game Play Error — ...")


@functools.cache
def lines(whose: str | None = None) -> tuple[tuple[tuple[str, ...], str], ...]:
    """Each line: the judge's or player's words (alternatives, as written) and the documents'
    words they stand for; of one part of the file (`whose`: "cr" or "tournament"), or all."""
    out = []
    part = None
    path = os.path.join(os.path.dirname(__file__), SHORTHAND)
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                part = line[1:-1]
            if not line or line.startswith("#") or "=" not in line or whose not in (None, part):
                continue
            said, _eq, meant = line.rpartition(" = ")
            words = tuple(w.strip() for w in said.split("|") if w.strip())
            out.append((words, meant.strip()))
    return tuple(out)


def spelled_out(text: str, whose: str | None = None) -> str | None:
    """The documents' words for `text` when the whole of it is a judge's shorthand ("GRV":
    "game rule violation"; "ETB": "enters the battlefield"), else None; of the Comprehensive
    Rules' or the tournament documents' shorthand only (`whose`: "cr", "tournament")."""
    from crlookup.core.model import fold

    said = fold(text)
    return next((meant for words, meant in lines(whose) if said in words), None)


_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def names_for(term: str) -> list[str]:
    """The names (folded) `term` is looked up by, first found first: as written; without an
    article ("the stack"); the rules' words a judge's shorthand stands for ("APNAP": "apnap
    order"), and each of two ("P/T": "power", "toughness")."""
    from crlookup.core.model import fold

    plain = _ARTICLE.sub("", term.strip())
    meant = spelled_out(plain, "cr") or ""
    return list(dict.fromkeys(filter(None, [fold(term), fold(plain), fold(meant), *(
        fold(part) for part in meant.split(" and ") if part != meant)])))  # fmt: skip


def entry_named(lib: Library, text: str) -> str | None:
    """The tournament document's entry (as judges write it: "IPG 2.3", "MTR 1.6") that `text`
    names alone: an infraction's name ("hidden card error", "Game Play Error — Hidden Card
    Error"), an entry's title ("rules enforcement levels") or their shorthand ("HCE", "REL");
    the IPG's first; None for anything else, or a library without those documents."""
    from crlookup.core.documents import TOURNAMENT, label
    from crlookup.core.model import fold

    if not text or len(text.split()) > MAX_WORDS or any(c.isdigit() for c in text):
        return None
    names = [
        n for n in dict.fromkeys((fold(text), fold(spelled_out(text, "tournament") or ""))) if n
    ]
    for document in sorted(TOURNAMENT, key=lambda d: d != INFRACTIONS):
        if not any(e.lang == "en" for e in lib.editions(document)):
            continue
        edition = lib.edition(lang="en", document=document).id
        for name in names:
            _terms, entry = lib.named(edition, name)
            if entry is not None:  # (the build names each entry by its title: names table)
                return label(document, entry.number)
    return None
