"""`crlookup history`: a rule's life through its editions."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from crlookup.core.i18n import _, ngettext
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
        self.rule, self.steps, self.every = history.rule, history.steps, every
        self.heading = "." not in self.rule.number  # a section or chapter: its rules below it

    def _what(self, i: int, s) -> str:
        moved = s.previous and s.number and s.previous[1] != s.number
        what = {
            "added": _("first appears") if i == 0 else _("added"),
            "removed": _("removed"),
            "unchanged": _("unchanged"),
            "changed": _("changed"),
            "moved": _("renumbered from {number}").format(number=s.previous[1])
            if moved
            else _("moved"),
            "split": _("split from {number}").format(number=s.previous[1])
            if s.previous
            else _("split"),
            "merged": _("merged"),
        }.get(s.change, s.change)
        if s.merged_from:
            what = _("merged from {numbers}").format(numbers=_listed(s.merged_from))
        elif s.split_into and s.change != "split":
            what = _("{number} split into {numbers}").format(
                number=s.previous[1], numbers=_listed(s.split_into)
            )
        if s.missing_before and s.change == "added" and i == 0:
            what = _("first appears in the library's edition of this date")
        if s.missing_before:  # the change may be one of theirs
            what += " " + _("(missing before it: {editions})").format(
                editions=", ".join(s.missing_before)
            )
        if s.typography:
            what += " " + _("(quotes and spacing only)")
        elif s.refs_only:
            what += " " + _("(cross-reference numbers only)")
        elif (s.words_added or s.words_removed) and len(s.merged_from) > 1:
            what += " " + _("(+{added} −{removed} against {number})").format(
                added=s.words_added, removed=s.words_removed, number=s.previous[1]
            )
        elif s.words_added or s.words_removed:
            what += f" (+{s.words_added} −{s.words_removed})"
        return what

    def _below(self, s) -> str:
        """What became of its subrules (a section's rules) in step `s`."""
        groups: dict[str, list[str]] = {}
        for c in s.subrules:
            shown = c.previous if c.number is None else c.number
            if c.moved:
                shown = f"{c.previous}→{c.number}"
            groups.setdefault(c.change, []).append(shown)
        labels = {
            "changed": _("changed: {numbers}"),
            "added": _("added: {numbers}"),
            "removed": _("removed: {numbers}"),
            "merged": _("merged: {numbers}"),
            "split": _("split: {numbers}"),
            "renumbered": _("renumbered: {numbers}"),
        }
        changes = "; ".join(
            label.format(numbers=_at_most(groups[kind]))
            for kind, label in labels.items()
            if kind in groups
        )
        if self.heading:
            return _("rules {changes}").format(changes=changes)
        return _("subrules {changes}").format(changes=changes)

    def _quiet(self, count: int) -> str:
        """The line for `count` editions where nothing worth a line changed."""
        if not any(s.subrules for s in self.steps):
            return ngettext(
                "… its words unchanged in {count} edition",
                "… its words unchanged in {count} editions",
                count,
            ).format(count=count)
        if self.heading:
            return ngettext(
                "… its title and its rules unchanged in {count} edition",
                "… its title and its rules unchanged in {count} editions",
                count,
            ).format(count=count)
        return ngettext(
            "… its words and its subrules unchanged in {count} edition",
            "… its words and its subrules unchanged in {count} editions",
            count,
        ).format(count=count)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        shown = (
            list(enumerate(self.steps))
            if self.every
            else [(i, s) for i, s in enumerate(self.steps) if s.main]
        )
        quiet = 0
        last = len(shown) - 1
        for k, (i, s) in enumerate(shown):
            own = s.noteworthy or k == 0 or k == last  # a line for the entry itself
            if not self.every and not (own or s.subrules):
                quiet += 1
                continue
            if quiet:
                yield Text("    " + self._quiet(quiet), STYLES["muted"])
                quiet = 0
            what = self._what(i, s)
            below = self._below(s) if s.subrules else ""
            if k == last and not s.noteworthy and s.number:
                what = _("in force")
            elif below and not s.noteworthy:  # only its subrules changed: they are the line
                what, below = below, ""
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


def _listed(numbers) -> str:
    """Numbers as a list in words: "502.9b and 502.9d", "502.9b, 502.9d and 502.9e"."""
    *first, final = numbers
    if not first:
        return final
    return _("{numbers} and {number}").format(numbers=", ".join(first), number=final)


def _at_most(numbers: list[str], most: int = 12) -> str:
    """Numbers separated by commas, the first `most` of them and how many more."""
    if len(numbers) <= most:
        return ", ".join(numbers)
    rest = len(numbers) - most
    more = ngettext("and {count} more", "and {count} more", rest).format(count=rest)
    return ", ".join(numbers[:most]) + " " + more
