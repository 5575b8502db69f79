"""The parser of the card file (data/cards.jsonl.gz): every card, every layout, every defect.

Expectations come from reading the file independently (gzip and json of the standard library)
and from the card data's own notice (34,565 cards, 446 missing a part's text).
"""

from __future__ import annotations

import contextlib
import gzip
import json
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup.core.errors import SourceError
from crlookup.core.model import Card
from crlookup.sources import cards as card_file

DATA = Path(__file__).resolve().parent.parent / "data"
NAME = "cards.jsonl.gz"


@pytest.fixture(scope="module")
def raw() -> list[dict]:
    with gzip.open(DATA / NAME, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def cards() -> dict[str, Card]:
    return {c.name: c for c in card_file.read(DATA / NAME)}


def test_every_card_in_file_order(raw, cards):
    assert len(cards) == len(raw) == 34565
    assert list(cards) == [item["name"] for item in raw]
    assert [c.source.line for c in list(cards.values())[:3]] == [1, 2, 3]


def test_fields_as_the_file_has_them(raw, cards):
    for item in raw[::97]:
        card = cards[item["name"]]
        front = card.faces[0]
        assert (card.layout, list(card.keywords), list(card.color_identity)) == (
            item["layout"],
            item["keywords"],
            item["color_identity"],
        )
        if not item.get("faces"):
            assert (front.mana_cost, front.type_line, front.text) == (
                item["mana_cost"],
                item["type_line"],
                item["oracle_text"],
            )
            assert (front.power, front.toughness, front.loyalty) == (
                item["power"],
                item["toughness"],
                item["loyalty"],
            )
        else:
            assert [f.name for f in card.faces] == [f["name"] for f in item["faces"]]


def test_spot_checks_of_the_notice(cards):
    spider = cards["Giant Spider"]
    assert (spider.faces[0].mana_cost, spider.faces[0].type_line, spider.keywords) == (
        "{3}{G}",
        "Creature — Spider",
        ("Reach",),
    )
    assert (spider.faces[0].power, spider.faces[0].toughness) == ("2", "4")
    assert cards["Paladin en-Vec"].keywords == ("First strike", "Protection")
    assert cards["Krosan Grip"].keywords == ("Split second",)
    assert cards["Teferi, Hero of Dominaria"].faces[0].loyalty == "4"
    assert cards["Grizzly Bears"].faces[0].text == ""


def test_missing_parts_are_marked(raw, cards):
    incomplete = [c for c in cards.values() if c.faces_incomplete]
    assert len(incomplete) == sum(1 for item in raw if item.get("faces_incomplete")) == 446
    stomp = cards["Bonecrusher Giant // Stomp"]
    assert [(f.name, f.missing) for f in stomp.faces] == [
        ("Bonecrusher Giant", False),
        ("Stomp", True),
    ]
    assert cards["Fire // Ice"].faces[1] == cards["Fire // Ice"].faces[1]._replace(
        name="Ice", missing=True
    )


@pytest.mark.parametrize(
    "name, layout, faces",
    [
        ("Giant Spider", "normal", 1),
        ("Bonecrusher Giant // Stomp", "adventure", 2),
        ("Fire // Ice", "split", 2),
        ("Delver of Secrets // Insectile Aberration", "transform", 2),
        ("Westvale Abbey // Ormendahl, Profane Prince", "transform", 2),
        ("Bruna, the Fading Light", "meld", 1),
        ("Urza's Saga", "saga", 1),
    ],
)
def test_layouts(cards, name, layout, faces):
    card = cards[name]
    assert (card.layout, len(card.faces)) == (layout, faces)
    if len(card.faces) > 1:
        assert card.name == " // ".join(f.name for f in card.faces)


def test_double_faced_and_meld_cards_keep_both_sides(cards):
    delver = cards["Delver of Secrets // Insectile Aberration"]
    assert not delver.faces_incomplete
    assert (delver.faces[1].type_line, delver.faces[1].text, delver.faces[1].power) == (
        "Creature — Human Insect",
        "Flying",
        "3",
    )
    mdfc = next(c for c in cards.values() if c.layout == "modal_dfc")
    assert len(mdfc.faces) == 2
    assert cards["Bruna, the Fading Light"].melds_into == "Brisela, Voice of Nightmares"
    assert "Brisela, Voice of Nightmares" in cards


def test_alchemy_cards_are_marked(cards):
    alchemy = [c for c in cards.values() if c.alchemy]
    assert len(alchemy) == 217 and all(c.name.startswith("A-") for c in alchemy)


def _gz(text: bytes) -> bytes:
    return gzip.compress(text, mtime=0)  # the same bytes in every xdist worker


GOOD = json.dumps(
    {
        "name": "Grizzly Bears",
        "mana_cost": "{1}{G}",
        "type_line": "Creature — Bear",
        "oracle_text": "",
        "keywords": [],
        "power": "2",
        "toughness": "2",
        "loyalty": None,
        "layout": "normal",
        "color_identity": ["G"],
    }
).encode()


@pytest.mark.parametrize(
    "data, line, expected",
    [
        (b"name,mana_cost\nGrizzly Bears,{1}{G}\n", None, "a gzip-compressed JSON Lines file"),
        (_gz(GOOD + b"\n{not json\n"), 2, "a JSON object"),
        (_gz(GOOD + b"\n[1, 2]\n"), 2, "a JSON object"),
        (
            _gz(GOOD + b"\n" + GOOD.replace(b'"keywords": []', b'"keywords": "Flying"')),
            2,
            "`keywords`",
        ),
        (_gz(GOOD.replace(b'"Grizzly Bears"', b'""')), 1, "a card `name`"),
        (_gz(GOOD.replace(b'"type_line": "Creature \\u2014 Bear", ', b"")), 1, "a `type_line`"),
        (_gz(GOOD + b"\n" + GOOD + b"\n"), 2, "a card name not used before (line 1)"),
        (_gz(GOOD + b"\n" + GOOD.replace(b"Grizzly", b"Gr\xffzly") + b"\n"), 2, "UTF-8 text"),
        (_gz(GOOD + b"\n" + GOOD.replace(b'"power": "2"', b'"power": [2]')), 2, "`power`"),
        (_gz(b"\n\n"), None, "at least one card"),
    ],
)
def test_defects_name_the_file_and_the_line(data, line, expected):
    with pytest.raises(SourceError) as e:
        card_file.read(Path(NAME), data)
    assert (e.value.file, e.value.line) == (NAME, line)
    assert expected in e.value.expected
    assert str(e.value).startswith(f"{NAME}:{line}:" if line else f"{NAME}:")


def test_a_cut_off_file_says_how_far_it_got():
    whole = _gz(b"\n".join([GOOD.replace(b"Grizzly", f"Bear {i}".encode()) for i in range(3000)]))
    with pytest.raises(SourceError) as e:
        card_file.read(Path(NAME), whole[: len(whole) // 2])
    assert e.value.line and 1 < e.value.line <= 3000
    assert "gzip" in e.value.expected


def test_a_missing_file():
    with pytest.raises(SourceError) as e:
        card_file.read(DATA / "no-such-cards.jsonl.gz")
    assert e.value.file == "no-such-cards.jsonl.gz" and "readable" in e.value.expected


_VALUE = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.lists(st.text(max_size=4), max_size=3)
)
_CARD = st.dictionaries(
    st.sampled_from(
        [
            "name",
            "mana_cost",
            "type_line",
            "oracle_text",
            "keywords",
            "power",
            "toughness",
            "loyalty",
            "layout",
            "color_identity",
            "faces",
            "melds_into",
        ]
    ),
    _VALUE
    | st.lists(st.dictionaries(st.sampled_from(["name", "oracle_text"]), _VALUE), max_size=2),
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_CARD, min_size=1, max_size=4))
def test_any_lines_read_or_refused(items):
    data = _gz("\n".join(json.dumps(i) for i in items).encode())
    try:
        read = card_file.read(Path(NAME), data)
    except SourceError as e:
        assert e.file == NAME
        return
    assert [c.name for c in read] == [i["name"].strip() for i in items if i]
    assert all(c.faces and isinstance(c, Card) for c in read)


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_read_or_refused(data):
    with contextlib.suppress(SourceError):
        card_file.read(Path(NAME), data)
    with contextlib.suppress(SourceError):
        card_file.read(Path(NAME), _gz(data))


# --------------------------------------------------------------------------- the faces file

FACES = "cards-faces.jsonl"
# faces-missing.txt of the card data: the 20 incomplete cards the faces file does not have
# (11 real cards, 9 Un-set or playtest cards)
STILL_MISSING = {
    "Brightcap Badger // Fungus Frolic",
    "Collectigull // Only the Best",
    "Decorated Knight // Present Arms",
    "Hildibrand Manderville // Gentleman's Rise",
    "Keeper of the Crown // Coronation of the Wilds",
    "Moonshae Pixie // Pixie Dust",
    "Omniclown Colossus // Pie-roclasm",
    "Ondu Knotmaster // Throw a Line",
    "Vantress Transmuter // Croaking Curse",
    "Chic // Ago",
    "Cramped Vents // Access Maze",
    "Fear (Not the Alpha One) // Loathing",
    "Naughty // Nice",
    "Smelt // Herd // Saw",
    "Takesies // Backsies",
    "There // They're // Their",
    "Who // What // When // Where // Why",
    "Yeah Nah // Nah Yeah",
    "Curse of the Fire Penguin // Curse of the Fire Penguin Creature",
    "Ursine Guide // Ranger's Merit",
}


@pytest.fixture(scope="module")
def completed(cards) -> dict[str, Card]:
    found, count = card_file.complete(list(cards.values()), card_file.read_faces(DATA / FACES))
    assert count == 426
    return {c.name: c for c in found}


def test_the_faces_file_completes_all_but_20(raw, completed):
    faces = card_file.read_faces(DATA / FACES)
    assert len(faces) == 426
    with open(DATA / FACES, encoding="utf-8") as f:
        assert list(faces) == [json.loads(line)["name"] for line in f]
    still = {c.name for c in completed.values() if c.faces_incomplete}
    assert still == STILL_MISSING
    assert [c.name for c in completed.values()] == [item["name"] for item in raw]


def test_every_face_of_the_cards_judges_ask_about(completed):
    stomp = completed["Bonecrusher Giant // Stomp"].faces[1]
    assert (stomp.name, stomp.mana_cost, stomp.type_line, stomp.missing) == (
        "Stomp",
        "{1}{R}",
        "Instant — Adventure",
        False,
    )
    assert stomp.text == "Damage can't be prevented this turn. Stomp deals 2 damage to any target."
    theft = completed["Brazen Borrower // Petty Theft"].faces[1]
    assert (theft.mana_cost, theft.text) == (
        "{1}{U}",
        "Return target nonland permanent an opponent controls to its owner's hand.",
    )
    ice = completed["Fire // Ice"].faces[1]
    assert (ice.name, ice.mana_cost, ice.type_line, ice.text) == (
        "Ice",
        "{1}{U}",
        "Instant",
        "Tap target permanent.\nDraw a card.",
    )
    giant = completed["Bonecrusher Giant // Stomp"].faces[0]
    assert (giant.power, giant.toughness, stomp.power) == ("4", "3", None)


def test_what_the_card_file_has_is_kept(cards, completed):
    delver = "Delver of Secrets // Insectile Aberration"  # complete in the card file
    assert completed[delver] == cards[delver]
    assert completed["Giant Spider"] == cards["Giant Spider"]
    for name, card in cards.items():  # a front the card file has is never replaced
        assert completed[name].faces[0] == card.faces[0], name
        assert completed[name]._replace(faces=card.faces) == card
    # the one front the faces file has otherwise (Forge's lacks "{T}: ")
    assert completed["James, Wandering Dad // Follow Him"].faces[0].text.startswith("{T}: Add")


def test_the_faces_files_traps(completed):
    # a flip card's back has no mana cost of its own
    tok = completed["Akki Lavarunner // Tok-Tok, Volcano Born"].faces[1]
    assert (tok.name, tok.mana_cost, tok.power, tok.toughness) == (
        "Tok-Tok, Volcano Born",
        "",
        "2",
        "2",
    )
    # older wording ("enters the battlefield") read as the 2024 Oracle update has it
    agadeem = completed["Agadeem's Awakening // Agadeem, the Undercrypt"].faces[1]
    assert agadeem.text == (
        "As Agadeem, the Undercrypt enters, you may pay 3 life. If you don't, it enters tapped."
        "\n{T}: Add {B}."
    )
    assert (
        completed["Beyeen Veil // Beyeen Coast"]
        .faces[1]
        .text.startswith("Beyeen Coast enters tapped.")
    )
    faced = card_file.read_faces(DATA / FACES)  # (read once: not once per card)
    assert not any(
        "enters the battlefield" in f.text
        for c in completed.values()
        if c.name in faced
        for f in c.faces[1:]
    )


FACE = {
    "name": "Fire // Ice",
    "faces": [
        {"name": "Fire", "mana_cost": "{1}{R}", "type_line": "Instant", "oracle_text": "x"},
        {"name": "Ice", "mana_cost": "{1}{U}", "type_line": "Instant", "oracle_text": "y"},
    ],
    "source": {"repo": "Card-Forge/forge"},
}


def _line(**changes) -> bytes:
    return json.dumps({**FACE, **changes}).encode()


@pytest.mark.parametrize(
    "data, line, expected",
    [
        (_gz(_line()), None, "a JSON Lines file of card faces"),
        (_line() + b"\n{oops\n", 2, "a JSON object"),
        (_line() + b"\n[1]\n", 2, "a JSON object"),
        (_line(name=""), 1, "a card `name`"),
        (_line(faces=[FACE["faces"][0]]), 1, "`faces` as a list of two faces or more"),
        (_line(faces="Fire"), 1, "`faces` as a list"),
        (_line(faces=[FACE["faces"][0], {"name": "Ice"}]), 1, "a `type_line`"),
        (_line(faces=[FACE["faces"][0], ["Ice"]]), 1, "each face as a JSON object"),
        (_line(source="forge"), 1, "`source` as an object"),
        (_line() + b"\n" + _line() + b"\n", 2, "a card name not used before (line 1)"),
        (_line().replace(b"Fire", b"F\xffre", 1), 1, "UTF-8 text"),
        (b"\n\n", None, "at least one card's faces"),
    ],
)
def test_faces_file_defects_name_the_file_and_the_line(data, line, expected):
    with pytest.raises(SourceError) as e:
        card_file.read_faces(Path(FACES), data)
    assert (e.value.file, e.value.line) == (FACES, line)
    assert expected in e.value.expected


def test_a_missing_faces_file():
    with pytest.raises(SourceError) as e:
        card_file.read_faces(DATA / "no-such-faces.jsonl")
    assert e.value.file == "no-such-faces.jsonl" and "readable" in e.value.expected


def test_faces_that_do_not_fit_the_card_are_not_taken(cards):
    fire_ice = cards["Fire // Ice"]
    other = {"Fire // Ice": (fire_ice.faces[0], fire_ice.faces[0]._replace(name="Water"))}
    found, count = card_file.complete([fire_ice], other)
    assert (found, count) == ([fire_ice], 0)


# --------------------------------------------------------------------------- the rulings file

RULINGS = "cards-rulings.jsonl.gz"


@pytest.fixture(scope="module")
def rulings() -> list:
    from crlookup.sources import rulings as ruling_file

    return ruling_file.read(DATA / RULINGS)


def test_every_ruling_in_file_order(rulings):
    with gzip.open(DATA / RULINGS, "rt", encoding="utf-8") as f:
        raw = [json.loads(line) for line in f if line.strip()]
    assert len(rulings) == len(raw) == 31564
    assert [(r.name, r.date, r.text) for r in rulings[::101]] == [
        (item["card"], item["date"], item["text"]) for item in raw[::101]
    ]
    assert len({r.name for r in rulings}) == 10104
    assert min(r.date for r in rulings) == "2004-10-04"
    assert max(r.date for r in rulings) == "2018-10-05"
    assert rulings[0].source.file == RULINGS and rulings[0].source.line == 1


def test_blood_moons_rulings(rulings):
    moon = [r for r in rulings if r.name == "Blood Moon"]
    assert [r.date for r in moon] == ["2017-09-29", "2018-03-16", "2018-03-16", "2018-03-16"]
    assert moon[1].text == (
        'If a nonbasic land has an ability that triggers "when" it enters the battlefield, it '
        "will lose that ability before it triggers."
    )
    # a split card's halves, each by its own name
    assert {r.name for r in rulings} >= {"Turn", "Burn", "Start", "Finish"}


def _ruling(**changes) -> bytes:
    item = {"card": "Blood Moon", "date": "2018-03-16", "text": "Nonbasic lands are Mountains."}
    return json.dumps({**item, **changes}).encode()


@pytest.mark.parametrize(
    "data, line, expected",
    [
        (_ruling() + b"\n", None, "a gzip-compressed JSON Lines file of rulings"),
        (_gz(_ruling() + b"\n{oops\n"), 2, "a JSON object"),
        (_gz(_ruling() + b'\n"Blood Moon"\n'), 2, "a JSON object"),
        (_gz(_ruling(card="")), 1, "a card name"),
        (_gz(_ruling(card=None)), 1, "a card name"),
        (_gz(_ruling(card="Blood\x00Moon")), 1, "a card name"),
        (_gz(_ruling(card="x" * 500)), 1, "a card name"),
        (_gz(_ruling(date="16 March 2018")), 1, "a `date` as YYYY-MM-DD"),
        (_gz(_ruling(date="2018-13-16")), 1, "a `date` that is a day"),
        (_gz(_ruling(date=20180316)), 1, "a `date`"),
        (_gz(_ruling(text="")), 1, "the ruling's `text`"),
        (_gz(_ruling(text=["a"])), 1, "the ruling's `text`"),
        (_gz(_ruling() + b"\n" + _ruling().replace(b"Blood", b"Bl\xffod")), 2, "UTF-8 text"),
        (_gz(b"\n"), None, "at least one ruling"),
    ],
)
def test_rulings_file_defects_name_the_file_and_the_line(data, line, expected):
    from crlookup.sources import rulings as ruling_file

    with pytest.raises(SourceError) as e:
        ruling_file.read(Path(RULINGS), data)
    assert (e.value.file, e.value.line) == (RULINGS, line)
    assert expected in e.value.expected
    assert str(e.value).startswith(f"{RULINGS}:{line}:" if line else f"{RULINGS}:")


def test_a_cut_off_or_missing_rulings_file():
    from crlookup.sources import rulings as ruling_file

    whole = (DATA / RULINGS).read_bytes()
    with pytest.raises(SourceError) as e:
        ruling_file.read(Path(RULINGS), whole[: len(whole) // 2])
    assert e.value.line and 1 < e.value.line < 31564 and "gzip" in e.value.expected
    with pytest.raises(SourceError) as e:
        ruling_file.read(DATA / "no-such-rulings.jsonl.gz")
    assert e.value.file == "no-such-rulings.jsonl.gz" and "readable" in e.value.expected


_RULING = st.dictionaries(st.sampled_from(["card", "date", "text", "other"]), _VALUE)
_RULING_LINE = (
    st.builds(json.dumps, _RULING | st.fixed_dictionaries({"card": _VALUE, "date": _VALUE}))
    | st.builds(
        json.dumps,
        st.fixed_dictionaries(
            {
                "card": st.text(min_size=1, max_size=12),
                "date": st.dates().map(str) | st.text(max_size=10),
                "text": st.text(max_size=30),
            }
        ),
    )
    | st.text(max_size=20)
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_RULING_LINE, min_size=1, max_size=4))
def test_any_ruling_lines_read_or_refused(lines):
    from crlookup.core.model import Ruling
    from crlookup.sources import rulings as ruling_file

    try:
        read = ruling_file.read(Path(RULINGS), _gz("\n".join(lines).encode()))
    except SourceError as e:
        assert e.file == RULINGS
        return
    assert read and all(isinstance(r, Ruling) and r.name and r.text for r in read)


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_as_rulings_or_faces_read_or_refused(data):
    from crlookup.sources import rulings as ruling_file

    for read, name in ((ruling_file.read, RULINGS), (card_file.read_faces, FACES)):
        for given_data in (data, _gz(data)):
            with contextlib.suppress(SourceError):
                read(Path(name), given_data)
