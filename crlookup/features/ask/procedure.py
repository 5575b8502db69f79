"""Tournament questions: which document governs a question, and its entries that answer it.

A judge's question about procedure or penalties is decided by the tournament documents, not
by the Comprehensive Rules:

- a penalty or an infraction at Competitive REL (a PPTQ, an RCQ, a Grand Prix) -> the
  Infraction Procedure Guide (IPG);
- the same at Regular REL ("at FNM", "at the prerelease", "casual") -> Judging at Regular REL
  (JAR);
- the mechanics of a tournament (decks and decklists, time, tiebreakers, communication,
  conduct, formats, drafting) -> the Magic Tournament Rules (MTR).

`route` reads the question for those cues: words a rules question does not use ("penalty",
"decklist", "tiebreaker", "judge", "match"...). A question with too little of them stays with
the CR, so that game questions are answered as before. `rank` ranks the documents' entries
(their newest English editions), the chosen document's first, by their words: BM25 over each
entry's title, text, parts and examples, with the title weighted, after the judges'
abbreviations are spelled out ("GRV" is a Game Rule Violation, "HCE" a Hidden Card Error); and
by their closeness in meaning to the question. (explain.entries says why each was chosen.)
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from crlookup.core.i18n import _

if TYPE_CHECKING:
    from crlookup.library.reader import Library


class Route(NamedTuple):
    """The document a question is answered from, and why."""

    document: str
    why: str


def _cues(*words: str) -> re.Pattern:
    return re.compile(r"\b(?:" + "|".join(words) + r")\b", re.IGNORECASE)


#: Regular REL named: the JAR decides (whatever else the question says)
REGULAR = _cues(
    r"regular\s+rel", r"(?<=at\s)regular", r"regular\s+(?:event|tournament)s?", r"fnm", r"friday\s+night(?:\s+magic)?", r"pre-?releases?",
    r"casual(?:\s+event)?", r"store\s+(?:event|championship)s?", r"commander\s+night",
    r"locals?", r"league\s+night", r"kitchen\s+table",
)  # fmt: skip
#: Competitive or Professional REL named
COMPETITIVE = _cues(
    r"competitive(?:\s+rel)?", r"comp", r"pptq", r"rcq", r"gp", r"grand\s+prix", r"pro\s+tour",
    r"professional(?:\s+rel)?", r"day\s+2", r"regional\s+championship", r"(?:mythic|magic)spire",
    r"world\s+championship", r"scg", r"(?:scg|ncg|the|an)\s+open", r"ptq", r"mcq", r"rptq",
)  # fmt: skip
#: Penalties and infractions: the IPG's words (the JAR's at Regular REL)
PENALTY = _cues(
    r"penalt(?:y|ies)", r"infractions?", r"warnings?", r"game\s+loss(?:es)?", r"match\s+loss",
    r"disqualif\w*", r"dq", r"gl", r"ml", r"grv", r"hce", r"lec", r"cpv", r"usc", r"mt",
    r"d/?l(?:p)?", r"ftmgs", r"gpe", r"upgraded?", r"downgraded?", r"missed\s+triggers?",
    r"cheating", r"cheaters?", r"fix(?:es)?", r"remed(?:y|ies)", r"what(?:'s|\s+is)\s+the\s+fix",
    r"deck\s+problem", r"decklist\s+problem", r"hidden\s+card\s+error",
    r"looking\s+at\s+extra\s+cards", r"game\s+rule\s+violation", r"slow\s+play",
    r"unsporting", r"stall(?:ing)?", r"bribery", r"wager(?:ing)?", r"aggressive\s+behaviou?r",
    r"theft", r"outside\s+assistance", r"marked\s+cards?", r"insufficient\s+shuffling",
    r"tardiness", r"tardy",
)  # fmt: skip
#: Words only a tournament question uses: one is enough
STRONG = _cues(
    r"judges?", r"head\s+judge", r"top\s+(?:4|8|four|eight)", r"spindown", r"decklists?",
    r"tiebreakers?", r"omw%?", r"swiss", r"prizes?", r"proxy|proxies", r"byes?",
    r"time\s+(?:got|gets|is|was|has\s+been)\s+called", r"called\s+time", r"drop\s+from",
    r"deck\s+checks?", r"scorekeeper", r"pairings?", r"standings", r"substitute\s+cards?",
    r"checklist\s+cards?", r"opaque\s+sleeves?", r"tournaments?",
)  # fmt: skip
#: The mechanics of a tournament: the MTR's words
TOURNAMENT = _cues(
    r"tournaments?", r"events?", r"judges?", r"head\s+judge", r"matche?s?", r"rounds?",
    r"decklists?", r"deck\s+lists?", r"deck\s+registration", r"registered", r"deck\s+checks?",
    r"sideboard(?:ing|ed|s)?", r"tiebreakers?", r"omw%?", r"gw%?", r"standings", r"pairings?",
    r"drop(?:ped|ping)?\s+(?:from|out)", r"drop\s+after", r"intentional\s+draws?", r"ids?",
    r"draws?\s+offers?", r"prizes?", r"prize\s+(?:packs?|split|support)", r"report(?:ed|ing)?",
    r"top\s+(?:4|8|four|eight)", r"swiss", r"byes?", r"spindown", r"trios", r"teammates?",
    r"deck\s*building\s+time", r"pass(?:ed|ing)?\s+(?:the\s+)?pack", r"packs?\s+\d",
    r"time\s+(?:limit|extension)s?", r"extra\s+turns", r"end\s+of\s+round", r"(?:50|fifty)\s+minutes",
    r"phones?", r"electronic\s+devices?", r"notes?", r"spectators?", r"proxy|proxies",
    r"sleeves?", r"shortcuts?", r"loops?", r"communication", r"derived\s+information",
    r"free\s+information", r"status\s+information", r"draft(?:ing)?", r"booster\s+draft",
    r"sealed\s+(?:event|tournament|pool)", r"banned", r"pre-?game", r"no-?shows?", r"rel",
    r"appeals?", r"scorekeeper",
    r"organizer", r"players?\s+meeting", r"dice", r"coin\s+flip", r"play/draw",
    r"play\s+or\s+draw", r"40\s+cards?", r"60\s+cards?", r"15\s+cards?", r"minimum\s+deck",
    r"bo3", r"best[\s-]+of[\s-]+three", r"game\s+\d",
)  # fmt: skip

#: A player telling what went wrong at a table, in plain words: a forgotten, missed or extra
#: action, cards seen or shown, lists and decks, sleeves, talking, time (pipeline.situation:
#: such a question is shown the tournament entry that handles it beside the game's rules)
IRREGULAR = _cues(
    r"forg[eo]t\w*", r"remember(?:ed)?", r"reali[sz](?:e|ed)", r"notic(?:e|ed|ing)",
    r"missed", r"accidental(?:ly)?", r"by\s+mistake", r"mistaken(?:ly)?", r"instead\s+of",
    r"too\s+many", r"extra\s+cards?", r"(?:saw|seen|see)\s+(?:the|a|his|her|their|my|it|them|that)",
    r"peek(?:ed|ing)?", r"(?:fell|came)\s+(?:off|up|out)", r"knocked",
    r"without\s+(?:showing|revealing|telling|saying)", r"never\s+(?:paid|showed|revealed|said|noticed|took|drew)",
    r"my\s+(?:deck\s*)?list", r"registered", r"sleeves?", r"talk(?:ed|ing)?", r"chatt(?:ed|ing)",
    r"(?:takes?|taking|took)\s+(?:forever|ages|minutes)", r"minutes",
)  # fmt: skip
# (not cues: "flipped", "marked", "without paying": the game's own words, as the training
# part of the judge questions and the development sets have them: "Dark Confidant flipped")


def thesaurus() -> list[tuple[re.Pattern, str]]:
    """The judges' words and abbreviations (crlookup.features.shorthand), each as a pattern
    matching it as whole words, with the documents' words for it."""
    from crlookup.features.shorthand import lines

    out = []
    for said, meant in lines("tournament"):
        words = [re.escape(w) for w in said]
        pattern = r"(?<![\w'])(?:" + "|".join(words) + r")(?![\w'])"
        out.append((re.compile(pattern, re.IGNORECASE), meant))
    return out


