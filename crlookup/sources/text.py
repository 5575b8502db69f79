"""The official text format: MagicCompRules*.txt as Wizards publishes it (2003 on).

Layout: a title, "These rules are effective (or current) as of <date>.", an introduction, a
contents list that repeats every chapter and section title, the body ("1. Game Concepts",
"100. General", "100.1. ...", "100.1a ...", "Example: ..."), "Glossary" (a term line, its
definition lines, a blank line), "Credits". Before July 2009 the numbering is the old one
(chapters 1-6, sections 100-6xx, e.g. 502.35b) in the same layout.

Contract: every numbered line of the body becomes one entry with its number and text as
printed (rules end with a period, subrules don't; the typos "119.1d.", "606.5" and
"901.4.All" are read for what they are and noted); indented lines continue the entry above;
"Example:" lines are its examples; `_italic_` markers are dropped.

The Chinese translation (cr-zh-archive.tar.xz, `zh`) is the same layout in Chinese (`LAYOUTS`):
"万智牌完整规则", "此规则于2026年4月17日起生效。", "702.19. 践踏", "例如：…", "词汇表",
"版权信息". Its traps: 2022-06-10 prints some numbers without the space after them
("100.6b牌手可以…", read and noted), and one example begins "例如，" (comma, not colon: the
English has "Example:" there; read as an example and noted).

- Wizards' numbering slips are entries of their edition as printed (`RuleTree(as_printed=True)`):
  a number printed twice (2024-09-17's 702.175a) is two entries in document order, a subrule
  without its rule (2021-09-24's 724.3a) or out of order (2006-10-01's 432.2b) is an entry
  where it stands; each is noted with its line, none is merged into its neighbour.
- Hard-wrapped files (2003-10-01, 2003-12-01, 2004-02-01: most body lines continue the line
  above) are read by paragraph: the lines of an entry, an example or an indented paragraph are
  joined as the word processor broke them (at a space it kept, or after a hyphen or dash), so
  a wrapped line that begins with a number ("419.8 "Sources of Damage."") is text.
- Glossary: a paragraph of one line is no term of its own but part of the definition above
  (the list of expansion symbols in 2003-03-15's "Expansion Symbol"); a glossary cut short
  (2013-02-01 ends in a term without its definition) keeps the terms it has. Both are noted.

Only a file that is no Comprehensive Rules text at all (no stated date, no numbered rules, a
byte that fits no encoding) raises `SourceError`; a local defect is noted with its line.
"""

from __future__ import annotations

import re
from datetime import date
from itertools import pairwise
from pathlib import PurePath
from typing import NamedTuple

from crlookup.core.chinese import HAN_CHARS
from crlookup.core.errors import SourceError
from crlookup.core.model import Edition, Source
from crlookup.sources import dates, glossary
from crlookup.sources.encoding import decode, split_lines
from crlookup.sources.tree import RuleTree

_CHAPTER = re.compile(r"^(\d)\.\s+(\S.*)$")
_SECTION = re.compile(r"^([1-9]\d{2})\.\s+(\S.*)$")
# "100.1. Text", "100.1a Text", and the typos "119.1d. Text", "606.5 Text", "901.4.All",
# "702. 37a Text" (2009-07-11); a number alone on its line is an entry without text.
# "100.6b牌手" (Chinese, 2022-06-10): no space before a Han character either.
RULE_LINE = re.compile(
    rf"^([1-9]\d{{2}}\.) ?(\d+)([a-z]*)(\.?)(?:\s+|(?=[A-Z“\"({HAN_CHARS}])|$)(.*)$"
)
# "_Magic_" is italic; "Wolf in ________ Clothing" (a card name with a blank) is not.
_ITALIC = re.compile(r"(?<![\w/_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w/_])")
# "306.b If an effect ..." (2008-10-01): a line that starts like a number but is none
_MISNUMBERED = re.compile(r"^\d{3}\.[a-z\d]")
EXAMPLE = "Example:"


