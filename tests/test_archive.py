"""The 120 official editions of data/official-cr-archive.tar.xz, each parsed exactly.

The archive is read and parsed once per module. Fidelity is measured by scripts/fidelity.py,
which reads the printed entries with its own simple reading of the raw text; the regression
tests below name what the corpus README (../shared/corpus/README.md) describes: the old
numbering, the hard-wrapped files, the glossaries of 2003-03-15 and 2013-02-01, and Wizards'
numbering slips, each a real entry of its edition.
"""

from __future__ import annotations

import importlib.util
import io
import re
import tarfile
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup.core import numbers
from crlookup.core.errors import SourceError
from crlookup.sources import archive, text

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = ROOT / "data" / "official-cr-archive.tar.xz"


def member(day: str) -> str:
    return f"MagicCompRules-{day}.txt"


@pytest.fixture(autouse=True)
def crlookup_home(tmp_path, monkeypatch) -> Path:
    """These tests parse files and need no built library: an empty home instead of conftest's."""
    monkeypatch.setenv("CRLOOKUP_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def members() -> dict[str, bytes]:
    found, skipped = archive.members(ARCHIVE)
    assert not skipped
    return dict(found)


@pytest.fixture(scope="module")
def editions(members, archive_editions):
    """Each member's edition, as the archive parser reads it (parsed once per session), in
    the archive's order: test_all_120_editions_parse checks each is named after its member."""
    assert len(archive_editions) == len(members)
    return dict(zip(members, archive_editions))


@pytest.fixture(scope="module")
def fidelity():
    spec = importlib.util.spec_from_file_location("fidelity", ROOT / "scripts" / "fidelity.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def entries(editions, day: str, number: str) -> list:
    """The entries of that number, in document order."""
    return [r for r in editions[member(day)].rules if r.number == number]


def notes(editions, day: str) -> tuple[str, ...]:
    return editions[member(day)].notes


# --- every edition -----------------------------------------------------------------------


def test_all_120_editions_parse(members, editions):
    assert len(members) == 120
    assert min(members) == member("2003-03-15") and max(members) == member("2026-08-07")
    for name, e in editions.items():
        if name != member("2006-06-01"):  # (misfiled: the June 1, 2004 edition)
            assert e.id == "en-" + name[len("MagicCompRules-") : -len(".txt")]
        assert e.lang == "en" and e.source == name and not e.partial, name
        assert e.rules[0].number == "1" and e.glossary, name


@pytest.fixture(scope="module")
def measured(members, editions, fidelity):
    return [fidelity.measure(name, data, editions[name]) for name, data in members.items()]


def test_fidelity_of_every_edition(measured, fidelity):
    """Every printed entry with its number and text, at >= 0.995 per edition."""
    results = measured
    failures = [
        f"{r.name}: fidelity {r.fidelity:.4f} ({r.found}/{r.printed}): {fidelity.why(r)}"
        for r in results
        if r.fidelity < fidelity.THRESHOLD
    ]
    assert not failures, "\n".join(failures)
    assert sum(r.printed for r in results) > 250_000


def test_nothing_invented_and_in_printed_order(measured, fidelity):
    """The parser gives no entry that is not printed so, and its numbers run as printed."""
    wrong = [f"{r.name}: {fidelity.why(r)}" for r in measured if r.extra or not r.in_order]
    assert not wrong, "\n".join(wrong)


def test_the_measure_sees_a_merged_entry(members, editions, fidelity):
    """The measure is not blind: an entry glued onto its neighbour costs fidelity."""
    name = member("2021-09-24")
    e = editions[name]
    i = next(i for i, r in enumerate(e.rules) if r.number == "724.3a")
    merged = e.rules[i - 1]._replace(text=e.rules[i - 1].text + "\n" + e.rules[i].text)
    glued = e._replace(rules=(*e.rules[: i - 1], merged, *e.rules[i + 1 :]))
    result = fidelity.measure(name, members[name], glued)
    assert result.found == result.printed - 2 and result.extra == 1 and not result.in_order
    assert ("724.3a", fidelity.normalise(e.rules[i].text)) in result.missed


def test_the_script_fails_below_the_threshold(
    members, editions, fidelity, tmp_path, capsys, monkeypatch
):
    """scripts/fidelity.py prints its table and exits 1 when an edition falls below 0.995."""
    name = member("2021-09-24")
    small = tmp_path / "one.tar"
    with tarfile.open(small, "w") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(members[name])
        tar.addfile(info, io.BytesIO(members[name]))
    assert fidelity.main(["--archive", str(small)]) == 0
    e = editions[name]
    lossy = e._replace(rules=tuple(r for r in e.rules if r.kind != "subrule" or "a" in r.number))
    monkeypatch.setattr(fidelity.archive, "read_member", lambda *args: lossy)
    assert fidelity.main(["--archive", str(small)]) == 1
    out = capsys.readouterr().out
    assert "2021-09-24" in out and "BELOW" in out and "1 below 0.995" in out


# Stated dates that differ from the member's name (checked with grep "as of" on the files):
# the edition keeps the stated date, is named after the member, and notes the difference.
STATED = {
    "2013-04-29": date(2013, 5, 1),
    "2013-07-11": date(2013, 7, 13), "2014-09-26": date(2014, 9, 25),
    "2017-01-19": date(2017, 1, 20), "2017-07-07": date(2017, 7, 8),
    "2017-09-25": date(2017, 9, 29), "2019-06-12": date(2019, 6, 14),
    "2020-01-22": date(2020, 1, 24), "2021-02-02": date(2021, 2, 5),
    "2021-02-24": date(2021, 2, 15), "2021-04-19": date(2021, 4, 22),
    "2021-06-09": date(2021, 6, 18), "2021-07-12": date(2021, 7, 23),
    "2021-11-15": date(2021, 11, 19), "2024-02-06": date(2024, 2, 2),
    "2024-04-10": date(2024, 4, 12), "2024-08-02": date(2024, 7, 30),
    "2024-09-17": date(2024, 9, 20),
}  # fmt: skip


def test_stated_dates(editions):
    for name, e in editions.items():
        day = name[len("MagicCompRules-") : -len(".txt")]
        if day == "2006-06-01":  # misfiled: test_a_misfiled_member_is_the_edition_it_states
            continue
        assert e.id == f"en-{day}"
        stated = STATED.get(day, date.fromisoformat(day))
        assert e.date == stated, name
        filed = [n for n in e.notes if n.startswith("filed as")]
        if day in STATED:
            assert filed == [f"filed as {day}; the text states it takes effect {stated}"]
        else:
            assert not filed, name


# --- counts ------------------------------------------------------------------------------

# (chapters, sections, rules, subrules, glossary terms), counted independently: numbered lines
# by scripts/fidelity.py's reading, glossary terms as paragraphs of two lines or more.
COUNTS = {
    "2003-03-15": (5, 66, 259, 255, 211),
    "2003-10-01": (5, 69, 319, 367, 299),
    "2006-06-01": (5, 69, 323, 375, 307),
    "2009-02-01": (6, 85, 489, 694, 401),
    "2009-07-11": (8, 104, 648, 824, 408),
    "2013-02-01": (9, 124, 840, 1082, 30),
    "2021-09-24": (9, 137, 1022, 1586, 606),
    "2024-09-17": (9, 144, 1128, 1888, 698),
    "2026-08-07": (9, 147, 1173, 1989, 739),
}


@pytest.mark.parametrize("day", sorted(COUNTS))
def test_counts(editions, day):
    e = editions[member(day)]
    kinds = Counter(r.kind for r in e.rules)
    got = (kinds["chapter"], kinds["section"], kinds["rule"], kinds["subrule"], len(e.glossary))
    assert got == COUNTS[day]


# --- Wizards' numbering slips: real entries, kept as printed --------------------------------

# (edition, number, the beginnings of its entries' texts in document order)
PRINTED_TWICE = [
    ("2005-08-01", "605.2c", ["The deploy creatures option isn't used in the Free-for-All",
                              "The deploy creatures option isn't normally used in the Teams"]),
    ("2006-05-01", "501.2", ["Evasion abilities are cumulative.",
                             "Status is not a characteristic"]),
    ("2006-05-01", "501.3", ["Some creatures have abilities that restrict how they can block.",
                             "Permanents come into play untapped, unflipped, and face up"]),
    ("2006-06-01", "502.35b", ["If a creature has multiple instances of modular",
                               "If a spell or ability has multiple instances of scry"]),
    ("2009-09-04", "702.30d", ["Objects with more than one kicker cost",
                               "If part of a spell's ability has its effect only if that"]),
    ("2009-10-01", "702.30d", ["Objects with more than one kicker cost",
                               "If part of a spell's ability has its effect only if that"]),
    ("2024-09-17", "702.175", ["Offspring", "Impending"]),
    ("2024-09-17", "702.175a", ["Offspring represents two abilities.",
                                "Impending is a keyword that represents four abilities."]),
]  # fmt: skip


@pytest.mark.parametrize("day, number, starts", PRINTED_TWICE)
def test_a_number_printed_twice_is_two_entries(editions, day, number, starts):
    found = entries(editions, day, number)
    assert [r.text[: len(start)] for r, start in zip(found, starts)] == starts
    assert len(found) == 2
    first, second = found
    assert second.source.line > first.source.line
    # neither swallowed the other, nor the entry before it
    assert starts[1] not in first.text
    rules = editions[member(day)].rules
    before = rules[rules.index(second) - 1]
    assert starts[1] not in before.text
    assert (
        f"line {second.source.line}: {number} printed twice (first at line {first.source.line}); "
        "kept as a second entry"
    ) in notes(editions, day)


def test_2024_09_17_impending(editions):
    rules = [r for r in editions[member("2024-09-17")].rules if r.number.startswith("702.175")]
    assert [(r.number, r.title) for r in rules] == [
        ("702.175", "Offspring"), ("702.175a", ""), ("702.175b", ""),
        ("702.175", "Impending"), ("702.175a", ""),
    ]  # fmt: skip
    assert "Impending" not in rules[2].text


def test_2021_09_24_subrules_without_their_rule(editions):
    e = editions[member("2021-09-24")]
    numbers_724 = [r.number for r in e.rules if r.number.startswith("724")]
    assert numbers_724 == ["724", "724.1", "724.1a", "724.2", "724.3a", "724.3b", "724.3c"]
    rules = {r.number: r for r in e.rules}
    assert rules["724.3a"].text.startswith("If it’s day and the previous turn’s active player")
    assert rules["724.3c"].text == (
        "If it’s neither day nor night, this check doesn’t happen and it remains neither."
    )
    assert "If it’s day" not in rules["724.2"].text
    for letter, line in zip("abc", (5234, 5236, 5238)):
        assert rules[f"724.3{letter}"].source.line == line
        assert f"line {line}: 724.3{letter} printed without its rule 724.3" in e.notes


@pytest.mark.parametrize(
    "day, number, line, start, note",
    [
        ("2006-10-01", "432.2b", 1404,
         "If an effect instructs more than one player to draw cards in a Two-Headed Giant game",
         "432.2b printed under section 423"),
        ("2006-05-01", "501.4", 2030, "A permanent retains its status",
         "501.4 comes after 510.1"),
        ("2008-10-01", "306.1c", 839, "If an effect would put a creature into play blocking",
         "306.1c comes after 306.3a"),
        ("2010-06-18", "505.5a", 1547, "The main phase is the only phase",
         "505.5a comes after 505.54"),
        ("2010-06-18", "505.54", 1545, "Third, the active player gets priority", None),
    ],
)  # fmt: skip
def test_a_misnumbered_entry_stays_where_printed(editions, day, number, line, start, note):
    [r] = entries(editions, day, number)
    assert r.source.line == line and r.text.startswith(start)
    rules = editions[member(day)].rules
    assert start not in rules[rules.index(r) - 1].text
    if note:
        assert f"line {line}: {note}" in notes(editions, day)


def test_2008_10_01_a_line_that_is_no_number(editions):
    """ "306.b If an effect ..." has no rule number to keep: text of the rule above, noted."""
    [r] = entries(editions, "2008-10-01", "306.3a")
    assert "\n306.b If an effect would put a creature into play attacking" in r.text
    assert "line 837: '306.b' is no rule number, read as text of 306.3a" in notes(
        editions, "2008-10-01"
    )


# --- old numbering, hard wrapping, one long line -------------------------------------------


def test_old_numbering(editions):
    """Before July 2009 the keywords were section 502 of chapter 5; then 702."""
    old = {r.number: r for r in editions[member("2009-02-01")].rules}
    assert [old[n].title for n in ("5", "502", "502.2", "502.63")] == [
        "Additional Rules", "Keyword Abilities", "First Strike", "Deathtouch",
    ]  # fmt: skip
    assert old["502.63a"].text.startswith("Deathtouch is a triggered ability.")
    assert old["502.35b"].text.startswith("If a creature has multiple instances of modular")
    new = {r.number: r for r in editions[member("2009-07-11")].rules}
    assert new["702.2"].title == "Deathtouch" and new["502"].title == "Untap Step"
    assert [r.number for r in editions[member("2003-03-15")].rules][:4] == [
        "1", "100", "100.1", "100.2",
    ]  # fmt: skip


@pytest.mark.parametrize("day", ["2003-10-01", "2003-12-01", "2004-02-01"])
def test_hard_wrapped_files(editions, day):
    e = editions[member(day)]
    [rule] = entries(editions, day, "413.2d")
    # a wrapped line "103.4. If a player must ..." is text, not a second 103.4
    assert len(entries(editions, day, "103.4")) == 1
    assert "See rule 103.4. If a player must make more than one choice" in rule.text
    # the lines of a paragraph are joined; an indented line starts a new paragraph
    assert rule.text.count("\n") == 1
    assert "\nSome spells and abilities have multiple steps or actions" in rule.text
    # lines broken after a hyphen join without a space
    text_all = "\n".join(r.text for r in e.rules)
    assert "Snow-Covered Swamp" in text_all and "Snow- Covered" not in text_all
    examples = "\n".join(x for r in e.rules for x in r.examples)
    assert "-1/-1 until end of turn" in examples
    assert not any(
        "out of sequence" in n or ("printed" in n and "period" not in n) for n in e.notes
    )


def test_2003_10_01_wrapped_rule_number_is_text(editions):
    """'419.8 "Sources of Damage."' at the start of a wrapped line belongs to 200.9c."""
    [r] = entries(editions, "2003-10-01", "200.9c")
    assert r.text.endswith('source of that type—either a source of an ability or a source of '
                           'damage. See rule 419.8 "Sources of Damage."')  # fmt: skip
    assert r.source.line == 319
    [real] = entries(editions, "2003-10-01", "419.8")
    assert real.title == "Sources of Damage" and real.source.line == 2256
    [after] = entries(editions, "2003-10-01", "200.10")
    assert after.source.line == 323
    assert after.text.startswith("A counter is a marker placed on an object or player")


def test_a_misfiled_member_is_the_edition_it_states(members, editions):
    """MagicCompRules-2006-06-01.txt states June 1, 2004 (at its top and its end), its
    copyright is 1993-2004 and it has Fifth Dawn's sunburst but not Champions of Kamigawa's
    bushido (October 2004): it is the Fifth Dawn edition, named after it (issue 46: it stood
    in 2006 with a 2004 date)."""
    data = members[member("2006-06-01")]
    assert data.count(b"These rules are current as of June 1, 2004.") == 2
    assert b"(c)1993-2004" in data and b"Sunburst" in data and b"Bushido" not in data
    e = editions[member("2006-06-01")]
    assert e.date == date(2004, 6, 1) and e.id == "en-2004-06-01"
    assert any(n.startswith("misfiled: the archive names it 2006-06-01") for n in e.notes)
    others = [x for name, x in editions.items() if "2006-06-01" not in name]
    assert all(abs((x.date - date.fromisoformat(x.id[3:])).days) <= 11 for x in others)


def test_2006_06_01_one_line_of_bare_cr(members, editions):
    data = members[member("2006-06-01")]
    assert b"\n" not in data and data.count(b"\r") > 2000
    e = editions[member("2006-06-01")]
    assert e.date == date(2004, 6, 1) and e.id == "en-2004-06-01"
    assert e.rules[2].number == "100.1" and e.rules[2].source.line > 100
    assert e.glossary[0].term == "Ability" and len(e.glossary) == 307


# --- glossaries ----------------------------------------------------------------------------


def test_2003_03_15_expansion_symbol_list(editions):
    e = editions[member("2003-03-15")]
    terms = [g.term for g in e.glossary]
    assert len(terms) == 211
    i = terms.index("Expansion Symbol")
    assert terms[i - 1 : i + 2] == ["Exchange", "Expansion Symbol", "Face-Down"]
    definition = e.glossary[i].definition
    assert definition.startswith("The small icon printed below the right edge")
    lines = definition.split("\n")
    assert lines[1:4] == [
        "The expansion symbols to date are:", "Expansions and Editions",
        "Arabian Nights(r) [symbol]",
    ]  # fmt: skip
    for item in ("Onslaught(tm) [symbol]", "Starter-Level Sets", "Promotional Cards",
                 "DCI(tm) promo cards [symbol]", "Social-Play Sets"):  # fmt: skip
        assert item in lines
    assert lines[-1] == "Unglued(tm) [symbol]" and len(lines) == 44
    assert e.glossary[i + 1].definition.startswith('See rule 504, "Face-Down Spells')
    assert (
        "lines 1593-1675: 42 one-line paragraphs read as part of the definition of "
        "'Expansion Symbol'" in e.notes
    )


def test_2013_02_01_glossary_cut_short(editions):
    e = editions[member("2013-02-01")]
    terms = [g.term for g in e.glossary]
    assert len(terms) == 30 and terms[0] == "Abandon" and terms[-1] == "Attack Left Option"
    assert e.glossary[-1].definition.startswith("An option that may be used in certain")
    assert (
        "line 4609: the glossary ends in the term 'Attack Multiple Players' without its "
        "definition (the file is cut short): 30 terms kept" in e.notes
    )
    assert len(e.rules) == 2055 and not e.partial  # the rules are complete


# --- defects and what is not a CR ------------------------------------------------------------


def test_local_defects_keep_the_good_entries(members, editions):
    """A stray example, a misnumber, a repeat and a cut glossary: noted, nothing refused."""
    name = member("2026-08-07")
    data = members[name].replace(b"\r\n", b"\n")
    original = editions[name]
    lines = data.split(b"\n")
    at = {line.split(b" ")[0]: i for i, line in enumerate(lines) if line[:1].isdigit()}
    assert lines[at[b"100.2."] + 2].startswith(b"100.2a ")
    damage = {
        at[b"101."] + 1: b"Example: a stray example under a heading.",
        at[b"100.1."] + 2: b"050.1. Not a number.",
        at[b"100.2."] + 4: lines[at[b"100.2."] + 2],  # 100.2a printed twice
    }
    for i in sorted(damage, reverse=True):
        lines.insert(i, damage[i])
    cut = b"\n".join(lines)
    cut = cut[: cut.rindex(b"\nCredits")].rstrip()
    cut = cut[: cut.rindex(b"\n")]  # the last term without its definition, and no Credits
    [e] = text.read(Path(name), cut)
    assert len(e.rules) == len(original.rules) + 1
    assert len(e.glossary) == len(original.glossary) - 1
    assert [r.number for r in e.rules].count("100.2a") == 2
    joined = "\n".join(e.notes)
    for expected in ("an example right after the heading 101",
                     "'050.1.' is no rule number, read as text of 100.1",
                     "100.2a printed twice", "the glossary ends in the term"):  # fmt: skip
        assert expected in joined


@pytest.mark.parametrize(
    "data, message",
    [
        (b"Hello world\n", "MagicCompRules-2030-01-01.txt:1: expected the sentence"),
        (b"Comprehensive Rules\nThese rules are effective as of May 1, 2030.\nNo rules.\n",
         "MagicCompRules-2030-01-01.txt:4: expected numbered rules"),
    ],
)  # fmt: skip
def test_a_member_that_is_no_cr_is_a_source_error(data, message):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(member("2030-01-01"))
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(SourceError) as e:
        archive.read(Path("x.tar"), buffer.getvalue())
    assert str(e.value).startswith(f"x.tar:{message}") and "\n" not in str(e.value)


# --- properties of the text parser ---------------------------------------------------------

HEADER = (
    "Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of May 1, 2030.\n\n"
)


def _sample_lines() -> list[str]:
    """Real lines from the corpus's trickiest places, with a few made-up traps."""
    with tarfile.open(ARCHIVE) as tar:
        picks = {"2003-10-01": (300, 360), "2003-03-15": (1585, 1680),
                 "2024-09-17": (5214, 5236), "2021-09-24": (5224, 5242),
                 "2009-07-11": (2570, 2582)}  # fmt: skip
        lines = []
        for day, (a, b) in picks.items():
            raw = tar.extractfile(member(day)).read()
            body = raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "cp1252")
            lines += re.split(r"\r\n|\r|\n", body)[a:b]
    return [*lines, "Glossary", "Credits", "Example: e", "   indented", "050.1. x", "306.b y",
            "1. Chapter", "100. Section", "", ""]  # fmt: skip


LINES = _sample_lines()


def _check(edition) -> None:
    """What holds of any edition the parser returns."""
    for r in edition.rules:
        assert r.kind == numbers.parse(r.number).kind
    numbers_ = [r.number for r in edition.rules]
    repeats = Counter(numbers_) - Counter(set(numbers_))
    noted = Counter(
        m.group(1) for n in edition.notes if (m := re.search(r": (\S+) printed twice", n))
    )
    assert repeats == noted


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(st.sampled_from(LINES), max_size=80),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252"]),
)
def test_interleaved_real_lines_parse_or_raise_source_error(lines, end, codec):
    data = (HEADER + "\n".join(lines)).replace("\n", end).encode(codec, errors="replace")
    try:
        [e] = text.read(Path("fuzz.txt"), data)
    except SourceError as error:
        assert "\n" not in str(error)
        return
    _check(e)


@settings(max_examples=examples(150), deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_after_a_header_parse_or_raise_source_error(tail):
    try:
        [e] = text.read(Path("fuzz.txt"), HEADER.encode() + b"100.1. x\n" + tail)
    except SourceError:
        return
    _check(e)


def _start_of_a_wrapped_file() -> bytes:
    """The header and the first 4 KB of 2003-10-01's body."""
    with tarfile.open(ARCHIVE) as tar:
        raw = tar.extractfile(member("2003-10-01")).read()
    at = raw.index(b"\r\n100.1. ")
    return HEADER.encode() + raw[at - 40 : at + 4000]


WRAPPED_START = _start_of_a_wrapped_file()


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4000), st.binary(min_size=1, max_size=3)), max_size=8))
def test_a_damaged_real_file_parses_or_raises_source_error(damage):
    data = bytearray(WRAPPED_START)
    for at, junk in damage:
        data[at : at + len(junk)] = junk
    try:
        [e] = text.read(Path("fuzz.txt"), bytes(data))
    except SourceError:
        return
    _check(e)
