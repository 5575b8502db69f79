"""`crlookup browse`, driven headless with Textual's Pilot: what the screen shows after keys.

Each test runs the real app over the session's library at 80×24 and reads the screen back as
text (from `App.export_screenshot`, the SVG a user would see), the widgets' options, and the
place the rule pane shows. The snapshot tests at the end keep six whole screens as SVG under
tests/__snapshots__/ (`pytest --snapshot-update` rewrites them; review them in the diff).
"""

from __future__ import annotations

import asyncio
import html
import io
import itertools
import re
import threading

import pytest
from rich.console import Console
from textual import events
from textual.color import Color
from textual.widgets import Input, OptionList, Static

from crlookup.ui.browse import Browser, KeysScreen, PickScreen, Place

pytestmark = pytest.mark.library  # the full library

NEWEST = "en-2026-08-07"
SIZE = (80, 24)


def drive(library, query: str, steps) -> Browser:
    """Run the browser on `query` at 80×24, headless, and `await steps(pilot)` once its first
    screen is painted; returns the app (stopped)."""
    app = Browser(library, query)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await steps(pilot)

    asyncio.run(main())
    return app


_TEXT = re.compile(r"<text ([^>]*)>([^<]*)</text>")
_CELL = 12.2  # the width of a cell in rich's SVG, in pixels


def screen_lines(svg: str) -> list[str]:
    """The terminal lines of an SVG screenshot (rich's `export_svg`), as plain text."""
    lines: dict[int, list[str]] = {}
    for attrs, content in _TEXT.findall(svg):
        line, x = re.search(r"line-(\d+)\)", attrs), re.search(r'\bx="([\d.]+)"', attrs)
        if line is None or x is None:  # the window's title
            continue
        column, text = round(float(x[1]) / _CELL), html.unescape(content).replace("\xa0", " ")
        cells = lines.setdefault(int(line[1]), [])
        cells.extend(" " * (column + len(text) - len(cells)))
        cells[column : column + len(text)] = text
    return ["".join(lines.get(n, ())).rstrip() for n in range(max(lines, default=-1) + 1)]


def screen(app) -> str:
    """What the terminal shows now, as text."""
    return "\n".join(screen_lines(app.export_screenshot()))


def pane(app, width: int = 57) -> str:
    """The whole rule pane (also what is scrolled out of sight), as text."""
    out = io.StringIO()
    Console(width=width, file=out).print(app.query_one("#rule", Static).content)
    return out.getvalue()


def ids(option_list: OptionList) -> list[str]:
    return [option_list.get_option_at_index(i).id for i in range(option_list.option_count)]


def labels(option_list: OptionList) -> list[str]:
    return [str(option_list.get_option_at_index(i).prompt) for i in range(option_list.option_count)]


async def highlight(pilot, option_list: OptionList, wanted: str) -> None:
    """Move the list's cursor to the option whose id is `wanted`, or whose label has the
    word `wanted`."""
    for i in range(option_list.option_count):
        option = option_list.get_option_at_index(i)
        if wanted == option.id or wanted in str(option.prompt).split():
            option_list.highlighted = i
            await pilot.pause()
            return
    raise AssertionError(f"{wanted!r} not in {labels(option_list)}")


