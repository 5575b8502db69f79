"""Every source format together: detection from content, wrong-format files, the manifest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from crlookup import sources
from crlookup.builder import manifest
from crlookup.core.errors import SourceError

DATA = Path(__file__).resolve().parent.parent / "data"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
FILES = {item["file"]: item for item in MANIFEST["sources"]}  # the editions' sources
CARDS = MANIFEST["cards"]


def _is_folder(name: str) -> bool:
    return FILES[name]["format"] in sources.FOLDER_FORMATS


def _bytes(name: str) -> bytes | None:
    """A source file's bytes; None for a folder (a document published one file per section)."""
    return None if _is_folder(name) else (DATA / name).read_bytes()


def test_manifest_lists_every_shipped_file():
    from crlookup.library.shipped import RECORD

    # (beside the manifest, the record of every file's size and SHA-256: scripts/checksums.py)
    shipped = {p.name for p in DATA.iterdir() if p.name not in ("manifest.json", RECORD)}
    ask = MANIFEST["ask"]  # not sources: what `ask` ships with (crlookup/ask/)
    top = {name.split("/")[0] for name in FILES}  # the tournament documents are in a folder
    cards = {CARDS["file"], CARDS["notice"], CARDS["faces"]["file"], CARDS["rulings"]["file"]}
    notices = {item["notice"] for item in FILES.values() if "notice" in item}  # cr-zh-NOTICE.md
    assert notices and all((DATA / n).exists() for n in notices)
    assert shipped == top | cards | notices | {
        ask["vectors"],
        ask["ranker"],
        ask["reranker"],
        ask["ruling_links"],
    }
    # each tournament document's folder is a source, or holds one; its notice ships with it
    tournament = DATA / "tournament"
    assert (tournament / "NOTICE.md").exists()
    folders = {p.name for p in tournament.iterdir() if p.is_dir()}
    assert folders == {name.split("/")[1] for name in FILES if name.startswith("tournament/")}
    # every format has a shipped source (the official text: the recovered 2018 editions)
    assert {item["format"] for item in MANIFEST["sources"]} == set(sources.FORMATS)
    assert CARDS["format"] == "cards" and "cards" not in sources.FORMATS
    from crlookup.features.ask.embedding import SHIPPED_VECTORS
    from crlookup.features.ask.ranking import RANKER, RERANKER
    from crlookup.features.rulings import LINKS

    assert (ask["vectors"], ask["ranker"], ask["reranker"], ask["ruling_links"]) == (
        SHIPPED_VECTORS,
        RANKER,
        RERANKER,
        LINKS,
    )


@pytest.mark.parametrize("name", sorted(FILES))
def test_detected_from_content(name):
    if _is_folder(name):
        assert sources.detect(DATA / name, None) == FILES[name]["format"]
        found = [f for f in sources.FOLDER_FORMATS if sources.parser(f).sniff_folder(DATA / name)]
        assert found == [FILES[name]["format"]]
        return
    data = (DATA / name).read_bytes()
    assert sources.detect(Path("renamed.bin"), data) == FILES[name]["format"]
    assert [f for f in sources.FORMATS if sources.parser(f).sniff(data)] == [FILES[name]["format"]]


@pytest.mark.parametrize("name", sorted(FILES))
def test_editions_as_the_manifest_says(name, request):
    parsed = (
        request.getfixturevalue("archive_editions")
        if name == "official-cr-archive.tar.xz"
        else sources.read(DATA / name)
    )
    editions = [manifest.apply_options(e, FILES[name].get("options", {})) for e in parsed]
    assert [e.id for e in editions] == FILES[name]["editions"]
    # an archive's editions come from its members, each named after the edition's date
    assert all(
        e.source in (name, Path(name).name)
        or e.source == f"MagicCompRules-{e.id[3:]}.txt"
        or e.source == f"MagicCompRules-{e.id}.txt"  # a translation's: MagicCompRules-zh-…
        or any(n.startswith("misfiled:") for n in e.notes)  # 2006-06-01's: the 2004 edition
        for e in editions
    )


