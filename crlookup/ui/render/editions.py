"""`crlookup editions`: one line per edition, with its counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from crlookup.core.i18n import N_, _
from crlookup.ui.render.text import STYLES

if TYPE_CHECKING:
    from crlookup.library.reader import EditionInfo


#: how `editions` names the kind of source of an edition (its format)
SOURCE_KINDS = {
    "archive": N_("official"),
    "text": N_("official"),
    "flat": N_("flat text"),
    "webpage": N_("web page"),
    "po": N_("gettext"),
    "markdown": N_("Markdown"),
    "scraped_json": N_("scraped"),
    "tournament_json": N_("JSON"),
    "dokuwiki": N_("annotated wiki"),
    "tournament_pdf": N_("official PDF"),
    "jar_markdown": N_("Markdown"),
}


def editions_table(editions: list[EditionInfo]):
    """One line per edition, in the order they took effect: its id, the date it took effect,
    what kind of source it comes from, and its counts (fits 100 columns)."""
    from rich.table import Table

    table = Table(
        box=None,
        header_style="bold",
        pad_edge=False,
        collapse_padding=True,
        caption_justify="left",
        caption_style="dim",
        caption=_(
            "effective: the date the text states · sect: sections · sub: subrules · "
            "ex: examples · gloss: glossary terms · refs: cross-references "
            "resolved/total · --json names each source file"
        ),
    )
    # at 100 columns every edition is one line; narrower, the source wraps, never the numbers
    table.add_column(
        _("edition"), no_wrap=True, min_width=max((len(e.id) for e in editions), default=13)
    )
    table.add_column(_("effective"), no_wrap=True, min_width=12)
    table.add_column(_("source"))
    for name in (_("sect"), _("rules"), _("sub"), _("ex"), _("gloss"), _("refs")):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    from babel.dates import format_date

    from crlookup.core.i18n import language

    for e in editions:
        c = e.counts
        head = Text(e.id, "bold")
        day = format_date(e.date, format="medium", locale=language())
        kind = Text(
            _(
                N_("translation")
                if e.format == "archive" and not e.official
                else SOURCE_KINDS.get(e.format, e.format)
            ),
            "" if e.official else STYLES["muted"],
        )
        if e.origin == "user":
            kind.append(" " + _("(yours)"), "green")
        if e.partial:
            kind.append(" " + _("(partial)"), "yellow")
        if e.provenance == "reconstructed":
            kind.append(" " + _("(reconstructed)"), "yellow")
        elif e.provenance == "recovered":
            kind.append(" " + _("(recovered)"), STYLES["muted"])
        table.add_row(
            head,
            Text(day, STYLES["muted"] if e.id.endswith(e.date.isoformat()) else "yellow"),
            kind,
            str(c["sections"]),
            str(c["rules"]),
            str(c["subrules"]),
            str(c["examples"]),
            str(c["glossary"]),
            f"{c['refs_resolved']}/{c['refs']}",
        )
    return table