def route(text: str, phrases: list[tuple[re.Pattern, str]] | None = None) -> Route | None:
    """Whether a question is a tournament question, and the document its cues point to (with
    why); None for a game question (the CR). A REL named, a penalty's words or a word only a
    tournament uses ("judge", "decklist", "top 8") is enough; otherwise two of the
    tournament's words ("round", "sideboard", "notes")."""
    regular = REGULAR.findall(text)
    competitive = COMPETITIVE.findall(text)
    penalty = PENALTY.findall(text)
    tournament = {w.lower() for w in TOURNAMENT.findall(text)}
    said = [meant for pattern, meant in phrases or () if pattern.search(text)]
    strong = STRONG.findall(text)
    if not (regular or competitive or penalty or strong or len(tournament) >= _MIN_CUES):
        return None

    def words(*found) -> str:
        return ", ".join(dict.fromkeys(w.lower() for f in found for w in f))

    if regular:
        return Route("jar", _("Regular REL ({words}): Judging at Regular REL").format(
            words=words(regular)))  # fmt: skip
    if competitive or penalty:
        return Route("ipg", _("{words}: the Infraction Procedure Guide").format(
            words=words(competitive, penalty)))  # fmt: skip
    return Route("mtr", _("tournament procedure ({words}): the Magic Tournament Rules").format(
        words=words(strong, sorted(tournament), said)))  # fmt: skip


