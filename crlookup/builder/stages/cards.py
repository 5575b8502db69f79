"""The cards stage: the card data (crlookup.sources.cards, crlookup.sources.rulings) as one
SQLite file beside the rules, `cards.sqlite` (crlookup.library.cards reads it): each card as
JSON, every face completed from the faces file where the card file lacks it, the names it is
found by, its rulings, and FTS5 indexes of its name, type line and every face's Oracle text, and
of the rulings' text.

(SQLite's FTS5 rather than whoosh: a whoosh index of the 34,565 cards took 5.8 s to build on
two processes, FTS5 0.3 s; the rules keep whoosh for its Russian and Polish analysis.)

The card database of the card data is built once per content (the card file's, its faces', its
rulings') into the home's `parsed/` cache and linked into each library. A card file that is
missing or unreadable does not fail the build: the library records its one-line message (the
rules stay usable; every card feature repeats it). A faces or rulings file that is missing or
unreadable loses only itself: the cards are built without it, and the library records its
one-line message (the command line says it once; `card` says the rulings are unavailable).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from typing import TYPE_CHECKING

from crlookup.builder.manifest import CARD_FACES, CARDS, RULINGS
from crlookup.builder.stage import Build, Finding, Finish, nothing
from crlookup.core.errors import SourceError
from crlookup.library.cards import Cards, _keys_of
from crlookup.library.database import (
    CARDS_DB,
    DB,
    SCHEMA,
    check_database,
    connect,
    file_sha256,
    write_atomic,
    write_meta,
)
from crlookup.version import __version__

if TYPE_CHECKING:
    from collections.abc import Iterable

    from crlookup.builder.manifest import SourceFile
    from crlookup.core.model import Card, Ruling


_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT UNIQUE, layout TEXT, alchemy INTEGER,
                    data TEXT);
CREATE TABLE names (key TEXT, card INTEGER, kind INTEGER);
CREATE INDEX names_key ON names (key);
CREATE VIRTUAL TABLE card_text USING fts5(
    name, types, text, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE ruling_texts (id INTEGER PRIMARY KEY, text TEXT);
CREATE TABLE rulings (card INTEGER, face TEXT, date TEXT, text INTEGER);
CREATE INDEX rulings_card ON rulings (card);
CREATE INDEX rulings_text ON rulings (text);
CREATE VIRTUAL TABLE ruling_text USING fts5(
    text, content = 'ruling_texts', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2');
"""
# A ruling's text is kept once (ruling_texts), however many cards have it (Blood Moon's are
# Magus of the Moon's too: 31,358 rulings of 16,737 texts), and indexed from there.
_WORDS = re.compile(r"[^\W\d_]{2,}")


def write(
    path: str,
    cards: Iterable[Card],
    rulings: Iterable[Ruling] = (),
    status: dict | None = None,
) -> int:
    """Write the card database to `path` (a new file); returns how many cards it holds.
    `rulings` are attached to the cards they name (`attach`); `status` says what became of
    the faces and rulings files ({"faces": ..., "rulings": ...}), recorded in its meta."""
    db = sqlite3.connect(path)
    count = 0
    vocabulary: dict[str, int] = {}
    keys: set[str] = set()
    cards = list(cards)
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
            for w in _WORDS.findall(f"{card.name} {types} {text}".casefold()):
                vocabulary[w] = vocabulary.get(w, 0) + 1
        db.executemany("INSERT INTO cards VALUES (?,?,?,?,?)", rows)
        db.executemany("INSERT INTO names VALUES (?,?,?)", names)
        db.executemany("INSERT INTO card_text (rowid, name, types, text) VALUES (?,?,?,?)", texts)
        attached = attach(cards, rulings)
        text_ids: dict[str, int] = {}
        for row in attached:
            text_ids.setdefault(row[3], len(text_ids) + 1)
        db.executemany(
            "INSERT INTO ruling_texts (id, text) VALUES (?,?)",
            [(n, t) for t, n in text_ids.items()],
        )
        db.executemany(
            "INSERT INTO ruling_text (rowid, text) VALUES (?,?)",
            [(n, t) for t, n in text_ids.items()],
        )
        db.executemany(
            "INSERT INTO rulings (card, face, date, text) VALUES (?,?,?,?)",
            [(i, under, day, text_ids[text]) for i, under, day, text in attached],
        )
        if status and status.get("rulings") and "error" not in status["rulings"]:
            status = {
                **status,
                "rulings": {
                    **status["rulings"],
                    "rulings": len(attached),
                    "cards": len({row[0] for row in attached}),
                },
            }
        ruling_words: dict[str, int] = {}
        for text in text_ids:
            for w in _WORDS.findall(text.casefold()):
                ruling_words[w] = ruling_words.get(w, 0) + 1
        meta = [
            ("count", str(count)),
            ("keys", "\n".join(sorted(keys))),
            ("vocabulary", json.dumps(vocabulary, ensure_ascii=False)),
            ("ruling_vocabulary", json.dumps(ruling_words, ensure_ascii=False)),
        ]
        for part, value in (status or {}).items():
            if value is not None:
                meta.append((part, json.dumps(value, ensure_ascii=False)))
        db.executemany("INSERT INTO meta VALUES (?,?)", meta)
        db.execute("INSERT INTO card_text (card_text) VALUES ('optimize')")
        db.execute("INSERT INTO ruling_text (ruling_text) VALUES ('optimize')")
    db.close()
    return count


