"""`crlookup browse`: all of it on one screen in the terminal (docs/commands/browse.md)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from crlookup.core.errors import BAD_INPUT
from crlookup.core.i18n import _
from crlookup.ui.cli.command import Failure, command, open_library

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click


@command()
@click.argument("words", nargs=-1)
def browse(words: tuple[str, ...]):
    """Browse the rules on one screen: search, follow references, go back, switch edition.

    QUERY opens the browser on a rule number, or searches for words, a card or a question.
    Keys: / search, Enter open, Backspace back, e edition, l languages, h history, ? keys,
    q quit.

    Example: crlookup browse 702.19
    """
    query = " ".join(words).strip()
    if len(query) > 500:
        raise Failure(_("browse: a query of at most 500 characters, please"), BAD_INPUT)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise Failure(
            _("browse: needs a terminal; scripts can use rule, search or ask with --json"),
            BAD_INPUT,
        )
    lib = open_library()
    from crlookup.ui import browse as browser

    browser.run(lib, query)
