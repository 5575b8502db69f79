"""The official text format: MagicCompRules*.txt as Wizards publishes it (July 2009 on).

Layout: a title, "These rules are effective as of <date>.", an introduction, a contents list
that repeats every chapter and section title, the body ("1. Game Concepts", "100. General",
"100.1. ...", "100.1a ...", "Example: ..."), "Glossary" (a term line, its definition lines,
a blank line), "Credits".

Contract: every numbered line of the body becomes one entry with its number as printed
(rules end with a period, subrules don't; the typos "119.1d.", "606.5" and "901.4.All" are
read for what they are and noted); indented lines continue the entry above; "Example:" lines
are its examples; `_italic_` markers are dropped. Anything else raises `SourceError`.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from crlookup.model import Edition, Source
from crlookup.sources import SourceError, dates, glossary
from crlookup.sources.encoding import decode, split_lines
from crlookup.sources.tree import RuleTree

_CHAPTER = re.compile(r"^(\d)\.\s+(\S.*)$")
_SECTION = re.compile(r"^(\d{3})\.\s+(\S.*)$")
# "100.1. Text", "100.1a Text", and the typos "119.1d. Text", "606.5 Text", "901.4.All",
# "702. 37a Text" (2009-07-11).
RULE_LINE = re.compile(r"^(\d{3}\.) ?(\d+)([a-z]*)(\.?)(?:\s+|(?=[A-Z“\"(]))(.*)$")
# "_Magic_" is italic; "Wolf in ________ Clothing" (a card name with a blank) is not.
_ITALIC = re.compile(r"(?<![\w/_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w/_])")
EXAMPLE = "Example:"


def clean(text: str) -> str:
    """Drop the `_italic_` markers of the older official files."""
    return _ITALIC.sub(r"\1", text)


def sniff(data: bytes) -> bool:
    head = _peek(data)
    return "Comprehensive Rules" in head[:2000] and bool(re.search(r"(?:^|[\r\n])[ \t]*100\.1\.? ", head))


def _peek(data: bytes) -> str:
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            return data[2:400_000].decode(codec, errors="replace")
    return data[:200_000].decode("utf-8", errors="replace")


def effective_date(lines: list[str], file: str) -> date:
    for i, line in enumerate(lines[:80]):
        day = dates.stated(line, file, i + 1)
        if day:
            return day
    raise SourceError(
        file, 1, "the sentence 'These rules are effective as of <Month D, YYYY>.' near the top"
    )


def read(path: Path, data: bytes) -> list[Edition]:
    file = path.name
    lines = split_lines(decode(data, file))
    day = effective_date(lines, file)
    start = _body_start(lines, file)
    end = _find(lines, "Glossary", start)
    tree = RuleTree(file)
    _read_body(lines, start, len(lines) if end is None else end, tree)
    entries = []
    if end is not None:
        credits = _find(lines, "Credits", end + 1)
        entries = read_glossary(lines, end + 1, len(lines) if credits is None else credits, file)
    title = clean(lines[0].strip()) or "Magic: The Gathering Comprehensive Rules"
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
            lang="en",
            date=day,
            source=file,
            rules=tree.rules(),
            glossary=tuple(entries),
            title=title,
            partial=bool(missing),
            notes=tuple(tree.notes),
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


def _read_body(lines: list[str], start: int, end: int, tree: RuleTree) -> None:
    for i in range(start, end):
        raw = lines[i]
        s = clean(raw.strip())
        if not s:
            continue
        read_line(s, raw[:1].isspace(), i + 1, tree)


def read_line(s: str, indented: bool, line: int, tree: RuleTree) -> None:
    """One stripped line of a rules body, official-text style."""
    m = RULE_LINE.match(s)
    number = m and "".join(m.group(1, 2, 3))
    if m and tree.fits(number):
        letters, period, text = m.group(3, 4, 5)
        if s[len(m.group(1))] == " ":
            tree.notes.append(f"line {line}: {number} is printed with a space after its first period")
        elif letters and period:
            tree.notes.append(f"line {line}: subrule {number} is printed with a period")
        elif not letters and not period:
            tree.notes.append(f"line {line}: rule {number} is printed without its period")
        elif text and not s[len(number) + len(period) :][:1].isspace():
            tree.notes.append(f"line {line}: no space after {number}{period}")
        tree.entry(number, text, line)
        return
    if s.startswith(EXAMPLE):
        tree.example(s[len(EXAMPLE) :].strip(), line)
        return
    if not indented:
        for pattern in (_SECTION, _CHAPTER):
            h = pattern.match(s)
            if h and tree.fits(h.group(1)):
                tree.heading(h.group(1), h.group(2), line)
                return
    if m:
        tree.notes.append(f"line {line}: {number} out of sequence, read as text")
    tree.continuation(s, line)


def read_glossary(lines: list[str], start: int, end: int, file: str) -> list:
    """Paragraphs of a term line followed by definition lines."""
    entries = []
    para: list[tuple[int, str]] = []
    for i in range(start, end + 1):
        s = lines[i].strip() if i < end else ""
        if s:
            para.append((i + 1, clean(s)))
            continue
        if not para:
            continue
        if len(para) < 2:
            raise SourceError(file, para[0][0], "a glossary term followed by its definition", para[0][1])
        (line, term), rest = para[0], para[1:]
        entries.append(glossary.entry(term, "\n".join(t for _, t in rest), Source(file, line)))
        para = []
    return entries