_MIN_CUES = 2  # a question's tournament words before it leaves the CR (without a REL named)


def priors(text: str, found: Route) -> dict[str, float]:
    """How much each document is favoured by the question's cues: the JAR at Regular REL,
    the IPG at Competitive or for a penalty, the MTR for the mechanics of a tournament (less
    when a penalty is asked for)."""
    out = dict.fromkeys(("ipg", "mtr", "jar"), 0.0)
    regular, penalty = REGULAR.search(text), PENALTY.search(text)
    if regular:
        out["jar"] += 1.0
    elif COMPETITIVE.search(text) or penalty:
        out["ipg"] += 1.0
    if TOURNAMENT.search(text) and not penalty:
        out["mtr"] += 0.5
    if penalty and not regular:
        out["ipg"] += 0.5
    return out


class Candidate(NamedTuple):
    """A tournament document's entry as `ask` weighs it: its title and what is searched of it
    (`body`: its text, examples and parts; their words stemmed when first searched: `stems`),
    and the passages the embedding model reads."""

    document: str
    edition: str
    number: str
    title: str
    text: str
    body: str
    passages: tuple[str, ...]
    penalty: str = ""


@functools.lru_cache(maxsize=4096)
def stems(text: str) -> Counter:
    """The stemmed words of a text, counted (an entry's, once per process: a question that is
    no tournament question compares its meaning with the entries, not its words)."""
    return Counter(_analyzer().stems(text))


@functools.cache
def _analyzer():
    from crlookup.features.ask.analyzer import Analyzer

    return Analyzer("en")


def passages(rule) -> tuple[str, ...]:
    """What a tournament entry is embedded as, each read on its own: its title with the
    start of its text (an infraction's definition), then with each further stretch of its
    text and with each example (a judge's question reads like an example: a scenario).
    scripts/embed_entries.py ships their vectors."""
    head = f"{rule.title}. " if rule.title else ""
    out = [head + rule.text[:PASSAGE_CHARS]]
    chunk = ""
    for paragraph in (
        rule.text[PASSAGE_CHARS:].split("\n") if len(rule.text) > PASSAGE_CHARS else ()
    ):
        chunk = f"{chunk} {paragraph}".strip()
        if len(chunk) >= PASSAGE_CHARS // 2:
            out.append(head + chunk[:PASSAGE_CHARS])
            chunk = ""
    if chunk:
        out.append(head + chunk[:PASSAGE_CHARS])
    out += [head + example[:PASSAGE_CHARS] for example in rule.examples]
    return tuple(dict.fromkeys(p for p in out if p.strip()))


PASSAGE_CHARS = 1000  # about the 256 tokens the model reads best


def candidates(lib: Library) -> list[Candidate]:
    """Every entry a tournament question can be answered with: of each tournament document,
    each number in its newest English edition that has it (the annotated MTR of 2026 has no
    appendices C to F: those come from the MTR of 2025)."""

    def make() -> list[Candidate]:
        out = []
        for document in ("ipg", "mtr", "jar"):
            seen: set[str] = set()
            for info in reversed(lib.editions(document)):
                if info.lang != "en":
                    continue
                entries = list(lib.entries(info.id))
                # a section is an answer only if it is a part without entries (the JAR's
                # "Serious Problems"), not an introduction to them or to the document
                parents = {r.number.split(".")[0] for r in entries if "." in r.number}
                for r in entries:
                    body = "\n".join([r.text, *r.examples, *(t for _n, t in r.parts)])
                    if r.number in seen or not body.strip():
                        continue
                    if r.kind == "section" and (r.number in parents or not r.number.isdigit()):
                        continue
                    if r.kind == "appendix" and "changes" in r.title.lower():
                        continue  # what changed between editions answers no question
                    seen.add(r.number)
                    out.append(
                        Candidate(
                            document,
                            info.id,
                            r.number,
                            r.title,
                            r.text,
                            body,
                            passages(r),
                            dict(r.parts).get("penalty", ""),
                        )
                    )
        return out

    return lib.memo(("procedure", "candidates"), make)


