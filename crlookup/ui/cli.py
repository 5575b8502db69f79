"""The command line: click options in, library calls, then `--json` or rich output out.

Nothing else in crlookup imports click but the commands' options (crlookup.ui.options), which
the server reads too. Library errors become one line on stderr with exit
code 1 (not found) or 2 (bad input); rich is imported only for output meant for people.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from crlookup import api
from crlookup.core.errors import (
    BAD_INPUT,
    NOT_FOUND,
    ArgumentError,
    CardQueryError,
    CrlookupError,
    NotFound,
    QuestionError,
)
from crlookup.core.i18n import N_, _, ngettext
from crlookup.ui import options
from crlookup.ui.failure import Failed, check_argument, failed
from crlookup.version import __version__

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui.options import click  # (imported without what it needs not)


class Failure(click.ClickException):
    """One line on stderr and an exit code; never a traceback. With --json, the same as JSON
    on stdout too, `{"error", "code", "suggestions"}` (unless the command printed its JSON:
    an empty search's)."""

    def __init__(self, message: str, exit_code: int, suggestions: list[str] | None = None):
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click's is a class default, ours per error
        self.suggestions = list(suggestions or [])

    def show(self, file=None) -> None:
        message = self.format_message()
        for arg in _TYPED:  # what the user typed, repeated: not 10,000 characters of it
            if len(arg) > 300:  # (a long path is kept whole)
                message = message.replace(arg, _short(arg))
        if "--json" in _TYPED and not _EMITTED:
            error = Failed(message, self.exit_code, self.suggestions).to_dict()
            click.echo(json.dumps(error, ensure_ascii=False, indent=2))
        click.echo(message, err=True)


_TYPED: list[str] = []  # the command's arguments (one command per process), for `Failure`
_EMITTED: list[bool] = []  # [True] once the command printed its JSON, for `Failure`


class Command(click.Command):
    """A command whose help text (its docstring) is shown in the interface language, and whose
    usage errors are one line."""

    def make_context(self, info_name, args, parent=None, **extra):
        name = " ".join(x for x in ("crlookup", info_name if parent else None) if x and x != ROUTE)
        if parent is None:
            _TYPED[:], _EMITTED[:] = args, []
        else:
            _TYPED[:] = args
        check_arguments(name, args if parent is not None else ())  # a command's own
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as e:
            raise Failure(f"{name}: {e.format_message()}", BAD_INPUT) from None

    def format_help_text(self, ctx, formatter):
        english, self.help = self.help, _(self.help) if self.help else self.help
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = english

    def format_options(self, ctx, formatter):
        english = [p.help for p in self.params if isinstance(p, click.Option)]
        for p in self.params:
            if isinstance(p, click.Option) and p.help:
                p.help = _(p.help)
        try:
            super().format_options(ctx, formatter)
        finally:
            for p, text in zip((p for p in self.params if isinstance(p, click.Option)), english):
                p.help = text

    def get_short_help_str(self, limit: int = 45) -> str:
        english, self.help = self.help, _(self.help) if self.help else self.help
        try:
            return super().get_short_help_str(limit)
        finally:
            self.help = english


def check_arguments(name: str, args) -> None:
    """`Failure` for an argument no command takes: empty, too long, or with control
    characters (or bytes the terminal's encoding could not decode)."""
    for arg in args:
        try:
            check_argument(name, arg)
        except ArgumentError as e:
            raise Failure(str(e), BAD_INPUT) from None


def _mistyped(word: str, commands) -> bool:
    import difflib

    return bool(difflib.get_close_matches(word, commands, cutoff=0.8))


class Group(Command, click.Group):
    command_class = Command

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """A first word that is no command is a query for `crlookup <anything>`."""
        query = bool(args) and args[0] not in self.commands and not args[0].startswith("-")
        if query and not (args[1:] and args[1][:1].isdigit() and _mistyped(args[0], self.commands)):
            # (not `rul 702.19`: a command mistyped); after "--", its options are not parsed
            # as its own (click would raise, and catch, an error for each: 2.5 ms)
            args = [ROUTE, "--", *args]
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CrlookupError as e:  # crlookup.core.errors: one line, and its exit code
            told = failed(e)
            raise Failure(told.message, told.code, told.suggestions) from None
        except BrokenPipeError:  # the reader went away (`crlookup export ... | head`)
            raise SystemExit(0) from None
        except OSError as e:
            from crlookup.core import paths
            from crlookup.library import home

            if e.filename is None and e.errno in _WRITING:  # `> /dev/full`: not the home's
                _set_output_aside()  # (a build names its files, or says it is the home's)
                raise Failure(
                    _("crlookup: cannot write the output: {reason}").format(reason=e.strerror),
                    NOT_FOUND,
                ) from None
            found = home.storage_error(e, paths.home())  # the library home: full, read-only
            if found is not None:
                raise Failure(str(found), found.exit_code) from None
            raise Failure(f"{e.filename or 'crlookup'}: {e.strerror}", BAD_INPUT) from None


def _set_output_aside() -> None:
    """Nothing more is written to the standard output (it failed)."""
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process)


