"""The annotated Magic Tournament Rules in DokuWiki markup, English beside Chinese: a folder.

Layout, as measured in data/tournament/mtr-2026-02-27-annotated/ (UTF-8, LF): `chapter_1.md` ..
`chapter_10.md`, `appendix_a.md` and `appendix_b.md` hold the document; `mtr.md` (the wiki's
cover: the Chinese title, "//2026年 2月 27日生效//", a list of appendices A-F), `intro.md` (the
unnumbered introduction, Chinese only) and `README.md` (the converter's index, "**生效日期**:
2026年2月27日") hold no entries. A chapter file is a navigation line, the chapter heading
`====== MTR 3. 比赛规则 ======` (Chinese; chapter 1 adds "Tournament Fundamentals"), then per
entry `<BOOKMARK:mtr3-1>` and `===== MTR 3.1 Tiebreakers 同分处理 =====` (English title, then
Chinese), and a navigation box (`<WRAP …>` around links to the neighbouring chapters) at the
end. The appendices are Chinese only: `====== 附录A～与过往版本之间的更动 ======`, paragraphs,
lists, `=== … ===` sub-headings and tables (`^ head ^`, `| cell |`).

Traps, all in the real files:

- The English is bold, one `**…**` span a paragraph, mostly one a line ended by the line break
  `\\\\`; but a span may run over two lines (`**…Sewers of Estark,` / `Windseeker Centaur…**`,
  `**…each match.` / `**\\\\`: joined with a space), two may share a line (`**English**\\\\
  **中文**\\\\`), and not all bold is English: the Chinese is bold too where it has no
  annotation (`**在比赛中，…**`), and list items and headings carry both languages in one run
  (`**• Tournament Organizer 比赛主办人**`, `=== Regular 一般级别 ===`, `**• Secrets of
  Strixhaven™ April 17, 2026 - 斯翠海文的秘密™ 2026年4月17日**`).
- `++anchor|commentary++` is DokuWiki's folded text: the anchor is printed, the commentary shown
  on a click (mtr.md says so). The anchor is the Chinese translation of the English before it,
  or a piece of it (one English paragraph may have three anchors, each with its commentary),
  sometimes both languages of a list item or heading (`++• Sealed Deck 现开赛|…++`,
  `++Constructed Formats 构组赛制|…++`), or a placeholder (`++...|…++`). Only the commentary
  is an annotation. A translation may go on after its block (1.12: `…可于此处获取：|…++` then
  `[[https://…]]。`). A `|` inside a `[[link|label]]` does not end the anchor.
- Plain (not bold) lines are official text too: the sets and cards of chapter 6 (`  * Wilds of
  Eldraine™ 艾卓仙踪`, `  * 先父觉醒/Abuelo’s Awakening`, `  * 龙命连结点Nexus of Fate`,
  `  * Chaos Orb`: a card never printed in Chinese), the alternating English and Chinese items
  of 7.2 and 10.1, the table of 8.5 (`|Player 1B—card 1 牌手1B—第1张|…|`). `  * ` is a
  bulleted list item, `  - ` a numbered one (3.1's tiebreakers, numbered in the MTR too).
- Examples are marked: "Example:"/"示例：" paragraphs (5.2; 8.5's, with the table after it)
  and the items after an "//Examples//"/"//示例//" heading (4.3, 4.8). They become the entry's
  `examples`, without the label or the item's bullet and number; a table row after an example
  is a line of it.
- 10.4's four images of playoff brackets (`{{ :mtr:10.1.png |}}`) have no text: left out.

Each run of text is read by its script. Without Chinese it is English (without letters at all,
"...", it is nothing); Chinese from its first character it is Chinese, except that a list item
"中文/English" also gives the English edition its English name (the Chinese keeps the item as
printed; a Chinese remark on it, "(2025年11月10日生效)", is not English); English followed by
Chinese ("Standard 标准赛") is split at the last space before the first Chinese character (a
trailing " -" goes). An English list item that no Chinese-only item follows is printed as is in
the Chinese too ("Chaos Orb" between "均势/Balance" items). Consecutive Chinese pieces of one
English paragraph join into one paragraph, so that every chapter entry has as many paragraphs
in Chinese as in English. Markup becomes clean text: bold, italics and `\\\\` go, `[[target|
label]]` is its label and `[[url]]` the URL, bookmarks, `<WRAP>`, page includes, images and
navigation lines go, list items are lines "• …" or "1. …", a table row is its cells joined
with " | " (a cell of figures only, "15", belongs to both languages).

Annotations: each non-empty commentary is one of its entry's `annotations`, in both editions.
Its lines alternate English and Chinese: the English edition gets the English lines and the
Chinese edition the Chinese ones (a line is Chinese when Chinese characters make up a fair share
of it: "…Paul Baranay的这篇Magic Rules Tips。" is); a commentary in one language only goes whole
to both. Empty ones (`|\\\\ \\\\ ++`) give none. Commentary is never text, title or example.

Numbers and titles are the document's: "3" (kind "section", text "" here: no chapter has words
before its first entry) for `MTR 3.`, "3.1" (kind "rule") for `MTR 3.1`, "A" (kind "appendix")
for `附录A`. The Chinese titles are the headings'; the English ones the headings' where they
give one, otherwise (chapters 2-10, the appendices) the MTR's own English titles looked up by
the Chinese in `ENGLISH_TITLES` (noted; an unknown Chinese title leaves the English one empty).
The appendices have no English, so the English edition has their titles and no text. Both
editions are `partial`: appendices C-F, which mtr.md lists, are not in the folder.

Contract: `read(folder)` returns two editions of the same MTR, English ("en") then Chinese
("zh"), with the same entries (numbers and order), `document="mtr"`, the effective date the
folder states (mtr.md's "YYYY年M月D日生效", else README.md's "生效日期", else the latest change
appendix A lists; never a date in the chapters, which are the dates of card sets), `source`
the folder's name, and `notes` listing every repair. Anything unreadable raises `SourceError`
(file, line, what was expected), and nothing else does: a file that is not UTF-8, a missing
chapter or appendix file, a chapter without an `===== MTR N.M` heading, an appendix without its
heading, an annotation block that does not close, or does not open a line (every real one
does: a block that opens mid-line means a `++` was lost before it, and commentary would be
read as text), an entry number given twice, no effective date, a file instead of the folder.
`sniff` is False (a folder format); `sniff_folder` is True for a folder whose chapter_1.md has
`===== MTR ` headings.
"""

