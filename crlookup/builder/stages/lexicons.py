"""The lexicons stage: what `ask` reads an edition with, kept beside the library for the
newest complete edition of each language questions are read in (crlookup.features.ask.prepare
makes them): its lexicon (ask/), its entry vectors (vectors/: from the shipped vectors, and
what they lack embedded here, once) and the vocabulary its cards are linked to rules with
(card_rules/). An older edition's are made in memory when it is asked about; a question never
writes the library.
"""

from __future__ import annotations

import contextlib
import os

from crlookup.builder.stage import Build, Finding, Finish
from crlookup.core.errors import LibraryDamaged
from crlookup.features.ask.lexicon import LEXICON_DIR, LEXICON_VERSION
from crlookup.features.ask.prepare import LANGS, THROUGH_ENGLISH, VECTOR_DIR, VECTOR_VERSION
from crlookup.features.card_rules import VOCABULARY_DIR, VOCABULARY_VERSION
from crlookup.library.database import DB, connect, keep, kept


def newest(path: str) -> dict[str, str]:
    """Each language's newest edition, a complete one if there is one (what `ask` answers
    from by default); for a language whose questions are read through English
    (`THROUGH_ENGLISH`: zh), the English original of its newest edition, under "en:zh"."""
    with contextlib.closing(connect(os.path.join(path, DB))) as db:
        found = dict(
            db.execute(
                "SELECT lang, id FROM editions WHERE document = 'cr' ORDER BY partial = 0, date, id"
            ).fetchall()
        )
        for lang in THROUGH_ENGLISH:
            if lang in found:
                twin = db.execute(
                    "SELECT id FROM editions WHERE document = 'cr' AND lang = 'en' AND date = "
                    "(SELECT date FROM editions WHERE id = ?) ORDER BY id != ?, id LIMIT 1",
                    (found[lang], "en" + found[lang][len(lang) :]),
                ).fetchone()
                if twin:
                    found[f"en:{lang}"] = twin[0]
        return found


def _read(newest: dict[str, str]) -> list[str]:
    """The editions `ask` reads questions against, of `newest`."""
    return sorted({e for lang, e in newest.items() if lang in LANGS or lang.startswith("en:")})


def keep_for_ask(library_path: str, editions: list[str]) -> None:
    """Make and keep what `ask` reads `editions` with: what a process of the build runs."""
    import numpy as np

    from crlookup.features.ask.embedding import embed, shipped_vectors
    from crlookup.features.ask.prepare import build_lexicon, entry_vectors
    from crlookup.features.card_rules import read_vocabulary
    from crlookup.library.database import open_db
    from crlookup.library.reader import Library

    lib = Library(library_path, open_db(library_path))
    try:
        for edition in editions:
            keep(library_path, LEXICON_DIR, edition, build_lexicon(lib, edition).data())
            vectors, _missing = entry_vectors(lib, edition, shipped_vectors(), embed)
            data = {"version": VECTOR_VERSION, "vectors": vectors.astype(np.float16)}
            keep(library_path, VECTOR_DIR, edition, data)
            vocab = read_vocabulary(lib, edition)
            keep(library_path, VOCABULARY_DIR, edition, (VOCABULARY_VERSION, tuple(vocab)))
    finally:
        lib.close()


class Lexicons:
    """The stage: in the pool, for the newest edition of each language of `LANGS` that does
    not have them yet."""

    name = "lexicons"
    reads: tuple[str, ...] = (DB,)
    writes: tuple[str, ...] = (LEXICON_DIR, VECTOR_DIR, VOCABULARY_DIR)

    def run(self, build: Build) -> Finish:
        wanted = [
            edition
            for edition in _read(newest(str(build.path)))
            if not os.path.exists(os.path.join(build.path, LEXICON_DIR, edition + ".pickle"))
        ]
        if not wanted:
            return lambda: None
        return build.submit(keep_for_ask, str(build.path), wanted)

    def check(self, path: str) -> list[Finding]:
        return _kept(path, newest(path))


STAGE = Lexicons()


def _kept(path: str, newest: dict[str, str]) -> list[Finding]:
    """What the build kept for `ask`: each language's newest edition's lexicon and vectors."""
    out = []
    for edition in _read(newest):
        for folder, version in ((LEXICON_DIR, LEXICON_VERSION), (VECTOR_DIR, VECTOR_VERSION)):
            file = os.path.join(path, folder, edition + ".pickle")
            try:
                data = kept(path, folder, edition)
            except LibraryDamaged as e:  # not as the build left it
                out.append(Finding(f"{folder}/{edition}", file, e.detail))
                continue
            if data is None:
                what = "missing" if not os.path.exists(file) else "unreadable"
            elif not isinstance(data, dict) or data.get("version") != version:
                what = "of another version"
            else:
                what = ""
            out.append(Finding(f"{folder}/{edition}", file, what))
    return out
