"""`crlookup history`: a rule's life from its first edition to now
(docs/commands/history.md)."""

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
@options.HISTORY
@json_option
@pager_option
def history(number: str, edition: str | None, every: bool, as_json: bool, pager: bool):
    """A rule's life through every edition of its language, across renumberings.

    Shows where it first appears, each edition where its words changed (the changed words
    marked), each renumbering and its removal; --all lists every edition.

    Example: crlookup history 702.2
    """
    found = open_library(as_json).history(number, edition)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui.render.history import HistoryView

    show(HistoryView(found, every), pager)