def expanded(text: str, phrases: list[tuple[re.Pattern, str]]) -> str:
    """The question with the documents' words for the judges' words it uses."""
    return " ".join([text, *(meant for pattern, meant in phrases if pattern.search(text))])


def lexical(
    entries: list[Candidate], text: str, phrases: list[tuple[re.Pattern, str]]
) -> tuple[list[float], list[list[str]]]:
    """Each entry's BM25 score for the question (the title weighted), and the words matched."""
    asked = Counter(_analyzer().stems(expanded(text, phrases)))
    n = len(entries)
    scores = [0.0] * n
    matched: list[list[str]] = [[] for _ in range(n)]
    if not n or not asked:
        return scores, matched
    words = [(stems(e.title), stems(e.body)) for e in entries]
    average = sum(sum(body.values()) for _title, body in words) / n
    df = Counter(w for title, body in words for w in set(body) | set(title))
    for i, (title, body) in enumerate(words):
        length = sum(body.values())
        for w in asked:
            f = body.get(w, 0) + TITLE_WEIGHT * title.get(w, 0)
            if f:
                idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                scores[i] += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / average))
                matched[i].append(w)
    return scores, matched


K1, B, TITLE_WEIGHT = 1.2, 0.6, 2.5
#: how much closeness in meaning counts beside the words (lexical scores are scaled to 0..1)
SEMANTIC_WEIGHT = 4.0
#: how much the documents the cues point to count
PRIOR_WEIGHT = 0.8


def vectors(lib: Library, entries: list[Candidate]):
    """The candidates' passages' vectors, and which candidate each passage is of: shipped
    (data/entry-vectors.npz, by passage); a few missing (an edition the user added) are
    embedded now, more are left without (zeros)."""

    def make():
        import numpy as np

        from crlookup.features.ask.embedding import DIM, embed, passage_key, shipped_vectors

        shipped = lib.memo(("ask", "shipped vectors"), shipped_vectors)
        texts = [p for e in entries for p in e.passages]
        owner = np.array([i for i, e in enumerate(entries) for _p in e.passages])
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        missing = []
        for i, text in enumerate(texts):
            found = shipped.get(passage_key(text))
            if found is None:
                missing.append(i)
            else:
                out[i] = found
        if missing and len(missing) <= MAX_EMBED_NOW:
            out[missing] = embed([texts[i] for i in missing])
        return out, owner

    return lib.memo(("procedure", "vectors"), make)


MAX_EMBED_NOW = 40


def closeness(lib: Library, entries: list[Candidate], query):
    """Each candidate's closeness in meaning to the question: its closest passage's cosine."""
    import numpy as np

    matrix, owner = vectors(lib, entries)
    best = np.full(len(entries), -1.0, dtype=np.float32)
    np.maximum.at(best, owner, matrix @ query)
    return best


def rank(lib: Library, text: str, found: Route, query) -> list[tuple[float, Candidate, list[str]]]:
    """Every candidate scored for the question, best first, with the words it matched. `query`
    is the question's vector as `ask` keeps it (semantic.query): once, whether the question was
    routed by its words or by what it describes (pipeline.situation)."""
    entries = candidates(lib)
    if not entries:
        return []
    scores, matched = lexical(entries, text, lib.memo(("procedure", "thesaurus"), thesaurus))
    top = max(scores) or 1.0
    cosines = closeness(lib, entries, query)
    prior = priors(text, found)
    out = [
        (
            s / top + SEMANTIC_WEIGHT * float(c) + PRIOR_WEIGHT * prior[e.document],
            e,
            words,
        )
        for s, c, e, words in zip(scores, cosines, entries, matched)
    ]
    out.sort(key=lambda x: -x[0])
    return out
