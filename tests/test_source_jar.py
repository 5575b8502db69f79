"""Judging at Regular REL in Markdown (data/tournament/jar-2019-05-03/JAR_en_2019-05-03.md), read
by crlookup.sources.jar_markdown: its parts and cases in order with their text, the ids of the
cases, the date, what is left out (the Korean translation after the rule), detection, and bad
input (SourceError, never another exception).
"""

from __future__ import annotations

import contextlib
import re
from datetime import date
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup import sources
from crlookup.core.errors import SourceError
from crlookup.core.model import Edition, Rule
from crlookup.sources import jar_markdown

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
JAR = DATA / "tournament" / "jar-2019-05-03" / "JAR_en_2019-05-03.md"
RAW = JAR.read_bytes()
TEXT = RAW.decode("utf-8-sig")
HANGUL = re.compile(r"[\uac00-\ud7a3]")

CASES = [
    (
        "forgets-triggered-ability",
        (
            'A player forgets a triggered ability (one that uses the words "when," "whenever," or '
            '"at the beginning", usually at the start of the ability\'s text)'
        ),
        19,
    ),
    (
        "sees-card-library-shouldnt-seen",
        "A player sees a card in a library that they shouldn’t have seen",
        23,
    ),
    (
        "accidentally-draws-more-cards-hand",
        "A player accidentally draws more cards or has more cards in their hand than they were supposed to",
        27,
    ),
    (
        "makes-in-game-error-not-mentioned",
        "A player makes an in-game error not mentioned above",
        31,
    ),
    (
        "illegal-insufficient-another-cards-deck",
        "A player has illegal, insufficient, or another player’s cards in their deck",
        37,
    ),
]


@pytest.fixture(scope="module")
def jar() -> Edition:
    [edition] = jar_markdown.read(JAR, RAW)
    return edition


def _entries(edition: Edition) -> dict[str, Rule]:
    return {r.number: r for r in edition.rules}


def _read(text: str, name: str = "jar.md") -> Edition:
    [edition] = jar_markdown.read(Path(name), text.encode("utf-8"))
    return edition


def test_identity(jar):
    assert (jar.id, jar.lang, jar.date, jar.document) == (
        "jar-2019-05-03",
        "en",
        date(2019, 5, 3),
        "jar",
    )
    assert jar.title == "Judging at Regular REL" and jar.source == "JAR_en_2019-05-03.md"
    assert jar.glossary == () and not jar.partial
    assert all(r.refs == () and r.examples == () and r.parts == () for r in jar.rules)


def test_structure(jar):
    assert [(r.number, r.kind, r.title) for r in jar.rules if r.kind == "section"] == [
        ("introduction", "section", "Introduction"),
        ("1", "section", "Common Issues"),
        ("2", "section", "General Unwanted Behaviors"),
        ("3", "section", "Serious Problems"),
        ("4", "section", "Resources"),
    ]
    assert [r.number for r in jar.rules] == [
        "introduction", "1", *(number for number, _, _ in CASES), "2", "3", "4",
    ]  # fmt: skip
    assert [(r.number, r.title, r.source.line) for r in jar.rules if r.kind == "rule"] == CASES
    lines = {r.number: r.source for r in jar.rules if r.kind == "section"}
    assert lines == {
        "introduction": ("JAR_en_2019-05-03.md", 2),
        "1": ("JAR_en_2019-05-03.md", 17),
        "2": ("JAR_en_2019-05-03.md", 42),
        "3": ("JAR_en_2019-05-03.md", 53),
        "4": ("JAR_en_2019-05-03.md", 64),
    }
    raw_lines = TEXT.split("\n")
    for r in jar.rules:  # each source line is the entry's heading (the introduction: the title's)
        if r.number != "introduction":
            assert raw_lines[r.source.line - 1].lstrip("#").strip() == r.title


def test_case_ids(jar):
    ids = [r.number for r in jar.rules]
    assert len(ids) == len(set(ids))
    for r in jar.rules:
        if r.kind == "rule":
            assert "." not in r.number and r.number == r.number.lower()
            assert r.number == jar_markdown._slug(r.title)


def test_ids_come_from_titles_not_places():
    """The same cases in another order keep their ids."""
    blocks = re.split(r"\n(?=### )", TEXT[: TEXT.index("## General Unwanted")])
    head, cases = blocks[0], blocks[1:]
    shuffled = head + "\n" + "\n".join(reversed([c.rstrip("\n") + "\n" for c in cases]))
    edition = _read(shuffled + TEXT[TEXT.index("## General Unwanted") :])
    assert [r.number for r in edition.rules if r.kind == "rule"] == [
        n for n, _, _ in reversed(CASES)
    ]