class Layout(NamedTuple):
    """The words of the official layout in one language."""

    lang: str
    title: str  # the first line, by which the language is told
    example: str  # what starts an example line
    glossary: str  # the heading of the glossary
    credits: str  # the heading of the credits
    example_slips: tuple[str, ...] = ()  # an example's start as misprinted (read, and noted)
    # headings after the glossary, before the credits, of what is no glossary (the Chinese
    # translators' list of provisional names, "暂译名称列表", in 2022-06-10: skipped, noted)
    not_glossary: tuple[str, ...] = ()


LAYOUTS = (
    Layout("en", "Comprehensive Rules", EXAMPLE, "Glossary", "Credits"),
    Layout("zh", "万智牌完整规则", "例如：", "词汇表", "版权信息", ("例如，",), ("暂译名称列表",)),
)
_HYPHENS = "-‐‑–—"  # a hard-wrapped line that ends in one of these was broken inside a word


def clean(text: str) -> str:
    """Drop the `_italic_` markers of the older official files."""
    return _ITALIC.sub(r"\1", text) if "_" in text else text


def sniff(data: bytes) -> bool:
    head = _peek(data)
    return any(layout.title in head[:2000] for layout in LAYOUTS) and bool(
        re.search(r"(?:^|[\r\n])[ \t]*100\.1\.? ", head)
    )


def layout_of(lines: list[str]) -> Layout:
    """The layout whose title the file opens with (English unless it is the Chinese one)."""
    head = "\n".join(lines[:5])
    return next((lay for lay in LAYOUTS[1:] if lay.title in head), LAYOUTS[0])


def _peek(data: bytes) -> str:
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            return data[2:400_000].decode(codec, errors="replace")
    return data[:200_000].decode("utf-8", errors="replace")


def effective_date(lines: list[str], file: str, lang: str = "en") -> tuple[date, int]:
    """The effective date the text states near its top, and the line that states it."""
    for i, line in enumerate(lines[:80]):
        day = dates.stated(line, file, i + 1, langs=(lang,))
        if day:
            return day, i + 1
    sentence = (
        "此规则于<YYYY>年<M>月<D>日起生效。"
        if lang == "zh"
        else "These rules are effective as of <Month D, YYYY>."
    )
    raise SourceError(file, 1, f"the sentence '{sentence}' near the top")


class Line(NamedTuple):
    """A line as the body and glossary readers see it: a printed line, stripped; in a
    hard-wrapped file, the printed lines of one piece joined (`at` is the first of them)."""

    at: int  # 1-based line number in the file
    text: str
    indented: bool


def read(path: PurePath, data: bytes) -> list[Edition]:
    file = path.name
    lines = split_lines(decode(data, file))
    layout = layout_of(lines)
    day, dated = effective_date(lines, file, layout.lang)
    start = _body_start(lines, file)
    end = _find(lines, layout.glossary, start)
    stop = len(lines) if end is None else end
    wrapped = hard_wrapped(lines, start, stop, layout.example)
    tree = RuleTree(file, as_printed=True)
    _read_body(logical_lines(lines, start, stop, wrapped, example=layout.example), tree, layout)
    entries = []
    if end is not None:
        credits = _find(lines, layout.credits, end + 1)
        last = len(lines) if credits is None else credits
        for heading in layout.not_glossary:
            other = _find(lines, heading, end + 1)
            if other is not None and other < last:
                pairs = sum(1 for line in lines[other + 1 : last] if ":" in line)
                tree.notes.append(
                    f"line {other + 1}: {heading!r} ends the glossary ({pairs} lines of it, "
                    "before the credits, are no glossary terms: not read)"
                )
                last = other
        glossary_lines = logical_lines(
            lines,
            end + 1,
            last,
            wrapped,
            heads=2,
            example=layout.example,
        )
        entries = read_glossary(glossary_lines, file, tree.notes, cut=credits is None)
        if credits is None:
            tree.notes.append(f"line {len(lines)}: no Credits after the glossary (cut short)")
    title = clean(lines[0].strip()) or layout.title
    # a file cut short still parses: its contents list tells what is missing
    listed = {m.group(1) for line in lines[:start] if (m := _SECTION.match(line.strip()))}
    missing = sorted(listed - {r.number for r in tree.rules() if r.kind == "section"})
    if missing:
        tree.notes.append(
            f"{len(missing)} sections in the contents are missing from the body "
            f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}): partial"
        )
    return [
        Edition(
            lang=layout.lang,
            date=day,
            source=file,
            rules=tree.rules(),
            glossary=tuple(entries),
            title=title,
            partial=bool(missing),
            notes=tuple(tree.notes),
            dated=dated,
        )
    ]


