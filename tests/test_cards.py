"""Cards in the library: finding a card by its name as judges type it, and searching card
text (on the real card data, built once per session). The cards named in a question are read
with `ask`'s lexicon: tests/test_ask.py."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crlookup.core.errors import CardQueryError, QueryError
from crlookup.core.names import check_name, name_key

pytestmark = pytest.mark.library  # the full library


@pytest.fixture(scope="module")
def cards(library):
    return library.reader.cards()


def test_every_card_is_in_the_library(cards):
    assert len(cards) == 34565
    assert not cards.card("Fire // Ice").faces_incomplete  # Ice from the faces file


def test_every_face_but_those_the_card_data_lacks(library, cards):
    """The faces file completes 426 of the 446 incomplete cards; the 20 it lacks (its
    faces-missing list) stay marked, and the library records both counts."""
    status = library.reader.meta("cards")
    assert status["faces"] == {"file": "cards-faces.jsonl", "completed": 426, "incomplete": 20}
    assert sum(c.faces_incomplete for c in cards.all()) == 20
    assert cards.card("Who // What // When // Where // Why").faces_incomplete
    stomp = cards.card("Bonecrusher Giant // Stomp").faces[1]
    assert (stomp.mana_cost, stomp.type_line, stomp.text) == (
        "{1}{R}",
        "Instant — Adventure",
        "Damage can't be prevented this turn. Stomp deals 2 damage to any target.",
    )
    delver = cards.card("Delver of Secrets // Insectile Aberration")  # complete already
    assert [(f.name, f.mana_cost, f.power, f.missing) for f in delver.faces] == [
        ("Delver of Secrets", "{U}", "1", False),
        ("Insectile Aberration", "", "3", False),
    ]
    assert delver.faces[0].text.startswith("At the beginning of your upkeep, look at the top")


@pytest.mark.parametrize(
    "typed, names",
    [
        ("Giant Spider", True),
        ("stomp", True),  # a face's name
        ("Teferi", True),  # the part before the comma, of ten cards
        ("lim-dul the necromancer", True),
        ("deathtouch trample", False),
        ("giant spidr", False),  # a misspelling is `card`'s to read, not a name as it is
        ("Gi", False),  # too short to be read as a name
        ("Giant\x00Spider", False),
        ("x" * 300, False),
    ],
)
def test_whether_words_name_a_card(library, typed, names):
    """`crlookup <anything>` asks it of words before searching them, from the names alone."""
    assert library.reader.names_card(typed) is names


@given(
    st.one_of(
        st.sampled_from(["Giant Spider", "Fire // Ice", "ICE", "teferi", "Serra Angel!", "æther"]),
        st.text(max_size=30),
    )
)
def test_names_card_agrees_with_the_card_features(library, cards, name):
    try:
        named = len(name_key(name)) >= 3 and cards.named(name) is not None
    except CardQueryError:
        named = False
    assert library.reader.names_card(name) is named


@pytest.mark.parametrize(
    "typed, name",
    [
        ("Stomp", "Bonecrusher Giant // Stomp"),
        ("Petty Theft", "Brazen Borrower // Petty Theft"),
        ("petty theft", "Brazen Borrower // Petty Theft"),
        ("Ice", "Fire // Ice"),
        ("Tok-Tok, Volcano Born", "Akki Lavarunner // Tok-Tok, Volcano Born"),
    ],
)
def test_a_faces_name_finds_its_card(cards, typed, name):
    found = cards.find(typed)
    assert (found.card.name, found.how) == (name, "face")
    assert not found.card.faces_incomplete


def test_rulings_newest_first(library, cards):
    moon = cards.rulings(cards.card("Blood Moon"))
    assert [r.date for r in moon] == ["2018-03-16"] * 3 + ["2017-09-29"]
    assert moon[0].text.startswith('If a nonbasic land has an ability that triggers "when" it')
    assert {r.name for r in moon} == {""}
    status = library.reader.meta("cards")["rulings"]
    # 31,564 rulings under 10,104 names; 10,086 of the names a card's or a face's (the rest
    # Un-set variants, "Sly Spy (a)"); a split card's halves are one card, and a ruling given
    # under both halves is the card's once
    assert status == {"file": "cards-rulings.jsonl.gz", "rulings": 31358, "cards": 9994}
    assert cards.rulings_unavailable is None
    assert cards.rulings(cards.card("Bonecrusher Giant // Stomp")) == []  # printed in 2019


def test_a_split_cards_rulings_are_both_halves(cards):
    rulings = cards.rulings(cards.card("Turn // Burn"))
    faces = [r.name for r in rulings]
    assert len(rulings) == 15 and set(faces) == {"", "Turn"}
    # given under both halves: the whole card's, once
    assert faces.count("") == 10 and len({r.text for r in rulings}) == 15
    # "Start" is Start // Finish's (whose other half has rulings too), not Start // Fire's
    assert {r.name for r in cards.rulings(cards.card("Start // Finish"))} == {"Start", "Finish"}
    assert cards.rulings(cards.card("Start // Fire")) == []
    # a ruling given under a transform card's front name is the card's
    assert len(cards.rulings(cards.card("Delver of Secrets // Insectile Aberration"))) == 2


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
    ("typed", "meant"),
    [
        # a name no card has, and no card's within rapidfuzz's cutoff: the card meant is among
        # the nearest (scored over every name, short names that the query holds came first:
        # "Life // Death", "Aang, at the Crossroads", "A Container of Booster Packs")
        ("the Koya, Death from Above card rulings", "Koya, Death from Above"),
        ("Raeaod the Bones Incarnate", "Read the Bones"),
        ("Requiting of", "Requiting Hex"),
        ("Testment gfgvait", "Testament of Faith"),
    ],
)
def test_the_nearest_names_lead_to_the_card_meant(cards, typed, meant):
    found = cards.find(typed)
    assert found.how == "none"
    assert found.candidates[0].name == meant


def test_no_name_holds_up_the_other_threads(library):
    """The nearest names of a long name no card has (200 Chinese characters) are found without
    holding the GIL for long: the rest of a server's worker (its event loop) runs meanwhile.
    Scored over all 38,476 names in one rapidfuzz call, it held it 0.6 to 1.2 s (issue 53)."""
    import threading
    import time

    from crlookup.library.cards import open_cards

    name = "".join(chr(0x4E00 + (i * 37) % 2000) for i in range(200))
    stop = threading.Event()

    def loop() -> None:
        mine = open_cards(library.path)  # (a connection of the thread's own)
        assert mine is not None
        while not stop.is_set():
            assert mine.find(name).how == "none"

    looking = threading.Thread(target=loop)
    gaps = []
    looking.start()
    try:
        last, end = time.perf_counter(), time.perf_counter() + 2
        while time.perf_counter() < end:
            time.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
    finally:
        stop.set()
        looking.join()
    gaps.sort()
    assert len(gaps) > 100 and gaps[int(0.99 * len(gaps))] < 0.25, gaps[-5:]


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


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_a_name_in_ascii_keys_as_the_same_name_with_accents(text):
    """ASCII names take a shorter way (no Unicode normalisation): to the same key."""
    assert name_key(text + " é") == f"{name_key(text)} e".strip()
    assert name_key("Lim-Dûl's Vault") == name_key("lim duls vault") == "lim duls vault"


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


def test_search_finds_a_card_by_any_faces_text(cards):
    found = cards.search('"Tap target permanent" "Draw a card"', limit=20)
    assert "Fire // Ice" in [h.name for h in found.hits]
    stomp = cards.search("damage can't be prevented stomp", limit=3)
    assert stomp.hits[0].name == "Bonecrusher Giant // Stomp"
    assert "\x01Stomp\x02" in stomp.hits[0].snippet


def test_a_card_search_ends_at_its_deadline_with_one_line(cards, monkeypatch):
    import crlookup.library.cards as module
    from crlookup.core.errors import SearchTimedOut

    monkeypatch.setattr(module, "SEARCH_SECONDS", 0.001)
    with pytest.raises(SearchTimedOut, match=r"more than 0\.001 s.*fewer wildcards"):
        cards.search("a* OR b* OR c* OR d* OR e*", limit=500, rulings=True)
    with pytest.raises(SearchTimedOut, match=r"stopped: give more words$"):
        cards.search("creature OR damage OR player OR target", limit=500, rulings=True)
    monkeypatch.undo()
    assert cards.search("a* OR b* OR c* OR d* OR e*", limit=500, rulings=True).hits


def test_search_with_rulings(cards):
    query = 'triggers "enters the battlefield" nonbasic'
    plain = cards.search(query, limit=10)
    assert "Blood Moon" not in [h.name for h in plain.hits]
    found = cards.search(query, limit=10, rulings=True)
    assert found.rulings and not found.relaxed
    moon = next(h for h in found.hits if h.name == "Blood Moon")
    assert moon.ruling.date == "2018-03-16" and "\x01nonbasic\x02" in moon.ruling.snippet
    assert moon.to_dict(rulings=True)["ruling"] == {
        "date": "2018-03-16",
        "face": None,
        "snippet": 'If a nonbasic land has an ability that triggers "when" it enters the '
        "battlefield, it will lose that ability before it triggers.",
    }
    assert "ruling" not in moon.to_dict()
    # each card once, the words in its text or one of its rulings
    assert len({h.name for h in found.hits}) == len(found.hits)
    for hit in found.hits:
        if hit.ruling is None:
            assert "nonbasic" in cards.card(hit.name).faces[0].text.casefold()
    # a word of the rulings alone is no misspelling there
    assert cards.search("fused", rulings=True).corrections == []


@pytest.mark.parametrize("query", ["AND", "(", '"', "NOT NOT", "a OR", "*", "***", ")(", "'"])
@pytest.mark.parametrize("rulings", [False, True])
def test_odd_card_queries_never_fail(cards, query, rulings):
    with contextlib.suppress(QueryError):
        cards.search(query, rulings=rulings)
