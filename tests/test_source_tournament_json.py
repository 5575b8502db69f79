"""The MTR and IPG as folders of JSON (data/tournament/mtr-2025-11-10/, ipg-2024-09-23/), read by
crlookup.sources.tournament_json: counts and order against the index files, named entries with
their text, penalties and parts, each repair of the converter's traps, and bad input (a
SourceError with its file and line, never another exception).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crlookup import sources
from crlookup.core.errors import SourceError
from crlookup.core.model import Edition, Rule
from crlookup.sources import tournament_json

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
MTR = DATA / "tournament" / "mtr-2025-11-10"
IPG = DATA / "tournament" / "ipg-2024-09-23"


@pytest.fixture(scope="module")
def mtr() -> Edition:
    [edition] = tournament_json.read(MTR)
    return edition


@pytest.fixture(scope="module")
def ipg() -> Edition:
    [edition] = tournament_json.read(IPG)
    return edition


def _entries(edition: Edition) -> dict[str, Rule]:
    return {r.number: r for r in edition.rules}


def _raw(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text(encoding="utf-8"))


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, 1) if needle in line)


@contextlib.contextmanager
def _copy(folder: Path) -> Iterator[Path]:
    """A copy of a folder in a temporary directory, for a test to spoil."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / folder.name
        shutil.copytree(folder, copy)
        yield copy


def _write(path: Path, value) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")


# --- identity, counts and order -------------------------------------------------------------


def test_identity(mtr, ipg):
    assert (mtr.id, mtr.lang, mtr.date, mtr.document) == (
        "mtr-2025-11-10",
        "en",
        date(2025, 11, 10),
        "mtr",
    )
    assert mtr.title == "Magic: The Gathering Tournament Rules" and mtr.source == "mtr-2025-11-10"
    assert (ipg.id, ipg.date, ipg.document) == ("ipg-2024-09-23", date(2024, 9, 23), "ipg")
    assert ipg.title == "Magic: The Gathering Infraction Procedure Guide"
    assert ipg.source == "ipg-2024-09-23"
    for edition in (mtr, ipg):
        assert not edition.partial and edition.glossary == ()
        assert all(r.refs == () and r.cards == () for r in edition.rules)
        assert any(n.startswith("effective date") for n in edition.notes)


@pytest.mark.parametrize(("folder", "index", "count_key"), [
    (MTR, "mtr_index.json", "rule_count"),
    (IPG, "ipg_index.json", "infraction_count"),
])  # fmt: skip
def test_order_and_counts_follow_the_index(folder, index, count_key):
    """Each section, then its entries, in the index's order; as many entries as it says."""
    [edition] = tournament_json.read(folder)
    expected: list[tuple[str, str]] = []
    for section in _raw(folder, index)["sections"]:
        number = str(section["section_number"])
        if number.isdigit():
            expected.append((number, "section"))
            expected += [(f"{number}.{i}", "rule") for i in range(1, section[count_key] + 1)]
        else:
            expected.append((number, "appendix"))
    assert [(r.number, r.kind) for r in edition.rules] == expected
    assert len({r.number for r in edition.rules}) == len(edition.rules)


def test_mtr_counts(mtr):
    kinds = [r.kind for r in mtr.rules]
    assert (kinds.count("section"), kinds.count("rule"), kinds.count("appendix")) == (10, 87, 6)
    assert [r.number for r in mtr.rules if r.kind == "appendix"] == list("ABCDEF")
    assert mtr.rules[-7].number == "10.4"


def test_ipg_counts(ipg):
    kinds = [r.kind for r in ipg.rules]
    assert (kinds.count("section"), kinds.count("rule"), kinds.count("appendix")) == (4, 28, 2)
    assert [r.number for r in ipg.rules if r.kind == "rule"][0::9] == ["1.1", "2.5", "3.8", "4.8"]


def test_section_titles_lose_their_number(mtr, ipg):
    sections = [(r.number, r.title) for r in mtr.rules if r.kind == "section"]
    assert sections[:3] == [
        ("1", "Tournament Fundamentals"),
        ("2", "Tournament Mechanics"),
        ("3", "Tournament Rules"),
    ]
    assert sections[-1] == ("10", "Sanctioning Rules")
    assert [r.title for r in ipg.rules if r.kind == "section"] == [
        "General Philosophy",
        "Game Play Errors",
        "Tournament Errors",
        "Unsporting Conduct",
    ]
    assert all(r.text == "" for r in (*mtr.rules, *ipg.rules) if r.kind == "section")


