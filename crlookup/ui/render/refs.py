"""`crlookup refs`: what a rule cites and what cites it."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.core.i18n import _
from crlookup.core.numbers import ref_label
from crlookup.ui.render.text import STYLES, styled


class RefsView:
    """A rule's citations both ways (crlookup.refs.Citations), one line each."""

    def __init__(self, citations):
        self.citations = citations

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        c = self.citations
        yield Text(c.edition, STYLES["muted"])
        yield styled((c.number + " ", STYLES["number"]), (c.preview, STYLES["title"]))
        for label, items in ((_("cites"), c.cites), (_("cited by"), c.cited_by)):
            yield Text()
            yield Text(f"{label} ({len(items)})", "bold")
            if not items:
                yield Text("  " + _("nothing"), STYLES["muted"])
            for item in items:
                shown = item.number.replace("glossary:", "glossary ")
                via = ""
                if item.via:  # which of the rule's own entries the citation links
                    template = _("from {numbers}") if label == _("cites") else _("cites {numbers}")
                    via = "(" + template.format(numbers=", ".join(item.via)) + ") "
                line = styled(
                    ("  " * item.depth + ref_label(shown) + " ", STYLES["ref"]),
                    (via, STYLES["muted"]),
                    (item.preview, ""),
                )
                line.truncate(width, overflow="ellipsis")
                yield line
