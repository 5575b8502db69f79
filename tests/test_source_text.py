"""The official text parser on five MagicCompRules files of the shipped archive.

Expectations are derived independently of the parser: the test decodes each file with the
codec it is known to use, finds the body between the first "100.1" line and the last
"Glossary" line, and counts numbered lines with its own loose patterns. The files are read
from data/official-cr-archive.tar.xz (byte-identical to what Wizards published).
"""

from __future__ import annotations

import codecs
import contextlib
import re
import tarfile
from collections import Counter
from datetime import date
from functools import cache
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup import sources
from crlookup.core.errors import SourceError
from crlookup.sources import text

DATA = Path(__file__).resolve().parent.parent / "data"

# file -> (codec the test decodes it with, effective date)
CORPUS = {
    "MagicCompRules-2009-07-11.txt": ("ascii", date(2009, 7, 11)),
    "MagicCompRules-2014-02-01.txt": ("cp1252", date(2014, 2, 1)),
    "MagicCompRules-2019-01-25.txt": ("cp437", date(2019, 1, 25)),
    "MagicCompRules-2022-11-18.txt": ("utf-16", date(2022, 11, 18)),
    "MagicCompRules-2026-08-07.txt": ("utf-8-sig", date(2026, 8, 7)),
}


@pytest.fixture(autouse=True)
def crlookup_home(tmp_path, monkeypatch) -> Path:
    """Parser tests need no built library: an empty home instead of conftest's built one."""
    monkeypatch.setenv("CRLOOKUP_HOME", str(tmp_path))
    return tmp_path


@cache
def raw(name: str) -> bytes:
    """The bytes of an archive member, as published."""
    with tarfile.open(DATA / "official-cr-archive.tar.xz") as tar:
        return tar.extractfile(name).read()


def read(name: str):
    [edition] = sources.read(Path(name), raw(name))
    return edition


def raw_lines(name: str) -> list[str]:
    codec = CORPUS[name][0]
    return re.split(r"\r\n|\r|\n", raw(name).decode(codec))


def expected_counts(name: str) -> Counter:
    lines = raw_lines(name)
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("100.1"))
    end = max(i for i, line in enumerate(lines) if line.strip() == "Glossary")
    c = Counter()
    for line in lines[start - 4 : end]:
        s = line.strip()
        if re.match(r"^\d{3}\.\s?\d+[a-z]+", s):
            c["subrule"] += 1
        elif re.match(r"^\d{3}\.\s?\d+", s):
            c["rule"] += 1
        elif re.match(r"^\d{3}\. \D", s):
            c["section"] += 1
        elif re.match(r"^\d\. \D", s):
            c["chapter"] += 1
        elif s.startswith("Example:"):
            c["example"] += 1
    credits = max(i for i, line in enumerate(lines) if line.strip() == "Credits")
    glossary = "\n".join(lines[end + 1 : credits])
    c["glossary"] = len([p for p in re.split(r"\n\s*\n", glossary) if p.strip()])
    return c


@pytest.fixture(scope="module", params=sorted(CORPUS))
def parsed(request):
    name = request.param
    return name, read(name)


def test_identity(parsed):
    name, e = parsed
    assert e.date == CORPUS[name][1]
    assert e.id == f"en-{CORPUS[name][1].isoformat()}"
    assert e.lang == "en" and not e.partial
    assert e.title.startswith("Magic: The Gathering") and e.title.endswith("Comprehensive Rules")


def test_counts_match_the_numbered_lines(parsed):
    name, e = parsed
    want = expected_counts(name)
    got = Counter(r.kind for r in e.rules)
    for kind in ("chapter", "section", "rule", "subrule"):
        assert got[kind] == want[kind], kind
    assert sum(len(r.examples) for r in e.rules) == want["example"]
    assert len(e.glossary) == want["glossary"]


