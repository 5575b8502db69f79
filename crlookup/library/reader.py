"""The read side of a built library: what it holds and how it is queried (editions, entries,
glossary, citations).

One SQLite file, written by the build (crlookup.builder runs the stages: crlookup.editions
writes the editions, crlookup.align the alignments, and makes a build atomic).
`Library` answers lookups by number, subtrees, who-cites-what and exports without parsing
anything again, and opens the cards built beside it (`Library.cards`, crlookup.cards), or
says why there are none. Nothing here writes the database.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sqlite3
import urllib.parse
from collections.abc import Iterator
from datetime import date
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core import documents, numbers
from crlookup.core.errors import (
    BadInput,
    CardsUnavailable,
    EditionsPending,
    LibraryDamaged,
    NotFound,
    NumberError,
)
from crlookup.core.i18n import _, ngettext
from crlookup.core.model import GlossaryEntry, Reference, Rule, Source
from crlookup.library.database import CARDS_DB, INDEX_DIR, connect, verify

if TYPE_CHECKING:
    from crlookup.library.cards import Cards


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


#: Where Wizards publishes each document.
OFFICIAL_PAGES = {
    "cr": "https://magic.wizards.com/en/rules",
    "mtr": "https://wpn.wizards.com/en/rules-documents",
    "ipg": "https://wpn.wizards.com/en/rules-documents",
    "jar": "https://wpn.wizards.com/en/rules-documents",
}


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
    format: str = ""  # of its source file (crlookup.sources.FORMATS)
    origin: str = ""  # "shipped", or "user" for an edition the user ingested
    document: str = "cr"  # crlookup.core.documents.DOCUMENTS

    @property
    def official(self) -> bool:
        """Wizards' own file, as published (not a conversion, a scrape or a translation): the
        CR's text file, or a tournament document's PDF; Wizards publish the CR in English
        only: a translation in the official layout (the Chinese) is not theirs."""
        return self.format in ("text", "archive", "tournament_pdf") and (
            self.lang == "en" or self.document != "cr"
        )

    @property
    def url(self) -> str | None:
        """Where Wizards publishes it, for an edition that is Wizards' own file (the page of
        the current edition and its predecessors), or the address it was downloaded from."""
        if self.source.startswith(("https://", "http://")):
            return self.source
        if not self.official:
            return None
        return OFFICIAL_PAGES.get(self.document)

    @property
    def published(self) -> str | None:
        """Where Wizards publishes the document of this edition: `url`, or for an English
        conversion of their file (the MTR's JSON) the document's page; None for a translation,
        which is not theirs."""
        return self.url or (OFFICIAL_PAGES.get(self.document) if self.lang == "en" else None)

    @property
    def provenance(self) -> str:
        """ "recovered" (a copy of Wizards' file found elsewhere: the archive lacks it),
        "reconstructed" (no copy: rebuilt from its neighbours; recovered/NOTES.md says how), or
        "" (as published); from the notes the manifest gives the edition first."""
        first = self.notes[0] if self.notes else ""
        return next((p for p in ("reconstructed", "recovered") if first.startswith(p + ":")), "")

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "document": self.document,
            "lang": self.lang,
            "date": self.date.isoformat(),
            "title": self.title,
            "source": self.source,
            "format": self.format,
            "official": self.official,
            "provenance": self.provenance or None,
            "origin": self.origin,
            "partial": self.partial,
            "counts": self.counts,
        }


# --------------------------------------------------------------------------- reading


def _refs_load(text: str) -> tuple[Reference, ...]:
    return tuple(Reference(t, f, last, tuple(targets)) for t, f, last, targets in json.loads(text))


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
        parts=tuple(tuple(p) for p in json.loads(row["parts"])),
        annotations=tuple(json.loads(row["annotations"])),
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


def _edition_info(r: sqlite3.Row) -> EditionInfo:
    return EditionInfo(
        r["id"],
        r["lang"],
        date.fromisoformat(r["date"]),
        r["title"],
        r["source"],
        bool(r["partial"]),
        json.loads(r["counts"]),
        tuple(json.loads(r["notes"])),
        r["format"],
        r["origin"],
        r["document"],
    )


class RuleLookup(NamedTuple):
    """A rule as `crlookup rule` shows it: the entry, the entries below it (its subrules; for a
    section or chapter, its rules; none for "702.19."), what cites it, and any other entry
    Wizards printed with the same number in that edition (a numbering slip)."""

    edition: str
    rule: Rule
    below: tuple[Rule, ...]
    cited_by: tuple[str, ...]
    twins: tuple[Rule, ...] = ()
    document: str = "cr"
    citation: Citation | None = None  # how to cite it, when asked for (rule --cite)
    annotations: bool = False  # the judges' commentary is shown (rule --annotations)
    info: EditionInfo | None = None  # its edition's (the citation of each entry)
    rule_title: str = ""  # a subrule's rule's title ("Trample" for 702.19b)

    def to_dict(self) -> dict:
        """The JSON of `crlookup rule`: each entry with its `citation` ("CR 702.19b (August
        7, 2026)"), `url` (where Wizards publishes the edition, or null) and `page` (its path
        under `crlookup serve`), a subrule with its rule's title; with `annotations`, the
        judges' commentary beside each entry that has some (the annotated MTR)."""
        data = {"document": self.document, **self.entry(self.rule, self.rule_title)}
        title = self.rule.title or self.rule_title
        data["children"] = [self.entry(r, title if r.kind == "subrule" else "") for r in self.below]
        data["cited_by"] = list(self.cited_by)
        if self.twins:
            data["twins"] = [self.entry(r, self.rule_title) for r in self.twins]
        if self.annotations:
            data["annotations"] = list(self.rule.annotations)
            data["annotations_are"] = (  # the annotators' words, not Wizards'
                f"judges' commentary, not Wizards' text; as of {self.edition[-10:]}"
            )
            for child, r in zip(data["children"], self.below):
                child["annotations"] = list(r.annotations)
        return data

    def entry(self, rule: Rule, rule_title: str = "") -> dict:
        """An entry's JSON, cited: its title (a subrule's: its rule's), citation, url, page."""
        data = rule.to_dict(self.edition)
        data["title"] = data["title"] or rule_title
        if self.info is not None:
            label = documents.label(self.document, rule.number)
            data["citation"] = english_citation(label, self.info.lang, self.info.date)
            data["url"] = self.info.published
            data["page"] = (
                "/rule/" + urllib.parse.quote(label if self.document != "cr" else rule.number)
                + "?edition=" + urllib.parse.quote(self.edition)
            )  # fmt: skip
        return data


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


def english_citation(label: str, lang: str, day: date) -> str:
    """ "CR 702.19b (August 7, 2026)", "CR 702.19b (ru, January 25, 2019)": as `rule --cite`
    prints it in English (babel's long date, without importing babel for `rule --json`)."""
    when = f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"
    return f"{label} ({when if lang == 'en' else f'{lang}, {when}'})"


class Citation(NamedTuple):
    """How a judge cites an entry: "CR 702.19b" of an edition in force from `date`, and
    where Wizards publishes it (None for an edition that is not Wizards' own file)."""

    label: str
    edition: str
    lang: str
    date: date
    url: str | None

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "edition": self.edition,
            "date": self.date.isoformat(),
            "text": f"{self.label} ({self.date.isoformat()})",
            "url": self.url,
        }


