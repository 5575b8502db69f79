"""What a library is built from: the shipped sources and the user's own (each folder's
manifest.json), the units they are parsed in (a source file, or one member of an archive), and
the stamp a library records of them, by which it is known to be up to date or stale.

A library records the crlookup version, the schema, and the size, mtime and SHA-256 of every
source it was built from (the card file, its faces and its rulings among them). It is rebuilt
when the version, the schema or a source changes; a source only touched (its time changed, not
its content) is restamped.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.errors import LibraryDamaged, LibraryError
from crlookup.core.paths import data_dir
from crlookup.library.database import DB, SCHEMA, open_db, record_checksums, write_atomic
from crlookup.version import __version__

if TYPE_CHECKING:
    from crlookup.core.model import Edition


CARDS = "cards"  # the format of the card file (crlookup.sources.cards): not an edition
CARD_FACES = "card_faces"  # the faces that complete multi-part cards (crlookup.sources.cards)
RULINGS = "rulings"  # the cards' official rulings (crlookup.sources.rulings)
# the card data: built into the card database (crlookup.builder.stages.cards), never into editions
CARD_FORMATS = (CARDS, CARD_FACES, RULINGS)


class SourceFile(NamedTuple):
    """One source document the library is built from."""

    path: str
    format: str
    origin: str  # "shipped" or "user"
    editions: tuple[str, ...] = ()
    options: dict | None = None  # the user's --id/--lang/--date for an ingested file

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    def files(self) -> list[str]:
        """The file, or a folder's files (a document published one file per section) sorted."""
        if os.path.isdir(self.path):
            return sorted(
                os.path.join(self.path, n)
                for n in os.listdir(self.path)
                if os.path.isfile(os.path.join(self.path, n))
            )
        return [self.path]

    def stat(self) -> tuple[int, int]:
        """Size and modification time (a folder's: its files' total and the newest); (-1, -1)
        for a file that is not there (its parser says so when the library is built)."""
        try:
            stats = [os.stat(f) for f in self.files()]
        except FileNotFoundError:
            return -1, -1
        return sum(st.st_size for st in stats), max((st.st_mtime_ns for st in stats), default=0)

    def sha256(self) -> str:
        """The file's SHA-256; a folder's: of its files' names and contents, in order."""
        import hashlib

        files = self.files()
        digest = hashlib.sha256()
        try:
            for path in files:
                if len(files) > 1 or path != self.path:
                    digest.update(os.path.basename(path).encode() + b"\x00")
                with open(path, "rb") as f:
                    digest.update(f.read())
        except FileNotFoundError:
            return ""
        return digest.hexdigest()


USER_MANIFEST = "sources/manifest.json"  # under the home: the editions a user added


def read_manifest(directory: str, origin: str) -> list[SourceFile]:
    """The sources a manifest lists. A damaged one: `LibraryError` for the shipped manifest,
    `LibraryDamaged` for the user's (`repair` makes it again: `rebuild` does)."""
    path = os.path.join(directory, "manifest.json")

    def damaged(detail: str) -> LibraryError:
        if origin == "user":
            return LibraryDamaged(USER_MANIFEST, path, f"not a valid source manifest ({detail})")
        return LibraryError(f"{path}: not a valid source manifest ({detail})")

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return []
    except UnicodeDecodeError as e:
        raise damaged(f"not UTF-8: {e.reason}") from None
    try:
        manifest = json.loads(text)
        files = [
            SourceFile(
                path=os.path.join(directory, item["file"]),
                format=item["format"],
                origin=origin,
                editions=tuple(item.get("editions", ())),
                options=item.get("options", {}),
            )
            for item in manifest["sources"]
        ]
        if "cards" in manifest:
            cards = manifest["cards"]
            files.append(SourceFile(os.path.join(directory, cards["file"]), CARDS, origin))
            for part, fmt in (("faces", CARD_FACES), ("rulings", RULINGS)):
                if part in cards:  # the card file's companions, each a source of its own
                    files.append(
                        SourceFile(os.path.join(directory, cards[part]["file"]), fmt, origin)
                    )
        return files
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise damaged(str(e) or type(e).__name__) from None


def repair(root: str) -> bool:
    """Make the user's manifest again if it is damaged: from the files in `sources/` that the
    current library was built from (their editions, ids, languages and dates as it has them);
    the damaged one is kept beside it (manifest.json.damaged). Whether it was repaired."""
    directory = os.path.join(root, "sources")
    try:
        read_manifest(directory, "user")
        return False
    except LibraryDamaged:
        pass
    from crlookup.library import home

    built: dict[str, list[tuple[str, str, str, str]]] = {}
    current = home.current(root)
    if current is not None:
        with contextlib.suppress(sqlite3.Error), contextlib.closing(open_db(current)) as db:
            rows = db.execute(
                "SELECT id, lang, date, format, source FROM editions WHERE origin = 'user' "
                "ORDER BY date"
            )
            for row in rows:
                built.setdefault(row["source"], []).append(tuple(row)[:4])
    items = []
    for name in sorted(os.listdir(directory)):
        editions = built.get(name)
        if not editions or name.startswith("."):
            continue  # a file no library was built from: its record is lost with the manifest
        options = {}
        if len(editions) == 1:
            options = dict(zip(("id", "lang", "date"), editions[0][:3], strict=True))
        items.append(
            {
                "file": name,
                "format": editions[0][3],
                "editions": [e[0] for e in editions],
                "options": options,
            }
        )
    target = os.path.join(directory, "manifest.json")
    os.replace(target, target + ".damaged")
    write_atomic(target, json.dumps({"sources": items}, indent=2).encode("utf-8"))
    return True


