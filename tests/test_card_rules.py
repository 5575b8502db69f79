"""The rules behind a card, on the real cards and editions: keywords, ability and flavor
words, layouts, types, terms and symbols, each linked to the rule of the edition asked for."""

from __future__ import annotations

import pytest
from conftest import run

from crlookup.features import card_rules

pytestmark = pytest.mark.library  # the full library

EDITION = "en-2026-08-07"


@pytest.fixture(scope="module")
def cards(library):
    return library.reader.cards()


def linked(library, cards, name: str, edition: str = EDITION) -> dict[str, tuple[str, str]]:
    """{name on the card: (kind, number)} of a card's links."""
    return {
        link.name: (link.kind, link.number)
        for link in card_rules.links(library, edition, cards.card(name))
    }


@pytest.mark.parametrize(
    "card, keyword, number",
    [
        ("Giant Spider", "Reach", "702.17"),
        ("Kitchen Finks", "Persist", "702.79"),
        ("Krosan Grip", "Split second", "702.61"),
        ("Opt", "Scry", "701.22"),
        ("Bog Wraith", "Swampwalk", "702.14"),  # the glossary: "See Landwalk"
        ("Desert Nomads", "Desertwalk", "702.14"),  # a land type's landwalk
        ("Boggart Ram-Gang", "Wither", "702.80"),
        ("Glistener Elf", "Infect", "702.90"),
    ],
)
def test_keywords_link_to_their_rule(library, cards, card, keyword, number):
    assert linked(library.reader, cards, card)[keyword] == ("keyword", number)


def test_a_keyword_link_has_its_rules_first_sentence(library, cards):
    reach = card_rules.links(library.reader, EDITION, cards.card("Giant Spider"))[0]
    assert (reach.kind, reach.title, reach.number) == ("keyword", "Reach", "702.17")
    # 702.17a only classifies it ("Reach is a static ability."): the next sentence says what it does
    assert reach.summary == (
        "Reach is a static ability. A creature with flying can’t be blocked "
        "except by creatures with flying and/or reach."
    )
    persist = linked(library.reader, cards, "Kitchen Finks")
    assert persist["Persist"] == ("keyword", "702.79")


def test_ability_and_flavor_words(library, cards):
    landfall = next(c for c in cards.all() if "Landfall" in c.keywords and c.layout == "normal")
    assert linked(library.reader, cards, landfall.name)["Landfall"] == ("ability word", "207.2c")
    domain = next(c for c in cards.all() if "Domain" in c.keywords)
    assert linked(library.reader, cards, domain.name)["Domain"] == ("ability word", "207.2c")
    assert linked(library.reader, cards, "Cid, Freeflier Pilot")["Jump"] == (
        "flavor word",
        "207.2d",
    )


@pytest.mark.parametrize(
    "card, type_, number",
    [
        ("Lightning Bolt", "Instant", "304"),
        ("Teferi, Hero of Dominaria", "Planeswalker", "306"),
        ("Teferi, Hero of Dominaria", "Teferi", "205.3j"),  # a planeswalker type: the list of them
        ("Pacifism", "Aura", "303.4"),
        ("Bonesplitter", "Equipment", "301.5"),
        ("Giant Spider", "Spider", "205.3m"),
        ("Urza's Saga", "Saga", "714"),
        ("Urza's Saga", "Urza's", "205.3i"),
    ],
)
def test_types_link_to_their_rule(library, cards, card, type_, number):
    assert linked(library.reader, cards, card)[type_] == ("type", number)


@pytest.mark.parametrize(
    "card, layout, number",
    [
        ("Bonecrusher Giant // Stomp", "adventure", "715"),
        ("Fire // Ice", "split", "709"),
        ("Delver of Secrets // Insectile Aberration", "transform", "712"),
        ("Bruna, the Fading Light", "meld", "712"),
    ],
)
def test_layouts_link_to_their_rule(library, cards, card, layout, number):
    assert linked(library.reader, cards, card)[layout] == ("layout", number)


