"""`crlookup search`: the rules, examples and glossary entries of an edition (by default the
newest of the query's language; if it has nothing, the older ones) for a query, ranked, each
hit with its snippet (crlookup.library.index does the querying)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crlookup.core import numbers
from crlookup.core.documents import document_of
from crlookup.core.errors import BadInput
from crlookup.core.i18n import _
from crlookup.core.model import detect_lang
from crlookup.library.index import LANGS, Hit, Index, Results

if TYPE_CHECKING:
    from crlookup.library.reader import Library


@dataclass(frozen=True)
class Search:
    """A search as `crlookup search` makes it: the results, each hit's snippet (its matched
    words between \x01 and \x02), and, with `parallel`, each hit's counterpart in that
    language (by hit position)."""

    query: str
    lang: str
    results: Results
    snippets: tuple[str, ...]
    widened: str | None = None  # the edition that had nothing, when older ones were searched
    parallel: str | None = None
    counterparts: dict = field(default_factory=dict)
    list_editions: bool = False  # each hit's JSON lists its editions (else first, last, count)

    @property
    def hits(self) -> list[Hit]:
        return self.results.hits

    def to_dict(self) -> dict:
        found = self.results
        return {
            "query": self.query,
            "searched": found.query,
            "corrections": [list(c) for c in found.corrections],
            "relaxed": found.relaxed,
            "complete": found.complete,
            "widened": self.widened,
            "hits": [
                {
                    "document": document_of(h.edition),
                    "edition": h.edition,
                    "editions": list(h.editions) if self.list_editions else _span(h.editions),
                    "number": h.number or None,
                    "kind": h.kind,
                    "title": h.title,
                    "snippet": snippet.replace("\x01", "").replace("\x02", ""),
                    "score": h.score,
                    **({"parallel": self.counterparts.get(i)} if self.parallel else {}),
                }
                for i, (h, snippet) in enumerate(zip(found.hits, self.snippets))
            ],
        }


def _span(editions: tuple[str, ...]) -> dict:
    """The editions a hit reads so in, as a search's JSON gives them: first, last, count."""
    first, last = (editions[0], editions[-1]) if editions else (None, None)
    return {"first": first, "last": last, "count": len(editions)}


def search(
    lib: Library,
    query: str,
    *,
    edition: str | None = None,
    all_editions: bool = False,
    lang: str | None = None,
    section: str | None = None,
    limit: int = 10,
    document: str = "cr",
) -> Search:
    """Search the rules, examples and glossary entries of `edition`, or of every edition of the
    language (`all_editions`), or else of the newest edition of `lang` (by default the query's
    language, from its script; if that edition has nothing, the older ones). `section` keeps
    entries at or below that number. `document` searches a tournament document instead ("mtr",
    "ipg", "jar": its newest edition) or every document ("all"). (crlookup.api adds each hit's
    counterpart in another language, `search --parallel`.)"""
    if document != "cr" and not edition:
        return _documents(lib, query, document, lang, limit)
    prefix = str(numbers.parse(section)) if section else None
    scope: tuple[str, ...] | None
    if edition:
        info = lib.edition(edition)
        if lang and lang != info.lang:
            raise BadInput(
                _("--lang {lang} does not match edition {edition} ({edition_lang})").format(
                    lang=lang, edition=info.id, edition_lang=info.lang
                )
            )
        lang, scope = info.lang, (info.id,)
    else:
        lang = lang or detect_lang(query)
        scope = _every(lib, lang) if all_editions else (lib.edition(lang=lang).id,)
    from crlookup.features.shorthand import spelled_out

    ix = index(lib, lang)
    if prefix and lib.edition(scope[0]).document != "cr":
        prefix = None  # a tournament document's edition: no CR section to keep to
    words = spelled_out(query, "cr") or query  # a judge's shorthand alone ("ETB"): its words
    found = ix.search(words, editions=scope, prefix=prefix, limit=limit)
    widened = None
    if not found.hits and not edition and spelled_out(query, "tournament"):  # "FNM", "GRV"
        return _documents(lib, query, "all", lang, limit)
    if not found.hits and scope and not edition:
        found = ix.search(words, editions=_every(lib, lang), prefix=prefix, limit=limit)
        widened = scope[0] if found.hits else None
    return Search(query, lang, found, tuple(ix.snippet(h) for h in found.hits), widened)


def _every(lib: Library, lang: str) -> tuple[str, ...]:
    """Every CR edition of `lang` (not the tournament documents the same index holds)."""
    lib.every_edition()
    return tuple(e.id for e in lib.editions() if e.lang == lang)


def _documents(lib: Library, query: str, document: str, lang: str | None, limit: int) -> Search:
    """The newest English edition of a tournament document searched, or ("all") of every
    document, the CR's among them."""
    from crlookup.core.documents import DOCUMENTS

    if document != "all" and document not in DOCUMENTS:
        raise BadInput(
            _("--doc {document}: expected one of {names}").format(
                document=document, names=", ".join([*DOCUMENTS, "all"])
            )
        )
    wanted = [d for d in DOCUMENTS if document in ("all", d)]
    lang = lang or "en"
    scope = tuple(
        lib.edition(lang=lang, document=d).id
        for d in wanted
        if any(e.lang == lang for e in lib.editions(d))
    )
    if not scope:
        raise BadInput(_("no edition of {document} in {lang}").format(document=document, lang=lang))
    ix = index(lib, lang)
    from crlookup.features.shorthand import spelled_out

    # a judge's shorthand alone ("GRV") is searched as the documents' words for it
    found = ix.search(spelled_out(query, _whose(document)) or query, editions=scope, limit=limit)
    return Search(query, lang, found, tuple(ix.snippet(h) for h in found.hits))


def _whose(document: str) -> str | None:
    """Whose shorthand a search of `document` reads ("all": everyone's)."""
    return None if document == "all" else "cr" if document == "cr" else "tournament"


def index(lib: Library, lang: str) -> Index:
    """The open index of `lang`, once per open library (many searches: one opening)."""
    if lang not in LANGS:  # checked before the key is kept
        return Index(lib.index_path, lang)
    return lib.memo(("index", lang), lambda: Index(lib.index_path, lang))