@pytest.mark.parametrize("fmt", sorted(sources.FORMATS))
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_file_in_the_wrong_format_is_a_source_error(fmt, name):
    if FILES[name]["format"] == fmt or _is_folder(name) != (fmt in sources.FOLDER_FORMATS):
        return  # a folder is read by a folder's parser, a file by a file's
    if _is_folder(name):  # the other folder format says which of its files is missing
        with pytest.raises(SourceError):
            sources.parser(fmt).read(DATA / name, None)
        return
    with pytest.raises(SourceError) as e:
        sources.parser(fmt).read(Path(name), _bytes(name))
    assert str(e.value).startswith(Path(name).name)


@pytest.mark.parametrize(
    "fmt, data, where",
    [
        (
            "scraped_json",
            (DATA / "cr-2024-07-30-en.json").read_bytes()[:5000],
            "cr-2024-07-30-en.json:",
        ),
        ("po", b'msgid "100.1."\nmsgstr "\n', "cr-2013-11-01-pl.po:"),
        (
            "markdown",
            "# Полные правила\n\n(от 25 января 2019)\n\nНет правил.\n".encode(),
            "cr-2019-01-25-ru.md:",
        ),
        (
            "text",
            b"These rules are effective as of May 1, 2030.\n\nNo rules.\n",
            "MagicCompRules.txt:",
        ),
    ],
)
def test_broken_files_name_file_and_line(fmt, data, where):
    name = where.rstrip(":")
    with pytest.raises(SourceError) as e:
        sources.parser(fmt).read(Path(name), data)
    assert str(e.value).startswith(where)
    line = str(e.value)[len(where) :].split(":")[0]
    assert line.isdigit(), str(e.value)


def test_data_files_are_byte_for_byte():
    """The shipped copies are the published bytes recorded in the manifest (sha256)."""
    companions = [(CARDS[part]["file"], CARDS[part]) for part in ("faces", "rulings")]
    for name, item in [*FILES.items(), (CARDS["file"], CARDS), *companions]:
        if name in FILES and _is_folder(name):  # its files' names and bytes, in order
            found = manifest.SourceFile(str(DATA / name), item["format"], "shipped").sha256()
        else:
            found = hashlib.sha256((DATA / name).read_bytes()).hexdigest()
        assert found == item["sha256"], name


@pytest.mark.parametrize("name", [CARDS["file"], CARDS["faces"]["file"], CARDS["rulings"]["file"]])
def test_no_edition_format_reads_the_card_data(name):
    data = (DATA / name).read_bytes()
    assert not [f for f in sources.FORMATS if sources.parser(f).sniff(data)]
    with pytest.raises(SourceError):
        sources.detect(Path(name), data)


def test_the_card_data_is_three_sources_of_its_own(tmp_path):
    """The card file, its faces and its rulings: each a source (a change to one rebuilds the
    card database), none of them units of editions, and last of the sources."""
    files = manifest.read_manifest(str(DATA), "shipped")
    card_data = [(Path(f.path).name, f.format) for f in files if f.format in manifest.CARD_FORMATS]
    assert card_data == [
        ("cards.jsonl.gz", manifest.CARDS),
        ("cards-faces.jsonl", manifest.CARD_FACES),
        ("cards-rulings.jsonl.gz", manifest.RULINGS),
    ]
    assert not set(manifest.CARD_FORMATS) & set(sources.FORMATS)
    ordered = manifest.source_files(str(tmp_path))
    assert [f.format for f in ordered[-3:]] == list(manifest.CARD_FORMATS)
    without = [f for f in files if f.format != "archive"]  # (the archive's members: slow)
    units = manifest.units(without)
    assert units and not [u for u in units if u.file.format in manifest.CARD_FORMATS]
    # a manifest without them (a user's, an older one) has the card file alone
    (tmp_path / "manifest.json").write_text(
        json.dumps({"sources": [], "cards": {"file": "c.jsonl.gz", "format": "cards"}}),
        encoding="utf-8",
    )
    assert [f.format for f in manifest.read_manifest(str(tmp_path), "user")] == ["cards"]
