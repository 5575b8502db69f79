"""Alignment, diff and history on the shipped editions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crlookup.core import alignment as align
from crlookup.core.model import Reference, Rule, Source
from crlookup.features import history
from crlookup.library.alignments import align_editions

pytestmark = pytest.mark.library  # the full library


def pairs(library, old, new):
    return {m.old: m for m in align_editions(library, old, new) if m.old}


@pytest.fixture(scope="module")
def rewrite(library):
    return pairs(library.reader, "en-2009-02-01", "en-2009-07-11")


@pytest.mark.parametrize(
    "old, new", [("502.41b", "702.3b"), ("502.63", "702.2"), ("502.9", "702.17")]
)
def test_the_july_2009_rewrite(rewrite, old, new):
    assert rewrite[old].new == new and rewrite[old].kind == "moved"


def test_deathtouch_changed_but_same_rule(rewrite):
    # 502.63a "Deathtouch is a triggered ability" became 702.2b/c: the rule itself is followed
    assert rewrite["502.63"].new == "702.2"


def test_2013_to_2024(library):
    m = pairs(library.reader, "en-2013-11-01", "en-2024-07-30")
    assert (m["111.1"].new, m["111.1"].kind) == ("112.1", "moved")
    assert (m["120.4"].new, m["120.4"].kind) == ("121.4", "moved")
    assert m["702.2b"].new == "702.2c" and m["702.2c"].new == "702.2b"


def test_identity(library):
    ms = align_editions(library.reader, "en-2026-08-07", "en-2026-08-07")
    assert {m.kind for m in ms} == {"unchanged"}
    assert all(m.old == m.new for m in ms)


def test_boilerplate_is_not_matched_across_keywords():
    def sub(n, text):
        return Rule(n, "subrule", text, Source("x", 1))

    def rule(n, title):
        return Rule(n, "rule", title, Source("x", 1), title=title)

    old = [
        rule("702.2", "Deathtouch"),
        sub("702.2f", "Multiple instances of deathtouch on the same object are redundant."),
    ]
    new = [
        rule("702.9", "Flying"),
        sub("702.9c", "Multiple instances of flying on the same object are redundant."),
    ]
    kinds = {m.kind for m in align.align(old, new)}
    assert kinds == {"removed", "added"}


def test_rules_reworded_into_a_new_one_are_merged_into_it():
    """Three subrules reworded into one new subrule (as 502.9b, 502.9d and 502.9e became
    702.17b in July 2009), none of them that subrule: each is merged into it, the new one is
    added. One alone, reworded into a longer text, is a rewrite: removed, and one added."""

    def sub(n, text):
        return Rule(n, "subrule", text, Source("x", 1))

    def rule(n):
        text = "Trample is a static ability that modifies the rules for assigning combat damage."
        return Rule(n, "rule", text, Source("x", 1))

    old = [
        rule("502.9"),
        sub(
            "502.9b",
            "If all the creatures blocking it are assigned lethal damage, any remaining damage "
            "is assigned as its controller chooses among those blocking creatures and the "
            "player the creature is attacking.",
        ),
        sub(
            "502.9d",
            "Assigning damage from a creature with trample considers only the actual toughness "
            "of a blocking creature, not any abilities or effects that might change the final "
            "amount of damage dealt.",
        ),
        sub(
            "502.9e",
            "When there are several attackers, a 2/2 creature that can block two attackers "
            "blocks a 1/1 with no abilities and a 3/3 with trample, and the attacking player "
            "assigns 2 damage to the defending player.",
        ),
    ]
    reworded = (
        "Once all the creatures blocking it are assigned lethal damage, any excess damage is "
        "assigned as its controller chooses among those blocking creatures and the player or "
        "planeswalker the creature is attacking. Lethal damage considers only the actual "
        "toughness of a blocking creature, but not any abilities or effects that might change "
        "the amount of damage that is actually dealt. Example: A 2/2 creature that can block "
        "two attackers blocks a 1/1 with no abilities and a 3/3 with trample. The active "
        "player assigns 2 damage to the defending player."
    )
    new = [rule("702.17"), sub("702.17b", reworded)]
    assert {(m.kind, m.old, m.new) for m in align.align(old, new)} == {
        ("moved", "502.9", "702.17"),
        ("merged", "502.9b", "702.17b"),
        ("merged", "502.9d", "702.17b"),
        ("merged", "502.9e", "702.17b"),
        ("added", None, "702.17b"),
    }
    assert {(m.kind, m.old, m.new) for m in align.align(old[:2], new)} == {
        ("moved", "502.9", "702.17"),
        ("removed", "502.9b", None),
        ("added", None, "702.17b"),
    }


def test_renumbered_reference_is_not_a_content_change():
    a = Rule(
        "100.1", "rule", "See rule 510.1c.", Source("x", 1), refs=(Reference("510.1c", "510.1c"),)
    )
    b = Rule(
        "100.1", "rule", "See rule 511.1c.", Source("y", 1), refs=(Reference("511.1c", "511.1c"),)
    )
    [m] = align.align([a], [b])
    assert m.kind == "changed" and m.refs_only and m.similarity == 100.0


def test_typography_only():
    a = Rule("100.1", "rule", 'A player\'s "turn" - see', Source("x", 1))
    b = Rule("100.1", "rule", "A player’s “turn” – see", Source("y", 1))
    [m] = align.align([a], [b])
    assert m.kind == "changed" and m.typography and not m.refs_only
    assert (m.words_added, m.words_removed) == (0, 0)


def test_word_diff():
    assert align.word_diff("deal 2 damage to it", "deal 3 damage to it") == [
        ("=", "deal"),
        ("-", "2"),
        ("+", "3"),
        ("=", "damage to it"),
    ]


_WORDS = st.lists(
    st.sampled_from(["deal", "2", "damage", "it’s", "it's", "“turn”", '"turn"', "a—b", "a-b", "–"]),
    max_size=12,
)


@given(_WORDS, _WORDS)
def test_word_diff_runs_are_both_texts(old, new):
    """Kept and added runs are the new words as written; kept and removed runs are the old
    words up to typography (a word only retyped, "it's" for "it’s", is kept, not replaced)."""
    ops = align.word_diff(" ".join(old), " ".join(new))
    assert " ".join(t for op, t in ops if op != "-").split() == new

    def plain(words):
        return [align.plain_marks(w) for w in words]

    assert plain(" ".join(t for op, t in ops if op != "+").split()) == plain(old)


@given(st.text(alphabet=" ab’‘“”–—'\"-\n", max_size=30))
def test_plain_marks_keeps_the_words_in_place(text):
    assert [align.plain_marks(w) for w in text.split()] == align.plain_marks(text).split()


def test_history_across_2009(library):
    steps = history.timeline(library.reader, "en-2026-08-07", "702.2")
    # deathtouch came with Future Sight (2007) at 502.63, and became 702.2 in July 2009
    assert (steps[0].edition, steps[0].number, steps[0].change) == (
        "en-2007-05-01",
        "502.63",
        "added",
    )
    [july] = [s for s in steps if s.edition == "en-2009-07-11"]
    assert (july.number, july.change, july.previous) == (
        "702.2",
        "moved",
        ("en-2009-05-01", "502.63"),
    )
    assert steps[-1].edition == "en-2026-08-07"
    assert [s.date for s in steps] == sorted(s.date for s in steps)  # as they took effect


def test_history_of_a_moved_rule(library):
    steps = {s.edition: s for s in history.timeline(library.reader, "en-2026-08-07", "112.1")}
    assert steps["en-2019-05-03"].number == "111.1"
    assert steps["en-2019-07-12"].number == "112.1" and steps["en-2019-07-12"].change == "moved"
    assert steps["en-2009-07-11"].change == "added"


def test_history_of_a_section(library):
    steps = history.timeline(library.reader, "en-2026-08-07", "702")
    assert steps[0].edition == "en-2009-07-11" and steps[0].change == "added"
    assert steps[0].date == "2009-07-11" and steps[0].main
    assert {s.change for s in steps[1:]} == {"unchanged"}
    assert "en-2010-07-16-webpage" not in [s.edition for s in steps]  # the page has no 702 heading
