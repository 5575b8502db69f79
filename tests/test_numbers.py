"""Rule numbers: parsing, numeric order, subrule letters, ranges, look-alike letters."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crlookup.core import numbers
from crlookup.core.errors import NumberError
from crlookup.core.numbers import RuleNumber, parse

# a subrule number's parts: section, rule, and the index of its letters (600: well past "zz")
SUBRULE_PARTS = (
    st.integers(min_value=100, max_value=999),
    st.integers(min_value=1, max_value=400),
    st.integers(min_value=0, max_value=600),
)


def test_kinds_and_parents():
    assert parse("7").kind == "chapter"
    assert parse("702").kind == "section"
    assert parse("702.19").kind == "rule"
    assert parse("702.19b").kind == "subrule"
    assert str(parse("702.19b").parent) == "702.19"
    assert str(parse("702.19").parent) == "702"
    assert str(parse("702").parent) == "7"
    assert parse("7").parent is None


def test_trailing_period_and_case_and_homoglyphs():
    assert str(parse("100.1.")) == "100.1"
    assert str(parse("702.19B")) == "702.19b"
    assert str(parse("105.2с")) == "105.2c"  # Cyrillic es
    assert str(parse("702.102е")) == "702.102e"  # Cyrillic ie


@pytest.mark.parametrize(
    "bad", ["", "abc", "70", "702.", "702..1", "1000.1", "702.19b1", "99.1", "7.1"]
)
def test_malformed(bad):
    if bad == "702.":
        assert str(parse(bad)) == "702"  # "702." is the section, written as a heading
        return
    with pytest.raises(NumberError):
        parse(bad)


def test_numeric_order():
    shuffled = [
        "100.10",
        "100.9",
        "100.1a",
        "1",
        "100",
        "100.1",
        "704.5aa",
        "704.5z",
        "704.5b",
        "2",
    ]
    assert sorted(shuffled, key=numbers.sort_key) == [
        "1",
        "100",
        "100.1",
        "100.1a",
        "100.9",
        "100.10",
        "2",
        "704.5b",
        "704.5z",
        "704.5aa",
    ]
    assert parse("100.9") < parse("100.10")
    assert parse("704.5z") < parse("704.5aa")


def test_letters_skip_l_and_o():
    assert [numbers.letters_at(i) for i in range(12)] == list("abcdefghijkm")
    assert numbers.letters_at(23) == "z"
    assert numbers.letters_at(24) == "aa"
    assert numbers.letters_at(25) == "ab"
    with pytest.raises(NumberError):
        numbers.letters_index("l")


def test_ranges():
    assert numbers.expand_range("601.2e", "g") == ["601.2e", "601.2f", "601.2g"]
    assert numbers.expand_range("510.1c", "510.1d") == ["510.1c", "510.1d"]
    assert numbers.expand_range("704.5y", "aa") == ["704.5y", "704.5z", "704.5aa"]
    assert numbers.expand_range("702.2k", "n") == ["702.2k", "702.2m", "702.2n"]  # no "l"
    assert numbers.expand_range("103.4", "103.6") is None  # rule ranges need an edition


def test_contains():
    assert parse("702").contains(parse("702.19b"))
    assert parse("702.19").contains(parse("702.19"))
    assert not parse("702.1").contains(parse("702.19"))


@given(st.integers(min_value=0, max_value=24**3))
def test_letters_round_trip(i):
    assert numbers.letters_index(numbers.letters_at(i)) == i


@given(st.integers(min_value=0, max_value=5000))
def test_letters_order_is_index_order(i):
    a, b = numbers.letters_at(i), numbers.letters_at(i + 1)
    assert RuleNumber(100, 1, a) < RuleNumber(100, 1, b)
    assert "l" not in a and "o" not in a


@given(*SUBRULE_PARTS)
def test_parse_format_round_trip(section, rule, letters):
    text = f"{section}.{rule}{numbers.letters_at(letters)}"
    assert str(parse(text)) == text
    assert parse(text).parent.parent == RuleNumber(section)


@given(st.text(max_size=20))
def test_parse_never_raises_anything_else(text):
    with contextlib.suppress(NumberError):
        parse(text)


@given(*SUBRULE_PARTS)
def test_rule_of_agrees_with_parse(section, rule, letters):
    """`rule_of` (plain string work) names the same rule as parsing does, letters past z too."""
    subrule = f"{section}.{rule}{numbers.letters_at(letters)}"
    assert numbers.rule_of(subrule) == str(parse(subrule).parent) == f"{section}.{rule}"
    assert numbers.rule_of(f"{section}.{rule}") == f"{section}.{rule}"
    assert numbers.rule_of(str(section)) == str(section)


@given(
    *SUBRULE_PARTS,
    st.sampled_from(["See rule {}.", "({})", "is {} right?", "{}", "rules {} and 100.1"]),
)
def test_numbers_written_in_text_are_found_with_lookalikes_read(section, rule, letters, frame):
    """A number written in running text is found whole, its trailing period aside, and a
    subrule letter written with a Cyrillic look-alike ("702.19с") is read as the Latin one."""
    number = f"{section}.{rule}{numbers.letters_at(letters)}"
    assert number in numbers.WRITTEN.findall(frame.format(number))
    cyrillic = number.translate(str.maketrans("aceopxyk", "асеорхук"))
    assert number in numbers.WRITTEN.findall(numbers.read_lookalikes(frame.format(cyrillic)))
    assert (
        numbers.WRITTEN.findall(f"x{number}") == [] and numbers.WRITTEN.findall(f"1{number}") == []
    )


def test_a_closing_period_asks_for_the_rule_alone():
    assert numbers.without_subrules("702.19.") and numbers.without_subrules(" 702.19b. ")
    assert not numbers.without_subrules("702.19") and not numbers.without_subrules("702.")
    assert not numbers.without_subrules("702.19...")  # an ellipsis closes nothing


@given(*SUBRULE_PARTS, st.sampled_from([".", "..", "...", "…", ".…", " ..."]))
def test_trailing_periods_and_an_ellipsis_are_read_past(section, rule, letters, after):
    """ "702.19b..." as typed is 702.19b (issue 55)."""
    number = RuleNumber(section, rule, numbers.letters_at(letters))
    assert parse(f"{number}{after}") == number


def _below_as_read(number: str, scope: str) -> bool:
    """Whether `number` is at or below `scope` as a search reads a number it is scoped to
    (7: 7xx; 702: 702 and 702.x; 702.19: 702.19 and its subrules, not 702.190; 702.19b:
    itself), by the numbers' text: as the index's query over them was written until issue 53."""
    import re

    if "." in scope:
        if scope[-1].isdigit():
            return re.fullmatch(re.escape(scope) + "[a-z]*", number) is not None
        return number == scope
    if len(scope) == 1:
        return number.startswith(scope)
    return number == scope or number.startswith(scope + ".")


_NUMBERS = st.one_of(
    st.builds(lambda s, r, i: str(RuleNumber(s, r, numbers.letters_at(i))), *SUBRULE_PARTS),
    st.builds(lambda s, r: f"{s}.{r}", st.integers(100, 999), st.integers(1, 400)),
    st.integers(100, 999).map(str),
    st.integers(1, 9).map(str),
    st.builds(lambda a, b: f"{a}.{b}", st.integers(1, 12), st.integers(1, 12)),  # IPG 2.1
    st.sampled_from(["A", "B", "C", "F"]),  # an appendix of the MTR
)


@given(_NUMBERS, _NUMBERS)
def test_the_scopes_of_a_number_are_those_it_is_read_below(number, scope):
    from crlookup.library.index import scopes_of

    assert (scope in scopes_of(number)) == _below_as_read(number, scope)


@given(_NUMBERS)
def test_a_number_is_in_the_scopes_of_its_parents(number):
    from crlookup.library.index import scopes_of

    scopes = scopes_of(number)
    assert number in scopes and number[0] in scopes
    with contextlib.suppress(NumberError):
        above = parse(number).parent
        while above is not None:
            assert str(above) in scopes
            above = above.parent
