"""The tournament documents' numbers and references (crlookup.core.documents)."""

from __future__ import annotations

import contextlib
from datetime import date

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from crlookup.core import documents
from crlookup.core.errors import NumberError
from crlookup.core.model import Edition, Rule, Source, edition_id


@pytest.mark.parametrize(
    "text, want",
    [
        ("IPG 2.1", ("ipg", "2.1")),
        ("ipg 2.1", ("ipg", "2.1")),
        ("MTR 3.1", ("mtr", "3.1")),
        ("MTR C", ("mtr", "C")),
        ("mtr appendix c", ("mtr", "c")),
        ("CR 702.19b", ("cr", "702.19b")),
        ("Comprehensive Rules 100.1", ("cr", "100.1")),
        ("JAR extra cards", ("jar", "extra cards")),
        ("702.19b", (None, "702.19b")),
        ("IPG", (None, "IPG")),  # a document without a number is not a number of it
        ("CRAB 1", (None, "CRAB 1")),
        # a CR number as judges also write it (issue 46): the word for it, a letter apart
        ("rule 702.2c", (None, "702.2c")),
        ("Rules 601.2b", (None, "601.2b")),
        ("702.19 b", (None, "702.19b")),
        ("CR 702.19 B", ("cr", "702.19b")),
        ("rule of law", (None, "rule of law")),
        ("702 blocking", (None, "702 blocking")),
    ],
)
def test_split_reads_a_number_as_judges_write_it(text, want):
    assert documents.split(text) == want


@pytest.mark.parametrize(
    "text, want",
    [("2.1", "2.1"), ("2.1.", "2.1"), ("02.01", "2.1"), ("3", "3"), ("C", "C"), ("c", "C"),
     ("appendix c", "C"), ("10.4", "10.4")],
)  # fmt: skip
def test_number_canonical_form(text, want):
    assert documents.number(text) == want
    assert documents.is_number(text)


@pytest.mark.parametrize("text", ["", "2.1.1", "702.19b", "Z", "x.1", "appendix", "1a"])
def test_number_refuses_what_is_not_one(text):
    with pytest.raises(NumberError):
        documents.number(text)
    assert not documents.is_number(text)


def test_edition_ids_name_the_document():
    day = date(2024, 9, 23)
    assert edition_id("en", day) == "en-2024-09-23"
    assert edition_id("en", day, "ipg") == "ipg-2024-09-23"
    assert edition_id("zh", day, "mtr") == "mtr-zh-2024-09-23"
    for doc in documents.TOURNAMENT:
        assert documents.document_of(edition_id("en", day, doc)) == doc
    assert documents.document_of("en-2024-09-23") == "cr"
    assert documents.document_of("ru-2019-01-25") == "cr"


def test_order_sorts_numerically_and_by_document():
    cited = ["10.1", "2.12", "2", "C", "A", "2.2", "CR 603.3b", "MTR 2.12", "forgets-trigger"]
    assert documents.order(cited) == [
        "2", "2.2", "2.12", "10.1", "A", "C", "forgets-trigger", "CR 603.3b", "MTR 2.12",
    ]  # fmt: skip
    # CR numbers alone keep the CR's own order (chapters before their sections)
    assert documents.order(["702.10", "702.9", "7", "100.1"]) == ["100.1", "7", "702.9", "702.10"]


@given(st.lists(st.tuples(st.integers(1, 12), st.integers(0, 30)), min_size=1, max_size=30))
def test_sort_key_is_numeric(pairs):
    """Tournament numbers sort as numbers, whatever their order as strings: a section before
    its entries, 2.9 before 2.10, 9 before 10."""
    cited = [f"{a}.{b}" if b else str(a) for a, b in pairs]
    keyed = sorted(set(cited), key=documents.sort_key)
    assert keyed == sorted(
        set(cited), key=lambda n: tuple(int(x) for x in (n + ".-1").split(".")[:2])
    )


@given(st.text(max_size=60))
@example("İPG 2.1")  # matched "IPG" case-insensitively, but is no name of a document
@example("Tournament Ruleſ 2.1")  # "ſ" is an "s" to Unicode case folding, not here
def test_split_and_number_never_raise_anything_else(text):
    doc, rest = documents.split(text)
    assert doc in (None, *documents.DOCUMENTS)
    with contextlib.suppress(NumberError):
        documents.number(rest)
    documents.sort_key(text)


