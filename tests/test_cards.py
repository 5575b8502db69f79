"""Cards in the library: finding a card by its name as judges type it, and searching card
text (on the real card data, built once per session). The cards named in a question are read
with `ask`'s lexicon: tests/test_ask.py."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crlookup.core.errors import CardQueryError, QueryError
from crlookup.library.cards import check_name, name_key


@pytest.fixture(scope="module")
def cards(library):
    return library.cards()


def test_every_card_is_in_the_library(cards):
    assert len(cards) == 34565
    assert cards.card("Fire // Ice").faces[1].missing


@pytest.mark.parametrize(
    "typed, name, how",
    [
        ("Giant Spider", "Giant Spider", "exact"),
        ("giant spider", "Giant Spider", "exact"),
        ("jace the mind sculptor", "Jace, the Mind Sculptor", "exact"),
        ("circle of protection red", "Circle of Protection: Red", "exact"),
        ("lim dul the necromancer", "Lim-Dûl the Necromancer", "exact"),
        ("aether vial", "Aether Vial", "exact"),
        ("fire // ice", "Fire // Ice", "exact"),
        ("Stomp", "Bonecrusher Giant // Stomp", "face"),
        ("Insectile Aberration", "Delver of Secrets // Insectile Aberration", "face"),
        ("Lightning Bolt", "Lightning Bolt", "exact"),  # also a face of a prepare card
        ("teferi hero", "Teferi, Hero of Dominaria", "partial"),
        ("Thalia, Guardian", "Thalia, Guardian of Thraben", "partial"),
        ("Giant Spidr", "Giant Spider", "fuzzy"),
        ("serra angle", "Serra Angel", "fuzzy"),
        ("krosan grp", "Krosan Grip", "fuzzy"),
        ("jace the mind sculpter", "Jace, the Mind Sculptor", "fuzzy"),
    ],
)
def test_finding_a_card(cards, typed, name, how):
    found = cards.find(typed)
    assert (found.card.name if found.card else None, found.how) == (name, how)


def test_a_name_that_fits_several_cards_lists_them(cards):
    found = cards.find("Teferi")
    assert found.card is None and found.how == "ambiguous"
    names = [c.name for c in found.candidates]
    assert len(names) >= 8 and all(n.startswith("Teferi, ") for n in names)
    assert "Teferi, Hero of Dominaria" in names and not any(n.startswith("A-") for n in names)
    assert [c.name for c in cards.find("Fire").candidates] == ["Fire // Ice", "Start // Fire"]


def test_a_name_that_fits_nothing_gives_the_nearest(cards):
    found = cards.find("xyzzy plugh")
    assert found.card is None and found.how == "none"
    assert 1 <= len(found.candidates) <= 3


@pytest.mark.parametrize(
    "name", ["", "   ", "//", " // ", "x" * 10_000, "Giant\x00Spider", "Serra\tAngel"]
)
def test_names_that_cannot_be_looked_up(name):
    with pytest.raises(CardQueryError):
        check_name(name)


@given(st.text(max_size=40))
def test_name_keys_ignore_case_and_punctuation(text):
    key = name_key(text)
    assert key == name_key(key) == name_key(text.upper().replace(",", " , ").replace("'", ""))
    assert key == key.strip() and "  " not in key


def test_search_finds_cards_with_every_word(cards):
    found = cards.search("flying reach", limit=10)
    assert len(found.hits) == 10 and not found.relaxed
    for hit in found.hits:
        text = (hit.name + " " + cards.card(hit.name).faces[0].text).casefold()
        assert "flying" in text and "reach" in text


def test_search_corrects_phrases_and_excludes(cards):
    found = cards.search("flyng reach", limit=3)
    assert found.corrections == [("flyng", "flying")] and found.query == "flying reach"
    phrase = cards.search('"can\'t be countered"', limit=5)
    assert all("can't be countered" in cards.card(h.name).faces[0].text for h in phrase.hits)
    without = cards.search("deathtouch NOT flying", limit=20)
    assert all("flying" not in cards.card(h.name).faces[0].text.casefold() for h in without.hits)
    assert "\x01Persist\x02" in cards.search("persist", limit=2).hits[1].snippet  # in its text


@pytest.mark.parametrize("query", ["AND", "(", '"', "NOT NOT", "a OR", "*", "***", ")(", "'"])
def test_odd_card_queries_never_fail(cards, query):
    with contextlib.suppress(QueryError):
        cards.search(query)
