"""The card file: every card with its Oracle text, as gzip-compressed JSON Lines.

Layout (data/cards.jsonl.gz; its fields are described in data/cards-NOTICE.md's source's
README): one JSON object a line with `name`, `mana_cost`, `type_line`, `oracle_text`,
`keywords` (for the whole card), `power`, `toughness`, `loyalty`, `layout`,
`color_identity`; a multi-part card also has `faces` (each with its own name and, unless the
source lacks it, its text: then the card is `faces_incomplete`), a meld card `melds_into`,
a digital-only Alchemy rebalancing `is_alchemy`.

Contract: ``read(path, data) -> list[Card]`` in file order; a file that is not gzip, a line
that is not UTF-8 or not a JSON object, a field of the wrong type or a name used twice raises
`SourceError` with the line, and nothing is half-read. (Cards are not editions: this parser
is not one of `crlookup.sources.FORMATS`.)

The faces file (data/cards-faces.jsonl) holds every face of most of the cards whose faces the
card file lacks: ``read_faces(path, data) -> {card name: faces}``, under the same contract, and
``complete(cards, faces)`` takes from it only the faces a card lacks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from crlookup.core.errors import SourceError
from crlookup.core.model import Card, Face, Source

if TYPE_CHECKING:
    from collections.abc import Iterator

GZIP_MAGIC = b"\x1f\x8b"
_TEXT_FIELDS = ("name", "mana_cost", "type_line", "oracle_text", "layout")
_NUMBER_FIELDS = ("power", "toughness", "loyalty")  # strings ("*", "1+*", "X"), or null


def sniff(data: bytes) -> bool:
    return data.startswith(GZIP_MAGIC)


def read(path: str | Path, data: bytes | None = None) -> list[Card]:
    """Every card of the file, in file order."""
    path = Path(path)
    data = file_data(path, data, "a readable card file")
    lines = gzip_lines(path, data, "a gzip-compressed JSON Lines file of cards")
    cards: list[Card] = []
    seen: dict[str, int] = {}
    for number, item in json_lines(path, lines, "a JSON object (one card a line)"):
        card = _card(path, number, item)
        if card.name in seen:
            raise SourceError(
                path, number, f"a card name not used before (line {seen[card.name]})", card.name
            )
        seen[card.name] = number
        cards.append(card)
    if not cards:
        raise SourceError(path, None, "at least one card", "an empty file")
    return cards


def json_lines(path: Path, lines: list[bytes], expected: str) -> Iterator[tuple[int, object]]:
    """(line number, its JSON value) of each line that is not blank; a line that is not UTF-8
    or not JSON raises `SourceError` (`expected`: what a line should be)."""
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SourceError(
                path, number, "UTF-8 text", raw[e.start : e.start + 4].hex(" ")
            ) from None
        try:
            value = json.loads(text)
        except ValueError:
            raise SourceError(path, number, expected, text) from None
        yield number, value


def file_data(path: Path, data: bytes | None, what: str) -> bytes:
    """`data`, or else the file's bytes; a file that cannot be read raises `SourceError`
    (`what`: the file it should be)."""
    if data is not None:
        return data
    try:
        return path.read_bytes()
    except OSError as e:
        raise SourceError(path, None, what, e.strerror) from None


def gzip_lines(path: Path, data: bytes, what: str) -> list[bytes]:
    """The decompressed lines of a gzip file (`what` it should be, if it is none); a damaged
    stream is reported at the line where it breaks."""
    import gzip
    import zlib

    if not sniff(data):
        raise SourceError(path, None, what, data[:20].decode("latin-1"))
    try:
        return gzip.decompress(data).split(b"\n")
    except (OSError, EOFError, zlib.error):
        pass
    # read it again in pieces, to say how far it got
    import io

    done = b""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            while piece := f.read(1 << 16):
                done += piece
    except (OSError, EOFError, zlib.error) as e:
        line = done.count(b"\n") + 1
        raise SourceError(path, line, "the rest of a complete gzip stream", str(e)) from None
    return done.split(b"\n")  # pragma: no cover (decompress and GzipFile disagree)


def _card(path: Path, line: int, item) -> Card:
    if not isinstance(item, dict):
        raise SourceError(path, line, "a JSON object (one card a line)", type(item).__name__)
    front = _face(path, line, item, whole=True)
    keywords = item.get("keywords", [])
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise SourceError(path, line, "`keywords` as a list of strings", repr(keywords))
    identity = item.get("color_identity", [])
    if not isinstance(identity, list) or not all(isinstance(c, str) for c in identity):
        raise SourceError(path, line, "`color_identity` as a list of strings", repr(identity))
    faces = item.get("faces") or []
    if not isinstance(faces, list):
        raise SourceError(path, line, "`faces` as a list of objects", repr(faces))
    parts = tuple(_face(path, line, f) for f in faces) or (front,)
    melds = item.get("melds_into") or ""
    if not isinstance(melds, str):
        raise SourceError(path, line, "`melds_into` as a card name", repr(melds))
    return Card(
        name=front.name,
        layout=item.get("layout") or "normal",
        faces=parts,
        keywords=tuple(keywords),
        color_identity=tuple(identity),
        melds_into=melds,
        alchemy=bool(item.get("is_alchemy")),
        source=Source(path.name, line),
    )


def _face(path: Path, line: int, item, whole: bool = False) -> Face:
    """A face (or, with `whole`, the card's own fields). A face with nothing but its name is
    one whose text the source lacks."""
    if not isinstance(item, dict):
        raise SourceError(path, line, "each face as a JSON object", type(item).__name__)
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SourceError(path, line, "a card `name`", repr(name))
    for field in _TEXT_FIELDS:
        value = item.get(field)
        if value is not None and not isinstance(value, str):
            raise SourceError(path, line, f"`{field}` as a string", repr(value))
    for field in _NUMBER_FIELDS:
        value = item.get(field)
        if value is not None and not isinstance(value, (str, int)):
            raise SourceError(path, line, f"`{field}` as a string or null", repr(value))
    if whole and not isinstance(item.get("type_line"), str):
        raise SourceError(path, line, "a `type_line`", repr(item.get("type_line")))

    def number(field: str) -> str | None:
        value = item.get(field)
        return None if value is None else str(value)

    return Face(
        name=name.strip(),
        mana_cost=item.get("mana_cost") or "",
        type_line=item.get("type_line") or "",
        text=item.get("oracle_text") or "",
        power=number("power"),
        toughness=number("toughness"),
        loyalty=number("loyalty"),
        missing=not whole and "oracle_text" not in item and "type_line" not in item,
    )


# --------------------------------------------------------------------------- the faces file

# The Oracle wording before the 2024 update that shortened "enters the battlefield" to
# "enters", on the faces the faces file marks `source.stale_wording` (the same cycles' other
# faces read "Kazandu Valley enters tapped.", "As Sea Gate, Reborn enters, you may pay 3 life.")
_STALE = ("enters the battlefield", "enters")


def read_faces(path: str | Path, data: bytes | None = None) -> dict[str, tuple[Face, ...]]:
    """The faces file (data/cards-faces.jsonl): {card name: every face of it}, for cards the
    card file has incomplete.

    Layout: one JSON object a line, `name` (the card's name as the card file has it), `faces`
    (two or more, each with `name`, `mana_cost`, `type_line`, `oracle_text`, `power`,
    `toughness`, `loyalty`), `source` (where it was read; `stale_wording: true` for a face
    with the wording before the 2024 update: "enters the battlefield" is read as "enters").
    A flip card's back has no mana cost of its own (""). A file that is missing, not UTF-8, a
    line that is not such an object or a name used twice raises `SourceError` with the line.
    """
    path = Path(path)
    data = file_data(path, data, "a readable faces file")
    if sniff(data):
        raise SourceError(path, None, "a JSON Lines file of card faces", "gzip-compressed data")
    out: dict[str, tuple[Face, ...]] = {}
    seen: dict[str, int] = {}
    expected = "a JSON object (one card's faces a line)"
    for number, item in json_lines(path, data.split(b"\n"), expected):
        if not isinstance(item, dict):
            raise SourceError(path, number, expected, type(item).__name__)
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise SourceError(path, number, "a card `name`", repr(name))
        faces = item.get("faces")
        if not isinstance(faces, list) or len(faces) < 2:
            raise SourceError(path, number, "`faces` as a list of two faces or more", repr(faces))
        source = item.get("source", {})
        if not isinstance(source, dict):
            raise SourceError(path, number, "`source` as an object", repr(source))
        parts = tuple(_face(path, number, f, whole=True) for f in faces)
        if source.get("stale_wording") is True:
            parts = tuple(f._replace(text=f.text.replace(*_STALE)) for f in parts)
        name = name.strip()
        if name in seen:
            raise SourceError(
                path, number, f"a card name not used before (line {seen[name]})", name
            )
        seen[name] = number
        out[name] = parts
    if not out:
        raise SourceError(path, None, "at least one card's faces", "an empty file")
    return out


def complete(cards: list[Card], faces: dict[str, tuple[Face, ...]]) -> tuple[list[Card], int]:
    """The cards with the faces their card file lacks taken from `faces` (read_faces), and how
    many were completed. Only a missing face is taken, and only where the faces file names the
    card's faces as the card file does: a face the card file has (the front) stays its own."""
    out: list[Card] = []
    completed = 0
    for card in cards:
        found = faces.get(card.name) if card.faces_incomplete else None
        if found is None or [f.name for f in found] != [f.name for f in card.faces]:
            out.append(card)
            continue
        card = card._replace(
            faces=tuple(new if old.missing else old for old, new in zip(card.faces, found))
        )
        out.append(card)
        completed += 1
    return out, completed
