"""The parser of the saved rules web page (section 702 of July 16, 2010, from a Russian site).

Expectations are derived independently of the parser: the test reads the file as UTF-8,
counts the lines that start with a 702.N number with its own loose patterns, takes the
unnumbered non-blank lines between the first rule and the first "|" line after it as the
fragments that belong to the rule above, and rebuilds each rule's text from its lines.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup.core.errors import SourceError
from crlookup.sources import text, webpage

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
NAME = "cr-2010-07-16-en-section702-webpage.txt"
CUT = ROOT / "tests" / "data" / "webpage" / "cr-2010-07-16-en-section702-cut.txt"
CHROME_WORDS = (
    "Additional Rules",
    "Keyword Actions",
    "Turn-Based Actions",
    "Contents",
    "Glossary",
    "Magic: the Gathering",
)


def raw_lines(path: Path = DATA / NAME) -> list[str]:
    return path.read_bytes().decode("utf-8").split("\n")


def body(lines: list[str]) -> list[tuple[int, str]]:
    """(1-based line, stripped text) from the first numbered line to the first '|' line after it."""
    start = next(i for i, line in enumerate(lines) if re.match(r"\d{3}\.\d", line))
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("|"))
    return [(i + 1, lines[i].strip()) for i in range(start, end)]


def numbered(s: str) -> re.Match | None:
    return re.match(r"^(702\.\d+[a-z]*)\s", s + " ")


@pytest.fixture(scope="module")
def edition():
    [e] = webpage.read(DATA / NAME, (DATA / NAME).read_bytes())
    return e


@pytest.fixture(scope="module")
def rules(edition):
    return {r.number: r for r in edition.rules}


def test_identity(edition):
    assert edition.id == "en-2010-07-16"
    assert edition.lang == "en" and edition.date == date(2010, 7, 16)
    assert edition.partial
    assert edition.source == NAME
    assert edition.glossary == ()
    # the page states no date: the parser says where it took it from
    assert any("taken from the file name" in n for n in edition.notes)


def test_counts_match_the_numbered_lines(edition):
    lines = raw_lines()
    c = Counter()
    for line in lines:
        if re.match(r"^\d{3}\.\d+[a-z]+\s", line):
            c["subrule"] += 1
        elif re.match(r"^\d{3}\.\d+\s", line):
            c["rule"] += 1
    # measured with grep: 334 numbered lines, all of section 702, 702.1 to 702.86
    assert (c["rule"], c["subrule"]) == (86, 248)
    got = Counter(r.kind for r in edition.rules)
    assert got == Counter({"rule": c["rule"], "subrule": c["subrule"]})
    want = [f"702.{n}" for n in range(1, 87)]
    assert [r.number for r in edition.rules if r.kind == "rule"] == want


def test_nothing_lost_or_merged(edition):
    """Every numbered line is one entry, in order, and no entry swallowed the next."""
    want = [m.group(1) for line in raw_lines() if (m := numbered(line))]
    assert [r.number for r in edition.rules] == want
    for r in edition.rules:
        assert not re.search(r"\b702\.\d+[a-z]* [A-Z]", r.text), r.number


def test_text_is_the_lines_joined(edition):
    """A rule's text is its own line and the unnumbered lines below it, joined with one space."""
    expected: dict[str, list[str]] = {}
    current = None
    for _, s in body(raw_lines()):
        m = numbered(s)
        if m:
            current = m.group(1)
            expected[current] = [s[len(current) :].strip()]
        elif s:
            expected[current].append(s)
    for r in edition.rules:
        assert r.text == " ".join(expected[r.number]), r.number


def test_every_text_occurs_in_the_source(edition):
    """Modulo the joins (white space), every rule text is in the file, character for character."""
    source = re.sub(r"\s", "", "".join(raw_lines()))
    for r in edition.rules:
        assert re.sub(r"\s", "", r.text) in source, r.number
    # and rules without joins are their line exactly
    lines = raw_lines()
    for r in edition.rules:
        line = lines[r.source.line - 1].strip()
        if r.number not in ("702.21a", "702.34a", "702.34b", "702.38a", "702.48a", "702.63a"):
            assert line == f"{r.number} {r.text}".strip(), r.number


def test_short_line_joins(edition, rules):
    lines = body(raw_lines())
    fragments = [(n, s) for n, s in lines if s and not numbered(s)]
    assert len(fragments) == 11
    assert [n for n, _ in fragments] == [111, 112, 181, 183, 198, 237, 241, 242, 243, 244, 295]
    assert any(n.startswith("11 short lines joined") for n in edition.notes)
    assert any("no 'Example:' paragraphs" in n for n in edition.notes)
    assert not any(r.examples for r in edition.rules)
    # the convoke rule split over six lines by lost mana symbols is one rule
    r = rules["702.48a"]
    assert r.source.line == 236
    assert r.text.startswith("Convoke is a static ability that functions while the spell")
    assert (
        "reduces the cost to cast this spell by or by one mana of any of that creature’s colors."
        in r.text
    )
    assert r.text.endswith(
        "601.2e–g. . You choose whether the green-white creature reduces the spell’s cost by"
        " , , or . Then the creatures become tapped as you pay Guardian of Vitu-Ghazi’s cost."
    )
    assert "by paying rather than paying its mana cost." in rules["702.34a"].text
    assert rules["702.38a"].text.endswith(
        '"This spell costs you less to cast for each [text] you control."'
    )
    assert rules["702.63a"].text.endswith(
        'by ." Using the delve ability follows the rules for paying additional costs in rules'
        " 601.2b and 601.2e–g."
    )
    # no symbol is invented
    assert not any(re.search(r"\{[^}]*\}", r.text) for r in edition.rules)
    # the trailing space of line 112 is not kept
    assert rules["702.21a"].text.endswith("and then may pay")