@pytest.mark.parametrize(
    "card, written, kind, number",
    [
        ("Kitchen Finks", "dies", "term", "700.4"),
        ("Counterspell", "Counter", "term", "701.6"),  # the keyword action: "Counter target spell"
        ("Urza's Saga", "counter", "term", "122"),  # a thing: "add a lore counter"
        ("Urza's Saga", "mana cost", "term", "107.4"),
        ("Urza's Saga", "token", "term", "111"),
        ("Urza's Saga", "{T}", "symbol", "107.5"),
        ("Teferi, Hero of Dominaria", "Loyalty Ability", "term", "606"),
        ("Teferi, Hero of Dominaria", "exile", "term", "701.13"),  # "exile target permanent"
        ("Misthollow Griffin", "exile", "term", "406"),  # "cast this card from exile": the zone
        ("Test of Endurance", "Intervening “If” Clause", "term", "603.4"),
        ("Rest in Peace", "instead", "term", "614"),
        ("Birds of Paradise", "Mana Ability", "term", "605"),  # "{T}: Add one mana ..."
        ("Invisible Stalker", "Evasion Ability", "term", "509.1b"),  # "can't be blocked"
    ],
)
def test_terms_and_symbols_of_the_text(library, cards, card, written, kind, number):
    assert linked(library.reader, cards, card)[written] == (kind, number)


def test_the_rules_a_card_brings_not_the_words_every_card_uses(library, cards):
    """Bonecrusher Giant listed "deals" 120, "becomes" 603.2e and "controller" 108.4, links
    every card's text makes (issue 55): the game's vocabulary (card_rules.VOCABULARY, by
    measure) is left out, a trigger brings 603 (and "becomes", 603.2e, is said by it), an
    activated ability 602."""
    giant = linked(library.reader, cards, "Bonecrusher Giant // Stomp")
    numbers = {number for _kind, number in giant.values()}
    assert {"715", "603", "115", "115.4", "615"} <= numbers
    assert not {"120", "108.4", "603.2e", "112"} & numbers
    assert giant["Triggered Ability"] == ("term", "603")
    elves = linked(library.reader, cards, "Llanowar Elves")
    assert elves["Activated Ability"] == ("term", "602") and elves["Mana Ability"][1] == "605"
    # a shape's own rule under an ability's stays: the intervening "if" clause, 603.4
    assert linked(library.reader, cards, "Test of Endurance")["Triggered Ability"][1] == "603"
    # no card of a sample links a word of the vocabulary
    vocabulary = {"108.4", "112", "120", "402", "404", "401", "403", "119", "102.2", "110"}
    for card in list(cards.all())[::97]:
        found = card_rules.links(library.reader, EDITION, card)
        said = {link.number for link in found if link.kind == "term"}
        assert not said & vocabulary, (card.name, said & vocabulary)


def test_mana_value_and_cant_be_countered(library, cards):
    spell_snare = linked(library.reader, cards, "Spell Snare")
    assert spell_snare["mana value"] == ("term", "202.3")
    uncounterable = next(
        c for c in cards.all() if "can't be countered" in c.faces[0].text and c.layout == "normal"
    )
    assert linked(library.reader, cards, uncounterable.name)["countered"] == ("term", "701.6")


def test_each_rule_once_and_its_own_name_left_out(library, cards):
    links = card_rules.links(library.reader, EDITION, cards.card("Giant Spider"))
    numbers = [(link.number, link.title) for link in links]
    assert len(numbers) == len(set(numbers))
    assert [link.name for link in links].count("Reach") == 1  # keyword and reminder text: once
    flash = card_rules.links(library.reader, EDITION, cards.card("Flash Conscription"))
    assert "Flash" not in {link.name for link in flash if link.kind == "term"}


def test_an_older_edition_links_its_own_numbers(library, cards):
    assert linked(library.reader, cards, "Giant Spider", "en-2009-02-01")["Reach"] == (
        "keyword",
        "502.70",
    )
    assert linked(library.reader, cards, "Teferi, Hero of Dominaria", "en-2019-01-25")["exile"] == (
        "term",
        "701.11",
    )


def test_a_translation_links_through_its_english_names(library, cards):
    links = card_rules.links(library.reader, "ru-2019-01-25", cards.card("Giant Spider"))
    reach = next(link for link in links if link.name == "Reach")
    assert (reach.number, reach.title) == ("702.17", "Захват")