async def paste_in(pilot, text: str) -> None:
    """`/`, then the text pasted (as a terminal sends it): the results update once, where
    typing updates them at every key (~0.1 s a key; the mulligan test types)."""
    await pilot.press("slash")
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def answered(pilot) -> None:
    """Wait until the question asked is answered (in its thread), and what follows is shown."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def status(app) -> str:
    return str(app.query_one("#status", Static).content)


# ------------------------------------------------------------------------ the external contract


def test_opens_on_the_rule_with_its_subrules(library):
    async def steps(pilot):
        app = pilot.app
        assert app.place == Place("rule", NEWEST, "702.19")
        shown = screen(app)
        assert "702.19 Trample" in shown and "702.19a Trample is a static ability" in shown
        assert "702.19b The controller of an attacking creature" in shown
        assert "7. Additional Rules › 702. Keyword Abilities" in shown
        assert "en-2026-08-07 · EN · 702.19" in shown  # the status line
        text = pane(app)
        assert all(f"702.19{x} " in text for x in "abcdefg")  # the rest is a scroll away
        links = app.query_one("#links", OptionList)
        assert app.focused is links
        assert ids(links) == [
            f"rule:{NEWEST}:506.4c",
            f"rule:{NEWEST}:510",
            f"glossary:{NEWEST}:Trample",
            f"glossary:{NEWEST}:Trample Over Planeswalkers",
        ]
        assert labels(links)[:3] == ["→ 506.4c", "→ 510", "← Trample"]
        results = app.query_one("#results", OptionList)
        assert not results.has_class("shown") and not results.display

    drive(library, "702.19", steps)


def test_search_mulligan_then_esc_q_quits(library):
    async def steps(pilot):
        app = pilot.app
        await pilot.press("slash")
        assert app.focused is app.query_one("#search", Input)
        await pilot.press(*"mulligan")
        await pilot.pause()
        assert app.query_one("#search", Input).value == "mulligan"
        assert app.mode == 0 and app.screen is app.default_screen  # `l`, `g`… were typed
        results = app.query_one("#results", OptionList)
        assert results.has_class("shown") and results.display
        # "mulligan" needed no correction ("mull" did: that message is gone)
        assert str(app.query_one("#status", Static).content) == "en-2026-08-07 · EN · 702.19"
        await pilot.press("enter")
        await pilot.pause()
        assert f"rule:{NEWEST}:103.5" in ids(results)
        assert app.place == Place("glossary", NEWEST, "Mulligan")  # the term named: first
        assert app.focused is results
        shown = screen(app)
        assert "glossary Mulligan" in shown and "103.5 " in shown
        assert app.return_code is None
        await pilot.press("escape", "q")
        await pilot.pause()
        assert app.return_code == 0

    app = drive(library, "702.19", steps)
    assert app.return_code == 0


def test_slash_as_the_docs_say_it_with_the_box_focused_at_start(library):
    """Without a query the box has focus: `/` typed a "/", and "/702.19" found nothing (issue
    55). In an empty box it types nothing now; after text it is a "/" ("Fire // Ice")."""

    async def steps(pilot):
        app = pilot.app
        box = app.query_one("#search", Input)
        assert app.focused is box
        await pilot.press("slash", *"702.19", "enter")
        await pilot.pause()
        assert box.value == "702.19" and app.place == Place("rule", NEWEST, "702.19")
        await pilot.press("slash")
        assert app.focused is box
        box.value = ""
        await pilot.press(*"fire", "space", "slash", "slash")
        assert box.value == "fire //"

    drive(library, "", steps)


def test_esc_leaves_the_search_box_so_q_quits(library):
    async def steps(pilot):
        app = pilot.app
        await pilot.press("slash", "escape")  # nothing typed: back to the links
        assert app.focused is app.query_one("#links", OptionList) and app.focused.display
        await paste_in(pilot, "trample")
        await pilot.press("e", "h", "l", "question_mark", "q")  # typed into the box, all of them
        await pilot.pause()
        assert app.query_one("#search", Input).value == "trampleehl?q"
        assert app.screen is app.default_screen and app.mode == 0 and app.return_code is None
        await pilot.press("escape")
        # onto the results (at 80 columns they take the links' place), not a hidden list
        assert app.focused is app.query_one("#results", OptionList) and app.focused.display
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0

    drive(library, "702.19", steps)


# ------------------------------------------------------------------------ moving around


def test_follow_links_back_and_forward(library):
    async def steps(pilot):
        app = pilot.app
        await pilot.press("enter")  # the first link, the cursor on it at once: → 506.4c
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "506.4c")
        assert "506.4c " in screen(app)
        await pilot.press("backspace")
        await pilot.pause()
        assert app.place.key == "702.19"
        app.action_follow("510")  # what a click on a number in the rule pane runs
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "510")
        assert "510. Combat Damage Step" in screen(app)
        assert f"rule:{NEWEST}:702.19a" in ids(app.query_one("#links", OptionList))  # ← cited by
        await pilot.press("alt+left")
        await pilot.pause()
        assert app.place.key == "702.19"
        await pilot.press("alt+right")
        await pilot.pause()
        assert app.place.key == "510"
        await pilot.press("alt+right")  # nothing further on
        await pilot.press("backspace", "backspace", "backspace")
        await pilot.pause()
        assert app.place.key == "702.19" and app.back_stack == []
        assert app.forward_stack == [Place("rule", NEWEST, "510")]  # following 510 dropped 506.4c

    drive(library, "702.19", steps)


def test_a_click_on_a_rule_number_follows_it(library):
    async def steps(pilot):
        app = pilot.app
        lines = screen(app).splitlines()
        row = next(y for y, line in enumerate(lines) if "(See rule 510," in line)
        await pilot.click(offset=(lines[row].index("510") + 1, row))
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "510")

    drive(library, "702.19", steps)


def test_languages_side_by_side(library):
    async def steps(pilot):
        app = pilot.app
        await pilot.press("l")
        await pilot.pause()
        shown = screen(app)
        assert re.search(r"en-2026-08-07 +ru-2019-01-25", shown)  # the two columns' editions
        assert "702.19b Игрок" in shown and "пробивным" in shown  # beside the English
        assert "en-2026-08-07 · EN+RU · 702.19b" in shown
        await pilot.press("l")
        await pilot.pause()
        shown = screen(app)
        assert re.search(r"en-2026-08-07 +zh-2026-04-17", shown)  # issue 33: the Chinese
        assert "ru-2019-01-25" not in shown
        assert "具有践踏" in pane(
            app, 120
        )  # (the screenshot's text puts a wide character in one cell)
        assert "en-2026-08-07 · EN+ZH · 702.19b" in shown
        await pilot.press("l")
        await pilot.pause()
        shown = screen(app)
        assert "pl-2013-11-01" in shown and "zh-2026-04-17" not in shown
        assert "en-2026-08-07 · EN+PL · 702.19b" in shown
        await pilot.press("l")
        await pilot.pause()
        shown = screen(app)
        assert "ru-2019" not in shown and "pl-2013" not in shown
        assert "en-2026-08-07 · EN · 702.19b" in shown
        assert "702.19b The controller of an attacking creature" in shown

    drive(library, "702.19b", steps)


def test_another_edition_follows_the_renumbering(library):
    async def steps(pilot):
        app = pilot.app
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        pick = app.screen.query_one("#pick", OptionList)
        editions = ids(pick)
        assert editions[0] == NEWEST and "en-2009-02-01" in editions
        assert all(e.startswith("en-") for e in editions)  # the same language only
        await pilot.press("escape")  # closes, changes nothing
        await pilot.pause()
        assert app.screen is app.default_screen and app.place.key == "702.19"
        await pilot.press("e")
        await pilot.pause()
        await highlight(pilot, app.screen.query_one("#pick", OptionList), "en-2009-02-01")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.default_screen
        assert app.place == Place("rule", "en-2009-02-01", "502.9")
        shown = screen(app)
        assert "502.9 Trample" in shown and "en-2009-02-01 · EN · 502.9" in shown
        await pilot.press("backspace")
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "702.19")

    drive(library, "702.19", steps)


def test_a_rule_the_edition_lacks_is_said_so_above_what_it_was_there(library):
    """Issue 31: 702.19c (2021) in a 2003 edition is not there; the pane says so, and when it
    came, above what its rule 702.19 was then (502.9), not rule 1 with a note gone at once."""

    async def steps(pilot):
        app = pilot.app
        await pilot.press("e")
        await pilot.pause()
        await highlight(pilot, app.screen.query_one("#pick", OptionList), "en-2003-03-15")
        await pilot.press("enter")
        await pilot.pause()
        assert app.place == Place("rule", "en-2003-03-15", "502.9")
        notice = str(app.query_one("#notice", Static).content)
        assert notice == (
            "702.19c is not in en-2003-03-15 (it first appears in en-2021-06-09); "
            "shown instead: 502.9 (702.19 in that edition)"
        )
        shown = " ".join(screen(app).split())  # (the notice wraps in the pane)
        assert "702.19c is not in en-2003-03-15" in shown and "502.9 Trample" in shown
        assert app.query_one("#notice").display
        await pilot.press("l")  # the same place in two languages: the notice stays
        await pilot.pause()
        assert app.query_one("#notice").display
        await pilot.press("backspace")  # another place: it goes
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "702.19c")
        assert not app.query_one("#notice").display

    drive(library, "702.19c", steps)


def test_the_edition_picker_filters_as_you_type(library):
    """Issue 31: `e` opens the editions with a filter box focused: what is typed keeps the
    editions whose id, date or language holds it; ↓ moves in the list; Enter picks."""

    async def steps(pilot):
        app = pilot.app
        await pilot.press("e")
        await pilot.pause()
        pick = app.screen.query_one("#pick", OptionList)
        every = ids(pick)
        assert app.focused is app.screen.query_one("#pick-filter", Input)
        assert pick.highlighted == every.index(NEWEST)  # the edition shown
        await pilot.press(*"2009")
        await pilot.pause()
        assert ids(pick) == [e for e in every if "2009" in e] and len(ids(pick)) > 1
        assert pick.highlighted == 0
        await pilot.press("down")  # in the list, from the box
        assert pick.highlighted == 1
        await pilot.press("backspace", *"-02-01")  # "200-02-01": nothing
        await pilot.pause()
        assert ids(pick) == []
        await pilot.press("enter")  # nothing to pick: nothing happens
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        await pilot.press(*["backspace"] * 9, *"EN 2009-02")  # each word, in any case
        await pilot.pause()
        assert ids(pick) == [e for e in every if e.startswith("en-2009-02")]
        await pilot.press(*["down"] * ids(pick).index("en-2009-02-01"), "enter")
        await pilot.pause()
        assert app.screen is app.default_screen
        assert app.place == Place("rule", "en-2009-02-01", "502.9")
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("q")  # typed into the box
        assert app.screen.query_one("#pick-filter", Input).value == "q"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.default_screen and app.return_code is None

    drive(library, "702.19", steps)


def test_the_focused_pane_is_marked(library):
    """Issue 31: the pane with the focus has its border and its title in the accent colour;
    the others have not. Tab goes round them."""

    async def steps(pilot):
        app = pilot.app
        accent = Color.parse(app.theme_variables["accent"])

        def marked() -> list[str]:
            return [
                w.id
                for w in app.query("#search, #results, #pane, #links")
                if w.display and w.styles.border_top[1] == accent
            ]

        assert marked() == ["links"] and app.query_one("#links").border_title == "links"
        assert app.query_one("#pane").border_title == "702.19"  # what it shows
        for focused in ("search", "pane", "links"):
            await pilot.press("tab")
            assert app.focused.id == focused and marked() == [focused]
        links = app.query_one("#links")
        assert links.styles.border_title_color == accent and links.styles.border_title_style.bold
        await paste_in(pilot, "trample")
        await pilot.press("escape")
        assert marked() == ["results"]

    drive(library, "702.19", steps)


def test_history_shows_what_changed(library):
    async def steps(pilot):
        app = pilot.app
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        assert "History of 702.19b" in screen(app)
        pick = app.screen.query_one("#pick", OptionList)
        steps_shown = labels(pick)
        assert any("en-2018-04-27" in s and "changed" in s for s in steps_shown)
        # followed back through July 2009's merge of 502.9b, 502.9d and 502.9e into 702.17b
        assert "first appears" in steps_shown[0] and "502.9b" in steps_shown[0]
        assert any("en-2009-07-11" in s and "merged" in s for s in steps_shown)
        await highlight(pilot, pick, "en-2018-04-27")
        detail = str(app.screen.query_one("#pick-detail", Static).content)
        assert "[-he or she chooses-]" in detail and "{+they choose+}" in detail
        assert "[-he or she chooses-] {+they" in screen(app)
        await pilot.press("enter")  # a step is looked at, not opened
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.default_screen and app.place.key == "702.19b"

    drive(library, "702.19b", steps)


def test_question_mark_shows_the_keys(library):
    async def steps(pilot):
        app = pilot.app
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        shown = screen(app)
        assert "Keys" in shown and "Backspace, alt+←  back" in shown and "q  quit" in shown
        # issue 31: a description too long for its line wraps in its own column, in the box
        lines = shown.splitlines()
        row = next(y for y, line in enumerate(lines) if "  search: a rule number" in line)
        column = lines[row].index("search:")
        left, right = lines[row].rindex("│", 0, column), lines[row].index("│", column)
        wrapped = lines[row + 1]  # "…or a question": under "search:", between the box's sides
        assert wrapped[left] == wrapped[right] == "│"
        assert not wrapped[left + 1 : column].strip() and wrapped[column] != " "
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is app.default_screen

    drive(library, "702.19", steps)


# ------------------------------------------------------------------------ what the search box takes


def test_a_card_name_opens_the_card_with_its_rules(library):
    async def steps(pilot):
        app = pilot.app
        await paste_in(pilot, "Giant Spider")
        results = app.query_one("#results", OptionList)
        assert ids(results)[0] == "card:Giant Spider"
        await pilot.press("enter")
        await pilot.pause()
        assert app.place == Place("card", NEWEST, "Giant Spider")
        shown = screen(app)
        assert "Giant Spider  {3}{G}" in shown and "Reach     702.17" in shown
        links = app.query_one("#links", OptionList)
        assert ids(links)[0] == f"rule:{NEWEST}:702.17" and labels(links)[0] == "702.17 Reach"
        links.focus()
        await highlight(pilot, links, f"rule:{NEWEST}:702.17")
        await pilot.press("enter")
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "702.17")
        assert "702.17 Reach" in screen(app)

    drive(library, "702.19", steps)


def test_a_rule_number_comes_first_once(library):
    async def steps(pilot):
        app = pilot.app
        await paste_in(pilot, "702.2")
        results = app.query_one("#results", OptionList)
        assert ids(results)[:2] == [f"rule:{NEWEST}:702.2", f"rule:{NEWEST}:702.2a"]
        assert labels(results).count("702.2 Deathtouch") == 1
        await pilot.press("enter")
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "702.2")
        assert "702.2 Deathtouch" in screen(app)

    drive(library, "702.19", steps)


def test_a_question_is_answered_by_ask_on_enter(library):
    """The one test that loads the embedding model."""
    question = "Can a creature with defender attack?"

    async def steps(pilot):
        app = pilot.app
        await paste_in(pilot, question)
        results = app.query_one("#results", OptionList)
        assert not any(x.startswith("ask ") for x in labels(results))  # not before Enter
        await pilot.press("enter")
        await answered(pilot)
        asked = [(i, x) for i, x in zip(ids(results), labels(results)) if x.startswith("ask ")]
        assert asked and f"rule:{NEWEST}:702.3b" in [i for i, _ in asked]
        assert ids(results)[0] == asked[0][0]  # answers first
        assert app.place == Place("rule", NEWEST, asked[0][0].rpartition(":")[2])
        assert "ask " in screen(app)

    drive(library, "702.19", steps)

    async def opened_on_it(pilot):  # `crlookup browse "a question?"`: the answers stay listed
        await answered(pilot)
        results = pilot.app.query_one("#results", OptionList)
        assert labels(results)[0].startswith("ask ")
        assert pilot.app.query_one("#search", Input).value == question

    drive(library, question, opened_on_it)


class Held:
    """`Library.ask` held (as the embedding model holds the first question for seconds) until
    `release()`; `threads`: the threads it was called in."""

    def __init__(self):
        self.gate, self.threads = threading.Event(), []

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def held_asks(monkeypatch):
    from crlookup import api

    held, ask = Held(), api.Library.ask

    def asking(self, *args, **kwargs):
        held.threads.append(threading.current_thread())
        held.gate.wait(60)
        return ask(self, *args, **kwargs)

    monkeypatch.setattr(api.Library, "ask", asking)
    yield held
    held.release()


def test_a_question_is_answered_in_a_thread_while_the_screen_stays_live(built_home, held_asks):
    """Issue 31: the first question loads the embedding model (seconds). Its answers are worked
    out in a thread: meanwhile the list and the status line say they are coming, the other
    results are there, and keys work; when they come they go on top and the first opens."""
    from crlookup import api

    lib = api.open(str(built_home))  # a library of its own: no question answered with it yet

    async def steps(pilot):
        app = pilot.app
        await paste_in(pilot, "Can a creature with defender attack?")
        await pilot.press("enter")
        results = app.query_one("#results", OptionList)
        assert labels(results)[0] == "ask reading the question…"
        assert "glossary Defender" in labels(results)  # the other results are there already
        assert status(app).startswith("loading the question model")
        assert "loading the question model" in screen(app)
        assert app.place == Place("rule", NEWEST, "702.19")  # nothing opened yet
        await pilot.press("escape")  # the screen answers keys meanwhile
        assert app.focused is results
        assert held_asks.threads and held_asks.threads[0] is not threading.main_thread()
        held_asks.release()
        await answered(pilot)
        asked = [i for i, x in zip(ids(results), labels(results)) if x.startswith("ask ")]
        assert asked and ids(results)[0] == asked[0] and "ask reading" not in screen(app)
        assert app.place == Place("rule", NEWEST, asked[0].rpartition(":")[2])
        assert status(app) == f"{NEWEST} · EN · {app.place.key}"

    try:
        drive(lib, "702.19", steps)
    finally:
        held_asks.release()
        lib.close()


def test_answers_that_come_late_open_nothing_if_the_user_went_elsewhere(library, held_asks):
    """Answers that come after the user has opened something else are listed, not opened."""

    async def steps(pilot):
        app = pilot.app
        await paste_in(pilot, "Can a creature with defender attack?")
        await pilot.press("enter")
        app.action_follow("510")  # a click on a link while the question is being answered
        await pilot.pause()
        held_asks.release()
        await answered(pilot)
        assert app.place == Place("rule", NEWEST, "510")
        assert labels(app.query_one("#results", OptionList))[0].startswith("ask ")

    drive(library, "702.19", steps)


# ------------------------------------------------------------------------ whole screens


def quiet_cursor(pilot) -> None:
    """The search box's cursor stays on (a blinking one makes the screenshot a coin toss)."""
    pilot.app.query_one("#search", Input).cursor_blink = False


