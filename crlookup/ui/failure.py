"""What a front end says when a command fails: one line, the exit code (1 not found, 2 bad
input) and the nearest that exist. The command line prints it (as JSON too, with --json); the
server sends that JSON as the body of its error."""

from __future__ import annotations

from typing import NamedTuple

from crlookup.core.errors import (
    BAD_INPUT,
    ArgumentError,
    CardQueryError,
    CardsUnavailable,
    CrlookupError,
    NotFound,
    QuestionError,
)
from crlookup.core.i18n import _

MAX_ARGUMENT = 2000  # characters: a question of 200 words fits; a pasted page does not


class Failed(NamedTuple):
    """A command's failure as it is told: `message` (one line), `code` (the exit code) and
    `suggestions` (the nearest rule numbers, editions or terms that exist)."""

    message: str
    code: int
    suggestions: list[str]

    def to_dict(self) -> dict:
        """The JSON of a failure: {"error", "code", "suggestions"}."""
        return {"error": self.message, "code": self.code, "suggestions": self.suggestions}


#: The errors about a command's own argument (a question, a card's name): told after its name.
ABOUT = ((QuestionError, "ask"), (CardQueryError, "card"))


def failed(error: CrlookupError) -> Failed:
    """How `error` is told: a NotFound with the nearest that exist; an error about a
    question or a card's name after the command's name ("ask: the question is empty")."""
    for kind, command in ABOUT:
        if isinstance(error, kind):
            return Failed(f"{command}: {error}", error.exit_code, [])
    if isinstance(error, NotFound):
        message = str(error)
        if error.suggestions and not error.told:
            message += _("; nearest: {numbers}").format(numbers=", ".join(error.suggestions))
        return Failed(message, error.exit_code, list(error.suggestions))
    if isinstance(error, CardsUnavailable):  # the card file was missing or unreadable
        return Failed(_("no cards in this library: {reason}").format(reason=error), BAD_INPUT, [])
    return Failed(str(error), error.exit_code, [])


#: What is wrong with an argument (`ArgumentError.kind`), as `check_argument` tells it.
EMPTY, TOO_LONG, UNREADABLE = "empty", "too long", "unreadable"


def check_argument(name: str, arg: str) -> None:
    """`ArgumentError` for an argument no command takes (`kind` EMPTY, TOO_LONG or
    UNREADABLE: with control characters, or bytes that could not be decoded), its one line
    saying so, `name` first."""
    if not arg.strip():
        raise ArgumentError(_("{name}: an empty argument").format(name=name), EMPTY)
    if len(arg) > MAX_ARGUMENT:
        raise ArgumentError(
            _("{name}: an argument of at most {count} characters, please").format(
                name=name, count=MAX_ARGUMENT
            ),
            TOO_LONG,
        )
    if unreadable(arg):
        raise ArgumentError(
            _("{name}: an argument with control characters or undecodable bytes: {arg}").format(
                name=name, arg=ascii(arg)[:60]
            ),
            UNREADABLE,
        )


def unreadable(text: str) -> bool:
    """Whether `text` has control characters, or surrogates (bytes that could not be decoded,
    as Python keeps them): what no command reads."""
    return any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) < 0xE000 for c in text)
