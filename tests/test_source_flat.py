"""The flat-text parser on cr-2009-02-01-en-flat.txt: the February 2009 CR as one 495 KB line.

Expectations are derived independently of the parser:

* chapters and sections: the contents list, read by the test's own pattern ("1. The Game 100.
  General ... 609. Teams Variant"), plus section 211, which the contents leave out and the body
  prints as "211. [This section has been intentionally left blank ...]";
* rules and subrules: every "NNN.N" or "NNN.Na" of the body that is followed by a capitalised
  word and not preceded by "rule", "rules", "see", "and", ... or a comma (no notion of a running
  sequence), and, separately, the rule that numbers run 1, 2, 3 and letters a, b, c;
* examples: the occurrences of "Example:" between the body and the glossary (166);
* glossary: the terms of the official July 2009 glossary that follow a sentence end in the
  flat glossary, minus three that are only the start of a longer term, plus the terms listed
  below, each read in the source by hand: three that follow a definition without a final
  period, and the 59 terms the July glossary dropped (402 in all).
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from conftest import OFFICIAL, examples
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup.core.errors import SourceError
from crlookup.sources import flat, text

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
NAME = "cr-2009-02-01-en-flat.txt"
CUT = ROOT / "tests" / "data" / "flat" / "cr-2009-02-01-en-flat-cut.txt"

# July 2009 terms that occur after a sentence end but only as the start of a longer term
# ("Limited Range of Influence", "Generic Mana Cost", "Trigger, Triggered Ability").
NOT_TERMS = {"Limited", "Generic Mana", "Trigger"}
# July 2009 terms whose preceding definition has no final period ("... Wurm, Yeti, Zombie,
# Zubera Cumulative Upkeep Cumulative upkeep is ...", "... Urza's Landwalk", "See rule 409.1f
# Toughness").
AFTER_NO_PERIOD = {"Cumulative Upkeep", "Landwalk", "Toughness"}
# Terms of this glossary that the July 2009 glossary no longer has.
FEB_ONLY = {
    "Ante (Obsolete)",
    '"As Though"',
    "Cantrip (Informal)",
    "Cast (Obsolete)",
    "Champion",
    "Colorless mana",
    "Comes into Play",
    "Controlling Another Player's Turn",
    "Depend On",
    "Distribute",
    "Divide",
    "Dual Land (Informal)",
    "Enchant Opponent, Enchant Player",
    "End of Turn Step",
    "End Phase",
    "Ending the Turn",
    "Fizzle (Informal)",
    "Flip a Coin",
    "Floor Rules",
    "Game Action",
    "Generic Mana Cost",
    "Hidden Information (Informal)",
    "Imprinted [quality] card",
    "In Play",
    "Infinity Rule (Informal)",
    "Leaves Play",
    "LIFO (Informal)",
    "Mana Burn",
    "Multiplayer",
    "Number",
    "Obsolete",
    "Order",
    "Phased Out",
    "Play/Draw (Informal)",
    "Postcombat",
    "Precombat",
    "Public Information (Informal)",
    "Put into Play",
    "Random",
    "Removed from the Game",
    "Respond, Response (Informal)",
    "Sealed Deck",
    "Set Aside",
    "Shield",
    "Snow Landwalk",
    "Snow Mana",
    "State-Based Effects",
    "State Triggers",
    "Substance",
    "Summoning Sickness (Informal)",
    "Suspended",
    "Teams",
    "Tie",
    "Trigger, Triggered Ability",
    "Turn Marker",
    "Two-Headed Giant",
    "Unblocked",
    "Universal Tournament Rules",
    "Vanguard and Avatars",
}
MENTION_WORDS = {"rule", "rules", "see", "and", "or", "of", "in", "to", "section"}


def source_text() -> str:
    return (DATA / NAME).read_bytes().decode("ascii")


def cleaned(s: str) -> str:
    """The documented cleaning, for this file: every "_" is an italics or trademark marker."""
    return s.replace("_", "")


def parts() -> tuple[str, str, str]:
    """(contents, body, glossary) of the source, located by the test's own markers."""
    s = source_text()
    contents = s[s.index(" Contents ") + 10 : s.index(" Glossary Credits Questions?")]
    start = s.index("1. The Game 100. General 100.1.")
    gloss = s.index(" Glossary ", start)
    return contents, s[start:gloss], s[gloss + 10 : s.index(" Credits ", gloss)]


