"""The commands' arguments and options, defined once: the command line puts them on its
commands (crlookup.ui.cli), and the server reads them as its endpoints' parameters, with the
same names, types, limits, defaults and help (crlookup.ui.serve.endpoints).

Each is a decorator for the command of its name (`@options.RULE`); `parameters(options.RULE)`
lists the click parameters it adds, in order; their names are those of the crlookup.api
method that answers the command (`--edition` is `edition`). How a command shows its answer
(--json, --pager) is the command line's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from crlookup.core.i18n import N_

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click


# The parameters that name an edition, by their metavar: the command line completes them in the
# shell (crlookup.ui.cli.command.Command, from the library's editions, read through the API).
# The options do not: they are serve's endpoints' parameters too, which need no completion and
# so no API.
EDITION_METAVARS = ("EDITION", "OLD", "NEW")


def edition_option(help_text: str):
    """--edition: an id, "latest", "previous" or a date, each maybe after a language or
    document ("ru-latest", "mtr-2024-01-01"): crlookup.library.reader resolves them."""
    return click.option(
        "--edition",
        "edition",
        metavar="EDITION",
        help=help_text,
    )


def _options(*decorators: Callable) -> Callable:
    """One decorator that puts `decorators` on a command, in the order listed."""

    def apply(f):
        for decorate in reversed(decorators):
            f = decorate(f)
        return f

    return apply


def parameters(decorator: Callable) -> list[click.Parameter]:
    """The click parameters a command's decorator adds, in order."""

    def command() -> None:
        pass

    decorator(command)
    return list(reversed(command.__click_params__))  # type: ignore[attr-defined]


EDITIONS = _options(
    click.option(
        "--unresolved",
        "unresolved",
        metavar="EDITION",
        help=N_("List the cross-references of edition ID that name no entry of it."),
    ),
)

RULE = _options(
    click.argument("number"),
    edition_option(
        N_(
            "Edition: an id (en-2019-01-25), latest, previous, or a date YYYY-MM-DD (the edition "
            "in force that day); ru-latest: of that language (default: newest English)."
        )
    ),
    click.option(
        "--lang", metavar="L", help=N_("Language of the edition (default: en): en, ru, zh or pl.")
    ),
    click.option(
        "--parallel",
        metavar="L1,L2",
        help=N_("Show the rule in two languages side by side, e.g. en,ru or en,zh."),
    ),
    click.option(
        "--annotations",
        is_flag=True,
        help=N_("Show the judges' annotations beside the annotated MTR (not part of its text)."),
    ),
    click.option(
        "--cite",
        is_flag=True,
        help=N_("End with how to cite it: CR 702.19b (August 7, 2026) and the official page."),
    ),
)

SEARCH = _options(
    click.argument("words", nargs=-1, required=True),
    edition_option(N_("Search this edition only.")),
    click.option("--all-editions", is_flag=True, help=N_("Search every edition of the language.")),
    click.option(
        "--lang",
        metavar="L",
        help=N_("Language: en, ru, zh or pl (default: from the query's script)."),
    ),
    click.option(
        "--section", metavar="NUMBER", help=N_("Only entries at or below this number, e.g. 702.")
    ),
    click.option("--limit", type=click.IntRange(1, 500), default=10, show_default=True),
    click.option(
        "--parallel",
        "parallel",
        metavar="L",
        help=N_("Add each hit's counterpart in language L."),
    ),
    click.option(
        "--list-editions",
        "list_editions",
        is_flag=True,
        help=N_(
            "With --json: list every edition each hit reads so in (not only the first, "
            "the last and the count)."
        ),
    ),
    click.option(
        "--cards",
        "cards",
        is_flag=True,
        help=N_("Search the cards (names, types, Oracle text) instead of the rules."),
    ),
    click.option(
        "--rulings",
        "rulings",
        is_flag=True,
        help=N_("With --cards: search the cards' rulings too."),
    ),
    click.option(
        "--doc",
        "document",
        type=click.Choice(["cr", "mtr", "ipg", "jar", "all"]),
        default="cr",
        show_default=True,
        help=N_(
            "Search the Tournament Rules (mtr), the Infraction Procedure Guide (ipg), "
            "Judging at Regular REL (jar), or all of them and the CR (all)."
        ),
    ),
)

ASK = _options(
    click.argument("words", nargs=-1, required=True),
    edition_option(N_("Answer from this edition.")),
    click.option(
        "--lang",
        metavar="L",
        help=N_("Language of the rules shown: en, ru or zh (default: the question's)."),
    ),
    click.option(
        "--parallel",
        metavar="L",
        help=N_("Each answer's counterpart in language L beside it, e.g. en."),
    ),
    click.option("--limit", type=click.IntRange(1, 50), default=5, show_default=True),
    click.option(
        "--brief",
        is_flag=True,
        help=N_("One line per answer: its number, its title and the words that decide it."),
    ),
)

CARD = _options(
    click.argument("words", nargs=-1, required=True),
    edition_option(N_("Link to this edition's rules (default: newest English).")),
    click.option(
        "--lang", metavar="L", help=N_("Link to the newest edition in language L, e.g. ru.")
    ),
)

DEFINE = _options(
    click.argument("words", nargs=-1, required=True),
    click.option(
        "--lang", metavar="L", help=N_("Glossary language (default: from the term's script).")
    ),
    edition_option(N_("Edition whose glossary to use.")),
)

REFS = _options(
    click.argument("number"),
    edition_option(N_("Edition id (default: newest English).")),
    click.option(
        "--depth",
        type=click.IntRange(1, 5),
        default=1,
        show_default=True,
        help=N_("Follow citations this many steps."),
    ),
)

DIFF = _options(
    click.argument("old", metavar="OLD"),
    click.argument("new", metavar="NEW"),
    click.option(
        "--section", metavar="NUMBER", help=N_("Only changes at or below this number, e.g. 702.")
    ),
    click.option("--summary", is_flag=True, help=N_("Counts per kind of change and per section.")),
)

HISTORY = _options(
    click.argument("number"),
    edition_option(N_("Edition the NUMBER is in (default: newest English).")),
    click.option(
        "--all", "every", is_flag=True, help=N_("List every edition, the unchanged ones too.")
    ),
)

# The server's /v1/lookup, what `crlookup <anything>` takes (the command line reads the words and
# the options of the command they go to itself): the words, and the edition to look in.
LOOKUP = _options(
    click.argument("words", nargs=-1, required=True),
    edition_option(N_("Edition to look in (default: the newest of the words' language).")),
)
