"""`crlookup search`: the hits, what was corrected or widened; and the cards found
(search --cards)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.core.i18n import _
from crlookup.ui.render.text import STYLES, hanging, marked, styled


class SearchView:
    """A search (crlookup.features.search.Search): what was corrected or widened, then each hit's
    number, edition and title, the snippet with matched words marked, and its counterpart."""

    def __init__(self, search):
        self.search = search

    def notes(self) -> list[str]:
        s, found = self.search, self.search.results
        notes = []
        if found.corrections:
            notes.append(_("showing results for {query}").format(query=found.query))
        if s.widened:
            notes.append(
                _("nothing in {edition}; showing older editions").format(edition=s.widened)
            )
        if found.relaxed and not found.complete:
            notes.append(_("no entry has every word; showing entries with some of them"))
        elif found.relaxed:
            notes.append(
                _("{count} with every word, then entries with some of them").format(
                    count=found.complete
                )
            )
        return notes

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        notes = self.notes()
        for note in notes:
            yield Text(note, "italic yellow")
        from crlookup.core.documents import document_of, label

        s = self.search
        for i, (h, snippet) in enumerate(zip(s.hits, s.snippets)):
            twin = s.counterparts.get(i)
            if i or notes:
                yield Text()
            document = document_of(h.edition)
            number = label(document, h.number) if document != "cr" else h.number
            head = styled(
                (number or "glossary", STYLES["number"]),
                (" " + h.title if h.title else "", STYLES["title"]),
                (f"  {h.edition}", STYLES["muted"]),
            )
            yield head
            plain = snippet.replace("\x01", "").replace("\x02", "").strip("… ")
            if plain and plain != h.title:  # a rule that is only its name says it in the head
                yield from hanging(marked(snippet), 2, width)
            if twin:
                text = twin["title"] if twin["title"] == twin["text"] else twin["text"]
                shown = text if len(text) <= 300 else text[:299] + "…"
                yield from hanging(
                    styled(
                        (f"{twin['edition']} {twin['number'] or twin['title']}: ", STYLES["muted"]),
                        (shown, "italic"),
                    ),
                    4,
                    width,
                )


class CardSearchView:
    """Cards found by their words: name, cost and type line, then the text around the words
    (and, where one of its rulings has them, that ruling's date and the words around them)."""

    def __init__(self, hits, notes: list[str]):
        self.hits, self.notes = hits, notes

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for note in self.notes:
            yield Text(note, "italic yellow")
        for i, h in enumerate(self.hits):
            if i or self.notes:
                yield Text()
            head = styled(
                (h.name, STYLES["title"]),
                (f"  {h.mana_cost}" if h.mana_cost else "", ""),
                (f"  {h.type_line}", STYLES["muted"]),
            )
            yield from hanging(head, 0, width)
            if h.snippet.strip():
                yield from hanging(marked(h.snippet.replace("\n", " ")), 2, width)
            if h.ruling is not None:
                label = _("ruling {date}").format(date=h.ruling.date)
                if h.ruling.face:
                    label += f" ({h.ruling.face})"
                line = Text(label + ": ", STYLES["muted"])
                line.append_text(marked(h.ruling.snippet.replace("\n", " ")))
                yield from hanging(line, 2, width)
