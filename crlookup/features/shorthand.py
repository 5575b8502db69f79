"""The judges' words for the tournament documents' words (shorthand.txt, one line each): "GRV"
is a Game Rule Violation, "HCE" a Hidden Card Error, "phone" the MTR's electronic devices.

`ask` reads them in a question (crlookup.features.ask.procedure: the document that decides it,
its entries' words); typed alone, an infraction's name or shorthand is its IPG entry
(`infraction`: `crlookup HCE`, `crlookup "missed trigger"`), and `search --doc` searches a
shorthand's words (`spelled_out`).
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crlookup.library.reader import Library

SHORTHAND = "shorthand.txt"  # beside this module
INFRACTIONS = "ipg"  # the document whose entries an infraction's name finds
MAX_WORDS = 10  # an infraction's name is short, with its category ("Game Play Error — ...")


@functools.cache
def lines() -> tuple[tuple[tuple[str, ...], str], ...]:
    """Each line: the judge's or player's words (alternatives, as written) and the documents'
    words they stand for."""
    out = []
    path = os.path.join(os.path.dirname(__file__), SHORTHAND)
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            said, _eq, meant = line.rpartition(" = ")
            words = tuple(w.strip() for w in said.split("|") if w.strip())
            out.append((words, meant.strip()))
    return tuple(out)


def spelled_out(text: str) -> str | None:
    """The documents' words for `text` when the whole of it is a judge's shorthand ("GRV":
    "game rule violation"), else None."""
    from crlookup.core.model import fold

    said = fold(text)
    return next((meant for words, meant in lines() if said in words), None)


def infraction(lib: Library, text: str) -> str | None:
    """The IPG entry (as judges write it: "IPG 2.3") that `text` names alone: an infraction's
    name ("hidden card error", "Game Play Error — Hidden Card Error") or its shorthand
    ("HCE"); None for anything else, or a library without the IPG."""
    from crlookup.core.documents import label
    from crlookup.core.model import fold

    if not text or len(text.split()) > MAX_WORDS or any(c.isdigit() for c in text):
        return None
    if not any(e.lang == "en" for e in lib.editions(INFRACTIONS)):
        return None
    edition = lib.edition(lang="en", document=INFRACTIONS).id
    for name in dict.fromkeys((fold(text), fold(spelled_out(text) or ""))):
        _terms, entry = lib.named(edition, name) if name else ((), None)
        if entry is not None:  # (the build names each entry by its title: names table)
            return label(INFRACTIONS, entry.number)
    return None