# the errors of a write that fails for want of room
_WRITING = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


ROUTE = "any"  # the hidden command behind `crlookup <anything>`


def _damaged(part: str, damage: str) -> None:
    """What the command line says of a damaged library, before crlookup.api rebuilds it."""
    from crlookup.library.database import printable

    click.echo(
        _("crlookup: library damaged ({part}: {damage}); rebuilding").format(
            part=part, damage=printable(damage)
        ),
        err=True,
    )


def _short(text: str, width: int = 80) -> str:
    """What the user typed, as an error message repeats it: cut at `width` characters."""
    return text if len(text) <= width else text[: width - 1] + "…"


def json_option(f):
    return click.option(
        "--json", "as_json", is_flag=True, help=N_("Print JSON for scripts and bots.")
    )(f)


def pager_option(f):
    """--pager, and --color (kept for `show`: no command reads it)."""
    f = click.option(
        "--color",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        expose_value=False,
        callback=lambda ctx, _param, value: ctx.find_root().meta.__setitem__("color", value),
        help=N_("Colour: auto (on a terminal, unless NO_COLOR is set), always or never."),
    )(f)
    return click.option("--pager", is_flag=True, help=N_("Show long output through a pager."))(f)


def emit_json(data) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    _EMITTED[:] = [True]


def pager_styles(env) -> bool:
    """Whether the pager (Python's: $MANPAGER, $PAGER, else less) is sent styles. less is, and
    told (LESS=FRX, when LESS is unset) to show them as colours rather than as escape codes;
    a pager that may not show them (another program, or less told otherwise) is sent none."""
    env.setdefault("LESS", "FRX")
    program = (env.get("MANPAGER") or env.get("PAGER") or "less").split()
    less = bool(program) and os.path.basename(program[0]) == "less"
    return less and "R" in env["LESS"].upper().replace("-", "")


def show(renderable, pager: bool = False) -> None:
    """Output for people. On a terminal, as wide as it is (through a pager if asked: less
    is told to show colours, and a pager that may not is given none); elsewhere one line per
    paragraph, no line ending in spaces, ready to paste."""
    from crlookup.ui import render

    ctx = click.get_current_context(silent=True)
    color = ctx.find_root().meta.get("color", "auto") if ctx is not None else "auto"
    console = render.console(color=color)
    if not sys.stdout.isatty():
        with console.capture() as captured:
            console.print(renderable)
        sys.stdout.write(render.without_trailing_spaces(captured.get()))
    elif pager:
        with console.pager(styles=pager_styles(os.environ)):
            console.print(renderable)
    else:
        console.print(renderable)


