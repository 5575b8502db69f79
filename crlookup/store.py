"""The built library on disk: where it lives, when it is rebuilt, and how, atomically.

Layout of the library home (`CRLOOKUP_HOME`, else the per-user cache directory):

    current              the name of the library in use (replaced atomically)
    library-<stamp>/     one built library: library.sqlite (the rules), the search index,
                         cards.sqlite (the cards), ask/ (the lexicons of questions)
    parsed/              what was parsed from each source, by its content (reused by builds)
    sources/             editions the user ingested, with their manifest.json
    .lock                held while building, so that two processes never build at once

A library records the crlookup version and the size, mtime and SHA-256 of every source it
was built from (the card file among them). It is rebuilt when the version or a source
changes. A build writes a new `library-<stamp>/` and only then points `current` at it: a
failed or interrupted build leaves the previous library in use.

The cards are a part of the library the rules never wait for: a missing or unreadable card
file is recorded in the library (its one-line message naming the file and the line) instead
of failing the build, so that the rules stay usable; every card feature then reports it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
from typing import TYPE_CHECKING, Callable, Iterator, NamedTuple

from crlookup import __version__, library
from crlookup.library import Library

if TYPE_CHECKING:
    from pathlib import Path

SCHEMA = 2  # of everything a build writes (library.sqlite, cards.sqlite): raise it on a change
DB = "library.sqlite"
INDEX = "index"  # the full-text index (crlookup.index), beside the database
CARDS = "cards"  # the format of the card file (crlookup.sources.cards): not an edition
Progress = Callable[[int, int, str], None]


class LibraryError(Exception):
    """The library cannot be built or read (the message says why, in one line)."""


# --------------------------------------------------------------------------- locations


def home() -> str:
    env = os.environ.get("CRLOOKUP_HOME")
    if env:
        return os.path.expanduser(env)
    user = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(user, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(user, "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(user, ".cache")
    return os.path.join(base, "crlookup")


def data_dir() -> str:
    """The sources a library is built from: the shipped ones (`package_data`)."""
    return package_data()


def package_data() -> str:
    """The shipped data: inside the installed package, or `data/` of a source checkout."""
    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "data")
    if os.path.exists(os.path.join(packaged, "manifest.json")):
        return packaged
    return os.path.join(os.path.dirname(here), "data")


# --------------------------------------------------------------------------- sources


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

    def stat(self) -> tuple[int, int]:
        """Size and modification time; (-1, -1) for a file that is not there (its parser
        says so when the library is built)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return -1, -1
        return st.st_size, st.st_mtime_ns

    def sha256(self) -> str:
        import hashlib

        try:
            with open(self.path, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        except FileNotFoundError:
            return ""


def _manifest(directory: str, origin: str) -> list[SourceFile]:
    path = os.path.join(directory, "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return []
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
            files.append(SourceFile(os.path.join(directory, manifest["cards"]["file"]), CARDS, origin))
        return files
    except (ValueError, KeyError, TypeError) as e:
        raise LibraryError(f"{path}: not a valid source manifest ({e})") from None


def source_files(root: str) -> list[SourceFile]:
    """The shipped sources and those the user ingested into `root` (the card file last)."""
    files = _manifest(data_dir(), "shipped") + _manifest(os.path.join(root, "sources"), "user")
    return [f for f in files if f.format != CARDS] + [f for f in files if f.format == CARDS]


# --------------------------------------------------------------------------- the library


def current(root: str) -> str | None:
    """The library in use, if there is one."""
    try:
        with open(os.path.join(root, "current"), encoding="utf-8") as f:
            name = f.read().strip()
    except OSError:
        return None
    path = os.path.join(root, name)
    complete = os.path.exists(os.path.join(path, DB)) and os.path.isdir(os.path.join(path, INDEX))
    return path if name and complete else None


def _connect(path: str, readonly: bool = True) -> sqlite3.Connection:
    db = library.connect(os.path.join(path, DB), readonly)
    db.row_factory = sqlite3.Row
    return db


def _stamp(db: sqlite3.Connection) -> dict:
    row = db.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()
    return json.loads(row[0]) if row else {}


def _is_fresh(stamp: dict, files: list[SourceFile]) -> bool | None:
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


def _same_contents(stamp: dict, files: list[SourceFile]) -> bool:
    return all(s["sha256"] == f.sha256() for s, f in zip(stamp["sources"], files))


def open_library(root: str | None = None, progress: Progress | None = None) -> Library:
    """Open the current library, building it first if it is missing or stale."""
    root = root or home()
    files = source_files(root)
    path = current(root)
    if path is not None:
        db = _connect(path)
        try:
            stamp = _stamp(db)
        except sqlite3.DatabaseError:
            stamp = {}
        fresh = _is_fresh(stamp, files)
        if fresh is None and _same_contents(stamp, files):
            fresh = True  # touched but unchanged: remember the new times
            _restamp(path, stamp, files)
        if fresh:
            return Library(path, db)
        db.close()
    path = build(root, files, progress)
    return Library(path, _connect(path))


def _restamp(path: str, stamp: dict, files: list[SourceFile]) -> None:
    with contextlib.suppress(OSError, sqlite3.DatabaseError):
        for s, f in zip(stamp["sources"], files):
            s["size"], s["mtime_ns"] = f.stat()
        db = _connect(path, readonly=False)
        with db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'stamp'", (json.dumps(stamp),))
        db.close()


@contextlib.contextmanager
def _locked(root: str) -> Iterator[None]:
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".lock"), "a+") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: the atomic rename alone keeps readers safe
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build(root: str, files: list[SourceFile] | None = None, progress: Progress | None = None) -> str:
    """Build a new library from the sources and make it current; returns its path.

    Raises `crlookup.sources.SourceError` for a source that cannot be read and
    `LibraryError` for anything else; in both cases the previous library stays current.
    """
    import hashlib
    import time
    import uuid
    from pathlib import Path

    from crlookup import index

    files = source_files(root) if files is None else files
    root_path = Path(root)
    with _locked(root):
        path = current(root)
        if path is not None:  # another process may have built it while we waited
            with contextlib.closing(_connect(path)) as db:
                with contextlib.suppress(sqlite3.DatabaseError):
                    if _is_fresh(_stamp(db), files):
                        return path
        _sweep(root_path)
        tmp = root_path / f"build-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            stamp = {
                "version": __version__,
                "schema": SCHEMA,
                "built": time.time(),
                "sources": [
                    {
                        "origin": f.origin,
                        "file": f.name,
                        "size": f.stat()[0],
                        "mtime_ns": f.stat()[1],
                        "sha256": f.sha256(),
                    }
                    for f in files
                ],
            }
            # a parse depends on the bytes, the format and the file's name (the edition's
            # source, and the date of sources that state none)
            keys = [
                f"{s['sha256'][:32]}-{f.format}-"
                f"{hashlib.sha256(f.name.encode()).hexdigest()[:12]}-{__version__}-{SCHEMA}"
                for s, f in zip(stamp["sources"], files)
            ]
            rules = [(f, k) for f, k in zip(files, keys) if f.format != CARDS]
            cards = [(f, s["sha256"]) for f, s in zip(files, stamp["sources"]) if f.format == CARDS]
            editions = library.write(
                tmp / DB, [f for f, _k in rules], stamp, _stage(progress, 0, 30),
                (str(root_path / "parsed"), [k for _f, k in rules]),
            )
            # the alignments `history` follows are computed beside the index build
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from crlookup import align

            from crlookup.ask import build as ask_build

            # what `ask` reads questions against: the newest edition of each language
            newest = {e.lang: e for e in sorted(editions, key=lambda e: (not e.partial, e.date))}
            # fresh processes, not forks: a process that has run the embedding model (its
            # OpenMP threads) cannot fork a child that runs it again (the child hangs)
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
                aligning = pool.submit(align.build_chain, str(tmp / DB))
                lexicons = pool.submit(
                    ask_build.build_lexicons, str(tmp),
                    [e.id for e in newest.values() if e.lang in ask_build.LANGS],
                )
                carding = [
                    pool.submit(build_cards, f.path, sha, str(tmp), str(root_path / "parsed"))
                    for f, sha in cards
                ]
                index.build(str(tmp / INDEX), editions, _stage(progress, 30, 65))
                rows = aligning.result()
                lexicons.result()
                card_status = [c.result() for c in carding]
            library.write_alignments(tmp / DB, rows)
            library.write_meta(tmp / DB, "cards", card_status[0] if card_status else {})
            if progress:
                progress(100, 100, "done")
            final = root_path / f"library-{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:6]}"
            os.rename(tmp, final)
            pointer = root_path / f"current.{uuid.uuid4().hex[:8]}.tmp"
            pointer.write_text(final.name, encoding="utf-8")
            os.replace(pointer, root_path / "current")
        except BaseException:
            _sweep(root_path)
            raise
        _sweep(root_path, keep={final.name, os.path.basename(path) if path else ""})
        for cached in (root_path / "parsed").glob("*.pickle"):
            if cached.stem not in keys:  # parses of sources no longer in the library
                cached.unlink(missing_ok=True)
        in_use = {_cards_cache_name(sha) for _f, sha in cards}
        for cached in (root_path / "parsed").glob("cards-*.sqlite"):
            if cached.name not in in_use:  # card databases of card files no longer shipped
                cached.unlink(missing_ok=True)
        return str(final)


