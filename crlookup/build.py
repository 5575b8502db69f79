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
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from crlookup.database import DB, INDEX_DIR, open_db
from crlookup.errors import LibraryDamaged, LibraryError, SourceError, StorageError
from crlookup.i18n import N_, _
from crlookup.paths import data_dir, home
from crlookup.read import Library
from crlookup.version import __version__

if TYPE_CHECKING:
    from pathlib import Path

    from crlookup.model import Edition

SCHEMA = 3  # of everything a build writes (library.sqlite, cards.sqlite): raise it on a change
CARDS = "cards"  # the format of the card file (crlookup.sources.cards): not an edition
Progress = Callable[[int, int, str], None]


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
            files.append(
                SourceFile(os.path.join(directory, manifest["cards"]["file"]), CARDS, origin)
            )
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
    complete = os.path.exists(os.path.join(path, DB)) and os.path.isdir(
        os.path.join(path, INDEX_DIR)
    )
    return path if name and complete else None


def _connect(path: str, readonly: bool = True) -> sqlite3.Connection:
    return open_db(path, readonly)


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


#: On first use, the archive's newest editions go into the library first (with every other
#: source), so that the first command answers in seconds; the older ones are added right
#: after, by a process of their own (`grow`), while the library is already in use.
FIRST = 8


def open_library(root: str | None = None, progress: Progress | None = None) -> Library:
    """Open the current library, building it first if it is missing or stale;
    `LibraryDamaged` if its database cannot be read (`rebuild` mends it).

    A library built with its older editions still to come (`Library.pending`) is used as it
    is, and a process is started to add them unless one is at it already.
    """
    root = root or home()
    files = source_files(root)
    path = current(root)
    if path is not None:
        db = _connect(path)
        try:
            stamp = _stamp(db)
        except sqlite3.DatabaseError as e:  # not rebuilt quietly: the caller says so first
            db.close()
            raise LibraryDamaged(DB, os.path.join(path, DB), str(e)) from None
        fresh = _is_fresh(stamp, files)
        if fresh is None and _same_contents(stamp, files):
            fresh = True  # touched but unchanged: remember the new times
            _restamp(path, stamp, files)
        if fresh:
            if stamp.get("pending"):
                _start_growing(root)
            _tidy(root, path)
            return Library(path, db)
        db.close()
    path = build(root, files, progress, first=FIRST)
    lib = Library(path, _connect(path))
    if lib.pending:
        _start_growing(root)
    return lib


#: A library folder that is not the current one is removed when it is this old (seconds): a
#: process that opened it before a build switched to the next one has finished by then.
STALE = 600


def _tidy(root: str, path: str) -> None:
    """Remove what builds killed too hard for their own cleanup left behind (their unfinished
    folders, a half-written pointer, a finished library that never became current, a source
    copy that `ingest` never recorded), unless a build is running. Costs a directory listing
    when there is nothing to remove."""
    import time

    try:
        names = os.listdir(root)
    except OSError:
        return
    now = time.time()

    def stale(name: str) -> bool:
        try:
            return now - os.stat(os.path.join(root, name)).st_mtime > STALE
        except OSError:
            return False

    left = [n for n in names if n.startswith("build-") or (n.startswith("current.") and n.endswith(".tmp"))
            or (n.startswith("library-") and n != os.path.basename(path) and stale(n))]  # fmt: skip
    sources = os.path.join(root, "sources")
    with contextlib.suppress(OSError):
        left += [os.path.join("sources", n) for n in os.listdir(sources) if n.endswith(".tmp")]
    if not left:
        return
    with contextlib.suppress(OSError), _locked(root, wait=False) as mine:
        if mine:
            import shutil

            for name in left:
                target = os.path.join(root, name)
                if os.path.isdir(target):
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(target)


def _start_growing(root: str) -> None:
    """Start a process that adds the editions still to come (`grow`), unless a build is
    running (it holds the lock, and will leave the library complete or be started again)."""
    import subprocess

    if _busy(root):
        return
    with contextlib.suppress(OSError):
        subprocess.Popen(
            [sys.executable, "-m", "crlookup.build", "grow", root],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )


def grow(root: str) -> str:
    """Add the editions a first build left for later (the library stays in use meanwhile)."""
    return build(root)


def _busy(root: str) -> bool:
    """Whether a build holds the library's lock right now (never, where there are no locks;
    always, where the lock cannot be opened)."""
    try:
        with _locked(root, wait=False) as mine:
            return mine is False
    except OSError:
        return True


def _restamp(path: str, stamp: dict, files: list[SourceFile]) -> None:
    with contextlib.suppress(OSError, sqlite3.DatabaseError):
        for s, f in zip(stamp["sources"], files):
            s["size"], s["mtime_ns"] = f.stat()
        db = _connect(path, readonly=False)
        with db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'stamp'", (json.dumps(stamp),))
        db.close()


@contextlib.contextmanager
def _locked(root: str, wait: bool = True) -> Iterator[bool | None]:
    """Hold the home's build lock (yields True); with `wait` false, yields False at once if
    another process holds it, and None where there are no locks (Windows: cannot tell)."""
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".lock"), "a+") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: the atomic rename alone keeps readers safe
            yield True if wait else None
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class Unit(NamedTuple):
    """What one edition or more are parsed from: a source file, or one member of an archive."""

    file: SourceFile
    member: str  # the archive member's name, "" for a whole file
    key: str  # its content, format, name and options: recorded with the editions it gave
    data: bytes | None = None  # an archive member's bytes (a whole file is read where parsed)