class _BuildProgress:
    """Reports the first-use build: a rich progress bar for people, plain lines otherwise.
    Used as `with _BuildProgress(plain) as progress:`, which takes the bar down however the
    work inside ends."""

    def __init__(self, plain: bool):
        self.plain = plain or not sys.stderr.isatty()
        self.bar: Any = None  # rich's Progress, once a build reports
        self.task: Any = None
        self.built = False
        self.said: set[str] = set()  # (plain) what it said: a build, a wait for the older editions

    def __enter__(self) -> _BuildProgress:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None  # a later build (a damaged library rebuilt) shows a bar of its own

    def __call__(self, done: int, total: int, label: str) -> None:
        from crlookup.builder.pipeline import ADDING

        self.built = True
        if self.plain:
            said = (
                _("crlookup: waiting for the older editions being added in the background")
                if label == ADDING
                else _("crlookup: building the library (first use or sources changed)")
            )
            if said not in self.said and done < total:
                self.said.add(said)
                click.echo(said, err=True)
            return
        if self.bar is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            from crlookup.ui import render

            self.bar = Progress(
                TextColumn(_("waiting") if label == ADDING else _("building the library")),
                BarColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=render.console(stderr=True),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(label, total=total)
        self.bar.update(self.task, completed=done, total=total, description=_(label))
        if done >= total:
            self.bar.stop()
            self.bar = None


def pipeline_grow_failure() -> str | None:
    """Why the older editions could not be added in the background, lately (or None)."""
    from crlookup.builder import pipeline
    from crlookup.core import paths

    return pipeline.grow_failure(paths.home())


def open_library(as_json: bool = False):
    """The library, built first if need be; a build that could not read the card file says
    so (the rules are built all the same, and card features repeat it), as does one that could
    not read the faces or rulings file (the cards are built without it). Opened once per
    process: `crlookup <anything>` opens it to choose the command, which then reads it."""
    ctx = click.get_current_context(silent=True)
    opened = ctx.find_root().meta if ctx is not None else {}
    if "library" in opened:
        return opened["library"]
    progress = _BuildProgress(plain=as_json)
    try:
        lib = api.open(progress=progress, notice=_damaged)  # damage: said, then rebuilt
    finally:
        progress.__exit__()
    status = (lib.meta("cards") or {}) if progress.built else {}
    if status.get("error"):
        click.echo(
            _("crlookup: warning: no cards in this library: {reason}").format(
                reason=status["error"]
            ),
            err=True,
        )
    if (status.get("faces") or {}).get("error"):  # the cards are there, some faces lacking
        click.echo(
            _("crlookup: warning: card faces not completed: {reason}").format(
                reason=status["faces"]["error"]
            ),
            err=True,
        )
    if (status.get("rulings") or {}).get("error"):  # the cards are there, without rulings
        click.echo(
            _("crlookup: warning: no card rulings in this library: {reason}").format(
                reason=status["rulings"]["error"]
            ),
            err=True,
        )
    if lib.stale:  # its sources changed, and it could not be rebuilt: it answers as it is
        click.echo(
            _(
                "crlookup: warning: the library is out of date (its sources changed) and could "
                "not be rebuilt: {reason}"
            ).format(reason=lib.stale),
            err=True,
        )
    failed = pipeline_grow_failure() if lib.pending and not as_json else None
    if failed:
        click.echo(
            ngettext(
                "crlookup: {count} older edition could not be added: {reason} (the editions "
                "before {date} and history are missing; tried again in ten minutes)",
                "crlookup: {count} older editions could not be added: {reason} (the editions "
                "before {date} and history are missing; tried again in ten minutes)",
                lib.pending,
            ).format(
                count=lib.pending,
                reason=failed,
                date=min(e.date for e in lib.editions()).isoformat(),
            ),
            err=True,
        )
    elif lib.pending and not as_json:
        click.echo(
            ngettext(
                "crlookup: {count} older edition is being added in the background (history, "
                "search and what names it wait for it)",
                "crlookup: {count} older editions are being added in the background (history, "
                "search and what names one wait for them)",
                lib.pending,
            ).format(count=lib.pending),
            err=True,
        )
    opened["library"] = lib
    return lib


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="crlookup")
def cli():
    """Look up the Magic: The Gathering Comprehensive Rules, any edition, offline.

    Type anything after crlookup: a rule number (702.19, "IPG 2.1"), a glossary term, a
    card's name, words or a question goes to the command that answers it, which is named
    on stderr. Or name the command yourself, with its options.

    Example: crlookup 702.19
    """