def attach(cards: list[Card], rulings: Iterable[Ruling]) -> list[tuple[int, str, str, str]]:
    """(card id, face, date, text) of each ruling, for the card it names (ids are 1-based
    positions in `cards`): the card of that name, else the card with a face of that name (a
    split card's halves, "Fire", "Ice"; of several such cards, those with the most of their
    faces named by the rulings: "Start" is Start // Finish's, not Start // Fire's). A ruling
    given under several names of one card is kept once, its face ""; a name no card has (an
    Un-set variant, "Sly Spy (a)") is left out."""
    rulings = list(rulings)
    by_name = {card.name: i for i, card in enumerate(cards, 1)}
    by_face: dict[str, list[int]] = {}
    for i, card in enumerate(cards, 1):
        if len(card.faces) > 1:
            for face in card.faces:
                by_face.setdefault(face.name, []).append(i)
    named = {r.name for r in rulings}

    def named_faces(i: int) -> int:
        return sum(f.name in named for f in cards[i - 1].faces)

    targets: dict[str, list[int]] = {}
    for name in named:
        if name in by_name:
            targets[name] = [by_name[name]]
        elif name in by_face:
            ids = by_face[name]
            best = max(named_faces(i) for i in ids)
            targets[name] = [i for i in ids if named_faces(i) == best]
    kept: dict[tuple[int, str, str], list] = {}  # (card, date, text) -> [card, face, date, text]
    for r in rulings:
        for i in targets.get(r.name, ()):
            under = r.name if r.name != cards[i - 1].name else ""
            row = kept.get((i, r.date, r.text))
            if row is None:
                kept[(i, r.date, r.text)] = [i, under, r.date, r.text]
            elif row[1] != under:
                row[1] = ""  # given under several of its names: the whole card's
    return [(i, under, day, text) for i, under, day, text in kept.values()]


def _dumps(card: Card) -> str:
    """The card as positional JSON (its fields in order, without their names: half the size)."""
    return json.dumps(card, ensure_ascii=False, separators=(",", ":"))


def cache_name(sha: str) -> str:
    return f"cards-{sha[:32]}-{__version__}-{SCHEMA}.sqlite"


def card_data(
    files: list[SourceFile], sources: list[dict]
) -> list[tuple[tuple[str, str], tuple[str, str] | None, tuple[str, str] | None]]:
    """Each card file's data: ((path, sha256) of the card file, of its faces file, of its
    rulings file (None for one the manifest does not list)), the companions taken from the
    same folder's manifest (the same origin)."""
    out = []
    for f, s in zip(files, sources):
        if f.format != CARDS:
            continue
        companions: dict[str, tuple[str, str]] = {}
        for g, t in zip(files, sources):
            if g.format in (CARD_FACES, RULINGS) and g.origin == f.origin:
                companions.setdefault(g.format, (g.path, t["sha256"]))
        out.append(((f.path, s["sha256"]), companions.get(CARD_FACES), companions.get(RULINGS)))
    return out


def content_key(card, faces, rulings) -> str:
    """What the card database of this card data is cached by: the card file's content, its
    faces' and its rulings' (a missing file's sha256 is "")."""
    if faces is None and rulings is None:
        return card[1]
    parts = [card[1], faces[1] if faces else "-", rulings[1] if rulings else "-"]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def cache_names(files: list[SourceFile], sources: list[dict]) -> set[str]:
    """The names in `parsed/` of the card databases of these sources (the others are stale)."""
    return {cache_name(content_key(*data)) for data in card_data(files, sources)}