def units(files: list[SourceFile]) -> list[Unit]:
    """The units of the rules sources (an archive is one unit per member; cards are none)."""
    import hashlib

    from crlookup.sources import archive

    out = []
    for f in files:
        if f.format == CARDS:
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
    shipped source whose ids another source already has."""
    from datetime import date

    changes = {}
    if options.get("lang"):
        changes["lang"] = options["lang"]
    if options.get("date"):
        changes["date"] = date.fromisoformat(options["date"])
    if options.get("id"):
        changes["given_id"] = options["id"]
    edition = edition._replace(**changes)
    renamed = (options.get("ids") or {}).get(edition.id)
    return edition._replace(given_id=renamed) if renamed else edition


def parse_unit(unit: Unit) -> list[Edition]:
    """The editions of one unit, cross-references resolved: what a parsing process runs."""
    from crlookup import refs, sources
    from crlookup.sources import archive, glossary

    if unit.member:
        found = [archive.read_member(unit.file.name, unit.member, unit.data)]
    else:
        found = sources.read(unit.file.path, None, unit.file.format)
    return [
        apply_options(refs.link(glossary.distinct_headwords(e)), unit.file.options or {})
        for e in found
    ]


def _parse(todo: list[Unit], progress: Progress | None, pool):
    """Parse the units (in the pool's processes when there are several); yields each edition
    with what the library records of its source, in the units' order, as they are ready."""
    futures = (
        [pool.submit(parse_unit, u) for u in todo] if pool is not None and len(todo) > 1 else None
    )
    for i, u in enumerate(todo):
        found = futures[i].result() if futures else parse_unit(u)
        if progress:
            progress(i + 1, len(todo), u.member or u.file.name)
        for e in found:
            yield e, {"format": u.file.format, "origin": u.file.origin, "unit": u.key}


def _reached(doing: str) -> None:
    """A point between two steps of a build, where it can be stopped at no cost: until the
    "switched" step the previous library is the current one, after it the new one is (the
    tests pause a build here, in a process of its own, and kill it)."""


def _step(doing: str) -> None:
    global _doing
    _doing = doing
    _reached(doing)


_doing = ""  # the step a build is at, for its error messages

#: A fresh library of the shipped sources takes about 145 MB (scripts/bench.py measures it).
SHIPPED_MB = 200


def rebuild(root: str | None = None, progress: Progress | None = None) -> Library:
    """Build the library anew from its sources (the shipped ones and the user's own), none of
    the current library reused: what a damaged library needs. Atomic like every build; the
    older editions of the archive are added in the background, as on first use."""
    root = root or home()
    path = build(root, progress=progress, first=FIRST, fresh=True)
    lib = Library(path, _connect(path))
    if lib.pending:
        _start_growing(root)
    return lib


def _space_needed(root: str, base: str | None, files: list[SourceFile]) -> int:
    """About how many bytes a build needs: a copy of the database and the new editions when
    it starts from the library at `base`, else a whole library (the shipped sources' size, or
    the size of the current one if bigger)."""

    def size(folder: str) -> int:
        return sum(os.path.getsize(os.path.join(d, n)) for d, _s, names in os.walk(folder)
                   for n in names)  # fmt: skip

    mb = 1024 * 1024
    sources = sum(max(f.stat()[0], 0) for f in files if f.origin == "user")
    if base:
        return os.path.getsize(os.path.join(base, DB)) + 30 * sources + 20 * mb
    path = current(root)
    return max(SHIPPED_MB * mb + 30 * sources, size(path) if path else 0)


def storage_error(
    e: OSError, root: str, needed: int | None = None, doing: str | None = None
) -> StorageError | None:
    """The one line for a failure to write in the library home `root` (a full disk, a
    read-only home), or None for another error, or one about a file elsewhere."""
    import errno
    import shutil

    mb = 1024 * 1024
    where = os.path.abspath(e.filename) if isinstance(e.filename, str) else None
    if where and not where.startswith(os.path.abspath(root)):
        return None  # a file of the user's, not the library's
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        free = shutil.disk_usage(root).free if os.path.isdir(root) else 0
        return StorageError(
            _("no space left on the disk of {home} while {doing}: about {needed} MB needed, "
              "{free} MB free").format(home=root, doing=_(doing or _doing or N_("building the library")),
                                       needed=round((needed or SHIPPED_MB * mb) / mb),
                                       free=round(free / mb)))  # fmt: skip
    if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StorageError(
            _(
                "cannot write to {home} ({reason}); set CRLOOKUP_HOME to a folder you can write to"
            ).format(home=e.filename or root, reason=e.strerror)
        )
    return None


def build(
    root: str,
    files: list[SourceFile] | None = None,
    progress: Progress | None = None,
    first: int | None = None,
    fresh: bool = False,
) -> str:
    """Bring the library up to date with the sources and make it current; returns its path.

    The build is a pipeline of stages, each a module of its own, each run for the editions
    that are new: sources (crlookup.sources: parse) -> editions (crlookup.editions: the
    database) -> index (crlookup.index) -> alignments (crlookup.align) -> lexicons
    (crlookup.ask.build), with the cards beside them. When the current library was built by
    this version from sources that are all still there, unchanged, the new library starts as
    a copy of it (its files linked, not copied, where they are never written again) and only
    the new sources' editions go through the stages: adding an edition takes seconds. Any
    other change (a source removed or changed, the card file, the version) builds it anew.
    With `first`, a library built anew takes only the newest `first` editions of an archive
    now (it records how many are still to come, `pending`); the next build adds them.

    `fresh` builds it anew even if the current library looks up to date (`rebuild`).

    The new library is written beside the current one and replaces it in one rename.
    Raises `crlookup.SourceError` for a source that cannot be read, `StorageError` for a
    disk that is full or a home that cannot be written (checked before it starts: about how
    much room it needs), and `LibraryError` for anything else; in every case the previous
    library stays current and the new one's files are removed.
    """
    global _doing
    _doing = ""
    try:
        return _build(root, files, progress, first, fresh)
    except OSError as e:
        found = storage_error(e, root)
        if found is None:
            raise
        raise found from None


def _build(root, files, progress, first, fresh) -> str:
    import errno
    import shutil
    import time
    import uuid
    from pathlib import Path

    files = source_files(root) if files is None else files
    root_path = Path(root)
    with _locked(root):
        path = current(root)
        base_stamp = {}
        if path is not None and not fresh:  # another process may have built it while we waited
            with (
                contextlib.closing(_connect(path)) as db,
                contextlib.suppress(sqlite3.DatabaseError),
            ):
                base_stamp = _stamp(db)
                if _is_fresh(base_stamp, files) and (first or not base_stamp.get("pending")):
                    return path
        _sweep(root_path)
        _step(N_("reading the sources"))
        tmp = root_path / f"build-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        needed = None
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
            wanted = units(files)
            known = None if fresh else _units_kept(path, base_stamp, stamp, files, wanted)
            needed = _space_needed(root, path if known is not None else None, files)
            if shutil.disk_usage(root).free < needed:  # refused before a file is written
                error = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), root)
                raise storage_error(error, root, needed, N_("building the library"))
            _run(
                tmp,
                root_path,
                files,
                wanted,
                stamp,
                path if known is not None else None,
                known or set(),
                progress,
                first,
            )
            final = root_path / f"library-{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:6]}"
            _step(N_("switching to the new library"))
            os.rename(tmp, final)
            _reached("renamed")
            pointer = root_path / f"current.{uuid.uuid4().hex[:8]}.tmp"
            pointer.write_text(final.name, encoding="utf-8")
            os.replace(pointer, root_path / "current")
        except OSError as e:
            _sweep(root_path)
            found = storage_error(e, root, needed)
            if found is None:
                raise
            raise found from None
        except BaseException:
            _sweep(root_path)
            raise
        _step("switched")
        _sweep(root_path, keep={final.name, os.path.basename(path) if path else ""})
        cards = {
            _cards_cache_name(s["sha256"])
            for s, f in zip(stamp["sources"], files)
            if f.format == CARDS
        }
        for cached in (root_path / "parsed").glob("*"):
            if cached.name not in cards:  # card databases of card files no longer shipped
                cached.unlink(missing_ok=True)
        return str(final)


