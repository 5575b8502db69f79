"""The editions stage of a build: the sources parsed, and their editions into the library
database (a source file, or an archive's member, is a unit: crlookup.builder.manifest).

The database (crlookup.library.reader reads it) holds every edition's entries, glossary, names and
citations. From one edition to the next most entries keep their text, so a text is stored
once (`texts`, `gloss_texts`, keyed by a digest of everything in it) and each edition's
entries point at it; `entries` and `glossary` are views that join them back. Citations are
stored per text too. This keeps 130 editions in tens of megabytes, and adding an edition to
a library is writing only its own rows (`add`).

Wizards' numbering slips are kept: an edition may print a number twice; the second entry is
stored as its `twin` 1 (the third 2, ...), in document order.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from typing import TYPE_CHECKING

from crlookup.builder.stage import Build, Finding, Finish, nothing
from crlookup.core import documents
from crlookup.core.errors import LibraryError, SourceError
from crlookup.core.model import Edition, Reference, fold
from crlookup.core.numbers import KEYWORD_SECTIONS
from crlookup.library.database import DB, check_database, connect, write_meta
from crlookup.library.reader import sort_string

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from crlookup.builder.manifest import Unit
    from crlookup.builder.stage import Progress

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE editions (
    id TEXT PRIMARY KEY, seq INTEGER, lang TEXT, date TEXT, title TEXT, source TEXT,
    partial INTEGER, counts TEXT, notes TEXT, format TEXT, origin TEXT, unit TEXT,
    document TEXT);
CREATE INDEX editions_document ON editions (document, lang, date);
CREATE TABLE texts (
    id INTEGER PRIMARY KEY, digest BLOB UNIQUE, title TEXT, text TEXT, examples TEXT,
    refs TEXT, cards TEXT, translations TEXT, parts TEXT, annotations TEXT);
CREATE TABLE entry (
    edition TEXT, number TEXT, twin INTEGER, seq INTEGER, sort TEXT, kind TEXT,
    content INTEGER, file TEXT, line INTEGER,
    PRIMARY KEY (edition, number, twin)) WITHOUT ROWID;
CREATE INDEX entry_sort ON entry (edition, sort);
CREATE INDEX entry_content ON entry (content, edition);
CREATE VIEW entries AS
    SELECT e.edition, e.number, e.twin, e.seq, e.sort, e.kind, t.title, t.text, t.examples,
           t.refs, t.cards, t.translations, t.parts, t.annotations,
           coalesce(e.file, (SELECT source FROM editions WHERE id = e.edition)) AS file, e.line
    FROM entry e JOIN texts t ON t.id = e.content;
CREATE TABLE gloss_texts (
    id INTEGER PRIMARY KEY, digest BLOB UNIQUE, term TEXT, definition TEXT, headwords TEXT,
    see TEXT, obsolete INTEGER, english TEXT, unofficial INTEGER, refs TEXT, translations TEXT);
CREATE TABLE gloss (
    edition TEXT, seq INTEGER, content INTEGER, file TEXT, line INTEGER,
    PRIMARY KEY (edition, seq)) WITHOUT ROWID;
CREATE INDEX gloss_content ON gloss (content, edition);
CREATE VIEW glossary AS
    SELECT g.edition, g.seq, t.term, t.definition, t.headwords, t.see, t.obsolete, t.english,
           t.unofficial, t.refs, t.translations,
           coalesce(g.file, (SELECT source FROM editions WHERE id = g.edition)) AS file, g.line
    FROM gloss g JOIN gloss_texts t ON t.id = g.content;
CREATE TABLE names (edition TEXT, name TEXT, kind TEXT, ref TEXT);
CREATE INDEX names_name ON names (edition, name);
CREATE TABLE cites (content INTEGER, target TEXT, target_sort TEXT,
    PRIMARY KEY (content, target)) WITHOUT ROWID;
CREATE INDEX cites_target ON cites (target_sort);
CREATE TABLE gloss_cites (content INTEGER, target TEXT, target_sort TEXT,
    PRIMARY KEY (content, target)) WITHOUT ROWID;
CREATE INDEX gloss_cites_target ON gloss_cites (target_sort);
CREATE TABLE chain (old_edition TEXT, new_edition TEXT, PRIMARY KEY (old_edition, new_edition));
CREATE TABLE aligned (
    old_edition TEXT, new_edition TEXT, kind TEXT, old TEXT, new TEXT, similarity REAL,
    words_added INTEGER, words_removed INTEGER, refs_only INTEGER, typography INTEGER);
CREATE INDEX aligned_new ON aligned (new_edition, new);
CREATE INDEX aligned_old ON aligned (old_edition, old);
"""


def create(db_path: str | Path, stamp: dict) -> None:
    """A new, empty library database."""
    db = sqlite3.connect(db_path)
    with db:
        db.executescript(SCHEMA)
        db.execute("INSERT INTO meta VALUES ('stamp', ?)", (json.dumps(stamp),))
    db.close()