def _find(lines: list[str], heading: str, start: int) -> int | None:
    for i in range(start, len(lines)):
        if lines[i].strip() == heading:
            return i
    return None


def _body_start(lines: list[str], file: str) -> int:
    """The chapter heading before the first numbered rule (past the contents list)."""
    first = next((i for i, line in enumerate(lines) if RULE_LINE.match(line.strip())), None)
    if first is None:
        raise SourceError(file, len(lines), "numbered rules such as '100.1. These Magic rules ...'")
    start = first
    j = first - 1
    while j >= 0:
        s = lines[j].strip()
        if s and not (_SECTION.match(s) or _CHAPTER.match(s)):
            break
        if s:
            start = j
        j -= 1
    return start


def hard_wrapped(lines: list[str], start: int, end: int, example: str = EXAMPLE) -> bool:
    """True if the body is hard-wrapped: most of its lines continue the line above them
    (not numbered, not an example, not indented, right after a line of text)."""
    printed = continued = 0
    for i in range(start + 1, end):
        s = lines[i]
        if not s.strip():
            continue
        printed += 1
        if (
            lines[i - 1].strip()
            and not s[:1].isspace()
            and not s.startswith(example)
            and not RULE_LINE.match(s)
        ):
            continued += 1
    return continued >= 20 and continued > printed / 4


def logical_lines(
    lines: list[str],
    start: int,
    end: int,
    wrapped: bool,
    heads: int = 1,
    example: str = EXAMPLE,
) -> list[Line]:
    """The lines `start`..`end` as the readers take them; blank lines stay (as empty text).

    In a hard-wrapped file, after the first `heads` lines of a paragraph (the entry's first
    line; in the glossary the term and the first definition line) a line that is neither
    indented nor an example continues the piece above.
    """
    out: list[Line] = []
    raw: list[str] = []  # the printed lines of the last piece, unstripped
    depth = 0  # lines of the current paragraph so far
    for i in range(start, end):
        printed = lines[i]
        s = printed.strip()
        indented = printed[:1].isspace()
        if wrapped and s and depth >= heads and not indented and not s.startswith(example):
            raw.append(printed)
            out[-1] = out[-1]._replace(text=unwrap(raw))
        else:
            raw = [printed]
            out.append(Line(i + 1, s, indented and bool(s)))
        depth = depth + 1 if s else 0
    return out


def unwrap(printed: list[str]) -> str:
    """Printed lines joined where the word processor broke them: at a space (kept at the end
    of the line), directly after a hyphen or dash, and with a space after any other end."""
    text = printed[0].strip()
    for before, line in pairwise(printed):
        broken_in_word = before[-1:] in _HYPHENS
        text += ("" if broken_in_word else " ") + line.strip()
    return text


def _read_body(lines: list[Line], tree: RuleTree, layout: Layout = LAYOUTS[0]) -> None:
    for line in lines:
        s = clean(line.text)
        if s:
            read_line(s, line.indented, line.at, tree, layout)