def _units_kept(
    path: str | None, base: dict, stamp: dict, files: list[SourceFile], wanted: list[Unit]
) -> set[str] | None:
    """The units (keys) of the library at `path` if it can be the start of the new one: same
    version and schema, the same card file, and every unit it was built from (a source file,
    an archive member) still there, unchanged; None if the new one is built anew."""
    if path is None or base.get("version") != __version__ or base.get("schema") != SCHEMA:
        return None
    cards = {f.name for f in files if f.format == CARDS}

    def card_files(sources: list[dict]) -> set:
        return {(s["file"], s["sha256"]) for s in sources if s["file"] in cards}

    if card_files(base.get("sources", [])) != card_files(stamp["sources"]):
        return None
    try:
        with contextlib.closing(_connect(path)) as db:
            built = {r[0] for r in db.execute("SELECT DISTINCT unit FROM editions")}
    except sqlite3.DatabaseError:
        return None
    return built if built <= {u.key for u in wanted} else None


def _clone(base: str, tmp) -> None:
    """The library at `base` as the start of a new one at `tmp`: the database copied (it is
    written to), every other file linked (never written in place: stages replace files)."""
    import shutil

    for folder, _dirs, names in os.walk(base):
        target = os.path.join(tmp, os.path.relpath(folder, base))
        os.makedirs(target, exist_ok=True)
        for name in names:
            src, dst = os.path.join(folder, name), os.path.join(target, name)
            if name == DB:
                shutil.copyfile(src, dst)
                continue
            try:
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)


