"""A built library's health: each part checked, and what is damaged, by name and path.

The parts are the rules database (library.sqlite: SQLite's own quick check, and the tables a
build writes), the full-text index of each language (opened, its terms and stored texts read,
its lists of each edition's documents), the card database (when the build made one), and what
`ask` reads for the newest edition of each language (its lexicon and entry vectors).

`check` runs them all (`crlookup doctor`); the command line also runs it when a command fails
in a way it did not expect, so that a damaged library is named, and rebuilt, instead of
showing a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from typing import NamedTuple

from crlookup.database import DB, INDEX_DIR, connect, kept
from crlookup.errors import LibraryDamaged

TABLES = {"meta", "editions", "texts", "entry", "gloss_texts", "gloss", "names", "cites",
          "gloss_cites", "chain", "aligned"}  # fmt: skip
CARD_TABLES = {"meta", "cards", "names", "card_text"}


class Finding(NamedTuple):
    """One part of a library, checked: `damage` says what is wrong ("" when it is sound)."""

    part: str  # "library.sqlite", "index/en", "cards.sqlite", "ask/en-2026-08-07", …
    path: str
    damage: str = ""

    def to_dict(self) -> dict:
        return {"part": self.part, "path": self.path, "ok": not self.damage,
                "damage": self.damage or None}  # fmt: skip


def check(path: str) -> list[Finding]:
    """Every part of the library at `path`, checked (the database first: without it, the
    other parts cannot be listed)."""
    found = [_database(os.path.join(path, DB), TABLES)]
    if found[0].damage:
        return found
    with contextlib.closing(connect(os.path.join(path, DB))) as db:
        langs = sorted({r[0] for r in db.execute("SELECT DISTINCT lang FROM editions")})
        # each language's newest edition, a complete one if there is one (what the build
        # made a lexicon for: crlookup.build._run)
        newest = dict(
            db.execute("SELECT lang, id FROM editions ORDER BY partial = 0, date, id").fetchall()
        )
        row = db.execute("SELECT value FROM meta WHERE key = 'cards'").fetchone()
    from crlookup import index

    found += [_index(path, lang) for lang in langs if lang in index.LANGS]
    cards = json.loads(row[0]) if row else {}
    if cards and not cards.get("error"):
        from crlookup.cards import CARDS_DB

        found.append(_database(os.path.join(path, CARDS_DB), CARD_TABLES))
    found += _asked(path, newest)
    return found


def damaged(path: str) -> list[Finding]:
    """The damaged parts of the library at `path` (none: it is sound)."""
    return [f for f in check(path) if f.damage]


def _database(file: str, tables: set[str]) -> Finding:
    part = os.path.basename(file)
    if not os.path.exists(file):
        return Finding(part, file, "missing")
    try:
        with contextlib.closing(connect(file)) as db:
            verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":  # "*** in database main ***", then what is wrong
                lines = [x for x in verdict.splitlines() if not x.startswith("***")]
                return Finding(part, file, f"malformed ({lines[0] if lines else verdict})")
            present = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as e:
        return Finding(part, file, str(e))
    missing = sorted(tables - present)
    return Finding(part, file, f"no table {', '.join(missing)}" if missing else "")


def _index(path: str, lang: str) -> Finding:
    """The index of one language: opened, every term of it and a few stored texts read, and
    the files beside it loaded."""
    from crlookup import index

    folder = os.path.join(path, INDEX_DIR, lang)
    part = f"{INDEX_DIR}/{lang}"
    try:
        ix = index.Index(os.path.join(path, INDEX_DIR), lang)
        try:
            ix.check()
            with open(os.path.join(folder, index.VOCABULARY), encoding="utf-8") as f:
                json.load(f)
            ix.stop_words  # noqa: B018 (loads the stop words file)
            for name in (index.EDITION_DOCS, index.KEYS):
                if not isinstance(index._load(folder, name, None), dict):
                    return Finding(part, folder, f"{name} missing")
        finally:
            ix.close()
    except LibraryDamaged as e:
        return Finding(part, folder, e.detail)
    except Exception as e:  # noqa: BLE001 (a damaged file beside it fails in whatever way it is read)
        return Finding(part, folder, f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)
    return Finding(part, folder)


def _asked(path: str, newest: dict[str, str]) -> list[Finding]:
    """What the build kept for `ask`: each language's newest edition's lexicon and vectors."""
    from crlookup.ask.build import LANGS, VECTOR_DIR, VECTOR_VERSION
    from crlookup.ask.lexicon import LEXICON_DIR, LEXICON_VERSION

    out = []
    for lang in sorted(set(newest) & set(LANGS)):
        edition = newest[lang]
        for folder, version in ((LEXICON_DIR, LEXICON_VERSION), (VECTOR_DIR, VECTOR_VERSION)):
            file = os.path.join(path, folder, edition + ".pickle")
            data = kept(path, folder, edition)
            if data is None:
                what = "missing" if not os.path.exists(file) else "unreadable"
            elif not isinstance(data, dict) or data.get("version") != version:
                what = "of another version"
            else:
                what = ""
            out.append(Finding(f"{folder}/{edition}", file, what))
    return out
