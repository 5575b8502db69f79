"""The build: when a library is (re)built, and how, atomically, as a pipeline of stages.

`open_library` opens the current library of a home (crlookup.library.home), building it first
if it is missing or stale (crlookup.builder.manifest says which). `build` runs the stages of
`stages()` (crlookup.builder.stages, one module each) into a new folder beside the current library,
with a process pool it owns, and only then makes it current: a failed or interrupted build
leaves the previous library in use. A library whose sources are all still there starts as a
copy of the current one (its files linked) and only the new editions go through the stages.

On first use the archive's two newest editions and the tournament documents go in first, and a
process of their own (`grow`, `python -m crlookup.builder grow ROOT`) adds the older editions,
the other shipped ones and the translations while the library is in use (`_later`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from typing import TYPE_CHECKING, Any

from crlookup.builder import manifest
from crlookup.builder.manifest import CARD_FORMATS, SourceFile, Unit
from crlookup.core.errors import LibraryDamaged, StorageError
from crlookup.core.i18n import N_, _
from crlookup.core.paths import home as default_home
from crlookup.library import home, shipped
from crlookup.library.database import (
    CHECKSUMS,
    DB,
    SCHEMA,
    open_db,
    record_checksums,
    verify,
    write_atomic,
)
from crlookup.library.reader import Library
from crlookup.version import __version__

if TYPE_CHECKING:
    from pathlib import Path

    from crlookup.builder.stage import Progress, Stage


def stages() -> tuple[Stage, ...]:
    """The stages of a build, in order: the editions first, then the others, side by side (the
    index last among them: it runs in this process while the others run in the pool).
    Imported when a library is built or checked, not when one is only opened."""
    from crlookup.builder.stages import alignments, cards, editions, index, lexicons

    return (editions.STAGE, alignments.STAGE, lexicons.STAGE, cards.STAGE, index.STAGE)


def _later(todo: list[Unit], first: int) -> dict[str, list[str]]:
    """The units a first build leaves for later, each with the languages of its editions: all but the newest
    `first` of each archive's English editions, and the newest `FIRST_TRANSLATED` of each
    translation's; and, when an archive gives the English editions to answer with, every
    other edition of the rules that is no user's own (the seeds: older editions, and the
    translations of an edition of its own). The tournament documents, and the user's, go in
    first."""
    from crlookup.core.documents import document_of
    from crlookup.sources import archive

    groups: dict[tuple[str, str], list[Unit]] = {}
    for u in todo:
        if u.member:
            named = archive.MEMBER.match(u.member)
            lang = (named.group(1) if named else None) or "en"
            groups.setdefault((u.file.name, lang), []).append(u)
    later: dict[str, list[str]] = {}
    for (_file, lang), members in groups.items():
        keep = first if lang == "en" else FIRST_TRANSLATED
        later |= {u.key: [lang] for u in members[: len(members) - keep]}
    if not any(lang == "en" for _file, lang in groups):
        return later
    for u in todo:
        rules = [e for e in u.file.editions if document_of(e) == "cr"]
        if not u.member and u.file.origin == "shipped" and rules:
            later[u.key] = [e.split("-")[0] for e in rules]
    return later


def _connect(path: str, readonly: bool = True) -> sqlite3.Connection:
    return open_db(path, readonly)


#: On first use, the archive's newest English editions go into the library first (with the
#: tournament documents), so that the first command answers in seconds; the older ones, the
#: other editions of the rules and the translations are added right after, by a process of
#: their own (`grow`), while the library is already in use (a command that needs one of
#: them waits for it).
FIRST = 2
#: Of an archive of translations (the Chinese editions), none goes in first.
FIRST_TRANSLATED = 0


def open_library(root: str | None = None, progress: Progress | None = None) -> Library:
    """Open the current library, building it first if it is missing or stale;
    `LibraryDamaged` if its database cannot be read (`rebuild` mends it).

    A library built with its older editions still to come (`Library.pending`) is used as it
    is, and a process is started to add them unless one is at it already.
    """
    root = root or default_home()
    files = manifest.source_files(root)
    path = home.reading(root)
    if path is not None:
        db = _connect(path)
        try:
            stamp = manifest.stamp_of(db)
        except sqlite3.DatabaseError as e:  # not rebuilt quietly: the caller says so first
            db.close()
            raise LibraryDamaged(DB, os.path.join(path, DB), str(e)) from None
        fresh = manifest.is_fresh(stamp, files)
        if fresh is None and manifest.same_contents(stamp, files):
            fresh = True  # touched but unchanged: remember the new times
            manifest.restamp(path, stamp, files)
        if fresh:
            try:  # its database as the build left it (a stat; its sha256 if that differs)
                verify(path, [DB])
            except LibraryDamaged:
                db.close()
                raise
            if stamp.get("pending"):
                _start_growing(root)
            home.tidy(root, path)
            return Library(path, db)
        db.close()
    # the library there is, if it can answer while it cannot be rebuilt (the same layout)
    old = path if path is not None and stamp.get("schema") == SCHEMA else None
    try:
        path = build(root, files, progress, first=FIRST)
    except StorageError as e:  # a read-only home, a full disk: what there is still answers
        if old is None:
            raise
        lib = Library(old, _connect(old))
        lib.stale = str(e)
        return lib
    path = home.reading(root) or path  # (held as read, as the one it replaced was)
    lib = Library(path, _connect(path))
    if lib.pending:
        _start_growing(root)
    return lib


def _start_growing(root: str) -> None:
    """Start a process that adds the editions still to come (`grow`), unless a build is
    running (it holds the lock, and will leave the library complete or be started again)."""
    import subprocess

    if home.busy(root) or grow_failure(root) is not None:
        return  # (a home it cannot write to among them: it would fail at once)
    with contextlib.suppress(OSError):
        subprocess.Popen(
            [sys.executable, "-m", "crlookup.builder", "grow", root],
            cwd=root,  # `-m` puts the folder it runs in first on the path: never a checkout's
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )


def grow(root: str) -> str:
    """Add the editions a first build left for later (the library stays in use meanwhile),
    telling a command that waits for them how far it got (`complete`)."""
    return build(root, doing=GROW)


BUILDING = home.BUILDING  # in the home, while a build holds the lock: how far it got
GROW, BUILD, REBUILD = "grow", "build", "rebuild"  # what a build is doing
# the labels of the progress of a wait: for the older editions; for another build
ADDING = N_("adding the older editions")
ANOTHER = N_("another crlookup building the library")


def pending(root: str, path: str) -> tuple[int, str | None]:
    """How many editions the library at `path` still lacks (the older ones a first build left
    for later), and why they could not be added lately (None: they are being added)."""
    with contextlib.closing(_connect(path)) as db:
        try:
            count = int(manifest.stamp_of(db).get("pending", 0))
        except (sqlite3.DatabaseError, ValueError, TypeError):  # (doctor names a damaged one)
            return 0, None
    return count, grow_failure(root) if count else None


def _telling(root: str, doing: str, progress: Progress | None) -> Progress:
    """`progress`, and how far the build got written to the home's BUILDING file as well."""
    told = os.path.join(root, BUILDING)

    def tell(done: int, total: int, label: str) -> None:
        with contextlib.suppress(OSError):
            write_atomic(told, f"{done} {total} {doing}".encode("ascii"))
        if progress is not None:
            progress(done, total, label)

    return tell