from __future__ import annotations

import bisect
import codecs
import re
from datetime import date
from pathlib import Path
from typing import NamedTuple

from crlookup.core import documents
from crlookup.core.chinese import HAN_CHARS
from crlookup.core.errors import SourceError
from crlookup.core.model import Edition, Rule, Source

FOLDER = True
CHAPTERS = tuple(f"chapter_{n}.md" for n in range(1, 11))
APPENDICES = ("appendix_a.md", "appendix_b.md")
TITLE = "Magic: The Gathering Tournament Rules"
TITLE_ZH = "万智牌比赛规则"
DOCUMENT = "mtr"

#: The MTR's English titles of its sections and appendices, by the Chinese titles of this
#: translation (the chapter headings give the English only for chapter 1).
ENGLISH_TITLES = {
    "比赛基本要素": "Tournament Fundamentals",
    "比赛的各项机制": "Tournament Mechanics",
    "比赛规则": "Tournament Rules",
    "沟通交流": "Communication",
    "比赛违规": "Tournament Violations",
    "构组赛制规则": "Constructed Tournament Rules",
    "构筑赛制规则": "Constructed Tournament Rules",
    "限制赛制规则": "Limited Tournament Rules",
    "团队赛规则": "Team Tournament Rules",
    "双头巨人赛规则": "Two-Headed Giant Tournament Rules",
    "认证规则": "Sanctioning Rules",
    "与过往版本之间的更动": "Changes From Previous Versions",
    "时间限制": "Time Limits",
    "平分处理释疑": "Tiebreaker Explanation",
    "限制赛中推荐的补充包构成": "Recommended Play Booster Mix for Limited Tournaments",
    "瑞士式比赛中推荐进行的局数": "Recommended Number of Rounds in Swiss Tournaments",
    "各比赛计划的执法严格度": "Rules Enforcement Levels of Programs",
}

