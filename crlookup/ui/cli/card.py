"""`crlookup card`: a card's Oracle text, its rulings and the rules behind it
(docs/commands/card.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup.ui import options
from crlookup.ui.cli.command import (
    command,
    emit_json,
    json_option,
    open_library,
    pager_option,
    show,
)

if TYPE_CHECKING:
    from crlookup.features.card_rules import CardLookup


@command()
@options.CARD
@json_option
@pager_option
def card(words: tuple[str, ...], edition: str | None, lang: str | None, as_json: bool, pager: bool):
    """Show a card's Oracle text, its rulings and the rules behind it.

    Every face is shown; the official rulings (to October 2018) newest first, each with its
    date. Keywords, ability words, types and the rules terms and symbols of its text each lead
    to the rule that governs them. The name may be misspelt, partial ("teferi hero") or a face's
    ("Stomp"); a name that fits several cards lists them.

    Example: crlookup card "Giant Spider"
    """
    shown(open_library(as_json).card(" ".join(words), edition, lang), as_json, pager)


def shown(found: CardLookup, as_json: bool, pager: bool) -> None:
    """A card looked up, as JSON or for people (`crlookup <words>` that name a card too)."""
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui.render.card import lookup

    show(lookup(found), pager)