def test_nothing_lost_or_merged(parsed):
    """Every numbered line of the body is exactly one entry, in order, with its own text."""
    name, e = parsed
    lines = raw_lines(name)
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("100.1"))
    numbered = [
        re.sub(r"\s", "", m.group(1))
        for line in lines[start:]
        if (m := re.match(r"^\s*(\d{3}\.\s?\d+[a-z]*)", line))
    ]
    assert [r.number for r in e.rules if r.kind in ("rule", "subrule")] == numbered
    # no entry swallowed the next one
    for r in e.rules:
        assert not re.search(r"(?m)^\s*\d{3}\.\d+[a-z]*\.? ", r.text), r.number


def test_every_text_occurs_in_the_source(parsed):
    name, e = parsed
    source = "\n".join(line.strip() for line in raw_lines(name)).replace("_", "")
    for r in e.rules:
        for piece in [*r.text.split("\n"), r.title, *r.examples]:
            assert piece.replace("_", "") in source, (r.number, piece[:80])
    for g in e.glossary:
        assert g.term in source
        for piece in g.definition.split("\n"):
            assert piece in source, (g.term, piece[:80])


def test_lines_point_at_the_entry(parsed):
    name, e = parsed
    lines = raw_lines(name)
    for r in e.rules:
        line = lines[r.source.line - 1].strip()
        if r.kind in ("rule", "subrule"):
            assert re.sub(r"\s", "", line).startswith(r.number), r.number
        else:
            assert line.startswith(r.number + ".")


def test_named_rules():
    e = read("MagicCompRules-2026-08-07.txt")
    rules = {r.number: r for r in e.rules}
    assert rules["702.19"].title == "Trample"
    assert rules["704.5aa"].kind == "subrule"
    assert list(rules).index("704.5z") + 1 == list(rules).index("704.5aa")
    assert rules["100.1"].text.startswith("These Magic rules apply to any Magic game")
    assert rules["101.2"].examples[0].startswith("If one effect reads")
    assert rules["7"].title == "Additional Rules" and rules["702"].title == "Keyword Abilities"
    # typos read for what they are
    assert rules["119.1d"].text.startswith("In a two-player Brawl game")
    assert rules["606.5"].kind == "rule"
    assert any("119.1d is printed with a period" in n for n in e.notes)
    # indented continuation paragraphs stay with their rule
    assert "\nCards printed in sets prior to the Eighth Edition" in rules["205.4c"].text


def test_2022_typos():
    e = read("MagicCompRules-2022-11-18.txt")
    rules = {r.number: r for r in e.rules}
    assert rules["901.4"].text.startswith("All plane and phenomenon cards remain")
    assert rules["901.5"].text != rules["901.4"].text
    assert rules["702.124h"].text.startswith("“Choose a Background”")


def test_2009_split_number():
    e = read("MagicCompRules-2009-07-11.txt")
    rules = {r.number: r for r in e.rules}
    assert rules["702.37"].text == "Storm"  # "702. 37a" on the next line is its subrule
    assert rules["702.37a"].text.startswith("Storm is a triggered ability")
    assert rules["101"].title == "The Magic Golden Rules"  # "_Magic_" italics dropped


def test_glossary_entries():
    e = read("MagicCompRules-2026-08-07.txt")
    terms = {g.term: g for g in e.glossary}
    assert terms["Control, Controller"].headwords == (
        "Control, Controller",
        "Control",
        "Controller",
    )
    assert terms["Y"].see == "X"
    assert terms["APNAP Order"].see == "Active Player, Nonactive Player Order"
    assert terms["Bury (Obsolete)"].obsolete and terms["Bury (Obsolete)"].headwords == ("Bury",)
    assert terms["Ability"].definition.startswith("1. Text on an object")
    assert "\n2. An activated or triggered ability" in terms["Ability"].definition
    assert not any(g.term == "Credits" for g in e.glossary)