def counts(edition: Edition) -> dict:
    kinds = dict.fromkeys(("chapter", "section", "rule", "subrule", "appendix"), 0)
    for r in edition.rules:
        kinds[r.kind] += 1
    refs = [ref for r in edition.rules for ref in r.refs] + [
        ref for g in edition.glossary for ref in g.refs
    ]
    return {
        "chapters": kinds["chapter"],
        "sections": kinds["section"],
        "rules": kinds["rule"],
        "subrules": kinds["subrule"],
        **({"appendices": kinds["appendix"]} if edition.document != "cr" else {}),
        "examples": sum(len(r.examples) for r in edition.rules),
        "glossary": len(edition.glossary),
        "refs": len(refs),
        "refs_resolved": sum(1 for ref in refs if ref.resolved),
    }


def refs_json(refs: tuple[Reference, ...]) -> str:
    return json.dumps(
        [[r.text, r.first, r.last, list(r.targets)] for r in refs], ensure_ascii=False
    )


def _json(items) -> str:
    return json.dumps([list(i) if isinstance(i, tuple) else i for i in items], ensure_ascii=False)


def add(db_path: str | Path, editions: Iterable[tuple[Edition, dict]]) -> None:
    """Write editions into the library database: each with what the build knows of its
    source ({"format", "origin", "unit"}). Ids must be new to the library."""
    db = sqlite3.connect(db_path)
    known: dict[tuple, tuple[int, bool]] = {}  # contents met in this call: most, many times
    with db:
        seq = db.execute("SELECT coalesce(max(seq) + 1, 0) FROM editions").fetchone()[0]
        for e, source in editions:
            _insert(db, seq, e, source, known)
            seq += 1
    db.close()  # (its statistics are gathered when the build is done: pipeline._analyze)


def _content(
    db: sqlite3.Connection, table: str, parts: tuple, serialize, known: dict
) -> tuple[int, bool]:
    """The id of a text (stored once per content), and whether it is new to the library."""
    key = (table, parts)
    if key in known:
        return known[key][0], False
    row = serialize(*parts)
    digest = hashlib.blake2b(json.dumps(row, ensure_ascii=False).encode(), digest_size=16).digest()
    found = db.execute(f"SELECT id FROM {table} WHERE digest = ?", (digest,)).fetchone()
    if found:
        known[key] = (found[0], False)
        return found[0], False
    marks = ",".join("?" * (len(row) + 1))
    cursor = db.execute(f"INSERT INTO {table} VALUES (NULL,{marks})", (digest, *row))
    new_id = cursor.lastrowid
    assert new_id is not None  # an INSERT sets it
    known[key] = (new_id, True)
    return new_id, True


def _rule_row(title, text, examples, refs, cards, translations, parts, annotations) -> tuple:
    return (
        title,
        text,
        _json(examples),
        refs_json(refs),
        _json(cards),
        _json(translations),
        _json(parts),
        _json(annotations),
    )


def _gloss_row(term, definition, headwords, see, obsolete, english, unofficial, refs, translations):
    return (
        term,
        definition,
        _json(headwords),
        see,
        int(obsolete),
        english,
        int(unofficial),
        refs_json(refs),
        _json(translations),
    )


def _insert(db: sqlite3.Connection, seq: int, e: Edition, source: dict, known: dict) -> None:
    db.execute(
        "INSERT INTO editions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            e.id,
            seq,
            e.lang,
            e.date.isoformat(),
            e.title,
            e.source,
            int(e.partial),
            json.dumps(counts(e)),
            json.dumps(list(e.notes), ensure_ascii=False),
            source.get("format", ""),
            source.get("origin", ""),
            source.get("unit", ""),
            e.document,
        ),
    )
    if e.document == "cr":
        sort = sort_string
    else:
        sorts = documents.sort_strings(e)

        def sort(number: str) -> str:  # another document's number sorts as written
            return sorts.get(number, number)

    twins: dict[str, int] = {}
    entry_rows, cite_rows = [], []
    for i, r in enumerate(e.rules):
        twin = twins.get(r.number, 0)
        twins[r.number] = twin + 1
        content, new = _content(
            db,
            "texts",
            (r.title, r.text, r.examples, r.refs, r.cards, r.translations, r.parts, r.annotations),
            _rule_row,
            known,
        )
        if new:
            cite_rows += [(content, t, sort(t)) for ref in r.refs for t in ref.targets]
        entry_rows.append(
            (
                e.id,
                r.number,
                twin,
                i,
                sort(r.number),
                r.kind,
                content,
                None if r.source.file == e.source else r.source.file,
                r.source.line,
            )
        )
    db.executemany("INSERT INTO entry VALUES (?,?,?,?,?,?,?,?,?)", entry_rows)
    db.executemany("INSERT OR IGNORE INTO cites VALUES (?,?,?)", cite_rows)
    gloss_rows, gloss_cites = [], []
    for i, g in enumerate(e.glossary):
        content, new = _content(
            db,
            "gloss_texts",
            (
                g.term,
                g.definition,
                g.headwords,
                g.see,
                g.obsolete,
                g.english,
                g.unofficial,
                g.refs,
                g.translations,
            ),
            _gloss_row,
            known,
        )
        if new:
            gloss_cites += [(content, t, sort_string(t)) for ref in g.refs for t in ref.targets]
        gloss_rows.append(
            (e.id, i, content, None if g.source.file == e.source else g.source.file, g.source.line)
        )
    db.executemany("INSERT INTO gloss VALUES (?,?,?,?,?)", gloss_rows)
    db.executemany("INSERT OR IGNORE INTO gloss_cites VALUES (?,?,?)", gloss_cites)
    # the names `define` finds: every headword of the glossary, and keyword rule titles; and
    # the names of a tournament document's entries ("hidden card error": features.shorthand)
    names = {
        (fold(name), "glossary", str(i))
        for i, g in enumerate(e.glossary)
        for name in {*g.headwords, g.term, g.english} - {""}
    }
    names |= {
        (fold(r.title), "rule", r.number)
        for r in e.rules
        if e.document == "cr"
        and r.kind == "rule"
        and r.title
        and r.number.split(".")[0] in KEYWORD_SECTIONS
    }
    names |= {
        (fold(name), "rule", r.number)
        for r in e.rules
        if e.document != "cr" and r.title
        for name in documents.names(r.title)
    }
    db.executemany("INSERT INTO names VALUES (?,?,?,?)", [(e.id, *n) for n in sorted(names)])


