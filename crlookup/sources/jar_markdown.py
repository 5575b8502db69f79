"""Judging at Regular REL (JAR) in Markdown, converted from Wizards' PDF by a Korean judges'
project (data/tournament/jar-2019-05-03/JAR_en_2019-05-03.md).

Format (UTF-8, a BOM allowed), as measured in the one known file:

    https://wpn.wizards.com/.../mtg_jar_3may19_en.pdf     line 1: the PDF it came from
    ## 정규 규칙 적용 수준(REL)에서의 판정                the document's title, in Korean
    *2019년 5월 3일 업데이트됨*                          "updated May 3, 2019": the date
    Most **Magic™** players play for fun ...             the introduction, in paragraphs
    ## Common Issues                                      a part
    ### A player forgets a triggered ability (one…)      a case; its remedy follows
    ## General Unwanted Behaviors                         a part without cases: a list
     * Inadequate shuffling.                              (" * " items; an item may wrap
                                                          onto the next line), paragraphs
    -----------------                                     a rule, then an older Korean
    대부분의 매직 플레이어는 ...                          translation (©2014): not the JAR

Traps: the first `##` is the document's title in Korean, not a part (a first heading is the
title when only the URL stands before it and it names the document or is not in English); the
date is stated in Korean only (the PDF's name, "3may19", says it too); the Korean text after the
rule is another document; headings keep trailing spaces; emphasis marks (`**Magic™**`).

Contract: `read` returns ONE edition (lang "en", document "jar", title "Judging at Regular
REL") dated by the date line near the top (Korean "2019년 5월 3일" or English "May 3, 2019"),
else by the PDF's name in the first line; its entries, in document order, are `Rule`s:

- "introduction" (kind "section", title "Introduction"): the text before the first part (under
  the title heading), without the URL and the date line; left out when there is none;
- each part ("##") a section numbered "1", "2", ... in order (title "Common Issues"), its text
  the paragraphs before its first case ("" for Common Issues; the list of General Unwanted
  Behaviors, with items as lines starting "• ");
- each case ("###") kind "rule", title its heading as written, text its remedy. Its number is
  an id made from its title, not its place: the title's significant words (not "a", "the",
  "player", ...) before any parenthesis, at most five, lower case, joined with "-":
  "forgets-triggered-ability". Ids are unique in the edition ("-2" is added to a repeat, and
  noted) and contain no dots.

A heading deeper than "###" is a line of its entry's text. Paragraphs are joined with "\\n";
a wrapped line is joined to its paragraph or list item; inline Markdown (emphasis, links,
code, escapes) becomes plain text; quotes and dashes stay as written. `refs` stay empty. Each
entry's source is its heading's line (1-based, the URL being line 1). The text after a
horizontal rule that is mostly not in Latin letters is left out, and noted.

Bad input raises `SourceError` (file, line, what was expected) and nothing else: bytes that
are not UTF-8 text, no effective date, no part heading. `sniff` is True only for the JAR: a
first line naming the PDF (mtg_jar_...) or a title heading "Judging at Regular REL" (or its
Korean) at the top, and "Regular REL" in the text that follows.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from crlookup.core.errors import SourceError
from crlookup.core.model import Edition, Rule, Source
from crlookup.sources.dates import MONTHS
from crlookup.sources.encoding import split_lines

TITLE = "Judging at Regular REL"
INTRODUCTION = "introduction"  # the number of the introduction
MAX_WORDS = 5  # in a case's id
DATE_EXPECTED = (
    "an effective date: a line such as '2019년 5월 3일 업데이트됨' or 'Updated May 3, "
    "2019' near the top, or the PDF's name (mtg_jar_3may19_en.pdf) in the first line"
)

_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_RULE = re.compile(r"^[ \t]{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BULLET = re.compile(r"^[ \t]*[*+-][ \t]+(.*)$")
_NUMBERED = re.compile(r"^[ \t]*(\d{1,3})[.)][ \t]+(.*)$")
_URL_LINE = re.compile(r"^\s*<?https?://\S+?>?\s*$")
_KO_DATE = re.compile(r"(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일")
_EN_DATE = re.compile(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})\b", re.I)
_PDF_DATE = re.compile(r"mtg_jar_(\d{1,2})([a-z]{3,9})(\d{2}(?:\d{2})?)(?!\d)", re.I)
_SNIFF_TITLE = re.compile(r"judging at regular|정규 규칙 적용 수준", re.I)
_SNIFF_BODY = re.compile(r"Regular (?:REL|Rules Enforcement Level)")
MAX_DATE_LINE = 60  # a date line holds the date and a word or two, no more
_ABBREVIATIONS = {m[:3].lower(): i for m, i in MONTHS.items()}
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
#: Words left out of a case's id: articles, pronouns, "player", linking verbs, prepositions.
_STOP = """a an the player players their theirs they them he she his her it its this that these
those or and nor of in on at to into onto than then were was is are be been being has have had
with for from by as so"""
STOP_WORDS = frozenset(_STOP.split())


def sniff(data: bytes) -> bool:
    head = data[:4096]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    text = head.decode("utf-8", errors="replace")
    lines = [line.strip() for line in text.splitlines() if line.strip()][:6]
    if not lines:
        return False
    by_url = bool(_URL_LINE.match(lines[0])) and "mtg_jar" in lines[0].lower()
    by_title = any(_HEADING.match(line) and _SNIFF_TITLE.search(line) for line in lines[:3])
    return (by_url or by_title) and bool(_SNIFF_BODY.search(text))


def read(path: str | Path, data: bytes) -> list[Edition]:
    file = Path(path).name
    return [_Reader(file, split_lines(_decode(data, file))).edition()]


def _decode(data: bytes, file: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        found = data[e.start : e.start + 20].decode("latin-1")
        raise SourceError(file, line, "UTF-8 Markdown text", found) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise SourceError(file, line, "Markdown text", "a NUL byte")
    return text


class _Entry:
    """An entry being read: its heading and the raw lines under it."""

    __slots__ = ("kind", "line", "lines", "number", "title")

    def __init__(self, number: str, kind: str, title: str, line: int):
        self.number, self.kind, self.title, self.line = number, kind, title, line
        self.lines: list[str] = []


class _Reader:
    def __init__(self, file: str, lines: list[str]):
        self.file = file
        self.lines = lines
        self.notes: list[str] = []

    def edition(self) -> Edition:
        end = self.end()
        headings = {i: m for i in range(end) if (m := _HEADING.match(self.lines[i]))}
        url = self.url()
        title_at = self.title_heading(headings, url)
        first_part = next((i for i, m in headings.items() if _level(m) <= 2 and i != title_at), end)
        day, date_at = self.effective_date(url, first_part)
        intro_line = title_at + 1 if title_at is not None else 0  # 0: its first text line
        entries = [_Entry(INTRODUCTION, "section", "Introduction", intro_line)]
        parts = 0
        for i in range(end):
            m = headings.get(i)
            if i in (url, date_at, title_at) or _RULE.match(self.lines[i]):
                continue
            if m is not None and _level(m) <= 3:
                title = _inline(m.group(2))
                if _level(m) <= 2:
                    parts += 1
                    entries.append(_Entry(str(parts), "section", title, i + 1))
                else:
                    entries.append(_Entry("", "rule", title, i + 1))
            else:  # text; a heading below a case's is a line of it
                entries[-1].lines += ["", m.group(2), ""] if m else [self.lines[i]]
                if not entries[-1].line and self.lines[i].strip():
                    entries[-1].line = i + 1
        if not parts:
            raise SourceError(
                self.file, first_part + 1 if first_part < end else 1, "a part heading ('## …')"
            )
        rules = self.rules(entries)
        if day is None:
            raise SourceError(self.file, 1, DATE_EXPECTED, self.lines[0][:60] if self.lines else "")
        return Edition(
            lang="en",
            date=day,
            source=self.file,
            rules=tuple(rules),
            title=TITLE,
            notes=tuple(self.notes),
            document="jar",
        )

    def end(self) -> int:
        """The index of the line after the English text: a horizontal rule followed by text
        mostly not in Latin letters (up to the next rule) ends it."""
        rules = [i for i, line in enumerate(self.lines) if _RULE.match(line)]
        for i, after in zip(rules, [*rules[1:], len(self.lines)]):
            rest = "".join(self.lines[i + 1 : after])
            letters = [c for c in rest if c.isalpha()]
            latin = sum(c.isascii() for c in letters)
            if letters and latin * 2 < len(letters):
                last = max(j for j, text in enumerate(self.lines) if text.strip()) + 1
                self.notes.append(
                    f"lines {i + 2}–{last}, after the rule at line {i + 1}, are not in English "
                    "(another translation): left out"
                )
                return i
        return len(self.lines)

    def url(self) -> int | None:
        """The index of the first line when it is the URL of the PDF."""
        first = next((i for i, line in enumerate(self.lines) if line.strip()), None)
        if first is not None and _URL_LINE.match(self.lines[first]):
            return first
        return None

    def title_heading(self, headings: dict[int, re.Match], url: int | None) -> int | None:
        """The first heading, when nothing but the URL stands before it and it names the
        document ("Judging at Regular REL", in English or Korean) or is not in English: the
        document's title, not a part ("## Common Issues" first would be a part)."""
        if not headings:
            return None
        first = min(headings)
        before = [i for i in range(first) if self.lines[i].strip() and i != url]
        title = headings[first].group(2)
        letters = [c for c in title if c.isalpha()]
        foreign = sum(not c.isascii() for c in letters) * 2 > len(letters)
        if before or _level(headings[first]) > 2 or not (foreign or _SNIFF_TITLE.search(title)):
            return None
        self.notes.append(
            f"line {first + 1}: the heading {title!r} is the document's title (left by the "
            "converter), not a part: the text under it is the introduction"
        )
        return first

    def effective_date(self, url: int | None, before: int) -> tuple[date | None, int | None]:
        """The effective date and the index of the line stating it (a short line before the
        first part), else the date in the PDF's name."""
        from_url = None
        if url is not None and (m := _PDF_DATE.search(self.lines[url])):
            month = _ABBREVIATIONS.get(m.group(2)[:3].lower())
            year = int(m.group(3)) + (2000 if len(m.group(3)) == 2 else 0)
            if month is not None:
                from_url = self.real(year, month, int(m.group(1)), url, m.group(0))
        for i in range(before):
            line = self.lines[i].strip().strip("*_ \t")
            if i == url or len(line) > MAX_DATE_LINE:
                continue
            if m := _KO_DATE.search(line):
                day = self.real(int(m.group(1)), int(m.group(2)), int(m.group(3)), i, line)
            elif m := _EN_DATE.search(line):
                month = MONTHS[m.group(1).capitalize()]
                day = self.real(int(m.group(3)), month, int(m.group(2)), i, line)
            else:
                continue
            agrees = ""
            if from_url is not None:
                agrees = "agrees" if from_url == day else f"says {from_url.isoformat()}"
                agrees = f"; the PDF's name in line {url + 1 if url is not None else 1} {agrees}"
            self.notes.append(
                f"effective date {day.isoformat()} from line {i + 1} ({line!r}){agrees}"
            )
            return day, i
        if from_url is not None:
            self.notes.append(
                f"effective date {from_url.isoformat()} from the PDF's name in line "
                f"{url + 1 if url is not None else 1}: no line states it"
            )
        return from_url, None

    def real(self, year: int, month: int, day: int, i: int, found: str) -> date:
        try:
            return date(year, month, day)
        except ValueError:
            raise SourceError(self.file, i + 1, "a real date", found) from None

    def rules(self, entries: list[_Entry]) -> list[Rule]:
        used = {INTRODUCTION} | {e.number for e in entries if e.kind == "section"}
        out = []
        for e in entries:
            text = _paragraphs(e.lines)
            if e.number == INTRODUCTION and not text:
                continue
            if e.kind == "rule":
                e.number = self.unique(_slug(e.title), used, e.line)
            out.append(Rule(e.number, e.kind, text, Source(self.file, e.line), title=e.title))
        return out

    def unique(self, slug: str, used: set[str], line: int) -> str:
        number, n = slug, 1
        while number in used:
            n += 1
            number = f"{slug}-{n}"
        if number != slug:
            self.notes.append(f"line {line}: the case's id {slug!r} is taken: {number!r}")
        used.add(number)
        return number