def test_appendix_titles(mtr, ipg):
    assert [(r.number, r.title) for r in mtr.rules if r.kind == "appendix"] == [
        ("A", "Changes From Previous Versions"),
        ("B", "Time Limits"),
        ("C", "Tiebreaker Explanation"),
        ("D", "Recommended Play Booster Mix for Limited Tournaments"),
        ("E", "Recommended Number of Rounds in Swiss Tournaments"),
        ("F", "Rules Enforcement Levels of Programs"),
    ]
    assert [r.title for r in ipg.rules if r.kind == "appendix"] == [
        "Penalty Quick Reference",
        "Changes from Previous Versions",
    ]


def test_sources_name_the_file_and_the_line_of_the_number(mtr, ipg):
    rules, infractions = _entries(mtr), _entries(ipg)
    path = MTR / "mtr_section_3.json"
    assert rules["3.1"].source == ("mtr_section_3.json", _line_of(path, '"number": "3.1"'))
    assert rules["3.16"].source == ("mtr_section_3.json", _line_of(path, '"number": "3.16"'))
    assert rules["3"].source == ("mtr_section_3.json", _line_of(path, '"section_number"'))
    assert rules["C"].source.file == "mtr_appendix_c.json"
    path = IPG / "ipg_section_2.json"
    assert infractions["2.1"].source == ("ipg_section_2.json", _line_of(path, '"number": "2.1"'))
    assert infractions["2.6"].source == ("ipg_section_2.json", _line_of(path, '"number": "2.6"'))


# --- the MTR's text ---------------------------------------------------------------------------


def test_mtr_named_entries(mtr):
    rules = _entries(mtr)
    assert rules["3.1"].title == "Tiebreakers"
    assert rules["3.1"].text.split("\n") == [
        "The following tiebreakers are used to determine how a player ranks in a tournament:",
        "1. Match points",
        "2. Opponents’ match-win percentage",
        "3. Game-win percentage",
        "4. Opponents’ game-win percentage",
        (
            "Definitions of these tiebreakers can be found in Appendix C. Not all of these "
            "tiebreakers may be used in formats with single-game matches."
        ),
    ]
    assert rules["2.2"].title == "Play/Draw Rule"
    assert rules["7.1"].text.startswith("Limited decks must contain a minimum of forty cards.")
    assert rules["4.5"].title == "Triggered Abilities"
    assert rules["B"].text.startswith(
        "The required minimum time limit for any match is 40 minutes."
    )
    assert "• Draft—25 minutes for deck registration and construction." in rules["B"].text
    assert all(r.examples == () and r.parts == () for r in mtr.rules)


def test_wrapped_lines_are_joined_and_paragraphs_kept(mtr):
    rules = _entries(mtr)
    # "...throughout the\ntournament. The Scorekeeper's..." in the JSON: one paragraph
    assert rules["1.9"].text.split("\n")[0] == (
        "The Scorekeeper ensures the correct generation of pairings and all other tournament "
        "records throughout the tournament. The Scorekeeper’s responsibilities include:"
    )
    # a short line ending a sentence ends its paragraph ("...plus three minutes.\nFeature...")
    lines = rules["2.6"].text.split("\n")
    assert lines[0].endswith("the time the deck check took plus three minutes.")
    assert lines[1].startswith("Feature matches at a tournament with online coverage")
    # a short line without a full stop (a date heading) is a line of its own
    assert rules["A"].text.split("\n")[1:3] == ["November 10, 2025", "3.7: New set added."]
    assert any(
        re.fullmatch(r"joined \d+ lines the PDF wrapped inside paragraphs", n) for n in mtr.notes
    )


def test_fused_list_heading_is_split(mtr):
    lines = _entries(mtr)["3.2"].text.split("\n")
    assert lines == [
        (
            "Wizards of the Coast sanctions the following formats as individual, three-person team, "
            "or Two-Headed Giant tournaments:"
        ),
        "Constructed Formats",
        "• Standard",
        "• Pioneer",
        "• Modern",
        "Eternal Constructed Formats",
        "• Vintage",
        "• Legacy",
        "Limited Formats",
        "• Sealed Deck",
        "• Booster Draft (individual and Two-Headed Giant only)",
        "• Rochester Draft (three-person team only)",
    ]
    assert "MTR 3.2: split 'Modern' from the heading 'Eternal Constructed Formats'" in mtr.notes