@pytest.mark.parametrize(
    "text, document, want",
    [
        ("see MTR 2.12", "ipg", ["MTR 2.12"]),
        ("see MTR 2.12", "mtr", ["2.12"]),
        ("as in section 3.2.", "mtr", ["3.2"]),
        ("Comprehensive Rules, rule 103.4c", "mtr", ["CR 103.4c"]),
        ("CR 603.3b applies", "ipg", ["CR 603.3b"]),
        ("rule 704 applies", "mtr", ["CR 704"]),
        ("(see Appendix C)", "mtr", ["C"]),
        ("like 510.1c.", "ipg", ["CR 510.1c"]),
        ("IPG 2.1 and MTR section 4.3", "jar", ["IPG 2.1", "MTR 4.3"]),
        ("no reference, 2 players, 60 cards", "mtr", []),
    ],
)
def test_references_in_a_tournament_text(text, document, want):
    assert [r.first for r in documents.find(text, document)] == want


def test_link_resolves_own_numbers_and_keeps_other_documents():
    rules = (
        Rule("2", "section", "", Source("f", 1), title="Tournament Mechanics"),
        Rule("2.12", "rule", "Phones (see section 2.11 and 9.9).", Source("f", 2), title="Devices"),
        Rule("2.11", "rule", "See section 2.12 and 9.9, and CR 103.4.", Source("f", 3)),
    )
    e = documents.link(Edition("en", date(2025, 1, 1), "f", rules, document="mtr"))
    refs = {r.number: [(x.first, x.targets) for x in r.refs] for r in e.rules}
    assert refs["2.11"] == [("2.12", ("2.12",)), ("CR 103.4", ("CR 103.4",))]
    assert refs["2.12"] == [("2.11", ("2.11",))]  # "9.9" is not a reference: no "section" word


def test_label():
    assert documents.label("ipg", "2.1") == "IPG 2.1"
    assert documents.label("mtr", "C") == "MTR appendix C"
    assert documents.label("cr", "702.19b") == "CR 702.19b"


@given(st.text(), st.text(), st.text())
@example("Game Play Error", " — ", "Hidden Card Error")
def test_an_entry_is_named_by_its_title_and_the_name_after_its_category(head, dash, name):
    title = head + dash + name
    found = documents.names(title)
    assert found[0] == title and len(found) <= 2
    if len(found) == 2:  # "Category — Name": the name, without its category
        assert " — " in title and title.rstrip().endswith(found[1]) and found[1] == found[1].strip()
    assert documents.names("Game Play Error — Hidden Card Error")[1] == "Hidden Card Error"
    assert documents.names("Tournament Error — Slow Play")[1] == "Slow Play"
    assert documents.names("Trample") == ("Trample",)


@given(
    st.integers(100, 999),
    st.integers(1, 300),
    st.sampled_from(["a", "b", "k", "m", "z", "aa", "ab"]),
    st.sampled_from(["rule ", "Rule ", "rules ", "CR ", "cr ", "CR", "cr:", "CR-", ""]),
    st.sampled_from([" ", "  ", ""]),
)
def test_a_cr_number_however_written_splits_to_the_number(section, rule, letter, word, apart):
    """ "rule 702.2c", "CR 702.19 b", "702.19b", "CR702.19b": the same number (issues 46,
    55)."""
    number = f"{section}.{rule}"
    written = f"{word}{number}{apart}{letter}"
    cited = documents.split(written)
    assert cited.number == f"{number}{letter}"
    assert cited.document == ("cr" if word.strip(" :-").lower() == "cr" else None)


@given(
    st.sampled_from(["MTR", "mtr", "IPG", "ipg", "Ipg", "JAR"]),
    st.sampled_from(["", " ", ": "]),
    st.integers(1, 12),
    st.integers(1, 12),
)
def test_a_tournament_number_typed_against_its_document_splits(doc, apart, entry, part):
    """ "ipg2.1" as "IPG 2.1" (issue 55); a word that begins so is no document's number."""
    cited = documents.split(f"{doc}{apart}{entry}.{part}")
    assert cited == (doc.lower(), f"{entry}.{part}")
    assert documents.split(f"{doc}s {entry}.{part}").document is None  # "IPGs 2.1"
    assert documents.split("Crab 7").document is None