_CJK_CHARS = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK = re.compile(f"[{_CJK_CHARS}]")
_HAN = re.compile(f"[{HAN_CHARS}]")  # one character (crlookup.core.chinese.HAN is a run)
_LATIN = re.compile(r"[A-Za-z]")
_HEADING = re.compile(r"^[ \t]*(={2,6})[ \t]*(.*?)[ \t]*={2,6}[ \t]*$")
_LIST = re.compile(r"^(?: {2,}|\t)[ \t]*([*-])[ \t]+")
_ROW = re.compile(r"^[ \t]*[|^]")
_NAVIGATION = re.compile(r"^[ \t|]*(?:\[\[:[^\]\n]*\]\][ \t|]*)+$")
_BAR = re.compile(r"\[\[|\]\]|\|")
_MARKUP = re.compile(r"[\[<{*\\/\t\u00a0•]|  ")
_PLAIN = re.compile(r"[^\n\[*\\+]+")
_IMAGE = re.compile(r"\{\{\s*:?([^}|\s]+\.(?:png|jpe?g|gif|svg))", re.I)
_TAG = re.compile(r"</?(?:BOOKMARK|WRAP)\b[^>\n]*>", re.I)
_LINK = re.compile(r"\[\[([^\]\n|]*)(?:\|([^\]\n]*))?\]\]")
_INCLUDE = re.compile(r"\{\{[^}\n]*\}\}")
_ITALIC = re.compile(r"(?<!:)//")
_SPACES = re.compile(r"[ \t\u00a0]+")
_PREFIX = re.compile(r"^(?:•\s*|\d{1,2}\.\s+)+")
_RULE = re.compile(r"^MTR\s*(\d{1,2})\.(\d{1,2})(?![\d.])\.?\s*(.*)$")
_SECTION = re.compile(r"^MTR\s*(\d{1,2})\.?(?![\d.])\s*(.*)$")
_APPENDIX = re.compile(r"^(?:附录|Appendix)\s*([A-Z])(?![A-Za-z])\s*[～~\-–—:：]?\s*(.*)$")
# A Chinese remark at the end of an English name: "(2025年11月10日生效)".
_CJK_REMARK = re.compile(f"\\s*[(（][^()（）]*[{_CJK_CHARS}][^()（）]*[)）]\\s*$")
_SENTENCE = re.compile("[，。；：！？、]")  # Chinese punctuation of a sentence, not of a name
_EXAMPLE_EN = re.compile(r"^Examples?\s*[:.]\s*", re.I)
_EXAMPLE_ZH = re.compile(r"^(?:示例|例)\s*[:：]\s*")
_EXAMPLES_HEADING = re.compile(r"^(?:Examples?|示例|例)\s*[:：]?$", re.I)
_COVER_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*生效")
_README_DATE = re.compile(r"生效日期\W{0,6}(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
_CHANGE_DATE = re.compile(r"^(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日$")
_COVER_TITLE = re.compile(r"^[ \t]*======[ \t]*(.*?)[ \t]*======[ \t]*$", re.M)
_README_TITLE = re.compile(r"^#[ \t]+([^\n(（]+)", re.M)


# --- detection -----------------------------------------------------------------------------


def sniff(data: bytes) -> bool:
    """Never a single file: the annotated MTR is a folder (`sniff_folder`)."""
    return False


def sniff_folder(path: Path) -> bool:
    """A folder whose chapter_1.md has `===== MTR ` rule headings."""
    try:
        with open(Path(path) / CHAPTERS[0], "rb") as f:
            head = f.read(400_000)
    except OSError:
        return False
    return b"===== MTR " in head


# --- reading -------------------------------------------------------------------------------


class _Text(NamedTuple):
    """A run of the document's own text: a paragraph, a list item, a heading or a table row."""

    line: int
    text: str  # clean text; for a row, its cells joined with "\t"
    kind: str  # "text", "item" (a "• …" or "1. …" line), "list" (a list line `  * `), "row"


class _Blank(NamedTuple):
    line: int


class _Note(NamedTuple):
    line: int
    body: str  # the commentary of a `++anchor|commentary++` block, as written


class _Heading(NamedTuple):
    line: int
    level: int
    text: str


_Event = _Text | _Blank | _Note | _Heading


class _Entry(NamedTuple):
    number: str
    kind: str
    title_en: str
    title_zh: str
    source: Source
    events: tuple[_Event, ...]


def read(path: str | Path, data: bytes | None = None) -> list[Edition]:
    """The English and the Chinese edition of the annotated MTR in folder `path`."""
    folder = Path(path)
    if data is not None or not folder.is_dir():
        raise SourceError(
            folder,
            None,
            "a folder of the annotated MTR (chapter_1.md … appendix_b.md)",
            "no folder",
        )
    notes: list[str] = []
    entries: list[_Entry] = []
    for name in CHAPTERS + APPENDICES:
        file = folder / name
        if not file.is_file():
            raise SourceError(
                file,
                None,
                f"the chapter and appendix files {CHAPTERS[0]} … {APPENDICES[-1]}",
                "no such file",
            )
        text = _decode(file)
        entries.extend(_File(name, text, notes).entries())
    seen: dict[str, Source] = {}
    for e in entries:
        if e.number in seen:
            first = seen[e.number]
            raise SourceError(
                e.source.file,
                e.source.line,
                f"a new entry number (MTR {e.number} is at {first.file}:{first.line})",
                e.number,
            )
        seen[e.number] = e.source
    day, where = _effective_date(folder, entries)
    notes.insert(0, f"effective date {day.isoformat()} from {where}")
    missing = sorted(set("ABCDEF") - {e.number for e in entries if e.kind == "appendix"})
    if missing:
        notes.append(
            "appendices " + ", ".join(missing) + " are not in the folder (mtr.md lists A-F)"
        )
    if (folder / "intro.md").is_file():
        notes.append("intro.md (the unnumbered introduction, in Chinese only) is not an entry")
    en, zh, own = _editions(entries, notes)
    zh_title = _chinese_title(folder)
    en_notes = (*notes, *own["en"])
    zh_notes = (*notes, *own["zh"])
    return [
        Edition(
            "en",
            day,
            folder.name,
            tuple(en),
            title=TITLE,
            partial=True,
            notes=en_notes,
            document=DOCUMENT,
        ),
        Edition(
            "zh",
            day,
            folder.name,
            tuple(zh),
            title=zh_title,
            partial=True,
            notes=zh_notes,
            document=DOCUMENT,
        ),
    ]


def _decode(file: Path) -> str:
    try:
        data = file.read_bytes()
    except OSError as e:
        raise SourceError(file, None, "a readable file", e.strerror) from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceError(file, line, "UTF-8 text", data[e.start : e.start + 4].hex(" ")) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _optional_text(file: Path) -> str | None:
    """A file of the folder that may be missing (mtr.md, README.md); None if it is."""
    return _decode(file) if file.is_file() else None


def _effective_date(folder: Path, entries: list[_Entry]) -> tuple[date, str]:
    found = []
    for name, pattern in (("mtr.md", _COVER_DATE), ("README.md", _README_DATE)):
        text = _optional_text(folder / name)
        if text is not None and (m := pattern.search(text)):
            line = text.count("\n", 0, m.start()) + 1
            found.append((_day(m, folder / name, line), f"{name}:{line}"))
    if found:
        day, where = found[0]
        others = [f"{d.isoformat()} ({w})" for d, w in found[1:] if d != day]
        if others:
            where += "; another date stated: " + ", ".join(others)
        return day, where
    for e in entries:  # the latest change that appendix A lists: this version's date
        if e.number == "A":
            for event in e.events:
                if isinstance(event, _Heading) and (m := _CHANGE_DATE.match(event.text)):
                    return _day(m, e.source.file, event.line), (
                        f"the latest change listed in {e.source.file}:{event.line} "
                        "(mtr.md and README.md state none)"
                    )
    raise SourceError(
        folder,
        None,
        "an effective date: 'YYYY年M月D日生效' in mtr.md, '生效日期' in README.md or a dated "
        "change in appendix_a.md",
    )


def _day(m: re.Match, file: str | Path, line: int) -> date:
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        raise SourceError(file, line, "a real date", m.group(0)) from None


def _chinese_title(folder: Path) -> str:
    cover = _optional_text(folder / "mtr.md")
    if cover is not None and (m := _COVER_TITLE.search(cover)) and _HAN.search(m.group(1)):
        return _clean(m.group(1))
    readme = _optional_text(folder / "README.md")
    if readme is not None and (m := _README_TITLE.search(readme)) and _HAN.search(m.group(1)):
        return m.group(1).strip()
    return TITLE_ZH


# --- one file: events and entries ----------------------------------------------------------


class _File:
    """One chapter or appendix file: its markup read into events, grouped into entries."""

    def __init__(self, name: str, text: str, notes: list[str]):
        self.name, self.s, self.notes = name, text, notes
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.joined: list[int] = []  # the lines where a bold span goes on to the next line

    def line(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def entries(self) -> list[_Entry]:
        events = self.events()
        entries: list[_Entry] = []
        current: list[_Event] | None = None
        head: tuple[str, str, str, str, int] | None = None
        appendix = self.name.startswith("appendix")
        if not appendix and not any(
            isinstance(e, _Heading) and e.level == 5 and _RULE.match(e.text) for e in events
        ):
            first = self.s.split("\n", 1)[0]
            raise SourceError(self.name, 1, "rule headings '===== MTR N.M Title 标题 ====='", first)

        def close() -> None:
            if head is not None and current is not None:
                number, kind, en, zh, line = head
                source = Source(self.name, line)
                entries.append(_Entry(number, kind, en, zh, source, tuple(current)))

        for event in events:
            entry = self._entry_heading(event, appendix) if isinstance(event, _Heading) else None
            if entry is not None:
                close()
                head, current = entry, []
            elif current is not None:
                current.append(event)
        close()
        if appendix and not entries:
            first = self.s.split("\n", 1)[0]
            raise SourceError(
                self.name, 1, "an appendix heading '====== 附录A～标题 ======'", first
            )
        images = _IMAGE.findall(self.s)
        if images:
            self.notes.append(f"{self.name}: {len(images)} images left out ({', '.join(images)})")
        if self.joined:
            lines = ", ".join(str(n) for n in self.joined)
            self.notes.append(
                f"{self.name}: bold spans over two lines joined with a space ({lines})"
            )
        if not appendix:
            chapter = self.name.removeprefix("chapter_").removesuffix(".md")
            if not any(e.kind == "section" and e.number == chapter for e in entries):
                self.notes.append(f"{self.name}: no chapter heading 'MTR {chapter}.'")
        return entries

    def _entry_heading(self, h: _Heading, appendix: bool) -> tuple[str, str, str, str, int] | None:
        """(number, kind, English title, Chinese title, line) of an entry's heading, or None."""
        text = _clean(h.text)
        if appendix:
            m = _APPENDIX.match(text)
            if not m or h.level < 5:
                return None
            number, kind, title = m.group(1), "appendix", m.group(2)
        elif m := _RULE.match(text):
            number, kind, title = f"{int(m.group(1))}.{int(m.group(2))}", "rule", m.group(3)
        elif (m := _SECTION.match(text)) and h.level >= 5:
            number, kind, title = str(int(m.group(1))), "section", m.group(2)
        else:
            return None
        en, zh = _split(title, heading=True)
        if not en and zh in ENGLISH_TITLES and kind != "rule":
            en = ENGLISH_TITLES[zh]
            self.notes.append(f"{number}: English title {en!r} for {zh!r} (the heading has none)")
        elif not en:
            self.notes.append(f"{self.name}:{h.line}: MTR {number} has no English title")
        return number, kind, en, zh, h.line

    def events(self) -> list[_Event]:
        s = self.s
        out: list[_Event] = []
        buf: list[str] = []
        start = 0  # where the run in buf started
        kind = "text"
        bold = False
        ordinal = 0  # the number of the last item of a numbered list (`  - `), 0 outside one
        pos, n = 0, len(s)

        def flush() -> None:
            nonlocal kind
            text = _clean("".join(buf))
            if text:
                if kind == "text" and _PREFIX.match(text):
                    kind = "item"  # a bold "• …" or "1. …" line
                out.append(_Text(self.line(start), text, kind))
            buf.clear()
            kind = "text"

        while pos < n:
            if pos == 0 or s[pos - 1] == "\n":
                end = s.find("\n", pos)
                end = n if end < 0 else end
                raw = s[pos:end]
                if m := _HEADING.match(raw):
                    flush()
                    if bold:
                        self.notes.append(f"{self.name}:{self.line(pos) - 1}: unclosed bold")
                    bold, ordinal = False, 0
                    out.append(_Heading(self.line(pos), len(m.group(1)), m.group(2)))
                    pos = end + 1
                    continue
                if not raw.strip() or _NAVIGATION.match(raw):
                    flush()
                    bold, ordinal = False, 0
                    out.append(_Blank(self.line(pos)))
                    pos = end + 1
                    continue
                if not bold and _ROW.match(raw):
                    flush()
                    out.append(_Text(self.line(pos), _row(raw), "row"))
                    pos = end + 1
                    continue
                if not bold and (m := _LIST.match(raw)):
                    flush()
                    if m.group(1) == "-":
                        ordinal += 1
                        buf.append(f"{ordinal}. ")
                    else:
                        ordinal = 0
                        buf.append("• ")
                    start, kind = pos, "list"
                    pos += m.end()
                    continue
                if not bold:
                    ordinal = 0
            if not buf:
                start = pos
            c = s[pos]
            if c == "\n":
                if bold:
                    buf.append(" ")
                    self.joined.append(self.line(pos))
                else:
                    flush()
                pos += 1
            elif s.startswith("[[", pos) and (m := _LINK.match(s, pos)):
                buf.append(m.group())
                pos = m.end()
            elif s.startswith("**", pos):
                bold = not bold
                buf.append("**")
                pos += 2
            elif s.startswith("\\\\", pos):
                flush()
                pos += 2
            elif s.startswith("++", pos):
                flush()
                pos = self._annotation(pos, out)
            else:  # plain text up to the next character that may start markup
                end = m.end() if (m := _PLAIN.match(s, pos)) else pos + 1
                buf.append(s[pos:end])
                pos = end
        flush()
        return out

    def _annotation(self, pos: int, out: list[_Event]) -> int:
        """Read the `++anchor|commentary++` block at `pos` into events; where it ends."""
        s = self.s
        close = s.find("++", pos + 2)
        inner = s[pos + 2 : close]
        if close < 0 or any(
            (m := _HEADING.match(line)) and len(m.group(1)) >= 5 for line in inner.split("\n")
        ):
            raise SourceError(
                self.name,
                self.line(pos),
                "the closing '++' of the annotation that starts here",
                s[pos : pos + 40],
            )
        bar = _bar(inner)
        if s[s.rfind("\n", 0, pos) + 1 : pos].strip() or bar < 0:  # a "++" lost before here?
            raise SourceError(
                self.name,
                self.line(pos),
                "an annotation block '++anchor|commentary++' at the start of a line",
                s[pos : pos + 40],
            )
        anchor, body = inner[:bar], inner[bar + 1 :]
        for piece in re.split(r"\\\\|\n", anchor):
            text = _clean(piece)
            if text:
                kind = "item" if text.startswith("•") else "text"
                out.append(_Text(self.line(pos), text, kind))
        out.append(_Note(self.line(pos), body))
        return close + 2


def _bar(inner: str) -> int:
    """The position of the `|` between anchor and commentary (not one inside a [[link|label]])."""
    depth = 0
    for m in _BAR.finditer(inner):
        if m.group() == "[[":
            depth += 1
        elif m.group() == "]]":
            depth = max(depth - 1, 0)
        elif not depth:
            return m.start()
    return -1


def _row(raw: str) -> str:
    """A table row's cells, clean, joined with a tab (split by language later, cell by cell)."""
    cells, depth, cell, i = [], 0, [], 0
    raw = raw.strip()
    while i < len(raw):
        if raw.startswith("[[", i):
            depth, i = depth + 1, i + 2
            cell.append("[[")
        elif raw.startswith("]]", i) and depth:
            depth, i = depth - 1, i + 2
            cell.append("]]")
        elif raw[i] in "|^" and not depth:
            cells.append("".join(cell))
            cell, i = [], i + 1
        else:
            cell.append(raw[i])
            i += 1
    cells.append("".join(cell))
    return "\t".join(c for c in (_clean(c) for c in cells) if c)


def _link(m: re.Match) -> str:
    target, label = m.group(1).strip(), (m.group(2) or "").strip()
    return label or target.lstrip(":")


def _clean(text: str) -> str:
    """Inline DokuWiki markup as clean text."""
    if not _MARKUP.search(text):
        return text.strip()
    text = _LINK.sub(_link, text)
    text = _TAG.sub("", text)
    text = _INCLUDE.sub("", text)
    text = text.replace("**", "").replace("\\\\", " ")
    text = _ITALIC.sub("", text)
    text = _SPACES.sub(" ", text).strip()
    return re.sub(r"^•\s*", "• ", text)


# --- languages -----------------------------------------------------------------------------


def _split(text: str, *, item: bool = False, heading: bool = False) -> tuple[str, str]:
    """The English and the Chinese of a run of text ("" for a language it lacks)."""
    m = _PREFIX.match(text)
    prefix, body = (m.group(), text[m.end() :]) if m else ("", text)
    if prefix and not prefix.endswith(" "):
        prefix += " "  # a lone "•"
    first = _CJK.search(body)
    if first is None:
        if _LATIN.search(body):
            return prefix + body, ""
        return "", ""  # no words in either language ("...", a lone bullet)
    if first.start() == 0:
        if item or heading:  # "先父觉醒/Abuelo’s Awakening", "比赛基本要素 Tournament Fundamentals"
            core = _CJK_REMARK.sub("", body)
            last = max((m.end() for m in _CJK.finditer(core)), default=0)
            tail = core[last:].strip().lstrip("/／").strip()
            name = core[:last].strip()
            if _LATIN.search(tail) and not _CJK.search(tail) and not _SENTENCE.search(name):
                zh = body if item else name
                return prefix + tail, prefix + zh
        return "", prefix + body
    cut = body.rfind(" ", 0, first.start())
    english = body[:cut].rstrip(" -–—/") if cut > 0 else ""
    if not _LATIN.search(english):
        return "", prefix + body
    return prefix + english, prefix + body[cut + 1 :].strip()


def _split_row(row: str) -> tuple[str, str]:
    """A table row in each language: cells without words in either go to both."""
    en, zh = [], []
    for cell in row.split("\t"):
        e, z = _split(cell)
        if not e and not z:
            en.append(cell)
            zh.append(cell)
        else:
            en.append(e)
            zh.append(z)
    has = {"en": any(_LATIN.search(c) for c in en), "zh": any(_CJK.search(c) for c in zh)}
    return (
        documents.CELLS.join(c for c in en if c) if has["en"] else "",
        documents.CELLS.join(c for c in zh if c) if has["zh"] else "",
    )


def _is_chinese(line: str) -> bool:
    """A line of commentary in Chinese: Chinese characters make up a fair share of it."""
    han = len(_HAN.findall(line))
    return han > 0 and han * 3 >= len(_LATIN.findall(line))


def _commentary(body: str) -> tuple[str, str, bool] | None:
    """The English and the Chinese of a commentary, and whether it was split; None if empty."""
    pieces = (_LIST.sub("• ", p) for p in re.split(r"\\\\|\n", body))
    lines = [t for t in (_clean(p) for p in pieces) if t]
    if not lines:
        return None
    en = [t for t in lines if not _is_chinese(t)]
    zh = [t for t in lines if _is_chinese(t)]
    if en and zh:
        return "\n".join(en), "\n".join(zh), True
    whole = "\n".join(lines)
    return whole, whole, False


# --- assembling the editions ---------------------------------------------------------------


class _Side:
    """The text of one entry in one language, built piece by piece."""

    def __init__(self, lang: str):
        self.lang = lang
        self.paragraphs: list[str] = []
        self.examples: list[str] = []
        self.open = False  # the last paragraph may be continued by the next piece
        self.mode = ""  # "example": in an "Example:" paragraph; "list": after "Examples"

    def add(self, text: str, kind: str, joinable: bool) -> None:
        label = _EXAMPLE_EN if self.lang == "en" else _EXAMPLE_ZH
        if _EXAMPLES_HEADING.match(text):
            self.mode, self.open = "list", False
            return
        if kind == "row" and self.mode == "example" and self.examples:
            self.examples[-1] += "\n" + text
            return
        if self.mode == "list" and kind in ("item", "list"):
            self.examples.append(_PREFIX.sub("", text).strip())
            self.open = False
            return
        if joinable and self.open and kind == "text" and self.mode != "list":
            target = self.examples if self.mode == "example" else self.paragraphs
            target[-1] += text
            return
        if m := label.match(text):
            self.mode, self.open = "example", True
            self.examples.append(text[m.end() :])
            return
        self.mode = ""
        self.paragraphs.append(text)
        self.open = kind in ("text", "item", "list")


def _untranslated(item: _Text, after: tuple[_Event, ...]) -> bool:
    """An English list item the Chinese prints as is: a list line (not a bold paragraph) that
    no Chinese list item translates (the next event is not a Chinese-only list item)."""
    if item.kind != "list":
        return False
    following = after[0] if after else None
    if not isinstance(following, _Text) or following.kind != "list":
        return True
    en, zh = _split(following.text, item=True)
    return bool(en) or not zh  # "神秘导师/Mystical Tutor" is the next card, not a translation


def _editions(
    entries: list[_Entry], notes: list[str]
) -> tuple[list[Rule], list[Rule], dict[str, list[str]]]:
    en_rules: list[Rule] = []
    zh_rules: list[Rule] = []
    tally = dict.fromkeys(("split", "whole", "empty", "card names", "remarks", "untranslated"), 0)
    for e in entries:
        en, zh = _Side("en"), _Side("zh")
        en_notes: list[str] = []
        zh_notes: list[str] = []
        for i, event in enumerate(e.events):
            if isinstance(event, _Blank):
                en.open = zh.open = False
            elif isinstance(event, _Heading):
                e_text, z_text = _split(_clean(event.text), heading=True)
                if e_text:
                    en.add(e_text, "heading", False)
                if z_text:
                    zh.add(z_text, "heading", False)
                en.open = zh.open = False
            elif isinstance(event, _Note):
                parts = _commentary(event.body)
                if parts is None:
                    tally["empty"] += 1
                    continue
                tally["split" if parts[2] else "whole"] += 1
                en_notes.append(parts[0])
                zh_notes.append(parts[1])
            else:
                if event.kind == "row":
                    e_text, z_text = _split_row(event.text)
                else:
                    e_text, z_text = _split(event.text, item=event.kind in ("item", "list"))
                    if e_text and z_text and _CJK.match(_PREFIX.sub("", event.text)):
                        tally["card names"] += 1
                        if _CJK_REMARK.search(event.text):
                            tally["remarks"] += 1
                    if e_text and not z_text and _untranslated(event, e.events[i + 1 :]):
                        z_text = e_text  # "Chaos Orb" among "均势/Balance": printed as is
                        tally["untranslated"] += 1
                if e_text:
                    en.add(e_text, event.kind, False)
                    zh.open = False
                if z_text:
                    zh.add(z_text, event.kind, joinable=not e_text)
        for side, rules, anns, title in (
            (en, en_rules, en_notes, e.title_en),
            (zh, zh_rules, zh_notes, e.title_zh),
        ):
            rules.append(
                Rule(
                    number=e.number,
                    kind=e.kind,
                    text="\n".join(side.paragraphs),
                    source=e.source,
                    title=title,
                    examples=tuple(x for x in side.examples if x),
                    annotations=tuple(anns),
                )
            )
    notes.append(
        f"annotations: {tally['split'] + tally['whole']} commentaries, {tally['split']} split "
        f"into English and Chinese lines, {tally['whole']} in one language given whole to both "
        f"editions; {tally['empty']} empty ones dropped"
    )
    if tally["card names"]:
        notes.append(
            f"{tally['card names']} list items '中文/English' give the English edition the "
            f"English name; {tally['remarks']} Chinese remarks on them ('(2025年11月10日生效)') "
            "are left out of the English"
        )
    if tally["untranslated"]:
        notes.append(
            f"{tally['untranslated']} list items in English only that no Chinese item follows "
            "(card names never printed in Chinese: 'Chaos Orb') are in the Chinese edition too"
        )
    own: dict[str, list[str]] = {"en": [], "zh": []}  # the notes of one edition only
    empty = [r.number for r in en_rules if r.kind != "section" and not r.text]
    if empty:
        own["en"].append("no English text in the source for " + ", ".join(empty) + " (title only)")
    return en_rules, zh_rules, own
