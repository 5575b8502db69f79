"""A built library's health: each stage of the build checks what it wrote (crlookup.build.stage),
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

from crlookup.build.stage import Finding

__all__ = ["Finding", "check", "damaged"]


def check(path: str) -> list[Finding]:
    """Every part of the library at `path`, checked by the stage that wrote it (the database
    first: without it, the other parts cannot be listed)."""
    from crlookup.build.pipeline import stages

    found: list[Finding] = []
    for stage in stages():
        found += stage.check(path)
        if found and found[0].damage:
            break
    return found


def damaged(path: str) -> list[Finding]:
    """The damaged parts of the library at `path` (none: it is sound)."""
    return [f for f in check(path) if f.damage]
