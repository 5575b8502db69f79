"""History across merges and splits, and a rule's history telling its subrules' changes, on
the shipped editions (issue 31)."""

from __future__ import annotations

import json

import pytest
from conftest import run

from crlookup.features import history
from crlookup.library.alignments import stored

pytestmark = pytest.mark.library  # the full library

NEWEST = "en-2026-08-07"


def steps_of(library, number: str) -> dict:
    return {s.edition: s for s in history.timeline(library, NEWEST, number)}


def test_the_july_2009_merge_is_stored(library):
    """502.9b (trample's damage assignment), 502.9d (only toughness counts) and 502.9e (its
    example of attackers without trample) became one reworded 702.17b: no one of them is that
    rule, so 702.17b is new, and each of the three is merged into it."""
    matches = stored(library.reader, "en-2009-05-01", "en-2009-07-11")
    assert matches is not None
    into = {m.old: m.new for m in matches if m.kind == "merged" and m.new == "702.17b"}
    assert into == {"502.9b": "702.17b", "502.9d": "702.17b", "502.9e": "702.17b"}
    assert [m.kind for m in matches if m.new == "702.17b" and m.kind != "merged"] == ["added"]
    assert not [m for m in matches if m.kind == "removed" and m.old in into]


def test_history_follows_a_merge_back(library):
    steps = steps_of(library.reader, "702.19b")
    july = steps["en-2009-07-11"]
    assert (july.number, july.change, july.previous) == (
        "702.17b",
        "merged",
        ("en-2009-05-01", "502.9b"),  # the one it holds the most words of
    )
    assert july.merged_from == ("502.9b", "502.9d", "502.9e")
    assert july.noteworthy
    # followed back through 502.9b, to where 502.9b first appears
    first = history.timeline(library.reader, NEWEST, "702.19b")[0]
    assert (first.edition, first.number, first.change) == ("en-2003-03-15", "502.9b", "added")
    assert steps["en-2009-05-01"].number == "502.9b"
    assert steps["en-2007-10-01"].change == "changed"  # "the player or planeswalker"
    data = json.loads(run("history", "702.19b", "--json").output)["steps"]
    [step] = [d for d in data if d["edition"] == "en-2009-07-11"]
    assert step["merged_from"] == ["502.9b", "502.9d", "502.9e"]
    assert step["previous"] == {"edition": "en-2009-05-01", "number": "502.9b"}


def test_history_of_a_merged_rule_says_so():
    out = run("history", "702.19b").output
    lines = out.splitlines()
    assert lines[0] == "2003-03-15  en-2003-03-15         502.9b  first appears"
    assert (
        "2009-07-11  en-2009-07-11         702.17b  merged from 502.9b, 502.9d and 502.9e "
        "(+149 −9 against 502.9b)"
    ) in lines
    assert "2013-07-13  en-2013-07-11         702.19b  renumbered from 702.18b" in lines
    assert lines[-1] == "2026-08-07  en-2026-08-07         702.19b  in force"


def test_a_merged_rule_followed_forwards(library):
    """From 502.9d of 2009 on: merged into 702.17b, and 702.19b from then on."""
    steps = {s.edition: s for s in history.timeline(library.reader, "en-2009-05-01", "502.9d")}
    july = steps["en-2009-07-11"]
    assert (july.number, july.change, july.previous) == (
        "702.17b",
        "merged",
        ("en-2009-05-01", "502.9d"),
    )
    assert july.merged_from == ("502.9b", "502.9d", "502.9e")
    assert steps[NEWEST].number == "702.19b"


def test_history_follows_a_split(library):
    """In April 2018 (Dominaria: the recovered edition; issue 46) 106.4a's first sentence
    (announcing the mana in a pool when passing priority) became 106.4b; its second stayed
    106.4a."""
    b = steps_of(library.reader, "106.4b")
    split = b["en-2018-04-27"]
    assert (split.change, split.previous, split.split_from) == (
        "split",
        ("en-2018-01-19", "106.4a"),
        ("106.4a",),
    )
    assert b["en-2018-01-19"].number == "106.4a"  # followed back through the rule it left
    a = steps_of(library.reader, "106.4a")["en-2018-04-27"]
    assert (a.number, a.change, a.split_into) == ("106.4a", "changed", ("106.4a", "106.4b"))
    assert a.noteworthy
    assert "2018-04-27  en-2018-04-27         106.4b  split from 106.4a (+23 −0)" in (
        run("history", "106.4b").output.splitlines()
    )
    assert "2018-04-27  en-2018-04-27         106.4a  106.4a split into 106.4a and 106.4b" in (
        run("history", "106.4a").output
    )
    data = json.loads(run("history", "106.4b", "--json").output)["steps"]
    [step] = [d for d in data if d["edition"] == "en-2018-04-27"]
    assert (step["split_from"], step["split_into"]) == (["106.4a"], ["106.4a", "106.4b"])


def told(step) -> set:
    return {(c.change, c.previous, c.number) for c in step.subrules}


