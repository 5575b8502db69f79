"""The same rule in two languages: which edition and number of language B pairs with a rule;
the layer beside crlookup.api that carries a feature's result into another language (no
feature imports it: each returns its own language's hits).

Editions of the same date pair by number (en-2019-01-25 702.19b is ru-2019-01-25 702.19b).
Otherwise the rule is followed through its own language's stored alignments to the edition
that has a translation of the same date, nearest in date first; the pair then says which
edition each side comes from, so the reader knows the texts may differ.

`parallel` is `rule --parallel` (a rule and its subrules beside their counterparts);
`counterparts` gives `search --parallel` each hit's counterpart; `definitions_through_english`
finds a term a translation's glossary lacks through the English one (`define --lang ru`);
`carried` gives `ask` each answer's counterpart in the language asked for (`carry` replaces
the answers with them, `beside` puts them beside the answers: ask --lang, ask --parallel).

The other way, from a translation to English: `terms` pairs a translation's terms with the
English ones of the edition of the same date (titles by number, glossary terms in glossary
order), so that `read_in_english` reads a Chinese question in the English terms of the rules
(`ask` answers it through English) and `in_translation` reads an English term in a Chinese
query as the Chinese term (`search deathtouch 死触`); `ask_in_english` is how a Chinese
question is asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from crlookup.core.model import Rule, fold
from crlookup.core.numbers import without_subrules
from crlookup.library.alignments import Links
from crlookup.library.reader import Library


class Side(NamedTuple):
    edition: str
    rule: Rule | None  # None: this language has no counterpart


class Pair(NamedTuple):
    number: str  # the number asked about, in the first edition
    left: Side
    right: Side
    same_date: bool  # both sides come from editions of the same date


def counterpart_edition(
    lib: Library, edition: str, number: str, lang: str, links: Links | None = None
):
    """(edition of `lang`, number there) for the rule, through same-date editions; or None."""
    links = links or Links(lib, lib.edition(edition).lang)
    infos = links.infos  # loaded once with the links, not again for every number
    source = infos[edition]
    numbers = links.numbers(edition, number)
    candidates = []
    for target in (e for e in infos.values() if e.lang == lang):
        twins = [e for e in infos.values() if e.lang == source.lang and e.date == target.date]
        for twin in twins:
            if twin.id in numbers:
                candidates.append(
                    (abs((target.date - source.date).days), target.id, numbers[twin.id])
                )
    if not candidates:
        return None
    _, target_id, num = min(candidates)
    return target_id, num


def pairs(lib: Library, edition: str, numbers: list[str], lang: str) -> list[Pair]:
    """Each of `numbers` (a rule and its subrules, say) of `edition` beside its `lang` twin."""
    source = lib.edition(edition)
    links = Links(lib, source.lang)
    out = []
    target_edition = None
    for n in numbers:
        found = counterpart_edition(lib, edition, n, lang, links)
        if found:
            target_edition, num = found
            right = Side(target_edition, lib.get(target_edition, num))
        else:
            right = Side(target_edition or "", None)
        out.append(
            Pair(
                n,
                Side(edition, lib.get(edition, n)),
                right,
                bool(found) and lib.edition(found[0]).date == source.date,
            )
        )
    if target_edition:  # sides with no counterpart still name the edition searched
        out = [p if p.right.edition else p._replace(right=Side(target_edition, None)) for p in out]
    return out


@dataclass(frozen=True)
class Parallel:
    """A rule and its subrules (`pairs`) in two languages (`langs`: its edition's first)."""

    langs: tuple[str, str]
    edition: str
    pairs: tuple[Pair, ...]

    def to_dict(self) -> dict:
        first, other = self.langs

        def side(s: Side) -> dict:
            return (
                s.rule.to_dict(s.edition)
                if s.rule
                else {"edition": s.edition or None, "missing": True}
            )

        return {
            "editions": {first: self.edition, other: self.pairs[0].right.edition or None},
            "same_date": self.pairs[0].same_date,
            "pairs": [
                {"number": p.number, first: side(p.left), other: side(p.right)} for p in self.pairs
            ],
        }


def parallel(
    lib: Library, number: str, langs: tuple[str, str], edition: str | None = None
) -> Parallel:
    """The rule `number` (of `edition`, else the newest of langs[0]) and its subrules beside
    their counterparts in the other language; a trailing period ("702.19.") leaves out the
    subrules. With `edition`, its own language goes first."""
    alone = without_subrules(number)
    first, other = langs
    if edition:
        edition, rule = lib.entry(number, edition)
        own = lib.edition(edition).lang
        if own != first:
            first, other = own, (other if other != own else first)
    else:
        edition, rule = lib.entry(number, lang=first)
    lib.edition(lang=other)  # NotFound if the library has no edition in that language
    below = (
        [] if alone or rule.kind in ("chapter", "section") else lib.subtree(edition, rule.number)
    )
    found = pairs(lib, edition, [rule.number] + [r.number for r in below], other)
    return Parallel((first, other), edition, tuple(found))


def counterparts(lib: Library, hits, lang: str, other: str) -> dict[int, dict]:
    """For `search --parallel`: each hit's counterpart in language `other`, by hit position
    (a rule through `counterpart_edition`; a glossary entry by its English name)."""
    target = lib.glossary_edition(other) if other != lang else None
    links = Links(lib, lang)
    out = {}
    for i, h in enumerate(hits):
        if h.number:
            found = counterpart_edition(lib, h.edition, h.number, other, links)
            rule = lib.get(*found) if found else None
            if rule:
                out[i] = {
                    "edition": found[0],
                    "number": rule.number,
                    "title": rule.title,
                    "text": rule.text,
                }
        elif target:
            entry = lib.glossary_term(h.edition, h.title)
            name = (entry.english or entry.term) if entry else h.title
            twins, _ = lib.named(target, fold(name))
            if twins:
                out[i] = {
                    "edition": target,
                    "number": None,
                    "title": twins[0].term,
                    "text": twins[0].definition,
                }
    return out


def definitions_through_english(lib: Library, edition: str, term: str) -> list:
    """An English term the edition's glossary lacks: its keyword rule, in the edition's language.

    ("define adapt --lang ru": the Russian glossary has no Adapt, but 701.42 of the Russian
    edition is its rule, found by pairing the English rule with its translation.)
    """
    from crlookup.features.definitions import Definition, define

    english = lib.glossary_edition("en")
    out = []
    for d in define(lib, english, term):
        if d.rule is None:
            continue
        found = counterpart_edition(lib, english, d.rule.number, lib.edition(edition).lang)
        if found and found[0] == edition:
            rule = lib.get(edition, found[1])
            if rule is not None:
                subrules = tuple(lib.subtree(edition, rule.number))
                out.append(Definition(d.name, None, None, rule, subrules, d.score))
    return out


def carried(lib: Library, edition: str, number: str, target: str) -> str | None:
    """The number in edition `target` of rule `number` of `edition` (of the same language,
    through the stored alignments; of another, through same-date translations), or None."""
    info = lib.edition(target)
    links = Links(lib, info.lang)
    if lib.edition(edition).lang == info.lang:
        return links.numbers(edition, number).get(target)
    twin = counterpart_edition(lib, edition, number, info.lang)
    if twin and twin[0] != target:
        return links.numbers(twin[0], twin[1]).get(target)
    return twin[1] if twin else None


# --------------------------------------------------------------------------- terms


def english_twin(lib: Library, edition: str) -> str | None:
    """The English edition of the same date as the translation `edition` (the original it
    translates), or None."""
    info = lib.edition(edition)
    same = [e.id for e in lib.editions(info.document) if e.lang == "en" and e.date == info.date]
    wanted = "en" + info.id[len(info.lang) :]
    return wanted if wanted in same else (same[0] if same else None)


class Terms(NamedTuple):
    """The terms of a translation and their English originals, both ways (folded keys)."""

    english: dict[str, str]  # the translation's term -> the English term
    translated: dict[str, str]  # the English term -> the translation's term
    longest: int  # the most characters of a translation's term


def terms(lib: Library, edition: str) -> Terms:
    """The terms of translation `edition` paired with its English twin's: the titles of its
    chapters, sections and named rules by number ("702.19. 践踏" is "702.19. Trample"), and its
    glossary terms in glossary order (`glossary_pairs`); once per open library."""

    def make() -> Terms:
        twin = english_twin(lib, edition)
        english: dict[str, str] = {}
        translated: dict[str, str] = {}

        def pair(term: str, original: str) -> None:
            term, original = fold(term), fold(original)
            if term and original:
                english.setdefault(term, original)
                translated.setdefault(original, term)

        if twin:
            originals = {r.number: r.title for r in lib.entries(twin) if r.title}
            for r in lib.entries(edition):
                if r.title and r.number in originals:
                    pair(r.title, originals[r.number])
            own = list(lib.glossary(edition))
            named = [(g, g.english) for g in own if g.english]  # the Russian glossary's
            for g, original in named:
                for word in g.headwords or (g.term,):
                    pair(word, original)
            for g, e in [] if named else glossary_pairs(own, list(lib.glossary(twin))):
                words, theirs = g.headwords or (g.term,), e.headwords or (e.term,)
                if len(words) != len(theirs):  # each name to the first English one
                    theirs = (theirs[0],) * len(words)
                for word, original in zip(words, theirs):  # "已跃回，已跃离": phased in, out
                    pair(word, original)
            for term, original in list(english.items()):  # "已跃离" is also said "跃离"
                if term.startswith("已") and len(term) > 2:
                    pair(term[1:], original)
        return Terms(english, translated, max(map(len, english), default=0))

    return lib.memo(("terms", edition), make)


def glossary_pairs(translated: list, english: list) -> list[tuple]:
    """The glossary entries of a translation beside their English originals.

    Both glossaries list their terms in the English order, give or take a few the translators
    sorted otherwise ("隔位分队玩法" before "替代性费用"): an entry is paired with an English
    one near its place that cites the same rules ("参见规则702.19" / "See rule 702.19");
    between two such anchors, entries are paired in order where both sides have as many."""
    import re

    cited = re.compile(r"\d{3}(?:\.\d+[a-z]*)?")

    def key(g) -> tuple[str, ...]:
        return tuple(cited.findall(g.definition))

    en_keys = [key(g) for g in english]
    anchors: list[tuple[int, int]] = []
    used: set[int] = set()
    for i, g in enumerate(translated):
        k = key(g)
        if not k:
            continue
        near = sorted(range(max(0, i - 6), min(len(english), i + 7)), key=lambda j: abs(j - i))
        j = next((j for j in near if j not in used and en_keys[j] == k), None)
        if j is not None and (not anchors or j > anchors[-1][1]):
            anchors.append((i, j))
            used.add(j)
    out = []
    last = (-1, -1)
    for i, j in [*anchors, (len(translated), len(english))]:
        gap_t, gap_e = range(last[0] + 1, i), range(last[1] + 1, j)
        if len(gap_t) == len(gap_e):
            out += [(translated[a], english[b]) for a, b in zip(gap_t, gap_e)]
        if i < len(translated):
            out.append((translated[i], english[j]))
        last = (i, j)
    return out


def read_in_english(lib: Library, edition: str, text: str) -> tuple[str, tuple[str, ...]]:
    """A question in the language of translation `edition`, read in the English terms of the
    rules (`terms`): each run of Chinese is read from the start, the longest term that begins
    at each place taken and given in English, what no term covers left out (the model reads
    the question as asked); Latin words and numbers ("deathtouch", "5/5") kept as written.
    Returns the English reading and what was read ("践踏 → trample")."""
    from crlookup.core.chinese import HAN

    table = terms(lib, edition)
    longest = table.longest
    out: list[str] = []
    read: list[str] = []
    pos = 0
    for m in HAN.finditer(text):
        out.append(f" {text[pos : m.start()]} ")
        run, i = m.group(), 0
        while i < len(run):
            for n in range(min(longest, len(run) - i), 0, -1):
                piece = run[i : i + n]
                english = table.english.get(piece)
                if english:
                    out.append(f" {english} ")
                    if f"{piece} → {english}" not in read:
                        read.append(f"{piece} → {english}")
                    i += n
                    break
            else:
                i += 1
        pos = m.end()
    out.append(text[pos:])
    english = " ".join("".join(out).translate(_HALF_WIDTH).split())
    return english, tuple(read)


# Chinese punctuation as the English reading writes it
_HALF_WIDTH = str.maketrans("，。？！：；（）“”‘’、", ",.?!:;()\"\"'',")


def in_translation(lib: Library, edition: str, query: str) -> str:
    """A query in the language of translation `edition` with the English terms in it given in
    that language ("deathtouch 死触" is "死触 死触"): the longest run of words that is an
    English term of the rules, at each place; every other word as it was."""
    import re

    table = terms(lib, edition).translated
    words = re.split(r"(\s+)", query)
    out: list[str] = []
    i = 0
    while i < len(words):
        for n in range(min(8, len(words) - i), 0, -1):  # words and the spaces between
            if n % 2 == 0:
                continue
            said = "".join(words[i : i + n])
            found = table.get(fold(said)) if re.fullmatch(r"[A-Za-z][A-Za-z’' -]*", said) else None
            if found:
                out.append(found)
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    return "".join(out)


# ------------------------------------------------------------------ ask in another language


def ask_in_english(lib: Library, question: str, searched: str, target: str, limit: int):
    """`ask` for a question in a language it reads through English (`THROUGH_ENGLISH`): read
    in the English terms of the rules (`read_in_english`), answered from the English original
    of edition `searched` (the translation of the question's language) with the model reading
    the question as asked, and carried to `target`."""
    from crlookup.core.errors import NotFound
    from crlookup.core.i18n import _
    from crlookup.features import ask

    twin = english_twin(lib, searched)
    if twin is None:
        raise NotFound(
            _("no English edition of the date of {edition} to read the question with").format(
                edition=searched
            )
        )
    english, read = read_in_english(lib, searched, question)
    asked = ask.ask(lib, english, twin, limit, asked_as=question)
    asked = asked._replace(read_as=(*read, *asked.read_as))
    if asked.searched == twin and target != twin:
        asked = asked._replace(answers=carry(lib, asked.answers, target))
    return asked


def carry(lib: Library, answers: list, target: str) -> list:
    """`ask`'s answers as the counterpart rules of edition `target` (kept as they are,
    saying so, where there is none)."""
    from crlookup.core.i18n import _
    from crlookup.features.ask import title
    from crlookup.features.ask.records import Answer

    out = []
    for a in answers:
        number = carried(lib, a.edition, a.number, target)
        rule = lib.get(target, number) if number else None
        if rule is None:
            missing = _("no counterpart in {edition}").format(edition=target)
            out.append(a._replace(why=(*a.why, missing)))
            continue
        note = _("the counterpart of {edition} {number}").format(edition=a.edition, number=a.number)
        why = (*a.why, note)
        out.append(Answer(target, rule.number, title(lib, target, rule), rule.text, a.score, why))
    return out


def beside(lib: Library, answers: list, lang: str) -> tuple:
    """Each of `ask`'s answers' counterpart in language `lang` ((edition, Rule), or None),
    from the edition of that language nearest in date (the same date where there is one)."""
    lib.edition(lang=lang)  # NotFound if the library has no edition in that language
    out = []
    for a in answers:
        found = None
        if lib.edition(a.edition).document == "cr":
            found = counterpart_edition(lib, a.edition, a.number, lang)
        rule = lib.get(*found) if found else None
        out.append((found[0], rule) if found and rule else None)
    return tuple(out)
