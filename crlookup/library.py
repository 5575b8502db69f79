"""What a built library holds and how it is queried: editions, entries, glossary, citations.

One SQLite file. `write` parses the sources into it (`crlookup.store` decides when and
makes it atomic); `Library` answers lookups by number, subtrees, who-cites-what and exports
without parsing anything again, and opens the cards built beside it (`Library.cards`,
crlookup.cards), or says why there are none.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import date
from typing import TYPE_CHECKING, Iterator, NamedTuple

from crlookup import numbers
from crlookup.i18n import _
from crlookup.model import Edition, GlossaryEntry, Reference, Rule, Source, fold

if TYPE_CHECKING:
    from pathlib import Path

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE editions (
    id TEXT PRIMARY KEY, seq INTEGER, lang TEXT, date TEXT, title TEXT, source TEXT,
    partial INTEGER, counts TEXT, notes TEXT);
CREATE TABLE entries (
    edition TEXT, number TEXT, seq INTEGER, sort TEXT, kind TEXT, title TEXT, text TEXT,
    examples TEXT, refs TEXT, cards TEXT, translations TEXT, file TEXT, line INTEGER,
    PRIMARY KEY (edition, number)) WITHOUT ROWID;
CREATE INDEX entries_sort ON entries (edition, sort);
CREATE TABLE glossary (
    edition TEXT, seq INTEGER, term TEXT, definition TEXT, headwords TEXT, see TEXT,
    obsolete INTEGER, english TEXT, unofficial INTEGER, refs TEXT, translations TEXT,
    file TEXT, line INTEGER, PRIMARY KEY (edition, seq)) WITHOUT ROWID;
CREATE TABLE aligned (
    old_edition TEXT, new_edition TEXT, kind TEXT, old TEXT, new TEXT, similarity REAL,
    words_added INTEGER, words_removed INTEGER, refs_only INTEGER, typography INTEGER);
CREATE INDEX aligned_new ON aligned (new_edition, new);
CREATE INDEX aligned_old ON aligned (old_edition, old);
CREATE TABLE names (edition TEXT, name TEXT, kind TEXT, ref TEXT);
CREATE INDEX names_name ON names (edition, name);
CREATE TABLE cites (edition TEXT, source TEXT, target TEXT, target_sort TEXT);
CREATE INDEX cites_target ON cites (edition, target_sort);
CREATE INDEX cites_source ON cites (edition, source);
"""


#: Sections whose rules are named keyword actions and abilities (502: before July 2009).
KEYWORD_SECTIONS = ("701", "702", "502")


def sort_string(number: str) -> str:
    """A string that sorts like the number and whose subtree is a contiguous range."""
    n = numbers.parse(number)
    parts = [str(n.chapter)]
    if n.section >= 10:
        parts.append(f"{n.section:03d}")
    if n.rule is not None:
        parts.append(f"{n.rule:04d}")
    if n.letters:
        parts.append(f"{len(n.letters)}{n.letters}")
    return ".".join(parts)


class EditionInfo(NamedTuple):
    """An edition as listed: identity, provenance and counts, without its rules."""

    id: str
    lang: str
    date: date
    title: str
    source: str
    partial: bool
    counts: dict
    notes: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "lang": self.lang,
            "date": self.date.isoformat(),
            "title": self.title,
            "source": self.source,
            "partial": self.partial,
            "counts": self.counts,
        }


class NotFound(LookupError):
    """No such edition or entry; `suggestions` lists the nearest that exist."""

    def __init__(self, message: str, suggestions: list[str] | None = None):
        super().__init__(message)
        self.suggestions = suggestions or []


class CardsUnavailable(LookupError):
    """The library has no cards: the card file was missing or unreadable when it was built
    (the message names it, and the line)."""


def connect(db_path: str, readonly: bool = True) -> sqlite3.Connection:
    """A connection to one of a library's databases: read-only (by URI, so that reading can
    neither change nor create it), or for writing."""
    if not readonly:
        return sqlite3.connect(db_path)
    uri = db_path.replace(os.sep, "/").replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return sqlite3.connect(f"file:{uri}?mode=ro", uri=True)