async def search_mulligan(pilot) -> None:
    quiet_cursor(pilot)
    await paste_in(pilot, "mulligan")


def test_snapshot_rule(library, snap_compare):
    assert snap_compare(Browser(library, "702.19"), terminal_size=SIZE)


@pytest.fixture
def ties_in_order(monkeypatch):
    """Hits of equal score in a stable order. The index ranks ties by document number, and the
    documents' order changes from build to build (two processes write the index), so 800.6 and
    903.12g (both 9.854 for "mulligan") swap places between test sessions."""
    from crlookup.library import index

    search = index.Index.search

    def ordered(self, *args, **kwargs):
        found = search(self, *args, **kwargs)
        hits = [
            h
            for _score, tied in itertools.groupby(found.hits, key=lambda h: h.score)
            for h in sorted(tied, key=lambda h: (h.kind, h.number, h.title))
        ]
        return found._replace(hits=hits)

    monkeypatch.setattr(index.Index, "search", ordered)


def test_snapshot_search_results(library, snap_compare, ties_in_order):
    assert snap_compare(Browser(library, "702.19"), terminal_size=SIZE, run_before=search_mulligan)


def test_snapshot_side_by_side(library, snap_compare):
    assert snap_compare(Browser(library, "702.19b"), press=["l"], terminal_size=SIZE)


