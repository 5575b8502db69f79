"""The full-text index on the shipped editions: ranking, typos, phrases, operators, filters."""

from __future__ import annotations

import contextlib
import itertools
import time

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup.core.errors import SEARCH_SECONDS, QueryError, SearchTimedOut
from crlookup.library import index

pytestmark = pytest.mark.library  # the full library

NEWEST = ("en-2026-08-07",)


@pytest.fixture(scope="module")
def en(library):
    ix = index.Index(library.reader.index_path, "en")
    yield ix
    ix.close()


@pytest.fixture(scope="module")
def ru(library):
    ix = index.Index(library.reader.index_path, "ru")
    yield ix
    ix.close()


def numbers(results):
    return [h.number for h in results.hits]


def test_an_open_index_keeps_a_bounded_number_of_scopes(library, monkeypatch):
    """The documents in a search's scope are kept for the latest SCOPES_KEPT (editions, rule
    number) only: each number a query writes was one more set, kept as long as the index was
    open (a server's, all day: issue 53). One dropped and asked for again is the same."""
    monkeypatch.setattr(index, "SCOPES_KEPT", 4)
    ix = index.Index(library.reader.index_path, "en")
    try:
        first = numbers(ix.search("702.19 damage", editions=NEWEST))
        for n in range(1, 13):
            ix.search(f"702.{n} damage", editions=NEWEST)
            assert len(ix._scopes) <= 4
        assert numbers(ix.search("702.19 damage", editions=NEWEST)) == first
        assert first and all(n.startswith("702.19") for n in first)
    finally:
        ix.close()


def test_keyword_finds_its_rule(en):
    r = en.search("deathtouch", editions=NEWEST)
    assert "702.2" in numbers(r)[:3]
    assert all(h.edition == "en-2026-08-07" for h in r.hits)


def test_every_word_first_then_some(en):
    r = en.search("deathtouch trample", editions=NEWEST)
    assert r.complete >= 1 and r.relaxed
    first = r.hits[0]
    assert "deathtouch" in first.text.lower() and "trample" in first.text.lower()
    assert {"702.2", "702.19"} <= set(numbers(r))


@pytest.mark.parametrize("query", ["sacrifice", "phasing", "deathtuch trampel", "mana ability"])
def test_hits_of_equal_score_come_in_an_order_no_build_changes(en, query):
    """Issue 32: whoosh breaks ties by document number, which two index-writing processes make
    differ from build to build; ties go by number, title and text instead, whatever the limit."""
    found = en.search(query, limit=10)
    # those with every word, then those with some of them: each part by score, then tie key
    # (after the entries the query names: the rule, then the glossary term, titled so)
    named = [h for h in found.hits if h.title.casefold() == query.casefold()]
    assert found.hits[: len(named)] == named
    for part in (found.hits[len(named) : found.complete], found.hits[found.complete :]):
        for a, b in itertools.pairwise(part):
            assert (-a.found.score, index._tie_key(a.found)) < (
                -b.found.score,
                index._tie_key(b.found),
            )
    for limit in (1, 3, 6):
        assert numbers(en.search(query, limit=limit)) == numbers(en.search(query, limit=10))[:limit]


@pytest.mark.parametrize("words", ["paradigm gravestorm", "commander skulk", "meld tournament"])
def test_a_hit_for_some_words_scores_what_its_words_score_wherever_it_is(en, words):
    """Issue 32: the words' query gave a coordination bonus (whoosh's `scale`) that whoosh
    works out per segment of the index: in a segment without one of the words, every document
    scored 0, so that the best of them dropped out, in one build and not another (150 searches
    of two words, newest edition: 46 to 76 top tens differed between three libraries built
    from the same sources). A hit's score is now its words' scores added up."""
    from whoosh import query as q

    hits = en.search(words, editions=NEWEST, limit=10).hits
    assert hits and all(h.score > 0 for h in hits)
    searcher = en.searcher
    for hit in hits:
        alone = sum(
            r.score
            for word in en._parse(words, every_word=False).leaves()
            for r in searcher.search(q.Term("body", word.text), filter={hit.found.docnum})
        )
        assert hit.found.score == pytest.approx(alone)