def test_history_of_a_rule_tells_its_subrules(library):
    steps = steps_of(library.reader, "702.19")
    assert told(steps["en-2018-04-27"]) == {("changed", "702.19b", "702.19b")}
    assert told(steps["en-2021-06-09"]) == {
        ("added", None, "702.19c"),
        ("changed", "702.19c", "702.19d"),
        ("added", None, "702.19e"),
        ("changed", "702.19d", "702.19f"),
        ("changed", "702.19e", "702.19g"),
    }
    assert told(steps["en-2023-04-14"]) == {
        ("changed", "702.19b", "702.19b"),
        ("changed", "702.19e", "702.19e"),
    }
    assert told(steps["en-2009-07-11"]) == {
        ("changed", "502.9a", "702.17a"),
        ("merged", "502.9b", "702.17b"),
        ("added", None, "702.17d"),
        ("renumbered", "502.9f", "702.17e"),
    }
    assert told(steps["en-2003-07-01"]) == {
        ("changed", "502.9a", "502.9a"),
        ("removed", "502.9d", None),
        ("renumbered", "502.9e", "502.9d"),
        ("renumbered", "502.9f", "502.9e"),
        ("renumbered", "502.9g", "502.9f"),
    }
    # renumbered with their rule (702.18a is 702.19a): not a change of its subrules
    assert steps["en-2013-07-11"].change == "moved" and not steps["en-2013-07-11"].subrules
    # quotes and spacing alone (702.19a-d in February 2014) or a cited number alone (502.9b in
    # July 2003) are no change
    assert not steps["en-2014-02-01"].subrules
    assert "502.9b" not in {c.number for c in steps["en-2003-07-01"].subrules}
    # since 2013 its own words never changed; its subrules did, in these editions
    since = [
        s for s in history.timeline(library.reader, NEWEST, "702.19") if s.date >= "2013-07-13"
    ]
    assert {s.change for s in since if s.main} == {"moved", "unchanged"}
    assert [s.edition for s in since if s.main and s.subrules] == [
        "en-2018-04-27",
        "en-2020-04-17",
        "en-2021-06-09",
        "en-2023-04-14",
    ]


def test_history_of_a_rule_shows_its_subrules():
    out = run("history", "702.19").output
    lines = out.splitlines()
    assert (
        "2021-06-18  en-2021-06-09         702.19  subrules changed: 702.19c→702.19d, "
        "702.19d→702.19f, 702.19e→702.19g; added: 702.19c, 702.19e"
    ) in lines
    assert "2018-04-27  en-2018-04-27         702.19  subrules changed: 702.19b" in lines
    assert "2009-07-11  en-2009-07-11         702.17  renumbered from 502.9" in lines
    assert (
        "    subrules changed: 702.17a; added: 702.17d; merged: 702.17b; renumbered: 502.9f→702.17e"
    ) in lines
    # no run of editions said unchanged when its subrules changed in them
    assert not any("its words unchanged" in line for line in lines)
    assert "    … its words and its subrules unchanged in 21 editions" in lines
    assert lines[-1] == "2026-08-07  en-2026-08-07         702.19  in force"
    data = json.loads(run("history", "702.19", "--json").output)["steps"]
    [step] = [d for d in data if d["edition"] == "en-2018-04-27"]
    assert step["change"] == "unchanged"
    assert step["subrules"] == [
        {"change": "changed", "number": "702.19b", "previous": "702.19b", "moved": False}
    ]


def test_history_of_a_section_tells_its_rules(library):
    steps = steps_of(library.reader, "702")
    april = told(steps["en-2010-04-23"])
    assert ("added", None, "702.83") in april and ("changed", "702.82a", "702.82a") in april
    assert "rules changed: 702.82a; added: 702.83, 702.83a" in run("history", "702").output


def test_history_says_where_an_edition_is_missing():
    """Emerge came with Oath of the Gatewatch (January 2016), an edition no copy of was found:
    it first appears in the library's July 2016 edition, which says so (issue 46)."""
    first = run("history", "702.119").output.splitlines()[0]
    assert first == (
        "2016-07-22  en-2016-07-22         702.118  first appears in the library's edition of "
        "this date (missing before it: en-2016-01-22, en-2016-04-08)"
    )
    data = json.loads(run("history", "702.119", "--json").output)["steps"]
    assert data[0]["missing_before"] == ["en-2016-01-22", "en-2016-04-08"]
    # ascend (Rivals of Ixalan, January 2018): in the recovered edition of its date
    assert run("history", "702.131a").output.startswith(
        "2018-01-19  en-2018-01-19         702.130a  first appears\n"
    )


def test_an_encoding_slip_is_typography_not_a_change():
    """en-2008-05-01's file has "?" for every mark outside ASCII ("can?t"): its 502.9b is not
    changed, nor is the next edition's (issue 46: two false changes)."""
    steps = {
        s["edition"]: s for s in json.loads(run("history", "702.19b", "--json").output)["steps"]
    }
    for edition in ("en-2008-05-01", "en-2008-07-15"):
        assert steps[edition]["change"] == "changed" and steps[edition]["typography"], edition
    lines = run("history", "702.19b").output
    assert "en-2008-05-01" not in lines and "en-2008-07-15" not in lines