@pytest.fixture(scope="module")
def edition():
    [e] = flat.read(DATA / NAME, (DATA / NAME).read_bytes())
    return e


@pytest.fixture(scope="module")
def rules(edition):
    return {r.number: r for r in edition.rules}


@pytest.fixture(scope="module")
def terms(edition):
    return {g.term: g for g in edition.glossary}


def test_identity(edition):
    assert edition.lang == "en" and edition.date == date(2009, 2, 1)
    assert edition.id == "en-2009-02-01"
    assert not edition.partial
    assert edition.title == "Magic: The Gathering Comprehensive Rules"
    assert edition.source == NAME


def test_headings_are_the_contents_list_plus_section_211(edition):
    contents, _, _ = parts()
    listed = re.findall(r"(\d{1,3})\. (.+?)(?= \d{1,3}\. |$)", contents)
    assert len(listed) == 90
    want = {n: cleaned(t) for n, t in listed}
    want["211"] = (
        "[This section has been intentionally left blank to preserve the ordering of other rules.]"
    )
    got = {r.number: r.title for r in edition.rules if r.kind in ("chapter", "section")}
    assert got == want
    kinds = Counter(r.kind for r in edition.rules)
    assert (kinds["chapter"], kinds["section"]) == (6, 85)


def test_rules_are_the_numbers_printed_as_entries(edition):
    _, body, _ = parts()
    printed = [
        n
        for word, n in re.findall(r"(\S+) (\d{3}\.\d+[a-z]*)\.? (?=[A-Z\"(])", " " + body)
        if word not in MENTION_WORDS and not word.endswith(",")
    ]
    got = [r.number for r in edition.rules if r.kind in ("rule", "subrule")]
    assert got == printed
    kinds = Counter(r.kind for r in edition.rules)
    assert (kinds["rule"], kinds["subrule"]) == (489, 694)


def test_numbers_run_without_gaps(edition):
    """Rules 1, 2, 3 in every section, subrules a, b, c in every rule, all in document order."""
    letters = "abcdefghijkmnpqrstuvwxyz"
    last_rule: dict[str, int] = {}
    last_letter: dict[str, str] = {}
    for r in edition.rules:
        m = re.fullmatch(r"(\d{3})\.(\d+)([a-z]?)", r.number)
        if not m:
            continue
        section, rule, letter = m.group(1), int(m.group(2)), m.group(3)
        if letter:
            key = f"{section}.{rule}"
            previous = letters.index(last_letter[key]) if key in last_letter else -1
            assert letters.index(letter) == previous + 1, r.number
            last_letter[key] = letter
        else:
            assert rule == last_rule.get(section, 0) + 1, r.number
            last_rule[section] = rule
    assert not [n for n in edition.notes if "comes after" in n or "numbering gap" in n]


def test_examples(edition, rules):
    _, body, _ = parts()
    assert body.count("Example:") == 166
    assert sum(len(r.examples) for r in edition.rules) == 166
    assert not any("Example:" in r.text + "".join(r.examples) for r in edition.rules)
    assert rules["103.4"].text.endswith('"Active Player, Nonactive Player (APNAP) order" rule.')
    assert rules["103.4"].examples == (
        (
            'A card reads "Each player sacrifices a creature." First, the active player chooses a '
            "creature he or she controls. Then each of the nonactive players chooses a creature he or "
            "she controls. Then all creatures are sacrificed simultaneously."
        ),
    )
    assert len(rules["418.5b"].examples) == 4  # several examples in a row
    assert rules["418.5b"].examples[1].startswith("Grab the Reins has an effect that reads")
    assert rules["418.5a"].examples[1].startswith("Gray Ogre, a 2/2 creature, is in play.")


