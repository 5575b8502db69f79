"""`crlookup ingest`: a user's edition file added to the library, kept in the home's
`sources/` with its manifest, so that every later build (a rebuild too) adds it again."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from crlookup.builder.manifest import apply_options
from crlookup.builder.pipeline import build, open_library
from crlookup.core.errors import LibraryError
from crlookup.core.i18n import _
from crlookup.core.paths import home
from crlookup.library.database import write_atomic

if TYPE_CHECKING:
    from pathlib import Path

    from crlookup.builder.stage import Progress
    from crlookup.library.reader import EditionInfo


# The largest real edition (the shipped sources, measured): its file, 1.7 MB (the CR of
# 2022-11-18), and its entries, 3,318 rules and 739 glossary terms (the CR of 2026-08-07).
# An edition file several times larger than that is refused unless --any-size says it is meant
# (issue 53: a file of 400,000 rules took 4 minutes and 1.5 GB to add, and every search of it
# after was slow); an archive of editions is bounded edition by edition.
MAX_EDITION_BYTES = 8 * 1024 * 1024
MAX_ENTRIES = 12_000  # rules and glossary terms of one edition
# An edition looks partial beside the complete one nearest it in date (of its document and
# language) with less than these shares of its sections and rules, or of its glossary terms
# (the real editions' smallest share of the one before: 0.996 of the rules; one glossary, the
# official 2013-02-01's, is cut short: 30 terms of 470)
SHARE, GLOSSARY_SHARE = 0.9, 0.5


def ingest(
    path: str | Path,
    options: dict,
    root: str | Path | None = None,
    progress: Progress | None = None,
    replacing: str | None = None,
    any_size: bool = False,
):
    """Add a user's edition file to the library; returns the new editions' `EditionInfo`s.

    The file is parsed first: a file that is not a readable CR raises `SourceError`, one far
    larger than any real edition (MAX_EDITION_BYTES, MAX_ENTRIES: unless `any_size`)
    `BadInput`, and nothing on disk changes. Then it is copied into `sources/`, recorded in
    the user manifest, and the library is rebuilt; if that fails, the copy and the record are
    undone. `replacing`: an edition the user added before (a partial one, `update` replacing
    it with the whole text), whose file and record go in the same step.
    """
    from pathlib import Path

    from crlookup import sources
    from crlookup.core.errors import BadInput
    from crlookup.core.model import check_given

    check_given(options.get("id"), options.get("lang"))
    root = Path(root or home())
    path = Path(path)
    data = read_source(path)
    fmt = sources.detect(path, data)
    if fmt != "archive" and len(data) > MAX_EDITION_BYTES and not any_size:
        raise BadInput(
            f"{path}: expected an edition's file, found {len(data) / 2**20:.1f} MB, over "
            f"{MAX_EDITION_BYTES >> 20} MB (the largest edition's is 1.7 MB): give --any-size "
            "to add it anyway"
        )
    found = sources.read(path, data, fmt)
    if options.get("id") and len(found) > 1:
        raise LibraryError(
            f"{path.name} holds {len(found)} editions ({', '.join(e.id for e in found)}); "
            "--id can name only one"
        )
    parsed = [apply_options(e, options) for e in found]
    for e in parsed:
        entries = len(e.rules) + len(e.glossary)
        if entries > MAX_ENTRIES and not any_size:
            raise BadInput(
                f"{path}: expected an edition, found {entries:,} rules and glossary terms in "
                f"{e.id}, over {MAX_ENTRIES:,} (the largest edition has 4,057): give "
                "--any-size to add it anyway"
            )
    lib = open_library(str(root), progress)
    try:
        known = {e.id: e.source for e in lib.editions(None)}
    finally:
        lib.close()
    for e in parsed:
        if e.id in known and e.id != replacing:
            raise LibraryError(
                f"{path.name}: edition {e.id} is already in the library (from {known[e.id]}); "
                "give it another --id to add it anyway"
            )
    folder = root / "sources"
    folder.mkdir(parents=True, exist_ok=True)
    name = path.name
    stem, suffix = path.stem, path.suffix
    n = 1
    while (folder / name).exists():
        n += 1
        name = f"{stem}-{n}{suffix}"
    manifest = folder / "manifest.json"
    before = manifest.read_text(encoding="utf-8") if manifest.exists() else None
    items = json.loads(before)["sources"] if before else []
    replaced = [i for i in items if replacing and i.get("editions") == [replacing]]
    items = [i for i in items if i not in replaced]
    items.append(
        {"file": name, "format": fmt, "editions": [e.id for e in parsed], "options": options}
    )
    write_atomic(folder / name, data)
    write_atomic(manifest, json.dumps({"sources": items}, indent=2).encode("utf-8"))
    try:
        build(str(root), progress=progress)
    except BaseException:
        if before is None:
            manifest.unlink(missing_ok=True)
        else:
            write_atomic(manifest, before.encode("utf-8"))
        (folder / name).unlink(missing_ok=True)
        raise
    for item in replaced:
        (folder / item["file"]).unlink(missing_ok=True)
    lib = open_library(str(root))
    try:
        return [e for e in lib.editions(None) if e.id in {p.id for p in parsed}]
    finally:
        lib.close()


MAX_SOURCE = 100 * 1024 * 1024  # an edition's file: a rules text is 1 MB, the archive 9 MB


def read_source(path: Path) -> bytes:
    """The bytes of an edition file a user gives; BadInput for what is no regular file (a
    FIFO would be waited on for ever, /dev/zero read until memory runs out) or is larger than
    any edition could be."""
    import stat

    from crlookup.core.errors import BadInput

    try:  # opened without waiting (a FIFO's open waits for a writer), then looked at
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise BadInput(f"{path}: expected a file, found no regular file")
            data = f.read(MAX_SOURCE + 1)
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror or e}") from None
    if len(data) > MAX_SOURCE:
        raise BadInput(f"{path}: expected an edition's file, found over {MAX_SOURCE >> 20} MB")
    return data


def looks_partial(edition: EditionInfo, editions: list[EditionInfo]) -> str | None:
    """Why an edition a user added looks partial (one line), or None: its own text says so
    (its contents list sections its body lacks), or it has far fewer sections, rules or
    glossary terms (SHARE, GLOSSARY_SHARE) than the complete edition nearest it in date, of
    its document and language (the one before it, else the one after)."""
    if edition.partial:
        said = next((n for n in edition.notes if n.endswith(": partial")), "")
        return _("{edition} is partial: {why}").format(
            edition=edition.id, why=said.removesuffix(": partial") or _("its source says so")
        )
    same = [
        e
        for e in editions
        if (e.document, e.lang) == (edition.document, edition.lang)
        and not e.partial
        and e.id != edition.id
    ]
    before = [e for e in same if e.date <= edition.date]
    near = before[-1] if before else (same[0] if same else None)
    if near is None:
        return None
    mine, theirs = edition.counts, near.counts
    kinds = ["sections", "rules"] + (["glossary"] if theirs.get("glossary") else [])
    short = [
        k
        for k in kinds
        if mine.get(k, 0) < (GLOSSARY_SHARE if k == "glossary" else SHARE) * theirs.get(k, 0)
    ]
    if not short:
        return None
    names = {"sections": _("sections"), "rules": _("rules"), "glossary": _("glossary terms")}
    return _("{edition} looks partial: {mine}, where {other} has {theirs}").format(
        edition=edition.id,
        mine=", ".join(f"{mine.get(k, 0):,} {names[k]}" for k in kinds),
        other=near.id,
        theirs=", ".join(f"{theirs.get(k, 0):,}" for k in kinds),
    )
