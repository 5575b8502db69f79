"""The parts of the browser's screen. Each owns its state (reactive attributes, `watch_*`
methods) and tells the app what happened by posting a message; the app sets their attributes
(`Browser.place`, `mode` and `edition` are bound to them) and routes the messages.

- `SearchBox`: the search box; posts `SearchBox.Query` at every change, and on Enter;
- `ResultList`: the results for what is typed (`typing`; a question is answered in a thread);
  posts `Chosen`, `ResultList.Note` (what the status line should say about them),
  `ResultList.Toggled` (shown or hidden) and `ResultList.Listed` (the list is complete);
- `RulePane`: shows a `place` in the languages of `mode` (with a `notice` above it, if the
  app gives one); posts `RulePane.Shown` with the links of what it shows;
- `LinksList`: those links; posts `Chosen`;
- `StatusLine`: where the pane is, or a note about the results.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, NamedTuple

from rich.text import Text
from textual import events, work
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from crlookup.core.errors import CrlookupError, NotFound, QueryError
from crlookup.core.i18n import _
from crlookup.ui.browse.views import (
    Linked,
    Place,
    answer_option,
    card_option,
    distinct,
    hit_option,
    langs_label,
    place_of,
    place_view,
    rule_option,
)

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.app import ComposeResult

    from crlookup.api import Library

RESULTS = 30


class Chosen(Message):
    """A result or a link was picked: open `place`."""

    def __init__(self, place: Place):
        super().__init__()
        self.place = place


class SearchBox(Input):
    """The search box: a rule number, words, a card name or a question."""

    class Query(Message):
        """What is typed (at every change), or submitted (Enter)."""

        def __init__(self, text: str, submitted: bool):
            super().__init__()
            self.text, self.submitted = text, submitted

    async def _on_key(self, event: events.Key) -> None:
        """`/` focuses the box (the app's key); in the box, empty, it is that key again and
        types nothing, so "/702.19" finds 702.19 (the box has focus at start); after text it
        is a "/" ("Fire // Ice")."""
        if event.key == "slash" and not self.value:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def show(self, text: str) -> None:
        """Put `text` in the box without it counting as typed."""
        with self.prevent(Input.Changed):
            self.value = text

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Query(event.value, submitted=False))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Query(event.value, submitted=True))


class Typing(NamedTuple):
    """A query in the search box; `submitted` on Enter (a question is then answered)."""

    text: str
    submitted: bool = False


class Results(NamedTuple):
    """The results for a query, a note on them (why there are none, or the query searched
    instead), and whether it is a question to answer (its answers come first, when asked)."""

    options: list[Option]
    note: str | None = None
    question: bool = False


class ResultList(OptionList):
    """The results for what is typed: a rule number and the entries right below it; else
    the answers to a question (once submitted), the card it names, the search hits.

    A question is answered in a thread (`questions.Asker`): its card and hits are listed at
    once, below a line saying that the answers are coming, and the answers replace that line
    when they come."""

    BORDER_TITLE = _("results")

    typing: var[Typing] = var(Typing(""), always_update=True, init=False)
    edition: var[str] = var("")  # the edition shown: a number is looked up there
    shown: var[bool] = var(False, init=False)

    class Note(Message):
        """What the status line should say about the results (None: nothing)."""

        def __init__(self, text: str | None):
            super().__init__()
            self.text = text

    class Toggled(Message):
        """The list appeared (there is a query) or went."""

        def __init__(self, shown: bool):
            super().__init__()
            self.shown = shown

    class Listed(Message):
        """The list is complete for `typing` (for a question: its answers have come)."""

        def __init__(self, typing: Typing):
            super().__init__()
            self.typing = typing

    def __init__(self, lib: Library, edition: str, **kwargs):
        super().__init__(**kwargs)
        self.lib = lib
        self.set_reactive(ResultList.edition, edition)

    def watch_typing(self, typing: Typing) -> None:
        self.workers.cancel_group(self, "ask")  # answers to what was typed before: not wanted
        found = self.results_for(typing.text, typing.submitted)
        self.shown = bool(typing.text.strip())
        if not found.question:
            self.show_options(found.options, found.note)
            self.post_message(self.Listed(typing))
            return
        from crlookup.ui.browse import questions

        asker = questions.asker(self.lib)
        coming = Option(
            Text.assemble(("ask ", "yellow"), (_("reading the question…"), "dim")),
            disabled=True,
        )
        note = found.note
        if note is None and not asker.warm:
            note = _("loading the question model (the first question takes a few seconds)…")
        self.show_options([coming, *found.options], note)
        self.answer(typing, found)

    @work(exclusive=True, group="ask")
    async def answer(self, typing: Typing, found: Results) -> None:
        """The answers to the question typed, above its other results once they come."""
        from crlookup.ui.browse import questions

        future = questions.asker(self.lib).ask(typing.text.strip(), self.edition, limit=5)
        note = found.note
        answers = []
        try:
            asked = await asyncio.wrap_future(future)
        except CrlookupError as e:  # a question that cannot be read (QuestionError), say
            note = str(e)
        else:
            own = asked.reasons().own
            answers = [answer_option(a, why) for a, why in zip(asked.answers, own, strict=True)]
        if self.typing is typing:  # (else the worker was cancelled: this is belt and braces)
            self.show_options([*answers, *found.options], note, keep=True)
            self.post_message(self.Listed(typing))

    def show_options(self, options: list[Option], note: str | None, keep: bool = False) -> None:
        """List `options`, the cursor on the first (with `keep`, on the option it was on, if
        that is listed again), and tell the status line `note`."""
        self.post_message(self.Note(note))
        was = self.highlighted_option.id if keep and self.highlighted_option else None
        self.clear_options()
        self.add_options(distinct(options))
        if was is not None and any(o.id == was for o in self.options):
            self.highlighted = self.get_option_index(was)
        elif self.option_count:
            self.highlighted = 0

    def watch_shown(self, shown: bool) -> None:
        self.set_class(shown, "shown")
        self.post_message(self.Toggled(shown))

    def first(self) -> Place | None:
        """The place of the first result, if any."""
        if not self.option_count:
            return None
        return place_of(self.get_option_at_index(0).id, self.edition)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        place = place_of(event.option.id, self.edition)
        if place is not None:
            self.post_message(Chosen(place))

    def results_for(self, query: str, submitted: bool) -> Results:
        """The results for `query` (a question's answers aside: `Results.question`)."""
        query = query.strip()
        if not query:
            return Results([])
        try:
            typed = self.lib.typed(query, self.edition)
        except NotFound as e:  # no edition in the query's language
            return Results([], str(e))
        if typed.number is not None:  # typed.kind == "rule"
            # a number: the entries right below it, not a search for the digits
            rule = self.lib.get(typed.edition, typed.number)
            below = self.lib.children(typed.edition, typed.number)[:RESULTS]
            return Results([rule_option(typed.edition, r) for r in (rule, *below)])
        question = submitted and typed.kind == "question"
        options: list[Option] = []
        if typed.card:
            options.append(card_option(typed.card))
        try:
            found = self.lib.search(query, edition=typed.edition, limit=RESULTS)
        except QueryError as e:
            return Results(options, str(e), question)
        options += [hit_option(h) for h in found.results.hits]
        note = None
        if found.results.corrections:
            note = _("showing results for {query}").format(query=found.results.query)
        return Results(options, note, question)


class RulePane(VerticalScroll):
    """The rule pane: a rule (with its subrules), a glossary term or a card, as the commands
    show them; every rule number in it is a link. Above it, `notice` (set with the place:
    why this is shown, e.g. the rule asked for is not in that edition), until the next place."""

    place: var[Place | None] = var(None, always_update=True)
    mode: var[int] = var(0, always_update=True)  # the languages side by side (views.MODES)

    class Shown(Message):
        """The pane shows `place` now; `links` are its links."""

        def __init__(self, place: Place, links: list[Option]):
            super().__init__()
            self.place, self.links = place, links

    def __init__(self, lib: Library, **kwargs):
        super().__init__(**kwargs)
        self.lib = lib
        self.notice: str | None = None
        self._view: RenderableType | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="notice")
        yield Static(id="rule")

    def watch_place(self) -> None:
        self.show()

    def watch_mode(self) -> None:
        self.show()

    def show(self) -> None:
        if self.place is None:
            return
        self._view, links = place_view(self.lib, self.place, self.mode)
        notice = self.query_one("#notice", Static)
        notice.update(Text(self.notice or ""))
        notice.set_class(bool(self.notice), "shown")
        self.query_one("#rule", Static).update(Linked(self._view))
        self.border_title = self.place.key
        self.scroll_home(animate=False)
        self.post_message(self.Shown(self.place, links))

    def relayout(self) -> None:
        """Lay the text out again at the pane's width (it narrowed or widened)."""
        if self._view is not None:
            self.query_one("#rule", Static).update(Linked(self._view))


class LinksList(OptionList):
    """The links of what the rule pane shows: what it cites (→), what cites it (←)."""

    BORDER_TITLE = _("links")

    links: var[tuple[Option, ...]] = var((), always_update=True, init=False)
    edition: var[str] = var("")

    def watch_links(self, links: tuple[Option, ...]) -> None:
        self.clear_options()
        self.add_options(distinct(links))
        if self.option_count:  # Enter follows the first link at once (it did nothing before
            self.highlighted = 0  # the cursor moved)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        place = place_of(event.option.id, self.edition)
        if place is not None:
            self.post_message(Chosen(place))


class StatusLine(Static):
    """Where the rule pane is (its edition, the languages, the entry), or a note about the
    results (until the pane shows something again)."""

    place: var[Place | None] = var(None, always_update=True)
    mode: var[int] = var(0, always_update=True)
    note: var[str | None] = var(None, always_update=True)

    def watch_place(self) -> None:
        self.note = None

    def watch_mode(self) -> None:
        self.note = None

    def watch_note(self, note: str | None) -> None:
        if note is None:
            place = self.place
            note = (
                "" if place is None else f"{place.edition} · {langs_label(self.mode)} · {place.key}"
            )
        self.update(Text(note))