def _cards_cache_name(sha: str) -> str:
    return f"cards-{sha[:32]}-{__version__}-{SCHEMA}.sqlite"


def build_cards(path: str, sha: str, library_path: str, cache: str) -> dict:
    """Put the card database of the card file `path` into the library being built (built
    once per content, in `cache`, then linked); returns what the library records of it:
    {"file", "cards"}, or {"file", "error"} (a one-line message) if the file is missing or
    unreadable: the rules are built all the same."""
    import shutil
    import uuid

    from crlookup import cards
    from crlookup.sources import SourceError
    from crlookup.sources import cards as card_file

    name = os.path.basename(path)
    target = os.path.join(library_path, cards.CARDS_DB)
    cached = os.path.join(cache, _cards_cache_name(sha))
    try:
        if not os.path.exists(cached):
            found = card_file.read(path)
            os.makedirs(cache, exist_ok=True)
            tmp = f"{cached}.{uuid.uuid4().hex[:8]}.tmp"
            try:
                cards.build(tmp, found)
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
    with contextlib.closing(cards.Cards(target)) as built:
        return {"file": name, "cards": len(built)}


def _stage(progress: Progress | None, start: int, span: int) -> Progress | None:
    """Report one stage of the build as its share (start..start+span) of 100."""
    if progress is None:
        return None

    def report(done: int, total: int, label: str) -> None:
        progress(start + round(span * done / max(total, 1)), 100, label)

    return report


