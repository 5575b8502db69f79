"""`crlookup <anything>`: whatever was typed, to the command that answers it
(docs/commands/anything.md). Chosen by crlookup.api.Library.route."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from crlookup.core.i18n import _
from crlookup.ui.cli.command import ROUTE, check_arguments, command, open_library

if TYPE_CHECKING:
    import click

    from crlookup.api import Route
else:
    from crlookup.ui import click


@command(ROUTE, hidden=True)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def anything(ctx: click.Context, args: tuple[str, ...]):
    """Whatever was typed, to the command that answers it: a rule number (or "IPG 2.1") to
    rule, a question to ask, a glossary term to define, a card's name to card, other words to
    search. The options after it are that command's.

    Example: crlookup 702.19
    """
    words = list(itertools.takewhile(lambda a: not a.startswith("-"), args))
    options = list(args[len(words) :])
    text = " ".join(words)
    check_arguments("crlookup", words)
    lib = open_library("--json" in options)
    edition = next((options[i + 1] for i, o in enumerate(options[:-1]) if o == "--edition"), None)
    route = lib.route(text, edition)
    group = ctx.parent.command if ctx.parent is not None else None
    assert isinstance(group, click.Group)
    target = group.commands[route.command]
    given = [route.argument] if route.argument else [text] if route.command == "rule" else words
    if "--json" not in options:  # a script is told nothing on stderr
        click.echo(routed_note(route, text, options), err=True)
    if route.command == "search":
        options.append("--or-card")
    with target.make_context(route.command, [*given, *options], parent=ctx.parent) as sub:
        return target.invoke(sub)


def routed_note(route: Route, text: str, options: list[str]) -> str:
    """What `crlookup <anything>` says on stderr: what it read, and the command it runs."""
    import shlex

    return _("crlookup: {reading}: crlookup {command}").format(
        reading=route.reading,
        command=shlex.join([route.command, route.argument or text, *options]),
    )
