"""Source formats: one parser module per format, each turning a file into editions.

Every parser has the same contract: ``read(path, data) -> list[Edition]``, raising
`SourceError` (with the file, the line and what was expected) for anything it cannot read,
and nothing else. `detect` picks the parser from the content, not from the file name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from crlookup.core.errors import SourceError

if TYPE_CHECKING:
    from pathlib import Path

    from crlookup.core.model import Edition


#: format name -> module under crlookup.sources that reads it
FORMATS = {
    "archive": "crlookup.sources.archive",  # official-cr-archive.tar.xz: one official text per edition
    "text": "crlookup.sources.text",  # MagicCompRules*.txt as Wizards publishes it
    "flat": "crlookup.sources.flat",  # the official text with every line break removed
    "webpage": "crlookup.sources.webpage",  # one section saved from a Russian rules website
    "po": "crlookup.sources.po",  # gettext catalogue of a Sphinx edition (English + Polish)
    "markdown": "crlookup.sources.markdown",  # the Russian translation, Markdown from a PDF
    "scraped_json": "crlookup.sources.scraped_json",  # JSON scraped from the official document
}


def parser(fmt: str):
    """The module that reads format `fmt`."""
    try:
        return importlib.import_module(FORMATS[fmt])
    except KeyError:
        raise SourceError("", None, f"one of the formats {', '.join(FORMATS)}", fmt) from None


def detect(path: Path, data: bytes) -> str:
    """The format of a source file, from its content."""
    for fmt in FORMATS:
        if parser(fmt).sniff(data):
            return fmt
    raise SourceError(
        path,
        1,
        "a Comprehensive Rules document (official text, flat text, web page, .po, Markdown or "
        "JSON)",
        data[:60].decode("latin-1"),
    )


def read(path: str | Path, data: bytes | None = None, fmt: str | None = None) -> list[Edition]:
    """Parse a source file into its editions."""
    from pathlib import Path

    path = Path(path)
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise SourceError(path, None, "a readable file", e.strerror) from None
    fmt = fmt or detect(path, data)
    return parser(fmt).read(path, data)
