"""The scraped JSON format: the Comprehensive Rules of July 30, 2024 as a web scraper saved them.

Format (data/cr-2024-07-30-en.json, UTF-8):

    {chapter title: {section title: [[rule text, [subrule texts]], ...], ...}, ...}

No entry has its number: numbers follow from position (sections from their chapter's start,
rules 1.., subrule letters a, b, c... skipping l and o). What the scraper lost or garbled:

- It kept sections in a dict keyed by title, so the "General" sections of the chapters it read
  as one group collided: the group keeps ONE "General", in the place of the first and with the
  content of the last. "Game Concepts" holds chapters 1-4 (101-123, 201-213, 301-315,
  401-408) and its "General" is 400.x; "Additional Rules" holds 701-730 and 801-811 and its
  "General" is 800.x. Sections 100, 200, 300 and 700 are lost.
- The headings of the chapters inside a group ("2. Parts of a Card") ended up at the end of
  the last entry before them: "...other spells and abilities can identify.2. Parts of a Card".
- Where the official text has a numbering typo, a rule was merged into the one before it:
  119.1c ends with "...119.1d. In a two-player Brawl game...", 606.4 with "606.5 If the total
  cost...", 901.3a with "901.4.All plane and phenomenon cards...".
- Every line break of the PDF was removed without a space ("verycommon", "library,hand").
- "Example:" paragraphs run on inside the rule text; quotes are ASCII; ™ and ® are "(tm)", "(r)".
- The effective date is not in the file: it is taken from the file name, cr-YYYY-MM-DD-....

Contract: `read` returns one partial edition (lang "en") numbered as the official document is.
Chapter breaks come from the document itself: the headings found at the end of entries, and
references that give a section's number with its title ('see rule 202, "Mana Cost and
Color"'). A group's collided "General" gets the chapter whose references ("see rule 400.7")
cite entries of it that share the citing text's words; lost sections stay absent. A merged rule
is split out where an embedded "NNN.N[x]" continues the numbering. Joins are split with the
vocabulary of the official English editions (scraped_json_vocab.json, built by
scripts/build_scraped_json_vocab.py): see `Joins`. Examples become `Rule.examples`, "(tm)"
becomes ™ and "(r)" ®; mana symbols stay text ({2}{W}). Each repair is in the edition's notes.
Bad input (not UTF-8, invalid or truncated JSON, another shape, no rules) raises `SourceError`
with the line (a file name without a date: with none); nothing else is raised.
"""

from __future__ import annotations

import bisect
import json
import re
import unicodedata
from collections import Counter, defaultdict
from datetime import date
from functools import lru_cache

# json's own string scanner (the C one where there is one): typeshed leaves it undeclared
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import NamedTuple

from crlookup.core import numbers
from crlookup.core.errors import SourceError
from crlookup.core.model import Edition
from crlookup.sources import dates
from crlookup.sources.text import EXAMPLE
from crlookup.sources.tree import RuleTree

VOCABULARY = Path(__file__).with_name("scraped_json_vocab.json")
GENERAL = "General"
SHAPE = "a JSON object {chapter: {section: [[rule text, [subrule texts]], ...]}}"

_SNIFF = re.compile(rb'^\s*\{\s*"[^"\\]{1,200}"\s*:\s*\{\s*"[^"\\]{1,200}"\s*:\s*\[\s*\[\s*"')
# 'see rule 202, "Mana Cost and Color"': a section number with its title.
_TITLED_REF = re.compile(r'(?<![\d.])([1-9]\d\d), ?"([^"]{2,80}?)[.,]?"')
# "see rule 400.7", "800.4a": a reference into a chapter's "General" section.
_GENERAL_REF = re.compile(r"(?<![\d.])([1-9])00\.(\d+)([a-z]?)(?!\d)")
# A chapter heading run onto the end of an entry: "...can identify.2. Parts of a Card".
_TRAILING_CHAPTER = re.compile(r'(?<=[.!?")\]])([1-9])\. ?([A-Z][A-Za-z ,]{2,60})$')
# A rule number printed inside the text before it: '"Commander."119.1d. In a', "effects.606.5 If".
_EMBEDDED = re.compile(r'(?<=[.!?")\]]) ?(\d{3})\.(\d+)([a-z]*)\.? ?(?=["(A-Z])')
_SYMBOLS = (("(tm)", "™"), ("(r)", "®"))