@cli.command(ROUTE, hidden=True)
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
    command = cli.commands[route.command]
    given = [text] if route.command == "rule" else words
    if "--json" not in options:  # a script is told nothing on stderr
        click.echo(routed_note(route, text, options), err=True)
    if route.command == "search":
        options.append("--or-card")
    with command.make_context(route.command, [*given, *options], parent=ctx.parent) as sub:
        return command.invoke(sub)


def routed_note(route, text: str, options: list[str]) -> str:
    """What `crlookup <anything>` says on stderr: what it read, and the command it runs."""
    import shlex

    return _("crlookup: {reading}: crlookup {command}").format(
        reading=route.reading, command=shlex.join([route.command, text, *options])
    )


@cli.command()
@options.EDITIONS
@json_option
def editions(unresolved_in: str | None, as_json: bool):
    """List the editions in the library with their counts.

    Example: crlookup editions --unresolved en-2009-07-11
    """
    lib = open_library(as_json)
    if unresolved_in:
        found = lib.unresolved(unresolved_in)  # (waits for an edition still being added)
        edition = lib.edition(unresolved_in).id
        if as_json:
            emit_json(
                [
                    {"edition": edition, "in": where, "ref": ref.label, "text": ref.text}
                    for where, ref in found
                ]
            )
            return
        click.echo(
            ngettext(
                "{count} unresolved reference in {edition}",
                "{count} unresolved references in {edition}",
                len(found),
            ).format(count=len(found), edition=edition)
        )
        for where, ref in found:
            click.echo(f"  {where.replace('glossary:', 'glossary ')}: {ref.label}")
        return
    items = lib.all_editions(None)
    if as_json:
        emit_json([e.to_dict() for e in items])
        return
    from crlookup.ui import render

    show(render.editions_table(items))


@cli.command()
@options.RULE
@json_option
@pager_option
def rule(
    number: str,
    edition_id: str | None,
    lang: str | None,
    parallel: str | None,
    annotations: bool,
    cite: bool,
    as_json: bool,
    pager: bool,
):
    """Show a rule with its subrules, examples and citations.

    NUMBER is a section (702), a rule (702.19) or a subrule (702.19b); a trailing period
    (702.19.) shows the rule alone, without its subrules. The judge's other rulebooks are
    named before the number: "IPG 2.1", "MTR 3.1", "MTR C" (an appendix), "JAR extra cards"
    (a JAR case by its title); "CR 702.19b" is the same as 702.19b.

    Example: crlookup rule 702.19b
    """
    if parallel:
        return _parallel(number, edition_id, parallel, as_json, pager)
    lib = open_library(as_json)
    found = lib.rule(number, edition_id, lang)
    citation = lib.citation(found.edition, found.rule.number) if cite else None
    if as_json:
        emit_json(found.to_dict(annotations=annotations, citation=citation))
        return
    from crlookup.ui import render

    terms = render.GlossaryTerms(lib.headwords(found.edition))
    view: Any = render.RuleView(
        found.edition,
        found.rule,
        list(found.below),
        cited_by=list(found.cited_by),
        terms=terms,
        document=found.document,
        annotations=annotations,
    )
    if found.twins:
        view = render.group(view, *[render.TwinView(found.edition, r, terms) for r in found.twins])
    if citation is not None:
        view = render.group(view, render.CitationView(citation))
    show(view, pager)


def _parallel(number, edition_id, parallel, as_json, pager):
    """`rule --parallel en,ru`: the rule and its subrules beside their counterparts."""
    result = open_library(as_json).parallel(number, options.languages(parallel), edition_id)
    if as_json:
        emit_json(result.to_dict())
        return
    from crlookup.ui import render

    show(render.ParallelView(list(result.langs), list(result.pairs)), pager)