def test_misspellings_are_corrected(en):
    r = en.search("deathtuch trampel", editions=NEWEST)
    assert r.corrections == [("deathtuch", "deathtouch"), ("trampel", "trample")]
    assert r.query == "deathtouch trample"
    assert "702.2" in numbers(r)


def test_phrase_keeps_stop_words(en):
    r = en.search('"damage to a player"', editions=NEWEST, limit=20)
    assert r.hits
    for h in r.hits:
        assert "damage to a player" in " ".join(h.text.lower().split()), h.number


def test_phrase_is_not_a_bag_of_words(en):
    phrase = en.search('"combat damage step"', editions=NEWEST, limit=50)
    words = en.search("combat damage step", editions=NEWEST, limit=50)
    for h in phrase.hits:
        assert "combat damage step" in (h.title + " " + h.text).lower()
    assert set(numbers(phrase)) != set(numbers(words))


def test_not_and_or(en):
    r = en.search("trample NOT planeswalker", editions=NEWEST, limit=30)
    assert r.hits and all("planeswalker" not in (h.title + h.text).lower() for h in r.hits)
    either = en.search("hexproof OR shroud", editions=NEWEST, limit=30)
    texts = [(h.title + h.text).lower() for h in either.hits]
    assert any("hexproof" in t for t in texts) and any("shroud" in t for t in texts)


def test_section_filter_and_number_in_query(en):
    r = en.search("damage", editions=NEWEST, prefix="702", limit=30)
    assert r.hits and all(n.startswith("702.") for n in numbers(r))
    r = en.search("702.19 damage", editions=NEWEST)
    assert r.hits and all(n == "702.19" or n.startswith("702.19") for n in numbers(r))
    assert all(n.startswith("702.19") for n in numbers(en.search("702.19", editions=NEWEST)))


def test_editions_scope(en):
    old = en.search('"deathtouch is a triggered ability"', editions=("en-2009-02-01",))
    assert "502.63a" in numbers(old) and all(h.edition == "en-2009-02-01" for h in old.hits)
    assert not en.search('"deathtouch is a triggered ability"', editions=NEWEST).hits
    every = en.search("grandeur", limit=50)
    assert {e for h in every.hits for e in h.editions} >= {"en-2009-02-01", "en-2009-07-11"}


def test_one_document_per_unchanged_text(en):
    r = en.search('"Deathtouch is a static ability"')
    [hit] = [h for h in r.hits if h.number == "702.2a"]
    assert set(hit.editions) >= {"en-2013-11-01", "en-2014-02-01", "en-2019-01-25", "en-2026-08-07"}


@pytest.mark.parametrize("word", ["существо", "существа", "существом", "существами"])
def test_russian_inflections(ru, word):
    r = ru.search(word, limit=50)
    assert "302.1" in numbers(r) or any(h.title == "Существо" for h in r.hits)


def test_russian_yo_folding(ru):
    assert numbers(ru.search("зелёное", limit=20)) == numbers(ru.search("зеленое", limit=20))


def test_russian_typo(ru):
    r = ru.search("пробывной удар")
    assert r.corrections == [("пробывной", "пробивной")]
    assert "702.19" in numbers(r)


def test_snippets_mark_matched_words(en):
    [hit, *_] = en.search("lifelink", editions=NEWEST).hits
    snippet = en.snippet(hit)
    assert "\x01lifelink\x02" in snippet.lower()


@pytest.mark.parametrize(
    "query",
    [
        '"unclosed',
        "((",
        "AND",
        "NOT",
        "***",
        "a",
        "the of",
        ")",
        "OR OR OR",
        "x" * 2000,
        "702.",
        "title:foo",
        "^2",
        "*",
        "-",
        '""',
        "[a TO z]",  # ranges (issue 47: a traceback)
        "x:[0 TO 9]",
        "{a TO}",
        "[* TO *]",
    ],
)
def test_odd_queries(en, query):
    started = time.monotonic()
    try:
        r = en.search(query, editions=NEWEST)
        assert isinstance(r.hits, list)
    except QueryError:
        pass
    # (a bare "*" searched every document for a minute and passed: issue 47)
    assert time.monotonic() - started < SEARCH_SECONDS + 5