def test_rules_enforcement_levels_repaired(mtr):
    text = _entries(mtr)["1.12"].text
    lines = text.split("\n")
    # "Regular Regular tournaments": the run-in heading on its own line, as the others (issue
    # 46: it was dropped, and diff reported it removed)
    at = lines.index("Regular")
    assert lines[at + 1].startswith("Regular tournaments are focused on fun")
    assert "Regular Regular" not in text
    # "...rules-documents. Professional" + "Professional level...": the heading on its own line
    assert lines[lines.index("Professional") + 1].startswith("Professional level tournaments")
    assert "Competitive" in lines
    # "located athttps://"
    assert "athttps" not in text and text.count("located at https://wpn.wizards.com") == 3
    notes = [n for n in mtr.notes if n.startswith("MTR 1.12:")]
    assert any("'Regular'" in n and "from the text it ran into" in n for n in notes)
    assert any("'Professional'" in n for n in notes)


def test_list_introduction_fused_onto_an_item(mtr):
    lines = _entries(mtr)["6.7"].text.split("\n")
    at = lines.index("The following cards are banned in Pioneer tournaments:")
    assert lines[at - 1] == "• Lorwyn Eclipsed (effective January 16, 2026)"
    assert lines[at + 1] == "• Amalia Benavides Aguirre"


def test_appendix_text_loses_its_repeated_heading(mtr, ipg):
    for edition in (mtr, ipg):
        for r in edition.rules:
            if r.kind == "appendix":
                assert not re.match(r"(?i)appendix\s+[a-f]\b", r.text), r.number
                assert any(
                    n.startswith(f"{edition.document.upper()} {r.number}: dropped its heading")
                    for n in edition.notes
                )
    assert _entries(mtr)["C"].text.startswith("Match Points\nPlayers earn 3 match points")
    assert _entries(ipg)["A"].text.startswith(  # (a table: test_the_penalty_quick_reference...)
        "Infraction | Penalty\nGame Play Errors\nMissed Trigger | None"
    )


def test_trailing_heading_in_appendix_c(mtr):
    lines = _entries(mtr)["C"].text.split("\n")
    at = lines.index("Byes")
    assert lines[at - 1].endswith("each opponent has a minimum game-win percentage of 0.33.")
    assert (
        lines[at + 1]
        == "When a player is assigned a bye for a round, they are considered to have won the match 2–0."
    )


def test_words_hyphenated_at_a_line_end(mtr, ipg):
    rules, infractions = _entries(mtr), _entries(ipg)
    assert "invitation-only tournaments" in rules["1.4"].text
    assert "DCI-sanctioned tournament" in rules["1.7"].text
    assert "additional state-based action" in rules["2.4"].text
    assert "8-player playoff" in rules["10.4"].text
    assert "previously-unknown cards" in dict(infractions["2.3"].parts)["additional remedy"]
    # a hyphen before "and" is kept: "pre- and post-sideboard games"
    assert "pre- and post-sideboard" in infractions["B"].text


# --- the IPG's infractions --------------------------------------------------------------------


def test_missed_trigger(ipg):
    r = _entries(ipg)["2.1"]
    assert (r.kind, r.title) == ("rule", "Game Play Error — Missed Trigger")
    assert r.text.startswith(
        "A triggered ability triggers, but the player controlling the ability doesn’t demonstrate "
        "awareness of the trigger’s existence by the first time"
    )
    assert (
        "\n• A triggered ability that changes the rules of the game: The controller must" in r.text
    )
    assert r.examples == (
        "Knight of Infamy (a 2/1 creature with exalted) attacks alone. Its controller says “Take two.”",
        "A player forgets to remove the final time counter from a suspended spell and then draws a card during their draw step.",
        "A player casts Manic Vandal, then forgets its triggered ability by not choosing a target for it. They realize this only after casting another spell.",
        "A player forgets to exile the Angel token created by Geist of Saint Traft at end of combat. They realize the error when declaring blockers during the next turn.",
    )
    parts = dict(r.parts)
    assert [name for name, _ in r.parts] == [
        "penalty",
        "philosophy",
        "additional remedy",
        "upgrade",
    ]
    assert parts["penalty"] == "No Penalty"
    assert parts["philosophy"].startswith("Triggered abilities are common and invisible")
    assert parts["additional remedy"].startswith(
        "If the triggered ability is an enters-the-battlefield"
    )
    assert "Upgrade" not in parts["additional remedy"]
    assert parts["upgrade"].startswith(
        "If the triggered ability is usually considered detrimental for the controlling player"
    )
    assert (
        "IPG 2.1: moved 1 'Upgrade:' paragraph out of the additional remedy into the part 'upgrade'"
        in ipg.notes
    )


