"""`crlookup editions`: every edition in the library, with its counts
(docs/commands/editions.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from crlookup.core.i18n import ngettext
from crlookup.ui import options
from crlookup.ui.cli.command import command, emit_json, json_option, open_library, show

if TYPE_CHECKING:
    import click

    from crlookup.api import EditionList, Unresolved
else:
    from crlookup.ui import click


@command()
@options.EDITIONS
@json_option
def editions(unresolved: str | None, as_json: bool):
    """List the editions in the library with their counts.

    Example: crlookup editions --unresolved en-2009-07-11
    """
    found = open_library(as_json).list_editions(unresolved)
    if as_json:
        emit_json(found.to_dict())
        return
    if unresolved:
        refs = cast("Unresolved", found)
        click.echo(
            ngettext(
                "{count} unresolved reference in {edition}",
                "{count} unresolved references in {edition}",
                len(refs.refs),
            ).format(count=len(refs.refs), edition=refs.edition)
        )
        for where, ref in refs.refs:
            click.echo(f"  {where.replace('glossary:', 'glossary ')}: {ref.label}")
        return
    from crlookup.ui.render.editions import editions_table

    show(editions_table(list(cast("EditionList", found).editions)))
