"""`crlookup update`: the current rules from Wizards, the only command that goes online
(docs/commands/update.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup import api
from crlookup.core.i18n import N_, _, ngettext
from crlookup.ui.cli.command import BuildProgress, command, emit_json, json_option

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click


@command()
@click.option(
    "--from",
    "source",
    metavar="URL|FILE",
    help=N_("Take the rules text from this URL or file instead of Wizards' rules page."),
)
@json_option
def update(source: str | None, as_json: bool):
    """Download the current Comprehensive Rules from Wizards and add them if they are new.

    The rules page (https://magic.wizards.com/en/rules, or CRLOOKUP_RULES_PAGE) links to the
    rules text; it is downloaded, checked and ingested, and one line says what changed.

    Example: crlookup update
    """
    with BuildProgress(plain=as_json) as progress:
        done = api.update(source, progress=progress)
    if as_json:
        emit_json(done.to_dict())
    elif not done.added:
        click.echo(_("already up to date: {edition}").format(edition=done.edition))
    elif done.previous is None:
        click.echo(_("added {edition}").format(edition=done.edition))
    else:
        click.echo(
            ngettext(
                "{edition}: {added} rule added, {changed} changed, {removed} removed (against {previous})",
                "{edition}: {added} rules added, {changed} changed, {removed} removed (against {previous})",
                done.rules_added,
            ).format(
                edition=done.edition,
                added=done.rules_added,
                changed=done.rules_changed,
                removed=done.rules_removed,
                previous=done.previous,
            )
        )