def test_penalties_leave_the_titles(ipg):
    raw = {}
    for n in range(1, 5):
        for item in _raw(IPG, f"ipg_section_{n}.json")["infractions"]:
            raw[item["number"]] = item
    infractions = _entries(ipg)
    for number, item in raw.items():
        r = infractions[number]
        penalty = item["penalty"]
        if penalty is None:
            assert number.startswith("1.") and r.parts == ()
            assert r.title.casefold() == item["title"].casefold()  # (in capitals: as printed)
            continue
        assert dict(r.parts)["penalty"] == penalty and r.parts[0] == ("penalty", penalty)
        assert item["title"] == f"{r.title} {penalty}"
        assert not r.title.endswith(penalty)
    assert dict(infractions["3.4"].parts)["penalty"] == "Game Loss"
    assert dict(infractions["4.2"].parts)["penalty"] == "Match Loss"
    assert dict(infractions["4.8"].parts)["penalty"] == "Disqualification"
    assert infractions["4.2"].title == "Unsporting Conduct — Major"
    assert any("removed the penalty the JSON appended to the title" in n for n in ipg.notes)


def test_upgrades_and_downgrades_are_parts(ipg):
    infractions = _entries(ipg)
    tardiness = dict(infractions["3.1"].parts)
    assert tardiness["additional remedy"] == (
        "The players are given a time extension corresponding to the length of the tardiness."
    )
    assert tardiness["upgrade"].startswith("A player not in their seat 10 minutes into the round")
    assert tardiness["downgrade"] == (
        "A player who arrives at their seat before 1 minute has elapsed in the round receives a Warning."
    )
    assert [n for n, _ in infractions["3.1"].parts] == [
        "penalty", "philosophy", "additional remedy", "upgrade", "downgrade",
    ]  # fmt: skip
    outside = dict(infractions["3.2"].parts)  # a downgrade run into the philosophy
    assert outside["downgrade"].startswith("If the information acquired is information")
    assert "Downgrade" not in outside["philosophy"]
    deck_problem = dict(infractions["3.5"].parts)
    assert len(deck_problem["upgrade"].split("\n")) == 3
    assert "upgrade the penalty to a Game Loss" in deck_problem["additional remedy"]  # no label
    assert len(dict(infractions["3.8"].parts)["upgrade"].split("\n")) == 2
    assert [n for n, _ in infractions["4.7"].parts] == ["penalty"]  # philosophy and remedy null
    for r in ipg.rules:
        for name, text in r.parts:
            assert text and not re.search(r"\b(?:Upgrade|Downgrade):", text), (r.number, name)


def test_general_philosophy(ipg):
    infractions = _entries(ipg)
    definitions = infractions["1.1"]
    assert definitions.title == "Definition of Penalties"  # (the JSON's in capitals)
    lines = definitions.text.split("\n")
    # each penalty's heading on a line of its own, as the PDF prints them (issue 46: three of
    # the four were dropped, and diff against the 2020 PDF's reported them removed)
    assert lines[0] == "Warning"
    assert lines[1].startswith("Warnings are used in situations of incorrect play")
    assert lines[2] == "Game Loss"
    at = lines.index("Match Loss")
    assert lines[at + 1] == (
        "A Match Loss is a severe penalty that is usually issued when the match itself has been compromised."
    )
    assert lines[lines.index("Disqualification") + 1].startswith(
        "A Disqualification is issued for activity"
    )
    assert (
        "IPG 1.1: split the heading 'Warning' from the text it ran into ('Warning Warnings are used in situations of incorre…')"
        in ipg.notes
    )
    assert (
        "A good backup will result in a situation where the gained information makes no difference and the line of play remains the same (excepting the error"
        in infractions["1.4"].text
    )
    for n in ("1.1", "1.2", "1.3", "1.4", "1.5"):
        assert infractions[n].parts == () and infractions[n].examples == ()