# ASCII the way the scraper wrote it, for comparing with the official text.
_ASCII = str.maketrans(
    {"’": "'", "‘": "'", "“": '"', "”": '"', "—": "--", "–": "-", "−": "-"}
    | {"™": "(tm)", "®": "(r)"}
)
#: A word: letters with inner apostrophes, and a trailing one for plural possessives ("players'").
WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*'?")


def ascii_fold(text: str) -> str:
    """Official text as the scraper would have written it: ASCII quotes and dashes, no accents."""
    text = unicodedata.normalize("NFKD", text.translate(_ASCII))
    return "".join(c for c in text if not unicodedata.combining(c))


def sniff(data: bytes) -> bool:
    """An object of objects of lists of [text, ...] lists: the scraped JSON shape."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return bool(_SNIFF.match(data[:2000]))


class Parsed(NamedTuple):
    edition: Edition
    #: entry number -> the (left, right) pieces of each join repaired in it (examples included)
    repairs: dict[str, tuple[tuple[str, str], ...]]


def read(path: Path, data: bytes) -> list[Edition]:
    return [parse(path, data).edition]


def parse(path: Path, data: bytes, repairer: Joins | None = None) -> Parsed:
    """The edition, and the joins repaired in each entry (for auditing the repair).

    `repairer` defaults to `joins()`, the vocabulary of the official editions; `Joins({}, {})`
    knows no word and repairs nothing (to measure what the repair changes).
    """
    file = Path(path).name
    day = file_date(file)
    text = _decode(data, file)
    groups = _Reader(file, text).document()
    if not any(section.rules for group in groups for section in group.sections):
        raise SourceError(file, 1, "at least one rule in " + SHAPE, text[:40])
    tree = RuleTree(file)
    tree.notes.append(f"effective date {day.isoformat()} from the file name (the JSON has none)")
    builder = _Builder(tree, groups, joins() if repairer is None else repairer)
    builder.build()
    edition = Edition(
        lang="en", date=day, source=file, rules=tree.rules(), partial=True, notes=tuple(tree.notes)
    )
    return Parsed(edition, builder.repairs)


def file_date(file: str) -> date:
    return dates.in_file_name(file, "the JSON states none")


def _decode(data: bytes, file: str) -> str:
    """UTF-8 (as JSON is; `encoding.decode` guesses the 8-bit codecs of the text sources and
    counts bare CRs as line ends, which the JSON decoder's line numbers do not)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        found = data[e.start : e.start + 20].decode("latin-1")
        raise SourceError(file, line, "UTF-8 JSON", found) from None
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        found = text[e.pos : e.pos + 40] or "the end of the file"
        raise SourceError(file, e.lineno, f"valid JSON ({e.msg})", found) from None
    except (ValueError, RecursionError) as e:  # nested too deep, or a number too long
        raise SourceError(file, _too_deep(text), "valid JSON of " + SHAPE, str(e)) from None
    return text


def _too_deep(text: str) -> int:
    """The line where nesting goes deeper than the scraped shape ever does (5 levels)."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > 5:
                return text.count("\n", 0, m.start()) + 1
        elif c in "]}":
            depth -= 1
    return 1


# --- reading the JSON, with the line of every string ----------------------------------------


class Text(NamedTuple):
    text: str
    line: int


class Section(NamedTuple):
    title: str
    line: int
    rules: list[tuple[Text, list[Text]]]


class Group(NamedTuple):
    """A top-level key: a chapter title, and the sections the scraper filed under it."""

    title: str
    line: int
    sections: list[Section]


_WS = re.compile(r"[ \t\n\r]*")


class _Reader:
    """Walks JSON already known to be valid, checking its shape and noting each string's line."""

    def __init__(self, file: str, text: str):
        self.file = file
        self.s = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def skip(self, i: int) -> int:
        m = _WS.match(self.s, i)
        assert m is not None  # _WS matches everywhere, if only the empty string
        return m.end()

    def fail(self, i: int, expected: str):
        raise SourceError(self.file, self.line(i), expected, self.s[i : i + 40])

    def items(self, i: int, kind: str, expected: str, member) -> int:
        """Call `member` on each value of the object ("{") or list ("[") at i; return its end.

        Objects call member(key, key position, value position), lists member(value position);
        member returns the end of the value.
        """
        s = self.s
        if s[i] != kind:
            self.fail(i, expected)
        close = "}" if kind == "{" else "]"
        i = self.skip(i + 1)
        if s[i] == close:
            return i + 1
        while True:
            if kind == "{":
                key, j = scanstring(s, i + 1)
                i = member(key, i, self.skip(self.skip(j) + 1))
            else:
                i = member(i)
            i = self.skip(i)
            if s[i] == close:
                return i + 1
            i = self.skip(i + 1)  # the comma

    def string(self, i: int, expected: str) -> tuple[Text, int]:
        if self.s[i] != '"':
            self.fail(i, expected)
        value, end = scanstring(self.s, i + 1)
        return Text(value, self.line(i)), end

    def document(self) -> list[Group]:
        groups: list[Group] = []

        def chapter(key: str, at: int, i: int) -> int:
            group = Group(key, self.line(at), [])
            groups.append(group)
            return self.items(i, "{", f"chapter {key!r}: an object of sections", section_in(group))

        def section_in(group: Group):
            def section(key: str, at: int, i: int) -> int:
                found = Section(key, self.line(at), [])
                group.sections.append(found)
                return self.items(i, "[", f"section {key!r}: a list of rules", rule_in(found))

            return section

        def rule_in(section: Section):
            expected = f"a rule of section {section.title!r}: [rule text, [subrule texts]]"

            def rule(i: int) -> int:
                if self.s[i] != "[":
                    self.fail(i, expected)
                text, i = self.string(self.skip(i + 1), expected)
                i = self.skip(i)
                if self.s[i] != ",":
                    self.fail(i, expected)
                subrules: list[Text] = []

                def subrule(j: int) -> int:
                    sub, end = self.string(j, "a subrule text")
                    subrules.append(sub)
                    return end

                i = self.skip(self.items(self.skip(i + 1), "[", expected, subrule))
                if self.s[i] != "]":
                    self.fail(i, expected)
                section.rules.append((text, subrules))
                return i + 1

            return rule

        start = self.skip(0)
        self.items(start, "{", SHAPE, chapter)
        if not groups:
            self.fail(start, SHAPE + " with at least one chapter")
        return groups


# --- numbering -------------------------------------------------------------------------------


class _Heading(NamedTuple):
    chapter: int
    title: str
    line: int


def _squash(title: str) -> str:
    """A title compared without spaces or punctuation, which joins may have eaten."""
    return re.sub(r"\W", "", title).lower()


class _Builder:
    """Numbers the sections, splits merged rules and examples, repairs joins, feeds the tree."""

    def __init__(self, tree: RuleTree, groups: list[Group], joins: Joins):
        self.tree = tree
        self.file = tree.file
        self.groups = groups
        self.joins = joins
        self.repairs: dict[str, tuple[tuple[str, str], ...]] = {}
        self.unknown: Counter = Counter()
        self.corrected = 0
        self.texts = [
            t.text for g in groups for s in g.sections for r, subs in s.rules for t in (r, *subs)
        ]
        # (group, section) -> a chapter heading run onto the end of that section's last entry
        self.trailing: dict[tuple[int, int], _Heading] = {}
        for gi, g in enumerate(groups):
            for si, section in enumerate(g.sections):
                last = _last_entry(section)
                m = _TRAILING_CHAPTER.search(last.text) if last is not None else None
                if last is not None and m:
                    self.trailing[gi, si] = _Heading(int(m.group(1)), m.group(2), last.line)
        self.cut: set[tuple[int, int]] = set()  # the trailing headings the numbering confirms

    def note(self, text: str) -> None:
        self.tree.notes.append(text)

    def build(self) -> None:
        numbered, headings = self.number()
        chapter = 0
        for number, (gi, si) in sorted(numbered):
            section = self.groups[gi].sections[si]
            if number // 100 != chapter:
                chapter = number // 100
                heading = headings.get(chapter)
                if heading is None:
                    self.note(f"chapter {chapter}: its heading is lost; left without a title")
                    heading = _Heading(chapter, "", section.line)
                self.tree.heading(str(chapter), heading.title, heading.line)
            self.tree.heading(str(number), section.title, section.line)
            self.section(number, section, cut=(gi, si) in self.cut)
        joined = sum(len(r) for r in self.repairs.values())
        self.note(
            f"repaired {joined} joins of lines the scraper made without a space, in "
            f"{sum(map(bool, self.repairs.values()))} entries"
        )
        if self.corrected:
            self.note(
                f"applied {self.corrected} hand corrections of joins that make a real word "
                "(scraped_json_vocab.json, from scripts/build_scraped_json_vocab.py)"
            )
        if self.unknown:
            shown = ", ".join(w for w, _ in self.unknown.most_common(12))
            self.note(
                f"left {sum(self.unknown.values())} pieces that are not words of the official "
                f"editions as they are (names, new words): {shown}"
            )

    def number(self) -> tuple[list[tuple[int, tuple[int, int]]], dict[int, _Heading]]:
        """(number, (group, section)) for every section, and the chapter headings."""
        slots = [
            (gi, si)
            for gi, g in enumerate(self.groups)
            for si, s in enumerate(g.sections)
            if s.title != GENERAL
        ]
        found = _segment(self.file, self.groups, slots, self.votes(slots))
        numbered = list(zip(found, slots))
        headings: dict[int, _Heading] = {}
        for t in range(1, len(slots)):
            heading = self.trailing.get(slots[t - 1])
            if heading is None:
                continue
            if found[t] == heading.chapter * 100 + 1:
                headings[heading.chapter] = heading
                self.cut.add(slots[t - 1])
                self.note(
                    f"chapter {heading.chapter} {heading.title!r}: its heading was run onto the "
                    f"end of section {found[t - 1]} (line {heading.line}); cut off"
                )
            else:
                self.note(
                    f"line {heading.line}: the end of section {found[t - 1]} reads like the "
                    f"heading of chapter {heading.chapter}, but no chapter starts there: kept"
                )
        last = 0
        for gi, g in enumerate(self.groups):
            mine = [(si, n) for n, (gj, si) in numbered if gj == gi]
            chapters = sorted({n // 100 for _, n in mine}) or [last + 1]
            headings.setdefault(chapters[0], _Heading(chapters[0], g.title, g.line))
            for si, section in enumerate(g.sections):
                if section.title != GENERAL:
                    continue
                after = [n for sj, n in mine if sj > si]
                if after and any(sj < si for sj, _ in mine):
                    c = after[0] // 100  # a "General" between sections starts the next chapter
                else:  # the group's one "General": collided if the group spans chapters
                    c = self.general_chapter(g, section, chapters)
                if c > 9:
                    raise SourceError(self.file, section.line, "at most 9 chapters", g.title)
                numbered.append((c * 100, (gi, si)))
            last = max(chapters)
        return numbered, headings

    def votes(self, slots: list[tuple[int, int]]) -> list[Counter]:
        """For each section, the numbers the document itself gives it.

        A reference with a title ('rule 202, "Mana Cost and Color"') votes for its number; a
        chapter heading run onto the end of a section votes for the next section being x01.
        """
        cited: dict[str, Counter] = {}
        for text in self.texts:
            for m in _TITLED_REF.finditer(text):
                cited.setdefault(_squash(m.group(2)), Counter())[int(m.group(1))] += 1
        out = []
        for previous, (gi, si) in zip([None, *slots], slots):
            vote = Counter(cited.get(_squash(self.groups[gi].sections[si].title), {}))
            heading = self.trailing.get(previous) if previous is not None else None
            if heading:
                vote[heading.chapter * 100 + 1] += 1
            out.append(vote)
        return out

    def general_chapter(self, group: Group, general: Section, chapters: list[int]) -> int:
        """Whose "General" this is: the chapter whose references ("see rule 400.7") cite
        entries of this content that share the most words with the citing text."""
        if len(chapters) == 1:
            return chapters[0]
        score: dict[int, float] = defaultdict(float)  # agreement, summed over references
        cited: Counter = Counter()
        found: Counter = Counter()
        for text in self.texts:
            for m in _GENERAL_REF.finditer(text):
                c = int(m.group(1))
                if c not in chapters:
                    continue
                cited[c] += 1
                target = _entry_text(general, int(m.group(2)), m.group(3))
                if target is None:
                    continue
                found[c] += 1
                around = _content_words(text[max(0, m.start() - 150) : m.end() + 60])
                words = _content_words(target)
                score[c] += len(around & words) / max(1, len(around | words))
        # without references, the last chapter: a dict keeps the last value written to a key
        best = max(reversed(chapters), key=lambda c: score[c])
        evidence = "; ".join(
            f"{c}00.x: {found[c]} of {cited[c]} exist, agreement {score[c]:.2f}" for c in chapters
        )
        lost = ", ".join(f"{c}00" for c in chapters if c != best)
        self.note(
            f"{group.title!r} holds chapters {chapters[0]}-{chapters[-1]} under one {GENERAL!r} "
            f"(line {general.line}); its content is section {best}00, judged by the references "
            f"into it ({evidence}); sections {lost} are lost"
        )
        return best

    # --- the entries of one section ------------------------------------------------------

    def section(self, number: int, section: Section, cut: bool) -> None:
        """Number the entries of a section (cutting the chapter heading off its end if `cut`)."""
        end = _last_entry(section)
        rule = 0
        for text, subs in section.rules:
            rule += 1
            letter = 0
            current = f"{number}.{rule}"
            for item, is_sub in ((text, False), *((s, True) for s in subs)):
                if is_sub:
                    current = f"{number}.{rule}{numbers.letters_at(letter)}"
                    letter += 1
                if cut and item is end:
                    item = item._replace(text=_TRAILING_CHAPTER.sub("", item.text))
                pieces = self.split_merged(current, item)
                for n, piece in pieces:
                    self.entry(n, piece, item.line)
                if len(pieces) > 1:  # later numbers continue from the entry split out
                    current = pieces[-1][0]
                    split = numbers.parse(current)
                    assert split.rule is not None  # split out of a rule: a rule or subrule
                    rule = split.rule
                    letter = numbers.letters_index(split.letters) + 1 if split.letters else 0

    def split_merged(self, number: str, item: Text) -> list[tuple[str, str]]:
        """[(number, text)]: the entry, then any entry the scraper merged into it."""
        out = []
        text = item.text
        while True:
            m = next((m for m in _EMBEDDED.finditer(text) if _embedded(m) in _next(number)), None)
            if m is None:
                out.append((number, text))
                return out
            out.append((number, text[: m.start()]))
            self.note(
                f"line {item.line}: {_embedded(m)} was merged into {number} (the official text "
                f"prints it {text[m.start() : m.end()].strip()!r}); split out"
            )
            number, text = _embedded(m), text[m.end() :]

    def entry(self, number: str, text: str, line: int) -> None:
        repaired = []
        found: list[tuple[str, str]] = []
        for piece in text.split(EXAMPLE):
            fixed, splits, unknown = self.joins.repair(piece.strip())
            fixed, corrected = self.joins.correct(fixed)
            self.corrected += corrected
            for old, new in _SYMBOLS:
                fixed = fixed.replace(old, new)
            repaired.append(fixed)
            found += splits
            self.unknown.update(unknown)
        self.repairs[number] = tuple(found)
        self.tree.entry(number, repaired[0], line)
        for example in repaired[1:]:
            self.tree.example(example, line)


def _last_entry(section: Section) -> Text | None:
    if not section.rules:
        return None
    text, subs = section.rules[-1]
    return subs[-1] if subs else text


def _embedded(m: re.Match) -> str:
    return f"{m.group(1)}.{m.group(2)}{m.group(3)}"


def _next(number: str) -> set[str]:
    """The numbers that can follow an entry: its next sibling, its first subrule, the next rule."""
    n = numbers.parse(number)
    assert n.rule is not None  # an entry's number: a rule or subrule
    out = {str(numbers.RuleNumber(n.section, n.rule + 1))}
    if n.letters:
        out.add(str(n._replace(letters=numbers.letters_at(numbers.letters_index(n.letters) + 1))))
    else:
        out.add(str(n._replace(letters="a")))
    return out


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}


def _entry_text(section: Section, rule: int, letters: str) -> str | None:
    """The text of entry <rule><letters> of a section, by position; None if there is none."""
    if not 1 <= rule <= len(section.rules):
        return None
    text, subs = section.rules[rule - 1]
    if not letters:
        return text.text
    if letters not in numbers.LETTERS or numbers.letters_index(letters) >= len(subs):
        return None
    return subs[numbers.letters_index(letters)].text


def _segment(
    file: str, groups: list[Group], slots: list[tuple[int, int]], votes: list[Counter]
) -> list[int]:
    """The numbers of the sections that are not "General", best agreeing with their votes.

    Numbers run on within a group (x01, x02, ...) and may break to a later chapter's x01; a
    new group, or a "General" inside a group, starts a later chapter. Each vote a number gets
    scores 10; each chapter break or chapter skipped costs 1 (so without votes a group is
    one chapter).
    """
    if not slots:
        return []
    State = tuple[int, int]  # (chapter, section within the chapter)
    steps: list[dict[State, tuple[int, State | None]]] = []
    for t, (gi, si) in enumerate(slots):
        previous = slots[t - 1] if t else None
        new_chapter = (
            previous is None
            or previous[0] != gi
            or any(s.title == GENERAL for s in groups[gi].sections[previous[1] + 1 : si])
        )
        states: dict[State, tuple[int, State | None]] = {}

        def offer(state: State, score: int, back: State | None, states=states) -> None:
            if state not in states or score > states[state][0]:
                states[state] = (score, back)

        if previous is None:
            for c in range(1, 10):
                offer((c, 1), 1 - c, None)
        else:
            best: dict[int, tuple[int, State]] = {}
            for state, (score, _) in steps[-1].items():
                c, k = state
                if c not in best or score > best[c][0]:
                    best[c] = (score, state)
                if not new_chapter and k < 99:
                    offer((c, k + 1), score, state)
            for c, (score, state) in best.items():
                for later in range(c + 1, 10):  # the break a new group makes costs nothing
                    offer((later, 1), score - (later - c) + int(new_chapter), state)
        if not states:
            section = groups[gi].sections[si]
            raise SourceError(
                file, section.line, "at most 9 chapters of at most 99 sections", section.title
            )
        vote = votes[t]
        steps.append(
            {s: (score + 10 * vote[s[0] * 100 + s[1]], back) for s, (score, back) in states.items()}
        )
    at: State | None = max(steps[-1], key=lambda s: (steps[-1][s][0], -s[0]))
    out = []
    for states in reversed(steps):
        assert at is not None  # only the first step's states point back to nothing
        out.append(at[0] * 100 + at[1])
        at = states[at][1]
    return out[::-1]


# --- joins -----------------------------------------------------------------------------------

_PIECE = re.compile(r"([(\"'\[]*)(.*?)([.,;:!?)\"'\]]*)", re.S)
_NUM = (  # 702.19b, 601.2f-h, 119.9-10, 7c, N3+, 1+*
    r"(?:\d+(?:\.\d+)?[a-z]{0,2}(?:-(?:\d+(?:\.\d+)?[a-z]{0,2}|[a-z]{1,2})(?![A-Za-z]))?|[XYN*]\d?)"
    r"(?:\+\*?|\*)?(?![A-Za-z])"
)
_SYM = r"(?:\{[^{}\s]+\})+"
_WORD = r"[A-Za-z]+(?:'[A-Za-z]+)*'?(?:\((?:s|tm|r)\))?"
_SIGNED = re.compile(r"[-+](?=[\dXYN])")
# What a piece between spaces is made of: numbers ("702.19b", "+1/+1", "7c", "N3+"), mana
# symbols ("{2}{W}"), words, and what joins them ("Two-Headed", "and/or", "controller--or",
# "[this object]'s", "[card number]/[total").
_TOKEN = re.compile(
    rf"(?P<num>{_NUM})|(?P<sym>{_SYM})|(?P<word>{_WORD})|(?P<conn>--|//|/|-|\]'s|\]/\[)"
)
_KINDS = {"word": "word", "num": "num", "sym": "num"}
MAX_JOINED = 80  # two words of the rules joined are never longer; longer pieces are left alone
_BRACKETS = ("]'s", "]/[")


class Joins:
    """Puts back the spaces of the line breaks the scraper removed.

    A piece of text between spaces is valid if it is made of words of the official editions,
    numbers and symbols (with their quotes and punctuation), or is one of the few other
    pieces the official editions print ("e.g.", "d20"). A piece that is not valid is split
    where both halves are valid. Preferred, in order: a split at punctuation or between a
    letter and a digit ("zone.Each", "rule704."); lower case followed by upper case
    ("HeadedGiant"); between letters ("thatsome"), only for two words the official
    editions print side by side, or after a capitalised name ("Secondsdeals"); at an
    apostrophe. A straight double quote stays with the words it opens or closes (counted from
    the start of the text). Ties go to the two words most often side by side, then to the
    more common words. A real word is never split: it is valid as it is.
    """

    def __init__(self, words: dict[str, int], pairs: dict[str, int], tokens=(), corrections=()):
        self.words = words  # lower-cased word -> count in the official editions
        self.pairs = pairs  # "word word" -> count of the two side by side
        self.tokens = frozenset(tokens)
        # (as scraped, as printed): joins that make a real word ("soon" for "so on"), by hand
        self.corrections = tuple(tuple(c) for c in corrections)
        self._valid: dict[str, bool] = {}

    def known(self, word: str) -> bool:
        """A word of the official editions ("players'" only if they write it so)."""
        w = word.lower()
        if w.endswith(("(s)", "(r)")):
            w = w[:-3]
        elif w.endswith("(tm)"):
            w = w[:-4]
        return w in self.words or (w.endswith("'s") and w[:-2] in self.words)

    @staticmethod
    def core(piece: str) -> str:
        """The piece without its opening and closing punctuation: '("Commander."' -> 'Commander'."""
        m = _PIECE.fullmatch(piece)
        assert m is not None  # _PIECE fits any string: each of its parts may be empty
        _, core, close = m.groups()
        if close.startswith(")") and core.count("(") > core.count(")"):
            core += ")"  # "target(s)", "Exodus(tm)"
        elif close.startswith("'") and core[-1:].isalpha():
            core += "'"  # "players'" is a word of its own; so is "if'" of "'if'"
        return core

    def valid(self, piece: str) -> bool:
        ok = self._valid.get(piece)
        if ok is None:
            ok = self._valid[piece] = self._check(piece)
        return ok

    def _check(self, piece: str) -> bool:
        core = self.core(piece)
        if not core:  # punctuation alone: '."', "--", but not ".." (". ." broken over two lines)
            return piece == "--" or not re.search(r"(.)\1", piece)
        return core in self.tokens or self.grammatical(core)

    def grammatical(self, core: str) -> bool:
        """Units (words, numbers, symbols) joined by dashes, slashes or brackets."""
        pos = 0
        last: str | None = None
        conn: str | None = "--"  # a leading "--" is allowed ("--Human")
        while pos < len(core):
            if (pos == 0 or core[pos - 1] == "/") and _SIGNED.match(core, pos):
                pos += 1  # "+1/+1", "-X/-Y"
            m = _TOKEN.match(core, pos)
            if m is None:
                return False
            group = m.lastgroup
            if group == "conn":
                if conn is not None and not (pos == 0 and m.group() == "--"):
                    return False
                conn = m.group()
            else:
                assert group is not None  # each alternative of _TOKEN is a named group
                kind = _KINDS[group]
                if last is not None and (conn is None or (conn not in _BRACKETS and last != kind)):
                    return False
                if kind == "word" and not self.known(m.group()):
                    return False
                last, conn = kind, None
            pos = m.end()
        return last is not None and conn in (None, "-", "]'s")

    def repair(self, text: str) -> tuple[str, list[tuple[str, str]], list[str]]:
        """The text with its joins split; the (left, right) of each split; the pieces left
        unsplit that are not valid (names, new words)."""
        splits = []
        unknown = []
        out = []
        offset = 0
        quotes = [i for i, c in enumerate(text) if c == '"'] if '"' in text else []
        for chunk in text.split(" "):
            i = None if self.valid(chunk) else self.split_at(chunk, quotes, offset)
            if i is None:
                out.append(chunk)
                if not self.valid(chunk):
                    unknown.append(chunk)
            else:
                out += [chunk[:i], chunk[i:]]
                splits.append((chunk[:i], chunk[i:]))
            offset += len(chunk) + 1
        return " ".join(out), splits, unknown

    def split_at(self, chunk: str, quotes: list[int], offset: int) -> int | None:
        """Where to split a piece that is not valid, if anywhere (it starts at `offset` of its
        text, whose double quotes are at `quotes`)."""
        if len(chunk) > MAX_JOINED:
            return None
        best = None
        for i in range(1, len(chunk)):
            a, b = chunk[:i], chunk[i:]
            x, y = a[-1], b[0]
            if x == '"' and bisect.bisect_left(quotes, offset + i - 1) % 2 == 0:
                continue  # an opening quote stays with the words after it
            if y == '"' and bisect.bisect_left(quotes, offset + i) % 2 == 1:
                continue  # a closing quote stays with the words before it
            if not (self.valid(a) and self.valid(b)):
                continue
            wa, wb = WORD.findall(a), WORD.findall(b)
            left, right = (wa[-1], wb[0]) if wa and wb else ("", "")
            pair = self.pairs.get(f"{left.lower()} {right.lower()}", 0)
            if "'" in (x, y):
                # after the apostrophe ("players' graveyards") unless it opens a quote ("'if'")
                strength = -1
                opens = y == "'" and self.core(b).endswith("'")
                prefer = int((x == "'") != opens)
            elif x.isalpha() and y.isalpha():
                strength, prefer = (1 if x.islower() and y.isupper() else 0), 0
                if strength == 0 and not pair and not left[:1].isupper():
                    continue  # "eleven" is not "el even"
            else:
                strength, prefer = 2, 0
            freq = min(self.words.get(left.lower(), 0), self.words.get(right.lower(), 0))
            key = (strength, prefer, pair, freq)
            if best is None or key > best[0]:
                best = (key, i)
        return None if best is None else best[1]

    def correct(self, text: str) -> tuple[str, int]:
        """The text with the hand corrections applied, and how many applied."""
        count = 0
        for old, new in self.corrections:
            if old in text:
                count += text.count(old)
                text = text.replace(old, new)
        return text, count


@lru_cache(maxsize=1)
def joins() -> Joins:
    """The join repairer with the vocabulary of the official editions."""
    data = json.loads(VOCABULARY.read_text(encoding="utf-8"))
    return Joins(data["words"], data["pairs"], data["tokens"], data["corrections"])