def test_named_rules(rules):
    assert rules["1"].title == "The Game" and rules["6"].title == "Multiplayer Rules"
    assert rules["100"].title == "General"
    assert rules["103"].title == "The Magic Golden Rules"  # "_Magic_" italics dropped
    assert rules["100.1"].text == (
        "These Magic rules apply to any Magic game with two or more players, including "
        "two-player games and multiplayer games."
    )
    assert rules["502.63"].title == "Deathtouch" and rules["502.63"].kind == "rule"
    assert rules["502.63a"].text.startswith("Deathtouch is a triggered ability.")
    assert rules["217"].title == "Zones" and rules["502"].title == "Keyword Abilities"
    assert rules["418.5"].title == "Interaction of Continuous Effects"
    assert rules["211"].kind == "section"
    assert rules["609.6"].text.endswith("can't manipulate each other's cards or permanents.")


def test_mentions_are_not_rules(rules):
    """A number inside a text stays in that text; only the next number in sequence starts a rule."""
    assert rules["605.4"].text.endswith("as modified by rule 601.15.")
    assert rules["601.15"].text.startswith("If an effect states that a player wins the game")
    assert rules["212.4j"].text.endswith("If no legal choice can be made, see rule 212.4k.")
    assert rules["212.4k"].text.startswith("If an Aura is coming into play")
    assert rules["102.5"].text.endswith("see rule 600.4.")
    # "420." looks like a section heading ("420. If an Equipment ...") but is not next in line
    assert "state-based effect; see rule 420. If an Equipment" in rules["502.15j"].text
    assert rules["502.15j"].text.endswith("see rule 420.")


def test_misprinted_numbers_are_read_and_noted(edition, rules):
    assert rules["212.1b"].kind == "subrule" and rules["216.4"].kind == "rule"
    assert rules["600.5"].text.startswith("In a multiplayer game, the first time")
    notes = "\n".join(edition.notes)
    for number in ("212.1b", "600.4a", "600.4b", "606.4b", "606.6b", "606.7b"):
        assert f"subrule {number} is printed with a period" in notes
    for number in ("216.4", "600.5", "609.6"):
        assert f"rule {number} is printed without its period" in notes
    # the offsets in the notes are the file's own
    s = source_text()
    m = re.search(r"character (\d+): subrule 212.1b", notes)
    assert s[int(m.group(1)) :].startswith("212.1b. ")


def test_every_text_occurs_in_the_source(edition):
    source = cleaned(source_text())
    for r in edition.rules:
        for piece in (r.text, r.title, *r.examples):
            assert piece in source, (r.number, piece[:80])
    for g in edition.glossary:
        assert g.term in source
        for piece in g.definition.split("\n"):
            assert piece in source, (g.term, piece[:80])


def test_no_markers_left(edition):
    everything = [r.text for r in edition.rules] + [r.title for r in edition.rules]
    everything += [e for r in edition.rules for e in r.examples]
    everything += [g.definition for g in edition.glossary]
    assert not any("_" in s for s in everything)
    # trademark signs kept as written, without the underscore that joined them to a word
    assert "Oracle(TM) card reference" in "\n".join(everything)


@pytest.fixture(scope="module")
def july_terms():
    path = OFFICIAL / "MagicCompRules-2009-07-11.txt"
    [e] = text.read(path, path.read_bytes())
    return {g.term for g in e.glossary}