def _level(m: re.Match) -> int:
    return len(m.group(1))


def _slug(title: str) -> str:
    """A case's id: the significant words of its title before any parenthesis, at most five.
    "A player forgets a triggered ability (one that uses...)" -> "forgets-triggered-ability"."""
    head = title.split("(", 1)[0]
    words = _WORD.findall(head) or _WORD.findall(title)
    words = list(dict.fromkeys(w.lower().replace("’", "").replace("'", "") for w in words))
    significant = [w for w in words if w not in STOP_WORDS] or words
    slug = "-".join(significant[:MAX_WORDS]) or "case"
    return f"case-{slug}" if slug.isdigit() or slug == INTRODUCTION else slug


def _paragraphs(lines: list[str]) -> str:
    """Markdown lines as paragraphs joined with "\\n": list items are lines of their own
    ("• ", "1. "), a wrapped line is joined to the paragraph or item it continues."""
    out: list[str] = []
    open_ = False  # whether the last line of `out` may go on
    for raw in lines:
        if not raw.strip():
            open_ = False
        elif m := _BULLET.match(raw):
            out.append("• " + _inline(m.group(1)))
            open_ = True
        elif m := _NUMBERED.match(raw):
            out.append(f"{m.group(1)}. {_inline(m.group(2))}")
            open_ = True
        elif open_:
            out[-1] = f"{out[-1]} {_inline(raw)}"
        else:
            out.append(_inline(raw))
            open_ = True
    return "\n".join(line for line in out if line.strip("• "))


def _inline(text: str) -> str:
    """Plain text of inline Markdown: links keep their text, emphasis and code marks go,
    escapes are resolved."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", text)
    text = re.sub(r"(?<![\w*\\])\*(?=\S)(.+?)(?<=[^\s\\])\*(?![\w*])", r"\1", text)
    text = re.sub(r"(?<![\w\\])_(?=\S)(.+?)(?<=[^\s\\])_(?!\w)", r"\1", text)
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|>~])", r"\1", text)
    text = re.sub(r"<br\s*/?>", " ", text)
    return " ".join(text.split())
