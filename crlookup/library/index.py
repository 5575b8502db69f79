"""The full-text index: schema, analyzers per language, building it, and querying it.

One whoosh index per language holds the rules, subrules, examples and glossary entries of
every edition. An entry whose content is the same in several editions (most rules, from one
update to the next) is one document, and each edition lists its documents beside the index
(`EDITION_DOCS`), which keeps the index small, its build fast, and adding an edition to it a
matter of that edition's new texts (`add`).

Analysis per language: English is stemmed (Porter2); Russian is stemmed (Snowball) with ё
folded to е; Polish is lowercased and accent-folded; Chinese is cut into overlapping pairs of
characters, each character also indexed (crlookup.core.chinese), Latin words in it
lowercased; a query is read as pairs. Stop words stay in the index, so a
phrase ("damage to a player") only matches those words in that order; they are dropped from
plain keyword queries instead.

`search` is `crlookup search`: a query over a built library, by default each rule once from
the newest edition of the query's language.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, NamedTuple

from crlookup.core.chinese import HAN, HAN_CHARS, pairs
from crlookup.core.errors import (
    MAX_WORDS,
    SEARCH_SECONDS,
    LibraryDamaged,
    NumberError,
    QueryError,
    SearchTimedOut,
)
from crlookup.core.i18n import _
from crlookup.core.model import fold
from crlookup.library.database import INDEX_DIR, recorded, verify

if TYPE_CHECKING:
    pass

LANGS = ("en", "ru", "pl", "zh")
VOCABULARY = "vocabulary.json"  # surface words and counts, for spelling correction
STOP_WORDS = "stopwords.json"  # the language's stop words, analysed
EDITION_DOCS = "editions.pickle"  # each edition's documents (sorted numbers): scopes and hits
KEYS = "keys.pickle"  # each document's number by its key (content digest): for adding editions
# a word of two letters or more; Chinese is not words but pairs (`_words`)
_WORD = re.compile(rf"[^\W\d_{HAN_CHARS}]{{2,}}", re.U)
_OPERATORS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}
MAX_EXPANSION = 100  # the words a wildcard may stand for ("plan*": 9 of them)
MAX_EXPANSIONS = 300  # the words a query's wildcards may stand for in all
NAMED = 20  # the entries a query may name (a rule and glossary terms in every edition searched)
_PLAIN = re.compile(r"[\w\s’'-]*", re.U)  # words only: no quotes, parentheses, wildcards


def _whoosh():
    """Import whoosh (with its query module, which every search needs), leaving out the
    modules of `_UNUSED`."""
    whoosh_compat(query=True)
    import whoosh.index

    return whoosh


# Modules whoosh 2.7.4 imports on start-up for one name that crlookup never calls: the module,
# that name, and who imports it.
_UNUSED = {
    "urllib.request": "urlretrieve",  # whoosh.compat; http, ssl, email with it: ~35 ms
    "whoosh.lang.morph_en": "variations",  # whoosh.query.terms, for Variations queries: ~11 ms
}


def whoosh_compat(query: bool = False) -> None:
    """Import whoosh.compat (which most of whoosh imports), and whoosh.query if `query`,
    without the modules of `_UNUSED`.

    While they are imported, each unused module is a stand-in whose one name imports the
    real module on its first call; the stand-ins are removed right after, so any other import
    of those modules gets the real ones.
    """
    wanted = ["whoosh.compat"] + (["whoosh.query"] if query else [])
    if all(name in sys.modules for name in wanted):
        return
    import importlib
    import types

    def deferred(module: str, name: str):
        def call(*args, **kwargs):
            return getattr(importlib.import_module(module), name)(*args, **kwargs)

        return call

    stand_ins = {}
    for module, name in _UNUSED.items():
        if module not in sys.modules:
            stand_ins[module] = types.ModuleType(module)
            setattr(stand_ins[module], name, deferred(module, name))
    sys.modules.update(stand_ins)
    try:
        for module in wanted:
            importlib.import_module(module)
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]


def analyzer(lang: str):
    _whoosh()
    from whoosh.analysis import CharsetFilter, LowercaseFilter, RegexTokenizer, StemFilter
    from whoosh.support.charset import accent_map

    tokens = RegexTokenizer() | LowercaseFilter()
    # stems are cached without bound (cachesize=-1, a plain dict): the rules have some 20,000
    # distinct words, and whoosh's bounded cache counts every use (~7% of the index build)
    if lang == "en":
        from whoosh.lang.porter2 import stem

        return tokens | StemFilter(stemfn=stem, cachesize=-1)
    if lang == "ru":
        return tokens | CharsetFilter({ord("ё"): "е"}) | StemFilter(lang="ru", cachesize=-1)
    if lang == "zh":
        return _pairs_tokenizer() | LowercaseFilter()
    return tokens | CharsetFilter(accent_map)


def _pairs_tokenizer():
    """The Chinese tokenizer (`PairsTokenizer`, made on first use: it subclasses whoosh's)."""
    return __getattr__("PairsTokenizer")()


def __getattr__(name: str):
    """`PairsTokenizer`, made when first asked for: a whoosh tokenizer of
    crlookup.core.chinese's tokens (a Chinese run's overlapping pairs of characters and, as
    the index is written, each character; a query is read as pairs; every other word whole,
    with positions, so a quoted Chinese phrase matches its pairs in order).
    It is a name of this module, as whoosh's stored schema (pickled) finds it again."""
    if name != "PairsTokenizer":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _whoosh()
    from whoosh.analysis import Token, Tokenizer

    from crlookup.core.chinese import tokens

    class PairsTokenizer(Tokenizer):
        def __call__(
            self,
            value,
            positions=False,
            chars=False,
            keeporiginal=False,
            removestops=True,
            start_pos=0,
            start_char=0,
            tokenize=True,
            mode="",
            **kwargs,
        ):
            t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
            if not tokenize:
                t.original = t.text = value
                t.boost = 1.0
                if positions:
                    t.pos = start_pos
                if chars:
                    t.startchar, t.endchar = start_char, start_char + len(value)
                yield t
                return
            for text, pos, start, end in tokens(value, characters=mode != "query"):
                t.text = text
                t.boost = 1.0
                t.stopped = False
                if keeporiginal:
                    t.original = text
                if positions:
                    t.pos = start_pos + pos
                if chars:
                    t.startchar, t.endchar = start_char + start, start_char + end
                yield t

    PairsTokenizer.__module__ = __name__
    PairsTokenizer.__qualname__ = "PairsTokenizer"
    globals()["PairsTokenizer"] = PairsTokenizer
    return PairsTokenizer


def schema(lang: str):
    """One index per language: its text fields use that language's analyzer."""
    _whoosh()
    from whoosh.fields import ID, KEYWORD, STORED, TEXT, Schema

    a = analyzer(lang)
    return Schema(
        key=ID(unique=True, stored=True),
        kind=ID(stored=True),
        number=ID(stored=True),
        under=KEYWORD(commas=True),  # the scopes it is in: scopes_of(number)
        title=STORED,
        name=KEYWORD(commas=True),  # the title or the headwords, folded: found whole
        body=TEXT(analyzer=a),  # the title, then the text and examples: one field to match
        text=STORED,
    )


# --------------------------------------------------------------------------- building


def _load(folder: str, name: str, default):
    import pickle

    try:
        with open(os.path.join(folder, name), "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return default


def _load_json(folder: str, name: str, default):
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return default


# --------------------------------------------------------------------------- searching


def _word_count(query: str) -> int:
    """The words of a query as the limit counts them: each Chinese character is one (a run of
    them is searched as its pairs, not a word: 1,000 of them were refused as "too deeply
    nested" after the search had begun)."""
    from crlookup.core.chinese import words

    return len(words(query))


class Hit(NamedTuple):
    number: str
    kind: str
    lang: str
    edition: str  # the newest edition in scope that has this text
    editions: tuple[str, ...]  # every edition with exactly this text
    title: str
    text: str
    score: float
    found: Any  # whoosh's hit (whoosh is untyped), for `Index.snippet`


class Results(NamedTuple):
    hits: list[Hit]
    query: str  # the query as searched (after spelling corrections)
    corrections: list[tuple[str, str]]  # (typed, searched instead)
    relaxed: bool  # after the entries with every word (if any), entries with some of them
    complete: int  # how many of the hits have every word


SCOPES_KEPT = 256  # an open index's sets of the documents in a search's scope


class Index:
    """The open index of one language, for many queries in one process."""

    def __init__(self, directory: str, lang: str):
        _whoosh()
        if lang not in LANGS:
            raise QueryError(f"no index for language {lang!r} (there are: {', '.join(LANGS)})")
        self.lang = lang
        self.folder = os.path.join(directory, lang)
        library = os.path.dirname(os.path.abspath(directory))
        verify(library, recorded(library, f"{INDEX_DIR}/{lang}"))  # as the build left them
        try:
            # each file read as it is needed: whoosh's mmap path copies every part of a segment
            # it opens into memory whole (BytesIO of a memoryview), ~20 ms per English search
            from whoosh.filedb.filestore import FileStorage

            self.ix = FileStorage(self.folder, supports_mmap=False).open_index()
            self.searcher = self.ix.searcher()
        except Exception as e:  # noqa: BLE001 (a damaged index fails in whatever way whoosh reads it)
            raise self._damaged(e) from None
        self._vocab: dict[str, int] | None = None
        self._stop: frozenset[str] | None = None
        # the documents in scope of the last SCOPES_KEPT (editions, prefix) searched (a
        # prefix is any number a query writes: kept without bound, a server's grew all day)
        self._scopes: OrderedDict[tuple, set[int] | None] = OrderedDict()
        self._edition_docs: dict | None = None

    def close(self) -> None:
        self.searcher.close()

    def check(self) -> None:
        """Read every term of the index and a few stored texts: `LibraryDamaged` if whoosh
        cannot (crlookup.doctor runs this for each language)."""
        try:
            reader = self.searcher.reader()
            terms = sum(1 for _ in reader.all_terms())
            stored = [fields for _n, fields in zip(range(20), reader.iter_docs())]
        except Exception as e:  # noqa: BLE001 (a damaged index fails in whatever way whoosh reads it)
            raise self._damaged(e) from None
        if not terms or not stored:
            raise self._damaged(ValueError("no documents"))

    def _damaged(self, e: Exception) -> LibraryDamaged:
        what = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        part = f"{INDEX_DIR}/{self.lang}"
        return LibraryDamaged(part, self.folder, what)

    @property
    def stop_words(self) -> frozenset[str]:
        """The language's stop words as index terms (analysed once, when the index was built)."""
        if self._stop is None:
            with open(os.path.join(self.folder, STOP_WORDS), encoding="utf-8") as f:
                self._stop = frozenset(json.load(f))
        return self._stop

    @property
    def vocabulary(self) -> dict[str, int]:
        """Every word of the indexed text (folded) with how often it occurs."""
        if self._vocab is None:
            with open(os.path.join(self.folder, VOCABULARY), encoding="utf-8") as f:
                self._vocab = json.load(f)
        return self._vocab

    def correct(self, query: str, until: float | None = None) -> tuple[str, list[tuple[str, str]]]:
        """Replace words the editions never use by the nearest word they do (crlookup.spelling);
        SearchTimedOut once time.monotonic() passes `until`."""
        corrections = []
        reader = self.searcher.reader()
        analyze = self.ix.schema["body"].analyzer

        def known(word: str) -> bool:
            terms = [t.text for t in analyze(word)]
            return all(reader.doc_frequency("body", t) for t in terms)

        def fix(m: re.Match) -> str:
            word = m.group(0)
            folded = fold(word)
            wildcard = (m.end() < len(query) and query[m.end()] in "*?") or (
                m.start() > 0 and query[m.start() - 1] in "*?"
            )
            if word in _OPERATORS or len(folded) < 4 or wildcard or known(word):
                return word
            if until is not None and time.monotonic() > until:
                raise timed_out(SEARCH_SECONDS, query)
            vocab = self.vocabulary
            if folded in vocab:
                return word
            from crlookup.core.spelling import nearest

            best = nearest(folded, vocab, 75)
            if best is None:
                return word
            corrections.append((word, best))
            return best

        return _WORD.sub(fix, query), corrections

    def search(
        self,
        query: str,
        *,
        editions: tuple[str, ...] | None = None,
        prefix: str | None = None,
        limit: int = 10,
    ) -> Results:
        """Ranked hits for `query` among entries in `editions` (all if None).

        `prefix` keeps entries at or below a number ("702", "702.19"); a number written in
        the query does the same. Words the editions never use are corrected. When fewer than
        `limit` entries have every word of a plain query (no operators, no phrase), entries
        with some of them follow (`relaxed`).
        """
        from crlookup.core.numbers import WRITTEN, read_lookalikes

        query = read_lookalikes(query)
        if _word_count(query) > MAX_WORDS:  # (a Chinese character is a word: issue 47)
            raise QueryError(
                f"a query of at most {MAX_WORDS} words (a Chinese character is one), please"
            )
        numbers = WRITTEN.findall(query)
        text = WRITTEN.sub(" ", query).strip()
        if numbers and not prefix:
            prefix = numbers[0]
        # one deadline for the whole of it: corrections, scope and matching (issue 53: the
        # scope of a user's edition of 400,000 rules took a minute before the matching began)
        until = time.monotonic() + SEARCH_SECONDS
        text, corrections = self.correct(text, until) if text else ("", [])
        allowed = self._documents(editions, prefix, until, text)
        if allowed is not None and not allowed:  # nothing in scope (whoosh reads {} as no filter)
            return Results([], text or query, corrections, False, 0)

        def run(parsed, limit: int, optimize: bool = True):
            found = _until(
                self.searcher.collector(limit=limit, terms=True, optimize=optimize), until, text
            )
            if allowed is not None:  # (outermost, as whoosh wraps it: it sees the documents first)
                from whoosh.collectors import FilterCollector

                found = FilterCollector(found, allowed, None)
            try:
                self.searcher.search_with_collector(parsed, found)
                return found.results()
            except SearchTimedOut:
                raise
            except RecursionError:
                raise QueryError(f"the query is too deeply nested: {text[:60]!r}") from None
            except Exception as e:
                if optimize and isinstance(e, (IndexError, ValueError, AssertionError)):
                    # whoosh's block-quality skipping trips over some query shapes; the plain
                    # collector gives the same ranking, only slower
                    return run(parsed, limit, optimize=False)
                if optimize:
                    raise
                self.check()  # unless the index itself is damaged
                raise QueryError(f"cannot search for {text!r}: {e}") from None

        def ranked(parsed, limit: int) -> list:
            """The best `limit` hits, those of equal score in an order no build changes:
            whoosh orders them by document number, which differs from build to build (two
            processes write the index), so more are asked for while the last ties."""
            ask = limit * 2
            while True:
                # (a comprehension, not list(): list() asks whoosh for len(), which counts
                # every match)
                hits = [h for h in run(parsed, ask)]  # noqa: C416
                if len(hits) < ask or hits[min(limit, len(hits)) - 1].score != hits[-1].score:
                    break
                ask *= 2
            hits.sort(key=lambda h: (-h.score, _tie_key(h)))
            return hits[:limit]

        relaxed = False
        if text:
            named = self._named(text, allowed)
            found = ranked(self._parse(text, every_word=True), limit + len(named))
            # a named entry as the words found it (its score, its snippet's marks), if they did
            by_words = {h.docnum: h for h in found}
            named = [by_words.get(h.docnum, h) for h in named]
            seen = {h.docnum for h in named}
            found = (named + [h for h in found if h.docnum not in seen])[:limit]
            complete = len(found)
            plain = not (_OPERATORS & set(text.split()) or '"' in text)
            if len(found) < limit and plain and _words(text) > 1:
                # fewer than asked for have every word: follow them with those having some
                more = ranked(self._parse(text, every_word=False), limit + len(found))
                seen = {h.docnum for h in found}
                extra = [h for h in more if h.docnum not in seen][: limit - len(found)]
                relaxed = bool(extra)
                found += extra
        else:
            if not prefix:
                return Results([], query, corrections, False, 0)
            listing = self.searcher.search(
                _at_or_below(prefix), filter=allowed, limit=limit, sortedby="number"
            )
            found = list(listing)
            complete = len(found)
        hits = [self._hit(h, editions) for h in found]
        return Results(hits, text or query, corrections, relaxed, complete)

    def _named(self, text: str, allowed: set[int] | None) -> list:
        """The entries in scope that the query names (a rule or section titled so, then a
        glossary term it is a headword of: "trample" is 702.19 Trample, then the glossary's
        Trample), which the ranked hits follow."""
        from whoosh import query as q

        name = fold(text)
        if "," in name or not name:
            return []
        hits = self.searcher.search(q.Term("name", name), filter=allowed, limit=NAMED)
        return sorted(hits, key=lambda h: (h.fields().get("kind") == "glossary", _tie_key(h)))

    def _documents(
        self,
        editions: tuple[str, ...] | None,
        prefix: str | None,
        until: float = float("inf"),
        query: str = "",
    ) -> set[int] | None:
        """The documents in scope, as a filter set for whoosh; None for the whole index.

        Editions' documents were listed when the index was built; numbers are looked up
        once per open index (their scope is a term of each document: scopes_of), within the
        search's deadline, `until` (SearchTimedOut past it, for `query`). (A filter query
        would make whoosh count every document in scope on every search; joining the scope to
        the query costs more per query.)
        """
        key = (editions, prefix)
        if key in self._scopes:
            self._scopes.move_to_end(key)
            return self._scopes[key]
        docs = None
        if editions:
            docs = set().union(*(self.edition_docs.get(e, ()) for e in editions))
        if prefix:
            under = set()
            for n, docnum in enumerate(_at_or_below(prefix).docs(self.searcher)):
                if not n % 1000 and time.monotonic() > until:
                    raise timed_out(SEARCH_SECONDS, query)
                under.add(docnum)
            docs = under if docs is None else docs & under
        self._scopes[key] = docs
        if len(self._scopes) > SCOPES_KEPT:
            self._scopes.popitem(last=False)  # the least recently searched
        return docs

    def _parse(self, text: str, every_word: bool):
        """The whoosh query for `text`: all its words (AND) or any of them (OR).

        Plain words become term queries directly; anything with syntax (quotes, operators,
        parentheses, wildcards) goes through whoosh's query parser. Stop words are dropped
        from plain terms, never from phrases.
        """
        from whoosh import query as q

        stop = self.stop_words
        if _PLAIN.fullmatch(text) and not (_OPERATORS & set(text.split())):
            analyze = self.ix.schema["body"].analyzer
            terms = [t.text for t in analyze(text, mode="query")]
            kept = [q.Term("body", t) for t in terms if t not in stop] or [
                q.Term("body", t) for t in terms
            ]
            if not kept:
                return q.NullQuery
            # (no coordination bonus, `scale`: whoosh counts the words each segment of the
            # index has, and in one that lacks a word every document scored 0)
            return q.And(kept) if every_word else q.Or(kept)
        from whoosh import qparser

        group = qparser.AndGroup if every_word else qparser.OrGroup
        parser = qparser.QueryParser("body", self.ix.schema, group=group)
        parser.remove_plugin_class(qparser.FieldsPlugin)  # "word:" is text, not a field name
        parser.remove_plugin_class(qparser.BoostPlugin)
        # "[a TO z]", "{a TO}": a range of words is no way to ask the rules anything (it gave
        # a traceback, issue 47): its brackets and "TO" are read as text
        parser.remove_plugin_class(qparser.RangePlugin)
        try:
            parsed = parser.parse(text)
        except Exception as e:  # noqa: BLE001 (whoosh raises assorted errors on odd syntax)
            raise QueryError(f"cannot read the query {text!r}: {e}") from None

        def drop_stop_words(node):
            if isinstance(node, q.Term) and node.text in stop:
                return q.NullQuery
            return node

        cleaned = parsed.accept(drop_stop_words).normalize()
        found = parsed if cleaned is q.NullQuery else cleaned
        self._check_expansion(found)
        return found

    def _check_expansion(self, query) -> None:
        """QueryError for a wildcard that stands for more than MAX_EXPANSION words of the index
        ("*e*": 2,016 of them, and 4 s to search; "sacrific*" stands for one; "*" alone, every
        word: it scored every document for a minute), or wildcards that stand for more than
        MAX_EXPANSIONS in all (sixty of a hundred each took minutes to build their matcher,
        before a deadline can stop it: issue 47)."""
        from itertools import islice

        from whoosh.query import Every, MultiTerm, Prefix

        reader = self.searcher.reader()
        total = 0
        for node in query.leaves():
            if isinstance(node, Every):  # a wildcard alone ("*"): it stands for every word
                count, pattern = MAX_EXPANSION + 1, "*"
            elif isinstance(node, MultiTerm):
                count = sum(1 for _ in islice(node._btexts(reader), MAX_EXPANSION + 1))
                pattern = getattr(node, "text", str(node)) + "*" * isinstance(node, Prefix)
            else:
                continue
            if count > MAX_EXPANSION:
                raise QueryError(
                    _(
                        "{pattern!r} stands for more than {count} words: a wildcard may "
                        "stand for at most {count}; give more letters"
                    ).format(pattern=pattern, count=MAX_EXPANSION)
                )
            total += count
            if total > MAX_EXPANSIONS:
                raise QueryError(
                    _(
                        "the query's wildcards stand for more than {count} words in all: "
                        "give fewer, or more letters"
                    ).format(count=MAX_EXPANSIONS)
                )

    def _editions_of(self, docnum: int) -> tuple[str, ...]:
        """The editions a document is in, oldest first."""
        from bisect import bisect_left

        found = []
        for edition, docs in self.edition_docs.items():
            i = bisect_left(docs, docnum)
            if i < len(docs) and docs[i] == docnum:
                found.append(edition)
        return tuple(found)

    @property
    def edition_docs(self) -> dict:
        if self._edition_docs is None:
            self._edition_docs = _load(self.folder, EDITION_DOCS, {})
        return self._edition_docs

    def _hit(self, hit, scope: tuple[str, ...] | None) -> Hit:
        stored = hit.fields()
        all_editions = self._editions_of(hit.docnum)
        in_scope = [e for e in all_editions if not scope or e in scope] or list(all_editions)
        return Hit(
            number=stored.get("number", ""),
            kind=stored.get("kind", ""),
            lang=self.lang,
            edition=in_scope[-1],
            editions=all_editions,
            title=stored.get("title", ""),
            text=stored.get("text", ""),
            score=round(hit.score or 0.0, 3),
            found=hit,
        )

    def snippet(self, hit: Hit) -> str:
        """The hit's text around the matched words, which are set between \x01 and \x02."""
        from whoosh import highlight

        text, found = hit.text, hit.found
        snippet = ""
        if found.results.has_matched_terms() and found.matched_terms():
            hl = highlight.Highlighter(
                fragmenter=highlight.ContextFragmenter(maxchars=300, surround=70),
                formatter=_Markers(),
                scorer=_earlier_on_ties,
            )
            snippet = hl.highlight_hit(found, "body", text=text, top=2, minscore=0.5) or ""
        return snippet or text[:200] + ("…" if len(text) > 200 else "")


def timed_out(seconds: float, query: str, cards: bool = False) -> SearchTimedOut:
    """What a search of `query` stopped at its deadline says (the rules' here, the cards' too):
    what would make it quicker (it said "fewer wildcards" of a query that had none: issue 53)."""
    if "*" in query or "?" in query:
        advice = _("give fewer wildcards, or longer ones")
    elif cards:
        advice = _("give more words")
    else:
        advice = _("give more words, a section (--section) or an edition")
    return SearchTimedOut(
        _("the search took more than {seconds:g} s and was stopped: {advice}").format(
            seconds=seconds, advice=advice
        )
    )


def _until(collector, until: float, query: str):
    """`collector`, stopped (SearchTimedOut, for `query`) once time.monotonic() passes `until`:
    checked at each document the query matches, filtered out or not (whoosh's
    TimeLimitCollector starts a thread per search, and with it an alarm signal that only the
    main thread may set)."""
    return _until_class()(collector, until, query)


@functools.cache
def _until_class():
    from whoosh.collectors import WrappingCollector

    class Until(WrappingCollector):
        def __init__(self, child, until: float, query: str):
            super().__init__(child)
            self.until, self.query = until, query

        def matches(self):
            clock, until = time.monotonic, self.until
            for docnum in self.child.matches():
                if clock() > until:
                    raise timed_out(SEARCH_SECONDS, self.query)
                yield docnum

    return Until


def _words(text: str) -> int:
    """How many words a query has: its words of letters, and a Chinese run's pairs."""
    return len(_WORD.findall(text)) + sum(len(pairs(r)) for r in HAN.findall(text))


def _earlier_on_ties(fragment) -> float:
    """A fragment's score (its matched words, as whoosh's own scorer counts them), the earlier
    in the text first among equals: whoosh orders fragments of equal score by the addresses of
    their objects in memory (`Fragment.__lt__`), so that a snippet changed from run to run."""
    from whoosh import highlight

    return highlight.BasicFragmentScorer()(fragment) - fragment.startchar / 1e9


def _tie_key(hit) -> tuple:
    """What orders hits of equal score: the entry's number in its document's order, then
    its title and text's key (a digest of the text: the same in every build)."""
    from crlookup.core.numbers import sort_key

    stored = hit.fields()
    number = stored.get("number", "")
    try:  # the CR's numbers in its order; a tournament document's ("2.1") after, as text
        order: tuple = (0, sort_key(number)) if number else (0, ())
    except NumberError:
        order = (1, number)
    return (order, stored.get("title", ""), stored.get("key", ""))


def scopes_of(number: str) -> list[str]:
    """The numbers an entry is at or below, as a search is scoped to one (each an indexed term
    of its document, `under`): itself, its rule (702.19 of 702.19b; not 702.1), its section
    (702) and its chapter (7). A scope had been a query over the numbers that begin so: 400,000
    of them in a user's edition, a minute's work outside the search's deadline (issue 53)."""
    if not number:
        return []
    found = [number, number[0], number.split(".")[0]]
    rule = _RULE_OF.match(number)
    if rule:
        found.append(rule.group(1))
    return list(dict.fromkeys(found))


_RULE_OF = re.compile(r"^([^.]+\.\d+)[a-z]*$")  # a rule, and its subrules' letters


def _at_or_below(number: str):
    """Entries numbered `number` or below it: 7 -> 7xx; 702 -> 702.x; 702.19 -> 702.19a...
    (one term: scopes_of)."""
    from whoosh import query as q

    return q.Term("under", number)


class _Markers:
    """A whoosh highlight formatter that marks matched words with \\x01...\\x02."""

    def __call__(self, text, fragments):
        return self.format(fragments)

    def format(self, fragments, replace=False):
        out = []
        for fragment in sorted(fragments, key=lambda f: f.startchar):
            text, pos, parts = fragment.text, fragment.startchar, []
            for t in fragment.matches:
                if t.startchar < pos:
                    continue
                parts.append(text[pos : t.startchar])
                parts.append("\x01" + text[t.startchar : t.endchar] + "\x02")
                pos = t.endchar
            parts.append(text[pos : fragment.endchar])
            piece = "".join(parts).strip()
            if fragment.startchar > 0:
                piece = "…" + piece
            if fragment.endchar < len(text.rstrip()):
                piece += "…"
            out.append(piece)
        return " ".join(out).replace("……", "… …")
