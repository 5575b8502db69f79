"""Rich renderables at a fixed width: wrapping, indentation, styles, no colour when asked."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.text import Text

from crlookup.ui.render import ask
from crlookup.ui.render import text as views
from crlookup.ui.render.rule import RuleView

pytestmark = pytest.mark.library  # the full library


def printed(renderable, width=40, **kw) -> str:
    out = io.StringIO()
    Console(width=width, file=out, **kw).print(renderable)
    return out.getvalue()


def test_rule_view_wraps_at_width(library):
    rule = library.get("en-2026-08-07", "702.2")
    below = library.reader.subtree("en-2026-08-07", "702.2")
    text = printed(RuleView("en-2026-08-07", rule, below[:2]))
    assert text == (
        "en-2026-08-07\n"
        "702.2 Deathtouch\n"
        "  702.2a Deathtouch is a static ability.\n"
        "  702.2b A creature with toughness\n"
        "  greater than 0 that’s been dealt\n"
        "  damage by a source with deathtouch\n"
        "  since the last time state-based\n"
        "  actions were checked is destroyed as a\n"
        "  state-based action. See rule 704.\n"
        "\n"
        "Cites: 704\n"
    )
    assert all(len(line) <= 40 and line == line.rstrip() for line in text.splitlines())


def test_examples_are_set_apart(library):
    rule = library.get("en-2026-08-07", "101.2")
    text = printed(RuleView("en-2026-08-07", rule, []), width=60)
    assert (
        "\n    Example: If one effect reads “You may play an additional\n    land this turn”"
        in text
    )


def test_no_colour_unless_a_terminal(library):
    rule = library.get("en-2026-08-07", "702.19a")
    plain = printed(RuleView("en-2026-08-07", rule, []))
    assert "\x1b[" not in plain
    coloured = printed(RuleView("en-2026-08-07", rule, []), force_terminal=True)
    assert "\x1b[" in coloured
    no_color = printed(RuleView("en-2026-08-07", rule, []), force_terminal=True, no_color=True)
    assert "\x1b[3" not in no_color  # no colour codes (bold may stay)


def test_glossary_terms_in_bold():
    terms = views.GlossaryTerms(["Lethal Damage", "Creature", "Trample"])
    text = Text("Assign lethal damage to each creature, then creatures again.")
    views.GlossaryTerms.mark(terms, text, set())
    bold = [text.plain[s.start : s.end] for s in text.spans if s.style == "bold"]
    assert bold == ["lethal damage", "creature"]  # first occurrence of each, plural folded


def test_refs_are_highlighted():
    t = views.with_refs("See rules 601.2b and 702.19c, and section 8.")
    refs = [t.plain[s.start : s.end] for s in t.spans]
    assert refs == ["601.2b", "702.19c", "8"]


def test_search_snippet_markers():
    t = views.marked("a \x01trample\x02 b")
    assert t.plain == "a trample b"
    assert [(t.plain[s.start : s.end], s.style) for s in t.spans] == [("trample", "bold reverse")]


def _asked():
    from crlookup.features.ask import Asked
    from crlookup.features.ask.explain import _lifted
    from crlookup.features.ask.records import Answer, Question, Reason

    text = "A creature remains blocked even if all the creatures blocking it are removed."
    answers = [
        Answer(
            "en-2026-08-07",
            number,
            "Declare Blockers Step",
            text,
            score,
            (*own, "words matched: blocking", Reason(f"{n} answers cite it", "judged"), lifted),
            text,
        )
        for number, score, n, own, lifted in [
            ("509.1h", 1.0, 18, (), _lifted(("words", "meaning"))),
            (
                "509.1b",
                0.3,
                14,
                ("keyword ability “Reach” (702.17) recognised",),
                _lifted(("meaning",)),
            ),
            ("509.1a", 0.151, 7, (), _lifted(("meaning", "answers"))),
        ]
    ]
    return Asked(
        Question("q", "en", (), (), (), ()),
        "en-2026-08-07",
        answers,
        ("block (glossary term 509)",),
    )


def test_answers_say_what_they_share_once_and_no_scores():
    text = printed(ask.AnswersView(_asked()), width=200)
    assert text.startswith(
        "Read as: block (glossary term 509)\nAll answers: words matched: blocking\n\n"
        "1. 509.1h Declare Blockers Step  en-2026-08-07\n"
    )
    assert "score" not in text and "0.3" not in text and "0.151" not in text
    assert text.count("words matched") == 1
    assert "answers cite it" not in text  # a count each gives: no reason of one answer
    assert "closeness in meaning" not in text  # lifted all three
    assert "   · keyword ability “Reach” (702.17) recognised\n" in text
    assert "   · lifted above the other candidates by: the question’s words\n" in text
    assert (
        "   · lifted above the other candidates by: what answers to players’ questions cite\n"
        in text
    )


def test_brief_answers_fit_a_terminal():
    asked = _asked()
    wide = printed(ask.BriefAnswersView(asked), width=200, force_terminal=True, color_system=None)
    assert wide.splitlines()[0] == (
        "1. 509.1h Declare Blockers Step: A creature remains blocked even if all the creatures "
        "blocking it are removed."
    )
    lines = printed(
        ask.BriefAnswersView(asked), width=40, force_terminal=True, color_system=None
    ).splitlines()
    assert [line[:10] for line in lines] == ["1. 509.1h ", "2. 509.1b ", "3. 509.1a "]
    assert all(len(line) == 40 and line.endswith("…") for line in lines), lines
