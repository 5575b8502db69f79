"""The cards stage: the card file (crlookup.sources.cards) as one SQLite file beside the rules,
`cards.sqlite` (crlookup.library.cards reads it): each card as JSON, the names it is found by,
and an FTS5 index of its name, type line and Oracle text.

(SQLite's FTS5 rather than whoosh: a whoosh index of the 34,565 cards took 5.8 s to build on
two processes, FTS5 0.3 s; the rules keep whoosh for its Russian and Polish analysis.)

The card database of a card file is built once per content into the home's `parsed/` cache and
linked into each library. A card file that is missing or unreadable does not fail the build: the
library records its one-line message (the rules stay usable; every card feature repeats it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from typing import TYPE_CHECKING

from crlookup.build.manifest import CARDS
from crlookup.build.stage import Build, Finding, Finish, nothing
from crlookup.core.errors import SourceError
from crlookup.library.cards import CARDS_DB, Cards, _keys_of
from crlookup.library.database import DB, SCHEMA, check_database, connect, write_meta
from crlookup.version import __version__

if TYPE_CHECKING:
    from collections.abc import Iterable

    from crlookup.core.model import Card


_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT UNIQUE, layout TEXT, alchemy INTEGER,
                    data TEXT);
CREATE TABLE names (key TEXT, card INTEGER, kind INTEGER);
CREATE INDEX names_key ON names (key);
CREATE VIRTUAL TABLE card_text USING fts5(
    name, types, text, tokenize = 'porter unicode61 remove_diacritics 2');
"""


def write(path: str, cards: Iterable[Card]) -> int:
    """Write the card database to `path` (a new file); returns how many cards it holds."""
    db = sqlite3.connect(path)
    count = 0
    vocabulary: dict[str, int] = {}
    keys: set[str] = set()
    with db:
        db.executescript(_SCHEMA)
        names, texts, rows = [], [], []
        for i, card in enumerate(cards, 1):
            count += 1
            rows.append((i, card.name, card.layout, int(card.alchemy), _dumps(card)))
            for key, kind in _keys_of(card.name, [f.name for f in card.faces]):
                names.append((key, i, kind))
                keys.add(key)
            types = " // ".join(f.type_line for f in card.faces if f.type_line)
            text = "\n".join(f.text for f in card.faces if f.text)
            texts.append((i, card.name, types, text))
            for w in re.findall(r"[^\W\d_]{2,}", f"{card.name} {types} {text}".casefold()):
                vocabulary[w] = vocabulary.get(w, 0) + 1
        db.executemany("INSERT INTO cards VALUES (?,?,?,?,?)", rows)
        db.executemany("INSERT INTO names VALUES (?,?,?)", names)
        db.executemany("INSERT INTO card_text (rowid, name, types, text) VALUES (?,?,?,?)", texts)
        db.executemany(
            "INSERT INTO meta VALUES (?,?)",
            [
                ("count", str(count)),
                ("keys", "\n".join(sorted(keys))),
                ("vocabulary", json.dumps(vocabulary, ensure_ascii=False)),
            ],
        )
        db.execute("INSERT INTO card_text (card_text) VALUES ('optimize')")
    db.close()
    return count


def _dumps(card: Card) -> str:
    """The card as positional JSON (its fields in order, without their names: half the size)."""
    return json.dumps(card, ensure_ascii=False, separators=(",", ":"))


def cache_name(sha: str) -> str:
    return f"cards-{sha[:32]}-{__version__}-{SCHEMA}.sqlite"


def build_cards(path: str, sha: str, library_path: str, cache: str) -> dict:
    """Put the card database of the card file `path` into the library being built (built
    once per content, in `cache`, then linked); returns what the library records of it:
    {"file", "cards"}, or {"file", "error"} (a one-line message) if the file is missing or
    unreadable: the rules are built all the same."""
    import shutil
    import uuid

    from crlookup.sources import cards as card_file

    name = os.path.basename(path)
    target = os.path.join(library_path, CARDS_DB)
    cached = os.path.join(cache, cache_name(sha))
    try:
        if not os.path.exists(cached):
            found = card_file.read(path)
            os.makedirs(cache, exist_ok=True)
            tmp = f"{cached}.{uuid.uuid4().hex[:8]}.tmp"
            try:
                write(tmp, found)
                os.replace(tmp, cached)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        try:
            os.link(cached, target)  # never written again: one copy serves every library
        except OSError:
            shutil.copyfile(cached, target)
    except SourceError as e:
        return {"file": name, "error": str(e)}
    with contextlib.closing(Cards(target)) as built:
        return {"file": name, "cards": len(built)}


class CardDatabase:
    """The stage: the card database of each card file, built in the pool (once per content,
    then linked), and what the library records of it (its count, or why there is none). A
    library built from another keeps its card database (linked with the rest of its files)."""

    name = "cards"
    reads: tuple[str, ...] = ("the card file",)
    writes: tuple[str, ...] = (CARDS_DB, f"{DB}: meta cards")
    TABLES = frozenset({"meta", "cards", "names", "card_text"})

    def run(self, build: Build) -> Finish:
        if build.base:
            return nothing
        cache = str(build.root / "parsed")
        waiting = [
            build.submit(build_cards, f.path, s["sha256"], str(build.path), cache)
            for f, s in zip(build.files, build.stamp["sources"])
            if f.format == CARDS
        ]

        def finish() -> None:
            status = [wait() for wait in waiting]
            write_meta(build.db_path, "cards", status[0] if status else {})

        return finish

    def check(self, path: str) -> list[Finding]:
        with contextlib.closing(connect(os.path.join(path, DB))) as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'cards'").fetchone()
        status = json.loads(row[0]) if row else {}
        if not status or status.get("error"):
            return []  # built without cards: every card feature says why
        file = os.path.join(path, CARDS_DB)
        return [Finding(CARDS_DB, file, check_database(file, self.TABLES))]


STAGE = CardDatabase()
