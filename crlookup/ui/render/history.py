"""`crlookup history`: a rule's life through its editions."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.ui.render.text import STYLES, diff_text, hanging, styled


class HistoryView:
    """A rule's timeline (crlookup.history.History), in the order the editions took effect.

    By default, its story: where it first appears, each edition where its words changed (the
    changed words marked), each renumbering, merge and split, its removal, and the edition it
    is in now; for a rule, each edition where its subrules changed (a section's: its rules),
    and which; editions where nothing changed are counted, not listed, and partial editions and
    conversions of an official edition are left out. `every` lists every edition.
    """

    def __init__(self, history, every: bool = False):
        self.history, self.every = history, every
        self.rule, self.steps = history.rule, history.steps

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for line in self.history.lines(self.every):  # (the page's lines too)
            s = self.steps[line.step]
            if line.quiet:
                yield Text("    " + line.quiet_said, STYLES["muted"])
            what, below = line.said, line.below
            yield styled(
                (f"{s.date}  ", STYLES["muted"]),
                (f"{s.edition:<22}", ""),
                (s.number or "—", STYLES["number"]),
                (f"  {what}", ""),
            )
            if s.diff:
                yield from hanging(diff_text(s.diff, context=8), 4, width)
            if below:
                yield from hanging(Text(below), 4, width)
