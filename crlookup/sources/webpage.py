"""A page of the rules saved as text from a Russian Magic rules website (one section per page).

The shipped example is cr-2010-07-16-en-section702-webpage.txt: the English text of section 702
(keyword abilities) of the rules effective July 16, 2010. Layout, as measured on that file:

* page chrome in Russian whose letters are mojibake (cp1251 bytes read as cp1252/latin-1):
  the site title "Ïîëíûå ïðàâèëà Magic: the Gathering" ("Полные правила Magic: the Gathering"),
  bars of table cells ("|", "| Áàçîâûå ïðàâèëà | Contents | Glossary |"), navigation lines
  ("7. Additional Rules << 701. Keyword Actions |", "7. Additional Rules 703. Turn-Based
  Actions >> |") and a footer ("| ã. Ìîñêâà |" = "| г. Москва |");
* the rules, one per line, numbered "702.1 Text" and "702.2a Text": rules are printed without
  their final period, so only the number (letters or not) tells a rule from a subrule;
* short lines without a number: mana symbols were images and are lost, and the text around
  each lost image went onto a line of its own ("...reduces the spell's cost by", ",", ", or",
  "."). The site dropped the "Example:" paragraphs (the official text of 2009 has 15 in 702)
  except for some such fragments: the ones after 702.21a and 702.48a are pieces of examples,
  which the page gives no way to tell from rule text, so they stay with the rule.

Contract: every numbered line is one entry, in document order, with its English text verbatim
(a number that cannot come next, e.g. a repeated one, is read as text and noted).
"Example:" lines are its examples. Unnumbered lines after a rule or example (blank lines between
them ignored) are fragments of it: they are joined onto its text with one space each (a break stands for a lost image; no symbol
is invented), and the joins are counted in the edition's notes. Chrome lines (the site title,
lines beginning or ending with "|") are dropped wherever they are; their mojibake is repaired
to recognise them and to report what they say. Other text before the first rule, or after
chrome that follows the rules, raises `SourceError`, as does anything undecodable.

The effective date: the page states none (its chrome names the site, "Базовые правила",
"Contents", "Glossary", the neighbouring sections, "г. Москва" and a news item, nothing dated).
A date sentence in the chrome ("effective as of July 16, 2010", "от 16 июля 2010") would be
used; otherwise the date is taken from the file name pattern ``cr-YYYY-MM-DD-...`` and a note
says so; with neither, `SourceError`. The edition is English and `partial` (one section).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from crlookup.core import numbers
from crlookup.core.errors import NumberError, SourceError
from crlookup.core.model import Edition
from crlookup.sources import dates
from crlookup.sources.encoding import decode, split_lines
from crlookup.sources.text import EXAMPLE
from crlookup.sources.tree import RuleTree

#: The site title in the page header, as it reads once the mojibake is repaired.
SITE_TITLE = "Полные правила Magic: the Gathering"

# "702.1 Text", "702.2a Text", "702.1. Text"; a bare "702.5" too. The number must be followed by
# white space or the end of the line (so "702.1st" or "702.5x5" are not numbers); at most six
# digits, so int() never meets a 5,000-digit "number".
_NUMBERED = re.compile(r"^(\d{3})\.(\d{1,6})([a-z]*)(\.?)(?=\s|$)\s*(.*)$")
# "702. Keyword Abilities": a section heading (not on the shipped page, but other pages of the
# site may show one).
_SECTION = re.compile(r"^(\d{3})\.\s+([A-Z]\D*)$")
# navigation: "7. Additional Rules << 701. Keyword Actions |", "... 703. Turn-Based Actions >> |"
_NAV_PREV = re.compile(r"^\|?\s*\d\.\s.*?<<\s*(\d{3})\.\s+(.*?)\s*\|$")
_NAV_NEXT = re.compile(r"^\|?\s*\d\.\s.*?\s(\d{3})\.\s+(.*?)\s*>>\s*\|$")
_CYRILLIC = re.compile(r"[Ѐ-ӿ]")


def repair(s: str) -> str:
    """Undo cp1251-read-as-cp1252 mojibake: "Ïîëíûå ïðàâèëà" -> "Полные правила".

    Text that already has Cyrillic, or that does not turn into Cyrillic, is returned as is.
    """
    if _CYRILLIC.search(s) or not re.search(r"[\x80-\xff]", s):
        return s
    raw = bytearray()
    for ch in s:
        try:
            raw += ch.encode("cp1252")
        except UnicodeEncodeError:
            if ord(ch) > 0xFF:
                return s
            raw.append(ord(ch))  # latin-1 reading: C1 controls for 0x80-0x9f
    try:
        fixed = raw.decode("cp1251")
    except UnicodeDecodeError:
        return s
    return fixed if _CYRILLIC.search(fixed) else s


def is_chrome(s: str) -> bool:
    """A stripped line of page chrome: the site title or a row of table cells."""
    return s.startswith("|") or s.endswith("|") or repair(s).startswith("Полные правила")


def sniff(data: bytes) -> bool:
    """The site title as the first line (mojibake or not), its menu bar, then numbered rules."""
    head = data[:20_000]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    for codec in ("utf-8", "cp1252"):
        lines = [s.strip() for s in split_lines(head.decode(codec, errors="ignore"))]
        lines = [s for s in lines if s]
        if not lines or repair(lines[0]) != SITE_TITLE:
            continue
        menu = any(s.startswith("|") and "| Contents |" in s for s in lines[1:6])
        rules = any(_NUMBERED.match(s) for s in lines[1:40])
        return menu and rules
    return False


def read(path: Path, data: bytes) -> list[Edition]:
    file = Path(path).name
    lines = split_lines(decode(data, file))
    order = RuleTree(file)  # numbers seen so far, to tell a rule start from a stray number
    # ["entry", number, line, fragments, examples] / ["heading", number, title, line, None];
    # examples are [line, fragments] (the shipped page has none, other pages may)
    items: list[list] = []
    chrome: list[tuple[int, str]] = []  # (line, repaired text)
    joins: list[tuple[int, str]] = []  # (line, number of the rule the fragment joined)
    no_period: list[str] = []
    notes: list[str] = []
    after_chrome = False
    for i, raw in enumerate(lines):
        line = i + 1
        s = raw.strip()
        if not s:
            continue
        number, text, period = _numbered(s)
        if number is None and is_chrome(s):  # a numbered line is never dropped as chrome
            chrome.append((line, repair(s)))
            after_chrome = True
            continue
        if number is not None:
            if order.fits(number):
                kind = numbers.parse(number).kind
                if kind == "rule" and not period:
                    no_period.append(number)
                elif kind == "subrule" and period:
                    notes.append(f"line {line}: subrule {number} is printed with a period")
                order.entry(number, "", line)
                items.append(["entry", number, line, [text] if text else [], []])
                after_chrome = False
                continue
            notes.append(f"line {line}: {number} out of sequence, read as text")
        h = _SECTION.match(s)
        if h and _valid(h.group(1)) and order.fits(h.group(1)):
            order.heading(h.group(1), h.group(2), line)
            items.append(["heading", h.group(1), h.group(2), line, None])
            after_chrome = False
            continue
        if after_chrome or not items:
            where = "after the page chrome" if after_chrome else "before the first rule"
            raise SourceError(file, line, f"a numbered rule such as '702.1 ...' {where}", s)
        if items[-1][0] != "entry":
            raise SourceError(file, line, "a numbered rule after a section heading", s)
        examples = items[-1][4]
        if s.startswith(EXAMPLE):
            examples.append([line, [s[len(EXAMPLE) :].strip()]])
            continue
        (examples[-1][1] if examples else items[-1][3]).append(s)
        joins.append((line, items[-1][1]))

    tree = RuleTree(file)
    for kind, number, a, b, examples in items:
        if kind == "heading":
            tree.heading(number, a, b)
            continue
        tree.entry(number, " ".join(b), a)
        for line, fragments in examples:
            tree.example(" ".join(fragments), line)
    if not len(tree):
        raise SourceError(file, len(lines), "numbered rules such as '702.1 Most abilities ...'")
    day, how = _effective_date(file, chrome)
    notes[:0] = [how, *_chrome_notes(chrome, tree)]
    if no_period:
        notes.append(
            f"{len(no_period)} rules are printed without their final period "
            f"({no_period[0]}...{no_period[-1]}); the numbers tell rules from subrules"
        )
    if not any(item[4] for item in items):
        notes.append("the page has no 'Example:' paragraphs: the rules come without examples")
    if joins:
        per_rule: dict[str, list[int]] = {}
        for line, number in joins:
            per_rule.setdefault(number, []).append(line)
        detail = "; ".join(
            f"{number}: {len(ls)} (line{'s' if len(ls) > 1 else ''} {', '.join(map(str, ls))})"
            for number, ls in per_rule.items()
        )
        notes.append(
            f"{len(joins)} short lines joined to the rule above with a space, in "
            f"{len(per_rule)} rules: the text was split where mana-symbol images were lost; "
            f"nothing is put in their place ({detail})"
        )
    return [
        Edition(
            lang="en",
            date=day,
            source=file,
            rules=tree.rules(),
            partial=True,
            notes=tuple(notes + tree.notes),
        )
    ]


def _valid(number: str) -> bool:
    try:
        numbers.parse(number)
    except NumberError:
        return False
    return True


def _numbered(s: str) -> tuple[str | None, str, str]:
    """(number, text, period) of a numbered line, or (None, "", "")."""
    m = _NUMBERED.match(s)
    if not m:
        return None, "", ""
    number = f"{m.group(1)}.{int(m.group(2))}{m.group(3)}"
    if m.group(2) != str(int(m.group(2))) or not _valid(number):
        return None, "", ""
    return number, m.group(5), m.group(4)


def _effective_date(file: str, chrome: list[tuple[int, str]]) -> tuple[date, str]:
    """The date stated in the page chrome, else the one in the file name."""
    for line, s in chrome:
        day = dates.stated(s, file, line, langs=("en", "ru"))
        if day:
            return day, f"line {line}: effective date {day.isoformat()} stated by the page"
    day = dates.in_file_name(file, "the page states none")
    return day, (
        f"effective date {day.isoformat()} taken from the file name: the page states no date"
    )


def _chrome_notes(chrome: list[tuple[int, str]], tree: RuleTree) -> list[str]:
    """What the dropped chrome says, and whether its navigation agrees with the rules' section."""
    if not chrome:
        return []
    shown = [s for _, s in chrome if s.strip("| ")]
    notes = [
        f"{len(chrome)} lines of page chrome dropped (mojibake repaired to read them): "
        + " / ".join(shown)
    ]
    sections = sorted({numbers.parse(r.number).section for r in tree.rules()})
    for _, s in chrome:
        for pattern, step, word in ((_NAV_PREV, 1, "previous"), (_NAV_NEXT, -1, "next")):
            m = pattern.match(s)
            if m and [int(m.group(1)) + step] != sections:
                notes.append(
                    f"the page's {word} section is {m.group(1)}. {m.group(2)}, but its rules "
                    f"are of section {', '.join(map(str, sections))}"
                )
    if len(sections) == 1:
        notes.append(
            f"only section {sections[0]} (the page gives no title for it: no section entry)"
        )
    return notes