def test_snapshot_keys(library, snap_compare):
    """`?`: the keys, their descriptions wrapped in their own column."""
    assert snap_compare(Browser(library, "702.19"), press=["question_mark"], terminal_size=SIZE)


def test_snapshot_not_in_the_edition(library, snap_compare):
    """702.19c picked in a 2003 edition (through the picker's filter): the notice above 502.9."""
    keys = ["e", *"2003-03-15", "enter"]
    assert snap_compare(Browser(library, "702.19c"), press=keys, terminal_size=SIZE)


def test_snapshot_history(library, snap_compare):
    """The timeline of 702.19b, its 2018 step highlighted: what changed, as a diff."""
    assert snap_compare(
        Browser(library, "702.19b"), press=["h", *["down"] * 11], terminal_size=SIZE
    )


def test_the_tournament_documents_and_links_across_them(library):
    """ "IPG 2.1" opens the IPG's entry with its penalty; its link to the MTR opens the MTR's
    newest edition; a CR number clicked in the MTR opens the CR; the edition picker offers
    every document's editions."""

    async def steps(pilot):
        app = pilot.app
        assert app.place == Place("rule", "ipg-2024-09-23", "2.1")
        text = pane(app)
        assert "IPG 2.1 Game Play Error — Missed Trigger" in text
        assert "Penalty: No Penalty" in text
        links = app.query_one("#links", OptionList)
        assert ids(links) == ["rule:mtr-2026-02-27:4.3"]
        links.focus()
        await highlight(pilot, links, "rule:mtr-2026-02-27:4.3")
        await pilot.press("enter")
        await pilot.pause()
        assert app.place == Place("rule", "mtr-2026-02-27", "4.3")
        assert "MTR 4.3 Out-of-Order Sequencing" in pane(app)
        app.open(Place("rule", "mtr-2026-02-27", "2.3"))
        await pilot.pause()
        app.action_follow("103.4")  # a click on the CR rule the MTR cites
        await pilot.pause()
        assert app.place == Place("rule", NEWEST, "103.4")
        assert "rule:mtr-2026-02-27:2.3" in ids(app.query_one("#links", OptionList))
        app.action_pick_document()  # `d`: another document, at its first entry
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        picked = ids(app.screen.query_one(OptionList))
        assert picked == [NEWEST, "mtr-2025-11-10", "ipg-2024-09-23", "jar-2019-05-03"]
        await highlight(pilot, app.screen.query_one(OptionList), "ipg-2024-09-23")
        await pilot.press("enter")
        await pilot.pause()
        assert app.place == Place("rule", "ipg-2024-09-23", "1")
        app.action_pick_edition()  # `e`: the IPG's editions, not the CR's
        await pilot.pause()
        assert ids(app.screen.query_one(OptionList)) == ["ipg-2024-09-23", "ipg-2020-04-17"]

    drive(library, "IPG 2.1", steps)