class Library:
    """A built library, open for reading."""

    def __init__(self, path: str, db: sqlite3.Connection):
        from crlookup.library import home

        home.hold(path)  # (tidy leaves it while this process may read it)
        self.path = path
        self.db = db
        self._cards: Cards | None = None
        self._card_names: sqlite3.Connection | None = None  # cards.sqlite, for names_card
        self._editions: list[EditionInfo] | None = None
        self._memo: dict = {}
        # why this library is used although its sources changed (it could not be rebuilt: a
        # read-only home, a full disk), or None
        self.stale: str | None = None
        # what its user should be told of an answer, once (`told`): a date whose edition is
        # missing from the library, answered from the one before
        self._tell: list[str] = []

    def told(self) -> list[str]:
        """The lines to tell the user of the answers read so far (each once), on stderr."""
        out, self._tell[:] = list(self._tell), []
        return out

    def _say(self, line: str) -> None:
        """A line to tell (`told`): each once, and the last TOLD at most (a server, which never
        asks, keeps no more)."""
        if line not in self._tell:
            self._tell.append(line)
            del self._tell[:-TOLD]

    def missing_between(self, lang: str, after: date, until: date) -> list[tuple[str, str]]:
        """The official editions of `lang` known to be missing from the library (no copy of
        them was found: data/manifest.json's "missing") that took effect after `after` and on
        or before `until`, with their set's name: (id, name), oldest first; none that the
        library has (one the user ingested)."""
        have = {e.id for e in self.editions()} if self._editions is not None else None
        out = []
        for edition_id, name in missing_editions():
            day = date.fromisoformat(edition_id[-10:])
            if edition_id.startswith(lang + "-") and after < day <= until:
                if have is None:
                    have = {e.id for e in self.editions()}
                if edition_id not in have:
                    out.append((edition_id, name))
        return out

    def close(self) -> None:
        self.db.close()
        if self._cards is not None:
            self._cards.close()
        elif self._card_names is not None:
            self._card_names.close()
        for value in self._memo.values():
            if hasattr(value, "close"):
                value.close()

    def memo(self, key, make):
        """What `make()` returns, made once for this open library and kept with it: the caches
        of the features (an open index, an edition's lexicon and vectors, the embedding model)
        live here, never in a module, so that they go with the library they were read from."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = make()
            return value

    @property
    def pending(self) -> int:
        """How many editions are still to be added to this library (after a first build that
        put the newest in first); 0 when it is complete."""
        return (self.meta("stamp") or {}).get("pending", 0)

    @property
    def pending_langs(self) -> frozenset[str]:
        """The languages of the editions still to be added (a library built before they were
        recorded: those of its archives)."""
        stamp = self.meta("stamp") or {}
        if not stamp.get("pending"):
            return frozenset()
        if "pending_langs" in stamp:
            return frozenset(stamp["pending_langs"])
        rows = self.db.execute("SELECT DISTINCT lang FROM editions WHERE format = 'archive'")
        return frozenset(r[0] for r in rows)

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
            from crlookup.library.cards import open_cards

            error = self.cards_error
            if error is not None:
                raise CardsUnavailable(error)
            verify(self.path, [CARDS_DB])  # as the build left it (shared: damage spreads)
            found = open_cards(self.path, self._card_names)
            if found is None:  # the build made it: its file has gone
                path = os.path.join(self.path, CARDS_DB)
                raise LibraryDamaged(CARDS_DB, path, "missing")
            self._cards = found
        return self._cards

    def names_card(self, text: str) -> bool:
        """Whether `text` is a card's name as it is: its whole name, a face's, or the part
        before its comma ("Teferi"). Read from the card file's names alone, without the card
        features (`crlookup <anything>` asks it of words before searching them); False if the
        library has no cards."""
        from crlookup.core.names import CONTROL, MAX_NAME, name_key

        if len(text) > MAX_NAME or CONTROL.search(text) or self.cards_error is not None:
            return False
        key = name_key(text)
        if len(key) < 3:
            return False
        verify(self.path, [CARDS_DB])
        try:
            if self._card_names is None:  # one connection, the card features' if open
                self._card_names = (
                    self._cards.db
                    if self._cards is not None
                    else connect(os.path.join(self.path, CARDS_DB))
                )
            return self._named(self._card_names, key)
        except sqlite3.Error:  # the card file gone or damaged: `card` says so
            return False

    @staticmethod
    def _named(db: sqlite3.Connection, key: str) -> bool:
        return (
            db.execute("SELECT 1 FROM names WHERE key = ? LIMIT 1", (key,)).fetchone() is not None
        )

    @property
    def index_path(self) -> str:
        """The full-text index built beside the database (see crlookup.index)."""
        return os.path.join(self.path, INDEX_DIR)

    # editions -----------------------------------------------------------------

    def editions(self, document: str | None = "cr") -> list[EditionInfo]:
        """Every edition of `document` (the CR by default; None: of every document), in the
        order they took effect (for one date: complete ones first)."""
        if self._editions is None:
            rows = self.db.execute("SELECT * FROM editions ORDER BY date, lang, partial, id")
            self._editions = [_edition_info(r) for r in rows]
        if document is None:
            return self._editions
        return [e for e in self._editions if e.document == document]

    def edition(
        self, edition_id: str | None = None, lang: str | None = None, document: str = "cr"
    ) -> EditionInfo:
        """The named edition (of any document), or the newest complete one of `document` in
        `lang` (English by default)."""
        if self._editions is None:  # one row, not every edition's (a lookup needs one)
            args: tuple[str, ...]
            if edition_id:
                query, args = "SELECT * FROM editions WHERE id = ?", (edition_id,)
            else:  # as below: the last complete one in editions()'s order, else the last
                query = (
                    "SELECT * FROM editions WHERE lang = ? AND document = ? "
                    "ORDER BY partial, date DESC, id DESC"
                )
                args = (lang or "en", document)
            row = self.db.execute(query + " LIMIT 1", args).fetchone()
            if row is not None:
                return _edition_info(row)
        editions = self.editions(None)
        if edition_id:
            for e in editions:
                if e.id == edition_id:
                    return e
            named = _ALIAS.match(edition_id.strip().lower())
            if named:
                return self._aliased(named, lang, document)
            missing = _("no edition {edition}").format(edition=edition_id)
            closest = _closest_editions(edition_id, editions)
            if self.pending:
                raise EditionsPending(missing, closest, self._yet())
            raise NotFound(missing, closest)
        lang = lang or "en"
        of_document = [e for e in editions if e.document == document]
        of_lang = [e for e in of_document if e.lang == lang]
        if not of_lang and lang in self.pending_langs:  # (its editions are being added)
            raise EditionsPending(
                _("no edition in language {lang!r}").format(lang=lang),
                sorted({e.lang for e in of_document}),
                self._yet(),
            )
        if not of_lang:
            raise NotFound(
                _("no edition in language {lang!r}").format(lang=lang),
                sorted({e.lang for e in of_document}),
            )
        complete = [e for e in of_lang if not e.partial] or of_lang
        return complete[-1]

    def _aliased(
        self, named: re.Match, lang: str | None, document: str, than: EditionInfo | None = None
    ) -> EditionInfo:
        """The edition an alias names: "latest", "previous" or a date (the newest edition in
        force on that day), of the language and document its prefix names ("ru-latest",
        "mtr-2024-01-01", "mtr-zh-latest"), else of `lang` and `document`; "previous" is the
        complete edition before `than`, by default before the newest complete one."""
        from crlookup.core.alignment import main_line

        for part in (named["prefix"] or "").split("-"):
            if part in documents.DOCUMENTS:
                document = part
            elif part:
                lang = part
        lang = lang or "en"
        wanted = named["alias"]
        if wanted in ("latest", "newest", "current"):  # a partial one, if there is no other
            return self.edition(lang=lang, document=document)
        of_document = [e for e in self.editions(document) if e.document == document]
        langs = sorted({e.lang for e in of_document})
        if lang not in langs and lang in self.pending_langs:  # (its editions are being added)
            raise EditionsPending(
                _("no edition in language {lang!r}").format(lang=lang), langs, self._yet()
            )
        if lang not in langs:  # "fr-2026-04-17": that day's editions in the languages there are
            on_day = [e.id for e in of_document if e.id.endswith("-" + wanted)]
            raise NotFound(
                _("no edition in language {lang!r}").format(lang=lang),
                on_day or [f"{other}-{wanted}" for other in langs],
            )
        line = main_line(of_document, lang)
        name = lang if document == "cr" else f"{documents.PREFIX[document]}, {lang}"
        if not line:
            raise NotFound(
                _("no complete edition ({name}) in this library").format(name=name),
                sorted({e.id for e in self.editions(document)})[-3:],
            )
        if wanted == "previous":
            newest = than or self.edition(lang=lang, document=document)
            before = [e for e in line if e.date < newest.date]
            if not before:
                raise NotFound(
                    _("no edition ({name}) before {edition}").format(edition=newest.id, name=name),
                    [newest.id],
                )
            return before[-1]
        try:
            day = date.fromisoformat(wanted)
        except ValueError:
            raise BadInput(
                _("not a date: {date!r} (expected YYYY-MM-DD)").format(date=wanted)
            ) from None
        in_force = [e for e in line if e.date <= day]
        if self.pending and self._still_to_come(lang, day):  # (not the older ones there are)
            raise EditionsPending(
                _("no edition ({name}) in force on {date}").format(name=name, date=wanted),
                [line[0].id],
                self._yet(),
            )
        if not in_force:
            raise NotFound(
                _(
                    "no edition ({name}) in force on {date}: the first took effect on {first}"
                ).format(name=name, date=day.isoformat(), first=line[0].date.isoformat()),
                [line[0].id],
            )
        found = in_force[-1]
        gap = self.missing_between(lang, found.date, day) if document == "cr" else []
        if gap:  # (the edition in force that day is one no copy of was found)
            self._say(
                _(
                    "the edition in force on {date} ({missing}, {name}) is not in the library; "
                    "answering from {edition}"
                ).format(date=wanted, missing=gap[-1][0], name=gap[-1][1], edition=found.id)
            )
        return found

    def _still_to_come(self, lang: str, day: date) -> bool:
        """Whether the edition of `lang` in force on `day` may be one still to be added: the
        archive's older editions, before the oldest of it there is."""
        oldest = self._archive_from(lang)
        return oldest is not None and day.isoformat() < oldest

    def _archive_from(self, lang: str) -> str | None:
        """The date of the oldest edition of `lang` from an archive (None: none of `lang`)."""
        return self.db.execute(
            "SELECT min(date) FROM editions WHERE format = 'archive' AND lang = ?", (lang,)
        ).fetchone()[0]

    def every_edition(self, lang: str | None = None) -> None:
        """For what needs every edition (a rule's history, a search of all editions, the
        alignments), or every edition of `lang`: `EditionsPending` while older editions (of
        `lang`) are still being added."""
        if self.pending and (lang is None or lang in self.pending_langs):
            raise EditionsPending(_("this needs every edition"), yet=self._yet())

    def _yet(self) -> str:
        """What a "no edition" adds while older editions are still being added: not a plain
        "no", since the one asked for may be among them."""
        if not self.pending:
            return ""
        return ngettext(
            " (yet: {count} older edition is being added in the background; try again in a "
            "minute or two)",
            " (yet: {count} older editions are being added in the background; try again in a "
            "minute or two)",
            self.pending,
        ).format(count=self.pending)

    def edition_id(
        self, edition: str | None, lang: str | None = None, document: str = "cr"
    ) -> str | None:
        """The id of the edition `edition` names (an id, or an alias: `edition`), or None."""
        return self.edition(edition, lang=lang, document=document).id if edition else None

    # entries ------------------------------------------------------------------

    def get(self, edition: str, number: str) -> Rule | None:
        """The entry of that number (the first, where Wizards printed the number twice)."""
        row = self.db.execute(
            "SELECT * FROM entries WHERE edition = ? AND number = ? AND twin = 0", (edition, number)
        ).fetchone()
        return _rule(row) if row else None

    def entry(
        self, number: str, edition: str | None = None, lang: str | None = None
    ) -> tuple[str, Rule]:
        """The edition (`edition`, else the newest of `lang`, else of English) and its entry
        numbered `number`; `NumberError` for no number, `NotFound` (the nearest numbers that
        exist) for a number it lacks. A number may name its document ("IPG 2.1", "MTR C",
        "CR 702.19b", "JAR extra cards"): then the newest edition of that document."""
        document, rest = documents.split(number)
        info = None
        named = _ALIAS.match(edition.strip().lower()) if edition else None
        if named and named["alias"] in ("latest", "newest", "current", "previous"):
            prefix = named["prefix"] or ""
            of = next((p for p in prefix.split("-") if p in documents.DOCUMENTS), None)
            differ = of is not None and document is not None and of != document  # (said below)
            if (of not in (None, "cr") or document not in (None, "cr")) and not differ:
                return self._entry_aliased(number, named["alias"], prefix, lang)
        if document not in (None, "cr") or (edition and document is None):
            info = self.edition(edition, lang=lang, document=document or "cr")
            if document and info.document != document:
                raise NumberError(
                    _("{number} is not a number of {edition} (an edition of the {name})").format(
                        number=number, edition=info.id, name=documents.DOCUMENTS[info.document]
                    )
                )
        if info is not None and info.document != "cr":
            if edition:
                return info.id, self._document_entry(info.id, rest)
            # the newest edition that has its text: the newest may be partial (the annotated
            # MTR, whose appendices A and B are titles only in English)
            passed = []
            for other in reversed(self.editions(info.document)):
                if other.lang == info.lang and other.id != info.id:
                    with contextlib.suppress(NotFound):
                        entry = self._document_entry(other.id, rest)
                        if entry.text or self.children(other.id, entry.number):
                            return other.id, entry
                        passed.append(other.id)
                if other.id == info.id:  # the newest complete one: the older ones come after
                    break
            entry = self._document_entry(info.id, rest)
            for newer in passed:
                self._say(
                    _("{number}: from {edition} ({newer} has its title only)").format(
                        number=documents.label(info.document, entry.number),
                        edition=info.id,
                        newer=newer,
                    )
                )
            return info.id, entry
        wanted = str(numbers.parse(rest))
        if info is None:
            info = self.edition(edition, lang=lang)
        found_in = info.id
        if info.provenance == "reconstructed":
            self._say(
                _(
                    "{edition} is reconstructed, not a copy of Wizards' file: its notes say how "
                    "(crlookup editions --json)"
                ).format(edition=found_in)
            )
        found = self.get(found_in, wanted)
        if found is None:
            raise NotFound(
                _("no rule {number} in {edition}").format(number=wanted, edition=found_in),
                self.nearest(found_in, wanted),
            )
        return found_in, found

    def _entry_aliased(self, number: str, alias: str, prefix: str, lang: str | None):
        """An entry of the MTR, IPG or JAR by alias, as `latest` and `previous` mean for an
        entry (docs: Editions): latest is the newest edition that has its text, a partial one
        too (the annotated MTR), as with no edition; previous, the newest complete edition
        before that one."""
        langs = [p for p in prefix.split("-") if p and p not in documents.DOCUMENTS]
        lang = langs[0] if langs else lang
        if prefix and not documents.split(number)[0]:
            of = next(p for p in prefix.split("-") if p in documents.DOCUMENTS)
            number = documents.label(of, number)
        latest, entry = self.entry(number, None, lang)
        if alias != "previous":
            return latest, entry
        info = self.edition(latest)
        previous = _ALIAS.match("previous")
        assert previous is not None
        before = self._aliased(previous, info.lang, info.document, than=info)
        return before.id, self._document_entry(before.id, documents.split(number)[1])

    def _document_entry(self, edition: str, text: str) -> Rule:
        """A tournament document's entry by its number ("2.1", "C", "appendix C"), or by its id
        or the words of its title or text (a JAR case: "forgets-triggered-ability", "extra
        cards"): the entry with the most of them, the title's counting double."""
        text = text.strip().rstrip(".")
        if documents.is_number(text):
            found = self.get(edition, documents.number(text))
            if found is not None:
                return found
        else:
            found = self.get(edition, text.lower())
            if found is not None:
                return found
            best = _by_words(text, list(self.entries(edition)))
            if best is not None:
                return best
        raise NotFound(
            _("no entry {number} in {edition}").format(number=text, edition=edition),
            self.nearest(edition, text),
        )

    def rule(self, number: str, edition: str | None = None, lang: str | None = None) -> RuleLookup:
        """A rule with its subrules (for a section, its rules) and what cites it; a trailing
        period ("702.19.") leaves out what is below it."""
        alone = numbers.without_subrules(number)
        found_in, rule = self.entry(number, edition, lang)
        if alone:
            below = []
        elif rule.kind in ("chapter", "section"):
            below = self.children(found_in, rule.number)
        else:
            below = self.subtree(found_in, rule.number)
        info = self.edition(found_in)
        title = ""
        if rule.kind == "subrule":
            parent = self.get(found_in, numbers.rule_of(rule.number))
            title = parent.title if parent else ""
        return RuleLookup(
            found_in,
            rule,
            tuple(below),
            tuple(self.cited_by(found_in, rule.number) + self.cited_elsewhere(info, rule.number)),
            tuple(self.twins(found_in, rule.number)[1:]),
            info.document,
            info=info,
            rule_title=title,
        )

    def citation(self, edition: str, number: str) -> Citation:
        """How to cite entry `number` of `edition` ("CR 702.19b", its date, the official page)."""
        info = self.edition(edition)
        label = documents.label(info.document, number)
        return Citation(label, info.id, info.lang, info.date, info.published)

    def cited_elsewhere(self, info: EditionInfo, number: str) -> list[str]:
        """The entries of the other documents (the newest edition of each) that cite this
        entry or what is below it: "IPG 2.1" citing "CR 603.3b" or "MTR 2.12"."""
        prefix = f"{documents.PREFIX[info.document]} {number}"
        below = f"{prefix}[a-z]*" if "." in number else f"{prefix}.*"
        rows = self.db.execute(
            "SELECT DISTINCT d.document, e.number FROM cites c "
            "JOIN entry e ON e.content = c.content JOIN editions d ON d.id = e.edition "
            "WHERE c.target_sort >= ? AND c.target_sort < ? AND (c.target = ? OR c.target GLOB ?) "
            "AND d.document != ? "
            "AND d.id = (SELECT n.id FROM editions n WHERE n.document = d.document "
            "AND n.lang = d.lang ORDER BY n.date DESC LIMIT 1) AND d.lang = ?",
            (
                prefix,
                prefix + "~",
                prefix,
                below,
                info.document,
                "en" if info.document == "cr" else info.lang,
            ),
        ).fetchall()
        return documents.order(documents.label(doc, n) for doc, n in rows)

    def twins(self, edition: str, number: str) -> list[Rule]:
        """Every entry printed with that number, in document order: one, except where the
        edition has a numbering slip (2024-09-17's two 702.175a)."""
        rows = self.db.execute(
            "SELECT * FROM entries WHERE edition = ? AND number = ? ORDER BY twin",
            (edition, number),
        ).fetchall()
        return [_rule(r) for r in rows]

    def subtree(self, edition: str, number: str) -> list[Rule]:
        """The entry's descendants in document order (not the entry itself)."""
        s = self._sort(edition, number)
        rows = self.db.execute(
            "SELECT * FROM entries WHERE edition = ? AND sort > ? AND sort < ? ORDER BY seq",
            (edition, s + ".", s + "/"),
        ).fetchall()
        return [_rule(r) for r in rows]

    def children(self, edition: str, number: str) -> list[Rule]:
        if not numbers.is_rule_number(number) or self.edition(edition).document != "cr":
            return self.subtree(edition, number)  # a tournament document's: two levels
        parent = numbers.parse(number)
        return [
            r for r in self.subtree(edition, number) if numbers.parse(r.number).parent == parent
        ]

    def entries(self, edition: str) -> Iterator[Rule]:
        for row in self.db.execute(
            "SELECT * FROM entries WHERE edition = ? ORDER BY seq", (edition,)
        ):
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
            "(SELECT 1 FROM gloss g WHERE g.edition = e.id) ORDER BY e.date DESC LIMIT 1",
            (lang,),
        ).fetchone()
        if row is None and lang in self.pending_langs:  # (its editions are being added)
            raise EditionsPending(
                _("no glossary in language {lang!r}").format(lang=lang), yet=self._yet()
            )
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
        entries = [
            self.glossary_entry(edition, int(ref)) for kind, ref in rows if kind == "glossary"
        ]
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

    def alignment_pairs(self) -> list[tuple[str, str]]:
        """The pairs of editions the build aligned (crlookup.core.alignment.chain)."""
        return [tuple(r) for r in self.db.execute("SELECT old_edition, new_edition FROM chain")]

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
            "SELECT number FROM entry WHERE edition = ? ORDER BY seq", (edition,)
        )
        return [r[0] for r in rows]

    def cited_by(self, edition: str, number: str) -> list[str]:
        """Entries (and "glossary:Term"s) citing this entry or anything below it."""
        s = self._sort(edition, number)
        where = "(c.target_sort = ? OR (c.target_sort > ? AND c.target_sort < ?))"
        rows = self.db.execute(
            "SELECT DISTINCT e.number FROM cites c JOIN entry e "
            f"ON e.content = c.content AND e.edition = ? WHERE {where} AND c.target != e.number "
            "UNION SELECT DISTINCT 'glossary:' || t.term FROM gloss_cites c "
            "JOIN gloss g ON g.content = c.content AND g.edition = ? "
            f"JOIN gloss_texts t ON t.id = g.content WHERE {where}",
            (edition, s, s + ".", s + "/", edition, s, s + ".", s + "/"),
        ).fetchall()
        own = {number} | {r.number for r in self.subtree(edition, number)}
        found = [r[0] for r in rows if r[0] not in own]
        rules = documents.order(n for n in found if not n.startswith("glossary:"))
        return rules + sorted(n for n in found if n.startswith("glossary:"))

    def _sort(self, edition: str, number: str) -> str:
        """The sort string the build stored for an entry (a tournament document's are not
        made from the number alone), else the CR's for the number."""
        row = self.db.execute(
            "SELECT sort FROM entry WHERE edition = ? AND number = ? LIMIT 1", (edition, number)
        ).fetchone()
        return row[0] if row else sort_string(number)

    def cites(self, edition: str, number: str) -> list[str]:
        """What an entry and the entries below it cite, outside itself, in numeric order."""
        s = self._sort(edition, number)
        rows = self.db.execute(
            "SELECT DISTINCT c.target FROM entry e JOIN cites c ON c.content = e.content "
            "WHERE e.edition = ? AND (e.sort = ? OR (e.sort > ? AND e.sort < ?)) "
            "AND c.target != e.number",
            (edition, s, s + ".", s + "/"),
        ).fetchall()
        own = {number} | {r.number for r in self.subtree(edition, number)}
        return documents.order(r[0] for r in rows if r[0] not in own)

    def citing(
        self, edition: str, number: str
    ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """Which entries of the rule (it, or one below it) each citation links, both ways:
        {cited: [its entries citing it]} and {citing entry: [its entries it cites]}."""
        s = self._sort(edition, number)
        below = (s, s + ".", s + "/")
        out: dict[str, list[str]] = {}
        for source, target in self.db.execute(
            "SELECT e.number, c.target FROM entry e JOIN cites c ON c.content = e.content "
            "WHERE e.edition = ? AND (e.sort = ? OR (e.sort > ? AND e.sort < ?)) ORDER BY e.seq",
            (edition, *below),
        ):
            out.setdefault(target, []).append(source)
        into: dict[str, list[str]] = {}
        for source, target in self.db.execute(
            "SELECT e.number, c.target FROM cites c JOIN entry e "
            "ON e.content = c.content AND e.edition = ? "
            "WHERE c.target_sort = ? OR (c.target_sort > ? AND c.target_sort < ?)",
            (edition, *below),
        ):
            into.setdefault(source, []).append(target)
        return (
            {k: list(dict.fromkeys(v)) for k, v in out.items()},
            {k: documents.order(set(v)) for k, v in into.items()},
        )

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
                "SELECT title, text FROM entries WHERE edition = ? AND number = ?",
                (edition, number),
            ).fetchone()
            text = (row[0] or row[1]) if row else ""
        text = " ".join(text.split())
        return text if len(text) <= width else text[: width - 1].rstrip() + "…"

    def nearest(self, edition: str, number: str, limit: int = 3) -> list[str]:
        """Existing numbers closest to one that does not exist: its truncations, then neighbours."""
        if self.edition(edition).document != "cr" or not (
            numbers.is_rule_number(number) or numbers.is_rule_number(number.lower())
        ):
            return self._nearest_entries(edition, number, limit)
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
        except NumberError:
            return out[:limit]
        siblings = [n for n in existing if numbers.parse(n).kind == target.kind]
        siblings.sort(key=lambda n: _distance(numbers.parse(n), target))
        for n in siblings:
            if len(out) >= limit:
                break
            if n not in out:
                out.append(n)
        return out[:limit]

    def _nearest_entries(self, edition: str, text: str, limit: int) -> list[str]:
        """A tournament document's entries nearest to a number it lacks ("9.9": the last of
        section 9, or the nearest sections) or to words no title matches."""
        rows = self.db.execute(
            "SELECT number, title FROM entries WHERE edition = ? AND kind != 'section' "
            "ORDER BY seq",
            (edition,),
        ).fetchall()
        deeper = re.match(r"^(\d{1,2}\.\d{1,2})(?:(?:\.\d+)+\.?|[^\W\d_]+)$", text.strip())
        if deeper:  # "2.5.1", "2.1x": the entry it is under first (two levels are all there are)
            text = deeper.group(1)
        if documents.is_number(text):
            want = documents.sort_key(documents.number(text))
            near = sorted(
                (r[0] for r in rows),
                key=lambda n: (
                    documents.sort_key(n)[:2] != want[:2],
                    _gap(documents.sort_key(n), want),
                ),
            )
            return near[:limit]
        from rapidfuzz import fuzz, process

        found = process.extract(
            text.lower(), {n: t.lower() for n, t in rows}, scorer=fuzz.WRatio, limit=limit
        )
        return [n for _t, _score, n in found]