def _run(
    tmp,
    root_path,
    files,
    wanted: list[Unit],
    stamp: dict,
    base: str | None,
    known: set[str],
    progress: Progress | None,
    first: int | None = None,
) -> None:
    """The stages of a build into `tmp`, starting from the library at `base` if given (built
    from the units `known`); with `first`, of an archive's members only the newest `first`
    (the rest recorded as pending)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from crlookup import align, editions, index
    from crlookup.ask import build as ask_build

    db_path = str(tmp / DB)
    if progress:
        progress(0, 100, "reading the sources")
    if base:
        _clone(base, tmp)
        editions.write_meta(db_path, "stamp", stamp)
        with contextlib.closing(_connect(base)) as db:
            ids = {r[0]: r[1] for r in db.execute("SELECT id, source FROM editions")}
    else:
        editions.create(db_path, stamp)
        ids = {}
    todo = [u for u in wanted if u.key not in known]
    if first is not None and not base:
        members = [u for u in todo if u.member]
        later = {u.key for u in members[:-first]} if len(members) > first else set()
        todo = [u for u in todo if u.key not in later]
        stamp = dict(stamp, pending=len(later))
        editions.write_meta(db_path, "stamp", stamp)
    cards = [(f, s["sha256"]) for f, s in zip(files, stamp["sources"]) if f.format == CARDS]
    # fresh processes, not forks: a process that has run the embedding model (its OpenMP
    # threads) cannot fork a child that runs it again (the child hangs)
    spawn = multiprocessing.get_context("spawn")
    workers = min(2, os.cpu_count() or 1)
    pooled = len(todo) > 1  # one new edition is quicker done here than in new processes
    with (
        ProcessPoolExecutor(workers, mp_context=spawn)
        if pooled
        else contextlib.nullcontext() as pool
    ):
        parsed = []

        def checked():  # written into the library while the next ones are parsed
            for e, source in _parse(todo, _stage(progress, 0, 35), pool):
                if e.id in ids:
                    raise LibraryError(f"edition {e.id} comes from both {ids[e.id]} and {e.source}")
                ids[e.id] = e.source
                parsed.append((e, source))
                yield e, source

        editions.add(db_path, checked())
        _step(N_("building the index"))
        with contextlib.closing(_connect(str(tmp))) as db:
            infos = Library(str(tmp), db).editions()
        # what `ask` reads questions against: the newest complete edition of each language
        newest = {e.lang: e for e in sorted(infos, key=lambda e: (not e.partial, e.date))}
        asked = [
            e.id
            for e in newest.values()
            if e.lang in ask_build.LANGS
            and not os.path.exists(os.path.join(tmp, ask_build.LEXICON_DIR, e.id + ".pickle"))
        ]
        pairs, stale = align.plan(db_path)
        # the stages that don't wait for each other run side by side: alignments, lexicons
        # and cards in the pool, the index here
        jobs = {
            "align": [
                (align.align_pairs, db_path, share) for share in align.shares(pairs, workers)
            ],
            "lexicons": [(ask_build.build_lexicons, str(tmp), asked)] if asked else [],
            "cards": []
            if base
            else [
                (build_cards, f.path, sha, str(tmp), str(root_path / "parsed")) for f, sha in cards
            ],
        }
        running = (
            {stage: [pool.submit(*job) for job in js] for stage, js in jobs.items()} if pool else {}
        )
        index.add(str(tmp / INDEX_DIR), [e for e, _s in parsed], _stage(progress, 35, 30))
        _step(N_("aligning the editions"))
        if progress:
            progress(65, 100, "aligning editions")
        results = {
            stage: [f.result() for f in running[stage]]
            if pool
            else [job[0](*job[1:]) for job in js]
            for stage, js in jobs.items()
        }
    _step(N_("saving the alignments"))
    align.save(db_path, pairs, stale, [row for rows in results["align"] for row in rows])
    card_status = results["cards"]
    if not base:
        editions.write_meta(db_path, "cards", card_status[0] if card_status else {})
    if progress:
        progress(100, 100, "done")


def main(argv: list[str]) -> int:
    """`python -m crlookup.build grow ROOT`: what `_start_growing` runs, in the background."""
    if len(argv) != 2 or argv[0] != "grow":
        sys.stderr.write("usage: python -m crlookup.build grow ROOT\n")
        return 2
    try:
        grow(argv[1])
    except Exception as e:  # noqa: BLE001 (in the background: the next command starts it again)
        sys.stderr.write(f"crlookup: adding the older editions failed: {e}\n")
        return 1
    return 0


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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
