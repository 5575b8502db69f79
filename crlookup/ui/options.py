"""The commands' arguments and options, defined once: the command line puts them on its
commands (crlookup.ui.cli), and the server reads them as its endpoints' parameters, with the
same names, types, limits, defaults and help (crlookup.ui.serve.endpoints).

Each is a decorator for the command of its name (`@options.RULE`); `parameters(options.RULE)`
lists the click parameters it adds, in order. How a command shows its answer (--json,
--pager) is the command line's own. click is imported here, for both, without two standard
modules it would import for what crlookup never uses (`_import_click`).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crlookup.core.errors import BadInput
from crlookup.core.i18n import N_, _


class _StandIn(types.ModuleType):
    """A module imported for real when a name it lacks is first used."""

    def __getattr__(self, name: str):
        if name.startswith("__"):  # what the import system asks of a module (__path__, ...)
            raise AttributeError(name)
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(__import__(self.__name__), name)


def _cleandoc(doc: str) -> str:
    """inspect.cleandoc, without importing inspect for an option's one-line help."""
    if "\n" in doc or "\t" in doc:
        return __import__("inspect").cleandoc(doc)
    return doc.lstrip()


def _import_click():
    """click, imported without two standard modules it imports for what crlookup never uses:
    `inspect` (with ast, dis, tokenize: ~6 ms), for `cleandoc` of each option's help, and
    `uuid` (with platform: ~2 ms), for the UUID parameter type. While click is imported they
    are stand-ins (as crlookup.library.index does for whoosh), removed right after: any other
    import gets the real module, and so does click, on first use of a name the stand-in lacks."""
    if "click" in sys.modules:
        return sys.modules["click"]
    stand_ins: dict[str, Any] = {}
    if "inspect" not in sys.modules:
        stand_ins["inspect"] = _StandIn("inspect")
        stand_ins["inspect"].cleandoc = _cleandoc
    if "uuid" not in sys.modules:
        stand_ins["uuid"] = _StandIn("uuid")
        stand_ins["uuid"].UUID = type("UUID", (), {})  # click.types: ParamType[uuid.UUID]
    sys.modules.update(stand_ins)
    try:
        import click
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
        if "uuid" in stand_ins:
            del stand_ins["uuid"].UUID  # click's uuid.UUID: the real one from now on
    return click


if TYPE_CHECKING:
    import click
else:
    click = _import_click()


def complete_edition(ctx, param, incomplete: str) -> list:
    """Shell completion of an edition: the aliases ("latest", "previous", "ru-latest", …),
    then the library's ids, newest first (none if no library is built yet)."""
    from click.shell_completion import CompletionItem

    from crlookup.core import paths
    from crlookup.core.documents import PREFIX
    from crlookup.library import home

    found = home.edition_ids(paths.home())
    prefixes = dict.fromkeys(
        lang if doc == "cr" else (doc if lang == "en" else f"{doc}-{lang}")
        for _id, lang, doc in found
        if doc in PREFIX
    )
    aliases = ["latest", "previous"] + [
        f"{p}-{a}" for p in prefixes for a in ("latest", "previous")
    ]
    return [
        CompletionItem(x)
        for x in [*aliases, *(i for i, _l, _d in found)]
        if x.startswith(incomplete)
    ]


def edition_option(help_text: str):
    """--edition: an id, "latest", "previous" or a date, each maybe after a language or
    document ("ru-latest", "mtr-2024-01-01"): crlookup.library.reader resolves them."""
    return click.option(
        "--edition",
        "edition_id",
        metavar="EDITION",
        help=help_text,
        shell_complete=complete_edition,
    )


def languages(parallel: str) -> tuple[str, str]:
    """`rule --parallel L1,L2`: the two languages; BadInput if it names not two different ones."""
    langs = [x.strip() for x in parallel.split(",") if x.strip()]
    if len(langs) != 2 or langs[0] == langs[1]:
        raise BadInput(
            _("--parallel: expected two languages such as en,ru, found {found!r}").format(
                found=parallel
            )
        )
    return langs[0], langs[1]


def check_search(cards: bool, rulings: bool, **rules_options: Any) -> None:
    """BadInput for `search` options that do not go together: --rulings without --cards, or
    --cards with an option of the rules' (`rules_options`, by name: all_editions=True)."""
    if rulings and not cards:
        raise BadInput(_("--rulings searches the cards' rulings: use it with --cards"))
    given = [f"--{name.replace('_', '-')}" for name, value in rules_options.items() if value]
    if cards and given:
        raise BadInput(
            _("--cards cannot be combined with {options}").format(options=", ".join(given))
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
        "unresolved_in",
        metavar="EDITION",
        shell_complete=complete_edition,
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
        "other_lang",
        metavar="L",
        help=N_("Add each hit's counterpart in language L."),
    ),
    click.option(
        "--cards",
        "in_cards",
        is_flag=True,
        help=N_("Search the cards (names, types, Oracle text) instead of the rules."),
    ),
    click.option(
        "--rulings",
        "in_rulings",
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
    click.argument("old_id", metavar="OLD", shell_complete=complete_edition),
    click.argument("new_id", metavar="NEW", shell_complete=complete_edition),
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
