"""The library home (`CRLOOKUP_HOME`, else the per-user cache directory): which library is in
use, the build lock, and the cleanup of what killed builds leave behind.

    current              the name of the library in use (replaced atomically)
    library-<stamp>/     one built library: library.sqlite (the rules), the search index,
                         cards.sqlite (the cards), ask/ (what questions are read against),
                         checksums.json (every file as the build left it), .readers
                         (each process that reads it holds a shared lock on it: a library
                         no longer current goes once none does)
    parsed/              what was built from a source once, by its content (the card database,
                         and its sha256)
    sources/             editions the user ingested, with their manifest.json
    .lock                held while building, so that two processes never build at once
    .grow-failed         why adding the older editions in the background last failed
    .building            how far the build holding the lock got, and whether it adds the
                         older editions, builds or rebuilds: for a command that waits for it

A build writes a new `library-<stamp>/` beside the current one and only then points `current`
at it (`switch`): a failed or interrupted build leaves the previous library in use.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from crlookup.core.errors import StorageError
from crlookup.core.i18n import N_, _
from crlookup.library.database import DB, INDEX_DIR

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def edition_ids(root: str) -> list[tuple[str, str, str, bool]]:
    """(id, language, document, partial) of each edition of the library in use, read without
    building one (none yet: none), for shell completion."""
    import sqlite3

    path = current(root)
    if path is None:
        return []
    try:
        db = sqlite3.connect(f"file:{os.path.join(path, DB)}?mode=ro", uri=True)
        try:
            return db.execute(
                "SELECT id, lang, document, partial FROM editions ORDER BY date DESC"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return []


def current(root: str) -> str | None:
    """The library in use, if there is one. A `current` that does not name a library of the
    home (unreadable, bytes that are not UTF-8, a path) names none: the next command builds
    one and points `current` at it."""
    try:
        with open(os.path.join(root, "current"), encoding="utf-8") as f:
            name = f.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not name.startswith("library-") or any(c in name for c in "/\\\0") or ".." in name:
        return None
    path = os.path.join(root, name)
    complete = os.path.exists(os.path.join(path, DB)) and os.path.isdir(
        os.path.join(path, INDEX_DIR)
    )
    return path if name and complete else None


def current_names_none(root: str) -> bool:
    """Whether the home has a `current` that names no library of it (emptied, overwritten,
    pointing at one that is gone): damaged, not a first use."""
    return os.path.exists(os.path.join(root, "current")) and current(root) is None


#: A library folder that is not the current one and that no process reads is removed at once
#: (`reading`: each process holds a shared lock on its folder's READERS file); one without
#: that file (a build of an older crlookup), or where there are no locks (Windows), when it is
#: this old (seconds): a process that opened it before a build switched to the next one has
#: finished by then.
STALE = 600
READERS = ".readers"
_reading: dict[str, object] = {}  # folder -> its READERS file, held by this process till it exits


def hold(path: str) -> bool:
    """Hold the library at `path` as read by this process, until it exits (a shared lock on
    its READERS file: `tidy` leaves it while the process may still open its files); False
    where that cannot be (no locks, a read-only home: then STALE decides)."""
    if path in _reading:
        return True
    if not os.path.isfile(os.path.join(path, DB)):  # (no library's folder: nothing to hold)
        return False
    try:
        import fcntl

        handle = open(os.path.join(path, READERS), "a+b")  # noqa: SIM115 (held: _reading)
    except (ImportError, OSError):
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_SH)
    except OSError:
        handle.close()
        return False
    _reading[path] = handle
    return True


def reading(root: str) -> str | None:
    """The current library, held (`hold`) before any of its files is opened; the pointer is
    read again once the hold is taken, since a build may have switched it meanwhile."""
    for _attempt in range(5):
        path = current(root)
        if path is None or not hold(path) or current(root) == path:
            return path
    return current(root)


def _unread(path: str) -> bool | None:
    """Whether no process reads the library at `path` (its READERS file could be taken
    exclusively; let go at once, so that no reader ever waits on it: one that takes its hold
    after this finds `current` names another library, and moves to it); None: it cannot
    tell (no such file, no locks)."""
    try:
        import fcntl

        handle = open(os.path.join(path, READERS), "r+b")  # noqa: SIM115 (closed below)
    except (ImportError, OSError):
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True


# How far the build that holds the lock got, and what it is doing ("done total doing"): for a
# process that waits for the lock to show (crlookup.builder.pipeline); removed when it is done
BUILDING = ".building"


def tidy(root: str, path: str) -> None:
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
        unread = _unread(os.path.join(root, name))
        if unread is not None:
            return unread
        try:
            return now - os.stat(os.path.join(root, name)).st_mtime > STALE
        except OSError:
            return False

    left = [n for n in names if n.startswith("build-") or (n.startswith("current.") and n.endswith(".tmp"))
            or (n.startswith("library-") and n != os.path.basename(path) and stale(n))
            or n == BUILDING]  # fmt: skip
    sources = os.path.join(root, "sources")
    with contextlib.suppress(OSError):
        left += [os.path.join("sources", n) for n in os.listdir(sources) if n.endswith(".tmp")]
    if not left:
        return
    with contextlib.suppress(OSError), locked(root, wait=False) as mine:
        if mine:
            import shutil

            for name in left:
                target = os.path.join(root, name)
                if os.path.isdir(target):
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(target)


def busy(root: str) -> bool:
    """Whether a build holds the library's lock right now (never, where there are no locks;
    always, where the lock cannot be opened)."""
    try:
        with locked(root, wait=False) as mine:
            return mine is False
    except OSError:
        return True


@contextlib.contextmanager
def locked(
    root: str, wait: bool = True, waiting: Callable[[], None] | None = None
) -> Iterator[bool | None]:
    """Hold the home's build lock (yields True); with `wait` false, yields False at once if
    another process holds it, and None where there are no locks (Windows: cannot tell).
    `waiting` is called about four times a second while another process holds it."""
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".lock"), "a+") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: the atomic rename alone keeps readers safe
            yield True if wait else None
            return
        try:
            if wait and waiting is not None:
                _wait_for(handle, waiting)
            else:
                fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            yield False
            return
        _held.add(handle.fileno())
        try:
            yield True
        finally:
            _held.discard(handle.fileno())
            fcntl.flock(handle, fcntl.LOCK_UN)


def _wait_for(handle, waiting: Callable[[], None]) -> None:
    import fcntl
    import time

    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            waiting()
            time.sleep(0.25)


# The descriptors of the locks this process holds. A forked process (whoosh's index writers)
# would share each lock by its copy of the descriptor, and hold it for as long as it lived,
# the building process killed or not: its copy is pointed at /dev/null instead.
_held: set[int] = set()


def _let_go_in_child() -> None:
    if _held:
        null = os.open(os.devnull, os.O_RDONLY)
        for fd in _held:
            with contextlib.suppress(OSError):
                os.dup2(null, fd)
        os.close(null)
        _held.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_let_go_in_child)


#: A fresh library of the shipped sources takes about 145 MB (scripts/bench.py measures it).
SHIPPED_MB = 200


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
              "{free} MB free").format(home=root, doing=_(doing or N_("building the library")),
                                       needed=round((needed or SHIPPED_MB * mb) / mb),
                                       free=round(free / mb)))  # fmt: skip
    if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StorageError(
            _(
                "cannot write to {home} ({reason}); set CRLOOKUP_HOME to a folder you can write to"
            ).format(home=e.filename or root, reason=e.strerror)
        )
    return None


def sweep(root: Path, keep: set[str] | None = None) -> None:
    """Remove leftovers of interrupted builds and libraries no longer in use.

    Of the libraries `keep` names, the current one is kept, and the one that was current
    before the last build while a process reads it (`hold`; without its READERS file, or where
    there are no locks, always: a process that opened it just before the switch can finish
    reading it, and `tidy` removes it later).
    """
    import shutil

    now = os.path.realpath(current(str(root)) or "")
    for p in root.iterdir():
        if p.name.startswith("build-") and p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        elif p.name.startswith("current.") and p.name.endswith(".tmp"):
            p.unlink(missing_ok=True)
        elif (
            keep is not None
            and p.name.startswith("library-")
            and (p.name not in keep or (os.path.realpath(p) != now and _unread(str(p)) is True))
        ):
            shutil.rmtree(p, ignore_errors=True)
