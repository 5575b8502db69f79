"""The data files shipped inside the package (data/ of a checkout, crlookup/data/ installed):
the sources and card files a library is built from, and what `card` and `ask` read at run time
(the rulings' links, the entry vectors, the ranking weights). Each is checked against the size
and SHA-256 recorded for it when the data was made (data/checksums.json, written by
scripts/checksums.py and compared with the files by the suite), as a library's own files are
against what its build recorded: a damaged one is said in one line, with the fix (reinstall),
never read as if it were sound (issue 47: a truncated ruling-links.sqlite lost every ruling's
rules, with exit code 0 and no word).

    check()          every shipped file, hashed: what `doctor` reports
    verified(name)   the path of one a command is about to read: its size compared with the
                     record (a stat), and its contents too if its size or time differ from
                     when it was last found sound (the home's SEEN file remembers that)
"""

from __future__ import annotations

import functools
import json
import os

from crlookup.core.errors import ShippedDamaged

RECORD = "checksums.json"  # in data/: {"files": {name: {"size": bytes, "sha256": hex}}}
SEEN = ".shipped"  # in the home: {path of a shipped file: [size, mtime_ns] when found sound}


def folder() -> str:
    """Where the shipped data is (crlookup.core.paths.package_data)."""
    from crlookup.core import paths

    return paths.package_data()


@functools.cache
def _record(where: str) -> dict[str, dict]:
    try:
        with open(os.path.join(where, RECORD), encoding="utf-8") as f:
            return dict(json.load(f)["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # (a data folder of the user's own has no record: nothing to compare)


def recorded() -> dict[str, dict]:
    """The record of the shipped files: {name under data/: {"size", "sha256"}}."""
    return _record(folder())


def sha256(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def damage(name: str, path: str, hashed: bool = True) -> str:
    """What is wrong with the shipped file `name` at `path` ("" if nothing): missing, a size
    other than the record's, or (`hashed`) contents other than the record's."""
    wanted = recorded().get(name)
    if wanted is None:
        return ""
    try:
        size = os.stat(path).st_size
    except OSError:
        return "missing"
    if size != wanted["size"]:
        return f"{size:,} bytes, not {wanted['size']:,}"
    if hashed and sha256(path) != wanted["sha256"]:
        return "its contents differ from the package's"
    return ""


def verified(name: str) -> str:
    """The path of the shipped file `name`, about to be read; ShippedDamaged if it is not as
    the package recorded it. Hashed only when its size or time differ from when it was last
    found sound in this home (a stat, otherwise)."""
    path = os.path.join(folder(), name)
    if name not in recorded():
        return path
    try:
        st = os.stat(path)
    except OSError:
        raise ShippedDamaged(path, "missing") from None
    seen = _seen()
    if seen.get(path) == [st.st_size, st.st_mtime_ns]:
        return path
    wrong = damage(name, path)
    if wrong:
        raise ShippedDamaged(path, wrong)
    seen[path] = [st.st_size, st.st_mtime_ns]
    _remember(seen)
    return path


def verify_paths(paths: list[str]) -> None:
    """Each of `paths` that is a shipped file `verified` (ShippedDamaged for the first that is
    not as recorded): the sources a build is about to read."""
    where = os.path.realpath(folder())
    for path in paths:
        real = os.path.realpath(path)
        if real.startswith(where + os.sep):
            verified(os.path.relpath(real, where).replace(os.sep, "/"))


def check() -> list[tuple[str, str, str]]:
    """Every shipped file the record names, hashed: (name, path, damage) with "" if sound."""
    where = folder()
    return [(name, os.path.join(where, name), damage(name, os.path.join(where, name)))
            for name in sorted(recorded())]  # fmt: skip


def _seen_path() -> str:
    from crlookup.core import paths

    return os.path.join(paths.home(), SEEN)


_seen_cache: dict[str, dict] = {}


def _seen() -> dict:
    path = _seen_path()
    if path not in _seen_cache:
        try:
            with open(path, encoding="utf-8") as f:
                found = json.load(f)
            _seen_cache[path] = found if isinstance(found, dict) else {}
        except (OSError, ValueError):
            _seen_cache[path] = {}
    return _seen_cache[path]


def _remember(seen: dict) -> None:
    """The home's SEEN file written (not where the home does not exist yet, or is read-only:
    the file is hashed again next time)."""
    import contextlib

    from crlookup.library.database import write_atomic

    path = _seen_path()
    if os.path.isdir(os.path.dirname(path)):
        with contextlib.suppress(OSError):
            write_atomic(path, json.dumps(seen, sort_keys=True).encode("utf-8"))
