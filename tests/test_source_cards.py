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


@settings(max_examples=200, deadline=None)
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


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_read_or_refused(data):
    with contextlib.suppress(SourceError):
        card_file.read(Path(NAME), data)
    with contextlib.suppress(SourceError):
        card_file.read(Path(NAME), _gz(data))
