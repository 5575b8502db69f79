"""Cards in the library: their database, finding a card by its name, searching their text.

The build (crlookup.builder.stages.cards) turns the card data (crlookup.sources.cards, rulings)
into one SQLite file beside the rules, `cards.sqlite`: each card as JSON, the names it is found
by, its rulings, and FTS5 indexes of its name, type line and every face's Oracle text, and of
the rulings' text. (Cards are indexed with SQLite's own FTS5 rather than whoosh: a
whoosh index of the 34,565 cards took 5.8 s to build on two processes, FTS5 0.3 s; the
rules keep whoosh for its Russian and Polish analysis.)

Names are matched as a judge types them (crlookup.core.names.name_key): case, accents,
apostrophes and punctuation aside ("jace the mind sculptor", "lim dul"). A card
is found by its whole name, a face's name ("Stomp", "Insectile Aberration"), or the part of
its name before the comma ("Teferi", for the Teferis); then by words that begin its name's
words ("teferi hero"); then by rapidfuzz, for misspellings ("Giant Spidr"). (The cards a
question names, in running text, are read by crlookup.features.ask.named.)
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.errors import MAX_WORDS, SEARCH_SECONDS, QueryError
from crlookup.core.i18n import _
from crlookup.core.model import Card, Face, Ruling, Source
from crlookup.core.names import check_name, name_key

if TYPE_CHECKING:
    from collections.abc import Iterable

# what a name key names, best first: a card's whole name, a face's, the part before a comma
NAME, FACE, SHORT = 0, 1, 2
_FUZZY_CUTOFF = 85  # rapidfuzz ratio: "giant spidr" scores 96, "serra angle" 91
_FUZZY_MARGIN = 5  # the best is taken alone when it leads the next card by this much
SHORTLIST = 100  # names nearest by ratio, and names with its words, that WRatio scores
WORDS = 12  # of a name's words, at most this many looked for in the names (the longest)


def _keys_of(name: str, faces: list[str] | None = None) -> set[tuple[str, int]]:
    """The (key, kind) pairs a card is found by: its name, its faces' (`faces`, else those
    of "A // B": A and B), the part before a comma."""
    faces = faces if faces is not None else name.split(" // ")
    out = {(name_key(name), NAME)}
    for face in faces:
        out.add((name_key(face), FACE))
    for part in {name, *faces}:
        head, comma, _rest = part.partition(", ")
        if comma and " // " not in head and len(name_key(head)) >= 3:
            out.add((name_key(head), SHORT))
    best: dict[str, int] = {}
    for key, kind in out:
        if key and kind < best.get(key, 9):
            best[key] = kind
    return set(best.items())


# --------------------------------------------------------------------------- building


def _loads(text: str) -> Card:
    name, layout, faces, keywords, identity, melds, alchemy, source = json.loads(text)
    return Card(
        name,
        layout,
        tuple(Face(*f) for f in faces),
        tuple(keywords),
        tuple(identity),
        melds,
        alchemy,
        Source(*source) if source else None,
    )


# --------------------------------------------------------------------------- reading


class Candidate(NamedTuple):
    """A card a name may mean, with how well it fits (100: exactly)."""

    name: str
    type_line: str
    mana_cost: str
    score: float

    def to_dict(self) -> dict:
        return self._asdict()


class Found(NamedTuple):
    """What a name found: one card (`card`), or several that fit as well (`candidates`, best
    first), or none (`card` None, `candidates` the nearest names). `how`: "exact", "face",
    "partial", "fuzzy", "ambiguous" or "none"."""

    query: str
    card: Card | None
    how: str
    candidates: list[Candidate]

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "match": self.how,
            "candidates": [c.to_dict() for c in self.candidates],
        }


class RulingHit(NamedTuple):
    """The ruling of a card that a search matched: its date, the face it was given under ("" for
    the whole card) and its snippet (the matched words between \x01, \x02)."""

    date: str
    face: str
    snippet: str

    def to_dict(self) -> dict:
        return {
            "date": self.date,
            "face": self.face or None,
            "snippet": _unmarked(self.snippet),
        }


class CardHit(NamedTuple):
    """A card found by `Cards.search`: its snippet has the matched words between \x01, \x02;
    with rulings searched, `ruling` is the best of its rulings that matched (if one did)."""

    name: str
    type_line: str
    mana_cost: str
    snippet: str
    score: float
    ruling: RulingHit | None = None

    def to_dict(self, rulings: bool = False) -> dict:
        """The hit; with `rulings` (rulings were searched), its `ruling` too (null if none)."""
        out = {
            "name": self.name,
            "type_line": self.type_line,
            "mana_cost": self.mana_cost,
            "snippet": _unmarked(self.snippet),
            "score": self.score,
        }
        if rulings:
            out["ruling"] = self.ruling.to_dict() if self.ruling else None
        return out


def _unmarked(snippet: str) -> str:
    return snippet.replace("\x01", "").replace("\x02", "")


class CardResults(NamedTuple):
    hits: list[CardHit]
    query: str  # as searched, after spelling corrections
    corrections: list[tuple[str, str]]
    relaxed: bool  # no card has every word: cards with some of them
    rulings: bool = False  # the rulings' text was searched too
    typed: str = ""  # the query as typed

    def to_dict(self) -> dict:
        """`search --cards --json`."""
        return {
            "query": self.typed,
            "searched": self.query,
            "corrections": [list(c) for c in self.corrections],
            "relaxed": self.relaxed,
            "hits": [h.to_dict(self.rulings) for h in self.hits],
        }


class Cards:
    """The card database of a built library, open for reading."""

    def __init__(self, path: str, db: sqlite3.Connection | None = None):
        """The card database at `path` (or `db`, the connection to it already open)."""
        from crlookup.library.database import connect

        self.db = db if db is not None else connect(path)
        self._keys: list[str] | None = None
        self._vocabulary: dict[str, int] | None = None
        self._with_rulings: dict[str, int] | None = None

    def close(self) -> None:
        self.db.close()

    def __len__(self) -> int:
        return int(self.db.execute("SELECT value FROM meta WHERE key = 'count'").fetchone()[0])

    def status(self, part: str) -> dict | None:
        """What the build recorded of the card file's companion `part` ("faces", "rulings"):
        {"file", counts...}, {"file", "error"} if it could not be read, None if there was none."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (part,)).fetchone()
        return json.loads(row[0]) if row else None

    @property
    def rulings_unavailable(self) -> str | None:
        """Why the library has no rulings (one line naming the rulings file), or None."""
        status = self.status("rulings")
        if status is None:
            return _("this library was built without a rulings file")
        return status.get("error")

    def rulings_until(self) -> str | None:
        """The date of the newest ruling the library has ("2018-10-05"), None for none."""
        row = self.db.execute("SELECT max(date) FROM rulings").fetchone()
        return row[0] if row and row[0] else None

    def rulings(self, card: Card) -> list[Ruling]:
        """The card's rulings (every face's), newest first; for two of one date, in the order
        of the rulings file."""
        rows = self.db.execute(
            "SELECT r.face, r.date, t.text FROM rulings r JOIN cards c ON c.id = r.card "
            "JOIN ruling_texts t ON t.id = r.text WHERE c.name = ? ORDER BY r.date DESC, r.rowid",
            (card.name,),
        )
        return [Ruling(face, day, text) for face, day, text in rows]

    @property
    def keys(self) -> list[str]:
        """Every name key, sorted: what a misspelt name is matched against when no name with
        its first letter is near enough (read once, on first use)."""
        if self._keys is None:
            blob = self.db.execute("SELECT value FROM meta WHERE key = 'keys'").fetchone()[0]
            self._keys = blob.split("\n")
        return self._keys

    def naming(self, keys: set[str]) -> set[str]:
        """Those of `keys` that name a card (one indexed look-up per 500)."""
        wanted = list(keys)
        found: set[str] = set()
        for at in range(0, len(wanted), 500):
            chunk = wanted[at : at + 500]
            rows = self.db.execute(
                f"SELECT DISTINCT key FROM names WHERE key IN ({','.join('?' * len(chunk))})", chunk
            )
            found |= {r[0] for r in rows}
        return found

    def card(self, name: str) -> Card | None:
        """The card of this exact name ("Fire // Ice"), if there is one."""
        row = self.db.execute("SELECT data FROM cards WHERE name = ?", (name,)).fetchone()
        return _loads(row[0]) if row else None

    def all(self) -> Iterable[Card]:
        for (data,) in self.db.execute("SELECT data FROM cards ORDER BY id"):
            yield _loads(data)

    def by_key(self, key: str) -> list[tuple[int, int, bool]]:
        """(card id, kind, alchemy) of the cards a name key names, the best kind first."""
        return self.db.execute(
            "SELECT n.card, n.kind, c.alchemy FROM names n JOIN cards c ON c.id = n.card "
            "WHERE n.key = ? ORDER BY n.kind, c.alchemy, c.name",
            (key,),
        ).fetchall()

    def get_many(self, ids: Iterable[int]) -> dict[int, Card]:
        """The cards of these ids, by id."""
        ids = list(dict.fromkeys(ids))
        rows = self.db.execute(
            f"SELECT id, data FROM cards WHERE id IN ({','.join('?' * len(ids))})", ids
        )
        return {i: _loads(d) for i, d in rows}

    def get(self, card_id: int) -> Card:
        return self.get_many([card_id])[card_id]

    def find(self, query: str) -> Found:
        """The card a name means (see the module docstring for how names are matched)."""
        query = check_name(query)
        key = name_key(query)
        named = self.named(query)
        if named is not None:
            return named
        ids = self._prefixed(key)
        if ids:
            paper = self._paper(ids)
            if len(paper) == 1:
                return Found(query, self.get(paper[0]), "partial", [])
            return Found(query, None, "ambiguous", self._candidates(paper or ids, 90.0))
        return self._fuzzy(query, key)

    def named(self, query: str) -> Found | None:
        """The card (or cards) a name names as it is: a card's whole name, a face's or a
        short name ("Teferi"); None if it names none (then `find` tries prefixes and
        spellings)."""
        query = check_name(query)
        rows = self.by_key(name_key(query))
        if not rows:
            return None
        best = rows[0][1]
        ids = [i for i, kind, _a in rows if kind == best]
        paper = [i for i, kind, alchemy in rows if kind == best and not alchemy]
        if len(paper) == 1 or len(ids) == 1:
            how = ("exact", "face", "partial")[best]
            return Found(query, self.get((paper or ids)[0]), how, [])
        return Found(query, None, "ambiguous", self._candidates(ids, 100.0))

    def _paper(self, ids: list[int]) -> list[int]:
        rows = self.db.execute(
            f"SELECT id FROM cards WHERE alchemy = 0 AND id IN ({','.join('?' * len(ids))})", ids
        )
        kept = {r[0] for r in rows}
        return [i for i in ids if i in kept]

    def _prefixed(self, key: str, limit: int = 200) -> list[int]:
        """Cards whose name's words begin with the key's words, in order ("teferi hero"),
        shortest names first: names that begin so (an indexed range), else any such names."""
        rows = self.db.execute(
            "SELECT DISTINCT key FROM names WHERE key >= ? AND key < ? AND kind < ?",
            (key, key + "\U0010ffff", SHORT),
        ).fetchall()
        words = key.split()
        pattern = re.compile(r"(?: .*)? ".join(re.escape(w) + r"\S*" for w in words) + r"(?: .*)?$")
        found = sorted((k for (k,) in rows if pattern.match(k)), key=lambda k: (len(k), k))
        if not found:
            found = self._prefixed_anywhere(words)
        ids: list[int] = []
        for k in found[:limit]:
            ids += [i for i, _kind, _a in self.by_key(k) if i not in ids]
        return ids

    def _prefixed_anywhere(self, words: list[str]) -> list[str]:
        """Name keys with words that begin with `words` anywhere ("hero dominaria"), found
        with the FTS index of names, shortest first."""
        expression = " AND ".join(f'name : "{w}"*' for w in dict.fromkeys(words))
        try:
            rows = self.db.execute(
                "SELECT c.name FROM card_text t JOIN cards c ON c.id = t.rowid "
                "WHERE card_text MATCH ? LIMIT 500",
                (expression,),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        pattern = re.compile(r"(?:^|.* )" + r"(?: .*)? ".join(re.escape(w) + r"\S*" for w in words))
        keys = {key for (name,) in rows for key, _kind in _keys_of(name) if pattern.match(key)}
        return sorted(keys, key=lambda k: (len(k), k))

    def _fuzzy(self, query: str, key: str) -> Found:
        """A misspelt name: the card whose whole name is nearest (rapidfuzz's ratio), if it
        leads the others; else the nearest names, for the user to choose from."""

        def cards_of(found) -> tuple[list[int], dict[int, float]]:
            ids, scores = [], {}
            for k, s, _i in found:
                for i, _kind, _a in self.by_key(k):
                    if i not in scores:
                        ids.append(i)
                        scores[i] = round(s, 1)
            return self._paper(ids) or ids, scores

        near = self.near(key, _FUZZY_CUTOFF, 8)
        if near:
            ids, scores = cards_of(near)
            rivals = [i for i in ids[1:] if scores[i] > scores[ids[0]] - _FUZZY_MARGIN]
            if not rivals:
                return Found(query, self.get(ids[0]), "fuzzy", [])
            return Found(query, None, "ambiguous", self._candidates([ids[0], *rivals], scores))
        # nothing that close: the nearest names, partial matches included, to choose from
        ids, scores = cards_of(self.nearest(key, 5))
        return Found(query, None, "none", self._candidates(ids[:3], scores))

    def nearest(self, key: str, limit: int) -> list[tuple]:
        """The name keys nearest to `key`, partial matches included (rapidfuzz's WRatio), best
        first, as rapidfuzz's (key, score, position) triples: scored among a shortlist, the SHORTLIST nearest by
        ratio (one pass over every key: a few ms) and the names with one of its words (the FTS
        index of names). WRatio over all 38,476 keys took 0.5 to 1.2 s for a long name, in one
        C call that holds the GIL, and every other request of the worker waited (issue 53);
        over the shortlist it takes a few ms, and finds the card meant more often (the short
        names a long one holds no longer come first: scripts/eval_card_names.py)."""
        from rapidfuzz import fuzz, process

        shortlist = dict.fromkeys(
            k for k, _s, _i in process.extract(key, self.keys, scorer=fuzz.ratio, limit=SHORTLIST)
        )
        shortlist.update(dict.fromkeys(self._with_words(key)))
        found = process.extract(key, list(shortlist), scorer=fuzz.WRatio, limit=limit)
        return sorted(found, key=lambda f: (-f[1], f[0]))

    def _with_words(self, key: str) -> list[str]:
        """The name keys of the SHORTLIST cards whose names have the most of the key's words
        (of three letters or more; the longest WORDS of them), by the FTS index of names."""
        words = sorted({w for w in key.split() if len(w) >= 3}, key=lambda w: (-len(w), w))
        if not words:
            return []
        expression = " OR ".join(f'name : "{w}"' for w in words[:WORDS])
        try:
            rows = self.db.execute(
                "SELECT c.name FROM card_text t JOIN cards c ON c.id = t.rowid "
                "WHERE card_text MATCH ? ORDER BY bm25(card_text, 1.0, 0.0, 0.0) LIMIT ?",
                (expression, SHORTLIST),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [k for (name,) in rows for k, _kind in _keys_of(name)]

    def near(self, key: str, cutoff: float, limit: int) -> list[tuple]:
        """The name keys nearest to `key` (rapidfuzz's ratio, at least `cutoff`), best first:
        among those with its first letter (an indexed range; a typo seldom changes it), else
        among all."""
        from rapidfuzz import fuzz, process

        same_start = [
            k
            for (k,) in self.db.execute(
                "SELECT DISTINCT key FROM names WHERE key >= ? AND key < ?",
                (key[0], chr(ord(key[0]) + 1)),
            )
        ]
        return process.extract(
            key, same_start, scorer=fuzz.ratio, limit=limit, score_cutoff=cutoff
        ) or process.extract(key, self.keys, scorer=fuzz.ratio, limit=limit, score_cutoff=cutoff)

    def _candidates(self, ids: list[int], scores: float | dict[int, float]) -> list[Candidate]:
        """The cards as candidates, in the order given, each with its score (or `scores`)."""
        cards = self.get_many(ids)
        return [
            Candidate(
                cards[i].name,
                cards[i].faces[0].type_line,
                cards[i].faces[0].mana_cost,
                scores[i] if isinstance(scores, dict) else scores,
            )
            for i in ids
        ]

    # searching ---------------------------------------------------------------

    @property
    def vocabulary(self) -> dict[str, int]:
        """Every word of the cards' names, type lines and text (folded), with how often it
        occurs."""
        if self._vocabulary is None:
            blob = self.db.execute("SELECT value FROM meta WHERE key = 'vocabulary'").fetchone()[0]
            self._vocabulary = json.loads(blob)
        return self._vocabulary

    @property
    def with_rulings_vocabulary(self) -> dict[str, int]:
        """`vocabulary` and the words of the rulings' text, with how often each occurs."""
        if self._with_rulings is None:
            row = self.db.execute(
                "SELECT value FROM meta WHERE key = 'ruling_vocabulary'"
            ).fetchone()
            words = dict(self.vocabulary)
            for w, n in json.loads(row[0] if row else "{}").items():
                words[w] = words.get(w, 0) + n
            self._with_rulings = words
        return self._with_rulings

    def search(self, query: str, limit: int = 10, rulings: bool = False) -> CardResults:
        """Cards whose name, type line or text has the query's words (all of them, else some),
        best first; phrases in quotes, AND, OR and NOT as in rules search; misspelled words
        are corrected to the nearest word the cards use. With `rulings`, a card one of whose
        rulings has them is found too, with that ruling."""
        typed = query
        if len(query.split()) > MAX_WORDS:
            raise QueryError(f"a query of at most {MAX_WORDS} words, please")
        if rulings and self.rulings_unavailable:
            raise QueryError(
                _("rulings unavailable: {reason}").format(reason=self.rulings_unavailable)
            )
        from crlookup.library.database import deadline

        query, corrections = self._correct(query, rulings)
        expression = _fts(query, every_word=True)
        with deadline(self.db, SEARCH_SECONDS):
            hits = self._run(expression, limit, rulings)
            relaxed = False
            if not hits and '"' not in query and not set(query.split()) & {"AND", "OR", "NOT"}:
                looser = _fts(query, every_word=False)
                if looser != expression:
                    hits, relaxed = self._run(looser, limit, rulings), True
        return CardResults(hits, query, corrections, relaxed and bool(hits), rulings, typed)

    def _run(self, expression: str, limit: int, rulings: bool = False) -> list[CardHit]:
        """The cards the FTS5 expression finds in their text (with `rulings`, also in their
        rulings' text: each card once, with its best ruling), best first, paper cards first."""
        if not expression:
            return []
        try:
            rows = self.db.execute(
                "SELECT c.id, c.name, t.types, c.data, c.alchemy, "
                "snippet(card_text, 2, char(1), char(2), '…', 24), "
                "bm25(card_text, 0.2, 1.0, 1.0) AS rank "
                "FROM card_text t JOIN cards c ON c.id = t.rowid WHERE card_text MATCH ? "
                "ORDER BY c.alchemy, rank LIMIT ?",
                (expression, limit),
            ).fetchall()
            found = self._ruling_hits(expression, limit) if rulings else {}
        except sqlite3.OperationalError as e:
            if str(e) == "interrupted":  # (at the search's deadline)
                from crlookup.library.index import timed_out

                raise timed_out(SEARCH_SECONDS, expression, cards=True) from None
            raise QueryError(f"cannot search the cards for {expression!r}: {e}") from None
        hits: dict[int, tuple[int, float, CardHit]] = {}
        for card_id, name, types, data, alchemy, snippet, rank in rows:
            card = _loads(data)
            ruling = found.pop(card_id, None)
            score = max(-rank, ruling[0] if ruling else -rank)
            hit = CardHit(
                name,
                types,
                card.faces[0].mana_cost,
                snippet or "",
                round(score, 3),
                ruling[1] if ruling else None,
            )
            hits[card_id] = (alchemy, -score, hit)
        if found:
            cards = self.get_many(found)
            for card_id, (score, best) in found.items():
                card = cards[card_id]
                types = " // ".join(f.type_line for f in card.faces if f.type_line)
                hit = CardHit(card.name, types, card.faces[0].mana_cost, "", round(score, 3), best)
                hits[card_id] = (int(card.alchemy), -score, hit)
        ranked = sorted(hits.values(), key=lambda h: (h[0], h[1]))
        return [hit for _alchemy, _score, hit in ranked[:limit]]

    def _ruling_hits(self, expression: str, limit: int) -> dict[int, tuple[float, RulingHit]]:
        """{card id: (score, its best ruling)} of the rulings the expression finds, best first
        (the best `limit` cards)."""
        rows = self.db.execute(
            "SELECT r.card, r.date, r.face, "
            "snippet(ruling_text, 0, char(1), char(2), '…', 24), bm25(ruling_text) AS rank "
            "FROM ruling_text t JOIN rulings r ON r.text = t.rowid WHERE ruling_text MATCH ? "
            "ORDER BY rank LIMIT ?",
            (expression, limit * 20),
        )
        out: dict[int, tuple[float, RulingHit]] = {}
        for card_id, day, face, snippet, rank in rows:
            if card_id not in out:
                out[card_id] = (-rank, RulingHit(day, face, snippet or ""))
                if len(out) >= limit:
                    break
        return out

    def _correct(self, query: str, rulings: bool = False) -> tuple[str, list[tuple[str, str]]]:
        corrections = []
        vocabulary = self.with_rulings_vocabulary if rulings else self.vocabulary

        def fix(m: re.Match) -> str:
            word = m.group(0)
            folded = word.casefold()
            if word in ("AND", "OR", "NOT") or len(folded) < 4 or folded in vocabulary:
                return word
            from crlookup.core.spelling import nearest

            best = nearest(folded, vocabulary, 80)
            if best is None:
                return word
            corrections.append((word, best))
            return best

        return re.sub(r"(?<![\w*])[^\W\d_]+(?![\w*])", fix, query), corrections


_QUERY_TOKEN = re.compile(r'"[^"]*"|\(|\)|[^\s()"]+')


def _fts(query: str, every_word: bool) -> str:
    """The query as an FTS5 expression: words quoted (so punctuation is no syntax), phrases
    kept, AND/OR/NOT kept, "word*" a prefix; plain words joined by AND, or by OR."""
    parts: list[str] = []
    for token in _QUERY_TOKEN.findall(query):
        if token in ("AND", "OR", "NOT", "(", ")"):
            parts.append(token)
            continue
        if token.startswith('"'):
            words = re.findall(r"\w+", token)
            if words:
                parts.append('"' + " ".join(words) + '"')
            continue
        prefix = token.endswith("*")
        for word in re.findall(r"\w+", token):
            parts.append(f'"{word}"' + ("*" if prefix else ""))
    while parts and parts[0] in ("AND", "OR", "NOT", ")"):
        parts.pop(0)
    while parts and parts[-1] in ("AND", "OR", "NOT", "("):
        parts.pop()
    if not every_word:
        return " OR ".join(p for p in parts if p not in ("AND", "OR", "NOT", "(", ")"))
    return " ".join(parts)  # terms side by side: all of them (FTS5's implicit AND)


def open_cards(library_path: str, db: sqlite3.Connection | None = None) -> Cards | None:
    """The card database of a library, if it has one (`db`: the connection to it, if open)."""
    from crlookup.library.database import CARDS_DB

    path = os.path.join(library_path, CARDS_DB)
    return Cards(path, db) if os.path.exists(path) else None
