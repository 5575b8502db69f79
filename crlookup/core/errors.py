"""The errors crlookup raises on purpose, each with a one-line message and the exit code the
command line gives it (1 not found, 2 bad input).

Defined here, raised by the module of each concept, caught by the command line (crlookup.cli)
and by programs that use crlookup as a library: `except crlookup.CrlookupError` catches them all.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

NOT_FOUND, BAD_INPUT = 1, 2
MAX_WORDS = 200  # the most words a query or a question may have (no pasted pages)
SEARCH_SECONDS = 5.0  # the longest a search may run ("th* in* st* de* ...": minutes, issue 47)


class CrlookupError(Exception):
    """Something crlookup cannot do; the message says why, in one line."""

    exit_code = BAD_INPUT


class NotFound(CrlookupError, LookupError):
    """No such edition, entry, card or answer; `suggestions` lists the nearest that exist."""

    exit_code = NOT_FOUND

    def __init__(self, message: str, suggestions: list[str] | None = None, told: bool = False):
        super().__init__(message)
        self.suggestions = suggestions or []
        self.told = told  # the message names the suggestions already ("the same rule there")


class EditionsPending(NotFound):
    """What a command needs is not in the library yet: an edition it names, or every edition,
    while the older editions are still being added after a first build (`Library.pending`).
    crlookup.api waits for them and runs the command again. `what` is what is missing, the
    message says also that it is still to come."""

    def __init__(self, what: str, suggestions: list[str] | None = None, yet: str = ""):
        super().__init__(what + yet, suggestions)
        self.what = what


class BadInput(CrlookupError, ValueError):
    """Input that cannot be read: a number, a query, a question, a card name, a source file."""


class ArgumentError(BadInput):
    """An argument no command takes: `kind` says why (crlookup.ui.failure: empty, too long,
    or with control characters or undecodable bytes)."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


class NumberError(BadInput):
    """A string that is not a rule number."""


class QueryError(BadInput):
    """A query that cannot be searched."""


class SearchTimedOut(QueryError):
    """A search stopped at its deadline, SEARCH_SECONDS (wildcards, in the rules or the cards,
    that match much of everything): crlookup.library.index.timed_out says so."""


class QuestionError(BadInput):
    """A question that cannot be read."""


class CardQueryError(BadInput):
    """A card name that cannot be looked up."""


class SourceError(BadInput):
    """A source file that cannot be read: names the file, the line and what was expected."""

    def __init__(self, file: str | Path, line: int | None, expected: str, found: str | None = None):
        self.file = os.path.basename(str(file))
        self.line = line
        self.expected = expected
        self.found = found
        where = f"{self.file}:{line}" if line else self.file
        msg = f"{where}: expected {expected}"
        if found is not None:
            shown = found if len(found) <= 60 else found[:57] + "..."
            msg += f", found {shown!r}"
        super().__init__(msg)

    def __reduce__(self):  # (pickled as its parts: from a process that read the source)
        return (type(self), (self.file, self.line, self.expected, self.found))


class LibraryError(CrlookupError):
    """The library cannot be built or read."""


class LibraryDamaged(LibraryError):
    """A built library whose files are damaged: `part` names the damaged part ("library.sqlite",
    "index/en", …), `path` where it is and `detail` what is wrong with it ("missing", …). It is
    rebuilt from the sources (crlookup.builder)."""

    exit_code = NOT_FOUND

    def __init__(self, part: str, path: str, detail: str):
        super().__init__(f"{part}: {detail}")
        self.part, self.path, self.detail = part, path, detail


class ShippedDamaged(LibraryError):
    """A file shipped inside the package (its data: the sources, the rulings' links, ...) is not
    as the package recorded it: only reinstalling mends it (crlookup.library.shipped, which
    says so)."""

    exit_code = NOT_FOUND

    def __init__(self, message: str, path: str, detail: str):
        super().__init__(message)
        self.path, self.detail = path, detail


class Unrepairable(LibraryError):
    """A damaged library that could not be rebuilt (a full disk, a read-only home): the message
    names its folder and the way out."""

    exit_code = NOT_FOUND


class StorageError(LibraryError):
    """The library cannot be written: the disk is full, or the home is read-only. Nothing was
    changed (the previous library, if any, is still in use)."""

    exit_code = NOT_FOUND


class Busy(CrlookupError):
    """Too much asked at once (a server's questions waiting their turn): try again shortly."""

    exit_code = NOT_FOUND


class CardsUnavailable(LibraryError):
    """The library has no cards: the card file was missing or unreadable when it was built
    (the message names it, and the line)."""


class UpdateError(CrlookupError):
    """`update` cannot be done; the library is as it was. `bad_input` is set when the user's
    own file is at fault (exit code 2), not the network or the page (1)."""

    def __init__(self, message: str, bad_input: bool = False):
        super().__init__(message)
        self.bad_input = bad_input
        self.exit_code = BAD_INPUT if bad_input else NOT_FOUND