def source_files(root: str) -> list[SourceFile]:
    """The shipped sources and those the user ingested into `root` (the card data last: the
    card file, then its faces and rulings)."""
    files = read_manifest(data_dir(), "shipped") + read_manifest(
        os.path.join(root, "sources"), "user"
    )
    return [f for f in files if f.format not in CARD_FORMATS] + [
        f for f in files if f.format in CARD_FORMATS
    ]


def stamp_of(db: sqlite3.Connection) -> dict:
    """What the build recorded of a library (its version, schema and sources); a record that
    is no JSON object is damage, sqlite3.DatabaseError as SQLite's own (a zeroed byte in it was
    a traceback, where one elsewhere in the file is found by its sha256 and healed)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()
    try:
        found = json.loads(row[0]) if row else {}
    except (ValueError, TypeError) as e:
        raise sqlite3.DatabaseError(f"its record of the build is damaged: {e}") from None
    if not isinstance(found, dict):
        raise sqlite3.DatabaseError("its record of the build is damaged: no JSON object")
    return found


def is_fresh(stamp: dict, files: list[SourceFile]) -> bool | None:
    """True if fresh, False if stale, None if only file times changed (contents to check)."""
    if stamp.get("version") != __version__ or stamp.get("schema") != SCHEMA:
        return False
    recorded = stamp.get("sources", [])
    if [(s["origin"], s["file"]) for s in recorded] != [(f.origin, f.name) for f in files]:
        return False
    try:
        stats = [f.stat() for f in files]
    except OSError:
        return False
    if all((s["size"], s["mtime_ns"]) == st for s, st in zip(recorded, stats)):
        return True
    if any(s["size"] != st[0] for s, st in zip(recorded, stats)):
        return False
    return None


def same_contents(stamp: dict, files: list[SourceFile]) -> bool:
    return all(s["sha256"] == f.sha256() for s, f in zip(stamp["sources"], files))


def restamp(path: str, stamp: dict, files: list[SourceFile]) -> None:
    with contextlib.suppress(OSError, sqlite3.DatabaseError):
        for s, f in zip(stamp["sources"], files):
            s["size"], s["mtime_ns"] = f.stat()
        db = open_db(path, readonly=False)
        with db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'stamp'", (json.dumps(stamp),))
        db.close()
        record_checksums(path, only=[DB])  # changed on purpose: not damage


class Unit(NamedTuple):
    """What one edition or more are parsed from: a source file, or one member of an archive."""

    file: SourceFile
    member: str  # the archive member's name, "" for a whole file
    key: str  # its content, format, name and options: recorded with the editions it gave
    data: bytes | None = None  # an archive member's bytes (a whole file is read where parsed)


def units(files: list[SourceFile]) -> list[Unit]:
    """The units of the rules sources (an archive is one unit per member; the card data is
    none)."""
    import hashlib

    from crlookup.sources import archive

    out = []
    for f in files:
        if f.format in CARD_FORMATS:
            continue
        options = json.dumps(f.options or {}, sort_keys=True)
        tail = f"{f.format}-{hashlib.sha256((f.name + options).encode()).hexdigest()[:12]}"
        if f.format == "archive":
            found, _skipped = archive.members(f.path)
            out += [
                Unit(f, name, f"{hashlib.sha256(data).hexdigest()[:32]}-{name}-{tail}", data)
                for name, data in found
            ]
        else:
            out.append(Unit(f, "", f"{f.sha256()[:32]}-{tail}"))
    return out


def apply_options(edition: Edition, options: dict) -> Edition:
    """A user's --id/--lang/--date for an ingested edition; `ids` renames editions of a
    shipped source whose ids another source already has; `notes` go first among the edition's
    notes (a recovered edition's provenance: "reconstructed: ...")."""
    from datetime import date

    from crlookup.core.model import check_given

    check_given(options.get("id"), options.get("lang"))
    for given in (options.get("ids") or {}).values():
        check_given(given)
    changes = {}
    if options.get("lang"):
        changes["lang"] = options["lang"]
    if options.get("date"):
        changes["date"] = date.fromisoformat(options["date"])
    if options.get("id"):
        changes["given_id"] = options["id"]
    if options.get("notes"):  # where a shipped file came from (a recovered edition's)
        changes["notes"] = (*options["notes"], *edition.notes)
    edition = edition._replace(**changes)
    renamed = (options.get("ids") or {}).get(edition.id)
    return edition._replace(given_id=renamed) if renamed else edition
