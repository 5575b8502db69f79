"""A built library's files: its SQLite databases (library.sqlite, the rules; cards.sqlite, the
cards), opened read-only unless a build stage writes them, and what the stages keep beside them
(`keep`, `kept`)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3

SCHEMA = 11  # of everything a build writes (library.sqlite, cards.sqlite, the index): raise it on a change
DB = "library.sqlite"  # a built library's database, in its folder
CARDS_DB = "cards.sqlite"  # its cards (crlookup.library.cards), beside the database
INDEX_DIR = "index"  # its full-text index (crlookup.index), beside the database


def open_db(library_path: str, readonly: bool = True) -> sqlite3.Connection:
    """The database of the library in `library_path`, its rows by column name."""
    db = connect(os.path.join(library_path, DB), readonly)
    db.row_factory = sqlite3.Row
    return db


@contextlib.contextmanager
def deadline(db: sqlite3.Connection, seconds: float):
    """Statements on `db` in the block are interrupted (sqlite3.OperationalError "interrupted")
    once `seconds` have passed: SQLite asks a progress handler every few thousand steps."""
    import time

    until = time.monotonic() + seconds
    db.set_progress_handler(lambda: time.monotonic() > until, 10_000)
    try:
        yield
    finally:
        db.set_progress_handler(None, 0)


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

    verify(library_path, [f"{folder}/{name}.pickle"])
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


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` whole: into a file of its own beside it (a dot file), then renamed
    into place. A reader sees the old file or the new one, never part of one; a file another
    library shares by a hard link is replaced, not written into; a failed write leaves nothing."""
    import uuid

    folder, name = os.path.split(os.fspath(path))
    tmp = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def keep(library_path: str, folder: str, name: str, data) -> None:
    """Keep `data` beside a library as <folder>/<name>.pickle (written whole, then renamed
    into place); a library that cannot be written to is left as it is, and what would have
    been kept is made again next time."""
    import pickle

    where = os.path.join(library_path, folder)
    try:
        os.makedirs(where, exist_ok=True)
        write_atomic(
            os.path.join(where, name + ".pickle"),
            pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL),
        )
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
        return printable(str(e))
    except UnicodeDecodeError:  # SQLite's own message quotes the damaged bytes
        return "malformed (its schema cannot be read)"
    missing = sorted(tables - present)
    return f"no table {', '.join(missing)}" if missing else ""


CHECKSUMS = "checksums.json"  # in a built library: each file's size, time and sha256


def file_sha256(path: str) -> str:
    """The sha256 of a file's bytes."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _unrecorded(name: str) -> bool:
    """Files of a library that change without damage: whoosh's lock, SQLite's journals."""
    return name in (CHECKSUMS, "MAIN_WRITELOCK") or name.endswith(("-journal", "-wal", "-shm"))


def record_checksums(library_path: str, only: list[str] | None = None) -> None:
    """Record every file of a library (or the `only` ones, again): size, modification time,
    sha256. The build does it last, before the library is switched to; `verify` reads it."""
    where = os.path.join(library_path, CHECKSUMS)
    sums: dict[str, list] = {}
    if only is not None:
        with contextlib.suppress(OSError, ValueError), open(where, encoding="utf-8") as f:
            sums = json.load(f)
    names = only
    if names is None:
        names = sorted(
            os.path.relpath(os.path.join(d, n), library_path).replace(os.sep, "/")
            for d, _dirs, files in os.walk(library_path)
            for n in files
            if not _unrecorded(n)
        )
    for name in names:
        path = os.path.join(library_path, name)
        st = os.stat(path)
        sums[name] = [st.st_size, st.st_mtime_ns, file_sha256(path)]
    write_atomic(where, json.dumps(sums, indent=0, sort_keys=True).encode("utf-8"))
    _checksums.pop(library_path, None)  # read again by `verify`


_checksums: dict[str, dict] = {}  # library path -> its recorded checksums, read once


def part_of(name: str) -> str:
    """The part of a library a file belongs to, as doctor names them: "index/en", "ask/<id>"."""
    head, _, rest = name.partition("/")
    if head == INDEX_DIR:
        return "/".join(name.split("/")[:2])
    return f"{head}/{rest.rsplit('.', 1)[0]}" if rest else name


def verify(library_path: str, names, thorough: bool = False) -> None:
    """`LibraryDamaged` if one of these files of a library (relative names) is not as the
    build left it: missing, or of another size or time and then another sha256 (`thorough`:
    the sha256 whatever its size and time, as doctor checks). Files it did not record (a
    library of an older crlookup) pass."""
    from crlookup.core.errors import LibraryDamaged

    sums = _checksums.get(library_path)
    if sums is None:
        try:
            with open(os.path.join(library_path, CHECKSUMS), encoding="utf-8") as f:
                sums = json.load(f)
            if not isinstance(sums, dict):
                raise ValueError("not an object")
        except FileNotFoundError:
            sums = {}
        except (OSError, ValueError) as e:
            raise LibraryDamaged(CHECKSUMS, os.path.join(library_path, CHECKSUMS), str(e)) from None
        _checksums[library_path] = sums
    for name in names:
        record = sums.get(name)
        if not isinstance(record, list) or len(record) != 3:
            continue
        path = os.path.join(library_path, name)
        # a folder's file is named (the index's), a file standing for its part is not
        which = os.path.basename(name) + " " if name.startswith(INDEX_DIR + "/") else ""
        try:
            st = os.stat(path)
        except OSError:
            raise LibraryDamaged(part_of(name), path, f"{which}missing") from None
        changed = thorough or [st.st_size, st.st_mtime_ns] != record[:2]
        if changed and file_sha256(path) != record[2]:
            raise LibraryDamaged(
                part_of(name), path, f"{which}changed since it was built (its sha256 differs)"
            )


def recorded(library_path: str, under: str = "") -> list[str]:
    """The files of a library the build recorded (under a folder: "index/en"), in order."""
    verify(library_path, ())  # (reads the record)
    prefix = under + "/" if under else ""
    return sorted(n for n in _checksums.get(library_path, {}) if n.startswith(prefix))


def printable(text: str) -> str:
    """A message that quotes damaged bytes, on one line: control characters as escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def write_meta(db_path, key: str, value) -> None:
    """Record `value` (as JSON) under `key` in the library's meta table."""
    db = sqlite3.connect(db_path)
    with db:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
    db.close()