def test_a_search_ends_at_its_deadline_with_one_line(en, monkeypatch):
    """The costliest query within the wildcards' limits (three of about a hundred words each,
    every edition) ran past 5 s; at the deadline it is stopped and said (issue 47: sixty of
    them took minutes)."""
    monkeypatch.setattr(index, "SEARCH_SECONDS", 0.2)
    started = time.monotonic()
    with pytest.raises(SearchTimedOut, match=r"more than 0\.2 s and was stopped: give fewer wild"):
        en.search("th* in* st*", limit=500)
    assert time.monotonic() - started < 3
    # one without wildcards is told what would make it quicker ("fewer wildcards": issue 53)
    monkeypatch.setattr(index, "SEARCH_SECONDS", 0)
    with pytest.raises(SearchTimedOut, match=r"stopped: give more words, a section \(--section"):
        en.search("damage player", limit=500)


def test_wildcards_standing_for_too_many_words_in_all_are_refused_before_the_search(en):
    many = "th* in* st* de* ma* pr* be* ca* un* mo* ch* sh* al* se* wh*"  # (each under 100)
    started = time.monotonic()
    with pytest.raises(QueryError, match="wildcards stand for more than 300 words in all"):
        en.search(many)
    assert time.monotonic() - started < 2
    # one at the limit is searched: "plan*" and the like
    assert en.search("plan*", editions=NEWEST).hits


@settings(max_examples=examples(60), deadline=None)
@given(st.text(max_size=40))
def test_any_text_searches_or_says_why(en, text):
    with contextlib.suppress(QueryError):
        en.search(text, editions=NEWEST)


# the query language's pieces: words, wildcards, fields, ranges, boosts, phrases, grouping
_PIECES = st.sampled_from([
    "trample", "deathtouch", "creature", "tra*", "de?th", "*", "?", "*e*", "AND", "OR", "NOT",
    "ANDNOT", "(", ")", '"', "[", "]", "{", "}", "TO", ":", "body:", "x:", "^2", "~", "~2", "-",
    "+", "702.19b", "a", "the", "blocking", "*ing",
])  # fmt: skip


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=8), st.sampled_from([" ", ""]))
def test_the_query_language_searches_or_says_why(en, pieces, between):
    """Any mix of the query language's operators is searched or refused in one line (a
    QueryError), never a traceback, and never for long: no query scores every document
    (issue 47: "[a TO z]" raised AttributeError; "*" ran a minute)."""
    import time

    start = time.monotonic()
    with contextlib.suppress(QueryError):
        en.search(between.join(pieces), editions=NEWEST)
    assert time.monotonic() - start < 10, between.join(pieces)  # (a bound, not a target)


def test_detect_lang():
    from crlookup.core.model import detect_lang

    assert detect_lang("существо") == "ru"
    assert detect_lang("trample") == "en"
    assert detect_lang("Can a Ёж block?") == "ru"


def test_search_leaves_out_what_whoosh_imports_and_never_calls(library):
    """A cold `search` imports neither urllib.request (for whoosh.compat) nor
    whoosh.lang.morph_en (for whoosh.query.terms), and both still work when called."""
    import subprocess
    import sys

    code = (
        "import sys; from crlookup.ui.cli import cli\n"
        "try: cli(['search', 'deathtouch', 'trample', '--json'])\n"
        "except SystemExit as e: assert e.code == 0, e.code\n"
        "assert 'whoosh.query' in sys.modules\n"
        "bad = [m for m in ('urllib.request', 'whoosh.lang.morph_en') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "import whoosh.query.terms, urllib.request\n"
        "assert 'rendering' in whoosh.query.terms.variations('render')\n"
        "assert 'whoosh.lang.morph_en' in sys.modules and urllib.request.urlopen\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