@cli.command()
@options.SEARCH
@click.option("--or-card", is_flag=True, hidden=True)  # `crlookup <words>`: no hit, a card?
@json_option
@pager_option
@click.pass_context
def search(
    ctx,
    words,
    edition_id,
    all_editions,
    lang,
    section,
    limit,
    other_lang,
    in_cards,
    in_rulings,
    document,
    or_card,
    as_json,
    pager,
):
    """Search rules, examples and glossary entries; misspellings are corrected.

    Phrases in quotes, AND, OR, NOT and a rule number (a filter) work as usual. By default
    each rule appears once, from the newest edition in the query's language. With --cards,
    the cards' names, type lines and Oracle text are searched instead (and their rulings,
    with --rulings); with --doc, the judge's other rulebooks (MTR, IPG, JAR).

    Example: crlookup search deathtouch trample
    """

    query = " ".join(words).strip()
    if not query:
        raise Failure(_("search: expected words to search for"), BAD_INPUT)
    options.check_search(
        in_cards,
        in_rulings,
        edition=edition_id,
        all_editions=all_editions,
        lang=lang,
        section=section,
        parallel=other_lang,
    )
    if in_cards:
        return _search_cards(query, limit, as_json, pager, in_rulings)
    lib = open_library(as_json)
    found = lib.search(
        query,
        edition=edition_id,
        all_editions=all_editions,
        lang=lang,
        section=section,
        limit=limit,
        parallel=other_lang,
        document=document,
    )
    if or_card and lib.card_instead(found, query):  # no hit has every word: a card's name?
        if not as_json:
            click.echo(_("crlookup: no rule has these words; a card's name?"), err=True)
        return ctx.invoke(card, words=words, as_json=as_json, pager=pager)
    if as_json:
        emit_json(found.to_dict())
    else:
        from crlookup.ui import render

        show(render.SearchView(found), pager)
    if not found.hits:
        raise Failure(_("no results for {query!r}").format(query=_short(query)), NOT_FOUND)


def _search_cards(query: str, limit: int, as_json: bool, pager: bool, rulings: bool) -> None:
    """`search --cards`: cards whose name, type line or Oracle text has the words (or, with
    `rulings`, one of whose rulings has them)."""
    found = open_library(as_json).cards().search(query, limit=limit, rulings=rulings)
    if as_json:
        emit_json(found.to_dict(query))
    else:
        from crlookup.ui import render

        notes = []
        if found.corrections:
            notes.append(_("showing results for {query}").format(query=found.query))
        if found.relaxed:
            notes.append(_("no card has every word; showing cards with some of them"))
        show(render.CardSearchView(found.hits, notes), pager)
    if not found.hits:
        raise Failure(_("no cards for {query!r}").format(query=_short(query)), NOT_FOUND)


@cli.command()
@options.ASK
@json_option
@pager_option
def ask(words, edition_id, lang, parallel, limit, brief, as_json, pager):
    """Answer a rules question with the rules that decide it, best first, and why.

    The question is read for keyword abilities and actions, glossary terms, card types,
    zones, steps and counters (misspellings and word forms too); questions in English,
    Russian or Chinese (read through the English rules). Answers come from the newest edition
    unless --edition says otherwise; --parallel en puts the English beside each. Each answer
    says what sets it apart; what most of them share is said once, above them.

    Example: crlookup ask "Can I activate two loyalty abilities of a planeswalker in one turn?"
    """
    question = " ".join(words).strip()
    if not question:
        raise Failure(_("ask: expected a question"), BAD_INPUT)
    lib = open_library(as_json)
    try:
        asked = lib.ask(question, edition=edition_id, lang=lang, limit=limit, parallel=parallel)
    except QuestionError as e:
        raise Failure(f"ask: {e}", BAD_INPUT) from None
    if as_json:
        emit_json(asked.to_dict())
    else:
        from crlookup.ui import render

        show(render.BriefAnswersView(asked) if brief else render.AnswersView(asked), pager)
    if not asked.answers:
        raise Failure(
            _("no rule matches the question {question!r}").format(question=_short(question)),
            NOT_FOUND,
        )


