"""The browser's app: it composes the widgets, binds its state to them and routes their
messages; the keys are its actions.

Its state: `place` (what the rule pane shows), `mode` (the languages side by side) and
`edition` (the edition a typed number is looked up in), bound to the widgets that show them
(`data_bind`); the places gone back from and forward to (`back_stack`, `forward_stack`);
what Enter was pressed on, whose first result opens once it is listed (`opening`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.reactive import var
from textual.widgets import Footer

from crlookup.core.documents import document_of
from crlookup.core.errors import BadInput, NotFound
from crlookup.core.i18n import _
from crlookup.ui.browse import screens
from crlookup.ui.browse.views import MODES, Place, in_edition, langs_label
from crlookup.ui.browse.widgets import (
    Chosen,
    LinksList,
    ResultList,
    RulePane,
    SearchBox,
    StatusLine,
    Typing,
)

if TYPE_CHECKING:
    from crlookup.api import Library


class Browser(App):
    """The browser: see the package docstring."""

    TITLE = "crlookup"
    CSS = """
    Screen { layout: vertical; }
    #search { dock: top; }
    #body { height: 1fr; }
    #results { width: 32; display: none; }
    #results.shown { display: block; }
    #pane { width: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    /* the pane with the focus: its border and title in the accent colour */
    #results, #pane, #links {
        border: round $border-blurred; border-title-color: $text-muted;
    }
    #results:focus, #pane:focus, #links:focus {
        border: round $accent; border-title-color: $accent; border-title-style: bold;
    }
    #search:focus { border: tall $accent; }
    #notice { display: none; color: $text-warning; border-left: outer $warning; padding: 0 1; }
    #notice.shown { display: block; margin-bottom: 1; }
    #links { width: 20; }
    #status { height: 1; color: $text-muted; padding: 0 1; }
    PickScreen, KeysScreen { align: center middle; }
    #pick-box { width: 76; height: auto; max-height: 22; background: $panel; border: round $accent; }
    #pick-title { padding: 0 1; }
    #pick { height: auto; max-height: 10; }
    #pick-detail-pane { height: auto; max-height: 8; padding: 0 1; }
    #keys {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        padding: 1 2; background: $panel; border: round $accent;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_search", _("search")),
        Binding("escape", "leave_search", _("leave search"), show=False),
        Binding("backspace,alt+left", "back", _("back")),
        Binding("alt+right", "forward", _("forward"), show=False),
        Binding("e", "pick_edition", _("edition")),
        Binding("d", "pick_document", _("document")),
        Binding("l", "cycle_languages", _("languages")),
        Binding("h", "history", _("history")),
        Binding("question_mark", "keys", _("keys")),
        Binding("q", "quit", _("quit")),
    ]

    place: var[Place | None] = var(None, always_update=True)
    mode: var[int] = var(0, always_update=True)
    edition: var[str] = var("")

    def __init__(self, lib: Library, query: str = ""):
        super().__init__()
        self.lib = lib
        self.query_text = query
        self.set_reactive(Browser.edition, lib.edition().id)
        self.back_stack: list[Place] = []
        self.forward_stack: list[Place] = []
        # what Enter was pressed on, and the place shown then: its first result is to open
        self.opening: tuple[Typing, Place | None] | None = None

    # -------------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield SearchBox(
            placeholder=_("/ search: 702.19, deathtouch, Giant Spider, a question…"), id="search"
        )
        with Horizontal(id="body"):
            yield ResultList(self.lib, self.edition, id="results").data_bind(Browser.edition)
            yield RulePane(self.lib, id="pane").data_bind(Browser.place, Browser.mode)
            yield LinksList(id="links").data_bind(Browser.edition)
        yield StatusLine(id="status").data_bind(Browser.place, Browser.mode)
        yield Footer()

    def on_mount(self) -> None:
        query = self.query_text.strip()
        try:
            typed = self.lib.typed(query, self.edition) if query else None
        except NotFound:  # no edition in the query's language: its results say so
            typed = None
        if typed is not None and typed.number is not None:  # a rule number
            self.open(Place("rule", typed.edition, typed.number))
            self.query_one(LinksList).focus()
        elif query:
            search = self.query_one(SearchBox)
            search.show(query)  # not as typed: that would redo the list, without answers
            search.focus()
            self.show_results(query, submitted=True)
        else:
            self.open(Place("rule", self.edition, "1"))
            self.query_one(SearchBox).focus()

    # -------------------------------------------------------------------- routing

    def show_results(self, query: str, submitted: bool = False, open_first: bool = False) -> None:
        """The result list for what is typed (a question, once submitted, is answered); with
        `open_first`, its first result is opened once it is listed (`on_result_list_listed`)."""
        typing = Typing(query, submitted)
        self.opening = (typing, self.place) if open_first else None
        self.query_one(ResultList).typing = typing

    def on_search_box_query(self, event: SearchBox.Query) -> None:
        # Enter: the first result, and onto the list
        self.show_results(event.text, event.submitted, open_first=event.submitted)

    def on_result_list_listed(self, event: ResultList.Listed) -> None:
        """The results of an Enter are listed: open the first, and move onto the list (unless
        the user went somewhere else meanwhile, while a question was being answered)."""
        if self.opening is None or self.opening[0] is not event.typing:
            return
        before, self.opening = self.opening[1], None
        results = self.query_one(ResultList)
        first = results.first()
        if first is None or self.place != before:
            return
        self.open(first)
        if self.focused is None or self.focused in (self.query_one(SearchBox), results):
            results.focus()

    def on_result_list_note(self, event: ResultList.Note) -> None:
        self.query_one(StatusLine).note = event.text

    def on_result_list_toggled(self, event: ResultList.Toggled) -> None:
        # under 120 columns the results take the place of the links while there are some
        self.query_one(LinksList).display = not event.shown or self.size.width >= 120
        # the rule pane narrows or widens: lay its text out again at the new width
        self.call_after_refresh(self.query_one(RulePane).relayout)

    def on_chosen(self, event: Chosen) -> None:
        self.open(event.place)

    def on_rule_pane_shown(self, event: RulePane.Shown) -> None:
        self.query_one(LinksList).links = tuple(event.links)
        self.sub_title = f"{event.place.edition} · {langs_label(self.mode)}"

    def open(self, place: Place, remember: bool = True, notice: str | None = None) -> None:
        """Show `place` (and remember the one it replaces, for `back`), with `notice` above
        it (why it is what is shown)."""
        if remember and self.place is not None and place != self.place:
            self.back_stack.append(self.place)
            self.forward_stack.clear()
        self.query_one(RulePane).notice = notice
        self.edition = place.edition
        self.place = place

    def note(self, message: str) -> None:
        self.query_one(StatusLine).note = message

    # -------------------------------------------------------------------- actions

    def action_follow(self, number: str) -> None:
        """A click on a cross-reference (a CR number in a tournament document: the CR's)."""
        edition = self.edition
        if document_of(edition) != "cr":
            edition = self.lib.edition().id
        self.open(Place("rule", edition, number))

    def action_focus_search(self) -> None:
        self.query_one(SearchBox).focus()

    def action_leave_search(self) -> None:
        if self.focused is self.query_one(SearchBox):
            links = self.query_one(LinksList)  # hidden while results take its place
            (links if links.display else self.query_one(ResultList)).focus()

    async def action_back(self) -> None:  # (App's own `back` action, replaced)
        if self.back_stack and self.place is not None:
            self.forward_stack.append(self.place)
            self.open(self.back_stack.pop(), remember=False)

    def action_forward(self) -> None:
        if self.forward_stack and self.place is not None:
            self.back_stack.append(self.place)
            self.open(self.forward_stack.pop(), remember=False)

    def action_pick_edition(self) -> None:
        def chosen(edition: str | None) -> None:
            if not edition or self.place is None:
                return
            place, note = in_edition(self.lib, self.place, edition)
            self.open(place, notice=note)

        self.push_screen(screens.edition_pick(self.lib, self.edition), chosen)

    def action_pick_document(self) -> None:
        """Another document (the MTR, the IPG, the JAR, the CR): its first entry."""

        def chosen(edition: str | None) -> None:
            if edition and edition != self.edition:
                first = next(iter(self.lib.entries(edition)), None)
                if first is not None:
                    self.open(Place("rule", edition, first.number))

        self.push_screen(screens.document_pick(self.lib, self.edition), chosen)

    def action_cycle_languages(self) -> None:
        have = {e.lang for e in self.lib.editions()}
        for step in range(1, len(MODES) + 1):
            mode = (self.mode + step) % len(MODES)
            if set(MODES[mode]) <= have:
                self.mode = mode
                return

    def action_history(self) -> None:
        if self.place is None or self.place.kind != "rule":
            return
        try:
            screen = screens.history_pick(self.lib, self.place)
        except (NotFound, BadInput) as e:
            self.note(str(e))
            return
        self.push_screen(screen)

    def action_keys(self) -> None:
        self.push_screen(screens.KeysScreen())
