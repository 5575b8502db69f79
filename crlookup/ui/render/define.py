"""`crlookup define`: glossary entries, and the rules of keywords."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.core.documents import DOCUMENTS, document_of
from crlookup.core.i18n import _
from crlookup.ui.render.rule import RuleView
from crlookup.ui.render.text import STYLES, hanging, styled, with_refs


class DefinitionsView:
    """Glossary definitions, each with the entry it points to and the keyword's rule."""

    def __init__(self, edition: str, found):
        self.edition = edition
        self.found = found

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        document = document_of(self.edition)
        yield Text(self.edition, STYLES["muted"])
        if self.found and self.found[0].entry is None and self.found[0].rule is not None:
            if document != "cr":  # a judge's word for a tournament document's entry ("REL")
                said = _("not a glossary term; this entry of the {name}:").format(
                    name=DOCUMENTS[document]
                )
            else:
                said = _("not in this glossary; {term} is defined by this rule:").format(
                    term=self.found[0].name
                )
            yield Text(said, "italic yellow")
        elif self.found and self.found[0].score < 100:
            names = ", ".join(d.name for d in self.found)
            yield Text(_("no exact match; closest: {names}").format(names=names), "italic yellow")
        for i, d in enumerate(self.found):
            if i:
                yield Text()
            for entry in (d.entry, d.see):
                if entry is None:
                    continue
                head = styled(
                    (entry.term, STYLES["title"]),
                    (
                        f" ({entry.english})" if entry.english not in ("", entry.term) else "",
                        STYLES["muted"],
                    ),
                    (" " + _("unofficial translation") if entry.unofficial else "", "yellow"),
                )
                yield head
                for paragraph in filter(None, entry.definition.split("\n")):
                    yield from hanging(with_refs(paragraph), 2, width)
            if d.rule is not None:
                view = RuleView(self.edition, d.rule, list(d.subrules), document=document)
                yield from view.entries(width)
