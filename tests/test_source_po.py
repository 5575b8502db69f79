"""The gettext parser on data/cr-2013-11-01-pl.po (the CR of November 1, 2013, with Polish names).

Expectations are derived independently of the parser: the test reads the catalogue with its own
few lines of code (blocks separated by blank lines, "#:" locations, JSON-decoded strings) and
counts messages times their locations; the glossary and the rule texts are compared with the
nearest official edition, data/MagicCompRules-2014-02-01.txt, read by the official text parser.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from datetime import date
from pathlib import Path

import conftest
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crlookup.core import references as refs
from crlookup.core.errors import SourceError
from crlookup.sources import po, text

DATA = Path(__file__).resolve().parent.parent / "data"
FIXTURES = Path(__file__).resolve().parent / "data" / "po"
PO = DATA / "cr-2013-11-01-pl.po"
OFFICIAL = conftest.OFFICIAL / "MagicCompRules-2014-02-01.txt"
CUT = FIXTURES / "cut.po"

POLISH = {
    "702.2": ("Deathtouch", "Dotyk śmierci"),
    "702.8": ("Flash", "Błysk"),
    "702.9": ("Flying", "Latanie"),
    "702.10": ("Haste", "Pośpiech"),
    "702.15": ("Lifelink", "Więź życia"),
    "702.17": ("Reach", "Zasięg"),
    "702.19": ("Trample", "Tratowanie"),
    "702.20": ("Vigilance", "Czujność"),
    "702.72": ("Changeling", "Zmiennokształtny"),
}
MARKUP = re.compile(r"\||:ref:|:mtgtip:|:term:|\*\*|`|<mtgcr|mtgcr-")


def raw_messages(path: Path = PO) -> list[tuple[str, str, list[int], int]]:
    """(msgid, msgstr, location lines, line of the msgid) for every entry, read naively."""
    out = []
    lines = path.read_text("utf-8").split("\n")
    i = 0
    locs: list[int] = []
    while i < len(lines):
        line = lines[i]
        if line.startswith("#:"):
            locs += [int(n) for n in re.findall(r":(\d+)", line)]
        if line.startswith("msgid "):
            start = i
            parts = [json.loads(line[6:])]
            i += 1
            while lines[i].startswith('"'):
                parts.append(json.loads(lines[i]))
                i += 1
            assert lines[i].startswith("msgstr ")
            strs = [json.loads(lines[i][7:])]
            i += 1
            while i < len(lines) and lines[i].startswith('"'):
                strs.append(json.loads(lines[i]))
                i += 1
            out.append(("".join(parts), "".join(strs), locs, start + 1))
            locs = []
            continue
        i += 1
    return out


def glossary_line(messages) -> int:
    return next(locs[0] for msgid, _, locs, _ in messages if msgid == "Glossary")


def expected_counts() -> Counter:
    messages = raw_messages()
    end = glossary_line(messages)
    c = Counter()
    for msgid, _, locs, _ in messages:
        n = sum(1 for line in locs if line < end)
        if re.fullmatch(r"\d{3}\.\d+[a-z]+", msgid):
            c["subrule"] += n
        elif re.fullmatch(r"\d{3}\.\d+", msgid):
            c["rule"] += n
        elif re.match(r"\d{3}\. \D", msgid):
            c["section"] += n
        elif re.match(r"\d\. \D", msgid):
            c["chapter"] += n
        elif msgid.startswith("**Example:**"):
            c["example"] += n
        if len(locs) > 1:
            c["shared"] += 1
    return c


@pytest.fixture(scope="module")
def editions():
    return po.read(PO, PO.read_bytes())


@pytest.fixture(scope="module")
def en(editions):
    return editions[0]


@pytest.fixture(scope="module")
def pl(editions):
    return editions[1]


@pytest.fixture(scope="module")
def rules(en):
    return {r.number: r for r in en.rules}


@pytest.fixture(scope="module")
def official():
    [e] = text.read(OFFICIAL, OFFICIAL.read_bytes())
    return e


def letters_only(s: str) -> str:
    """Compare texts across editions: punctuation, quotes, ® and spacing aside."""
    s = s.replace("®", "(R)").replace("™", "(TM)")
    return re.sub(r"[^A-Za-z0-9{}/]", "", s)


def test_identity(editions):
    assert [e.id for e in editions] == ["en-2013-11-01", "pl-2013-11-01"]
    en, pl = editions
    assert en.date == pl.date == date(2013, 11, 1)
    assert en.lang == "en" and not en.partial
    assert pl.lang == "pl" and pl.partial
    assert en.title == "Magic: The Gathering Comprehensive Rules"
    assert en.source == pl.source == PO.name


def test_counts_match_the_messages_times_their_locations(en):
    want = expected_counts()
    assert want["rule"] + want["subrule"] == 1952 and want["section"] == 124
    assert want["shared"] == 145
    got = Counter(r.kind for r in en.rules)
    for kind in ("chapter", "section", "rule", "subrule"):
        assert got[kind] == want[kind], kind
    assert got["chapter"] == 9
    assert sum(len(r.examples) for r in en.rules) == want["example"]


def test_rule_numbers_in_location_order(en):
    """Every numbered message at every place, in the order of comprules.rst."""
    messages = raw_messages()
    placed = sorted(
        (line, msgid)
        for msgid, _, locs, _ in messages
        for line in locs
        if re.fullmatch(r"\d{3}\.\d+[a-z]*|\d{3}\. .*|\d\. .*", msgid)
        and line < glossary_line(messages)
    )
    want = [msgid.split(". ")[0] for _, msgid in placed]
    assert [r.number for r in en.rules] == want
    assert not en.notes or all("stray '>'" in n for n in en.notes)


def test_shared_text_at_every_place(rules):
    for n in ("503.2", "511.2", "513.2"):
        assert rules[n].text.startswith("Second, the active player gets priority"), n


def test_titles_and_translations(rules, en):
    assert rules["702.2"].title == "Deathtouch"
    assert rules["702.2"].text == "Deathtouch"
    assert rules["702.2"].translations == (("pl", "Dotyk śmierci"),)
    terms = {g.term: g for g in en.glossary}
    assert terms["Deathtouch"].translations == (("pl", "Dotyk śmierci"),)
    for number, (english, polish) in POLISH.items():
        assert rules[number].title == english
        assert rules[number].translations == (("pl", polish),)
        assert terms[english].translations == (("pl", polish),)
    translated = {r.number for r in en.rules if r.translations}
    assert translated == set(POLISH)
    assert {g.term for g in en.glossary if g.translations} == {e for e, _ in POLISH.values()}


def test_polish_edition_holds_the_nine_names(pl):
    want = {m[0]: m[1] for m in raw_messages() if m[0] and m[1]}
    assert len(want) == 9
    assert {r.number: (r.translations[0][1], r.title) for r in pl.rules} == POLISH
    assert all(r.kind == "rule" and r.text == r.title for r in pl.rules)
    assert {(g.english, g.term) for g in pl.glossary} == set(want.items())
    lines = PO.read_text("utf-8").split("\n")
    for r in pl.rules:
        assert lines[r.source.line - 1] == f'msgid "{r.translations[0][1]}"'


def test_multi_paragraph_rules_are_whole(rules):
    assert rules["205.3i"].text.split("\n")[1].startswith("Of that list, Forest, Island")
    assert rules["205.3j"].text.split("\n")[1].startswith("If a player controls two or more")
    assert "\nCards printed in sets prior to the Eighth Edition" in rules["205.4c"].text
    # the catalogue's order, not Sphinx's line numbers (12076 before 12075), as the official text
    first, second = rules["810.7b"].text.split("\n")
    assert first.startswith("Any one-shot effect")
    assert second.startswith("Any characteristic-defining")


def test_examples_are_separate(rules):
    assert rules["101.2"].examples[0].startswith('If one effect reads "You may play')
    assert "Example" not in rules["101.2"].text


def test_symbols(rules):
    assert rules["107.4"].text == (
        "The mana symbols are {W}, {U}, {B}, {R}, {G}, and {X}; the numerals {0}, {1}, {2}, {3}, "
        "{4}, and so on; the hybrid symbols {W/U}, {W/B}, {U/B}, {U/R}, {B/R}, {B/G}, {R/G}, "
        "{R/W}, {G/W}, and {G/U}; the monocolored hybrid symbols {2/W}, {2/U}, {2/B}, {2/R}, and "
        "{2/G}; the Phyrexian mana symbols {W/P}, {U/P}, {B/P}, {R/P}, and {G/P}; and the snow "
        "symbol {S}."
    )
    assert rules["107.5"].text.startswith("The tap symbol is {T}.")
    assert rules["107.6"].text.startswith("The untap symbol is {Q}.")
    assert "{P} with no colored background" in rules["107.4g"].text
    assert "contains {1}{U} which" in rules["106.6"].examples[0]  # adjacent symbols joined
    assert '"{3}, {T}: Double' in rules["106.6"].examples[0]


def test_symbol_table():
    table = {
        "tap": "{T}",
        "untap": "{Q}",
        "mana_u": "{U}",
        "mana_x": "{X}",
        "mana_0": "{0}",
        "mana_8": "{8}",
        "mana_wu": "{W/U}",
        "mana_gu": "{G/U}",
        "mana_2w": "{2/W}",
        "mana_wp": "{W/P}",
        "mana_p": "{P}",
        "mana_snow": "{S}",
    }
    for name, want in table.items():
        assert po.symbol(name) == want
    assert po.symbol("mana_zz") is None and po.symbol("chaos") is None
    with pytest.raises(SourceError, match=r"\|chaos\|"):
        po.clean("Roll |chaos|.", "x.po", 3)


def test_every_substitution_in_the_file_is_known():
    subs = {s for m in raw_messages() for s in re.findall(r"\|(\w+)\|", m[0])}
    assert len(subs) == 37
    assert all(po.symbol(s) for s in subs)


def test_cards_are_the_mtgtip_marks(en, rules):
    """Independently: each :mtgtip: occurrence belongs to the last rule number before it."""
    messages = raw_messages()
    end = glossary_line(messages)
    placed = sorted((line, msgid) for msgid, _, locs, _ in messages for line in locs if line < end)
    want, number = set(), None
    for _, msgid in placed:
        if re.fullmatch(r"\d{3}\.\d+[a-z]*", msgid):
            number = msgid
        for card in re.findall(r":mtgtip:`([^`]*)`", msgid):
            want.add((number, card.strip()))
    got = {(r.number, c) for r in en.rules for c in r.cards}
    assert got == want
    assert [r.number for r in en.rules if "Meteor Crater" in r.cards] == ["106.5"]
    assert rules["106.5"].examples[0].startswith('Meteor Crater has the ability "{T}: Choose')
    # ":mtgtip:`Vastwood Gorger `(a 5/6": the name is trimmed, the space stays in the text
    assert "Vastwood Gorger" in rules["510.1c"].cards
    assert "Mending Hands" in rules["510.1c"].examples[2]
    assert "attacking Vastwood Gorger (a 5/6 creature)" in rules["510.1c"].examples[2]
    for r in en.rules:
        for card in r.cards:
            assert card in r.text or any(card in x for x in r.examples), (r.number, card)


def test_references_become_numbers(rules, en):
    assert "(see rule 100.2a)" in rules["100.4a"].text
    assert "See section 8, Multiplayer Rules." in rules["100.1b"].text
    # the malformed ":ref:`702 <mtgcr-702>`.7" is rule 702.7
    for n in ("506.1", "510.5"):
        assert "first strike (see rule 702.7)" in rules[n].text
        assert "702.7" in [r.first for r in refs.find(rules[n].text)]
    assert rules["109.5"].text.endswith("see rules 603.7d-f.")
    [ref] = refs.find("see rules 603.7d-f.")
    assert (ref.first, ref.last) == ("603.7d", "603.7f")
    linked = refs.link(en)
    unresolved = [x for r in linked.rules for x in r.refs if not x.resolved]
    unresolved += [x for g in linked.glossary for x in g.refs if not x.resolved]
    assert unresolved == []
    assert sum(len(r.refs) for r in linked.rules) > 600


def test_links_become_their_text(rules, en):
    assert "Event Locator at Wizards.com/Locator to find" in rules["100.6b"].text
    # "`Gatherer.Wizards.com`_>." lost its "<" in the source: the stray ">" is dropped and noted
    assert rules["108.1"].text.endswith("Gatherer card database at Gatherer.Wizards.com.")
    assert any("stray '>'" in n for n in en.notes)


def test_no_markup_left(editions):
    for e in editions:
        for r in e.rules:
            for piece in (r.text, r.title, *r.examples, *r.cards):
                assert not MARKUP.search(piece), (r.number, piece[:80])
                # the only stars left are the literal ones of */* creatures
                assert "*" not in piece or r.number in ("208.2", "208.2a"), (r.number, piece)
        for g in e.glossary:
            for piece in (g.term, g.definition):
                assert not MARKUP.search(piece) and "*" not in piece, (g.term, piece[:80])
    assert "(*)" in {r.number: r for r in editions[0].rules}["208.2"].text


def test_italics_dropped(rules):
    assert rules["101"].title == "The Magic Golden Rules"
    assert rules["100.1"].text.startswith("These Magic rules apply to any Magic game")


def test_rule_texts_match_the_nearest_official_edition(en, official):
    """Apart from the rules Born of the Gods changed, the texts are the official ones."""
    theirs = {r.number: r for r in official.rules}
    changed = set()
    for r in en.rules:
        o = theirs.get(r.number)
        if o is None:
            continue
        a = letters_only("|".join([r.title, r.text, *r.examples]))
        b = letters_only("|".join([o.title, o.text, *o.examples]))
        if a != b:
            changed.add(r.number)
    assert changed == {
        "112.11",
        "121.6",
        "205.3j",
        "207.2c",
        "305.2b",
        "608.2b",
        "613.1f",
        "614.15",
        "700.5",
        "701.3d",
        "706.10",
        "903.10",
    }


def test_glossary_matches_the_nearest_official_edition(en, official):
    ours = {letters_only(g.term): g for g in en.glossary}
    theirs = {letters_only(g.term): g for g in official.glossary}
    assert len(en.glossary) == 483
    assert set(theirs) - set(ours) == {"Tribute"}  # new in February 2014
    assert set(ours) <= set(theirs)
    for key, g in ours.items():
        assert letters_only(g.definition) == letters_only(theirs[key].definition), g.term
        assert g.headwords == theirs[key].headwords or "’" in theirs[key].term


def test_glossary_entries(en):
    terms = {g.term: g for g in en.glossary}
    assert terms["Ability"].definition == (
        "1. Text on an object that explains what that object does or can do.\n"
        "2. An activated or triggered ability on the stack. This kind of ability is an object.\n"
        'See rule 112, "Abilities," and section 6, "Spells, Abilities, and Effects."'
    )
    assert terms["Play"].definition.split("\n")[4].startswith("5. (Obsolete) The battlefield")
    assert terms["Attack Right Option"].definition.startswith("An option that may be used")
    assert terms["Zone-Change Triggers"].definition.startswith("Trigger events that involve")
    assert terms["Deal"].see == "Damage"
    assert terms["Multikicker"].definition.endswith("See also Kicker.")
    assert terms['Banding, "Bands with Other"'].headwords[1:] == ("Banding", "Bands with Other")
    assert terms["At End of Turn (Obsolete)"].obsolete
    assert "Credits" not in terms and not any("Garfield" in g.definition for g in en.glossary)
    assert next(iter(terms)) == "Abandon" and list(terms)[-1] == "Zone-Change Triggers"


def test_source_lines_point_at_the_msgid(en):
    lines = PO.read_text("utf-8").split("\n")
    for r in en.rules:
        line = lines[r.source.line - 1]
        if r.kind in ("rule", "subrule"):
            assert line == f'msgid "{r.number}"', r.number
        else:
            assert line.startswith(f'msgid "{r.number}. '), r.number
    for g in en.glossary:
        assert lines[g.source.line - 1].startswith("msgid "), g.term


def test_cut_fixture_is_cut_from_the_real_file():
    real = [b.rstrip("\n") for b in PO.read_text("utf-8").split("\n\n")]
    for block in CUT.read_text("utf-8").rstrip("\n").split("\n\n"):
        assert block in real


def test_cut_fixture_golden(golden):
    data = []
    for e in po.read(CUT, CUT.read_bytes()):
        data.append(
            {
                "id": e.id,
                "title": e.title,
                "partial": e.partial,
                "notes": list(e.notes),
                "rules": [r.to_dict(e.id) for r in e.rules],
                "glossary": [g.to_dict(e.id) for g in e.glossary],
            }
        )
    golden("po/cut.golden.json", data)


def test_sniff():
    assert po.sniff(PO.read_bytes()) and po.sniff(CUT.read_bytes())
    others = [p for p in DATA.iterdir() if p.is_file() and p.suffix != ".po"]
    assert len(others) >= 9
    for p in others:
        assert not po.sniff(p.read_bytes()), p.name
    assert not po.sniff(b"") and not po.sniff(b"msgid is a word\n")


@pytest.mark.parametrize(
    "name, line, message",
    [
        ("broken-string.po", 222, 'expected a quoted string ("...", ending on the same line)'),
        ("truncated.po", 165, "expected a msgstr for the msgid of line 165 (the file ends)"),
        ("no-msgstr.po", 228, "expected a msgstr for the msgid of line 226"),
        ("not-cr.po", 1, "expected the sentence 'These rules are effective as of"),
    ],
)
def test_bad_fixtures(name, line, message):
    path = FIXTURES / name
    with pytest.raises(SourceError) as e:
        po.read(path, path.read_bytes())
    assert e.value.line == line
    assert str(e.value).startswith(f"{name}:{line}: {message}")


BASE = 'msgid ""\nmsgstr ""\n"Language: pl\\n"\n\n'
GOOD = BASE + (
    '#: c.rst:1\nmsgid "These rules are effective as of May 1, 2030."\nmsgstr ""\n\n'
    '#: c.rst:2\nmsgid "1. Game"\nmsgstr ""\n\n'
    '#: c.rst:3\nmsgid "100.1"\nmsgstr ""\n\n'
    '#: c.rst:4\nmsgid "Text."\nmsgstr ""\n'
)


@pytest.mark.parametrize(
    "data, line, message",
    [
        (GOOD.replace('"Text."', '"Text.\\q"'), 18, "expected a string escape"),
        (GOOD.replace("#: c.rst:4", "#: c.rst"), 17, "expected a location such as"),
        (GOOD.replace('msgid "Text."', 'msgstr "Text."'), 18, "expected msgstr right after"),
        (GOOD.replace('msgid "Text."', 'msgid "100.1"'), 18, "expected a msgid not already"),
        (GOOD.replace('msgid "Text."', 'mgsid "Text."'), 18, "expected a msgid, msgstr or msgctxt"),
        (GOOD + '# c\n"stray"\n', 21, "expected a keyword (msgid, msgstr) before a string"),
        (GOOD.replace("May 1", "May 41"), 6, "expected a real date"),
        (GOOD.replace('"100.1"', '"A"'), 19, "expected numbered rules"),
        (
            GOOD.replace('"Language', '"Content-Type: text/plain; charset=klingon\\n"\n"L'),
            3,
            "expected a known ASCII-compatible charset",
        ),
        (GOOD.replace("#: c.rst:1\n", "#: c.rst:1 c.rst:9\n"), 19, "expected the rest of the"),
    ],
)
def test_bad_input(data, line, message):
    with pytest.raises(SourceError) as e:
        po.read(Path("bad.po"), data.encode())
    assert e.value.line == line, str(e.value)
    assert message in str(e.value)


def test_good_minimal_catalogue():
    [e] = po.read(Path("good.po"), GOOD.encode())
    assert e.id == "en-2030-05-01"
    assert [(r.number, r.text) for r in e.rules] == [("1", ""), ("100.1", "Text.")]


def test_every_cut_at_a_message_boundary_is_an_error():
    data = CUT.read_bytes()
    ends = [m.end() for m in re.finditer(rb"\n\n", data)]
    assert len(ends) > 50
    for end in ends:
        with pytest.raises(SourceError):
            po.read(Path("cut.po"), data[:end])


def test_real_file_cut_short_is_an_error():
    data = PO.read_bytes()
    cut = data[: data.index(b'msgid "702.2a"')]
    with pytest.raises(SourceError) as e:
        po.read(Path("cut.po"), cut)
    assert "expected the rest of the catalogue" in str(e.value)
    assert e.value.line == cut.count(b"\n")  # the last non-blank line


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_parse_or_raise_source_error(data):
    try:
        po.read(Path("fuzz.po"), data)
    except SourceError as e:
        assert e.line is None or e.line >= 1


VOCABULARY = [
    'msgid ""',
    'msgstr ""',
    '"Language: pl\\n"',
    '"Content-Type: text/plain; charset=UTF-8\\n"',
    "#: c.rst:1",
    "#: c.rst:2 c.rst:7",
    "#: c.rst:5",
    "#: c.rst:9",
    "#, fuzzy",
    "# comment",
    'msgid "These rules are effective as of May 1, 2030."',
    'msgid "1. Game"',
    'msgid "100. General"',
    'msgid "100.1"',
    'msgid "100.1a"',
    'msgid "Text with |tap|."',
    'msgid "**Example:** e :mtgtip:`Card`"',
    'msgid "See rule :ref:`100.1 <mtgcr-100-1>`"',
    'msgid "Glossary"',
    'msgid "Term"',
    'msgid "Credits"',
    'msgstr "Termin"',
    '"cont"',
    '"unterminated',
    'msgctxt "c"',
    'msgid_plural "p"',
    'msgstr[0] ""',
    'msgstr[1] "x"',
    '#~ msgid "old"',
    "",
    "msgid",
    'msgid "|bogus|"',
]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=40))
def test_arbitrary_line_sequences_parse_or_raise_source_error(lines):
    try:
        editions = po.read(Path("fuzz.po"), "\n".join(lines).encode())
    except SourceError:
        return
    for e in editions:
        numbers = [r.number for r in e.rules]
        assert len(numbers) == len(set(numbers))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_fixture_parses_or_raises_source_error(data):
    raw = bytearray(CUT.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    end = data.draw(st.integers(0, len(raw)))
    with contextlib.suppress(SourceError):
        po.read(Path("fuzz.po"), bytes(raw[:end]))