def _sweep(root: Path, keep: set[str] | None = None) -> None:
    """Remove leftovers of interrupted builds and libraries no longer in use.

    The library that was current before the last build is kept, so that a process that
    opened it just before the switch can finish reading it.
    """
    import shutil

    for p in root.iterdir():
        if p.name.startswith("build-") and p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        elif p.name.startswith("current.") and p.name.endswith(".tmp"):
            p.unlink(missing_ok=True)
        elif keep is not None and p.name.startswith("library-") and p.name not in keep:
            shutil.rmtree(p, ignore_errors=True)


# --------------------------------------------------------------------------- ingest


def ingest(path: str, options: dict, root: str | None = None, progress: Progress | None = None):
    """Add a user's edition file to the library; returns the new editions' `EditionInfo`s.

    The file is parsed first: a file that is not a readable CR raises `SourceError` and
    nothing on disk changes. Then it is copied into `sources/`, recorded in the user
    manifest, and the library is rebuilt; if that fails, the copy and the record are undone.
    """
    from pathlib import Path

    from crlookup import sources
    from crlookup.library import apply_options

    root = Path(root or home())
    path = Path(path)
    data = path.read_bytes()
    fmt = sources.detect(path, data)
    found = sources.read(path, data, fmt)
    if options.get("id") and len(found) > 1:
        raise LibraryError(
            f"{path.name} holds {len(found)} editions ({', '.join(e.id for e in found)}); "
            "--id can name only one"
        )
    parsed = [apply_options(e, options) for e in found]
    lib = open_library(str(root), progress)
    try:
        known = {e.id: e.source for e in lib.editions()}
    finally:
        lib.close()
    for e in parsed:
        if e.id in known:
            raise LibraryError(
                f"{path.name}: edition {e.id} is already in the library (from {known[e.id]}); "
                "give it another --id to add it anyway"
            )
    folder = root / "sources"
    folder.mkdir(parents=True, exist_ok=True)
    name = path.name
    stem, suffix = path.stem, path.suffix
    n = 1
    while (folder / name).exists():
        n += 1
        name = f"{stem}-{n}{suffix}"
    manifest = folder / "manifest.json"
    before = manifest.read_text(encoding="utf-8") if manifest.exists() else None
    items = json.loads(before)["sources"] if before else []
    items.append(
        {"file": name, "format": fmt, "editions": [e.id for e in parsed], "options": options}
    )
    _write_atomic(folder / name, data)
    _write_atomic(manifest, json.dumps({"sources": items}, indent=2).encode("utf-8"))
    try:
        build(str(root), progress=progress)
    except BaseException:
        if before is None:
            manifest.unlink(missing_ok=True)
        else:
            _write_atomic(manifest, before.encode("utf-8"))
        (folder / name).unlink(missing_ok=True)
        raise
    lib = open_library(str(root))
    try:
        return [e for e in lib.editions() if e.id in {p.id for p in parsed}]
    finally:
        lib.close()


def _write_atomic(path: Path, data: bytes) -> None:
    import uuid

    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
