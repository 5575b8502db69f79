"""A built library's health: each stage of the build checks what it wrote (crlookup.builder.stage),
and what is damaged is named, with its path.

The parts are the rules database (library.sqlite: SQLite's own quick check, and the tables a
build writes), the full-text index of each language (opened, its terms and stored texts read,
its lists of each edition's documents), the card database (when the build made one), and what
`ask` reads for the newest edition of each language (its lexicon and entry vectors).

`check` runs them all (`crlookup doctor`); crlookup.api also runs it when a command fails in a
way it did not expect, so that a damaged library is named, and rebuilt, instead of showing a
traceback.
"""

from __future__ import annotations

from crlookup.builder.stage import Finding

__all__ = ["Finding", "check", "check_shipped", "damaged"]


def check(path: str) -> list[Finding]:
    """Every part of the library at `path`, checked by the stage that wrote it (the database
    first: without it, the other parts cannot be listed)."""
    from crlookup.builder.pipeline import stages

    found: list[Finding] = []
    for stage in stages():
        found += stage.check(path)
        if found and found[0].damage:
            return found
    return _checksums(path, found)


def _checksums(path: str, found: list[Finding]) -> list[Finding]:
    """The findings, with every file compared to the sha256 the build recorded: damage SQLite,
    whoosh and pickle cannot see (a changed byte in a text) is found too."""
    from crlookup.core.errors import LibraryDamaged
    from crlookup.library import database

    try:
        names = database.recorded(path)
    except LibraryDamaged as e:  # the record itself
        return [*found, Finding(e.part, e.path, e.detail)]
    for name in names:
        try:
            database.verify(path, [name], thorough=True)
        except LibraryDamaged as e:
            at = next((i for i, f in enumerate(found) if f.part == e.part), None)
            if at is None:
                found.append(Finding(e.part, e.path, e.detail))
            elif not found[at].damage:
                found[at] = Finding(e.part, e.path, e.detail)
    return found


def check_shipped() -> list[Finding]:
    """Every file shipped in the package, hashed and compared with what the package recorded
    (crlookup.library.shipped): a damaged one is mended by reinstalling, not by a rebuild."""
    from crlookup.library import shipped

    return [Finding(name, path, damage) for name, path, damage in shipped.check()]


def damaged(path: str) -> list[Finding]:
    """The damaged parts of the library at `path` (none: it is sound)."""
    return [f for f in check(path) if f.damage]