def _by_words(text: str, entries: list[Rule]) -> Rule | None:
    """The entry whose title and text hold every word of `text` (a word counts by its first
    five letters: "drew" is "draws", not quite; the title counts double), the best if
    several; None if none holds them all."""
    import re

    def stems(s: str) -> set[str]:
        return {w[:5] for w in re.findall(r"[^\W\d_]{3,}", s.casefold())}

    wanted = stems(text)
    if not wanted:
        return None
    best, score = None, 0
    for r in entries:
        title, body = stems(r.title), stems(" ".join([r.text, *r.examples]))
        if wanted <= title | body:
            found = 2 * len(wanted & title) + len(wanted & body)
            if found > score:
                best, score = r, found
    return best


def _gap(a: tuple, b: tuple) -> tuple:
    """How far apart two tournament numbers' keys are (section, then entry)."""
    if a[2] and b[2]:
        return (abs(a[2][0] - b[2][0]), abs(a[2][1] - b[2][1]))
    return (99, 0)


def _distance(a: numbers.RuleNumber, b: numbers.RuleNumber) -> tuple:
    la = numbers.letters_index(a.letters) if a.letters else -1
    lb = (
        numbers.letters_index(b.letters)
        if b.letters and set(b.letters) <= set(numbers.LETTERS)
        else -1
    )
    return (
        abs(a.section - b.section),
        abs((a.rule or 0) - (b.rule or 0)),
        abs(la - lb),
    )