def test_named_rules(rules):
    assert rules["702.1"].kind == "rule"
    assert rules["702.1"].text.startswith("Most abilities describe exactly what they do in the")
    assert rules["702.1"].text.endswith("sometimes reminder text summarizes the game rule.")
    assert rules["702.1"].title == ""
    d = rules["702.2"]
    assert (d.kind, d.title, d.text, d.source.line) == ("rule", "Deathtouch", "Deathtouch", 5)
    assert [n for n in rules if re.fullmatch(r"702\.2[a-z]+", n)] == [
        "702.2a",
        "702.2b",
        "702.2c",
        "702.2d",
        "702.2e",
        "702.2f",
    ]
    assert rules["702.2a"].text == "Deathtouch is a static ability."
    assert rules["702.2b"].text.endswith("that creature’s toughness. See rules 510.1c–d.")
    assert rules["702.2f"].text.startswith("Multiple instances of deathtouch on the same object")
    assert all(rules[f"702.2{x}"].kind == "subrule" for x in "abcdef")
    assert rules["702.86"].title == "Totem Armor"
    assert rules["702.21"].title == "Cumulative Upkeep"
    # subrule letters skip "l"
    numbers = list(rules)
    assert numbers.index("702.19k") + 1 == numbers.index("702.19m")


def test_no_chrome_in_rules(edition):
    for r in edition.rules:
        for piece in (r.text, r.title):
            assert "|" not in piece and "<<" not in piece and ">>" not in piece, r.number
            assert not re.search(r"[À-ÿ]", piece), r.number  # mojibake
            assert not re.search(r"[Ѐ-ӿ]", piece), r.number  # repaired Russian
            for chrome in CHROME_WORDS:
                assert chrome not in piece, (r.number, chrome)


def test_chrome_repaired_and_reported(edition):
    assert webpage.repair("Ïîëíûå ïðàâèëà Magic") == "Полные правила Magic"
    assert webpage.repair("| ã. Ìîñêâà |") == "| г. Москва |"
    assert webpage.repair("Deathtouch is a static ability.") == "Deathtouch is a static ability."
    assert webpage.repair("the card’s rules – text") == "the card’s rules – text"
    chrome = next(n for n in edition.notes if "page chrome dropped" in n)
    assert chrome.startswith("9 lines of page chrome dropped")
    for said in (
        "Полные правила Magic: the Gathering",
        "Базовые правила",
        "г. Москва",
        '"Рекурсивный" драфт в Хобби-центре',
        "701. Keyword Actions",
        "703. Turn-Based Actions",
    ):
        assert said in chrome


def test_lines_point_at_the_entry(edition):
    lines = raw_lines()
    for r in edition.rules:
        assert lines[r.source.line - 1].startswith(r.number + " "), r.number


def test_sniff():
    assert webpage.sniff((DATA / NAME).read_bytes())
    assert webpage.sniff(CUT.read_bytes())
    for path in sorted(p for p in DATA.rglob("*") if p.is_file()):  # the tournament folder too
        if path.name != NAME:
            assert not webpage.sniff(path.read_bytes()), path.name
    # and the official text parser does not take the page
    assert not text.sniff((DATA / NAME).read_bytes())
    assert not webpage.sniff(b"")
    assert not webpage.sniff(b"\xff\xfe\x00\x00garbage")


def test_cut_fixture_matches_golden(golden):
    """A cut of the real file: header, 702.1-702.2f, 702.21-702.21b, 702.48-702.48b, footer."""
    source = raw_lines()
    cut = raw_lines(CUT)
    assert all(line in source for line in cut)  # cut from the real file, lines unchanged
    [e] = webpage.read(CUT, CUT.read_bytes())
    golden(
        "webpage/cr-2010-07-16-en-section702-cut.golden.json",
        {
            "id": e.id,
            "lang": e.lang,
            "date": e.date.isoformat(),
            "partial": e.partial,
            "title": e.title,
            "notes": list(e.notes),
            "rules": [r.to_dict(e.id) for r in e.rules],
        },
    )


