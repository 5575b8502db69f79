"""`crlookup diff`: what changed between two editions, word by word (docs/commands/diff.md)."""

from __future__ import annotations

from crlookup.ui import options
from crlookup.ui.cli.command import (
    command,
    emit_json,
    json_option,
    open_library,
    pager_option,
    show,
)


@command()
@options.DIFF
@json_option
@pager_option
def diff(old: str, new: str, section: str | None, summary: bool, as_json: bool, pager: bool):
    """What changed between two editions: changed, moved, split, merged, removed, added.

    Rules are followed across renumberings; changed text is shown word by word.

    Example: crlookup diff en-2022-11-18 en-2026-08-07 --section 702
    """
    found = open_library(as_json).diff(old, new, section, summary=summary)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui.render import diff as views

    if summary:
        show(views.DiffSummaryView(found.old, found.new, found.counts), pager)
        return
    show(views.DiffView(found), pager)
