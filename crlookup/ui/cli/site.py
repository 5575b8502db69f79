"""`crlookup site OUTDIR`: the web pages as a static site, to publish or keep offline
(docs/commands/site.md, docs/site.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
from typing import TYPE_CHECKING

from crlookup.core.errors import NOT_FOUND
from crlookup.core.i18n import N_, _
from crlookup.ui.cli.command import Failure, command, open_library

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click

EXTRA = 'pip install "crlookup[site]"'


@command()
@click.argument("outdir", metavar="OUTDIR", type=click.Path(file_okay=False))
@click.option(
    "--edition",
    "editions",
    metavar="EDITION",
    multiple=True,
    help=N_("Another edition's pages too, under its id (repeatable: en-2024-07-30, previous)."),
)
@click.option(
    "--document",
    "document_names",
    multiple=True,
    type=click.Choice(["cr", "ipg", "mtr", "jar"]),
    help=N_("Only these documents (repeatable; default: all four)."),
)
@click.option(
    "--parallel",
    "langs",
    metavar="L1,L2",
    help=N_(
        "Languages shown beside the English CR, separated by commas ('none': none; "
        "default: zh, if the library has it)."
    ),
)
@click.option(
    "--base",
    metavar="PATH",
    default="/",
    show_default=True,
    help=N_("The address the site is published at (its 404 page's links start there)."),
)
@click.option(
    "--cards",
    is_flag=True,
    help=N_("Every card's page too, online only (the offline copy leaves them out)."),
)
@click.option("--json", "as_json", is_flag=True, help=N_("Print what was written as JSON."))
def site(outdir, editions, document_names, langs, base, cards, as_json):
    """Write the web pages as a static site: for any static host, and for phones to keep
    offline (each page's "Keep offline").

    The newest CR (with Chinese side by side), IPG, MTR and JAR: every entry, the glossary,
    each rule's history and the latest changes, searched in the browser. OUTDIR is made anew
    (a site already there is replaced). Needs the site extra: pip install "crlookup[site]".

    Example: crlookup site public/ && python -m http.server -d public
    """
    from crlookup.ui import serve as serving

    # serve's packages (the pages' templates import Starlette and Jinja2), and Pagefind
    lacking = serving.missing() + [n for n in ("pagefind",) if importlib.util.find_spec(n) is None]
    if lacking:
        raise Failure(
            _("site needs {packages}: {command}").format(
                packages=", ".join(lacking), command=EXTRA
            ),
            NOT_FOUND,
        )
    from crlookup.ui.site import build

    lib = open_library(as_json=as_json)
    lib.all_editions(None)  # every edition in (waited for)
    wanted = document_names or build.DOCUMENTS
    chosen = (
        None
        if langs is None
        else tuple(x.strip() for x in langs.split(",") if x.strip() and x.strip() != "none")
    )
    from rich.progress import Progress

    from crlookup.ui.render import text

    # (on stderr as a build's bar is, and only on a terminal: stdout holds what was written)
    shown = not as_json and sys.stderr.isatty()
    with Progress(console=text.console(stderr=True), transient=True, disable=not shown) as bar:
        task = bar.add_task(_("Writing the site"), total=None)
        built = build.build(
            lib, outdir, document_names=wanted, editions=editions, langs=chosen, base=base,
            cards=cards, progress=lambda done, total: bar.update(task, completed=done, total=total),
        )  # fmt: skip
    if as_json:
        click.echo(json.dumps(built.to_dict(), ensure_ascii=False, indent=2))
        return
    click.echo(
        _(
            "{folder}: {pages} pages, {size:.1f} MB; the offline copy {offline:.1f} MB; "
            "editions {editions} ({seconds:g} s)"
        ).format(
            folder=built.folder,
            pages=built.pages,
            size=built.bytes / 1e6,
            offline=built.offline_bytes / 1e6,
            editions=", ".join(built.editions),
            seconds=built.seconds,
        )
    )