@pytest.mark.parametrize("variant", ["cp1251", "utf-8-cyrillic", "utf-8-bom-crlf"])
def test_other_encodings_of_the_page_read_the_same(edition, variant):
    """The page as the site served it (cp1251), saved with real Cyrillic, or with a BOM and CRLF."""
    mojibake = (DATA / NAME).read_bytes().decode("utf-8")
    russian = "\n".join(webpage.repair(line) for line in mojibake.split("\n"))
    assert "г. Москва" in russian and "Ì" not in russian
    data = {
        "cp1251": russian.encode("cp1251"),
        "utf-8-cyrillic": russian.encode("utf-8"),
        "utf-8-bom-crlf": codecs.BOM_UTF8 + mojibake.replace("\n", "\r\n").encode("utf-8"),
    }[variant]
    assert webpage.sniff(data)
    [e] = webpage.read(Path(NAME), data)
    assert e.rules == edition.rules
    assert e.notes == edition.notes


def test_date_from_the_page_wins():
    said = b"| effective as of July 16, 2010 | Contents |"
    data = CUT.read_bytes().replace(b"| Contents |", said)
    [e] = webpage.read(Path("page.txt"), data)
    assert e.date == date(2010, 7, 16)
    assert "stated by the page" in e.notes[0]
    data = CUT.read_bytes().replace(b"| Contents |", "| от 1 октября 2010 | Contents |".encode())
    [e] = webpage.read(Path("cr-2010-07-16-x.txt"), data)
    assert e.date == date(2010, 10, 1)


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("page.txt", None, "expected an effective date"),
        ("cr-2010-02-30-en.txt", None, "expected a real date, found 'cr-2010-02-30'"),
        ("cr-2010-07-16-en.txt", b"", "expected numbered rules"),
        ("cr-2010-07-16-en.txt", b"|\n| menu |\n", "expected numbered rules"),
        ("cr-2010-07-16-en.txt", b"Hello\n702.1 x\n", "before the first rule"),
        ("cr-2010-07-16-en.txt", b"702.1 x\n|\nfooter text\n", "after the page chrome"),
        ("cr-2010-07-16-en.txt", b"702.1 x\x00y\n", "expected text"),
        ("cr-2010-07-16-en.txt", "702.1 \u0001\n".encode(), "expected text"),
        ("cr-2010-07-16-en.txt", b"702. Keyword Abilities\nstray\n", "after a section heading"),
        ("cr-2010-07-16-en.txt", b"702." + b"9" * 5000 + b" x\n", "before the first rule"),
        ("cr-2010-07-16-en.txt", None, None),
    ],
)
def test_bad_input_raises_source_error(name, data, message):
    if data is None:
        data = CUT.read_bytes()
        if message is None:  # the control case: the same bytes under a dated name parse
            assert webpage.read(Path(name), data)[0].id == "en-2010-07-16"
            return
    with pytest.raises(SourceError) as e:
        webpage.read(Path(name), data)
    assert str(e.value).startswith(name)
    assert message in str(e.value)


def test_example_lines_are_examples():
    """The shipped page has none, but a page that kept its examples gets them as examples."""
    data = b"702.2 Deathtouch\n702.2a A\nby\nExample: You pay\n.\n702.2b B\n"
    [e] = webpage.read(Path("cr-2010-07-16-x.txt"), data)
    rules = {r.number: r for r in e.rules}
    assert rules["702.2a"].text == "A by"
    assert rules["702.2a"].examples == ("You pay .",)
    assert not any("no 'Example:' paragraphs" in n for n in e.notes)
    assert any(n.startswith("2 short lines joined") for n in e.notes)


def test_stray_numbers_are_text():
    data = b"702.2 Deathtouch\n702.2a A.\n702.1 late\n702.2a again\n"
    [e] = webpage.read(Path("cr-2010-07-16-x.txt"), data)
    assert [r.number for r in e.rules] == ["702.2", "702.2a"]
    assert e.rules[1].text == "A. 702.1 late 702.2a again"
    assert sum("out of sequence" in n for n in e.notes) == 2


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_parse_or_raise_source_error(data):
    webpage.sniff(data)
    with contextlib.suppress(SourceError):
        webpage.read(Path("cr-2010-07-16-fuzz.txt"), data)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Ïîëíûå ïðàâèëà Magic: the Gathering",
                "|",
                "| Áàçîâûå ïðàâèëà | Contents |",
                "702.1 Most abilities",
                "702.2 Deathtouch",
                "702.2a Sub",
                "702.2a Dup",
                "702.2b. p",
                "702.3. Defender",
                "702.3",
                "702.",
                "702. Keyword Abilities",
                "7. Additional Rules",
                "7. Additional Rules << 701. Keyword Actions |",
                "701.1 Other",
                "099.1 bad",
                "702.01 x",
                ",",
                ", or",
                ". Then",
                "",
                "   ",
                "| ã. Ìîñêâà |",
                "Ì",
                "702.5x5 token",
                "effective as of May 1, 2030",
            ]
        ),
        max_size=30,
    ),
    st.sampled_from(["cr-2010-07-16-fuzz.txt", "fuzz.txt"]),
)
def test_arbitrary_line_sequences_parse_or_raise_source_error(lines, name):
    data = "\n".join(lines).encode()
    try:
        [e] = webpage.read(Path(name), data)
    except SourceError:
        return
    numbers = [r.number for r in e.rules]
    assert len(numbers) == len(set(numbers))
    assert e.partial and e.lang == "en"
    for r in e.rules:
        assert "|" not in r.text