def kept(library_path: str, folder: str, name: str):
    """What `keep` kept beside a library as <folder>/<name>.pickle, or None if there is none
    or it cannot be read."""
    import pickle

    try:
        with open(os.path.join(library_path, folder, name + ".pickle"), "rb") as f:
            return pickle.load(f)
    except (OSError, EOFError, ValueError, pickle.UnpicklingError, AttributeError, TypeError,
            ImportError):
        return None


def keep(library_path: str, folder: str, name: str, data) -> None:
    """Keep `data` beside a library as <folder>/<name>.pickle (written whole, then renamed
    into place); a library that cannot be written to is left as it is, and what would have
    been kept is made again next time."""
    import pickle
    import tempfile

    where = os.path.join(library_path, folder)
    try:
        os.makedirs(where, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, os.path.join(where, name + ".pickle"))
    except OSError:
        pass


# --------------------------------------------------------------------------- writing


def counts(edition: Edition) -> dict:
    kinds = {k: 0 for k in ("chapter", "section", "rule", "subrule")}
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
        "examples": sum(len(r.examples) for r in edition.rules),
        "glossary": len(edition.glossary),
        "refs": len(refs),
        "refs_resolved": sum(1 for ref in refs if ref.resolved),
    }


def _refs_json(refs: tuple[Reference, ...]) -> str:
    return json.dumps([[r.text, r.first, r.last, list(r.targets)] for r in refs], ensure_ascii=False)


def _refs_load(text: str) -> tuple[Reference, ...]:
    return tuple(Reference(t, f, last, tuple(targets)) for t, f, last, targets in json.loads(text))


def apply_options(edition: Edition, options: dict) -> Edition:
    """A user's --id/--lang/--date for an ingested edition."""
    changes = {}
    if options.get("lang"):
        changes["lang"] = options["lang"]
    if options.get("date"):
        changes["date"] = date.fromisoformat(options["date"])
    if options.get("id"):
        changes["given_id"] = options["id"]
    return edition._replace(**changes)


def parse(files, progress=None, cache: tuple[str, list[str]] | None = None) -> list[Edition]:
    """Every edition of the given source files, with cross-references resolved.

    Sources are parsed in parallel, one process per core. `cache` is a directory and one key
    per file (its content digest and the crlookup version): a file parsed before is loaded
    from there instead, which keeps a rebuild after `ingest` to the new file's parse.
    """
    import pickle

    results: list[list[Edition] | None] = [None] * len(files)
    paths = [None] * len(files)
    if cache:
        folder, keys = cache
        os.makedirs(folder, exist_ok=True)
        paths = [os.path.join(folder, f"{key}.pickle") for key in keys]
        for i, path in enumerate(paths):
            try:
                with open(path, "rb") as f:
                    results[i] = pickle.load(f)
            except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError):
                pass
    todo = [i for i, r in enumerate(results) if r is None]
    done = len(files) - len(todo)

    def report(i: int) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, len(files), files[i].name)

    if progress:
        progress(done, len(files), files[todo[0]].name if todo else "")
    workers = min(len(todo), os.cpu_count() or 1)
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_parse_one, files[i].path, files[i].format): i for i in todo}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                report(futures[future])
    else:
        for i in todo:
            results[i] = _parse_one(files[i].path, files[i].format)
            report(i)
    for i in todo:
        if paths[i]:
            tmp = f"{paths[i]}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                pickle.dump(results[i], f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, paths[i])
    return [apply_options(e, f.options or {}) for f, found in zip(files, results) for e in found]


def _parse_one(path: str, fmt: str) -> list[Edition]:
    from crlookup import refs, sources
    from crlookup.sources import glossary

    return [refs.link(glossary.distinct_headwords(e)) for e in sources.read(path, None, fmt)]