@cli.command()
@options.CARD
@json_option
@pager_option
def card(words, edition_id, lang, as_json, pager):
    """Show a card's Oracle text, its rulings and the rules behind it.

    Every face is shown; the official rulings (to October 2018) newest first, each with its
    date. Keywords, ability words, types and the rules terms and symbols of its text each lead
    to the rule that governs them. The name may be misspelt, partial ("teferi hero") or a face's
    ("Stomp"); a name that fits several cards lists them.

    Example: crlookup card "Giant Spider"
    """
    try:
        found = open_library(as_json).card(" ".join(words), edition_id, lang)
    except CardQueryError as e:
        raise Failure(f"card: {e}", BAD_INPUT) from None
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui import render

    if found.card is None:  # several fit as well: the user chooses
        show(render.CardCandidatesView(found.found), pager)
        return
    note = ""
    if found.found.how in ("fuzzy", "partial"):
        note = _("showing {name} for {query!r}").format(
            name=found.card.name, query=found.found.query
        )
    show(
        render.CardView(
            found.card,
            list(found.links),
            found.edition,
            note=note,
            rulings=found.rulings,
            rulings_unavailable=found.rulings_unavailable,
        ),
        pager,
    )


@cli.command()
@options.DEFINE
@json_option
@pager_option
def define(words, lang, edition_id, as_json, pager):
    """Define a glossary term; keyword abilities and actions lead to their rules.

    Case and small misspellings don't matter; "See X." entries are followed.

    Example: crlookup define lethal damage
    """
    term = " ".join(words).strip()
    if not term:
        raise Failure(_("define: expected a term"), BAD_INPUT)
    found = open_library(as_json).define(term, lang, edition_id)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui import render

    show(render.DefinitionsView(found.edition, list(found.found)), pager)


@cli.command()
@options.REFS
@json_option
@pager_option
def refs(number, edition_id, depth, as_json, pager):
    """What a rule cites and what cites it, with a one-line preview of each.

    Citations of a rule's subrules and of ranges that include it count.

    Example: crlookup refs 702.19 --depth 2
    """
    found = open_library(as_json).refs(number, edition_id, depth)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui import render

    show(render.RefsView(found), pager)


@cli.command()
@options.DIFF
@json_option
@pager_option
def diff(old_id, new_id, section, summary, as_json, pager):
    """What changed between two editions: changed, moved, split, merged, removed, added.

    Rules are followed across renumberings; changed text is shown word by word.

    Example: crlookup diff en-2022-11-18 en-2026-08-07 --section 702
    """
    found = open_library(as_json).diff(old_id, new_id, section, words=not summary)
    if summary:
        if as_json:
            emit_json(found.counts)
        else:
            from crlookup.ui import render

            show(render.DiffSummaryView(found.old, found.new, found.counts), pager)
        return
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui import render

    show(render.DiffView(found), pager)


@cli.command()
@options.HISTORY
@json_option
@pager_option
def history(number, edition_id, every, as_json, pager):
    """A rule's life through every edition of its language, across renumberings.

    Shows where it first appears, each edition where its words changed (the changed words
    marked), each renumbering and its removal; --all lists every edition.

    Example: crlookup history 702.2
    """
    found = open_library(as_json).history(number, edition_id)
    if as_json:
        emit_json(found.to_dict())
        return
    from crlookup.ui import render

    show(render.HistoryView(found, every), pager)


@cli.command()
@click.argument("words", nargs=-1)
def browse(words):
    """Browse the rules on one screen: search, follow references, go back, switch edition.

    QUERY opens the browser on a rule number, or searches for words, a card or a question.
    Keys: / search, Enter open, Backspace back, e edition, l languages, h history, ? keys,
    q quit.

    Example: crlookup browse 702.19
    """
    import sys

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


@cli.command()
@click.argument("edition_id", metavar="EDITION", shell_complete=options.complete_edition)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help=N_("Accepted for symmetry: export always writes JSON Lines."),
)
def export(edition_id: str, as_json: bool):
    """Write every entry of an edition as JSON Lines: rules, then the glossary.

    Example: crlookup export en-2026-08-07 > rules.jsonl
    """
    lib = open_library(as_json=True)
    lines = [json.dumps(entry, ensure_ascii=False) for entry in lib.export(edition_id)]
    click.echo("\n".join(lines))


