"""The index stage: the new texts of a build's editions added to the full-text index of their
language (crlookup.library.index reads it).

An entry already indexed for another edition (same kind, number, title and text) is not
written again: the edition only joins its list of documents, kept beside the index.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from array import array

from crlookup.builder.stage import Build, Finding, Finish, nothing
from crlookup.core import documents
from crlookup.core.errors import LibraryDamaged, LibraryError
from crlookup.core.i18n import N_
from crlookup.core.model import fold
from crlookup.library.database import DB, INDEX_DIR, connect, write_atomic
from crlookup.library.index import (
    _WORD,
    EDITION_DOCS,
    KEYS,
    LANGS,
    STOP_WORDS,
    VOCABULARY,
    _load,
    _load_json,
    _whoosh,
    analyzer,
    schema,
    scopes_of,
)


def add(directory: str, editions, progress=None) -> int:
    """The index stage of a build: index the editions into `directory` (one index per
    language), next to what it already holds; returns the documents written.

    An entry already indexed for another edition (same kind, number, title and text) is not
    written again: the edition only joins its list (`EDITION_DOCS`, kept beside the index).
    New documents go into a new segment, so the numbers of the documents already there stay
    as they are; a library built from scratch writes all its documents at once.
    """
    import hashlib

    by_lang: dict[str, list] = {lang: [] for lang in LANGS}
    for e in sorted(editions, key=lambda e: e.date):
        if e.document != "cr" and e.lang not in LANGS:
            continue  # a tournament document in a language without an index (zh): not indexed
        by_lang[e.lang if e.lang in LANGS else "en"].append(e)
    written = 0
    work = {}
    for lang, found in by_lang.items():
        folder = os.path.join(directory, lang)
        keys, members = _load(folder, KEYS, {}), _load(folder, EDITION_DOCS, {})
        new: dict[str, dict] = {}
        joined: dict[str, list] = {}
        for e in found:
            items = [
                (
                    r.kind,
                    r.number,
                    r.title,
                    "\n".join([r.text, *r.examples, *_parts(r)]),
                    documents.names(r.title) if e.document != "cr" else (r.title,),
                )
                for r in e.rules
            ] + [
                ("glossary", "", g.term, g.definition, g.headwords or (g.term,)) for g in e.glossary
            ]
            own = joined[e.id] = []
            for kind, number, title, body, names in items:
                if not (title or body):
                    continue
                key = hashlib.sha1(f"{kind}\x00{number}\x00{title}\x00{body}".encode()).hexdigest()
                own.append(key)
                if key not in keys and key not in new:
                    new[key] = {
                        "key": key,
                        "kind": kind,
                        "number": number,
                        "under": ",".join(scopes_of(number)),
                        "title": title,
                        "body": body,
                        # what the entry is named by (crlookup.library.index: named first)
                        "name": ",".join(fold(n).replace(",", " ") for n in names if n),
                    }
        work[lang] = (folder, keys, members, new, joined)
    total = sum(len(w[3]) for w in work.values())
    for lang, (folder, keys, members, new, joined) in work.items():
        if not os.path.exists(folder) or new:
            written = _write(folder, lang, keys, new, written, total, progress)
        for edition, own in joined.items():
            members[edition] = array("I", sorted({keys[k] for k in own}))
        _save(folder, KEYS, keys)
        _save(folder, EDITION_DOCS, dict(sorted(members.items())))  # ids sort by date
        _save_json(folder, STOP_WORDS, sorted(_stop_words(lang)))
    if progress:
        progress(total, total, "indexing")
    return written


def _parts(rule) -> list[str]:
    """A tournament entry's parts as indexed: each with its name ("Penalty: Warning")."""
    return [f"{name.capitalize()}: {text}" for name, text in rule.parts]


