"""`crlookup browse`: one screen to look things up, follow references, go back, switch edition.

A Textual app over the same library calls the commands make (crlookup.read, index,
bilingual, history, card_rules, ask) and the same rich views (crlookup.render): no second path
to the data. The library, its search index and, once a question has been asked, the embedding
model stay open between keystrokes, so a result list costs one query.

Screen: the search box on top (`/`); below it the results (while there is a query), the rule
pane, and the links of the rule shown (what it cites, what cites it). Every cross-reference in
the rule pane is a link (click it, or pick it in the links list and press Enter).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from crlookup.core import numbers
from crlookup.core.errors import (
    CardQueryError,
    CardsUnavailable,
    NotFound,
    NumberError,
    QueryError,
    QuestionError,
)
from crlookup.core.i18n import _
from crlookup.ui import render

if TYPE_CHECKING:
    from crlookup.library.reader import Library

#: the languages shown side by side, in the order `l` goes through them
MODES = (("en",), ("en", "ru"), ("en", "pl"))
_NUMBER = re.compile(r"(?<![\w.])\d{3}(?:\.\d+[a-z]*)?(?![\w])")
_QUESTION = re.compile(
    r"\?\s*$|^(can|could|does|do|is|are|what|when|how|why|if|who|which|may|must|should|"
    r"можно|может|могу|как|что|когда|если)\b",
    re.IGNORECASE,
)
RESULTS = 30
LABEL = 28  # characters of a result's label (the list is 32 columns wide)


class Place(NamedTuple):
    """What the rule pane shows: an entry of an edition, a glossary term, or a card."""

    kind: str  # "rule", "glossary", "card"
    edition: str
    key: str  # the entry's number, the term, the card's name


class Linked:
    """A rich view whose rule numbers are links (a click runs `app.follow(number)`)."""

    def __init__(self, view):
        self.view = view

    def __rich_console__(self, console, options):
        # two columns to spare: the pane's scrollbar may take them after the text is laid out
        options = options.update_width(max(10, options.max_width - 2))
        for line in console.render_lines(self.view, options, pad=False):
            text = Text()
            for segment in line:
                text.append(segment.text, segment.style)
            for m in _NUMBER.finditer(text.plain):
                text.stylize(
                    Style(underline=True, meta={"@click": f"app.follow({m.group()!r})"}),
                    m.start(),
                    m.end(),
                )
            text.rstrip()
            text.no_wrap, text.overflow = True, "crop"  # laid out already, at this width
            yield text


class KeysScreen(ModalScreen):
    """`?`: every key."""

    BINDINGS: ClassVar[list[Binding]] = [
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
            ("l", _("languages side by side: EN, EN+RU, EN+PL")),
            ("h", _("the rule's history: select an edition to see what changed")),
            ("Tab", _("next pane")),
            ("?", _("these keys")),
            ("q", _("quit")),
        ]
        text = Text(_("Keys") + "\n\n", "bold")
        for key, what in rows:
            text.append(f"{key:>18}  ", "bold cyan")
            text.append(what + "\n")
        yield Static(text, id="keys")


class PickScreen(ModalScreen):
    """A list to pick one item from (an edition; a step of a rule's history)."""

    BINDINGS: ClassVar[list[Binding]] = [Binding("escape,q", "app.pop_screen", _("close"))]

    def __init__(self, title: str, options: list[Option], detail=None):
        super().__init__()
        self.title_text, self.options, self.detail = title, options, detail

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-box"):
            yield Static(Text(self.title_text, "bold"), id="pick-title")
            yield OptionList(*self.options, id="pick")
            if self.detail is not None:
                yield VerticalScroll(Static(id="pick-detail"), id="pick-detail-pane")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.detail is not None and event.option.id is not None:
            self.query_one("#pick-detail", Static).update(self.detail(event.option.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.detail is None:
            self.dismiss(event.option.id)


class Browser(App):
    """The browser: see the module docstring."""

    TITLE = "crlookup"
    CSS = """
    Screen { layout: vertical; }
    #search { dock: top; }
    #body { height: 1fr; }
    #results { width: 32; display: none; }
    #results.shown { display: block; }
    #pane { width: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    #links { width: 20; }
    #status { height: 1; color: $text-muted; padding: 0 1; }
    PickScreen, KeysScreen { align: center middle; }
    #pick-box { width: 76; height: auto; max-height: 22; background: $panel; border: round $accent; }
    #pick-title { padding: 0 1; }
    #pick { height: auto; max-height: 10; }
    #pick-detail-pane { height: auto; max-height: 8; padding: 0 1; }
    #keys { width: 72; padding: 1 2; background: $panel; border: round $accent; }
    """
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("slash", "focus_search", _("search")),
        Binding("escape", "leave_search", _("leave search"), show=False),
        Binding("backspace,alt+left", "back", _("back")),
        Binding("alt+right", "forward", _("forward"), show=False),
        Binding("e", "pick_edition", _("edition")),
        Binding("l", "cycle_languages", _("languages")),
        Binding("h", "history", _("history")),
        Binding("question_mark", "keys", _("keys")),
        Binding("q", "quit", _("quit")),
    ]

    def __init__(self, lib: Library, query: str = ""):
        super().__init__()
        self.lib = lib
        self.query_text = query
        self.edition = lib.edition().id
        self.mode = 0
        self.place: Place | None = None
        self.back_stack: list[Place] = []
        self.forward_stack: list[Place] = []
        self._indexes: dict = {}
        self._view = None

    # -------------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder=_("/ search: 702.19, deathtouch, Giant Spider, a question…"), id="search"
        )
        with Horizontal(id="body"):
            yield OptionList(id="results")
            with VerticalScroll(id="pane"):
                yield Static(id="rule")
            yield OptionList(id="links")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        query = self.query_text.strip()
        if query and self._number(query):
            self.open(Place("rule", self.edition, self._number(query)))
            self.query_one("#links", OptionList).focus()
        elif query:
            search = self.query_one("#search", Input)
            with self.prevent(Input.Changed):  # or its Changed redoes the list, without answers
                search.value = query
            search.focus()
            self.show_results(query, submitted=True)
        else:
            self.open(Place("rule", self.edition, "1"))
            self.query_one("#search", Input).focus()

    # -------------------------------------------------------------------- searching

    def _number(self, text: str) -> str | None:
        """The entry a rule number names in the current edition, if the text is one."""
        try:
            wanted = str(numbers.parse(text.strip().rstrip(".")))
        except NumberError:
            return None
        return wanted if self.lib.get(self.edition, wanted) is not None else None

    def index(self, lang: str):
        from crlookup.library import index

        if lang not in self._indexes:
            self._indexes[lang] = index.Index(self.lib.index_path, lang)
        return self._indexes[lang]

    def results_for(self, query: str, submitted: bool) -> list[Option]:
        """The result list for what is typed: a rule number, a card, search hits; a question
        (on Enter) is answered by `ask`."""
        from crlookup.library import index

        query = query.strip()
        if self.place is not None:  # no stale "showing results for" from an earlier keystroke
            self.status(f"{self.sub_title} · {self.place.key}")
        if not query:
            return []
        options: list[Option] = []
        number = self._number(query)
        if number:
            rule = self.lib.get(self.edition, number)
            options.append(
                Option(
                    self._label(number, rule.title or rule.text), id=f"rule:{self.edition}:{number}"
                )
            )
            # a number: the entries right below it, not a search for the digits
            options += [
                Option(
                    self._label(r.number, r.title or r.text), id=f"rule:{self.edition}:{r.number}"
                )
                for r in self.lib.children(self.edition, number)[:RESULTS]
            ]
            return options
        if submitted and _QUESTION.search(query) and len(query.split()) >= 3:
            options += self._answers(query)
        card = self._card(query)
        if card:
            options.append(
                Option(_one_line(Text.assemble(("card ", "magenta"), card)), id=f"card:{card}")
            )
        lang = index.detect_lang(query)
        edition = (
            self.edition
            if lang == self.lib.edition(self.edition).lang
            else self.lib.edition(lang=lang).id
        )
        try:
            found = self.index(lang).search(query, editions=(edition,), limit=RESULTS)
        except QueryError as e:
            self.status(str(e))
            return options
        for h in found.hits:
            if h.kind == "glossary":
                options.append(
                    Option(
                        _one_line(Text.assemble(("glossary ", "green"), h.title)),
                        id=f"glossary:{h.edition}:{h.title}",
                    )
                )
            else:
                options.append(
                    Option(
                        self._label(h.number, h.title or h.text), id=f"rule:{h.edition}:{h.number}"
                    )
                )
        if found.corrections:
            self.status(_("showing results for {query}").format(query=found.query))
        return options

    def _label(self, number: str, text: str) -> Text:
        label = Text(number + " ", "bold cyan")
        label.append(" ".join(text.split())[:60])
        return _one_line(label)

    def _card(self, query: str) -> str | None:

        if len(query) < 3:
            return None
        try:
            found = self.lib.cards().find(query)
        except (CardQueryError, CardsUnavailable):
            return None
        return (
            found.card.name if found.card is not None and found.how in ("exact", "face") else None
        )

    def _answers(self, question: str) -> list[Option]:
        from crlookup.features import ask as asking

        try:
            asked = asking.ask(self.lib, question, edition=self.edition, limit=5)
        except QuestionError as e:
            self.status(str(e))
            return []
        options = []
        for a in asked.answers:
            label = _one_line(
                Text.assemble(
                    ("ask ", "yellow"),
                    (a.number + " ", "bold cyan"),
                    " ".join((a.title or a.text).split()),
                )
            )
            why = "; ".join(a.why[:2])
            if why:
                label.append("\n")
                label.append_text(_one_line(Text("  " + why, "dim")))
            options.append(Option(label, id=f"rule:{a.edition}:{a.number}"))
        return options

    def show_results(self, query: str, submitted: bool = False) -> None:
        results = self.query_one("#results", OptionList)
        options = self.results_for(query, submitted)
        results.clear_options()
        results.add_options(_distinct(options))
        shown = bool(query.strip())
        if shown != results.has_class("shown"):
            results.set_class(shown, "shown")
            # under 120 columns the results take the place of the links while there are some
            self.query_one("#links", OptionList).display = not shown or self.size.width >= 120
            # the rule pane narrows or widens: lay its text out again at the new width
            self.call_after_refresh(self._relayout)
        if options:
            results.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        self.show_results(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.show_results(event.value, submitted=True)
        results = self.query_one("#results", OptionList)
        if results.option_count:
            self.choose(results.get_option_at_index(0).id)
            results.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id in ("results", "links"):
            self.choose(event.option.id)

    def choose(self, option_id: str | None) -> None:
        """Open what a result or a link stands for."""
        if not option_id:
            return
        kind, _sep, rest = option_id.partition(":")
        if kind == "rule":
            edition, _sep, number = rest.rpartition(":")
            self.open(Place("rule", edition or self.edition, number))
        elif kind == "glossary":
            edition, _sep, term = rest.partition(":")
            self.open(Place("glossary", edition, term))
        elif kind == "card":
            self.open(Place("card", self.edition, rest))

    # -------------------------------------------------------------------- showing

    def open(self, place: Place, remember: bool = True) -> None:
        if remember and self.place is not None and place != self.place:
            self.back_stack.append(self.place)
            self.forward_stack.clear()
        self.place = place
        self.edition = place.edition
        self.render_place()

    def render_place(self) -> None:
        place = self.place
        pane = self.query_one("#rule", Static)
        links: list[Option] = []
        if place.kind == "rule":
            view, links = self._rule_view(place)
        elif place.kind == "glossary":
            entry = self.lib.glossary_term(place.edition, place.key)
            view = (
                Text(place.key)
                if entry is None
                else Text.assemble((entry.term + "\n", "bold"), entry.definition)
            )
            links = [
                Option(Text(t, "cyan"), id=f"rule:{place.edition}:{t}")
                for t in dict.fromkeys(
                    x for ref in (entry.refs if entry else ()) for x in ref.targets
                )
            ]
        else:
            from crlookup.features import card_rules

            found = card_rules.lookup(self.lib, place.key, place.edition)
            card_links = list(found.links)
            view = render.CardView(found.card, card_links, place.edition)
            links = [
                Option(
                    Text.assemble((link.number + " ", "cyan"), link.name),
                    id=f"rule:{place.edition}:{link.number}",
                )
                for link in card_links
                if link.number
            ]
        self._view = view
        pane.update(Linked(view))
        self.query_one("#pane", VerticalScroll).scroll_home(animate=False)
        listing = self.query_one("#links", OptionList)
        listing.clear_options()
        listing.add_options(_distinct(links))
        langs = "+".join(x.upper() for x in MODES[self.mode])
        self.sub_title = f"{place.edition} · {langs}"
        self.status(f"{place.edition} · {langs} · {place.key}")

    def _relayout(self) -> None:
        if self._view is not None:
            self.query_one("#rule", Static).update(Linked(self._view))

    def _rule_view(self, place: Place):
        from crlookup import bilingual

        try:
            found = self.lib.rule(place.key, place.edition)
        except NotFound as e:
            return Text(
                str(e) + _("; nearest: {numbers}").format(numbers=", ".join(e.suggestions)),
                "yellow",
            ), []
        rule, below, cited_by = found.rule, list(found.below), list(found.cited_by)
        cites = self.lib.cites(place.edition, rule.number)
        links = [
            Option(Text.assemble(("→ ", "dim"), (n, "cyan")), id=f"rule:{place.edition}:{n}")
            for n in cites
        ]
        links += [
            Option(
                Text.assemble(
                    ("← ", "dim"),
                    (
                        n.replace("glossary:", ""),
                        "cyan" if not n.startswith("glossary:") else "green",
                    ),
                ),
                id=(
                    f"glossary:{place.edition}:{n[9:]}"
                    if n.startswith("glossary:")
                    else f"rule:{place.edition}:{n}"
                ),
            )
            for n in cited_by
        ]
        heading = self._heading(place.edition, rule.number)
        langs = MODES[self.mode]
        lang = self.lib.edition(place.edition).lang
        if len(langs) > 1 and lang == "en":
            shown = [rule.number] + (
                [] if rule.kind in ("chapter", "section") else [r.number for r in below]
            )
            pairs = bilingual.pairs(self.lib, place.edition, shown, langs[1])
            return render.group(heading, render.ParallelView(list(langs), pairs)), links
        terms = render.GlossaryTerms(self.lib.headwords(place.edition))
        return render.group(
            heading, render.RuleView(place.edition, rule, below, cited_by=cited_by, terms=terms)
        ), links

    def _heading(self, edition: str, number: str) -> Text:
        """The chapter and section a rule sits in."""
        parts = []
        n = numbers.parse(number)
        for up in (str(n.chapter), str(n.section) if n.section >= 10 else None):
            if up and up != number:
                entry = self.lib.get(edition, up)
                if entry is not None:
                    parts.append(f"{up}. {entry.title}")
        return Text(" › ".join(parts), "dim")

    def status(self, message: str) -> None:
        self.query_one("#status", Static).update(Text(message))

    # -------------------------------------------------------------------- actions

    def action_follow(self, number: str) -> None:
        """A click on a cross-reference."""
        self.open(Place("rule", self.edition, number))

    def action_focus_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_leave_search(self) -> None:
        if self.focused is self.query_one("#search", Input):
            links = self.query_one("#links", OptionList)  # hidden while results take its place
            (links if links.display else self.query_one("#results", OptionList)).focus()

    def action_back(self) -> None:
        if self.back_stack:
            self.forward_stack.append(self.place)
            self.open(self.back_stack.pop(), remember=False)

    def action_forward(self) -> None:
        if self.forward_stack:
            self.back_stack.append(self.place)
            self.open(self.forward_stack.pop(), remember=False)

    def action_pick_edition(self) -> None:
        lang = self.lib.edition(self.edition).lang
        options = [
            Option(
                Text.assemble(
                    (e.id, "bold" if e.id == self.edition else ""),
                    ("  " + e.date.isoformat(), "dim"),
                ),
                id=e.id,
            )
            for e in reversed(self.lib.editions())
            if e.lang == lang
        ]

        def chosen(edition: str | None) -> None:
            if not edition or self.place is None:
                return
            if self.place.kind != "rule":
                self.open(self.place._replace(edition=edition))
                return
            # the same rule in the other edition, followed across renumberings
            from crlookup.features.history import Links

            number = Links(self.lib, lang).numbers(self.place.edition, self.place.key).get(edition)
            if number is None:
                self.status(
                    _("{number} is not in {edition}").format(number=self.place.key, edition=edition)
                )
                number = self.place.key if self.lib.get(edition, self.place.key) else "1"
            self.open(Place("rule", edition, number))

        self.push_screen(
            PickScreen(_("Edition (the same rule, across renumberings)"), options), chosen
        )

    def action_cycle_languages(self) -> None:
        have = {e.lang for e in self.lib.editions()}
        for step in range(1, len(MODES) + 1):
            mode = (self.mode + step) % len(MODES)
            if set(MODES[mode]) <= have:
                self.mode = mode
                break
        if self.place is not None:
            self.render_place()

    def action_history(self) -> None:
        from crlookup.features import history

        if self.place is None or self.place.kind != "rule":
            return
        steps = [
            s
            for s in history.timeline(self.lib, self.place.edition, self.place.key)
            if s.main and (s.noteworthy or s.edition == self.place.edition)
        ]
        by_id = {}
        options = []
        for i, s in enumerate(steps):
            key = f"{i}"
            by_id[key] = s
            what = _history_word(s.change)
            options.append(
                Option(
                    Text.assemble(
                        (s.date + "  ", "dim"),
                        (f"{s.edition:<16}", ""),
                        ((s.number or "—") + "  ", "bold cyan"),
                        what,
                    ),
                    id=key,
                )
            )

        def detail(key: str):
            s = by_id[key]
            if s.diff:
                return render.diff_text(s.diff, context=8)
            if s.previous and s.previous[1] != s.number:
                return Text(_("renumbered from {number}").format(number=s.previous[1]))
            return Text(_("no change of wording"), "dim")

        self.push_screen(
            PickScreen(_("History of {number}").format(number=self.place.key), options, detail)
        )

    def action_keys(self) -> None:
        self.push_screen(KeysScreen())


def _one_line(label: Text, width: int = LABEL) -> Text:
    """A result's label on one line: cut with an ellipsis to fit the list."""
    if len(label) > width:
        label.truncate(width - 1)
        label.append("…")
    return label


def _distinct(options: list[Option]) -> list[Option]:
    """The options with the first of each id (a rule both cited and citing is listed once)."""
    first: dict = {}
    for option in options:
        first.setdefault(option.id, option)
    return list(first.values())


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


def run(lib: Library, query: str = "") -> None:
    """Run the browser until the user quits."""
    Browser(lib, query).run()
