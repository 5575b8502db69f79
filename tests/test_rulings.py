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
    assert rulings.rules_for(unread_links.reader, "Any ruling at all.") == []


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


def test_a_damaged_links_file_is_said_in_one_line_with_the_fix(unread_links, monkeypatch, tmp_path):
    """A truncated or overwritten ruling-links.sqlite is found against the package's record
    (data/checksums.json), by `card` and by `doctor`: one line naming it and the fix (issue
    47: every ruling lost its rules, with exit code 0 and no word, and doctor said ok)."""
    import os
    import shutil

    from conftest import one_line, run

    from crlookup.library import shipped

    real = shipped.folder()
    shutil.copy2(os.path.join(real, rulings.LINKS), tmp_path / rulings.LINKS)
    record = {"files": {rulings.LINKS: shipped.recorded()[rulings.LINKS]}}  # (this one only)
    (tmp_path / shipped.RECORD).write_text(json.dumps(record), encoding="utf-8")
    monkeypatch.setattr(shipped, "folder", lambda: str(tmp_path))
    links = tmp_path / rulings.LINKS
    assert "→ 305.7" in run("card", "Blood Moon").output  # as shipped (and now seen sound)

    def refused(*command: str) -> str:
        unread_links.reader._memo.pop(("rulings", "links"), None)
        found = run(*command, code=1)
        return one_line(found.error.strip().splitlines()[-1])

    data = links.read_bytes()
    links.write_bytes(data[: len(data) // 2])  # truncated
    said = refused("card", "Blood Moon")
    assert said == (
        f"the installed file {links} is damaged ({len(data) // 2:,} bytes, not "
        f"{len(data):,}): reinstall crlookup (pip install --force-reinstall crlookup)"
    )
    middle = len(data) // 2  # the same size, part of it overwritten: its time tells
    links.write_bytes(data[:middle] + bytes(4096) + data[middle + 4096 :])
    os.utime(links, ns=(os.stat(links).st_atime_ns, os.stat(links).st_mtime_ns + 10**9))
    assert "(its contents differ from the package's)" in refused("card", "Blood Moon")
    doctor = run("doctor", code=1)
    assert f"  {links}  its contents differ from the package's" in doctor.output
    assert str(links) in one_line(doctor.error) and "reinstall" in doctor.error
    links.write_bytes(data)
    assert "→ 305.7" in run("card", "Blood Moon").output


def test_the_shipped_files_are_as_recorded():
    """data/checksums.json records every shipped file as it is (scripts/checksums.py writes
    it; after a change to data/, run it)."""
    import subprocess
    import sys

    from conftest import ROOT

    found = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "checksums.py"), "--check"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert found.returncode == 0, found.stdout


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