def _write(folder: str, lang: str, keys: dict, new: dict, done: int, total: int, progress) -> int:
    """Write the new documents into the index in `folder` (created if missing), record their
    numbers in `keys`, and count their words into the index's vocabulary."""
    whoosh = _whoosh()
    fresh = not os.path.exists(folder)
    if fresh:
        os.makedirs(folder)
        ix = whoosh.index.create_in(folder, schema(lang))
    else:
        ix = whoosh.index.open_dir(folder)
    before = ix.doc_count_all()
    many = fresh and len(new) > 2000
    writer = _parallel_writer(ix) if many else ix.writer()
    vocab = _load_json(folder, VOCABULARY, {})
    try:
        for doc in new.values():
            doc["text"] = doc["body"]
            if doc["title"] and doc["title"] != doc["body"]:
                doc["body"] = doc["title"] + "\n" + doc["body"]
            writer.add_document(**doc)
            for w in _WORD.findall(fold(doc["body"])):
                vocab[w] = vocab.get(w, 0) + 1
            done += 1
            if progress and done % 1000 == 0:
                progress(done, total, "indexing")
        # an index added to keeps its segments (and so its document numbers) as they are
        if fresh:
            writer.commit()
        else:
            writer.commit(merge=False)
    except BaseException:  # a full disk, an interrupt: no writer left waiting on its queue
        from crlookup.builder import processes

        processes.stop(getattr(writer, "tasks", ()))
        with contextlib.suppress(Exception):
            writer.cancel()
        raise
    failed = [t for t in getattr(writer, "tasks", ()) if t.exitcode]
    if failed:  # a writing process gave up (quietly: _parallel_writer) and its segment is lost
        import errno
        import shutil

        if shutil.disk_usage(folder).free < 64 * 1024 * 1024:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), folder)
        raise LibraryError(f"{folder}: {len(failed)} of the processes writing the index failed")
    with ix.searcher() as searcher:
        reader = searcher.reader()
        # numbered afresh when written from scratch (the writing processes interleave them)
        for docnum in range(0 if fresh else before, reader.doc_count_all()):
            keys[reader.stored_fields(docnum)["key"]] = docnum
    _save_json(folder, VOCABULARY, vocab)
    return done


def _parallel_writer(ix):
    """A writer of two processes that fail quietly: whoosh's would each print a traceback
    (on a full disk, say), and its commit would go on without their segments. `_write`
    checks how they ended instead, and says it once."""
    from whoosh import multiproc

    task = multiproc.SubWriterTask
    if not getattr(task, "quiet", False):
        run = task.run

        def quiet(self):
            try:
                run(self)
            except BaseException:  # noqa: BLE001 (the parent reports it: _write)
                sys.exit(1)

        task.run, task.quiet = quiet, True
    return ix.writer(limitmb=128, procs=2, multisegment=True)


def _save(folder: str, name: str, data) -> None:
    """Written whole, then renamed into place: never into a file another library shares."""
    import pickle

    write_atomic(os.path.join(folder, name), pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))


def _save_json(folder: str, name: str, data) -> None:
    write_atomic(os.path.join(folder, name), json.dumps(data, ensure_ascii=False).encode("utf-8"))


def _stop_words(lang: str) -> frozenset[str]:
    """Stop words of `lang`, as the language's analyzer turns them into index terms."""
    from whoosh.analysis import STOP_WORDS
    from whoosh.lang import NoStopWords, stopwords_for_language

    try:
        words = set(stopwords_for_language(lang))
    except NoStopWords:  # Polish: none in whoosh
        words = set()
    if lang == "en":
        words |= set(STOP_WORDS)
    a = analyzer(lang)
    return frozenset(t.text for w in words for t in a(w))


def _index(path: str, lang: str) -> Finding:
    """The index of one language: opened, every term of it and a few stored texts read, and
    the files beside it loaded."""
    from crlookup.library import index

    folder = os.path.join(path, INDEX_DIR, lang)
    part = f"{INDEX_DIR}/{lang}"
    try:
        ix = index.Index(os.path.join(path, INDEX_DIR), lang)
        try:
            ix.check()
            with open(os.path.join(folder, index.VOCABULARY), encoding="utf-8") as f:
                json.load(f)
            ix.stop_words  # noqa: B018 (loads the stop words file)
            for name in (index.EDITION_DOCS, index.KEYS):
                if not isinstance(index._load(folder, name, None), dict):
                    return Finding(part, folder, f"{name} missing")
        finally:
            ix.close()
    except LibraryDamaged as e:
        return Finding(part, folder, e.detail)
    except Exception as e:  # noqa: BLE001 (a damaged file beside it fails in whatever way it is read)
        return Finding(part, folder, f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)
    return Finding(part, folder)


def languages(path: str) -> list[str]:
    """The languages of the library at `path` that have an index."""
    with contextlib.closing(connect(os.path.join(path, DB))) as db:
        found = {r[0] for r in db.execute("SELECT DISTINCT lang FROM editions")}
    return sorted(found & set(LANGS))


class Indexing:
    """The stage: the build's new editions added to the index of their language (here, not in
    the pool: whoosh writes a large index with processes of its own)."""

    name = "index"
    reads: tuple[str, ...] = (DB,)
    writes: tuple[str, ...] = tuple(f"{INDEX_DIR}/{lang}" for lang in LANGS)

    def run(self, build: Build) -> Finish:
        build.step(N_("building the index"))
        add(str(build.path / INDEX_DIR), build.editions, build.share(35, 30))
        return nothing

    def check(self, path: str) -> list[Finding]:
        return [_index(path, lang) for lang in languages(path)]


STAGE = Indexing()
