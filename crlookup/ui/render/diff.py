"""`crlookup diff`: the changes between two editions by section, word by word; and their
counts (--summary)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.core.i18n import N_, _, ngettext
from crlookup.ui.render.text import STYLES, diff_text, hanging, styled

# The kinds of change, as the interface names them.
KIND_LABELS = {
    "unchanged": N_("unchanged"),
    "changed": N_("changed"),
    "moved": N_("moved"),
    "split": N_("split"),
    "merged": N_("merged"),
    "removed": N_("removed"),
    "added": N_("added"),
}


class DiffView:
    """Changes between two editions (crlookup.features.diff.EditionDiff), by section; moves as moves;
    text changes word by word."""

    def __init__(self, diff):
        self.diff = diff

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        d = self.diff
        total = d.counts["total"]
        parts = [f"{n} {_(KIND_LABELS[k])}" for k, n in total.items() if n]
        yield Text(f"{d.old} → {d.new}: " + (", ".join(parts) or _("nothing")), "bold")
        quiet = sum(1 for c in d.changes if not c.shown)
        if quiet:
            yield Text(
                _("({count} changed only in quotes, dashes or spacing: not listed)").format(
                    count=quiet
                ),
                STYLES["muted"],
            )
        section = None
        for c in d.changes:
            if not c.shown:
                continue
            sec = (c.match.new or c.match.old).split(".")[0]
            if sec != section:
                section = sec
                yield Text()
                yield styled(
                    (f"{sec} ", STYLES["number"]), (d.titles.get(sec, ""), STYLES["title"])
                )
            yield from self._change(c, width)

    def _change(self, c, width: int) -> list[Text]:
        m = c.match
        label = {
            "moved": f"{m.old} → {m.new}",
            "removed": m.old,
            "added": m.new,
            "split": f"{m.old} → {m.new}",
            "merged": f"{m.old} → {m.new}",
        }.get(m.kind, m.new)
        head = styled((f"  {m.kind} ", "bold"), (label, STYLES["ref"]))
        if m.refs_only:
            head.append("  " + _("only cross-reference numbers changed"), STYLES["muted"])
        elif m.words_added or m.words_removed:
            head.append(f"  +{m.words_added} −{m.words_removed} words", STYLES["muted"])
        lines = [head]
        if c.diff:
            lines += hanging(diff_text(c.diff), 4, width)
        elif c.text:
            lines += hanging(Text(c.text), 4, width)
        return lines


class DiffSummaryView:
    def __init__(self, old: str, new: str, counts: dict):
        self.old, self.new, self.counts = old, new, counts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.table import Table

        from crlookup.core.alignment import KINDS

        table = Table(
            box=None,
            header_style="bold",
            pad_edge=False,
            collapse_padding=True,
            title=f"{self.old} → {self.new}",
            title_justify="left",
        )
        table.add_column("section")
        for k in KINDS:
            table.add_column(k, justify="right")
        sections = self.counts["sections"]
        changed = {
            sec: c for sec, c in sections.items() if any(c[k] for k in KINDS if k != "unchanged")
        }
        for sec, c in changed.items():
            table.add_row(sec, *(str(c[k]) for k in KINDS))
        table.add_row("total", *(str(self.counts["total"][k]) for k in KINDS), style="bold")
        yield table
        if len(changed) < len(sections):
            yield Text(
                ngettext(
                    "{count} section unchanged (not listed)",
                    "{count} sections unchanged (not listed)",
                    len(sections) - len(changed),
                ).format(count=len(sections) - len(changed)),
                STYLES["muted"],
            )
        yield Text(
            _("{count} of the changed and moved differ only in quotes, dashes or spacing").format(
                count=self.counts["typography_only"]
            ),
            STYLES["muted"],
        )