def test_digital_only_keywords_say_so(library, cards):
    flockbringer = card_rules.links(library.reader, EDITION, cards.card("Ace Flockbringer"))
    conjure = next(link for link in flockbringer if link.name == "Conjure")
    assert conjure.digital_only and not conjure.number
    assert conjure.to_dict()["digital_only"] is True


def test_nearly_every_card_has_every_keyword_linked(library, cards, golden):
    """The share of cards whose every keyword links to a rule, and the list of those that
    don't, by keyword (reviewed: MTG Arena's digital-only mechanics, Un-set augments, which
    rule 100.7 leaves out, and flavor words on faces whose text the card data lacks)."""
    unlinked: dict[str, list[str]] = {}
    total = 0
    for card in cards.all():
        total += 1
        for keyword in card_rules.unlinked(library.reader, EDITION, card):
            unlinked.setdefault(keyword, []).append(card.name)
    missing = {name for names in unlinked.values() for name in names}
    assert 1 - len(missing) / total >= 0.989
    not_digital = {k for k in unlinked if card_rules.name_form(k) not in card_rules.DIGITAL_ONLY}
    assert sum(len(unlinked[k]) for k in not_digital) <= 20
    golden("cards_unlinked.json", {k: sorted(v) for k, v in sorted(unlinked.items())})


def test_a_cards_rulings_newest_first_with_their_rules(library):
    """Blood Moon's four rulings, newest first, each with the rules it applies (numbers of the
    newest English edition: crlookup.features.rulings, tested there)."""
    found = card_rules.lookup(library.reader, "Blood Moon")
    assert found.rulings_unavailable is None
    assert [(r.date, r.face) for r in found.rulings] == [("2018-03-16", "")] * 3 + [
        ("2017-09-29", "")
    ]
    assert "enters the battlefield, it will lose that ability" in found.rulings[0].text
    data = found.to_dict()
    assert data["rulings_unavailable"] is None and len(data["rulings"]) == 4
    for ruling in data["rulings"]:
        assert set(ruling) == {"date", "text", "face", "rules"}
        assert isinstance(ruling["rules"], list)


def test_every_faces_rulings(library):
    turn_burn = card_rules.lookup(library.reader, "Burn")
    assert turn_burn.card.name == "Turn // Burn"
    assert {r.face for r in turn_burn.rulings} == {"", "Turn"} and len(turn_burn.rulings) == 15
    # the rulings end in 2018: a card printed later, or one they do not name, has none
    assert card_rules.lookup(library.reader, "Fire // Ice").rulings == ()
    assert card_rules.lookup(library.reader, "Bonecrusher Giant").to_dict()["rulings"] == []
    ambiguous = card_rules.lookup(library.reader, "Teferi")
    assert ambiguous.card is None and ambiguous.to_dict()["rulings"] == []


@pytest.mark.parametrize(
    "name, why",
    [
        # a rule behind it that the CR of October 2018 did not have: its layout's, a keyword's,
        # a type's
        ("Bonecrusher Giant", "this card is newer: “Adventurer Card” came into the rules"),
        ("Gemrazer", "this card is newer: “Mutate” came into the rules"),
        ("Invasion of Zendikar", "this card is newer: “Battle” came into the rules"),
        # nothing tells: the card data has no printings
        ("Grizzly Bears", "crlookup cannot tell when this card was first printed"),
    ],
)
def test_no_rulings_in_the_data_is_not_none(library, name, why):
    """A card without rulings in the data (which stops in October 2018) was shown as having
    none ("Rulings … none", "No official rulings.", rulings_unavailable null): each face says
    why now (issue 55)."""
    found = card_rules.lookup(library.reader, name).to_dict()
    assert found["rulings"] == [] and found["rulings_unavailable"].startswith(
        "no rulings in crlookup's data (it stops in October 2018; "
    )
    assert why in found["rulings_unavailable"]
    shown = run("card", name).output
    assert found["rulings_unavailable"] in " ".join(shown.split())
    assert "\n  none\n" not in shown