def test_texts(jar):
    entries = _entries(jar)
    intro = entries["introduction"].text.split("\n")
    assert len(intro) == 5
    assert intro[0].startswith(
        "Most Magic™ players play for fun and see a tournament as a social event."
    )
    assert intro[2].startswith("Magic is a complicated game. While we can’t prevent players")
    assert intro[4].endswith("so make sure you're familiar with it before trying a higher REL.")
    assert entries["1"].text == ""
    assert entries["forgets-triggered-ability"].text.startswith(
        "These abilities are considered missed if the player did not acknowledge the ability"
    )
    draws = entries["accidentally-draws-more-cards-hand"].text
    assert "place them on top of the library. Don't shuffle the library after doing this!" in draws
    assert len(entries["makes-in-game-error-not-mentioned"].text.split("\n")) == 2
    assert entries["2"].text.split("\n")[:2] == [
        "• Inadequate shuffling.",
        "• Taking unreasonable amounts of time making play decisions or sideboarding.",
    ]
    assert entries["2"].text.split("\n")[5].startswith("The priority is to educate players")
    serious = entries["3"].text.split("\n")
    assert serious[0].endswith("removed from the venue entirely:")
    assert serious[2] == (
        "• Knowingly breaking or letting an opponent break game or tournament rules, or lying, in "
        'order to gain an advantage. "Bluffing" about cards opponents can\'t normally see is permitted.'
    )
    assert serious[4].startswith("Removing players in this way is called a Disqualification")
    assert entries["4"].text.endswith(
        "All trademarks are property of Wizards of the Coast LLC in the U.S.A. and other countries. ©2019 Wizards."
    )


def test_left_out(jar):
    """The URL, the date line, the Korean title and the Korean translation after the rule."""
    for r in jar.rules:
        for text in (r.text, r.title):
            assert not HANGUL.search(text) and not text.startswith("http") and "**" not in text
            assert "\n\n" not in text and all(line == line.strip() for line in text.split("\n"))
    assert "대부분의" not in " ".join(r.text for r in jar.rules)
    assert (
        "lines 74–114, after the rule at line 73, are not in English (another translation): left out"
        in jar.notes
    )
    assert any(
        n.startswith(
            "line 2: the heading '정규 규칙 적용 수준(REL)에서의 판정' is the document's title"
        )
        for n in jar.notes
    )
    assert (
        "effective date 2019-05-03 from line 4 ('2019년 5월 3일 업데이트됨'); the PDF's name in line 1 agrees"
        in jar.notes
    )


# --- detection --------------------------------------------------------------------------------


def test_sniff():
    assert jar_markdown.sniff(RAW)
    assert jar_markdown.sniff(RAW.replace(b"\xef\xbb\xbf", b"", 1))
    others = [p for p in DATA.rglob("*") if p.is_file() and p != JAR]
    assert DATA / "cr-2019-01-25-ru.md" in others and len(others) > 30
    for path in others:
        assert not jar_markdown.sniff(path.read_bytes()), path
    assert not jar_markdown.sniff(b"") and not jar_markdown.sniff(b"## Regular REL")


def test_sniff_without_the_url():
    english = "## Judging at Regular REL\n\nUpdated May 3, 2019\n\nRegular REL is fun.\n"
    assert jar_markdown.sniff(english.encode())
    assert not jar_markdown.sniff(b"# Notes\n\nJudging at Regular REL, mtg_jar_3may19_en.pdf")


def test_read_through_the_sources_package():
    assert sources.detect(JAR, RAW) == "jar_markdown"
    [edition] = sources.read(JAR)
    assert edition.id == "jar-2019-05-03"


# --- dates --------------------------------------------------------------------------------------


def test_date_from_the_pdf_name_when_no_line_states_it():
    edition = _read(TEXT.replace("*2019년 5월 3일 업데이트됨*", ""))
    assert edition.date == date(2019, 5, 3)
    assert (
        "effective date 2019-05-03 from the PDF's name in line 1: no line states it"
        in edition.notes
    )


def test_english_date_line():
    text = TEXT.replace("*2019년 5월 3일 업데이트됨*", "*Updated June 14, 2019*")
    edition = _read(text)
    assert edition.date == date(2019, 6, 14)
    assert any("the PDF's name in line 1 says 2019-05-03" in n for n in edition.notes)
    assert "Updated" not in edition.rules[0].text


def test_no_date():
    text = TEXT.replace("*2019년 5월 3일 업데이트됨*", "").replace("mtg_jar_3may19_en", "jar")
    with pytest.raises(SourceError) as caught:
        _read(text)
    assert "effective date" in caught.value.expected and caught.value.file == "jar.md"


def test_a_date_that_does_not_exist():
    with pytest.raises(SourceError) as caught:
        _read(TEXT.replace("2019년 5월 3일", "2019년 2월 30일"))
    assert (caught.value.line, caught.value.expected) == (4, "a real date")


# --- other input ------------------------------------------------------------------------------


