"""The alignments stage: each edition with the next on its language's main line
(crlookup.core.alignment.chain), aligned in the build's processes (`align_pairs`), then stored,
only what changed (`save`); pairs the chain no longer has are dropped.
"""

from __future__ import annotations

import sqlite3

from crlookup.builder.stage import Build, Finding, Finish
from crlookup.core.alignment import Match, chain
from crlookup.core.i18n import N_
from crlookup.core.model import Rule
from crlookup.library.alignments import align_editions
from crlookup.library.database import DB, connect
from crlookup.library.reader import Library


def changes(old: str, new: str, matches: list[Match]) -> list[tuple]:
    """The rows of an alignment the library stores: all but the unchanged."""
    return [(old, new, *m) for m in matches if not (m.kind == "unchanged" and m.old == m.new)]


def align_pairs(db_path: str, pairs: list[tuple[str, str]]) -> list[tuple]:
    """The stored rows of the alignments of `pairs`, computed from the library database at
    `db_path` (read-only): what a worker process of the build runs."""

    db = connect(db_path)
    db.row_factory = sqlite3.Row
    lib = Library("", db)
    rows = []
    entries: dict[str, list[Rule]] = {}
    for old, new in pairs:
        # pairs run along the line: the newer edition of one is the older of the next
        entries = {e: rules for e, rules in entries.items() if e in (old, new)}
        rows += changes(old, new, align_editions(lib, old, new, entries))
    db.close()
    return rows


def plan(db_path: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The alignments stage of a build, first step: the pairs of `chain` the library at
    `db_path` does not have yet (to align, with `align_pairs`), and the stored pairs `chain`
    no longer has (to drop)."""

    db = connect(db_path)
    db.row_factory = sqlite3.Row
    lib = Library("", db)
    wanted = chain(lib.editions())
    have = set(lib.alignment_pairs())
    db.close()
    return [p for p in wanted if p not in have], [p for p in have if p not in set(wanted)]


def shares(pairs: list, workers: int) -> list[list]:
    """The pairs in `workers` runs of consecutive pairs (each run reads its editions once)."""
    size = max(1, -(-len(pairs) // max(workers, 1)))
    return [pairs[i : i + size] for i in range(0, len(pairs), size)]


def save(db_path: str, aligned: list[tuple[str, str]], stale: list[tuple[str, str]], rows) -> None:
    """The alignments stage, last step: store the new pairs' rows, drop the stale pairs."""

    db = sqlite3.connect(db_path)
    with db:
        for old, new in stale:
            db.execute("DELETE FROM chain WHERE old_edition = ? AND new_edition = ?", (old, new))
            db.execute("DELETE FROM aligned WHERE old_edition = ? AND new_edition = ?", (old, new))
        db.executemany("INSERT INTO chain VALUES (?, ?)", aligned)
        db.executemany("INSERT INTO aligned VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    db.close()


class Alignments:
    """The stage: the pairs the library lacks aligned in the pool (runs of consecutive pairs,
    each reading its editions once), then stored."""

    name = "alignments"
    reads: tuple[str, ...] = (DB,)
    writes: tuple[str, ...] = (f"{DB}: chain, aligned",)

    def run(self, build: Build) -> Finish:
        pairs, stale = plan(build.db_path)
        waiting = [
            build.submit(align_pairs, build.db_path, run) for run in shares(pairs, build.workers)
        ]

        def finish() -> None:
            rows = [row for wait in waiting for row in wait()]
            build.step(N_("saving the alignments"))
            save(build.db_path, pairs, stale, rows)

        return finish

    def check(self, path: str) -> list[Finding]:
        return []  # tables of the database, which the editions stage checks


STAGE = Alignments()
