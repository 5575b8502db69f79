"""`crlookup export`: every entry of an edition as JSON Lines (docs/commands/export.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from crlookup.core.i18n import N_
from crlookup.ui.cli.command import command, open_library

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click


@command()
@click.argument("edition", metavar="EDITION")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help=N_("Accepted for symmetry: export always writes JSON Lines."),
)
def export(edition: str, as_json: bool):
    """Write every entry of an edition as JSON Lines: rules, then the glossary.

    Example: crlookup export en-2026-08-07 > rules.jsonl
    """
    lib = open_library(as_json=True)
    lines = [json.dumps(entry, ensure_ascii=False) for entry in lib.export(edition)]
    click.echo("\n".join(lines))