def test_glossary_terms(edition, july_terms):
    _, _, gloss = parts()
    gloss = cleaned(" " + gloss)
    found = {
        t for t in july_terms if re.search(r'[.!?]["\')]* ' + re.escape(t) + r' ["A-Z]', gloss)
    }
    found |= {t for t in july_terms if gloss.startswith(" " + t + " ")}
    assert found >= NOT_TERMS and not FEB_ONLY & july_terms and july_terms >= AFTER_NO_PERIOD
    want = (found - NOT_TERMS) | AFTER_NO_PERIOD | FEB_ONLY
    got = [g.term for g in edition.glossary]
    assert len(got) == len(set(got)) == len(want) == 402
    assert set(got) == want
    # in document order
    positions = []
    at = 0
    for g in edition.glossary:
        at = gloss.index(f"{g.term} ", at)
        positions.append(at)
    assert positions == sorted(positions)


def test_glossary_entries(edition, terms):
    first, last = edition.glossary[0], edition.glossary[-1]
    assert first.term == "Ability"
    assert first.definition.startswith('"Ability" and "effect" are often confused')
    assert last.term == "Zone-Change Triggers"
    assert last.definition.endswith("See rule 410.10.")  # the credits are not glossary
    assert terms["Ability Word"].definition.startswith("An ability word appears in italics")
    # numbered senses on lines of their own
    counter = terms["Counter"].definition.split("\n")
    assert counter[0] == "Counter has two meanings in the Magic game."
    assert counter[1].startswith("1. To counter a spell or ability is to cancel it")
    assert counter[2].startswith("2. A counter is a marker placed on an object")
    assert len(terms["Type"].definition.split("\n")) == 3
    # "See X." entries
    assert terms["APNAP Order"].see == "Active Player, Nonactive Player Order"
    assert terms["Y"].see == "X" and terms["Forestwalk"].see == "Landwalk"
    assert terms["If"].see == 'Intervening "If" Clause'
    # obsolete and informal terms
    assert terms["Bury (Obsolete)"].obsolete and terms["Bury (Obsolete)"].headwords == ("Bury",)
    assert terms["Ante (Obsolete)"].definition.startswith("Earlier versions of the Magic rules")
    assert terms["Cantrip (Informal)"].headwords == ("Cantrip",)
    assert terms["Control, Controller"].headwords == (
        "Control, Controller",
        "Control",
        "Controller",
    )
    # examples in the glossary stay with their definition, on a line of their own
    activation = terms["Activation Cost"].definition.split("\n")
    assert activation[1].startswith("Example: The activation cost")
    # terms no other edition has, found from the text alone
    assert terms["Mana Burn"].definition.startswith("When a phase ends, any unused mana")
    imprinted = terms["Imprinted [quality] card"].definition
    assert imprinted.startswith('The phrase "imprinted [quality] card"')
    assert terms["Colorless mana"].definition.startswith("Numeral symbols (such as {1})")
    assert terms["Cumulative Upkeep"].definition.startswith("Cumulative upkeep is a triggered")
    assert terms["Creature Type"].definition.endswith("Zombie, Zubera")
    assert terms["Absorb"].definition.startswith("Absorb is a static ability that prevents damage.")
    assert '"Absorb N" means' in terms["Absorb"].definition  # a sentence, not a term


def test_glossary_notes(edition):
    notes = "\n".join(edition.notes)
    assert "the definition of 'Creature Type' does not end with a period" in notes
    assert "'Range of Influence' is out of alphabetical order after 'Reach'" in notes
    assert "glossary: 402 terms" in notes


def test_golden_cut(golden):
    """A cut of the real file: the start through section 102, the glossary from "Ability" to
    "Artifact Creature", the first words of the credits."""
    real = (DATA / NAME).read_bytes()
    cut = CUT.read_bytes()
    assert cut == (
        real[: real.index(b" 103. The _Magic_ Golden Rules 103.1.")]
        + real[real.index(b" Glossary Ability") : real.index(b" Artifact Land An artifact land")]
        + real[real.index(b" Credits _Magic: The") : real.index(b" Comprehensive Rules Design")]
    )
    [e] = flat.read(CUT, cut)
    data = {
        "id": e.id,
        "title": e.title,
        "rules": [r.to_dict(e.id) for r in e.rules],
        "glossary": [g.to_dict(e.id) for g in e.glossary],
        "notes": list(e.notes),
    }
    golden("flat/cr-2009-02-01-en-flat-cut.golden.json", data)


