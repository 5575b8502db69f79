"""What `ask` reads an edition with, made from the edition (nothing here writes: the build's
lexicons stage keeps them beside the library for the editions `ask` answers from by default,
crlookup.builder.stages.lexicons; another edition's are made in memory when it is asked about):

- its lexicon (lexicon.py): its rules and glossary read into stemmed words and terms;
- its entry vectors (`vectors`, for semantic.py): each answerable entry, with its title and
  examples, as the shipped embedding model reads it. Embedding is slow (about 18 entries a
  second on two cores), so the vectors of every entry of the shipped editions ship with
  crlookup (data/entry-vectors.npz, made by scripts/embed_entries.py, keyed by a hash of the
  passage embedded: embedding.py); only the entries of a source of the user's own are embedded,
  by the build, and an edition outside both has no closeness in meaning for the passages nobody
  embedded.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Mapping

from crlookup.core.model import Rule, fold
from crlookup.core.numbers import KEYWORD_SECTIONS, rule_of
from crlookup.features.ask.analyzer import Analyzer, _references
from crlookup.features.ask.embedding import DIM, passage_key, shipped_vectors
from crlookup.features.ask.lexicon import (
    LEXICON_DIR,
    LEXICON_VERSION,
    MAX_TERM_WORDS,
    Lexicon,
    Term,
    _thesaurus_stamp,
    thesaurus,
)
from crlookup.library.database import kept
from crlookup.library.reader import Library

LANGS = ("en", "ru")  # the languages questions are read in
#: The languages whose questions are read through the English rules (crlookup.bilingual
#: .read_in_english): answered from the English original of their newest edition.
THROUGH_ENGLISH = ("zh",)
#: the editions data/entry-vectors.npz holds the passages of (scripts/embed_entries.py): the
#: newest English and Russian ones, which `ask` answers from, and the others shipped on their
#: own before the archive of every official edition came; an edition outside them is embedded
#: where its texts are new, once, the first time `ask` reads it
EMBEDDED = (
    "en-2009-02-01-flat",
    "en-2009-07-11",
    "en-2010-07-16-webpage",
    "en-2013-11-01-po",
    "en-2014-02-01",
    "en-2019-01-25",
    "en-2022-11-18",
    "en-2024-07-30",
    "en-2026-04-17",  # the English original of the newest Chinese edition (ask reads through it)
    "en-2026-08-07",
    "ru-2019-01-25",
)

# how much each part of an entry counts when a question word occurs in it
TEXT, EXAMPLE, RULE_TITLE, SECTION_TITLE, RULE_TEXT = 1.0, 0.3, 0.6, 0.25, 0.2
TEMPLATE_SHARED = 3  # keyword boilerplate: text said of 3 or more keywords (`template`)
# steps, phases and variants are named without these words too ("upkeep", "Two-Headed Giant")
GENERIC_WORDS = {"en": ("step", "phase", "variant", "variants"), "ru": ("шаг", "фаза", "вариант")}
ALIAS_MENTIONS = 60  # "upkeep" names the upkeep step; "end" (of "End Step") names too much

_SEE = re.compile(r"(See|Смотрите|Zobacz)\b.*", re.DOTALL)  # "See rule 702.2." ends a definition


def build_lexicon(lib: Library, edition: str) -> Lexicon:
    """Read every entry and glossary term of `edition` into a lexicon."""
    lang = lib.edition(edition).lang
    an = Analyzer(lang)
    entries = list(lib.entries(edition))
    numbers = [r.number for r in entries]
    position = {n: i for i, n in enumerate(numbers)}
    kinds = [r.kind for r in entries]
    titles: dict[str, str] = {r.number: r.title for r in entries if r.title}

    # the entries a number covers: itself and its subtree, contiguous in document order
    depth = {"chapter": 0, "section": 1, "rule": 2, "subrule": 3}
    ends = [len(entries)] * len(entries)
    stack: list[int] = []
    for i, r in enumerate(entries):
        while stack and depth[kinds[stack[-1]]] >= depth[r.kind]:
            ends[stack.pop()] = i
        stack.append(i)

    answerable = [
        r.kind in ("rule", "subrule") and bool(r.text) and r.text != r.title for r in entries
    ]
    sequences: list[list[str]] = []
    referring: list[int] = []  # how many words of each entry's text are rule numbers it cites
    postings: dict[str, dict[int, float]] = {}
    lengths = array("f")
    vocab: dict[str, int] = {}
    parents = array("i")
    for i, r in enumerate(entries):
        head = r.number.split(".")[0]
        rule = rule_of(r.number) if r.kind == "subrule" else ""
        parents.append(position.get(rule, -1))
        text_words, text_refs = _references(an, r.text)
        example_words, example_refs = _references(an, " ".join(r.examples))
        referring.append(text_refs)
        for w in (*an.words(r.title), *text_words, *example_words):
            vocab[w] = vocab.get(w, 0) + 1
        seq = [an.stem(w) for w in text_words if w not in an.stop]
        sequences.append(seq)
        if not answerable[i]:
            lengths.append(0.0)
            continue
        weights: dict[str, float] = {}
        examples = [an.stem(w) for w in example_words if w not in an.stop]
        parts = [
            (seq, TEXT),
            (examples, EXAMPLE),
            (an.stems(titles.get(rule, "")), RULE_TITLE),
            (
                sequences[position[rule]] if rule in position and not titles.get(rule) else [],
                RULE_TEXT,
            ),
            (an.stems(titles.get(head, "")), SECTION_TITLE),
        ]
        for stems, weight in parts:
            for s in stems:
                weights[s] = weights.get(s, 0.0) + weight
        parent_refs = referring[position[rule]] if rule in position and not titles.get(rule) else 0
        lengths.append(
            sum(weights.values())
            + TEXT * text_refs
            + EXAMPLE * example_refs
            + RULE_TEXT * parent_refs
        )
        for s, weight in weights.items():
            postings.setdefault(s, {})[i] = weight
    for g in lib.glossary(edition):
        for w in an.words(g.term):
            vocab[w] = vocab.get(w, 0) + 1

    # terms: keyword titles, other titled rules, section titles, glossary headwords; names
    # with the same stems are one term when they are one word inflected ("Counters",
    # "Counter"), two when one is derived from the other ("Command", "Commander")
    found: dict[tuple, dict] = {}  # (stems, words, a keyword action?) -> term
    families: dict[tuple, list[tuple]] = {}  # stems -> the keys of found with them

    english_analyzer = Analyzer("en") if lang != "en" else None

    def add(
        name: str, kind: str, number: str, targets: list[str], meaning: str = "", english: str = ""
    ) -> None:
        stems = tuple(an.stems(name))[:MAX_TERM_WORDS]
        homes = [(position[t], ends[position[t]]) for t in targets if t in position]
        if not stems or (not homes and kind != "glossary"):
            return
        words = an.words(name)
        keys = families.setdefault(stems, [])
        fits = [key for key in keys if kind == "glossary" or key[2] == (kind == "701")]
        key = next(  # the same words; else the same name inflected; a keyword action apart
            (key for key in fits if key[1] == tuple(words)),
            next(
                (key for key in fits if an.inflected(words, key[1])),
                (stems, tuple(words), kind == "701"),
            ),
        )
        if key not in keys:
            keys.append(key)
        term = found.setdefault(
            key,
            {"name": name, "kind": kind, "number": number, "homes": [], "meaning": (), "names": []},
        )
        if fold(name) not in term["names"]:
            term["names"].append(fold(name))
        if english and english_analyzer and not term.get("english"):
            term["english"] = english
        if meaning and not term["meaning"]:  # the glossary's words for it
            term["meaning"] = tuple(
                dict.fromkeys(
                    s for s in an.stems(_SEE.sub("", meaning)) if not s.isdigit() and s not in stems
                )
            )
        if term["kind"] == "glossary" and kind != "glossary":  # the rule names it better
            term.update(name=name, kind=kind, number=number)
        term["homes"] += [h for h in homes if h not in term["homes"]]

    for r in entries:
        head = r.number.split(".")[0]
        if r.kind == "rule" and r.title:
            add(r.title, head if head in KEYWORD_SECTIONS[:2] else head[:1], r.number, [r.number])
        elif r.kind == "section" and r.title and not r.number.endswith("00"):
            add(r.title, head[:1], r.number, [r.number])
    for g in lib.glossary(edition):
        targets = [t for ref in g.refs for t in ref.targets]
        number = targets[0] if targets else ""
        for name in g.headwords or (g.term,):
            add(name, "glossary", number, targets, g.definition, g.english)
        if g.english and lang != "en":  # players name keywords in English too ("trample")
            add(g.english, "glossary", number, targets, g.definition, g.english)

    # steps, phases and variants are also named without that word ("upkeep", "cleanup",
    # "Two-Headed Giant"), where what is left names little else
    generic = {an.stem(w) for w in GENERIC_WORDS.get(lang, ())}
    taken = {key[0] for key in found}
    for (stems, words, action), t in list(found.items()):
        short = tuple(s for s in stems if s not in generic)
        if t["kind"] in "589" and short and short != stems and short not in taken:
            found[(short, words, action)] = {**t, "alias": True}

    def indexed(keys) -> dict[tuple[str, ...], tuple[int, ...]]:
        index: dict[tuple[str, ...], tuple[int, ...]] = {}
        for k, (stems, _words, _action) in enumerate(keys):
            index[stems] = (*index.get(stems, ()), k)
        return index

    index = indexed(found)
    mentions: list[set[int]] = [set() for _ in found]
    for i, seq in enumerate(sequences):
        if not answerable[i]:
            continue
        for n in range(1, MAX_TERM_WORDS + 1):
            for j in range(len(seq) - n + 1):
                for k in index.get(tuple(seq[j : j + n]), ()):
                    mentions[k].add(i)
    kept = [
        k
        for k, t in enumerate(found.values())
        if not t.get("alias") or len(mentions[k]) <= ALIAS_MENTIONS
    ]
    keep = set(kept)
    found = {key: t for k, (key, t) in enumerate(found.items()) if k in keep}
    mentions = [mentions[k] for k in kept]
    index = indexed(found)
    terms = [
        Term(
            t["name"],
            t["kind"],
            t["number"],
            stems,
            tuple(t["homes"]),
            len(mentions[k]),
            tuple(t["names"]),
            t.get("english", ""),
            tuple(english_analyzer.stems(t["english"]))
            if english_analyzer and t.get("english")  # an English name only beside one
            else (),
        )
        for k, ((stems, _words, _action), t) in enumerate(found.items())
    ]
    # keyword boilerplate: a subrule that says of its keyword what others say of theirs
    # ("Multiple instances of flanking are redundant", "The wither rules function no matter
    # what zone ...") rarely decides a question
    shapes: dict[str, list[int]] = {}
    for i, r in enumerate(entries):
        rule = rule_of(r.number)
        name = titles.get(rule, "") if r.kind == "subrule" else ""
        if name and rule.split(".")[0] in KEYWORD_SECTIONS[:2]:
            shape = re.sub(re.escape(name), "X", fold(r.text), flags=re.IGNORECASE)
            shapes.setdefault(shape, []).append(i)
    template = array("b", [0] * len(entries))
    for same in shapes.values():
        if len(same) >= TEMPLATE_SHARED:
            for i in same:
                template[i] = 1
    cites = [
        tuple(sorted({position[t] for ref in r.refs for t in ref.targets if t in position}))
        for r in entries
    ]
    # positions: two bytes each, unless an edition (a user's) has more entries than that counts
    at = "H" if len(entries) <= 0xFFFF else "I"
    cited_by = array(at, [0] * len(entries))
    for cited in cites:
        for target in cited:
            cited_by[target] += 1
    packed = {
        s: (array(at, list(docs)), array("f", list(docs.values()))) for s, docs in postings.items()
    }
    n = sum(answerable)
    return Lexicon(
        {
            "version": LEXICON_VERSION,
            "edition": edition,
            "lang": lang,
            "numbers": numbers,
            "kinds": kinds,
            "titles": titles,
            "parents": parents,
            "lengths": lengths,
            "average": sum(lengths) / max(n, 1),
            "count": n,
            "postings": packed,
            "vocab": vocab,
            "terms": terms,
            "term_index": index,
            "cites": cites,
            "meanings": [t.get("meaning", ()) for t in found.values()],
            "template": template,
            "mention_sets": [array(at, sorted(m)) for m in mentions],
            "sequences": [
                " " + " ".join(seq) + " " if answerable[i] else ""
                for i, seq in enumerate(sequences)
            ],
            "cited_by": cited_by,
            "phrases": (_thesaurus_stamp(lang), thesaurus(an)),
        }
    )


def lexicon(lib: Library, edition: str) -> Lexicon:
    """The edition's lexicon, once per open library: the one the build kept beside the library,
    else read from the edition now, in memory (a question never writes the library)."""

    def load() -> Lexicon:
        data = kept(lib.path, LEXICON_DIR, edition)
        if isinstance(data, dict) and data.get("version") == LEXICON_VERSION:
            return Lexicon(data)
        return build_lexicon(lib, edition)

    return lib.memo(("lexicon", edition), load)


# --------------------------------------------------------------------------- entry vectors

VECTOR_DIR = "vectors"  # beside the database: <library>/vectors/<edition>.pickle
VECTOR_VERSION = 1


def passage(titles: dict[str, str], rule: Rule) -> str:
    """What an entry is embedded as: its title (else its rule's, else its section's), its text
    and its examples. scripts/embed_entries.py embeds the same text for the shipped vectors."""
    title = (
        rule.title or titles.get(rule_of(rule.number)) or titles.get(rule.number.split(".")[0], "")
    )
    body = " ".join((rule.text, *rule.examples)).strip()
    return f"{title}. {body}" if title and title != rule.text else body


def passages(lib: Library, edition: str) -> list[str]:
    """Each entry's passage in document order ("" for an entry that is never an answer: a
    chapter, a section, a bare heading)."""
    entries = list(lib.entries(edition))
    titles = {r.number: r.title for r in entries if r.title}
    return [
        passage(titles, r) if r.kind in ("rule", "subrule") and r.text and r.text != r.title else ""
        for r in entries
    ]


#: The most passages the build embeds for one edition (about 11 s): an update's changed rules;
#: an edition of another era lacks more, and keeps no closeness in meaning for them.
MAX_EMBED = 200


def entry_vectors(lib: Library, edition: str, shipped: Mapping, embed=None):
    """Every entry's vector in document order (zeros for an entry that is never an answer),
    from `shipped` (passage key -> vector) where it has the passage; the others are made with
    `embed(texts)` if given and they are `MAX_EMBED` at most, else left zero (no closeness in
    meaning for them). Returns the
    vectors (float32) and how many answerable entries have none."""
    import numpy as np

    texts = passages(lib, edition)
    vectors = np.zeros((len(texts), DIM), dtype=np.float32)
    missing = []
    for i, text in enumerate(texts):
        if text:
            found = shipped.get(passage_key(text))
            if found is None:
                missing.append(i)
            else:
                vectors[i] = found
    if missing and embed is not None and len(missing) <= MAX_EMBED:
        vectors[missing] = embed([texts[i] for i in missing])
        missing = []
    return vectors, len(missing)


def vectors(lib: Library, edition: str):
    """The edition's entry vectors, one float32 row per entry in document order (zeros for
    entries that are never answers), once per open library: as the build kept them beside the
    library, else from the shipped vectors by passage (`entry_vectors`), in memory."""

    def load():
        import numpy as np

        data = kept(lib.path, VECTOR_DIR, edition)
        if isinstance(data, dict) and data.get("version") == VECTOR_VERSION:
            return np.asarray(data["vectors"], dtype=np.float32)
        shipped = lib.memo(("ask", "shipped vectors"), shipped_vectors)
        return entry_vectors(lib, edition, shipped)[0]

    return lib.memo(("vectors", edition), load)
