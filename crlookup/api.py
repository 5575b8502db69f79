"""crlookup as a library: each command's body, once, as a method that returns a result.

`crlookup.open()` returns a `Library`: a built library's reader (crlookup.library.reader: its
editions, entries, glossary and citations), held, with the commands on top. Each command is one
method taking the command's own options (`rule(number, edition, lang, parallel=, annotations=,
cite=)`), checking them, and returning a result whose `to_dict()` is exactly what the command
prints with `--json`. The front ends only parse and show: the command line (crlookup.ui.cli)
renders the result for people, the server (crlookup.ui.serve) returns its `to_dict()`, the
browser (crlookup.ui.browse) shows it; none of them reaches past this module into the library
or the builder. What works on the library home rather than on an open library (ingest, update,
rebuild, doctor, the library in use and its stamp) are this module's functions.

Here the features are composed: a result is carried into another language (crlookup.bilingual)
when one is asked for, and `typed` says what a typed query is (a rule number, a card, words, a
question), so that no front end guesses for itself. A library found damaged while a command
runs is checked, rebuilt and the command run again (`heal`), whoever called it.

Every feature is imported when its method is first called, so that opening the library stays
as fast as the command line needs it to be.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.errors import (
    BadInput,
    CrlookupError,
    EditionsPending,
    LibraryDamaged,
    NotFound,
    NumberError,
    StorageError,
    Unrepairable,
)
from crlookup.core.i18n import _, ngettext
from crlookup.library import reader

if TYPE_CHECKING:
    from crlookup.bilingual import Parallel
    from crlookup.builder.stage import Finding, Progress
    from crlookup.builder.update import Update
    from crlookup.core.model import GlossaryEntry, Reference, Rule
    from crlookup.features.ask import Asked
    from crlookup.features.card_rules import CardLookup
    from crlookup.features.definitions import Definitions
    from crlookup.features.diff import EditionDiff
    from crlookup.features.history import History
    from crlookup.features.refs import Citations
    from crlookup.features.search import Search
    from crlookup.library.cards import CardResults
    from crlookup.library.reader import EditionInfo, RuleLookup

#: How a damaged library is told (the part, what is wrong with it) before it is rebuilt.
Notice = Callable[[str, str], None]

_QUESTION = re.compile(
    r"\?\s*$|^(can|could|does|do|is|are|what|when|how|why|if|who|which|may|must|should|"
    r"можно|может|могу|как|что|когда|если)\b",
    re.IGNORECASE,
)


#: the commands `crlookup <anything>` runs when what was typed begins with their name
_COMMANDS_NAMED = ("rule", "define", "card", "search", "ask", "history", "refs")


class Typed(NamedTuple):
    """What a typed query is, as every front end reads it: `kind` is "rule" (a number the
    edition has: `number`), "question" (a question of three words or more) or "words"; `card`
    is the card the words name exactly (by its name or a face's), if any; `lang` the query's
    language (from its script) and `edition` the edition to look in (the one given if it is of
    that language, else that language's newest)."""

    kind: str
    text: str
    lang: str
    edition: str
    number: str | None = None
    card: str | None = None


class Route(NamedTuple):
    """The command a typed query goes to, what it was read as ("a rule number"), and what the
    command is given instead of what was typed, if anything ("IPG 2.3" for "HCE")."""

    command: str
    reading: str
    argument: str = ""


class EditionList(NamedTuple):
    """`crlookup editions`: every edition of every document, in the order they took effect."""

    editions: tuple[EditionInfo, ...]

    def to_dict(self) -> list[dict]:
        return [e.to_dict() for e in self.editions]


class Unresolved(NamedTuple):
    """`crlookup editions --unresolved EDITION`: the cross-references of `edition` that name
    no entry of it, each with where it is ("702.19b", "glossary:Trample")."""

    edition: str
    refs: tuple[tuple[str, Reference], ...]

    def to_dict(self) -> list[dict]:
        return [
            {"edition": self.edition, "in": where, "ref": ref.label, "text": ref.text}
            for where, ref in self.refs
        ]


class Note(NamedTuple):
    """Something a front end tells its user about the library it opened: `kind` is "cards",
    "faces" or "rulings" (a build could not read that card file), "stale" (its sources changed
    and it could not be rebuilt) or "pending" (older editions still to come, or that could not
    be added); `text` is the one line."""

    kind: str
    text: str


def _document_name(text: str) -> str:
    from crlookup.core import documents

    return documents.DOCUMENTS[documents.split(text).document or "cr"]


def languages(parallel: str | tuple[str, str]) -> tuple[str, str]:
    """`rule --parallel L1,L2`: the two languages; BadInput if it names not two different ones."""
    given = parallel.split(",") if isinstance(parallel, str) else list(parallel)
    langs = [x.strip() for x in given if x.strip()]
    if len(langs) != 2 or langs[0] == langs[1]:
        shown = parallel if isinstance(parallel, str) else ",".join(parallel)
        raise BadInput(
            _("--parallel: expected two languages such as en,ru, found {found!r}").format(
                found=shown
            )
        )
    return langs[0], langs[1]


def _healing(method):
    """A command that heals: run once more on the rebuilt library if it failed on a damaged
    one (`Library.heal`), or on the complete library if it needed an edition still being
    added (`Library.wait_for_editions`)."""

    @functools.wraps(method)
    def run(self: Library, *args, **kwargs):
        if self._running:  # a command inside a command: the outer one heals
            return method(self, *args, **kwargs)
        self._running = True
        healed = waited = False  # each at most once: a healed library may lack editions still
        try:
            while True:
                try:
                    return method(self, *args, **kwargs)
                except (KeyboardInterrupt, BrokenPipeError):
                    raise
                except EditionsPending as e:
                    if waited:
                        raise
                    self.wait_for_editions(e)
                    waited = True
                except Exception as e:  # a failure it did not expect may be a damaged library
                    if healed or not self.heals:
                        raise
                    if isinstance(e, CrlookupError) and not isinstance(e, LibraryDamaged):
                        raise
                    if not self.heal(e):
                        raise
                    healed = True
        finally:
            self._running = False

    return run


class Library:
    """A built library with the commands as methods: it holds the library's reader
    (crlookup.library.reader.Library, `reader`), which the features read, and answers for it.

    Errors are those of crlookup.core.errors: `NotFound` (with the nearest that exist) and
    `BadInput` and its kinds, each with a one-line message.
    """

    def __init__(
        self,
        read: reader.Library,
        root: str | None = None,
        progress: Progress | None = None,
        notice: Notice | None = None,
        heals: bool = True,
    ):
        self.reader = read
        self.root = root
        self.progress = progress
        self.notice = notice
        self.heals = heals
        self.waits = True  # for the editions still to come, when a command needs one
        self._running = False

    @classmethod
    def at(cls, path: str, root: str | None = None, heals: bool = True) -> Library:
        """The library at `path` as it is: never built, rebuilt only when `heals` (a server's
        worker, which only reads, opens the library in use so)."""
        from crlookup.library.database import open_db

        return cls(reader.Library(path, open_db(path)), root, heals=heals)

    @property
    def path(self) -> str:
        """The library's folder."""
        return self.reader.path

    @property
    def stale(self) -> str | None:
        """Why this library answers although its sources changed (it could not be rebuilt: a
        read-only home, a full disk), or None."""
        return self.reader.stale

    def told(self) -> list[str]:
        """What the user should be told of the answers read so far, once each: a date whose
        edition is missing from the library, answered from the one before it."""
        return self.reader.told()

    @property
    def pending(self) -> int:
        """How many older editions are still to be added to this library (0: complete)."""
        return self.reader.pending

    def close(self) -> None:
        self.reader.close()

    def memo(self, key, make):
        """What `make()` returns, made once for this open library and kept with it (closed with
        it, if it has a `close`): a front end's own state of the library."""
        return self.reader.memo(key, make)

    # -------------------------------------------------------------------- healing

    def heal(self, error: BaseException) -> bool:
        """After a command failed with `error`: if this library is damaged, say so
        (`notice`), rebuild it and switch to the new one (True: the command can run again);
        False if it is sound (the error is something else). One that cannot be rebuilt
        raises `Unrepairable`, naming the folder and the way out."""
        from crlookup.builder import doctor
        from crlookup.library import home
        from crlookup.library.database import printable

        root = self.root or os.path.dirname(self.path)
        if isinstance(error, OSError):  # one of the library's files, or the user's own?
            name = error.filename if isinstance(error.filename, str) else ""
            if not os.path.abspath(name).startswith(os.path.abspath(root)):
                return False
        path = home.current(root)
        if path is None:
            return False
        found = doctor.damaged(path)
        if not found:
            if not isinstance(error, LibraryDamaged):
                return False
            found = [doctor.Finding(error.part, error.path, error.detail)]
        part, damage = found[0].part, found[0].damage
        if self.notice:
            self.notice(part, printable(damage))
        self._switch(_rebuilt(root, path, part, damage, self.progress))
        return True

    def wait_for_editions(self, pending: EditionsPending) -> None:
        """After a command needed an edition still being added (`pending`): wait until the
        older editions are in (`progress` is told how it goes) and switch to the library that
        has them; `StorageError` saying what is missing and why, if they cannot be added."""
        from crlookup.builder import pipeline
        from crlookup.library import home
        from crlookup.library.database import open_db

        root = self.root or os.path.dirname(self.path)
        if not self.waits:  # (the browser: its screen is not held) the library grown, if it is
            path = home.current(root)
            if path is None or path == self.path:
                raise pending
            self._switch(reader.Library(path, open_db(path)))
            if self.pending:
                raise pending
            return
        try:
            self._switch(pipeline.complete(root, self.progress))
        except StorageError as e:
            raise StorageError(
                ngettext(
                    "{missing}: {count} older edition could not be added: {reason}",
                    "{missing}: {count} older editions could not be added: {reason}",
                    self.pending,
                ).format(missing=pending.what, count=self.pending, reason=e)
            ) from None

    def _switch(self, other: reader.Library) -> None:
        """Go on reading `other` (a library built since this one was opened)."""
        self.reader.close()
        self.reader = other

    # -------------------------------------------------------------------- what a front end reads

    @_healing
    def edition(
        self, edition: str | None = None, lang: str | None = None, document: str = "cr"
    ) -> EditionInfo:
        """The named edition (an id, or an alias: "latest", "ru-previous", a date), or the
        newest complete one of `document` in `lang` (English by default)."""
        return self.reader.edition(edition, lang, document)

    @_healing
    def editions(self, document: str | None = "cr") -> list[EditionInfo]:
        """Every edition of `document` there is (the CR by default; None: every document's),
        in the order they took effect."""
        return self.reader.editions(document)

    @_healing
    def entry(
        self, number: str, edition: str | None = None, lang: str | None = None
    ) -> tuple[str, Rule]:
        """The edition an entry is found in and the entry (a number of any document: "702.19b",
        "IPG 2.1"), from `edition` or the newest that has it; `NotFound` with the nearest."""
        return self.reader.entry(number, edition, lang)

    @_healing
    def get(self, edition: str, number: str) -> Rule | None:
        """Entry `number` of `edition`, or None."""
        return self.reader.get(edition, number)

    @_healing
    def children(self, edition: str, number: str) -> list[Rule]:
        """The entries directly below `number` in `edition`."""
        return self.reader.children(edition, number)

    @_healing
    def entries(self, edition: str) -> list[Rule]:
        """Every entry of `edition`, in order."""
        return list(self.reader.entries(edition))

    @_healing
    def cites(self, edition: str, number: str) -> list[str]:
        """The entries entry `number` of `edition` cites."""
        return self.reader.cites(edition, number)

    @_healing
    def headwords(self, edition: str) -> set[str]:
        """The names of `edition`'s glossary terms (folded), as a view marks them in text."""
        return self.reader.headwords(edition)

    @_healing
    def card_names(self) -> list[str]:
        """Every card's name, in the card file's order (CardsUnavailable if it has none)."""
        return [card.name for card in self.reader.cards().all()]

    @_healing
    def glossary_term(self, edition: str, term: str) -> GlossaryEntry | None:
        """The glossary entry of `edition` named `term` exactly, or None."""
        return self.reader.glossary_term(edition, term)

    @_healing
    def citation(self, edition: str, number: str) -> reader.Citation:
        """How to cite entry `number` of `edition` ("CR 702.19b", its date, the official page)."""
        return self.reader.citation(edition, number)

    def warnings(self, built: bool = False) -> list[Note]:
        """What its user is told of the library just opened: a card file, a faces or a rulings
        file that the build (`built`: one ran to open it) could not read; a library out of date
        that could not be rebuilt; older editions being added, or that could not be."""
        out = []
        status = (self.reader.meta("cards") or {}) if built else {}
        said = {
            "cards": _("crlookup: warning: no cards in this library: {reason}"),
            "faces": _("crlookup: warning: card faces not completed: {reason}"),
            "rulings": _("crlookup: warning: no card rulings in this library: {reason}"),
        }
        for kind, text in said.items():  # the card file; its faces, its rulings (the cards are
            failed = status if kind == "cards" else status.get(kind) or {}  # there without them)
            if failed.get("error"):
                out.append(Note(kind, text.format(reason=failed["error"])))
        if self.stale:  # its sources changed, and it could not be rebuilt: it answers as it is
            out.append(
                Note(
                    "stale",
                    _(
                        "crlookup: warning: the library is out of date (its sources changed) "
                        "and could not be rebuilt: {reason}"
                    ).format(reason=self.stale),
                )
            )
        if not self.pending:
            return out
        failed = grow_failure(self.root)
        if failed:
            text = ngettext(
                "crlookup: {count} older edition could not be added: {reason} (the editions "
                "before {date} and history are missing; tried again in ten minutes)",
                "crlookup: {count} older editions could not be added: {reason} (the editions "
                "before {date} and history are missing; tried again in ten minutes)",
                self.pending,
            ).format(
                count=self.pending,
                reason=failed,
                date=min(e.date for e in self.reader.editions()).isoformat(),
            )
        else:
            text = ngettext(
                "crlookup: {count} older edition is being added in the background (history, "
                "search and what names it wait for it)",
                "crlookup: {count} older editions are being added in the background (history, "
                "search and what names one wait for them)",
                self.pending,
            ).format(count=self.pending)
        return [*out, Note("pending", text)]

    # -------------------------------------------------------------------- typed queries

    @_healing
    def typed(self, text: str, edition: str | None = None) -> Typed:
        """What `text` is: a rule number `edition` has, a question, or words (and whether
        they name a card), with the edition to look in."""
        from crlookup.core import documents, numbers
        from crlookup.core.model import detect_lang

        read = self.reader
        text = text.strip()
        lang = detect_lang(text)
        if documents.split(text).document in documents.TOURNAMENT:  # "IPG 2.1", "MTR C"
            try:
                there, rule = read.entry(text)
            except (NotFound, NumberError):
                pass
            else:
                return Typed("rule", text, read.edition(there).lang, there, number=rule.number)
        given = read.edition(edition) if edition else None
        if given is not None and given.document != "cr":  # "2.1" in the IPG shown
            try:
                there, rule = read.entry(text, given.id)
            except (NotFound, NumberError):
                pass
            else:
                return Typed("rule", text, given.lang, there, number=rule.number)
        info = given if given and given.lang == lang else read.edition(lang=lang)
        try:  # "702.19b", "rule 702.19b", "CR 702.19 b"
            number = str(numbers.parse(documents.split(text).number.rstrip(".")))
        except NumberError:
            number = None
        if number and read.get((given or info).id, number) is not None:
            return Typed("rule", text, lang, (given or info).id, number=number)
        kind = "question" if _QUESTION.search(text) and len(text.split()) >= 3 else "words"
        return Typed(kind, text, lang, info.id, card=self._card_named(text))

    @_healing
    def route(self, text: str, edition: str | None = None) -> Route:
        """The command that answers whatever was typed (`crlookup <anything>`): a number
        (a rule's, or "IPG 2.1") is looked up, a question asked, a glossary term defined, a
        card's name (a face's, a short name: "Teferi") shown, and other words searched."""
        from crlookup.core import documents, numbers

        read = self.reader
        text = text.strip()
        said = self._command_named(text)  # "define APNAP", "history 702.19b"
        if said is not None:
            return said
        cited = documents.split(text)
        if cited.document is not None:
            return Route("rule", _("a rule of the {name}").format(name=_document_name(text)))
        try:  # "702.19b", "rule 702.19b", "702.19 b": the number, as the rule command reads it
            numbers.parse(cited.number.rstrip("."))
        except NumberError:
            pass
        else:
            return Route("rule", _("a rule number"), cited.number if cited.number != text else "")
        if _QUESTION.search(text) and len(text.split()) >= 3:
            return Route("ask", _("a question"))
        from crlookup.core.model import detect_lang
        from crlookup.features.shorthand import entry_named, names_for

        bare = text.rstrip("?!.:; ")  # "trample?": the term
        named = entry_named(read, bare)  # "HCE", "missed trigger", "REL": that entry
        if named:
            return Route(
                "rule", _("an entry of the {name}").format(name=_document_name(named)), named
            )
        lang = read.edition(edition).lang if edition else detect_lang(text)
        try:
            glossary = read.glossary_edition(lang)
        except NotFound:  # a library of editions without a glossary: no term to define
            glossary = None
        # a term, or a keyword ("APNAP", "the stack": as define reads them)
        if glossary and any(any(read.named(glossary, n)) for n in names_for(bare)):
            return Route("define", _("a glossary term"))
        if read.names_card(bare):
            return Route("card", _("a card's name"))
        return Route("search", _("words"))

    def _command_named(self, text: str) -> Route | None:
        """A command's name followed by what it is given ("define APNAP", "card Giant Spider",
        "history 702.19b", "rule IPG 2.1"): that command, if what follows is what it takes (a
        number for rule, history and refs; a card's name for card)."""
        from crlookup.core import documents, numbers

        first, _space, rest = text.partition(" ")
        command, rest = first.lower(), rest.strip()
        if command not in _COMMANDS_NAMED or not rest:
            return None
        if command in ("rule", "history", "refs"):
            cited = documents.split(rest)
            if cited.document is None:
                try:
                    numbers.parse(cited.number.rstrip("."))
                except NumberError:
                    return None
        elif command == "card" and not self.reader.names_card(rest):
            return None
        return Route(command, _("the command named first"), rest)

    def _card_instead(self, found: Search, query: str) -> bool:
        """Whether `crlookup <words>` shows a card rather than the search `found` for `query`:
        no hit has every word, and the words name a card, spelt as loosely as `card` allows."""
        from crlookup.core.errors import CardQueryError, CardsUnavailable

        if found.results.complete:
            return False
        try:
            named = self.reader.cards().find(query)
        except (CardQueryError, CardsUnavailable):
            return False
        return named.card is not None or named.how == "ambiguous"

    def _card_named(self, text: str) -> str | None:
        """The card `text` names exactly (its name, or a face's), if any."""
        from crlookup.core.errors import CardQueryError, CardsUnavailable

        if len(text) < 3:
            return None
        try:
            found = self.reader.cards().named(text)
        except (CardQueryError, CardsUnavailable):
            return None
        return (
            found.card.name
            if found is not None and found.card is not None and found.how in ("exact", "face")
            else None
        )

    # -------------------------------------------------------------------- commands

    @_healing
    def list_editions(self, unresolved: str | None = None) -> EditionList | Unresolved:
        """`crlookup editions`: every edition of every document, those still being added after
        a first use waited for; with `unresolved` (an edition), its cross-references that name
        no entry of it."""
        if unresolved:
            found = self.unresolved(unresolved)
            return Unresolved(self.reader.edition(unresolved).id, tuple(found))
        return EditionList(tuple(self.all_editions(None)))

    @_healing
    def all_editions(self, document: str | None = "cr") -> list[EditionInfo]:
        """Every edition of `document`, those still being added after a first use waited for."""
        self.reader.every_edition()
        return self.reader.editions(document)

    @_healing
    def unresolved(self, edition: str) -> list[tuple[str, Reference]]:
        """The cross-references of `edition` (an id or an alias) that name no entry of it,
        each with where it is ("702.19b", "glossary:Trample")."""
        return self.reader.unresolved(self.reader.edition(edition).id)

    @_healing
    def rule(
        self,
        number: str,
        edition: str | None = None,
        lang: str | None = None,
        *,
        parallel: str | tuple[str, str] | None = None,
        annotations: bool = False,
        cite: bool = False,
    ) -> RuleLookup | Parallel:
        """A rule with its subrules and what cites it (`crlookup rule`): with `annotations`,
        the judges' commentary beside it; with `cite`, how to cite it. With `parallel` (two
        languages, "en,ru"), the rule and its subrules beside their counterparts instead."""
        if parallel:
            return self.parallel(number, languages(parallel), edition)
        try:
            found = self.reader.rule(number, edition, lang)
        except NotFound as missing:
            raise self._renumbered(missing, number, edition, lang) from None
        citation = self.reader.citation(found.edition, found.rule.number) if cite else None
        return found._replace(citation=citation, annotations=annotations)

    def _renumbered(
        self, missing: NotFound, number: str, edition: str | None, lang: str | None
    ) -> NotFound:
        """A rule number an edition lacks: if it is another edition's number of a rule this
        one numbers otherwise (the July 2009 renumbering, a keyword moved), NotFound naming
        that rule here; else `missing` as it was."""
        from crlookup.core import documents, numbers
        from crlookup.features.history import same_rule

        cited = documents.split(number)
        if cited.document not in (None, "cr") or isinstance(missing, EditionsPending):
            return missing
        try:
            wanted = str(numbers.parse(cited.number.rstrip(".")))
            there = self.reader.edition(edition, lang=lang).id
            same = same_rule(self.reader, wanted, there)
        except (NumberError, NotFound):
            return missing
        if same is None:
            return missing
        rule = self.reader.get(there, numbers.rule_of(same.number)) if not same.title else None
        return NotFound(
            _("no rule {number} in {edition}; the same rule there is {same} ({title})").format(
                number=wanted,
                edition=there,
                same=same.number,
                title=same.title or (rule.title if rule else "") or same.text[:40],
            ),
            [same.number],
            told=True,
        )

    @_healing
    def refs(self, number: str, edition: str | None = None, depth: int = 1) -> Citations:
        """What rule `number` cites and what cites it, up to `depth` steps (`crlookup refs`)."""
        from crlookup.features import refs

        edition, rule = self.reader.entry(number, edition)
        return refs.citations(self.reader, edition, rule.number, depth)

    @_healing
    def parallel(self, number: str, langs: tuple[str, str], edition: str | None = None) -> Parallel:
        """The rule and its subrules beside their counterparts (`crlookup rule --parallel`)."""
        from crlookup import bilingual
        from crlookup.core import documents

        document = documents.split(number).document or "cr"
        if document != "cr":  # (a traceback before: no translation to pair it with)
            raise BadInput(
                _("{number}: the tournament documents are in English only (--parallel is for "
                  "the Comprehensive Rules)").format(number=number)
            )  # fmt: skip
        there = self.reader.edition_id(edition, langs[0], document)
        return bilingual.parallel(self.reader, number, langs, there)

    @_healing
    def search(
        self,
        query: str,
        *,
        edition: str | None = None,
        all_editions: bool = False,
        lang: str | None = None,
        section: str | None = None,
        limit: int = 10,
        parallel: str | None = None,
        document: str = "cr",
        cards: bool = False,
        rulings: bool = False,
        or_card: bool = False,
        list_editions: bool = False,
    ) -> Search | CardResults | CardLookup:
        """Rules, examples and glossary entries for `query`, ranked (`crlookup search`); with
        `parallel`, each hit's counterpart in that language; `document` another document's
        entries ("mtr", "ipg", "jar") or every document's ("all"). With `cards`, the cards'
        names, type lines and Oracle text instead (and their rulings, with `rulings`). With
        `or_card` (`crlookup <words>`): the card the words name, if no hit has them all. With
        `list_editions`, each hit's JSON lists every edition it reads so in (else the first,
        the last and the count)."""
        from crlookup.core.model import detect_lang
        from crlookup.features import search

        query = query.strip()
        if not query:
            raise BadInput(_("search: expected words to search for"))
        if rulings and not cards:
            raise BadInput(_("--rulings searches the cards' rulings: use it with --cards"))
        if cards:
            given = {"edition": edition, "all_editions": all_editions, "lang": lang,
                     "section": section, "parallel": parallel}  # fmt: skip
            named = [f"--{name.replace('_', '-')}" for name, value in given.items() if value]
            if named:
                raise BadInput(
                    _("--cards cannot be combined with {options}").format(options=", ".join(named))
                )
            return self.reader.cards().search(query, limit=limit, rulings=rulings)
        read = self.reader
        edition = read.edition_id(edition, lang, "cr" if document == "all" else document)
        own = read.edition(edition).lang if edition else lang or detect_lang(query)
        if own != "en" and document == "cr" and re.search("[A-Za-z]", query):
            from crlookup import bilingual  # "deathtouch 死触": 死触 死触

            query = bilingual.in_translation(read, edition or read.edition(lang=own).id, query)
        found = search.search(
            read,
            query,
            edition=edition,
            all_editions=all_editions,
            lang=lang,
            section=section,
            limit=limit,
            document=document,
        )
        if self.waits:  # ranked as the complete library ranks: by what its index holds of the
            read.every_edition(found.lang)  # words (not `browse`, as one types: from what is)
        if parallel:
            import dataclasses

            from crlookup import bilingual

            twins = bilingual.counterparts(read, found.hits, found.lang, parallel)
            found = dataclasses.replace(found, parallel=parallel, counterparts=twins)
        if or_card and self._card_instead(found, query):  # no hit has every word: a card?
            return self.card(query)
        if list_editions:
            import dataclasses

            found = dataclasses.replace(found, list_editions=True)
        return found

    @_healing
    def define(self, term: str, lang: str | None = None, edition: str | None = None) -> Definitions:
        """A glossary term, or the rule of a keyword (`crlookup define`); a translation's
        glossary is also searched through the English names of its terms."""
        from crlookup.features import definitions

        term = term.strip()
        if not term:
            raise BadInput(_("define: expected a term"))
        read = self.reader
        edition = read.edition_id(edition, lang)
        found = definitions.lookup(read, term, lang, edition)
        if not found.found and read.edition(found.edition).lang != "en":
            import dataclasses

            from crlookup import bilingual
            from crlookup.core.model import fold

            # an English term: the glossary entry of the translation's term for it (define
            # deathtouch --lang zh: 死触), else its rule in the translation
            named = bilingual.terms(read, found.edition).translated.get(fold(term))
            by_name = definitions.lookup(read, named, None, found.edition) if named else None
            if by_name and any(d.entry for d in by_name.found):
                found = dataclasses.replace(found, found=by_name.found)
            else:
                carried = bilingual.definitions_through_english(read, found.edition, term)
                found = dataclasses.replace(found, found=tuple(carried))
        if not found.found:
            found = definitions.in_tournament_documents(read, term) or found
        if not found.found:
            raise definitions.not_found(found)
        return found

    @_healing
    def diff(
        self, old: str, new: str, section: str | None = None, summary: bool = False
    ) -> EditionDiff:
        """What changed from edition `old` to `new` (`crlookup diff`); with `summary`, the
        counts of each kind of change per section, not the changed words."""
        from crlookup.features import diff

        read = self.reader
        found = diff.diff(read, read.edition(old).id, read.edition(new).id, section, not summary)
        if summary:
            import dataclasses

            found = dataclasses.replace(found, summary=True)
        return found

    @_healing
    def history(self, number: str, edition: str | None = None) -> History:
        """Rule `number` through every edition of its language (`crlookup history`)."""
        from crlookup.features import history

        return history.history(self.reader, number, edition)

    @_healing
    def ask(
        self,
        question: str,
        *,
        edition: str | None = None,
        lang: str | None = None,
        limit: int = 5,
        parallel: str | None = None,
    ) -> Asked:
        """The rules that decide a rules question, best first, and why (`crlookup ask`).

        The question is read against an edition of its own language (the newest unless told
        otherwise); when the rules are wanted in another language (`lang`, or an `edition`
        of another language), each answer is carried to its counterpart there, and says so.
        With `parallel`, each answer's counterpart in that language is given beside it.
        """
        from crlookup import bilingual
        from crlookup.features import ask

        question = question.strip()
        if not question:
            raise BadInput(_("ask: expected a question"))
        ask.checked(question)  # (too long: refused before anything is read)
        read = self.reader
        own = ask.detect_lang(question)
        target = read.edition(edition, lang=lang or own)
        searched = target if target.lang == own else read.edition(lang=own)
        if own in ask.THROUGH_ENGLISH:
            asked = bilingual.ask_in_english(read, question, searched.id, target.id, limit)
        else:
            asked = ask.ask(read, question, searched.id, limit)
            if searched.id != target.id and asked.searched == searched.id:  # not another doc's
                asked = asked._replace(answers=bilingual.carry(read, asked.answers, target.id))
        if parallel:
            asked = asked._replace(beside=bilingual.beside(read, asked.answers, parallel))
        return asked

    @_healing
    def card(self, name: str, edition: str | None = None, lang: str | None = None) -> CardLookup:
        """A card's Oracle text and the rules behind it (`crlookup card`)."""
        from crlookup.features import card_rules

        return card_rules.lookup(self.reader, name, edition, lang)

    @_healing
    def export(self, edition: str) -> list[dict]:
        """Every entry of an edition, then its glossary, as `crlookup export` writes them."""
        read = self.reader
        edition = read.edition(edition).id
        out = [r.to_dict(edition) for r in read.entries(edition)]
        return out + [g.to_dict(edition) for g in read.glossary(edition)]


def _rebuilt(
    root: str, path: str, part: str, damage: str, progress: Progress | None
) -> reader.Library:
    """The library of `root` rebuilt, the one at `path` being damaged; `Unrepairable` naming
    the folder and the way out if it cannot be."""
    from crlookup.builder import pipeline

    try:
        return pipeline.rebuild(root, progress=progress)
    except (CrlookupError, OSError) as e:
        raise Unrepairable(
            _(
                "the library in {path} is damaged ({part}: {damage}) and could not be "
                "rebuilt: {reason}; run `crlookup rebuild`, or remove that folder"
            ).format(path=path, part=part, damage=damage, reason=e)
        ) from None


def open(
    home: str | None = None,
    progress: Progress | None = None,
    heal: bool = True,
    notice: Notice | None = None,
) -> Library:
    """The library in `home` (by default `CRLOOKUP_HOME`, else the per-user cache), built
    first if it is missing or its sources changed, and rebuilt if it is damaged (unless `heal`
    is false: then `LibraryDamaged`), now or when a command meets the damage; `progress(done,
    total, label)` is told how a build goes, `notice(part, damage)` that a damaged library is
    being rebuilt."""
    from crlookup.builder import pipeline
    from crlookup.core.paths import home as default_home
    from crlookup.library.database import printable

    root = home or default_home()
    try:
        found = pipeline.open_library(root, progress)
    except LibraryDamaged as e:
        if not heal:
            raise
        if notice:
            notice(e.part, printable(e.detail))
        found = _rebuilt(root, os.path.dirname(e.path), e.part, e.detail, progress)
    return Library(found, root, progress, notice, heals=heal)


# ------------------------------------------------------------------------ the library home


def waiting_for(label: str) -> str | None:
    """What a build whose progress is `label` waits for: "older editions" (being added in
    the background), "another build" (of the library, by another crlookup), or None (it is a
    build itself)."""
    from crlookup.builder.pipeline import ADDING, ANOTHER

    return "older editions" if label == ADDING else "another build" if label == ANOTHER else None


def grow_failure(home: str | None = None) -> str | None:
    """Why adding the older editions in the background failed lately (or would fail now: a
    home that cannot be written), or None."""
    from crlookup.builder import pipeline
    from crlookup.core.paths import home as default_home

    return pipeline.grow_failure(home or default_home())


def current(home: str | None = None) -> str | None:
    """The folder of the library in use in `home` (None: none has been built)."""
    from crlookup.core.paths import home as default_home
    from crlookup.library import home as homes

    return homes.current(home or default_home())


def current_names_none(home: str | None = None) -> bool:
    """Whether the home's `current` names no library of it (emptied, overwritten, pointing
    at one that is gone): a build then repairs damage, it is no first use."""
    from crlookup.core.paths import home as default_home
    from crlookup.library import home as homes

    return homes.current_names_none(home or default_home())


def edition_ids(home: str | None = None) -> list[tuple[str, str, str, bool]]:
    """(id, language, document, partial) of each edition of the library in use, newest first, read
    without building one (none yet: none): for shell completion."""
    from crlookup.core.paths import home as default_home
    from crlookup.library import home as homes

    return homes.edition_ids(home or default_home())


def stamp(path: str) -> dict:
    """What the library at `path` records of how it was built: the crlookup version and the
    database schema ("version", "schema"), its sources; an OSError or sqlite3.Error if it
    cannot be read."""
    import contextlib

    from crlookup.builder import manifest
    from crlookup.library.database import open_db

    with contextlib.closing(open_db(path)) as db:
        return manifest.stamp_of(db)


def compatible(path: str) -> bool:
    """Whether this crlookup reads the library at `path` (built by this version, with this
    database schema): a server takes up a new library without a restart only then."""
    import sqlite3

    from crlookup.library.database import SCHEMA
    from crlookup.version import __version__

    try:
        found = stamp(path)
    except (sqlite3.Error, ValueError, OSError):
        return False  # (a build is not made current before it is complete: damaged)
    return found.get("version") == __version__ and found.get("schema") == SCHEMA


def storage_error(error: OSError, home: str | None = None) -> StorageError | None:
    """The one line for an OSError in the library home (a full disk, a read-only home), or
    None for another error, or one about a file elsewhere."""
    from crlookup.core.paths import home as default_home
    from crlookup.library import home as homes

    return homes.storage_error(error, home or default_home())


class Rebuilt(NamedTuple):
    """What `crlookup rebuild` made: the new library's folder, its editions, the ids of those
    the user added, and the older editions still to come; `by_another`: another rebuild, under
    way when this one began, made it (this one waited for it, and had nothing left to do)."""

    path: str
    editions: int
    yours: tuple[str, ...]
    pending: int
    by_another: bool = False

    def to_dict(self) -> dict:
        return {"path": self.path, "editions": self.editions, "yours": list(self.yours),
                "pending": self.pending, "by_another": self.by_another}  # fmt: skip


def rebuild(home: str | None = None, progress: Progress | None = None) -> Rebuilt:
    """Build the library again from its sources, the shipped editions and the user's own,
    nothing of the current library reused (`crlookup rebuild`); atomic like every build: until
    it is done, the current library answers."""
    import time

    from crlookup.builder import pipeline
    from crlookup.core.paths import home as default_home

    started = time.time()
    lib = pipeline.rebuild(home or default_home(), progress=progress, first=None)
    try:
        infos = lib.editions(None)
        yours = tuple(e.id for e in infos if e.origin == "user")
        by_another = float(stamp(lib.path).get("built", started)) < started
        return Rebuilt(lib.path, len(infos), yours, lib.pending, by_another)
    finally:
        lib.close()


class Checkup(NamedTuple):
    """What `crlookup doctor` found: every part of the library at `path` checked, the older
    editions still to come (`pending`) with why they could not be added (`pending_error`),
    and every file shipped in the package (`shipped`: its data, as the package recorded it)."""

    path: str
    parts: tuple[Finding, ...]
    pending: int
    pending_error: str | None
    shipped: tuple[Finding, ...] = ()

    @property
    def damaged(self) -> list[Finding]:
        return [f for f in self.parts if f.damage]

    @property
    def damaged_shipped(self) -> list[Finding]:
        return [f for f in self.shipped if f.damage]

    @property
    def ok(self) -> bool:
        return not self.damaged and not self.damaged_shipped and not self.pending_error

    def to_dict(self) -> dict:
        return {"path": self.path, "ok": self.ok, "parts": [f.to_dict() for f in self.parts],
                "pending": self.pending, "pending_error": self.pending_error,
                "shipped": [f.to_dict() for f in self.shipped]}  # fmt: skip

    def problem(self) -> str | None:
        """The one line that says what is wrong, if something is (doctor then exits 1): a
        shipped file first (only reinstalling mends it; a rebuild would read it)."""
        from crlookup.library.shipped import damaged

        shipped = self.damaged_shipped
        if shipped:
            return str(damaged(shipped[0].path, shipped[0].damage))
        bad = self.damaged
        if bad:
            return ngettext(
                "{count} part of the library is damaged: run `crlookup rebuild`",
                "{count} parts of the library are damaged: run `crlookup rebuild`",
                len(bad),
            ).format(count=len(bad))
        if self.pending_error:
            return ngettext(
                "{count} older edition could not be added: {reason}",
                "{count} older editions could not be added: {reason}",
                self.pending,
            ).format(count=self.pending, reason=self.pending_error)
        return None


def doctor(home: str | None = None) -> Checkup:
    """Every part of the library in use checked (`crlookup doctor`); `NotFound` if there is
    none yet."""
    from crlookup.builder import doctor as health
    from crlookup.builder import pipeline
    from crlookup.core.paths import home as default_home
    from crlookup.library import home as homes

    root = home or default_home()
    path = homes.current(root)
    if path is None:
        raise NotFound(_("no library in {home} yet: any command builds it").format(home=root))
    found = health.check(path)
    count, failed = pipeline.pending(root, path)
    return Checkup(path, tuple(found), count, failed, tuple(health.check_shipped()))


class Ingested(NamedTuple):
    """The editions `crlookup ingest` added, and why those that look partial do (by id)."""

    editions: tuple[EditionInfo, ...]
    partial: dict[str, str]

    def to_dict(self) -> list[dict]:
        """Each edition as `editions --json` lists it, and `looks_partial`: why, or null."""
        return [e.to_dict() | {"looks_partial": self.partial.get(e.id)} for e in self.editions]


def ingest(
    path: str,
    *,
    id: str | None = None,
    lang: str | None = None,
    date: str | None = None,
    home: str | None = None,
    progress: Progress | None = None,
    any_size: bool = False,
) -> Ingested:
    """Add a user's edition file to the library (`crlookup ingest`): `id`, `lang` and `date`
    say what the file does not (`any_size`: a file far larger than any real edition is meant);
    the library is rebuilt with it, atomically. An edition that looks partial beside its
    neighbours is added, and said (`Ingested.partial`)."""
    from crlookup.builder.ingest import ingest as adding

    if date:
        import datetime

        try:
            datetime.date.fromisoformat(date)
        except ValueError:
            raise BadInput(
                _("--date: expected YYYY-MM-DD, found {found!r}").format(found=date)
            ) from None
    options = {k: v for k, v in {"id": id, "lang": lang, "date": date}.items() if v}
    added = tuple(adding(path, options, home, progress=progress, any_size=any_size))
    from crlookup.builder.ingest import looks_partial
    from crlookup.builder.pipeline import open_library

    lib = open_library(home)
    try:
        every = lib.editions(None)
    finally:
        lib.close()
    partial = {e.id: why for e in added if (why := looks_partial(e, every))}
    return Ingested(added, partial)


def update(
    source: str | None = None, home: str | None = None, progress: Progress | None = None
) -> Update:
    """The current Comprehensive Rules from Wizards (or from `source`, a URL or a file) added
    to the library if they are new (`crlookup update`)."""
    from crlookup.builder import update as updating

    return updating.update(source, home, progress=progress)


__all__ = [
    "Checkup",
    "EditionList",
    "Ingested",
    "Library",
    "Note",
    "Rebuilt",
    "Route",
    "Typed",
    "Unresolved",
    "compatible",
    "current",
    "doctor",
    "edition_ids",
    "grow_failure",
    "ingest",
    "languages",
    "open",
    "rebuild",
    "stamp",
    "storage_error",
    "update",
    "waiting_for",
]
