"""What every command of the command line shares: its class (help in the interface language,
usage errors in one line), its failure (one line on stderr, as JSON too with --json), the
options that say how it shows its answer (--json, --pager, --color), the showing itself, and
the library it reads: opened once per process, built first if need be with a progress bar for
people (plain lines otherwise), a damaged one said and rebuilt, and what its user should know
of it said on stderr (crlookup.api.Library.warnings).

click is imported here (through crlookup.ui.options, which imports it without what crlookup
never uses); rich only when output for people is shown.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from crlookup import api
from crlookup.core.errors import BAD_INPUT, ArgumentError
from crlookup.core.i18n import N_, _
from crlookup.ui.failure import Failed, check_argument
from crlookup.ui.options import EDITION_METAVARS

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click  # (imported without what it needs not)

ROUTE = "any"  # the hidden command behind `crlookup <anything>`

_TYPED: list[str] = []  # the command's arguments (one command per process), for `Failure`
_EMITTED: list[bool] = []  # [True] once the command printed its JSON, for `Failure`


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
                message = message.replace(arg, short(arg))
        if "--json" in _TYPED and not _EMITTED:
            error = Failed(message, self.exit_code, self.suggestions).to_dict()
            click.echo(json.dumps(error, ensure_ascii=False, indent=2))
        click.echo(message, err=True)


class Command(click.Command):
    """A command whose help text (its docstring) is shown in the interface language, whose
    usage errors are one line, and whose editions the shell completes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for p in self.params:  # (click keeps a parameter's completion as this attribute)
            if p.metavar in EDITION_METAVARS and p._custom_shell_complete is None:
                p._custom_shell_complete = complete_edition

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

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        finally:  # what the library has to tell of its answers: one line each, on stderr
            lib = ctx.find_root().meta.get("library")
            for line in lib.told() if lib is not None else ():
                click.echo(line, err=True)

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


def complete_edition(ctx, param, incomplete: str) -> list:
    """Shell completion of an edition: the aliases ("latest", "previous", "ru-latest", …),
    then the library's ids, newest first (none if no library is built yet)."""
    from click.shell_completion import CompletionItem

    from crlookup.core.documents import PREFIX

    found = api.edition_ids()
    prefixes: dict[str, int] = {}  # each prefix, with how many complete editions it names
    for _id, lang, doc, partial in found:
        if doc in PREFIX:
            p = lang if doc == "cr" else (doc if lang == "en" else f"{doc}-{lang}")
            prefixes[p] = prefixes.get(p, 0) + (not partial)
    # only what resolves: "previous" where there are two complete editions ("ru-previous": one)
    aliases = ["latest", "previous"] + [
        f"{p}-{a}" for p, n in prefixes.items() for a in ("latest", "previous")[: min(n, 2)]
    ]
    return [
        CompletionItem(x)
        for x in [*aliases, *(i for i, *_rest in found)]
        if x.startswith(incomplete)
    ]


def command(name: str | None = None, **attrs: Any):
    """A command of crlookup's (`@command()`, as `@click.command()`), of the class above."""
    return click.command(name, cls=Command, **attrs)


def check_arguments(name: str, args) -> None:
    """`Failure` for an argument no command takes: empty, too long, or with control
    characters (or bytes the terminal's encoding could not decode)."""
    for arg in args:
        try:
            check_argument(name, arg)
        except ArgumentError as e:
            raise Failure(str(e), BAD_INPUT) from None


def short(text: str, width: int = 80) -> str:
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
    from crlookup.ui.render import text

    ctx = click.get_current_context(silent=True)
    color = ctx.find_root().meta.get("color", "auto") if ctx is not None else "auto"
    console = text.console(color=color)
    if not sys.stdout.isatty():
        with console.capture() as captured:
            console.print(renderable)
        sys.stdout.write(text.without_trailing_spaces(captured.get()))
    elif pager:
        with console.pager(styles=pager_styles(os.environ)):
            console.print(renderable)
    else:
        console.print(renderable)


# ------------------------------------------------------------------ the library it reads


class BuildProgress:
    """Reports a build: a rich progress bar for people, plain lines otherwise. Used as `with
    BuildProgress(plain) as progress:`, which takes the bar down however the work inside
    ends."""

    def __init__(self, plain: bool, rebuilding: bool = False):
        self.plain = plain or not sys.stderr.isatty()
        self.rebuilding = rebuilding  # (`crlookup rebuild`: asked for, whatever the sources)
        self.bar: Any = None  # rich's Progress, once a build reports
        self.task: Any = None
        self.built = False
        self.damaged = False  # `current` named no library (not a first use)
        self.healing = False  # a damaged library is being rebuilt: said already, in one line
        self.said: set[str] = set()  # (plain) what it said: a build, a wait for the older editions
        self.waiting = False  # the bar shown is a wait's (for the older editions, another build)

    def __enter__(self) -> BuildProgress:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None  # a later build (a damaged library rebuilt) shows a bar of its own

    def __call__(self, done: int, total: int, label: str) -> None:
        waiting = api.waiting_for(label)
        if not self.built:  # why it builds: an emptied `current` is damage, not a first use
            self.damaged = api.current_names_none()
        self.built = True
        if self.plain:
            said = (
                _("crlookup: waiting for the older editions being added in the background")
                if waiting == "older editions"
                else _("crlookup: waiting for another crlookup building the library")
                if waiting
                else _("crlookup: rebuilding the library: its `current` names none (damaged)")
                if self.damaged
                else _("crlookup: rebuilding the library from its sources")
                if self.rebuilding
                else _("crlookup: building the library (first use or sources changed)")
            )
            if said not in self.said and done < total and not self.healing:
                self.said.add(said)
                click.echo(said, err=True)
            return
        if self.bar is not None and self.waiting != bool(waiting):  # (a wait, then a build)
            self.bar.stop()
            self.bar = None
        self.waiting = bool(waiting)
        if self.bar is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            from crlookup.ui.render import text

            self.bar = Progress(
                TextColumn(_("waiting") if waiting else _("building the library")),
                BarColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=text.console(stderr=True),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(label, total=total)
        self.bar.update(self.task, completed=done, total=total, description=_(label))
        if done >= total:
            self.bar.stop()
            self.bar = None


def damaged(part: str, damage: str) -> None:
    """What the command line says of a damaged library, before crlookup.api rebuilds it."""
    click.echo(
        _("crlookup: library damaged ({part}: {damage}); rebuilding").format(
            part=part, damage=damage
        ),
        err=True,
    )


def open_library(as_json: bool = False) -> api.Library:
    """The library, built first if need be; what its user should know of it said on stderr
    (a card, faces or rulings file a build could not read, a library out of date; with
    `as_json` not the older editions still to come). Opened once per process: `crlookup
    <anything>` opens it to choose the command, which then reads it."""
    ctx = click.get_current_context(silent=True)
    opened = ctx.find_root().meta if ctx is not None else {}
    if "library" in opened:
        return opened["library"]
    progress = BuildProgress(plain=as_json)

    def healing(part: str, damage: str) -> None:  # said in one line: no more of the rebuild
        progress.healing = True
        damaged(part, damage)

    try:
        lib = api.open(progress=progress, notice=healing)  # damage: said, then rebuilt
    finally:
        progress.__exit__()
    for note in lib.warnings(built=progress.built):
        if note.kind != "pending" or not (as_json or progress.healing or progress.damaged):
            click.echo(note.text, err=True)
    opened["library"] = lib
    return lib
