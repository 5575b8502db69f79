"""crlookup as a library: what each command does, as a method that returns a result.

`crlookup.open()` returns a `Library`: the read side of a built library (crlookup.read: its
editions, entries, glossary and citations) with the commands on top. Every result has
`to_dict()`, which is exactly what the command prints with `--json`; the command line itself
(crlookup.cli) is these calls, then that JSON or a rich view of the same result.

Every feature is imported when its method is first called, so that opening the library stays
as fast as the command line needs it to be.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup import read

if TYPE_CHECKING:
    from crlookup.align import EditionDiff
    from crlookup.ask import Asked
    from crlookup.bilingual import Parallel
    from crlookup.build import Progress
    from crlookup.card_rules import CardLookup
    from crlookup.definitions import Definitions
    from crlookup.history import History
    from crlookup.index import Search
    from crlookup.refs import Citations


class Library(read.Library):
    """A built library with the commands as methods (`rule`, the read side's own, among them).

    Errors are those of crlookup.errors: `NotFound` (with the nearest that exist) and
    `BadInput` and its kinds, each with a one-line message.
    """

    def refs(self, number: str, edition: str | None = None, depth: int = 1) -> Citations:
        """What rule `number` cites and what cites it, up to `depth` steps (`crlookup refs`)."""
        from crlookup import refs

        edition, rule = self.entry(number, edition)
        return refs.citations(self, edition, rule.number, depth)

    def parallel(self, number: str, langs: tuple[str, str], edition: str | None = None) -> Parallel:
        """The rule and its subrules beside their counterparts (`crlookup rule --parallel`)."""
        from crlookup import bilingual

        return bilingual.parallel(self, number, langs, edition)

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
    ) -> Search:
        """Rules, examples and glossary entries for `query`, ranked (`crlookup search`)."""
        from crlookup import index

        return index.search(
            self,
            query,
            edition=edition,
            all_editions=all_editions,
            lang=lang,
            section=section,
            limit=limit,
            parallel=parallel,
        )

    def define(self, term: str, lang: str | None = None, edition: str | None = None) -> Definitions:
        """A glossary term, or the rule of a keyword (`crlookup define`)."""
        from crlookup import definitions

        return definitions.lookup(self, term, lang, edition)

    def diff(
        self, old: str, new: str, section: str | None = None, words: bool = True
    ) -> EditionDiff:
        """What changed from edition `old` to `new` (`crlookup diff`)."""
        from crlookup import align

        return align.diff(self, old, new, section, words)

    def history(self, number: str, edition: str | None = None) -> History:
        """Rule `number` through every edition of its language (`crlookup history`)."""
        from crlookup import history

        return history.history(self, number, edition)

    def ask(
        self,
        question: str,
        *,
        edition: str | None = None,
        lang: str | None = None,
        limit: int = 5,
        progress=None,
    ) -> Asked:
        """The rules that decide a rules question, best first, and why (`crlookup ask`)."""
        from crlookup import ask

        return ask.ask(self, question, edition=edition, lang=lang, limit=limit, progress=progress)

    def card(self, name: str, edition: str | None = None, lang: str | None = None) -> CardLookup:
        """A card's Oracle text and the rules behind it (`crlookup card`)."""
        from crlookup import card_rules

        return card_rules.lookup(self, name, edition, lang)


def open(home: str | None = None, progress: Progress | None = None, heal: bool = True) -> Library:
    """The library in `home` (by default `CRLOOKUP_HOME`, else the per-user cache), built
    first if it is missing or its sources changed, and rebuilt if its database is damaged
    (unless `heal` is false: then `LibraryDamaged`); `progress(done, total, label)` is told
    how the build goes."""
    from crlookup import build
    from crlookup.errors import LibraryDamaged

    try:
        found = build.open_library(home, progress)
    except LibraryDamaged:
        if not heal:
            raise
        found = build.rebuild(home, progress)
    return Library(found.path, found.db)
