"""A card's rulings linked to the rules they apply (crlookup.features.rulings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crlookup.features import rulings
from crlookup.features.ask import rulings as reading

pytestmark = pytest.mark.library  # the full library

LABELLED = Path(__file__).resolve().parent / "data" / "ruling_links_labelled.jsonl"


def _within(number: str, gold: str) -> bool:
    """`number` is `gold` or lies below it ("702.90c" under "702.90"; not "702.9")."""
    return number == gold or (number.startswith(gold) and not number[len(gold)].isdigit())


def test_key_ignores_spacing():
    assert rulings.key("a  ruling\n text") == rulings.key("a ruling text")
    assert len(rulings.key("x")) == 12


def test_blood_moon_rulings_reach_the_rules_they_apply(library):
    texts = [  # Blood Moon's rulings of 2017-09-29 and 2018-03-16, as shipped
        (
            "If a nonbasic land has an ability that causes it to enter the battlefield tapped, it "
            "will lose that ability before it applies. The same is also true of any other abilities "
            'that modify how a land enters the battlefield or apply "as" a land enters the '
            "battlefield, such as the first ability of Cavern of Souls. This is a change from "
            "previous rulings."
        ),
        (
            "Nonbasic lands will lose any other land types and abilities they had. They will gain "
            'the land type Mountain and gain the ability "{T}: Add {R}."'
        ),
    ]
    found = reading.link(library.reader, texts, library.edition().id)
    assert all(len(links) == reading.PER_RULING for links in found)
    linked = {n for links in found for n in links}
    assert any(_within(n, "305.7") for n in linked)
    assert any(_within(n, "614.12") or _within(n, "613") for n in linked)


def test_first_link_precision_on_labelled_rulings(library):
    """40 rulings drawn at random (seed 30) from the 16,760 distinct texts, each labelled by
    reading it with the rules it applies: the first link is one of them (or below one) for
    24 (0.60), one of the three for 32 (0.80), as measured when the labels were written."""
    labelled = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]
    assert len(labelled) == 40
    found = reading.link(library.reader, [r["text"] for r in labelled], library.edition().id)
    first = sum(
        bool(links) and any(_within(links[0], g) for g in r["rules"])
        for r, links in zip(labelled, found)
    )
    anywhere = sum(
        any(_within(n, g) for n in links for g in r["rules"]) for r, links in zip(labelled, found)
    )
    assert first / 40 >= 0.55 and anywhere / 40 >= 0.75, (first, anywhere)


@pytest.fixture
def unread_links(library):
    """The library reads the shipped links afresh (as the test has them), and after it."""
    library.reader._memo.pop(("rulings", "links"), None)
    yield library
    library.reader._memo.pop(("rulings", "links"), None)


def test_rules_for_without_shipped_links_is_empty(unread_links, monkeypatch):
    monkeypatch.setattr(rulings, "LINKS", "no-such-file.sqlite")
    assert rulings.rules_for(unread_links, "Any ruling at all.") == []


def test_card_shows_each_ruling_with_the_shipped_rules_it_applies(library):
    """The shipped links (data/ruling-links.sqlite) give Blood Moon's rulings their rules."""
    from crlookup.features import card_rules

    moon = card_rules.lookup(library.reader, "Blood Moon")
    linked = {n for r in moon.rulings for n in r.rules}
    assert {"305.7", "614.12"} <= linked, linked
    assert all(r.rules for r in moon.rulings)
    shipped = rulings._open()
    assert shipped is not None
    db, edition = shipped
    assert edition == library.edition().id
    (count,) = db.execute("SELECT count(*) FROM links").fetchone()
    assert count == 16760


def test_a_damaged_links_file_gives_no_rules(unread_links, monkeypatch, tmp_path):
    (tmp_path / rulings.LINKS).write_bytes(b"not a database at all" * 100)
    monkeypatch.setattr("crlookup.core.paths.package_data", lambda: str(tmp_path))
    assert rulings.rules_for(unread_links, "Any ruling at all.") == []


def test_each_ruling_ships_its_vector(library):
    """`ask` reads a named card's rulings from their shipped vectors (embedding one costs
    ~75 ms): each is the model's own reading of the ruling, to int8."""
    import numpy as np

    from crlookup.features.ask.embedding import load_model
    from crlookup.features.ask.semantic import passage

    moon = [
        r.text for r in library.reader.cards().rulings(library.reader.cards().card("Blood Moon"))
    ]
    shipped = rulings.vectors_for(library.reader, moon)
    assert all(v is not None for v in shipped)
    stored = np.array([np.frombuffer(v[0], dtype=np.int8) * v[1] for v in shipped if v])
    fresh = library.memo(("ask", "model"), load_model).passage([passage(t) for t in moon])
    cosine = (stored * fresh).sum(axis=1) / np.linalg.norm(stored, axis=1)
    assert cosine.min() > 0.99, cosine