#: An edition named without its id: "latest", "previous", "2019-03-01" (the newest edition in
#: force that day), each optionally after a language or document ("ru-latest", "mtr-zh-latest").
_ALIASES = ("latest", "previous", "newest", "current")
TOLD = 20  # lines kept to tell (Library.told)
_ALIAS = re.compile(
    r"^(?:(?P<prefix>(?:cr|mtr|ipg|jar|[a-z]{2})(?:-[a-z]{2})?)-)?"
    r"(?P<alias>latest|newest|current|previous|\d{4}-\d{2}-\d{2})$"
)


@functools.cache
def missing_editions() -> tuple[tuple[str, str], ...]:
    """The official editions no copy of was found, with their set's name (data/manifest.json's
    "missing": recovered/NOTES.md says where they were looked for), oldest first."""
    from crlookup.library import shipped

    try:
        with open(shipped.verified("manifest.json"), encoding="utf-8") as f:
            listed = json.load(f).get("missing", {}).get("editions", {})
    except (OSError, ValueError, AttributeError):
        return ()
    return tuple(sorted(listed.items(), key=lambda item: item[0][-10:]))


def _closest_editions(wanted: str, editions: list[EditionInfo]) -> list[str]:
    """Editions nearest to an id that does not exist: by date in its language, else by spelling."""
    lang, _, day = wanted.partition("-")
    try:
        target = date.fromisoformat(day)
    except ValueError:
        from rapidfuzz import fuzz, process

        # a misspelt alias ("latset", "ru-previus"): the alias, with its prefix
        prefix, _dash, alias = wanted.lower().rpartition("-")
        spelt = process.extractOne(alias, _ALIASES, scorer=fuzz.ratio, score_cutoff=70)
        if spelt:
            return [f"{prefix}-{spelt[0]}" if prefix else spelt[0]]
        ids = [e.id for e in editions]
        return [m[0] for m in process.extract(wanted, ids, limit=3, score_cutoff=50)]
    same = [e for e in editions if e.lang == lang] or editions
    return [e.id for e in sorted(same, key=lambda e: abs((e.date - target).days))[:2]]
