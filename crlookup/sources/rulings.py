"""The rulings file: the cards' official rulings, as gzip-compressed JSON Lines.

Layout (data/cards-rulings.jsonl.gz; Gatherer's rulings as MTGJSON version 3 carried them,
2004 to October 2018): one JSON object a line, `card` (the card's name; a split card's halves
each by their own name, "Fire", "Ice"), `date` ("2018-03-16") and `text`.

Contract: ``read(path, data) -> list[Ruling]`` in file order; a file that is missing or not
gzip, a line that is not UTF-8 or not a JSON object, or a field missing or of the wrong shape
raises `SourceError` naming the file and the line, and nothing is half-read. (Rulings are not
editions: this parser is not one of `crlookup.sources.FORMATS`.)
"""

from __future__ import annotations

import re
from pathlib import Path

from crlookup.core.errors import SourceError
from crlookup.core.model import Ruling, Source
from crlookup.core.names import CONTROL, MAX_NAME
from crlookup.sources.cards import file_data, gzip_lines, json_lines

_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_EXPECTED = "a JSON object (one ruling a line: card, date, text)"


def read(path: str | Path, data: bytes | None = None) -> list[Ruling]:
    """Every ruling of the file, in file order."""
    from datetime import date

    path = Path(path)
    data = file_data(path, data, "a readable rulings file")
    lines = gzip_lines(path, data, "a gzip-compressed JSON Lines file of rulings")
    out: list[Ruling] = []
    for number, item in json_lines(path, lines, _EXPECTED):
        if not isinstance(item, dict):
            raise SourceError(path, number, _EXPECTED, type(item).__name__)
        card, day, text = item.get("card"), item.get("date"), item.get("text")
        if (
            not isinstance(card, str)
            or not card.strip()
            or len(card) > MAX_NAME
            or CONTROL.search(card)
        ):
            raise SourceError(path, number, "a card name as `card`", repr(card))
        if not isinstance(day, str) or not _DATE.fullmatch(day):
            raise SourceError(path, number, "a `date` as YYYY-MM-DD", repr(day))
        try:
            date.fromisoformat(day)
        except ValueError:
            raise SourceError(path, number, "a `date` that is a day", day) from None
        if not isinstance(text, str) or not text.strip():
            raise SourceError(path, number, "the ruling's `text`", repr(text))
        out.append(Ruling(card.strip(), day, text.strip(), Source(path.name, number)))
    if not out:
        raise SourceError(path, None, "at least one ruling", "an empty file")
    return out