@cli.command()
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
@json_option
def ingest(path: str, edition_id: str | None, lang: str | None, date: str | None, as_json: bool):
    """Add your own edition file (e.g. a new MagicCompRules.txt) to your library.

    Example: crlookup ingest ~/Downloads/MagicCompRules.txt
    """
    options = {k: v for k, v in {"id": edition_id, "lang": lang, "date": date}.items() if v}
    if date:
        try:
            import datetime

            datetime.date.fromisoformat(date)
        except ValueError:
            raise Failure(
                _("--date: expected YYYY-MM-DD, found {found!r}").format(found=date), BAD_INPUT
            ) from None
    with _BuildProgress(plain=as_json) as progress:
        from crlookup.builder.ingest import ingest as adding

        added = adding(path, options, progress=progress)
    if as_json:
        emit_json([e.to_dict() for e in added])
        return
    for e in added:
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


@cli.command()
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
    from crlookup.builder import update as updating

    with _BuildProgress(plain=as_json) as progress:
        done = updating.update(source, progress=progress)
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


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help=N_("Address to listen on."))
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help=N_("Worker processes (one per core serves the most)."),
)
@click.option(
    "--ask-limit",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help=N_("Questions, diffs and histories answered at once by each worker."),
)
@click.option(
    "--ask-queue",
    type=click.IntRange(0, 10000),
    default=32,
    show_default=True,
    help=N_("Questions waiting per worker beyond which the server answers 503."),
)
@click.option(
    "--rate-limit",
    type=click.IntRange(0, 1_000_000),
    default=0,
    show_default=True,
    help=N_("Requests a minute one client may make, counted by each worker (0: no limit)."),
)
@click.option(
    "--read-timeout",
    type=click.FloatRange(0.1, 3600),
    default=10.0,
    show_default=True,
    help=N_("Seconds a request may take to arrive; a slower client is answered 408."),
)
@click.option("--access-log", is_flag=True, help=N_("Log every request."))
def serve(host, port, workers, ask_limit, ask_queue, rate_limit, read_timeout, access_log):
    """Serve the library over HTTP: each command's --json, for bots and sites.

    GET /v1/rule/702.19b, /v1/search?q=..., /v1/ask?q=..., /v1/card?name=... and the rest
    answer as the commands do with --json; /openapi.json describes them, /healthz says the
    library in use. The library is built first if it must be, then only read: a rebuild is
    taken up without a restart. Needs the serve extra: pip install "crlookup[serve]".

    Example: crlookup serve --port 8000 --workers 2
    """
    from crlookup.ui import serve as serving

    lacking = serving.missing()
    if lacking:
        raise Failure(
            _("serve needs {packages}: {command}").format(
                packages=", ".join(lacking), command=serving.EXTRA
            ),
            NOT_FOUND,
        )
    _check_port(host, port)
    lib = open_library()  # built now if it must be: a worker never builds
    lib.all_editions(None)  # every edition in (waited for): none is still to come
    root = lib.root or os.path.dirname(lib.path)
    click.echo(
        _("crlookup: serving {path} on http://{host}:{port}/ (Ctrl+C stops)").format(
            path=lib.path, host=host if ":" not in host else f"[{host}]", port=port
        ),
        err=True,
    )
    lib.close()
    serving.run(
        root,
        host,
        port,
        workers,
        ask_limit=ask_limit,
        ask_queue=ask_queue,
        rate_limit=rate_limit,
        read_timeout=read_timeout,
        access_log=access_log,
    )