def write(db_path: Path, files, stamp: dict, progress=None, cache=None) -> list[Edition]:
    """Parse the sources and write them into a new database at `db_path`."""
    editions = parse(files, progress, cache)
    seen: dict[str, str] = {}
    for e in editions:
        if e.id in seen:
            from crlookup.store import LibraryError

            raise LibraryError(f"edition {e.id} comes from both {seen[e.id]} and {e.source}")
        seen[e.id] = e.source
    if progress:
        progress(len(files), len(files), "writing the library")
    db = sqlite3.connect(db_path)
    with db:
        db.executescript(_SCHEMA)
        db.execute("INSERT INTO meta VALUES ('stamp', ?)", (json.dumps(stamp),))
        for seq, e in enumerate(editions):
            _insert(db, seq, e)
    db.execute("PRAGMA optimize")
    db.close()
    return editions


def write_meta(db_path, key: str, value) -> None:
    """Record `value` (as JSON) under `key` in the library's meta table."""
    db = sqlite3.connect(db_path)
    with db:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
    db.close()


def write_alignments(db_path, rows: list[tuple]) -> None:
    db = sqlite3.connect(db_path)
    with db:
        db.executemany("INSERT INTO aligned VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    db.close()


def _insert(db: sqlite3.Connection, seq: int, e: Edition) -> None:
    db.execute(
        "INSERT INTO editions VALUES (?,?,?,?,?,?,?,?,?)",
        (e.id, seq, e.lang, e.date.isoformat(), e.title, e.source, int(e.partial),
         json.dumps(counts(e)), json.dumps(list(e.notes), ensure_ascii=False)),
    )
    db.executemany(
        "INSERT INTO entries VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (e.id, r.number, i, sort_string(r.number), r.kind, r.title, r.text,
             json.dumps(list(r.examples), ensure_ascii=False), _refs_json(r.refs),
             json.dumps(list(r.cards), ensure_ascii=False),
             json.dumps([list(t) for t in r.translations], ensure_ascii=False),
             r.source.file, r.source.line)
            for i, r in enumerate(e.rules)
        ],
    )
    db.executemany(
        "INSERT INTO glossary VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (e.id, i, g.term, g.definition, json.dumps(list(g.headwords), ensure_ascii=False),
             g.see, int(g.obsolete), g.english, int(g.unofficial), _refs_json(g.refs),
             json.dumps([list(t) for t in g.translations], ensure_ascii=False),
             g.source.file, g.source.line)
            for i, g in enumerate(e.glossary)
        ],
    )
    # the names `define` finds: every headword of the glossary, and keyword rule titles
    names = {
        (fold(name), "glossary", str(i))
        for i, g in enumerate(e.glossary)
        for name in {*g.headwords, g.term, g.english} - {""}
    }
    names |= {
        (fold(r.title), "rule", r.number)
        for r in e.rules
        if r.kind == "rule" and r.title and r.number.split(".")[0] in KEYWORD_SECTIONS
    }
    db.executemany("INSERT INTO names VALUES (?,?,?,?)", [(e.id, *n) for n in sorted(names)])
    cites = {
        (r.number, t) for r in e.rules for ref in r.refs for t in ref.targets if t != r.number
    }
    cites |= {(f"glossary:{g.term}", t) for g in e.glossary for ref in g.refs for t in ref.targets}
    db.executemany(
        "INSERT INTO cites VALUES (?,?,?,?)",
        [(e.id, s, t, sort_string(t)) for s, t in sorted(cites)],
    )


# --------------------------------------------------------------------------- reading


def _rule(row: sqlite3.Row) -> Rule:
    return Rule(
        number=row["number"],
        kind=row["kind"],
        text=row["text"],
        source=Source(row["file"], row["line"]),
        title=row["title"],
        examples=tuple(json.loads(row["examples"])),
        refs=_refs_load(row["refs"]),
        cards=tuple(json.loads(row["cards"])),
        translations=tuple(tuple(t) for t in json.loads(row["translations"])),
    )