def test_every_infraction_has_examples_without_their_letters(ipg):
    # the source letters them "A. …", "B. …": the list's markers, not the text ("Example: A."
    # on every face before)
    for r in ipg.rules:
        if r.kind == "rule" and r.number[0] in "234":
            assert r.examples, r.number
            assert not any(re.match(r"[A-Z]\. ", e) for e in r.examples), r.number


def test_a_paragraph_after_a_list_leaves_its_last_item(ipg):
    # the conversion ran every paragraph after a list into its last item (the 2020 PDF prints
    # them as paragraphs): the item ends with its sentences, the paragraph starts a line
    lines = _entries(ipg)["2.1"].text.split("\n")
    assert lines[-2] == (
        "• A triggered ability that affects the game state in non-visible ways: The controller "
        "must make the change known by the first time the change has an effect on the visible "
        "game state."
    )
    assert lines[-1].startswith("Once any of the above obligations has been fulfilled, further")
    last = _entries(ipg)["3.2"].text.split("\n")
    assert last[-2].startswith("• During a game, refers to notes") and last[-2].endswith("match.")
    assert last[-1].startswith("These criteria also apply to any deck construction")
    # a sentence that goes on speaking of the item stays in it, as the 2020 edition prints it
    kept = _entries(ipg)["3.5"].text.split("\n")
    assert kept[-2].endswith(
        "These cards must not be sleeved in the same way as cards in the main deck and/or sideboard."
    )
    assert kept[-1].startswith("Cards in different sleeves, tokens, and double-faced cards")
    assert "IPG 4.8: the paragraph after a list ran into its last item" in " ".join(ipg.notes)


def test_titles_in_capitals_read_as_printed(ipg):
    titles = {n: _entries(ipg)[n].title for n in ("1.1", "1.3", "1.4", "1.5", "2.1")}
    assert titles == {
        "1.1": "Definition of Penalties",
        "1.3": "Randomizing a Library",
        "1.4": "Backing Up",
        "1.5": "Sets",
        "2.1": "Game Play Error — Missed Trigger",
    }


def test_the_pdf_footer_of_trademarks_is_no_text(mtr, ipg):
    for edition in (mtr, ipg):
        for r in edition.rules:
            assert "All trademarks are property" not in r.text and "©" not in r.text, r.number
    assert _entries(mtr)["F"].text.split("\n")[-1] == "World Championship | Professional"


def test_a_heading_run_into_a_text_that_names_it(mtr):
    lines = _entries(mtr)["C"].text.split("\n")
    assert lines[:2] == [
        "Match Points",
        (
            "Players earn 3 match points for each match win, 0 points for each match loss and 1 "
            "match point for each match ending in a draw. Players receiving byes are considered "
            "to have won the match."
        ),
    ]
    # not a sentence whose subject starts with "The": MTR 2.1
    assert not any(n.startswith("MTR 2.1: split the heading") for n in mtr.notes)


def test_text_is_clean(mtr, ipg):
    for edition in (mtr, ipg):
        for r in edition.rules:
            for text in (r.text, r.title, *r.examples, *(t for _, t in r.parts)):
                assert "\n\n" not in text and "\r" not in text
                assert all(line == line.strip() and "  " not in line for line in text.split("\n"))
                assert all(line.startswith("• ") for line in text.split("\n") if "•" in line[:2])
                assert "athttp" not in text


# --- the examples field as one string, and the title's penalty --------------------------------


def test_examples_in_one_string_are_split_at_their_letters():
    with _copy(IPG) as folder:
        raw = _raw(folder, "ipg_section_2.json")
        listed = raw["infractions"][1]["examples"]
        raw["infractions"][1]["examples"] = " ".join(listed)
        _write(folder / "ipg_section_2.json", raw)
        [edition] = tournament_json.read(folder)
    assert _entries(edition)["2.2"].examples == tuple(e.split(". ", 1)[1] for e in listed)
    assert "IPG 2.2: split its examples at their letters (A., B., ...)" in edition.notes


