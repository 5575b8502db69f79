"""`crlookup search`: rules, examples, glossary entries or cards, ranked
(docs/commands/search.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from crlookup.core.errors import NOT_FOUND
from crlookup.core.i18n import _
from crlookup.ui import options
from crlookup.ui.cli.command import (
    Failure,
    command,
    emit_json,
    json_option,
    open_library,
    pager_option,
    short,
    show,
)

if TYPE_CHECKING:
    import click

    from crlookup.features.card_rules import CardLookup
    from crlookup.features.search import Search
    from crlookup.library.cards import CardResults
else:
    from crlookup.ui import click


@command()
@options.SEARCH
@click.option("--or-card", is_flag=True, hidden=True)  # `crlookup <words>`: no hit, a card?
@json_option
@pager_option
def search(words: tuple[str, ...], as_json: bool, pager: bool, **given):
    """Search rules, examples and glossary entries; misspellings are corrected.

    Phrases in quotes, AND, OR, NOT and a rule number (a filter) work as usual. By default
    each rule appears once, from the newest edition in the query's language. With --cards,
    the cards' names, type lines and Oracle text are searched instead (and their rulings,
    with --rulings); with --doc, the judge's other rulebooks (MTR, IPG, JAR).

    Example: crlookup search deathtouch trample
    """
    query = " ".join(words)
    found = open_library(as_json).search(query, **given)
    if given["or_card"] and hasattr(found, "card"):  # no hit has every word: a card's name
        if not as_json:
            click.echo(_("crlookup: no rule has these words; a card's name?"), err=True)
        if as_json:
            return emit_json(found.to_dict())
        from crlookup.ui.render.card import lookup

        return show(lookup(cast("CardLookup", found)), pager)
    if as_json:
        emit_json(found.to_dict())
    elif given["cards"]:
        from crlookup.ui.render.search import CardSearchView

        cards = cast("CardResults", found)
        notes = []
        if cards.corrections:
            notes.append(_("showing results for {query}").format(query=cards.query))
        if cards.relaxed:
            notes.append(_("no card has every word; showing cards with some of them"))
        show(CardSearchView(cards.hits, notes), pager)
    else:
        from crlookup.ui.render.search import SearchView

        show(SearchView(cast("Search", found)), pager)
    if not cast("Search | CardResults", found).hits:
        told = _("no cards for {query!r}") if given["cards"] else _("no results for {query!r}")
        raise Failure(told.format(query=short(query.strip())), NOT_FOUND)