@pytest.mark.parametrize(
    "variant",
    ["utf-16-le-bom", "utf-8", "cr", "lf", "crlf"],
)
def test_reencoded_edition_exports_identically(variant):
    name = "MagicCompRules-2026-08-07.txt"
    original = raw(name).decode("utf-8-sig")
    body = original.replace("\r\n", "\n")
    if variant == "utf-16-le-bom":
        data = codecs.BOM_UTF16_LE + body.replace("\n", "\r\n").encode("utf-16-le")
    elif variant == "utf-8":
        data = body.encode("utf-8")
    else:
        data = body.replace("\n", {"cr": "\r", "lf": "\n", "crlf": "\r\n"}[variant]).encode("utf-8")
    a = read(name)
    [b] = sources.read(Path(name), data)
    assert [r.to_dict(a.id) for r in a.rules] == [r.to_dict(b.id) for r in b.rules]
    assert [g.to_dict(a.id) for g in a.glossary] == [g.to_dict(b.id) for g in b.glossary]


def test_cp1252_file_reencoded():
    name = "MagicCompRules-2014-02-01.txt"
    body = raw(name).decode("cp1252")
    a = read(name)
    for data in (codecs.BOM_UTF16_LE + body.encode("utf-16-le"), body.encode("utf-8")):
        [b] = sources.read(Path(name), data)
        assert [r.to_dict("x") for r in a.rules] == [r.to_dict("x") for r in b.rules]


def test_cp437_card_names():
    e = read("MagicCompRules-2019-01-25.txt")
    text_all = "\n".join(r.text for r in e.rules)
    for name in ("Dandân", "Ghazbán Ogre", "Junún Efreet", "Juzám Djinn", "Ring of Ma'rûf"):
        assert name in text_all


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "expected the sentence 'These rules are effective as of"),
        (b"Hello world\nNothing here\n", "expected the sentence 'These rules are effective as of"),
        (
            b"Magic Comprehensive Rules\n\nThese rules are effective as of May 1, 2030.\n\nNo rules.\n",
            "expected numbered rules",
        ),
        (
            b"These rules are effective as of February 30, 2030.\n100.1. x\n",
            "expected a real date",
        ),
    ],
)
def test_not_a_cr(data, message):
    with pytest.raises(SourceError) as e:
        text.read(Path("bad.txt"), data)
    assert str(e.value).startswith("bad.txt:")
    assert message in str(e.value)


def test_detect_rejects_other_files():
    with pytest.raises(SourceError) as e:
        sources.read(Path("notes.txt"), b"just some notes\n")
    assert "expected a Comprehensive Rules document" in str(e.value)


def test_truncated_file_keeps_what_it_has():
    name = "MagicCompRules-2026-08-07.txt"
    data = raw(name)
    cut = data[: data.index(b"\n702.19b")]
    [e] = text.read(Path("cut.txt"), cut)
    assert e.rules[-1].number == "702.19a"
    assert e.partial  # the contents list names sections the body lacks
    assert any("sections in the contents are missing from the body (703, 704" in n for n in e.notes)


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_parse_or_raise_source_error(data):
    with contextlib.suppress(SourceError):
        text.read(Path("fuzz.txt"), data)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "100. General",
                "1. Game",
                "100.1. Text.",
                "100.1a Sub",
                "100.1a Dup",
                "Example: e",
                "   cont",
                "",
                "Glossary",
                "Term",
                "Definition.",
                "Credits",
                "100.2 x",
                "99.1. bad",
                "100.1b. p",
                "901.4.All",
                "702. 37a Storm",
            ]
        ),
        max_size=30,
    )
)
def test_arbitrary_line_sequences_parse_or_raise_source_error(lines):
    data = (
        "Comprehensive Rules\nThese rules are effective as of May 1, 2030.\n" + "\n".join(lines)
    ).encode()
    try:
        [e] = text.read(Path("fuzz.txt"), data)
    except SourceError:
        return
    # a number printed twice is two entries, each repeat noted with its line
    numbers = [r.number for r in e.rules]
    repeats = Counter(numbers) - Counter(set(numbers))
    noted = Counter(m.group(1) for n in e.notes if (m := re.search(r": (\S+) printed twice", n)))
    assert repeats == noted
