"""Rich renderables at a fixed width: wrapping, indentation, styles, no colour when asked."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from crlookup.ui import render


def printed(renderable, width=40, **kw) -> str:
    out = io.StringIO()
    Console(width=width, file=out, **kw).print(renderable)
    return out.getvalue()


def test_rule_view_wraps_at_width(library):
    rule = library.get("en-2026-08-07", "702.2")
    below = library.subtree("en-2026-08-07", "702.2")
    text = printed(render.RuleView("en-2026-08-07", rule, below[:2]))
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
    text = printed(render.RuleView("en-2026-08-07", rule, []), width=60)
    assert (
        "\n    Example: If one effect reads “You may play an additional\n    land this turn”"
        in text
    )


def test_no_colour_unless_a_terminal(library):
    rule = library.get("en-2026-08-07", "702.19a")
    plain = printed(render.RuleView("en-2026-08-07", rule, []))
    assert "\x1b[" not in plain
    coloured = printed(render.RuleView("en-2026-08-07", rule, []), force_terminal=True)
    assert "\x1b[" in coloured
    no_color = printed(
        render.RuleView("en-2026-08-07", rule, []), force_terminal=True, no_color=True
    )
    assert "\x1b[3" not in no_color  # no colour codes (bold may stay)


def test_glossary_terms_in_bold():
    terms = render.GlossaryTerms(["Lethal Damage", "Creature", "Trample"])
    text = Text("Assign lethal damage to each creature, then creatures again.")
    render.GlossaryTerms.mark(terms, text, set())
    bold = [text.plain[s.start : s.end] for s in text.spans if s.style == "bold"]
    assert bold == ["lethal damage", "creature"]  # first occurrence of each, plural folded


def test_refs_are_highlighted():
    t = render.with_refs("See rules 601.2b and 702.19c, and section 8.")
    refs = [t.plain[s.start : s.end] for s in t.spans]
    assert refs == ["601.2b", "702.19c", "8"]


def test_search_snippet_markers():
    t = render.marked("a \x01trample\x02 b")
    assert t.plain == "a trample b"
    assert [(t.plain[s.start : s.end], s.style) for s in t.spans] == [("trample", "bold reverse")]
