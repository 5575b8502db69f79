"""The rules a card's ruling applies: each official ruling linked to the rules that decide the
interaction it states.

A ruling almost never cites a rule number (16 of 31,564 do); it states the interaction in words
("If a nonbasic land has an ability that triggers "when" it enters the battlefield, it will lose
that ability before it triggers."). So a ruling is read as `ask` reads a question, by the same
lexical and semantic means, against the newest English edition, and its best answers are its
rules (crlookup.features.ask.rulings `link`, for many rulings at once);
scripts/link_rulings.py runs it over every shipped ruling and ships the result
(data/ruling-links.json.gz), so that neither a build nor `card` reads 16,760 rulings as
questions (about 55 ms each). `rules_for` reads what was shipped, and imports nothing of ask.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crlookup.library.reader import Library

LINKS = "ruling-links.json.gz"  # in data/: {"edition": id, "links": {key: [numbers]}}


def key(text: str) -> str:
    """A ruling's text as the shipped links know it."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:12]


def shipped() -> dict:
    """The shipped links ({"edition", "links"}), or empty ones if the file is missing or
    unreadable (`card` then shows rulings without their rules)."""
    import gzip
    import json
    import os

    from crlookup.core.paths import package_data

    try:
        with gzip.open(os.path.join(package_data(), LINKS), "rt", encoding="utf-8") as f:
            data = json.load(f)
        return {"edition": str(data["edition"]), "links": dict(data["links"])}
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return {"edition": "", "links": {}}


def rules_for(lib: Library, text: str) -> list[str]:
    """The rules a ruling applies, best first: numbers of the newest English edition (those
    the shipped links name that it still has)."""
    links = lib.memo(("rulings", "links"), shipped)
    numbers = links["links"].get(key(text), [])
    if not numbers:
        return []
    newest = lib.edition().id
    if links["edition"] == newest:
        return list(numbers)
    return [n for n in numbers if lib.get(newest, n) is not None]
