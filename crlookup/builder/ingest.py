"""`crlookup ingest`: a user's edition file added to the library, kept in the home's
`sources/` with its manifest, so that every later build (a rebuild too) adds it again."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from crlookup.builder.manifest import apply_options
from crlookup.builder.pipeline import build, open_library
from crlookup.core.errors import LibraryError
from crlookup.core.paths import home
from crlookup.library.database import write_atomic

if TYPE_CHECKING:
    from pathlib import Path

    from crlookup.builder.stage import Progress


def ingest(
    path: str | Path,
    options: dict,
    root: str | Path | None = None,
    progress: Progress | None = None,
    replacing: str | None = None,
):
    """Add a user's edition file to the library; returns the new editions' `EditionInfo`s.

    The file is parsed first: a file that is not a readable CR raises `SourceError` and
    nothing on disk changes. Then it is copied into `sources/`, recorded in the user
    manifest, and the library is rebuilt; if that fails, the copy and the record are undone.
    `replacing`: an edition the user added before (a partial one, `update` replacing it with
    the whole text), whose file and record go in the same step.
    """
    from pathlib import Path

    from crlookup import sources
    from crlookup.core.model import check_given

    check_given(options.get("id"), options.get("lang"))
    root = Path(root or home())
    path = Path(path)
    data = read_source(path)
    fmt = sources.detect(path, data)
    found = sources.read(path, data, fmt)
    if options.get("id") and len(found) > 1:
        raise LibraryError(
            f"{path.name} holds {len(found)} editions ({', '.join(e.id for e in found)}); "
            "--id can name only one"
        )
    parsed = [apply_options(e, options) for e in found]
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