def test_penalty_only_in_the_title():
    with _copy(IPG) as folder:
        raw = _raw(folder, "ipg_section_3.json")
        raw["infractions"][0]["penalty"] = None
        _write(folder / "ipg_section_3.json", raw)
        [edition] = tournament_json.read(folder)
    tardiness = _entries(edition)["3.1"]
    assert tardiness.title == "Tournament Error — Tardiness"
    assert tardiness.parts[0] == ("penalty", "Game Loss")
    assert any(n.startswith("IPG 3.1: the penalty field is empty") for n in edition.notes)


def test_other_fields_become_parts():
    with _copy(IPG) as folder:
        raw = _raw(folder, "ipg_section_4.json")
        raw["infractions"][0]["judge_notes"] = "Check the area."
        raw["infractions"][0]["upgrade"] = "Repeated: Game Loss."
        _write(folder / "ipg_section_4.json", raw)
        [edition] = tournament_json.read(folder)
    parts = _entries(edition)["4.1"].parts
    assert [n for n, _ in parts] == [
        "penalty",
        "philosophy",
        "additional remedy",
        "upgrade",
        "judge notes",
    ]
    assert dict(parts)["judge notes"] == "Check the area."


# --- detection --------------------------------------------------------------------------------


def test_sniff():
    assert tournament_json.FOLDER is True
    assert tournament_json.sniff_folder(MTR) and tournament_json.sniff_folder(IPG)
    for other in (
        DATA,
        DATA / "tournament",
        DATA / "tournament" / "jar-2019-05-03",
        DATA / "nothing",
    ):
        assert not tournament_json.sniff_folder(other)
    assert not tournament_json.sniff_folder(MTR / "mtr_index.json")
    for path in (
        MTR / "mtr_index.json",
        IPG / "ipg_section_2.json",
        DATA / "cr-2024-07-30-en.json",
    ):
        assert tournament_json.sniff(path.read_bytes()) is False


def test_read_through_the_sources_package():
    assert sources.detect(MTR, None) == "tournament_json"
    [edition] = sources.read(IPG)
    assert edition.id == "ipg-2024-09-23"


# --- bad input --------------------------------------------------------------------------------


def _fails(folder: Path) -> SourceError:
    with pytest.raises(SourceError) as caught:
        tournament_json.read(folder)
    return caught.value


def test_not_a_folder_of_one_document(tmp_path):
    assert "mtr_index.json or ipg_index.json" in str(_fails(tmp_path))
    assert _fails(tmp_path / "missing").found == "nothing"
    assert _fails(MTR / "mtr_index.json").found == "a file"
    shutil.copy(MTR / "mtr_index.json", tmp_path)
    shutil.copy(IPG / "ipg_index.json", tmp_path)
    assert _fails(tmp_path).found == "mtr and ipg"


def test_missing_section_file():
    with _copy(MTR) as folder:
        (folder / "mtr_section_3.json").unlink()
        error = _fails(folder)
    assert error.file == "mtr_index.json"
    assert error.line == _line_of(MTR / "mtr_index.json", '"section_key": "mtr_section_3"')
    assert "mtr_section_3.json" in error.expected


def test_invalid_json_names_its_line():
    with _copy(IPG) as folder:
        path = folder / "ipg_section_3.json"
        lines = path.read_text(encoding="utf-8").split("\n")
        lines[11] = lines[11].rstrip(",")  # a missing comma
        path.write_text("\n".join(lines), encoding="utf-8")
        error = _fails(folder)
    assert error.file == "ipg_section_3.json" and error.line == 13
    assert error.expected.startswith("valid JSON")


def test_not_utf8():
    with _copy(MTR) as folder:
        path = folder / "mtr_section_2.json"
        path.write_bytes(path.read_bytes().replace("’".encode(), "’".encode("cp1252"), 1))
        error = _fails(folder)
    assert error.file == "mtr_section_2.json" and error.expected == "UTF-8 JSON" and error.line


@pytest.mark.parametrize("value", [{"a": 1}, [], "text", None, {"sections": []}, {"sections": [1]}])
def test_index_of_another_shape(value):
    with _copy(MTR) as folder:
        _write(folder / "mtr_index.json", value)
        error = _fails(folder)
    assert error.file == "mtr_index.json"


