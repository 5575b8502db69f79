"""`crlookup ingest`: adds your own edition file (docs/commands/ingest.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from crlookup import api
from crlookup.core.i18n import N_, _
from crlookup.ui.cli.command import BuildProgress, command, emit_json, json_option

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click


@command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option(
    "--id", "edition_id", metavar="ID", help=N_("Edition id (default: <lang>-<effective date>).")
)
@click.option(
    "--lang", metavar="L", help=N_("Language code of the edition (default: from the source).")
)
@click.option(
    "--date", metavar="YYYY-MM-DD", help=N_("Effective date, if the file does not state it.")
)
@click.option(
    "--any-size",
    is_flag=True,
    help=N_("Add a file far larger than any edition (over 8 MB, or 12,000 entries) all the same."),
)
@json_option
def ingest(
    path: str,
    edition_id: str | None,
    lang: str | None,
    date: str | None,
    any_size: bool,
    as_json: bool,
):
    """Add your own edition file (e.g. a new MagicCompRules.txt) to your library.

    Example: crlookup ingest ~/Downloads/MagicCompRules.txt
    """
    with BuildProgress(plain=as_json) as progress:
        added = api.ingest(
            path, id=edition_id, lang=lang, date=date, progress=progress, any_size=any_size
        )
    for why in added.partial.values():  # (added all the same: said, on stderr)
        click.echo(f"crlookup: {why}", err=True)
    if as_json:
        emit_json(added.to_dict())
        return
    for e in added.editions:
        c = e.counts
        click.echo(
            _(
                "added {edition}: {sections} sections, {rules} rules, {subrules} subrules, "
                "{glossary} glossary terms"
            ).format(
                edition=e.id,
                sections=c["sections"],
                rules=c["rules"],
                subrules=c["subrules"],
                glossary=c["glossary"],
            )
        )