@contextlib.contextmanager
def _told(root: str):
    """The BUILDING file removed when the build that holds the lock is done."""
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(root, BUILDING))


def _waiting(root: str, progress: Progress | None, seen: set[str]):
    """What a build that waits for the home's lock does meanwhile: report how far the build
    that holds it got (most often the `grow` adding the older editions; else another build),
    and note in `seen` what that build is doing."""

    def report() -> None:
        try:
            with open(os.path.join(root, BUILDING), encoding="utf-8") as f:
                done_text, total_text, doing = f.read().split()
                done, total = int(done_text), int(total_text)
        except (OSError, ValueError):  # (not begun yet, or an older crlookup's)
            done, total, doing = 0, 100, GROW
        seen.clear()  # (what it is doing now: the last build that held the lock)
        seen.add(doing)
        if progress is not None:
            progress(min(done, total - 1), total, ADDING if doing == GROW else ANOTHER)

    return report


def complete(root: str, progress: Progress | None = None) -> Library:
    """The library with every edition, for a command that needs one still to come: the `grow`
    adding them waited for (`progress` told how far it got), or, if none is at it, the build
    done here. `StorageError` if they cannot be added: the home is read-only, the disk full
    (why `grow` failed lately, or why this build did)."""
    failed = grow_failure(root)
    if failed is not None:
        raise StorageError(failed)
    try:
        path = build(root, progress=progress)
    except StorageError as e:
        _grown(root, str(e))  # not tried again by every command
        raise
    if progress:
        progress(100, 100, ADDING)  # (a wait reports less: the bar is taken down)
    return Library(path, _connect(path))


