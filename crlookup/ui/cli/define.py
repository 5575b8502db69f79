"""`crlookup define`: a glossary term; a keyword leads to its rule (docs/commands/define.md)."""

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
@options.DEFINE
@json_option
@pager_option
def define(
    words: tuple[str, ...], lang: str | None, edition: str | None, as_json: bool, pager: bool
):
    """Define a glossary term; keyword abilities and actions lead to their rules.

    Case and small misspellings don't matter; "See X." entries are followed.

    Example: crlookup define lethal damage
    """
    found = open_library(as_json).define(" ".join(words), lang, edition)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui.render.define import DefinitionsView

    show(DefinitionsView(found.edition, list(found.found)), pager)
