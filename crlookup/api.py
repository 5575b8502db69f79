"""crlookup as a library: what each command does, as a method that returns a result.

`crlookup.open()` returns a `Library`: the read side of a built library (crlookup.library.reader:
its editions, entries, glossary and citations) with the commands on top. Every result has
`to_dict()`, which is exactly what the command prints with `--json`; every front end (the
command line, the browser) is these calls, then that JSON or a view of the same result.

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
    from crlookup.builder.stage import Progress
    from crlookup.features.ask import Asked
    from crlookup.features.card_rules import CardLookup
    from crlookup.features.definitions import Definitions
    from crlookup.features.diff import EditionDiff
    from crlookup.features.history import History
    from crlookup.features.refs import Citations
    from crlookup.features.search import Search
    from crlookup.library.reader import EditionInfo, RuleLookup

#: How a damaged library is told (the part, what is wrong with it) before it is rebuilt.
Notice = Callable[[str, str], None]

_QUESTION = re.compile(
    r"\?\s*$|^(can|could|does|do|is|are|what|when|how|why|if|who|which|may|must|should|"
    r"можно|может|могу|как|что|когда|если)\b",
    re.IGNORECASE,
)


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
    """The command a typed query goes to, and what it was read as ("a rule number")."""

    command: str
    reading: str


def _document_name(text: str) -> str:
    from crlookup.core import documents

    return documents.DOCUMENTS[documents.split(text).document or "cr"]


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


class Library(reader.Library):
    """A built library with the commands as methods (`rule`, the read side's own, among them).

    Errors are those of crlookup.core.errors: `NotFound` (with the nearest that exist) and
    `BadInput` and its kinds, each with a one-line message.
    """

    def __init__(
        self,
        path: str,
        db,
        root: str | None = None,
        progress: Progress | None = None,
        notice: Notice | None = None,
        heals: bool = True,
    ):
        super().__init__(path, db)
        self.root = root
        self.progress = progress
        self.notice = notice
        self.heals = heals
        self.waits = True  # for the editions still to come, when a command needs one
        self._running = False

    # -------------------------------------------------------------------- healing

    def heal(self, error: BaseException) -> bool:
        """After a command failed with `error`: if this library is damaged, say so
        (`notice`), rebuild it and switch to the new one (True: the command can run again);
        False if it is sound (the error is something else). One that cannot be rebuilt
        raises `Unrepairable`, naming the folder and the way out."""
        from crlookup.builder import doctor
        from crlookup.library import home

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
            self.notice(part, damage)
        self._rebuild(root, path, part, damage)
        return True

    def _rebuild(self, root: str, path: str, part: str, damage: str) -> None:
        self._switch(_rebuilt(root, path, part, damage, self.progress))

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
        """Go on as the library `other` (built since this one was opened)."""
        self.close()
        self.__dict__.update(
            Library(other.path, other.db, self.root, self.progress, self.notice, self.heals)
            .__dict__ | {"_running": self._running, "waits": self.waits}
        )  # fmt: skip

    # -------------------------------------------------------------------- typed queries

    @_healing
    def typed(self, text: str, edition: str | None = None) -> Typed:
        """What `text` is: a rule number `edition` has, a question, or words (and whether
        they name a card), with the edition to look in."""
        from crlookup.core import documents, numbers
        from crlookup.core.errors import NotFound
        from crlookup.core.model import detect_lang

        text = text.strip()
        lang = detect_lang(text)
        if documents.split(text).document in documents.TOURNAMENT:  # "IPG 2.1", "MTR C"
            try:
                there, rule = self.entry(text)
            except (NotFound, NumberError):
                pass
            else:
                return Typed("rule", text, self.edition(there).lang, there, number=rule.number)
        given = self.edition(edition) if edition else None
        if given is not None and given.document != "cr":  # "2.1" in the IPG shown
            try:
                there, rule = self.entry(text, given.id)
            except (NotFound, NumberError):
                pass
            else:
                return Typed("rule", text, given.lang, there, number=rule.number)
        info = given if given and given.lang == lang else self.edition(lang=lang)
        try:
            number = str(numbers.parse(text.rstrip(".")))
        except NumberError:
            number = None
        if number and self.get((given or info).id, number) is not None:
            return Typed("rule", text, lang, (given or info).id, number=number)
        kind = "question" if _QUESTION.search(text) and len(text.split()) >= 3 else "words"
        return Typed(kind, text, lang, info.id, card=self._card_named(text))

    @_healing
    def route(self, text: str, edition: str | None = None) -> Route:
        """The command that answers whatever was typed (`crlookup <anything>`): a number
        (a rule's, or "IPG 2.1") is looked up, a question asked, a glossary term defined, a
        card's name (a face's, a short name: "Teferi") shown, and other words searched."""
        from crlookup.core import documents, numbers

        text = text.strip()
        if documents.split(text).document is not None:
            return Route("rule", _("a rule of the {name}").format(name=_document_name(text)))
        try:
            numbers.parse(text.rstrip("."))
        except NumberError:
            pass
        else:
            return Route("rule", _("a rule number"))
        if _QUESTION.search(text) and len(text.split()) >= 3:
            return Route("ask", _("a question"))
        from crlookup.core.model import detect_lang, fold

        bare = text.rstrip("?!.:; ")  # "trample?": the term
        lang = self.edition(edition).lang if edition else detect_lang(text)
        try:
            glossary = self.glossary_edition(lang)
        except NotFound:  # a library of editions without a glossary: no term to define
            glossary = None
        if glossary and any(self.named(glossary, fold(bare))):  # a term, or a keyword
            return Route("define", _("a glossary term"))
        if self.names_card(bare):
            return Route("card", _("a card's name"))
        return Route("search", _("words"))

    def card_instead(self, found: Search, query: str) -> bool:
        """Whether `crlookup <words>` shows a card rather than the search `found` for `query`:
        no hit has every word, and the words name a card, spelt as loosely as `card` allows."""
        from crlookup.core.errors import CardQueryError, CardsUnavailable

        if found.results.complete:
            return False
        try:
            named = self.cards().find(query)
        except (CardQueryError, CardsUnavailable):
            return False
        return named.card is not None or named.how == "ambiguous"

    def _card_named(self, text: str) -> str | None:
        """The card `text` names exactly (its name, or a face's), if any."""
        from crlookup.core.errors import CardQueryError, CardsUnavailable

        if len(text) < 3:
            return None
        try:
            found = self.cards().named(text)
        except (CardQueryError, CardsUnavailable):
            return None
        return (
            found.card.name
            if found is not None and found.card is not None and found.how in ("exact", "face")
            else None
        )

    # -------------------------------------------------------------------- commands

    @_healing
    def editions(self, document: str | None = "cr") -> list[EditionInfo]:
        """Every edition of `document` there is (the CR by default; None: every document's),
        in the order they took effect."""
        return super().editions(document)

    @_healing
    def all_editions(self, document: str | None = "cr") -> list[EditionInfo]:
        """Every edition of `document` (`crlookup editions`), those still being added after a
        first use waited for."""
        self.every_edition()
        return super().editions(document)

    @_healing
    def unresolved(self, edition: str):
        """The cross-references of `edition` (an id or an alias) that name no entry of it."""
        return super().unresolved(self.edition(edition).id)

    @_healing
    def rule(self, number: str, edition: str | None = None, lang: str | None = None) -> RuleLookup:
        """A rule with its subrules and what cites it (`crlookup rule`)."""
        return super().rule(number, edition, lang)

    @_healing
    def refs(self, number: str, edition: str | None = None, depth: int = 1) -> Citations:
        """What rule `number` cites and what cites it, up to `depth` steps (`crlookup refs`)."""
        from crlookup.features import refs

        edition, rule = self.entry(number, edition)
        return refs.citations(self, edition, rule.number, depth)

    @_healing
    def parallel(self, number: str, langs: tuple[str, str], edition: str | None = None) -> Parallel:
        """The rule and its subrules beside their counterparts (`crlookup rule --parallel`)."""
        from crlookup import bilingual
        from crlookup.core import documents

        document = documents.split(number).document or "cr"
        return bilingual.parallel(self, number, langs, self.edition_id(edition, langs[0], document))

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
    ) -> Search:
        """Rules, examples and glossary entries for `query`, ranked (`crlookup search`); with
        `parallel`, each hit's counterpart in that language; `document` another document's
        entries ("mtr", "ipg", "jar") or every document's ("all")."""
        from crlookup.core.model import detect_lang
        from crlookup.features import search

        edition = self.edition_id(edition, lang, "cr" if document == "all" else document)
        own = self.edition(edition).lang if edition else lang or detect_lang(query)
        if own != "en" and document == "cr" and re.search("[A-Za-z]", query):
            from crlookup import bilingual  # "deathtouch 死触": 死触 死触

            query = bilingual.in_translation(self, edition or self.edition(lang=own).id, query)
        found = search.search(
            self,
            query,
            edition=edition,
            all_editions=all_editions,
            lang=lang,
            section=section,
            limit=limit,
            document=document,
        )
        if self.waits:  # ranked as the complete library ranks: by what its index holds of the
            self.every_edition(found.lang)  # words (not `browse`, as one types: from what is)
        if parallel:
            from crlookup import bilingual

            twins = bilingual.counterparts(self, found.hits, found.lang, parallel)
            import dataclasses

            found = dataclasses.replace(found, parallel=parallel, counterparts=twins)
        return found

    @_healing
    def define(self, term: str, lang: str | None = None, edition: str | None = None) -> Definitions:
        """A glossary term, or the rule of a keyword (`crlookup define`); a translation's
        glossary is also searched through the English names of its terms."""
        from crlookup.features import definitions

        edition = self.edition_id(edition, lang)
        found = definitions.lookup(self, term, lang, edition)
        if not found.found and self.edition(found.edition).lang != "en":
            import dataclasses

            from crlookup import bilingual
            from crlookup.core.model import fold

            # an English term: the glossary entry of the translation's term for it (define
            # deathtouch --lang zh: 死触), else its rule in the translation
            named = bilingual.terms(self, found.edition).translated.get(fold(term))
            by_name = definitions.lookup(self, named, None, found.edition) if named else None
            if by_name and any(d.entry for d in by_name.found):
                found = dataclasses.replace(found, found=by_name.found)
            else:
                carried = bilingual.definitions_through_english(self, found.edition, term)
                found = dataclasses.replace(found, found=tuple(carried))
        if not found.found:
            raise definitions.not_found(found)
        return found

    @_healing
    def diff(
        self, old: str, new: str, section: str | None = None, words: bool = True
    ) -> EditionDiff:
        """What changed from edition `old` to `new` (`crlookup diff`)."""
        from crlookup.features import diff

        return diff.diff(self, self.edition(old).id, self.edition(new).id, section, words)

    @_healing
    def history(self, number: str, edition: str | None = None) -> History:
        """Rule `number` through every edition of its language (`crlookup history`)."""
        from crlookup.features import history

        return history.history(self, number, edition)

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
        from crlookup.features import ask

        own = ask.detect_lang(question)
        target = self.edition(edition, lang=lang or own)
        searched = target if target.lang == own else self.edition(lang=own)
        if own in ask.THROUGH_ENGLISH:
            asked = self._ask_in_english(question, searched.id, target.id, limit)
        else:
            asked = ask.ask(self, question, searched.id, limit)
            if searched.id != target.id and asked.searched == searched.id:  # not another doc's
                asked = asked._replace(answers=self._carry(asked.answers, target.id))
        if parallel:
            asked = asked._replace(beside=self._beside(asked.answers, parallel))
        return asked

    def _beside(self, answers: list, lang: str) -> tuple:
        """Each answer's counterpart in language `lang` ((edition, Rule), or None), from the
        edition of that language nearest in date (the same date where there is one)."""
        from crlookup import bilingual

        self.edition(lang=lang)  # NotFound if the library has no edition in that language
        out = []
        for a in answers:
            found = None
            if self.edition(a.edition).document == "cr":
                found = bilingual.counterpart_edition(self, a.edition, a.number, lang)
            rule = self.get(*found) if found else None
            out.append((found[0], rule) if found and rule else None)
        return tuple(out)

    def _ask_in_english(self, question: str, searched: str, target: str, limit: int) -> Asked:
        """A question in a language `ask` reads through English (`THROUGH_ENGLISH`): read in
        the English terms of the rules (crlookup.bilingual.read_in_english), answered from
        the English original of edition `searched` (the translation of the question's
        language) with the model reading the question as asked, and carried to `target`."""
        from crlookup import bilingual
        from crlookup.features import ask

        twin = bilingual.english_twin(self, searched)
        if twin is None:
            raise NotFound(
                _("no English edition of the date of {edition} to read the question with").format(
                    edition=searched
                )
            )
        english, read = bilingual.read_in_english(self, searched, question)
        asked = ask.ask(self, english, twin, limit, asked_as=question)
        asked = asked._replace(read_as=(*read, *asked.read_as))
        if asked.searched == twin and target != twin:
            asked = asked._replace(answers=self._carry(asked.answers, target))
        return asked

    def _carry(self, answers: list, target: str) -> list:
        """`ask`'s answers as the counterpart rules of edition `target` (kept as they are,
        saying so, where there is none)."""
        from crlookup import bilingual
        from crlookup.core.i18n import _
        from crlookup.features.ask import title
        from crlookup.features.ask.records import Answer

        out = []
        for a in answers:
            number = bilingual.carried(self, a.edition, a.number, target)
            rule = self.get(target, number) if number else None
            if rule is None:
                missing = _("no counterpart in {edition}").format(edition=target)
                out.append(a._replace(why=(*a.why, missing)))
                continue
            note = _("the counterpart of {edition} {number}").format(
                edition=a.edition, number=a.number
            )
            why = (*a.why, note)
            out.append(
                Answer(target, rule.number, title(self, target, rule), rule.text, a.score, why)
            )
        return out

    @_healing
    def card(self, name: str, edition: str | None = None, lang: str | None = None) -> CardLookup:
        """A card's Oracle text and the rules behind it (`crlookup card`)."""
        from crlookup.features import card_rules

        return card_rules.lookup(self, name, edition, lang)

    @_healing
    def export(self, edition: str) -> list[dict]:
        """Every entry of an edition, then its glossary, as `crlookup export` writes them."""
        edition = self.edition(edition).id
        out = [r.to_dict(edition) for r in self.entries(edition)]
        return out + [g.to_dict(edition) for g in self.glossary(edition)]


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

    root = home or default_home()
    try:
        found = pipeline.open_library(root, progress)
    except LibraryDamaged as e:
        if not heal:
            raise
        if notice:
            notice(e.part, e.detail)
        found = _rebuilt(root, os.path.dirname(e.path), e.part, e.detail, progress)
    lib = Library(found.path, found.db, root, progress, notice, heals=heal)
    lib.stale = found.stale
    return lib