def test_a_scraped_cr_as_a_section_file():
    with _copy(MTR) as folder:
        shutil.copy(DATA / "cr-2024-07-30-en.json", folder / "mtr_section_5.json")
        error = _fails(folder)
    assert error.file == "mtr_section_5.json" and "rules" in error.expected


def test_entry_of_another_shape():
    with _copy(MTR) as folder:
        raw = _raw(folder, "mtr_section_8.json")
        raw["rules"][2]["number"] = "eight"
        _write(folder / "mtr_section_8.json", raw)
        error = _fails(folder)
        line = _line_of(folder / "mtr_section_8.json", '"number": "eight"')
    assert error.file == "mtr_section_8.json" and error.found == "eight" and error.line == line


def test_a_number_twice():
    with _copy(MTR) as folder:
        raw = _raw(folder, "mtr_section_9.json")
        raw["rules"][1]["number"] = "9.1"
        _write(folder / "mtr_section_9.json", raw)
        error = _fails(folder)
        line = _line_of(folder / "mtr_section_9.json", '"number": "9.1"')
    assert error.file == "mtr_section_9.json" and error.line > line
    assert error.expected == "each number once"


def test_no_entries():
    with _copy(IPG) as folder:
        for path in folder.glob("ipg_[sa]*.json"):
            raw = _raw(folder, path.name)
            raw["infractions"] = []
            _write(path, raw)
        error = _fails(folder)
    assert error.file == "ipg_index.json" and "at least one entry" in error.expected


def test_date_from_the_section_files_when_the_index_has_none():
    with _copy(IPG) as folder:
        raw = _raw(folder, "ipg_index.json")
        del raw["metadata"]
        _write(folder / "ipg_index.json", raw)
        [edition] = tournament_json.read(folder)
    assert edition.date == date(2024, 9, 23)
    assert (
        "effective date 2024-09-23 from ipg_section_1.json: the index states none" in edition.notes
    )


def test_no_effective_date():
    with _copy(IPG) as folder:
        for path in folder.glob("*.json"):
            raw = _raw(folder, path.name)
            raw.pop("metadata", None)
            _write(path, raw)
        error = _fails(folder)
    assert error.file == "ipg_index.json" and "effective date" in error.expected


@pytest.mark.parametrize(("stated", "expected"), [
    ("February 30, 2024", "a real date"),
    ("soon", "an effective date such as 'September 23, 2024' in metadata.effective_date"),
    (20240923, "an effective date such as 'September 23, 2024' in metadata.effective_date"),
])  # fmt: skip
def test_bad_effective_date(stated, expected):
    with _copy(MTR) as folder:
        raw = _raw(folder, "mtr_index.json")
        raw["metadata"]["effective_date"] = stated
        _write(folder / "mtr_index.json", raw)
        error = _fails(folder)
    assert error.file == "mtr_index.json" and error.expected == expected
    assert error.line == _line_of(MTR / "mtr_index.json", '"effective_date"')


# --- properties ------------------------------------------------------------------------------

_KEYS = (
    "number", "title", "content", "definition", "penalty", "examples", "philosophy",
    "additional_remedy", "upgrade", "section_number", "section_key", "sections", "metadata",
    "effective_date", "rules", "infractions",
)  # fmt: skip
_LEAVES = (
    st.none() | st.booleans() | st.integers(-3, 20) | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.sampled_from(["3.1", "C", "mtr_section_1", "September 23, 2024", "Warning", "A. x B. y"])
)  # fmt: skip
JSON_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=25,
)
SLOW = settings(
    max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _read_or_source_error(folder: Path) -> Edition | None:
    try:
        [edition] = tournament_json.read(folder)
    except SourceError:
        return None
    return edition


@SLOW
@given(st.binary(max_size=300))
def test_random_bytes_as_the_index_raise_only_source_error(data):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "mtr_index.json").write_bytes(data)
        assert _read_or_source_error(Path(tmp)) is None


@SLOW
@given(JSON_VALUES)
def test_random_json_as_the_index_raises_only_source_error(value):
    with _copy(MTR) as folder:
        _write(folder / "mtr_index.json", value)
        _read_or_source_error(folder)


@SLOW
@given(st.sampled_from(sorted(p.name for p in IPG.glob("ipg_[sa]*.json"))), JSON_VALUES)
def test_random_json_as_a_section_file_raises_only_source_error(name, value):
    with _copy(IPG) as folder:
        _write(folder / name, value)
        _read_or_source_error(folder)


