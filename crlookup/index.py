"""The full-text index: schema, analyzers per language, building it, and querying it.

One whoosh index holds the rules, subrules, examples and glossary entries of every edition.
An entry whose content is the same in several editions (most rules, from one update to the
next) is one document listing those editions, which keeps the index small and its build fast.

Analysis per language: English is stemmed (Porter2); Russian is stemmed (Snowball) with ё
folded to е; Polish is lowercased and accent-folded. Stop words stay in the index, so a
phrase ("damage to a player") only matches those words in that order; they are dropped from
plain keyword queries instead.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import NamedTuple

LANGS = ("en", "ru", "pl")
VOCABULARY = "vocabulary.json"  # surface words and counts, for spelling correction
STOP_WORDS = "stopwords.json"  # the language's stop words, analysed
_WORD = re.compile(r"[^\W\d_]{2,}", re.U)
_NUMBER_IN_QUERY = re.compile(r"(?<![\w.])(\d{3}(?:\.\d+[a-z]*)?)\.?(?![\w.])")
_OPERATORS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}


class QueryError(ValueError):
    """A query that cannot be searched (the message says why, in one line)."""


def _whoosh():
    """Import whoosh, leaving out the ~35 ms of urllib/http/ssl/email it never uses.

    whoosh 2.7.4's compat module runs `from urllib.request import urlretrieve` on import, and
    nothing in whoosh calls it. While whoosh is imported, `urllib.request` is a stand-in whose
    `urlretrieve` imports the real one on first call; the stand-in is removed right after,
    so any other `import urllib.request` gets the real module.
    """
    if "whoosh.compat" not in sys.modules and "urllib.request" not in sys.modules:
        import types

        def urlretrieve(*args, **kwargs):
            import importlib

            return importlib.import_module("urllib.request").urlretrieve(*args, **kwargs)

        stand_in = types.ModuleType("urllib.request")
        stand_in.urlretrieve = urlretrieve
        sys.modules["urllib.request"] = stand_in
        try:
            import whoosh.compat  # noqa: F401
        finally:
            if sys.modules.get("urllib.request") is stand_in:
                del sys.modules["urllib.request"]
    import whoosh.index

    return whoosh


def fold(text: str) -> str:
    """Case- and ё-insensitive form used wherever words are matched."""
    return text.casefold().replace("ё", "е")


def analyzer(lang: str):
    _whoosh()
    from whoosh.analysis import CharsetFilter, LowercaseFilter, RegexTokenizer, StemFilter
    from whoosh.support.charset import accent_map

    tokens = RegexTokenizer() | LowercaseFilter()
    if lang == "en":
        from whoosh.lang.porter2 import stem

        return tokens | StemFilter(stemfn=stem, cachesize=50000)
    if lang == "ru":
        return tokens | CharsetFilter({ord("ё"): "е"}) | StemFilter(lang="ru", cachesize=50000)
    return tokens | CharsetFilter(accent_map)


def schema(lang: str):
    """One index per language: its text fields use that language's analyzer."""
    _whoosh()
    from whoosh.fields import ID, KEYWORD, STORED, TEXT, Schema

    a = analyzer(lang)
    return Schema(
        key=ID(unique=True),
        kind=ID(stored=True),
        number=ID(stored=True),
        editions=KEYWORD(stored=True),
        title=TEXT(analyzer=a, field_boost=2.0, stored=True),
        body=TEXT(analyzer=a),
        text=STORED,
    )


# --------------------------------------------------------------------------- building


