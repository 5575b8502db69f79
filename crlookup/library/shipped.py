"""The data files shipped inside the package (data/ of a checkout, crlookup/data/ installed):
the sources and card files a library is built from, and what `card` and `ask` read at run time
(the rulings' links, the entry vectors, the ranking weights). Each is checked against the size
and SHA-256 recorded for it when the data was made (data/checksums.json, written by
scripts/checksums.py and compared with the files by the suite), as a library's own files are
against what its build recorded: a damaged one is said in one line, with the fix (reinstall),
never read as if it were sound (issue 47: a truncated ruling-links.sqlite lost every ruling's
rules, with exit code 0 and no word).

    check()          every shipped file, hashed: what `doctor` reports
    found_sound()    every one checked by a build, which records their sizes and times
    verified(name)   the path of one a command is about to read: a stat, and a hash too
                     if its size or time differ from when the library's build found it sound
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping

from crlookup.core.errors import ShippedDamaged

RECORD = "checksums.json"  # in data/: {"files": {name: {"size": bytes, "sha256": hex}}}


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


def verified(name: str, sound: Mapping[str, list[int]] | None = None) -> str:
    """The path of the shipped file `name`, about to be read; ShippedDamaged if it is not as
    the package recorded it. Hashed unless its size and time are those `sound` gives (what
    the library's build found sound: `found_sound`), a stat otherwise."""
    path = os.path.join(folder(), name)
    if name not in recorded():
        return path
    try:
        st = os.stat(path)
    except OSError:
        raise damaged(path, "missing") from None
    if sound is not None and sound.get(name) == [st.st_size, st.st_mtime_ns]:
        return path
    wrong = damage(name, path)
    if wrong:
        raise damaged(path, wrong)
    return path


def found_sound(before: Mapping[str, list[int]] | None = None) -> dict[str, list[int]]:
    """Every shipped file checked (hashed, unless its size and time are those `before` gives:
    the previous build's), as a build records them: {name: [size, mtime_ns]}; ShippedDamaged
    for the first that is not as the package recorded it."""
    where, sound = folder(), {}
    for name in sorted(recorded()):
        verified(name, before)
        st = os.stat(os.path.join(where, name))
        sound[name] = [st.st_size, st.st_mtime_ns]
    return sound


def damaged(path: str, detail: str) -> ShippedDamaged:
    """The error that says the shipped file at `path` is damaged, and the fix."""
    from crlookup.core.i18n import _

    return ShippedDamaged(
        _(
            "the installed file {path} is damaged ({detail}): reinstall crlookup "
            "(pip install --force-reinstall crlookup)"
        ).format(path=path, detail=detail),
        path,
        detail,
    )


def check() -> list[tuple[str, str, str]]:
    """Every shipped file the record names, hashed: (name, path, damage) with "" if sound."""
    where = folder()
    return [(name, os.path.join(where, name), damage(name, os.path.join(where, name)))
            for name in sorted(recorded())]  # fmt: skip