def read_line(
    s: str, indented: bool, line: int, tree: RuleTree, layout: Layout = LAYOUTS[0]
) -> None:
    """One stripped line of a rules body, official-text style.

    A numbered line is an entry; with a tree that is not `as_printed`, only if its number
    `fits` (otherwise it is text of the entry above, and noted)."""
    m = RULE_LINE.match(s)
    number = "".join(m.group(1, 2, 3)) if m else ""  # used only where m matched
    if m and (tree.as_printed or tree.fits(number)):
        letters, period, text = m.group(3, 4, 5)
        if s[len(m.group(1))] == " ":
            tree.notes.append(
                f"line {line}: {number} is printed with a space after its first period"
            )
        elif letters and period:
            tree.notes.append(f"line {line}: subrule {number} is printed with a period")
        elif not letters and not period:
            tree.notes.append(f"line {line}: rule {number} is printed without its period")
        elif text and not s[len(number) + len(period) :][:1].isspace():
            tree.notes.append(f"line {line}: no space after {number}{period}")
        tree.entry(number, text, line)
        return
    if s.startswith(layout.example):
        tree.example(s[len(layout.example) :].strip(), line)
        return
    slip = next((x for x in layout.example_slips if s.startswith(x)), None)
    if slip and tree.last is not None:
        tree.notes.append(f"line {line}: an example begins {slip!r}, read as an example")
        tree.example(s[len(slip) :].strip(), line)
        return
    if not indented:
        for pattern in (_SECTION, _CHAPTER):
            h = pattern.match(s)
            if h and tree.fits(h.group(1)):
                tree.heading(h.group(1), h.group(2), line)
                return
    if m:
        tree.notes.append(f"line {line}: {number} out of sequence, read as text")
    elif _MISNUMBERED.match(s) and tree.last is not None:
        tree.notes.append(
            f"line {line}: {s.split()[0]!r} is no rule number, read as text of {tree.last.number}"
        )
    tree.continuation(s, line)


def read_glossary(lines: list[Line], file: str, notes: list[str], *, cut: bool = False) -> list:
    """Paragraphs of a term line followed by definition lines.

    A paragraph of one line has no definition, so it is not a term: it continues the
    definition above. If the glossary is `cut` (no "Credits" after it) and its last paragraph
    is one line, that is a term whose definition was cut off: it is dropped. Both are noted.
    """
    entries: list[tuple[int, str, list[str]]] = []  # (line, term, definition lines)
    orphans: list[list[int]] = []  # per entry: the lines of one-line paragraphs it took in
    paragraphs = _paragraphs(lines)
    for k, para in enumerate(paragraphs):
        if len(para) > 1:
            (line, term), rest = para[0], para[1:]
            entries.append((line, term, [t for _, t in rest]))
            orphans.append([])
            continue
        line, text = para[0]
        if cut and k == len(paragraphs) - 1:
            notes.append(
                f"line {line}: the glossary ends in the term {text!r} without its definition "
                f"(the file is cut short): {len(entries)} terms kept"
            )
        elif not entries:
            notes.append(f"line {line}: {text!r} before the first glossary term, left out")
        else:
            entries[-1][2].append(text)
            orphans[-1].append(line)
    for (_, term, _), taken in zip(entries, orphans):
        if taken:
            notes.append(
                f"lines {taken[0]}-{taken[-1]}: {len(taken)} one-line paragraphs read as part "
                f"of the definition of {term!r}"
            )
    return [
        glossary.entry(term, "\n".join(definition), Source(file, line))
        for line, term, definition in entries
    ]


def _paragraphs(lines: list[Line]) -> list[list[tuple[int, str]]]:
    """Runs of non-blank lines as (line number, cleaned text)."""
    paragraphs: list[list[tuple[int, str]]] = []
    para: list[tuple[int, str]] = []
    for line in [*lines, Line(0, "", False)]:
        if line.text:
            para.append((line.at, clean(line.text)))
        elif para:
            paragraphs.append(para)
            para = []
    return paragraphs