def _check_port(host: str, port: int) -> None:
    """`Failure` naming the address if it cannot be listened on (in use, not this machine's)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise Failure(f"serve: {host}: {e.strerror}", BAD_INPUT) from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            raise Failure(f"serve: {host}:{port}: {e.strerror}", BAD_INPUT) from None


@cli.command()
@json_option
def rebuild(as_json: bool):
    """Build the library again from its sources: the shipped editions and your own.

    Nothing of the current library is reused, so this mends a damaged one. The editions you
    added (ingest, update) are kept: their files are in the library home. Like every build,
    it is atomic: until it is done, commands answer from the current library.

    Example: crlookup rebuild
    """
    from crlookup.core import paths

    with _BuildProgress(plain=as_json) as progress:
        from crlookup.builder import pipeline

        lib = pipeline.rebuild(paths.home(), progress=progress, first=None)
    infos = lib.editions(None)
    yours = [e.id for e in infos if e.origin == "user"]
    if as_json:
        emit_json(
            {"path": lib.path, "editions": len(infos), "yours": yours, "pending": lib.pending}
        )
        return
    click.echo(
        ngettext(
            "rebuilt {path}: {count} edition ({yours} of them yours)",
            "rebuilt {path}: {count} editions ({yours} of them yours)",
            len(infos),
        ).format(path=lib.path, count=len(infos), yours=len(yours))
    )


@cli.command()
@json_option
def doctor(as_json: bool):
    """Check every part of the library: its database, each language's index, the cards, what
    ask reads. Exit code 1 if something is damaged (then: crlookup rebuild).

    Example: crlookup doctor
    """
    from crlookup.builder import doctor as health
    from crlookup.core import paths

    root = paths.home()
    from crlookup.library import home

    path = home.current(root)
    if path is None:
        raise NotFound(_("no library in {home} yet: any command builds it").format(home=root))
    from crlookup.builder import pipeline

    found = health.check(path)
    bad = [f for f in found if f.damage]
    count, failed = pipeline.pending(root, path)
    if as_json:
        parts = [f.to_dict() for f in found]
        emit_json(
            {"path": path, "ok": not bad and not failed, "parts": parts}
            | {"pending": count, "pending_error": failed}
        )
    else:
        click.echo(path)
        for f in found:
            click.echo(f"  {f.part:<28} {f.damage or _('ok')}")
        if count:
            state = (
                _("{count} could not be added: {reason}").format(count=count, reason=failed)
                if failed
                else _("{count} being added in the background").format(count=count)
            )
            click.echo(f"  {_('older editions'):<28} {state}")
    if failed and not bad:
        raise Failure(
            ngettext(
                "{count} older edition could not be added: {reason}",
                "{count} older editions could not be added: {reason}",
                count,
            ).format(count=count, reason=failed),
            NOT_FOUND,
        )
    if bad:
        raise Failure(
            ngettext(
                "{count} part of the library is damaged: run `crlookup rebuild`",
                "{count} parts of the library are damaged: run `crlookup rebuild`",
                len(bad),
            ).format(count=len(bad)),
            NOT_FOUND,
        )


# The characters that reorder text on a terminal (Unicode's Bidi_Control): a message that
# repeats what was typed would otherwise show "no edition x‮y" reversed, or hide part of it.
_BIDI = {
    c: f"\\u{c:04x}"
    for c in (0x61C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}


class _BidiEscaped:
    """stderr, every bidirectional control character written to it shown as its escape."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(_BIDI))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _closed_streams() -> None:
    """Standard streams closed by the caller: a closed stderr takes nothing (`2>&-`: the
    messages are not wanted, the answer is); a closed stdout (`>&-`) leaves nothing to answer
    on: one line on stderr, exit code 1."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process)
    if sys.stdout is None:
        sys.stderr.write("crlookup: the standard output is closed\n")
        sys.stderr.flush()
        os._exit(1)


def main() -> None:
    """The `crlookup` console script.

    It ends the process with `os._exit` once the command is done and its output flushed:
    interpreter teardown (freeing every imported module) measured 9 ms of the ~60 ms a
    lookup takes, and crlookup leaves nothing behind that needs it (every file it writes is
    closed, and the library is only ever read after a build has completed).
    """

    code = 0
    _closed_streams()
    sys.stderr = _BidiEscaped(sys.stderr)
    try:
        cli.main(prog_name="crlookup")  # ends with SystemExit (click's standalone mode)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if isinstance(e.code, str):
            click.echo(e.code, err=True)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # e.g. `crlookup export ... | head`
        pass
    except OSError as e:  # the output's last part could not be written (`> /dev/full`)
        with contextlib.suppress(OSError):
            sys.stderr.write(
                _("crlookup: cannot write the output: {reason}").format(reason=e.strerror) + "\n"
            )
            sys.stderr.flush()
        code = code or 1
    os._exit(code)