def test_sniff():
    assert flat.sniff((DATA / NAME).read_bytes())
    assert flat.sniff(CUT.read_bytes())
    others = [p for p in DATA.iterdir() if p.is_file() and p.name != NAME]
    assert others
    for p in others:
        assert not flat.sniff(p.read_bytes()), p.name
    assert not flat.sniff(b"")
    assert not flat.sniff(b'{"Comprehensive Rules": "These rules are current as of May 1, 2030."}')


def test_a_document_with_line_breaks_is_another_format():
    s = source_text()
    head = s[: s.index(" 103. The _Magic_ Golden Rules 103.1.")]
    [a] = flat.read(Path("a.txt"), head.replace(". ", ".  ").encode())
    assert "whitespace runs read as single spaces" in a.notes
    with pytest.raises(SourceError) as e:
        flat.read(Path("b.txt"), head.replace(". ", ".\r\n").encode())
    assert str(e.value).startswith("b.txt:2: expected one line of text")


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "expected the sentence 'These rules are effective as of"),
        (b"Hello world. Nothing here.", "expected the sentence 'These rules are effective as of"),
        (
            b"Comprehensive Rules These rules are current as of May 1, 2030. No rules.",
            "expected numbered rules",
        ),
        (b"Comprehensive Rules current as of February 30, 2009. 100.1. x", "expected a real date"),
        (b"Comprehensive Rules current as of May 1, 2009. Caf\xc3\xa9 \xff", "valid UTF-8"),
        (
            b"Comprehensive Rules current as of May 1, 2009. 100.1. A. Glossary Xx yy zz. Credits",
            "expected glossary terms",
        ),
    ],
)
def test_not_readable(data, message):
    with pytest.raises(SourceError) as e:
        flat.read(Path("bad.txt"), data)
    assert str(e.value).startswith("bad.txt")
    assert message in str(e.value)
    assert e.value.line in (1, None)


def test_truncated_file_keeps_what_it_has():
    data = (DATA / NAME).read_bytes()
    cut = data[: data.index(b" 502.63b ")]
    [e] = flat.read(Path("cut.txt"), cut)
    assert e.rules[-1].number == "502.63a" and not e.glossary


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_parse_or_raise_source_error(data):
    with contextlib.suppress(SourceError):
        flat.read(Path("fuzz.txt"), data)


FRAGMENTS = [
    "1. The Game",
    "100. General",
    "100.1. Text.",
    "100.1a Sub.",
    "100.1b. Sub.",
    "100.2 Rule",
    "Example: e.",
    "see rule 601.15.",
    "101.",
    "2. Parts",
    "211. [Blank.]",
    "99.1.",
    "901.4.All",
    "Glossary",
    "Credits",
    "Ability Word An ability word.",
    "Absorb Absorb is.",
    "(Obsolete)",
    "(Informal)",
    "See X.",
    "1. To counter.",
    "2. A counter.",
    "Zubera",
    "_Magic_",
    "Coast_(R)",
    "[quality] card",
    "The",
    ".",
    ",",
    "\n",
    "  ",
    "Contents",
]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40), st.booleans())
def test_arbitrary_fragments_parse_or_raise_source_error(fragments, with_head):
    head = "Comprehensive Rules These rules are current as of February 1, 2009. "
    data = ((head if with_head else "") + " ".join(fragments)).encode()
    try:
        [e] = flat.read(Path("fuzz.txt"), data)
    except SourceError:
        return
    numbers = [r.number for r in e.rules]
    assert len(numbers) == len(set(numbers))
    assert e.lang == "en" and e.date == date(2009, 2, 1)
