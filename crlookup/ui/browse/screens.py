"""The browser's modal screens: every key (`?`), a list to pick from (`PickScreen`), made for
an edition to switch to (`edition_pick`, `e`) and for the steps of a rule's history
(`history_pick`, `h`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from crlookup.core.i18n import _
from crlookup.ui.render.text import diff_text

if TYPE_CHECKING:
    from crlookup.api import Library
    from crlookup.ui.browse.views import Place


class KeysScreen(ModalScreen):
    """`?`: every key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "app.pop_screen", _("close"))
    ]

    def compose(self) -> ComposeResult:
        rows = [
            ("/", _("search: a rule number, words, a card name or a question")),
            ("Enter", _("open the result, or follow the link, under the cursor")),
            ("Esc", _("leave the search box")),
            ("Backspace, alt+←", _("back")),
            ("alt+→", _("forward")),
            ("e", _("another edition (the same rule, across renumberings)")),
            ("d", _("another document: the CR, the MTR, the IPG, the JAR")),
            ("l", _("languages side by side: EN, EN+RU, EN+PL")),
            ("h", _("the rule's history: select an edition to see what changed")),
            ("Tab", _("next pane")),
            ("?", _("these keys")),
            ("q", _("quit")),
        ]
        # two columns: a description too long for its line wraps in its own column
        grid = Table.grid(padding=(0, 2))
        grid.add_column(justify="right", style="bold cyan", no_wrap=True)
        grid.add_column(overflow="fold")
        for key, what in rows:
            grid.add_row(key, what)
        with VerticalScroll(id="keys"):
            yield Static(Group(Text(_("Keys") + "\n", "bold"), grid))


class PickScreen(ModalScreen):
    """A list to pick one item from (an edition; a step of a rule's history). Without
    `detail`, Enter dismisses it with the option's id; with it, the highlighted option's
    `detail(id)` is shown below the list, and Enter picks nothing.

    With `filters` (an option's id: the words it is found by), a box above the list has the
    focus: what is typed there keeps the options whose words hold each word typed, ↑ and ↓
    move in the list, and Enter picks the highlighted option. `current`: the option
    highlighted first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.pop_screen", _("close")),
        Binding("up", "move(-1)", show=False),  # (from the filter box: the list takes its own)
        Binding("down", "move(1)", show=False),
    ]

    def __init__(
        self,
        title: str,
        options: list[Option],
        detail=None,
        filters: dict[str, str] | None = None,
        current: str | None = None,
    ):
        super().__init__()
        self.title_text, self.options, self.detail = title, options, detail
        self.filters, self.current = filters, current

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-box"):
            yield Static(Text(self.title_text, "bold"), id="pick-title")
            if self.filters is not None:
                yield Input(placeholder=_("type to filter: id, date, language"), id="pick-filter")
            yield OptionList(*self.options, id="pick")
            if self.detail is not None:
                yield VerticalScroll(Static(id="pick-detail"), id="pick-detail-pane")

    def on_mount(self) -> None:
        pick = self.query_one("#pick", OptionList)
        ids = [o.id for o in self.options]
        if self.current in ids:
            pick.highlighted = ids.index(self.current)
        if self.filters is not None:
            self.query_one("#pick-filter", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        words = event.value.casefold().split()
        filters = self.filters or {}
        shown = [
            o
            for o in self.options
            if all(w in filters.get(o.id or "", "").casefold() for w in words)
        ]
        pick = self.query_one("#pick", OptionList)
        pick.set_options(shown)
        if shown:
            pick.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#pick", OptionList).action_select()

    def action_move(self, step: int) -> None:
        pick = self.query_one("#pick", OptionList)
        if step < 0:
            pick.action_cursor_up()
        else:
            pick.action_cursor_down()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.detail is not None and event.option.id is not None:
            self.query_one("#pick-detail", Static).update(self.detail(event.option.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.detail is None:
            self.dismiss(event.option.id)


def edition_pick(lib: Library, edition: str) -> PickScreen:
    """The editions of `edition`'s document and language, newest first, `edition`
    highlighted (dismissed with the one picked); what is typed filters them by id, date and
    language."""
    info = lib.edition(edition)
    editions = [e for e in reversed(lib.editions(info.document)) if e.lang == info.lang]
    options = [
        Option(
            Text.assemble(
                (e.id, "bold" if e.id == edition else ""),
                ("  " + e.date.isoformat(), "dim"),
            ),
            id=e.id,
        )
        for e in editions
    ]
    filters = {e.id: f"{e.id} {e.date.isoformat()} {e.lang}" for e in editions}
    return PickScreen(
        _("Edition (the same rule, across renumberings)"),
        options,
        filters=filters,
        current=edition,
    )


def document_pick(lib: Library, edition: str) -> PickScreen:
    """The documents the library holds (the CR, the MTR, the IPG, the JAR), each as its
    newest English edition (dismissed with that edition's id)."""
    from crlookup.core.documents import DOCUMENTS

    shown = lib.edition(edition).document
    options = []
    for document, name in DOCUMENTS.items():
        found = [e for e in lib.editions(document) if e.lang == "en"]
        if found:
            newest = lib.edition(lang="en", document=document).id
            options.append(
                Option(
                    Text.assemble(
                        (name, "bold" if document == shown else ""), ("  " + newest, "dim")
                    ),
                    id=newest,
                )
            )
    return PickScreen(_("Document"), options)


def history_pick(lib: Library, place: Place) -> PickScreen:
    """The steps of a rule's history worth a line (and the edition shown), each with what
    changed below the list (`NotFound` for a rule the edition lacks)."""
    steps = [
        s
        for s in lib.history(place.key, place.edition).steps
        if s.main and (s.noteworthy or s.edition == place.edition)
    ]
    by_id = {}
    options = []
    for i, s in enumerate(steps):
        key = f"{i}"
        by_id[key] = s
        options.append(
            Option(
                Text.assemble(
                    (s.date + "  ", "dim"),
                    (f"{s.edition:<16}", ""),
                    ((s.number or "—") + "  ", "bold cyan"),
                    _history_word(s.change),
                ),
                id=key,
            )
        )

    def detail(key: str):
        s = by_id[key]
        if s.diff:
            return diff_text(s.diff, context=8)
        if s.previous and s.previous[1] != s.number:
            return Text(_("renumbered from {number}").format(number=s.previous[1]))
        return Text(_("no change of wording"), "dim")

    return PickScreen(_("History of {number}").format(number=place.key), options, detail)


def _history_word(change: str) -> str:
    return {
        "added": _("first appears"),
        "changed": _("changed"),
        "moved": _("renumbered"),
        "removed": _("removed"),
        "split": _("split"),
        "merged": _("merged"),
        "unchanged": _("unchanged"),
    }.get(change, change)