def build(directory: str, editions, progress=None) -> int:
    """Index the editions into `directory` (one index per language); returns the documents."""
    whoosh = _whoosh()
    import hashlib

    docs: dict[str, dict[str, dict]] = {lang: {} for lang in LANGS}
    vocab: dict[str, dict[str, int]] = {lang: {} for lang in LANGS}
    for e in sorted(editions, key=lambda e: e.date):
        lang = e.lang if e.lang in LANGS else "en"
        items = [
            (r.kind, r.number, r.title, "\n".join([r.text, *r.examples])) for r in e.rules
        ] + [("glossary", "", g.term, g.definition) for g in e.glossary]
        for kind, number, title, body in items:
            if not (title or body):
                continue
            key = hashlib.sha1(f"{kind}\x00{number}\x00{title}\x00{body}".encode()).hexdigest()
            doc = docs[lang].get(key)
            if doc is None:
                docs[lang][key] = {
                    "key": key, "kind": kind, "number": number, "editions": [e.id],
                    "title": title, "body": body,
                }
                words = vocab[lang]
                for w in _WORD.findall(f"{title} {body}"):
                    w = fold(w)
                    words[w] = words.get(w, 0) + 1
            else:
                doc["editions"].append(e.id)
    total = sum(len(d) for d in docs.values())
    done = 0
    for lang in LANGS:
        folder = os.path.join(directory, lang)
        os.makedirs(folder, exist_ok=True)
        ix = whoosh.index.create_in(folder, schema(lang))
        many = len(docs[lang]) > 2000
        writer = ix.writer(limitmb=128, procs=2, multisegment=True) if many else ix.writer()
        for doc in docs[lang].values():
            doc["editions"] = " ".join(doc["editions"])
            doc["text"] = doc["body"]
            writer.add_document(**doc)
            done += 1
            if progress and done % 1000 == 0:
                progress(done, total, "indexing")
        writer.commit()
        with open(os.path.join(folder, VOCABULARY), "w", encoding="utf-8") as f:
            json.dump(vocab[lang], f, ensure_ascii=False)
        with open(os.path.join(folder, STOP_WORDS), "w", encoding="utf-8") as f:
            json.dump(sorted(_stop_words(lang)), f, ensure_ascii=False)
    if progress:
        progress(total, total, "indexing")
    return total


# --------------------------------------------------------------------------- searching


class Hit(NamedTuple):
    number: str
    kind: str
    lang: str
    edition: str  # the newest edition in scope that has this text
    editions: tuple[str, ...]  # every edition with exactly this text
    title: str
    text: str
    snippet: str  # with matched words between \x01 and \x02
    score: float


class Results(NamedTuple):
    hits: list[Hit]
    query: str  # the query as searched (after spelling corrections)
    corrections: list[tuple[str, str]]  # (typed, searched instead)
    relaxed: bool  # after the entries with every word (if any), entries with some of them
    complete: int  # how many of the hits have every word


def detect_lang(query: str) -> str:
    """The query's language from its script: Cyrillic is Russian, anything else English."""
    return "ru" if re.search(r"[\u0400-\u04ff]", query) else "en"


