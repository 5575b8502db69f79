"""Source formats: one parser module per format, each turning a file into editions.

Every parser has the same contract: ``read(path, data) -> list[Edition]``, raising
`SourceError` (with the file, the line and what was expected) for anything it cannot read,
and nothing else. `detect` picks the parser from the content, not from the file name:
``sniff(data) -> bool`` for a file. A document published as one file per section is a folder:
its parser has ``FOLDER = True`` and ``sniff_folder(path) -> bool``, and `read` gets the
folder's path and no data.
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
    # the tournament documents (crlookup.core.documents): MTR, IPG and JAR
    "tournament_json": "crlookup.sources.tournament_json",  # a folder: one JSON file a section
    "dokuwiki": "crlookup.sources.dokuwiki",  # a folder: the annotated MTR, English and Chinese
    "tournament_pdf": "crlookup.sources.tournament_pdf",  # the MTR or IPG PDF Wizards publishes
    "jar_markdown": "crlookup.sources.jar_markdown",  # Judging at Regular REL in Markdown
}

#: The formats whose source is a folder, not a file.
FOLDER_FORMATS = ("tournament_json", "dokuwiki")


def parser(fmt: str):
    """The module that reads format `fmt`."""
    try:
        return importlib.import_module(FORMATS[fmt])
    except KeyError:
        raise SourceError("", None, f"one of the formats {', '.join(FORMATS)}", fmt) from None


def detect(path: Path, data: bytes | None) -> str:
    """The format of a source file (or folder: `data` None), from its content."""
    if data is None:
        for fmt in FOLDER_FORMATS:
            if parser(fmt).sniff_folder(path):
                return fmt
        raise SourceError(
            path, None, "a folder of an MTR or IPG in JSON, or of the annotated MTR", "a folder"
        )
    # the tournament formats first: the JAR is Markdown too, and a PDF is nothing else
    first = ("jar_markdown", "tournament_pdf")
    for fmt in first + tuple(f for f in FORMATS if f not in first + FOLDER_FORMATS):
        if parser(fmt).sniff(data):
            return fmt
    raise SourceError(
        path,
        1,
        "a Comprehensive Rules document (official text, flat text, web page, .po, Markdown or "
        "JSON) or a tournament document (an MTR or IPG PDF, the JAR in Markdown)",
        data[:60].decode("latin-1"),
    )


def read(path: str | Path, data: bytes | None = None, fmt: str | None = None) -> list[Edition]:
    """Parse a source file into its editions."""
    from pathlib import Path

    path = Path(path)
    if data is None and path.is_dir():
        fmt = fmt or detect(path, None)
        return parser(fmt).read(path, None)
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise SourceError(path, None, "a readable file", e.strerror) from None
    fmt = fmt or detect(path, data)
    return parser(fmt).read(path, data)