def parse_unit(unit: Unit) -> list[Edition]:
    """The editions of one unit, cross-references resolved: what a parsing process runs."""
    from crlookup import sources
    from crlookup.builder import manifest
    from crlookup.core import references as refs
    from crlookup.sources import archive, glossary

    def linked(e: Edition) -> Edition:
        return (
            refs.link(glossary.distinct_headwords(e)) if e.document == "cr" else documents.link(e)
        )

    if unit.member:
        assert unit.data is not None  # an archive member's unit carries its bytes
        found = [archive.read_member(unit.file.name, unit.member, unit.data)]
    else:
        found = sources.read(unit.file.path, None, unit.file.format)
    return [manifest.apply_options(linked(e), unit.file.options or {}) for e in found]


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


def _english_dates(build: Build, ids: dict) -> set:
    """The dates of the English editions the library has or will have: those of its sources'
    declared English ids (some are added later, `grow`) and of those already in it."""
    from datetime import date

    found = set()
    for id_ in [*ids, *(i for f in build.files for i in f.editions)]:
        m = re.match(r"en-(\d{4})-(\d{2})-(\d{2})", id_)
        if m:
            with contextlib.suppress(ValueError):
                found.add(date(*map(int, m.groups())))
    return found


def _check_translated(e: Edition, english: set) -> None:
    """SourceError unless an English edition of the translation's date is in the library: a
    translation is read beside the original of its date (crlookup.bilingual)."""
    from datetime import date

    filed = re.search(r"(\d{4})-(\d{2})-(\d{2})", e.id)
    dates = {e.date} | ({date(*map(int, filed.groups()))} if filed else set())
    if not dates & english:
        raise SourceError(
            e.source,
            e.dated or None,
            f"a translation of an English edition of the library ({e.id} translates "
            f"en-{e.date.isoformat()}, which none of its sources has)",
            f"{e.lang} rules of {e.date.isoformat()}",
        )


class Editions:
    """The stage: the sources' new units parsed (in the pool's processes when there are
    several) and written into the library database while the next ones are parsed."""

    name = "editions"
    reads: tuple[str, ...] = ("sources",)
    writes: tuple[str, ...] = (DB,)
    TABLES = frozenset({"meta", "editions", "texts", "entry", "gloss_texts", "gloss", "names",
                        "cites", "gloss_cites", "chain", "aligned"})  # fmt: skip

    def run(self, build: Build) -> Finish:
        if build.base:
            write_meta(build.db_path, "stamp", build.stamp)
            with contextlib.closing(connect(os.path.join(build.base, DB))) as db:
                ids = {r[0]: r[1] for r in db.execute("SELECT id, source FROM editions")}
        else:
            create(build.db_path, build.stamp)
            ids = {}

        english = _english_dates(build, ids)

        def checked():  # written into the library while the next ones are parsed
            for e, source in _parse(build.todo, build.share(0, 35), build.pool):
                if e.id in ids:
                    raise LibraryError(f"edition {e.id} comes from both {ids[e.id]} and {e.source}")
                ids[e.id] = e.source
                if e.document == "cr" and e.lang == "en":
                    english.add(e.date)
                build.editions.append(e)
                yield e, source
            for e in build.editions:
                if e.document == "cr" and e.lang != "en":
                    _check_translated(e, english)

        add(build.db_path, checked())
        return nothing

    def check(self, path: str) -> list[Finding]:
        file = os.path.join(path, DB)
        return [Finding(DB, file, check_database(file, self.TABLES))]


STAGE = Editions()