class Index:
    """The open index of one language, for many queries in one process."""

    def __init__(self, directory: str, lang: str):
        whoosh = _whoosh()
        if lang not in LANGS:
            raise QueryError(f"no index for language {lang!r} (there are: {', '.join(LANGS)})")
        self.lang = lang
        self.folder = os.path.join(directory, lang)
        self.ix = whoosh.index.open_dir(self.folder)
        self.searcher = self.ix.searcher()
        self._vocab: dict[str, int] | None = None
        self._stop: frozenset[str] | None = None

    def close(self) -> None:
        self.searcher.close()

    @property
    def stop_words(self) -> frozenset[str]:
        """The language's stop words as index terms (analysed once, when the index was built)."""
        if self._stop is None:
            with open(os.path.join(self.folder, STOP_WORDS), encoding="utf-8") as f:
                self._stop = frozenset(json.load(f))
        return self._stop

    @property
    def vocabulary(self) -> dict[str, int]:
        """Every word of the indexed text (folded) with how often it occurs."""
        if self._vocab is None:
            with open(os.path.join(self.folder, VOCABULARY), encoding="utf-8") as f:
                self._vocab = json.load(f)
        return self._vocab

    def correct(self, query: str) -> tuple[str, list[tuple[str, str]]]:
        """Replace words the editions never use by the nearest word they do (rapidfuzz)."""
        corrections = []
        reader = self.searcher.reader()
        analyze = self.ix.schema["body"].analyzer

        def known(word: str) -> bool:
            terms = [t.text for t in analyze(word)]
            return all(reader.doc_frequency("body", t) or reader.doc_frequency("title", t) for t in terms)

        def fix(m: re.Match) -> str:
            word = m.group(0)
            folded = fold(word)
            if word in _OPERATORS or len(folded) < 4 or known(word):
                return word
            vocab = self.vocabulary
            if folded in vocab:
                return word
            from rapidfuzz import fuzz, process

            choices = process.extract(
                folded, vocab.keys(), scorer=fuzz.ratio, limit=5, score_cutoff=75
            )
            if not choices:
                return word
            best = max(choices, key=lambda c: (c[1], vocab[c[0]]))[0]
            corrections.append((word, best))
            return best

        return _WORD.sub(fix, query), corrections

    def search(
        self,
        query: str,
        *,
        editions: tuple[str, ...] | None = None,
        prefix: str | None = None,
        limit: int = 10,
    ) -> Results:
        """Ranked hits for `query` among entries in `editions` (all if None).

        `prefix` keeps entries at or below a number ("702", "702.19"); a number written in
        the query does the same. Words the editions never use are corrected. When fewer than
        `limit` entries have every word, entries with some of them follow (`relaxed`).
        """
        from whoosh import qparser
        from whoosh import query as q

        numbers = _NUMBER_IN_QUERY.findall(query)
        text = _NUMBER_IN_QUERY.sub(" ", query).strip()
        if numbers and not prefix:
            prefix = numbers[0]
        text, corrections = self.correct(text) if text else ("", [])
        filters = []
        if editions:
            filters.append(q.Or([q.Term("editions", e) for e in editions]))
        if prefix:
            filters.append(q.Or([q.Term("number", prefix), q.Prefix("number", prefix + ".")]))
        scope = q.And(filters) if filters else None

        def run(parsed):
            # Require: documents matching both, scored by the words alone; cheaper than a
            # filter, which whoosh turns into the set of every document in scope
            wanted = q.Require(parsed, scope) if scope else parsed
            return self.searcher.search(wanted, limit=limit, terms=True)

        relaxed = False
        if text:
            found = list(run(self._parse(text, qparser.AndGroup)))
            complete = len(found)
            if len(found) < limit and len(_WORD.findall(text)) > 1:
                # fewer than asked for have every word: follow them with those having some
                more = run(self._parse(text, qparser.OrGroup.factory(0.9)))
                seen = {h.docnum for h in found}
                extra = [h for h in more if h.docnum not in seen][: limit - len(found)]
                relaxed = bool(extra)
                found += extra
        else:
            if not prefix:
                return Results([], query, corrections, False, 0)
            found = list(self.searcher.search(scope, limit=limit, sortedby="number"))
            complete = len(found)
        hits = [self._hit(h, editions) for h in found]
        return Results(hits, text or query, corrections, relaxed, complete)

    def _parse(self, text: str, group):
        from whoosh import qparser
        from whoosh import query as q

        parser = qparser.MultifieldParser(["title", "body"], self.ix.schema, group=group)
        parser.remove_plugin_class(qparser.FieldsPlugin)  # "word:" is text, not a field name
        parser.remove_plugin_class(qparser.BoostPlugin)
        try:
            parsed = parser.parse(text)
        except Exception as e:  # whoosh raises assorted errors on odd syntax
            raise QueryError(f"cannot read the query {text!r}: {e}") from None
        stop = self.stop_words

        def drop_stop_words(node):
            if isinstance(node, q.Term) and node.text in stop:
                return q.NullQuery
            return node

        cleaned = parsed.accept(drop_stop_words).normalize()
        return parsed if cleaned is q.NullQuery else cleaned

    def _hit(self, hit, scope: tuple[str, ...] | None) -> Hit:
        from whoosh import highlight

        stored = hit.fields()
        all_editions = tuple(stored["editions"].split())
        in_scope = [e for e in all_editions if not scope or e in scope] or list(all_editions)
        text = stored.get("text", "")
        snippet = ""
        if hit.results.has_matched_terms() and hit.matched_terms():
            hl = highlight.Highlighter(
                fragmenter=highlight.ContextFragmenter(maxchars=300, surround=70),
                formatter=_Markers(),
            )
            snippet = hl.highlight_hit(hit, "body", text=text, top=2) or ""
        if not snippet:
            snippet = text[:200] + ("…" if len(text) > 200 else "")
        return Hit(
            number=stored.get("number", ""),
            kind=stored.get("kind", ""),
            lang=self.lang,
            edition=in_scope[-1],
            editions=all_editions,
            title=stored.get("title", ""),
            text=text,
            snippet=snippet,
            score=round(hit.score or 0.0, 3),
        )


class _Markers:
    """A whoosh highlight formatter that marks matched words with \\x01...\\x02."""

    def __call__(self, text, fragments):
        return self.format(fragments)

    def format(self, fragments, replace=False):
        out = []
        for fragment in sorted(fragments, key=lambda f: f.startchar):
            text, pos, parts = fragment.text, fragment.startchar, []
            for t in fragment.matches:
                if t.startchar < pos:
                    continue
                parts.append(text[pos : t.startchar])
                parts.append("\x01" + text[t.startchar : t.endchar] + "\x02")
                pos = t.endchar
            parts.append(text[pos : fragment.endchar])
            piece = "".join(parts).strip()
            if fragment.startchar > 0:
                piece = "…" + piece
            if fragment.endchar < len(text.rstrip()):
                piece += "…"
            out.append(piece)
        return " ".join(out).replace("……", "… …")


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