GROW_FAILED = ".grow-failed"  # in the home: why the last `grow` failed, and when
GROW_RETRY_S = 600  # it is not started again before: not by every command, on a full disk


def grow_failure(root: str) -> str | None:
    """Why adding the older editions in the background failed less than GROW_RETRY_S ago,
    or would fail now (a home it cannot write to)."""
    import json
    import time

    if os.path.isdir(root) and not os.access(root, os.W_OK):
        return _("the library home {path} is read-only").format(path=root)

    try:
        with open(os.path.join(root, GROW_FAILED), encoding="utf-8") as f:
            failed = json.load(f)
        if time.time() - float(failed["when"]) < GROW_RETRY_S:
            return str(failed["reason"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _grown(root: str, reason: str | None) -> None:
    """Record how `grow` ended (a failure's reason, or none), if the home can be written."""
    import json
    import time

    path = os.path.join(root, GROW_FAILED)
    with contextlib.suppress(OSError):
        if reason is None:
            os.unlink(path)
        else:
            write_atomic(path, json.dumps({"when": time.time(), "reason": reason}).encode())


def _reached(doing: str) -> None:
    """A point between two steps of a build, where it can be stopped at no cost: until the
    "switched" step the previous library is the current one, after it the new one is (the
    tests pause a build here, in a process of its own, and kill it)."""


def _step(doing: str) -> None:
    global _doing
    _doing = doing
    _reached(doing)


_doing = ""  # the step a build is at, for its error messages


def rebuild(
    root: str | None = None, progress: Progress | None = None, first: int | None = FIRST
) -> Library:
    """Build the library anew from its sources (the shipped ones and the user's own), none of
    the current library reused: what a damaged library needs. Atomic like every build; with
    `first` (when a command waits for it), the older editions of the archive are added in the
    background, as on first use, else (`crlookup rebuild`: the current library answers
    meanwhile) before the new library is made current: it never lacks one."""
    root = root or default_home()
    manifest.repair(root)  # the user's own manifest, if it is what is damaged
    path = build(root, progress=progress, first=first, fresh=True)
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
    path = home.current(root)
    return max(home.SHIPPED_MB * mb + 30 * sources, size(path) if path else 0)


def build(
    root: str,
    files: list[SourceFile] | None = None,
    progress: Progress | None = None,
    first: int | None = None,
    fresh: bool = False,
    doing: str | None = None,
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

    `fresh` builds it anew even if the current library looks up to date (`rebuild`), unless
    another rebuild made a library current while this one waited for it: that is returned.
    What it is `doing` (GROW, BUILD or REBUILD: from `fresh` by default) and how far it got
    are told to a build that waits for it meanwhile (with progress, not a silent hang).

    The new library is written beside the current one and replaces it in one rename.
    Raises `crlookup.SourceError` for a source that cannot be read, `StorageError` for a
    disk that is full or a home that cannot be written (checked before it starts: about how
    much room it needs), and `LibraryError` for anything else; in every case the previous
    library stays current and the new one's files are removed.
    """
    global _doing
    _doing = ""
    try:
        return _build(root, files, progress, first, fresh, doing or (REBUILD if fresh else BUILD))
    except OSError as e:
        found = home.storage_error(e, root, doing=_doing or None)
        if found is None:
            raise
        raise found from None


def _build(root, files, progress, first, fresh, doing) -> str:
    import errno
    import shutil
    import time
    import uuid
    from pathlib import Path

    files = manifest.source_files(root) if files is None else files
    root_path = Path(root)
    before, seen = home.current(root), set[str]()
    with home.locked(root, waiting=_waiting(root, progress, seen)), _told(root):
        _telling(root, doing, None)(0, 100, "")  # (at once: a waiter reads no stale one)
        progress = _telling(root, doing, progress)
        path = home.current(root)
        if fresh and REBUILD in seen and path is not None and path != before:
            return path  # another rebuild did it while this one waited (issue 47: twice)
        base_stamp = {}
        if path is not None and not fresh:  # another process may have built it while we waited
            with (
                contextlib.closing(_connect(path)) as db,
                contextlib.suppress(sqlite3.DatabaseError),
            ):
                base_stamp = manifest.stamp_of(db)
                if manifest.is_fresh(base_stamp, files) and (
                    first or not base_stamp.get("pending")
                ):
                    return path
        home.sweep(root_path)
        _step(N_("reading the sources"))
        tmp = root_path / f"build-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        needed = None
        try:
            stamp: dict[str, Any] = {
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
            # the package's data, checked (its sources, what `card` and `ask` read): what a
            # command then compares with a stat
            stamp["shipped"] = shipped.found_sound(base_stamp.get("shipped"))
            wanted = manifest.units(files)
            known = None if fresh else _units_kept(path, base_stamp, stamp, files, wanted)
            needed = _space_needed(root, path if known is not None else None, files)
            if shutil.disk_usage(root).free < needed:  # refused before a file is written
                error = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), root)
                full = home.storage_error(error, root, needed, N_("building the library"))
                assert full is not None  # a full disk is a storage error
                raise full
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
            record_checksums(str(tmp))  # what `verify` and doctor compare the files to
            final = root_path / f"library-{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:6]}"
            _step(N_("switching to the new library"))
            os.rename(tmp, final)
            _reached("renamed")
            pointer = root_path / f"current.{uuid.uuid4().hex[:8]}.tmp"
            pointer.write_text(final.name, encoding="utf-8")
            os.replace(pointer, root_path / "current")
        except (OSError, sqlite3.OperationalError) as e:
            home.sweep(root_path)
            written = _full(e, root)
            found = (
                None
                if written is None
                else home.storage_error(written, root, needed, _doing or None)
            )
            if found is None:
                raise
            raise found from None
        except BaseException:
            home.sweep(root_path)
            raise
        _step("switched")
        home.sweep(root_path, keep={final.name, os.path.basename(path) if path else ""})
        from crlookup.builder.stages.cards import DIGEST, cache_names

        cached_cards = cache_names(files, stamp["sources"])
        for cached in (root_path / "parsed").glob("*"):
            if (
                cached.name.removesuffix(DIGEST) not in cached_cards
            ):  # of card files no longer shipped
                cached.unlink(missing_ok=True)
        return str(final)


def _full(e: Exception, root: str) -> OSError | None:
    """The OSError a failure to write is, SQLite's own included ("database or disk is full":
    a full disk in the home, where the build writes)."""
    if isinstance(e, OSError):
        return e
    if "full" in str(e) or getattr(e, "sqlite_errorcode", None) == 13:  # SQLITE_FULL
        import errno

        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), root)
    return None


def _units_kept(
    path: str | None, base: dict, stamp: dict, files: list[SourceFile], wanted: list[Unit]
) -> set[str] | None:
    """The units (keys) of the library at `path` if it can be the start of the new one: same
    version and schema, the same card data, and every unit it was built from (a source file,
    an archive member) still there, unchanged; None if the new one is built anew."""
    if path is None or base.get("version") != __version__ or base.get("schema") != SCHEMA:
        return None
    cards = {f.name for f in files if f.format in CARD_FORMATS}

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
            if name == CHECKSUMS:  # made again when the new library is complete
                continue
            if name == DB:
                shutil.copyfile(src, dst)
                continue
            try:
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)


def _run(
    tmp: Path,
    root_path: Path,
    files: list[SourceFile],
    wanted: list[Unit],
    stamp: dict,
    base: str | None,
    known: set[str],
    progress: Progress | None,
    first: int | None = None,
) -> None:
    """The stages of a build into `tmp`, starting from the library at `base` if given (built
    from the units `known`); with `first`, of an archive's members only the newest `first`
    (the rest recorded as pending). The editions stage comes first; the others don't wait for
    each other: they are all started (in the pool, but the index, here), then finished."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from crlookup.builder import processes
    from crlookup.builder.stage import Build

    if progress:
        progress(0, 100, "reading the sources")
    if base:
        _clone(base, tmp)
    todo = [u for u in wanted if u.key not in known]
    if first is not None and not base:
        later = _later(todo, first)
        todo = [u for u in todo if u.key not in later]
        langs = sorted({lang for langs in later.values() for lang in langs})
        stamp = dict(stamp, pending=sum(map(len, later.values())), pending_langs=langs)
    # fresh processes, not forks: a process that has run the embedding model (its OpenMP
    # threads) cannot fork a child that runs it again (the child hangs)
    spawn = multiprocessing.get_context("spawn")
    workers = min(2, os.cpu_count() or 1)
    pooled = len(todo) > 1  # one new edition is quicker done here than in new processes
    processes.forked_children_die_with_this_process()  # whoosh's writers
    with (
        ProcessPoolExecutor(
            workers,
            mp_context=spawn,
            initializer=processes.die_with,
            initargs=(os.getpid(),),
        )
        if pooled
        else contextlib.nullcontext()
    ) as pool:
        build = Build(tmp, root_path, files, stamp, todo, base, pool, workers, progress, _step)
        first_stage, *beside = stages()
        first_stage.run(build)()
        finishing = [stage.run(build) for stage in beside]
        _step(N_("aligning the editions"))
        if progress:
            progress(65, 100, "aligning editions")
        for finish in finishing:
            finish()
    _analyze(tmp / DB)
    if progress:
        progress(100, 100, "done")


def _analyze(db_path: Path) -> None:
    """Give SQLite's query planner the statistics of the finished database (ANALYZE: 0.4 s
    for a full library). Without them it read what cites a rule (`rule`, `refs`) by walking
    the whole edition: 1.7 ms a query where 0.06 ms suffice."""
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        db.execute("ANALYZE")
        db.commit()


def main(argv: list[str]) -> int:
    """`python -m crlookup.builder grow ROOT` (crlookup/builder/__main__.py): what `_start_growing`
    runs, in the background."""
    if len(argv) != 2 or argv[0] != "grow":
        sys.stderr.write("usage: python -m crlookup.builder grow ROOT\n")
        return 2
    try:
        grow(argv[1])
    except Exception as e:  # noqa: BLE001 (in the background: a later command starts it again)
        sys.stderr.write(f"crlookup: adding the older editions failed: {e}\n")
        _grown(argv[1], str(e) or type(e).__name__)
        return 1
    _grown(argv[1], None)
    return 0