def build_cards(card, faces, rulings, library_path: str, cache: str) -> dict:
    """Put the card database of the card data into the library being built (built once per
    content, in `cache`, then linked): `card`, `faces`, `rulings` are (path, sha256) of the
    card file and its companions (None: none). Returns what the library records of it:
    {"file", "cards", "faces", "rulings"} (the companions' {"file", ...counts} or
    {"file", "error"}, None where there is none), or {"file", "error"} (a one-line message)
    if the card file is missing or unreadable: the rules are built all the same."""
    import shutil
    import uuid

    from crlookup.sources import cards as card_file

    name = os.path.basename(card[0])
    target = os.path.join(library_path, CARDS_DB)
    cached = os.path.join(cache, cache_name(content_key(card, faces, rulings)))
    try:
        digest = _sound(cached)
        if digest is None:  # not made yet, or damaged since (through a library's link to it)
            found = card_file.read(card[0])
            found, status, read_rulings = _companions(found, faces, rulings)
            os.makedirs(cache, exist_ok=True)
            tmp = f"{cached}.{uuid.uuid4().hex[:8]}.tmp"
            try:
                write(tmp, found, read_rulings, status)
                digest = file_sha256(tmp)
                write_atomic(cached + DIGEST, digest.encode("ascii"))
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
        return {
            "file": name,
            "cards": len(built),
            "faces": built.status("faces"),
            "rulings": built.status("rulings"),
        }


DIGEST = ".sha256"  # beside a card database in parsed/: its sha256, written when it was made


def _sound(cached: str) -> str | None:
    """The sha256 of the card database `cached` if it is as it was made (40 MB: 0.1 s, in a
    build); None if it is missing or not (then it and its digest are removed)."""
    try:
        with open(cached + DIGEST, encoding="ascii") as f:
            recorded = f.read().strip()
        if file_sha256(cached) == recorded:
            return recorded
    except (OSError, ValueError):
        pass
    for path in (cached, cached + DIGEST):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    return None


def _companions(found: list[Card], faces, rulings) -> tuple[list[Card], dict, list[Ruling]]:
    """The cards completed with the faces file, what became of the faces and rulings files,
    and the rulings read: a file that cannot be read is left out, its message recorded."""
    from crlookup.sources import cards as card_file
    from crlookup.sources import rulings as ruling_file

    status: dict[str, dict | None] = {"faces": None, "rulings": None}
    read_rulings: list[Ruling] = []
    if faces is not None:
        try:
            supplement = card_file.read_faces(faces[0])
        except SourceError as e:
            status["faces"] = {"file": os.path.basename(faces[0]), "error": str(e)}
        else:
            found, completed = card_file.complete(found, supplement)
            status["faces"] = {
                "file": os.path.basename(faces[0]),
                "completed": completed,
                "incomplete": sum(c.faces_incomplete for c in found),
            }
    if rulings is not None:
        try:
            read_rulings = ruling_file.read(rulings[0])
        except SourceError as e:
            status["rulings"] = {"file": os.path.basename(rulings[0]), "error": str(e)}
        else:
            status["rulings"] = {"file": os.path.basename(rulings[0])}  # `write` counts them
    return found, status, read_rulings


class CardDatabase:
    """The stage: the card database of each card file, built in the pool (once per content,
    then linked), and what the library records of it (its count, or why there is none). A
    library built from another keeps its card database (linked with the rest of its files)."""

    name = "cards"
    reads: tuple[str, ...] = ("the card file", "its faces file", "its rulings file")
    writes: tuple[str, ...] = (CARDS_DB, f"{DB}: meta cards")
    TABLES = frozenset(
        {"meta", "cards", "names", "card_text", "rulings", "ruling_texts", "ruling_text"}
    )

    def run(self, build: Build) -> Finish:
        if build.base:
            return nothing
        cache = str(build.root / "parsed")
        waiting = [
            build.submit(build_cards, card, faces, rulings, str(build.path), cache)
            for card, faces, rulings in card_data(build.files, build.stamp["sources"])
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
        # (a change SQLite cannot see is found by the library's checksums: doctor compares them)
        return [Finding(CARDS_DB, file, check_database(file, self.TABLES))]


STAGE = CardDatabase()
