"""A built library's files: its SQLite databases (library.sqlite, the rules; cards.sqlite, the
cards), opened read-only unless a build stage writes them, and what the stages keep beside them
(`keep`, `kept`)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3

SCHEMA = 6  # of everything a build writes (library.sqlite, cards.sqlite): raise it on a change
DB = "library.sqlite"  # a built library's database, in its folder
CARDS_DB = "cards.sqlite"  # its cards (crlookup.library.cards), beside the database
INDEX_DIR = "index"  # its full-text index (crlookup.index), beside the database


def open_db(library_path: str, readonly: bool = True) -> sqlite3.Connection:
    """The database of the library in `library_path`, its rows by column name."""
    db = connect(os.path.join(library_path, DB), readonly)
    db.row_factory = sqlite3.Row
    return db


def connect(db_path: str, readonly: bool = True) -> sqlite3.Connection:
    """A connection to one of a library's databases: read-only (by URI, so that reading can
    neither change nor create it), or for writing."""
    if not readonly:
        return sqlite3.connect(db_path)
    uri = db_path.replace(os.sep, "/").replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return sqlite3.connect(f"file:{uri}?mode=ro", uri=True)


def kept(library_path: str, folder: str, name: str):
    """What `keep` kept beside a library as <folder>/<name>.pickle, or None if there is none
    or it cannot be read."""
    import pickle

    try:
        with open(os.path.join(library_path, folder, name + ".pickle"), "rb") as f:
            return pickle.load(f)
    except (
        OSError,
        EOFError,
        ValueError,
        pickle.UnpicklingError,
        AttributeError,
        TypeError,
        ImportError,
    ):
        return None


def keep(library_path: str, folder: str, name: str, data) -> None:
    """Keep `data` beside a library as <folder>/<name>.pickle (written whole, then renamed
    into place); a library that cannot be written to is left as it is, and what would have
    been kept is made again next time."""
    import pickle
    import tempfile

    where = os.path.join(library_path, folder)
    try:
        os.makedirs(where, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, os.path.join(where, name + ".pickle"))
    except OSError:
        pass


def check_database(file: str, tables: frozenset[str]) -> str:
    """What is wrong with the database `file` ("" if it is sound): SQLite's own quick check,
    and the tables a build writes there."""
    if not os.path.exists(file):
        return "missing"
    try:
        with contextlib.closing(connect(file)) as db:
            verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":  # "*** in database main ***", then what is wrong
                lines = [x for x in verdict.splitlines() if not x.startswith("***")]
                return f"malformed ({lines[0] if lines else verdict})"
            present = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as e:
        return str(e)
    missing = sorted(tables - present)
    return f"no table {', '.join(missing)}" if missing else ""


def write_meta(db_path, key: str, value) -> None:
    """Record `value` (as JSON) under `key` in the library's meta table."""
    db = sqlite3.connect(db_path)
    with db:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
    db.close()
