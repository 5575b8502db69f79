"""The rules a card's ruling applies: each official ruling linked to the rules that decide the
interaction it states.

A ruling almost never cites a rule number (16 of 31,564 do); it states the interaction in words
("If a nonbasic land has an ability that triggers "when" it enters the battlefield, it will lose
that ability before it triggers."). So a ruling is read as `ask` reads a question, by the same
lexical and semantic means, against the newest English edition, and its best answers are its
rules (crlookup.features.ask.rulings `link`, for many rulings at once);
scripts/link_rulings.py runs it over every shipped ruling and ships the result
(data/ruling-links.sqlite), so that neither a build nor `card` reads 16,760 rulings as
questions (60-150 ms each). `rules_for` reads what was shipped, and imports nothing of ask.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    from crlookup.library.reader import Library

LINKS = "ruling-links.sqlite"  # in data/: tables meta (edition) and links (key, rules)


def key(text: str) -> str:
    """A ruling's text as the shipped links know it."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:12]


def save(path: str, edition: str, links: dict[str, list[str]], vectors: dict | None = None) -> None:
    """Write the links (a ruling's key -> its rules, best first, numbers of `edition`) to a
    new SQLite file at `path`, with each ruling's vector if `vectors` has it (key -> (int8
    bytes, scale): the ruling as the embedding model reads a passage, so that `ask` need not
    embed the rulings of the cards a question names, ~75 ms each): a lookup reads only the rows
    of the rulings it shows (loading all 16,760 from JSON cost 20-40 ms a process)."""
    import sqlite3

    vectors = vectors or {}
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute(
            "CREATE TABLE links (key TEXT PRIMARY KEY, rules TEXT NOT NULL, vector BLOB, "
            "scale REAL) WITHOUT ROWID"
        )
        db.execute("INSERT INTO meta VALUES ('edition', ?)", (edition,))
        db.executemany(
            "INSERT INTO links VALUES (?, ?, ?, ?)",
            sorted(
                (k, " ".join(numbers), *vectors.get(k, (None, None)))
                for k, numbers in links.items()
            ),
        )
    db.execute("VACUUM")
    db.close()


def _open(lib: Library | None = None) -> tuple[sqlite3.Connection, str] | None:
    """The shipped links, open read-only, and the edition they number rules in; None if the
    file is not shipped (`card` then shows rulings without their rules); ShippedDamaged if it
    is not as the package recorded it (it was read as no links at all: issue 47), checked
    by a stat if `lib`'s build found it sound as it is, else by its hash."""
    import sqlite3

    from crlookup.library import shipped

    sound = (lib.meta("stamp") or {}).get("shipped") if lib is not None else None
    path = shipped.verified(LINKS, sound)
    if not os.path.exists(path):
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        row = db.execute("SELECT value FROM meta WHERE key = 'edition'").fetchone()
    except sqlite3.Error:
        return None
    return (db, str(row[0])) if row else None


def rules_for(lib: Library, text: str) -> list[str]:
    """The rules a ruling applies, best first: numbers of the newest English edition (those
    the shipped links name that it still has)."""
    row, edition = _row(lib, "rules", text)
    numbers = row[0].split() if row else []
    if not numbers:
        return []
    newest = lib.edition().id
    if edition == newest:
        return numbers
    return [n for n in numbers if lib.get(newest, n) is not None]


def vectors_for(lib: Library, texts: list[str]) -> list[tuple[bytes, float] | None]:
    """Each ruling's shipped vector (int8 bytes and its scale), None where there is none."""
    rows = [_row(lib, "vector, scale", text)[0] for text in texts]
    return [(row[0], float(row[1])) if row and row[0] is not None else None for row in rows]


def _row(lib: Library, columns: str, text: str) -> tuple[tuple | None, str]:
    """A ruling's row of the shipped links (those `columns`), None if it has none or there
    are no links (or none with those columns: made before vectors were kept); and the edition
    they number rules in."""
    import sqlite3

    shipped = lib.memo(("rulings", "links"), lambda: _open(lib))
    if shipped is None:
        return None, ""
    db, edition = shipped
    try:
        row = db.execute(f"SELECT {columns} FROM links WHERE key = ?", (key(text),)).fetchone()
    except sqlite3.Error:
        return None, edition
    return row, edition
