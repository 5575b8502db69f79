"""Spelling correction (crlookup/spelling.py), shared by `search` and `ask`."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz import fuzz

from crlookup.core.spelling import nearest

VOCABULARY = {
    "deathtouch": 40,
    "trample": 90,
    "library": 300,
    "arrange": 2,
    "ходит": 3,
    "shrine": 1,
    "death": 60,
    "touch": 25,
}


def test_typos_are_read_as_the_words_meant():
    assert nearest("deathtuch", VOCABULARY, 85) == "deathtouch"
    assert nearest("tramlpe", VOCABULARY, 85) == "trample"
    assert nearest("libary", VOCABULARY, 85) == "library"


def test_a_first_letter_is_never_changed():
    assert nearest("rearrange", VOCABULARY, 75) is None  # not "arrange"
    assert nearest("уходит", VOCABULARY, 75) is None  # leaves: not "ходит", moves
    assert nearest("rample", VOCABULARY, 75) is None  # not "trample"


def test_the_cutoff_holds_and_the_more_used_of_equals_wins():
    assert nearest("shrink", VOCABULARY, 85) is None  # "shrine": 83
    assert nearest("shrink", VOCABULARY, 80) == "shrine"
    assert nearest("teuch", {"touch": 1, "tench": 9}, 75) == "tench"  # both 80


@given(
    st.text(alphabet="adehinorstuхдито", min_size=1, max_size=12),
    st.dictionaries(
        st.text(alphabet="adehinorstuхдито", min_size=1, max_size=12),
        st.integers(1, 100),
        max_size=20,
    ),
    st.integers(50, 100),
)
def test_a_correction_is_a_word_of_the_vocabulary_near_enough(word, vocabulary, cutoff):
    found = nearest(word, vocabulary, cutoff)
    scores = {w: fuzz.ratio(word, w) for w in vocabulary if w[0] == word[0]}
    if found is None:
        assert all(score < cutoff for score in scores.values())
    else:
        assert found in scores and scores[found] >= cutoff
        assert scores[found] == max(scores.values())  # the nearest, whatever else is near