def _glossary_entry(row: sqlite3.Row) -> GlossaryEntry:
    return GlossaryEntry(
        term=row["term"],
        definition=row["definition"],
        source=Source(row["file"], row["line"]),
        headwords=tuple(json.loads(row["headwords"])),
        see=row["see"],
        obsolete=bool(row["obsolete"]),
        refs=_refs_load(row["refs"]),
        english=row["english"],
        unofficial=bool(row["unofficial"]),
        translations=tuple(tuple(t) for t in json.loads(row["translations"])),
    )


class Library:
    """A built library, open for reading."""

    def __init__(self, path: str, db: sqlite3.Connection):
        self.path = path
        self.db = db
        self._cards = None

    def close(self) -> None:
        self.db.close()
        if self._cards is not None:
            self._cards.close()

    def meta(self, key: str):
        """What the build recorded under `key` (JSON), or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    @property
    def cards_error(self) -> str | None:
        """Why the library has no cards (one line naming the card file), or None."""
        status = self.meta("cards") or {}
        if status.get("error"):
            return status["error"]
        if not status:
            return _("this library was built without a card file")
        return None

    def cards(self):
        """The library's cards (crlookup.cards.Cards); `CardsUnavailable` if it has none."""
        if self._cards is None:
            from crlookup.cards import open_cards

            error = self.cards_error
            found = open_cards(self.path) if error is None else None
            if found is None:
                raise CardsUnavailable(error or _("the library's card database is missing"))
            self._cards = found
        return self._cards

    @property
    def index_path(self) -> str:
        """The full-text index built beside the database (see crlookup.index)."""
        return os.path.join(self.path, "index")

    # editions -----------------------------------------------------------------

    def editions(self) -> list[EditionInfo]:
        rows = self.db.execute("SELECT * FROM editions ORDER BY date, lang, id").fetchall()
        return [
            EditionInfo(
                r["id"], r["lang"], date.fromisoformat(r["date"]), r["title"], r["source"],
                bool(r["partial"]), json.loads(r["counts"]), tuple(json.loads(r["notes"])),
            )
            for r in rows
        ]

    def edition(self, edition_id: str | None = None, lang: str | None = None) -> EditionInfo:
        """The named edition, or the newest complete one of `lang` (English by default)."""
        editions = self.editions()
        if edition_id:
            for e in editions:
                if e.id == edition_id:
                    return e
            raise NotFound(
                _("no edition {edition}").format(edition=edition_id),
                _closest_editions(edition_id, editions),
            )
        lang = lang or "en"
        of_lang = [e for e in editions if e.lang == lang]
        if not of_lang:
            raise NotFound(
                _("no edition in language {lang!r}").format(lang=lang), sorted({e.lang for e in editions})
            )
        complete = [e for e in of_lang if not e.partial] or of_lang
        return complete[-1]

    # entries ------------------------------------------------------------------

    def get(self, edition: str, number: str) -> Rule | None:
        row = self.db.execute(
            "SELECT * FROM entries WHERE edition = ? AND number = ?", (edition, number)
        ).fetchone()
        return _rule(row) if row else None

    def subtree(self, edition: str, number: str) -> list[Rule]:
        """The entry's descendants in document order (not the entry itself)."""
        s = sort_string(number)
        rows = self.db.execute(
            "SELECT * FROM entries WHERE edition = ? AND sort > ? AND sort < ? ORDER BY seq",
            (edition, s + ".", s + "/"),
        ).fetchall()
        return [_rule(r) for r in rows]

    def children(self, edition: str, number: str) -> list[Rule]:
        parent = numbers.parse(number)
        return [r for r in self.subtree(edition, number) if numbers.parse(r.number).parent == parent]

    def entries(self, edition: str) -> Iterator[Rule]:
        for row in self.db.execute("SELECT * FROM entries WHERE edition = ? ORDER BY seq", (edition,)):
            yield _rule(row)

    def glossary(self, edition: str) -> Iterator[GlossaryEntry]:
        for row in self.db.execute(
            "SELECT * FROM glossary WHERE edition = ? ORDER BY seq", (edition,)
        ):
            yield _glossary_entry(row)

    def headwords(self, edition: str) -> set[str]:
        """Every name a glossary term of the edition is found by."""
        rows = self.db.execute("SELECT headwords FROM glossary WHERE edition = ?", (edition,))
        return {h for (words,) in rows for h in json.loads(words)}

    def glossary_edition(self, lang: str) -> str:
        """The newest edition of `lang` that has a glossary."""
        row = self.db.execute(
            "SELECT e.id FROM editions e WHERE e.lang = ? AND EXISTS "
            "(SELECT 1 FROM glossary g WHERE g.edition = e.id) ORDER BY e.date DESC LIMIT 1",
            (lang,),
        ).fetchone()
        if row is None:
            raise NotFound(_("no glossary in language {lang!r}").format(lang=lang))
        return row[0]

    def names(self, edition: str) -> list[str]:
        """Every name `define` knows in the edition (folded): glossary headwords, keywords."""
        rows = self.db.execute("SELECT DISTINCT name FROM names WHERE edition = ?", (edition,))
        return [r[0] for r in rows]

    def named(self, edition: str, name: str) -> tuple[list[GlossaryEntry], Rule | None]:
        """The glossary entries and the keyword rule found by a (folded) name."""
        rows = self.db.execute(
            "SELECT kind, ref FROM names WHERE edition = ? AND name = ?", (edition, name)
        ).fetchall()
        entries = [self.glossary_entry(edition, int(ref)) for kind, ref in rows if kind == "glossary"]
        rule = next((self.get(edition, ref) for kind, ref in rows if kind == "rule"), None)
        return [e for e in entries if e], rule

    def glossary_entry(self, edition: str, seq: int) -> GlossaryEntry | None:
        row = self.db.execute(
            "SELECT * FROM glossary WHERE edition = ? AND seq = ?", (edition, seq)
        ).fetchone()
        return _glossary_entry(row) if row else None

    def glossary_term(self, edition: str, term: str) -> GlossaryEntry | None:
        row = self.db.execute(
            "SELECT * FROM glossary WHERE edition = ? AND term = ?", (edition, term)
        ).fetchone()
        return _glossary_entry(row) if row else None

    def keyword_titles(self, edition: str) -> list[Rule]:
        rows = self.db.execute(
            "SELECT * FROM entries e JOIN names n ON n.edition = e.edition AND n.ref = e.number "
            "WHERE e.edition = ? AND n.kind = 'rule'", (edition,),
        )
        return [_rule(r) for r in rows]

    def aligned(self, old: str, new: str) -> list | None:
        """The stored alignment of two editions (consecutive ones), or None if not stored."""
        from crlookup.align import Match

        rows = self.db.execute(
            "SELECT kind, old, new, similarity, words_added, words_removed, refs_only, typography "
            "FROM aligned WHERE old_edition = ? AND new_edition = ?", (old, new),
        ).fetchall()
        return [Match(*r[:6], bool(r[6]), bool(r[7])) for r in rows] or None

    def alignment_pairs(self) -> list[tuple[str, str]]:
        rows = self.db.execute("SELECT DISTINCT old_edition, new_edition FROM aligned")
        return [tuple(r) for r in rows]

    def unresolved(self, edition: str) -> list[tuple[str, Reference]]:
        """(entry number or "glossary:Term", reference) for every reference naming nothing."""
        out = []
        for r in self.entries(edition):
            out += [(r.number, ref) for ref in r.refs if not ref.resolved]
        for g in self.glossary(edition):
            out += [(f"glossary:{g.term}", ref) for ref in g.refs if not ref.resolved]
        return out

    def numbers(self, edition: str) -> list[str]:
        rows = self.db.execute(
            "SELECT number FROM entries WHERE edition = ? ORDER BY seq", (edition,)
        )
        return [r[0] for r in rows]

    def cited_by(self, edition: str, number: str) -> list[str]:
        """Entries (and "glossary:Term"s) citing this entry or anything below it."""
        s = sort_string(number)
        rows = self.db.execute(
            "SELECT DISTINCT source FROM cites WHERE edition = ? AND "
            "(target_sort = ? OR (target_sort > ? AND target_sort < ?))",
            (edition, s, s + ".", s + "/"),
        ).fetchall()
        own = {number} | {r.number for r in self.subtree(edition, number)}
        found = [r[0] for r in rows if r[0] not in own]
        rules = sorted((n for n in found if not n.startswith("glossary:")), key=numbers.sort_key)
        return rules + sorted(n for n in found if n.startswith("glossary:"))

    def cites(self, edition: str, number: str) -> list[str]:
        """What an entry and the entries below it cite, outside itself, in numeric order."""
        s = sort_string(number)
        rows = self.db.execute(
            "SELECT DISTINCT c.target FROM cites c JOIN entries e "
            "ON e.edition = c.edition AND e.number = c.source "
            "WHERE c.edition = ? AND (e.sort = ? OR (e.sort > ? AND e.sort < ?))",
            (edition, s, s + ".", s + "/"),
        ).fetchall()
        own = {number} | {r.number for r in self.subtree(edition, number)}
        return sorted((r[0] for r in rows if r[0] not in own), key=numbers.sort_key)

    def preview(self, edition: str, number: str, width: int = 90) -> str:
        """One line about an entry: its title, or the start of its text."""
        if number.startswith("glossary:"):
            term = number.split(":", 1)[1]
            row = self.db.execute(
                "SELECT definition FROM glossary WHERE edition = ? AND term = ?", (edition, term)
            ).fetchone()
            text = row[0] if row else term
        else:
            row = self.db.execute(
                "SELECT title, text FROM entries WHERE edition = ? AND number = ?", (edition, number)
            ).fetchone()
            text = (row[0] or row[1]) if row else ""
        text = " ".join(text.split())
        return text if len(text) <= width else text[: width - 1].rstrip() + "…"

    def nearest(self, edition: str, number: str, limit: int = 3) -> list[str]:
        """Existing numbers closest to one that does not exist: its truncations, then neighbours."""
        existing = self.numbers(edition)
        have = set(existing)
        out: list[str] = []
        s = number
        while len(s) > 1:
            s = s[:-1].rstrip(".")
            if s in have and s not in out and "." in s:
                out.append(s)
        try:
            target = numbers.parse(number)
        except numbers.NumberError:
            return out[:limit]
        siblings = [n for n in existing if numbers.parse(n).kind == target.kind]
        siblings.sort(key=lambda n: _distance(numbers.parse(n), target))
        for n in siblings:
            if len(out) >= limit:
                break
            if n not in out:
                out.append(n)
        return out[:limit]


def _distance(a: numbers.RuleNumber, b: numbers.RuleNumber) -> tuple:
    la = numbers.letters_index(a.letters) if a.letters else -1
    lb = numbers.letters_index(b.letters) if b.letters and set(b.letters) <= set(numbers.LETTERS) else -1
    return (
        abs(a.section - b.section),
        abs((a.rule or 0) - (b.rule or 0)),
        abs(la - lb),
    )


def _closest_editions(wanted: str, editions: list[EditionInfo]) -> list[str]:
    """Editions nearest to an id that does not exist: by date in its language, else by spelling."""
    lang, _, day = wanted.partition("-")
    try:
        target = date.fromisoformat(day)
    except ValueError:
        from rapidfuzz import process

        ids = [e.id for e in editions]
        return [m[0] for m in process.extract(wanted, ids, limit=3, score_cutoff=50)]
    same = [e for e in editions if e.lang == lang] or editions
    return [e.id for e in sorted(same, key=lambda e: abs((e.date - target).days))[:2]]