@SLOW
@given(st.integers(0, 5), st.sampled_from(_KEYS), JSON_VALUES)
def test_a_random_field_raises_only_source_error(at, key, value):
    """One field of one infraction replaced: read, or SourceError; titles never keep a penalty."""
    with _copy(IPG) as folder:
        raw = _raw(folder, "ipg_section_2.json")
        raw["infractions"][at][key] = value
        _write(folder / "ipg_section_2.json", raw)
        edition = _read_or_source_error(folder)
    if edition is not None:
        for r in edition.rules:
            penalty = dict(r.parts).get("penalty")
            assert not penalty or not r.title.casefold().endswith(" " + penalty.casefold())


_NAME_WORDS = st.lists(
    st.sampled_from(["missed", "trigger", "hidden", "card", "error", "extra"]),
    min_size=1,
    max_size=4,
)


@SLOW
@given(
    st.lists(
        st.tuples(_NAME_WORDS, st.sampled_from(tournament_json.PENALTIES), st.booleans()),
        min_size=1,
        max_size=5,
    )
)
def test_titles_never_keep_their_penalty(infractions):
    """Titles "Category — name Penalty", with the penalty in its field or not: the title loses
    it, and the penalty is the first part."""
    with _copy(IPG) as folder:
        raw = _raw(folder, "ipg_section_2.json")
        raw["infractions"] = [
            {"number": f"2.{i}", "title": f"Game Play Error — {' '.join(words)} {penalty}",
             "penalty": penalty if stated else None, "definition": "A player errs."}
            for i, (words, penalty, stated) in enumerate(infractions, 1)
        ]  # fmt: skip
        _write(folder / "ipg_section_2.json", raw)
        [edition] = tournament_json.read(folder)
    found = _entries(edition)
    for i, (words, penalty, _) in enumerate(infractions, 1):
        r = found[f"2.{i}"]
        assert r.title == f"Game Play Error — {' '.join(words)}"
        assert r.parts == (("penalty", penalty),)


def test_the_penalty_quick_reference_is_a_table(ipg):
    """IPG appendix A was one run of words ("Mulligan Procedure Error Warning Game Rule
    Violation Warning"): it is a table, a row per infraction, "infraction | penalty", under
    its category (issue 46); the 2020 edition's official PDF, read by another parser, has the
    same rows."""
    from crlookup.sources import tournament_pdf

    table = _entries(ipg)["A"].text.split("\n")
    assert table[:3] == ["Infraction | Penalty", "Game Play Errors", "Missed Trigger | None"]
    rows = dict(line.split(" | ") for line in table if " | " in line)
    assert len(rows) == 24  # the header and 23 infractions
    assert rows["Mulligan Procedure Error"] == "Warning"
    assert rows["Game Rule Violation"] == "Warning"
    assert rows["Unsporting Conduct — Major"] == "Match Loss"
    assert rows["Cheating"] == "Disqualification"
    assert (
        "IPG A: the table the conversion ran together read as 23 rows of infraction and penalty"
        in (ipg.notes)
    )
    path = DATA / "tournament" / "ipg-2020-04-17" / "mtg_ipg_17apr20_en_0.pdf"
    [pdf] = tournament_pdf.read(path, path.read_bytes())
    [official] = [r for r in pdf.rules if r.number == "A"]
    assert official.text.split("\n") == table


def test_the_rules_enforcement_levels_of_programs_are_a_table(mtr):
    """MTR appendix F's chart was one run of words ("Program Rules Enforcement Level Eternal
    Weekend Competitive Friday Night Magic Regular ..."): "program | level" rows (issue 46)."""
    lines = _entries(mtr)["F"].text.split("\n")
    at = lines.index("Program | Rules Enforcement Level")
    rows = dict(line.split(" | ") for line in lines[at + 1 :] if " | " in line)
    assert len(rows) == 14
    assert rows["Friday Night Magic"] == "Regular"
    assert rows["Game Day"] == "Regular (Competitive recommended)"
    assert rows["Regional Championship Qualifiers"] == "Competitive"
    assert rows["Spotlight Series – Day 2"] == "Professional"
    assert lines[at - 1].startswith("The following chart indicates")
