"""`crlookup refs`: what a rule cites and what cites it (docs/commands/refs.md)."""

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
@options.REFS
@json_option
@pager_option
def refs(number: str, edition: str | None, depth: int, as_json: bool, pager: bool):
    """What a rule cites and what cites it, with a one-line preview of each.

    Citations of a rule's subrules and of ranges that include it count.

    Example: crlookup refs 702.19 --depth 2
    """
    found = open_library(as_json).refs(number, edition, depth)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui.render.refs import RefsView

    show(RefsView(found), pager)