def test_repeated_case_titles_get_unique_ids():
    text = TEXT.replace(
        "### A player sees a card in a library that they shouldn’t have seen",
        "### A player forgets a triggered ability again",
    )
    ids = [r.number for r in _read(text).rules]
    assert "forgets-triggered-ability-again" in ids
    text = TEXT.replace(
        "### A player sees a card in a library that they shouldn’t have seen",
        "### A player forgets a triggered ability",
    )
    edition = _read(text)
    ids = [r.number for r in edition.rules]
    assert ids[2:4] == ["forgets-triggered-ability", "forgets-triggered-ability-2"]
    assert (
        "line 23: the case's id 'forgets-triggered-ability' is taken: 'forgets-triggered-ability-2'"
        in edition.notes
    )


def test_without_the_title_heading():
    """Text before the first part is the introduction; a first "## Common Issues" is a part."""
    start = TEXT.index("*2019년")
    edition = _read(
        TEXT[:start].replace("## 정규 규칙 적용 수준(REL)에서의 판정\n", "") + TEXT[start:]
    )
    assert [r.number for r in edition.rules][:2] == ["introduction", "1"]
    assert edition.rules[0].source.line == 5 and edition.rules[0].text.startswith("Most Magic™")
    edition = _read(
        "https://x/mtg_jar_3may19_en.pdf\n## Common Issues\n### A player draws\nFix it.\n"
    )
    assert [(r.number, r.title) for r in edition.rules] == [
        ("1", "Common Issues"),
        ("draws", "A player draws"),
    ]
    assert edition.date == date(2019, 5, 3) and edition.rules[1].text == "Fix it."


def test_english_rule_inside_the_document_is_kept():
    text = TEXT.replace("## Resources", "---\n\n## Resources")
    assert [r.number for r in _read(text).rules][-1] == "4"


def test_not_utf8():
    data = RAW.replace("can’t prevent".encode(), "can’t prevent".encode("cp1252"))
    with pytest.raises(SourceError) as caught:
        jar_markdown.read(JAR, data)
    assert (caught.value.file, caught.value.line, caught.value.expected) == (
        "JAR_en_2019-05-03.md",
        10,
        "UTF-8 Markdown text",
    )


@pytest.mark.parametrize(
    "data", [b"", b"\x00\x01", b"just text", "## 정규\n*2019년 5월 3일*\n".encode()]
)
def test_no_parts(data):
    with pytest.raises(SourceError):
        jar_markdown.read(JAR, data)


def test_no_part_heading_after_the_title():
    with pytest.raises(SourceError) as caught:
        _read("https://x/mtg_jar_3may19_en.pdf\n## Judging at Regular REL\n\nRegular REL text.\n")
    assert caught.value.expected == "a part heading ('## …')"


# --- properties ------------------------------------------------------------------------------


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_raise_only_source_error(data):
    with contextlib.suppress(SourceError):
        jar_markdown.read(Path("fuzz.md"), data)
    jar_markdown.sniff(data)


LINES = [
    "## Common Issues", "### A player forgets a triggered ability (one)", "### A player", "### ",
    "### (only a parenthesis)", "### 123", "### Introduction", "#### Deeper", "# Top", "##",
    "Some text.", "more text", " * an item", "   continued", "- dash item", "1. numbered",
    "", "-----------------", "대부분의 매직 플레이어는", "*2019년 5월 3일 업데이트됨*", "**bold** _x_",
    "[link](http://x)", "`code`", "\\* escaped", "https://x/mtg_jar_3may19_en.pdf", "***",
    "### A player. With dots.", "### Player’s the a an", "May 3, 2019",
]  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=40))
def test_random_documents_parse_or_raise_source_error(lines):
    data = ("https://x/mtg_jar_3may19_en.pdf\n## 판정\n" + "\n".join(lines)).encode()
    try:
        [edition] = jar_markdown.read(Path("fuzz.md"), data)
    except SourceError:
        return
    ids = [r.number for r in edition.rules]
    assert len(ids) == len(set(ids)) and all("." not in n and n for n in ids)
    assert all(r.kind in ("section", "rule") for r in edition.rules)
    assert [r.number for r in edition.rules if r.kind == "section" and r.number.isdigit()] == [
        str(i) for i in range(1, 1 + sum(r.number.isdigit() for r in edition.rules))
    ]


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_slices_of_the_real_file_parse_or_raise_source_error(data):
    lines = RAW.split(b"\n")
    start = data.draw(st.integers(0, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    dropped = data.draw(st.sets(st.integers(start, end), max_size=5))
    piece = b"\n".join(lines[i] for i in range(start, end) if i not in dropped)
    try:
        [edition] = jar_markdown.read(JAR, lines[0] + b"\n" + piece)
    except SourceError:
        return
    assert edition.date == date(2019, 5, 3)
    ids = [r.number for r in edition.rules]
    assert len(ids) == len(set(ids))


@settings(max_examples=examples(300), deadline=None)
@given(st.text(st.characters(blacklist_characters="-"), max_size=120))
def test_ids_of_any_title(title):
    """An id is never empty, a number, "introduction", or more than five words; no dots."""
    slug = jar_markdown._slug(title)
    assert slug and "." not in slug and slug == slug.lower()
    assert not slug.isdigit() and slug != "introduction"
    assert len(slug.removeprefix("case-").split("-")) <= 5
