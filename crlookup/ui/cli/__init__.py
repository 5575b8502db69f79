"""The command line: click options in, one crlookup.api call, then `--json` or rich output out.

One module per command (`crlookup.ui.cli.rule`, ...; `doctor` holds rebuild too), imported only
when its command runs (or help lists it): a command imports nothing another needs. Each
parses its options, calls its crlookup.api method and shows the result; `command` holds what
they share (failures, --json, --pager, showing, the library they read). Library
errors become one line on stderr with exit code 1 (not found) or 2 (bad input); rich is
imported only for output meant for people.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING

from crlookup.core.errors import BAD_INPUT, NOT_FOUND, CrlookupError
from crlookup.core.i18n import _
from crlookup.ui.cli.command import ROUTE, Command, Failure
from crlookup.ui.failure import failed
from crlookup.version import __version__

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click  # (imported without what it needs not)

#: Every command, and the module of crlookup.ui.cli that defines it (a function of its name).
COMMANDS = {
    ROUTE: "anything",
    "ask": "ask",
    "browse": "browse",
    "card": "card",
    "define": "define",
    "diff": "diff",
    "doctor": "doctor",
    "editions": "editions",
    "export": "export",
    "history": "history",
    "ingest": "ingest",
    "rebuild": "doctor",
    "refs": "refs",
    "rule": "rule",
    "search": "search",
    "serve": "serve",
    "site": "site",
    "update": "update",
}


class Commands(MutableMapping):
    """The group's commands, each imported when it is first asked for: a command's module,
    not every command's, is what a command line imports."""

    def __init__(self, where: dict[str, str]):
        self.where = where
        self.loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.loaded:
            if name not in self.where:
                raise KeyError(name)
            module = importlib.import_module(f"{__name__}.{self.where[name]}")
            self.loaded[name] = getattr(module, "anything" if name == ROUTE else name)
        return self.loaded[name]

    def __setitem__(self, name: str, value: click.Command) -> None:
        self.loaded[name] = value
        self.where.setdefault(name, "")

    def __delitem__(self, name: str) -> None:
        self.loaded.pop(name, None)
        del self.where[name]

    def __contains__(self, name: object) -> bool:
        return name in self.where

    def __iter__(self) -> Iterator[str]:
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)


def _mistyped(word: str, commands) -> bool:
    import difflib

    return bool(difflib.get_close_matches(word, commands, cutoff=0.8))


# the errors of a write that fails for want of room
_WRITING = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class Group(Command, click.Group):
    def resolve_command(self, ctx: click.Context, args: list[str]):
        """A first word that is no command is a query for `crlookup <anything>`."""
        query = bool(args) and args[0] not in self.commands and not args[0].startswith("-")
        if query and not (args[1:] and args[1][:1].isdigit() and _mistyped(args[0], self.commands)):
            # (not `rul 702.19`: a command mistyped); after "--", its options are not parsed
            # as its own (click would raise, and catch, an error for each: 2.5 ms)
            args = [ROUTE, "--", *args]
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        from crlookup import api

        try:
            return super().invoke(ctx)
        except CrlookupError as e:  # crlookup.core.errors: one line, and its exit code
            told = failed(e)
            raise Failure(told.message, told.code, told.suggestions) from None
        except BrokenPipeError:  # the reader went away (`crlookup export ... | head`)
            raise SystemExit(0) from None
        except OSError as e:
            if e.filename is None and e.errno in _WRITING:  # `> /dev/full`: not the home's
                _set_output_aside()  # (a build names its files, or says it is the home's)
                raise Failure(
                    _("crlookup: cannot write the output: {reason}").format(reason=e.strerror),
                    NOT_FOUND,
                ) from None
            found = api.storage_error(e)  # the library home: full, read-only
            if found is not None:
                raise Failure(str(found), found.exit_code) from None
            raise Failure(f"{e.filename or 'crlookup'}: {e.strerror}", BAD_INPUT) from None


def _set_output_aside() -> None:
    """Nothing more is written to the standard output (it failed)."""
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process)


@click.group(
    cls=Group,
    commands=Commands(dict(COMMANDS)),
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="crlookup")
def cli():
    """Look up the Magic: The Gathering Comprehensive Rules, any edition, offline.

    Type anything after crlookup: a rule number (702.19, "IPG 2.1"), a glossary term, a
    card's name, words or a question goes to the command that answers it, which is named
    on stderr. Or name the command yourself, with its options.

    Example: crlookup 702.19
    """


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
