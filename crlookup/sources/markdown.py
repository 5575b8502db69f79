"""The Russian community translation as Markdown converted from a PDF (cr-2019-01-25-ru.md).

Layout, as measured in the one known file: a heading "Полные правила Magic: The Gathering",
the date "(от 25 января 2019)", notes from the translators, "# Содержание" (the contents:
"## 1. Основы игры", "- 100. Общие понятия", ...), the body from "# 1. Основы игры", and
"## Словарь терминов" (the glossary) to the end of the file.

Body. Heading levels (# to ####) carry no meaning and some headings are plain lines
("117. Стоимости", "702.103. Дань"), so a line is read by its number, whatever its markup:
"N. Title" is a chapter, "NNN. Title" a section, "NNN.N. Text" a rule and "NNN.Nx Text" a
subrule. Subrule letters written with Cyrillic look-alikes ("105.2с") are Latin in the number;
the text keeps every letter as written (cross-references such as "правило 207.2с" are read
later by `crlookup.refs`, and "ё"/"е" are folded only when matching). Examples come in three
styles, "**Пример:** ...", "***Пример:** ...*" and "*Пример: ...*" (also "*Пример:* ..."); each
becomes one of its rule's examples without the label. Any other line continues the entry
above. Sections with no heading in the body (118, 202, 203) take their title from the
contents, with the contents line as their source; nothing else is invented. One example
swallowed the next rule ("... Чародей. 302.4. Сила и выносливость ..."): a number that ends a
sentence and fits as the next rule is split back out, and noted.

Inline markup becomes clean text: emphasis (`*`, `**`, `***`, `_`) is dropped, Markdown
escapes are resolved (`\\*` is "*", `\\_` is "_"), a trailing backslash (a hard line break)
is dropped, links keep their text, and LaTeX math becomes the CR's notation: `$\\{R\\}\\{G\\}$`
is "{R}{G}" and `$+1/+1$`, `$3/4$`, `$X$`, `$N -1/-1$` are plain text. The converter padded
each formula with one space on either side (" $\\{T\\}$ : Добавьте"); that padding goes.
Typographic quotes, dashes and "ё" stay as written. Titles lose a trailing period; rule
titles keep their marks ("Объединение (неоф.) (англ. Banding)") and give the English name
as the rule's ("en", name) translation.

Glossary. Each entry is the English term (usually bold, in any heading level or none), the
Russian term, then the Russian definition in one or more paragraphs; single letters ("А",
"## **B**", "X-Z") are letter headings unless a definition follows them (the terms "X" and
"Y"). A paragraph that does not end a sentence was split by a PDF page break and is joined
to the next with a space. Six entries have no Russian term (the block after the English term
is the definition): they keep the English term, except where the body names an unofficial
translation for it ("702.131. Помощь (неоф.) (англ. Assist)"). The glossary marks no term
"(неоф.)": the body does, next to the English name ("Ярость (неоф.) (англ. Rampage)"), and the
glossary entry with that English name, or with exactly that Russian name, is `unofficial`.
"(устарело)"/"(Obsolete)" mark obsolete terms; headwords are the Russian term's (without the
mark, split at commas outside «quotes»); the English term is in `english`.

Contract: `read` returns one complete edition "ru-<date>" whose date comes from the Russian
"от <D> <месяца> <YYYY>" near the top; it raises `SourceError` (file, line, what was
expected) for anything else, e.g. no date, no numbered rules, bytes that are not text, and
never another exception. `sniff` is True only for a Markdown rules document in Russian.
"""

from __future__ import annotations

import itertools
import re
from datetime import date
from functools import lru_cache
from pathlib import Path

from crlookup.core import numbers
from crlookup.core.errors import NumberError, SourceError
from crlookup.core.model import Edition, Source
from crlookup.sources import dates, glossary
from crlookup.sources.encoding import decode, split_lines
from crlookup.sources.tree import RuleTree

TITLE = "Полные правила Magic: The Gathering"
GLOSSARY = "Словарь терминов"
EXAMPLE = "Пример:"

# --- inline markup -------------------------------------------------------------------------

_INLINE = re.compile(
    r"(?P<math> ?(?<!\\)\$(?P<formula>[^$\n]+?)(?<!\\)\$ ?)"
    r"|\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|(?P<hardbreak>\\$)"
    r"|\[(?P<label>[^\]\n]+)\]\((?P<url>[^()\s]*)\)"
    r"|(?P<stars>\*+)"
    r"|(?P<unders>_+)"
)
_LATEX_WRAPPER = re.compile(
    r"\\(?:text|mathrm|mathbf|mathit|textbf|textit|operatorname)\s*\{([^{}]*)\}"
)
_LATEX_SPACE = re.compile(r"\\[,;:! ]|~")
_HEADING = re.compile(r"^#{1,6}(?:\s+|$)")
_MARKUP = re.compile(r"[$\\\[*_]")
_LIST_ITEM = re.compile(r"^\s*[-+*]\s")


def _formula(tex: str) -> str:
    """LaTeX math as CR text: `\\{2\\}\\{W\\}` is {2}{W}; grouping braces and wrappers go."""
    tex = _LATEX_WRAPPER.sub(r"\1", tex)
    tex = _LATEX_SPACE.sub(" ", tex)
    out = []
    i = 0
    while i < len(tex):
        c = tex[i]
        if c == "\\" and i + 1 < len(tex):
            out.append(tex[i + 1])
            i += 2
            continue
        if c not in "{}":
            out.append(c)
        i += 1
    return " ".join("".join(out).split())


def _neighbours(s: str, start: int, end: int) -> tuple[str, str]:
    """The characters either side of s[start:end] (a space at either end of the line)."""
    return (s[start - 1] if start > 0 else " "), (s[end] if end < len(s) else " ")


def _inline(m: re.Match) -> str:
    if m.group("math") is not None:
        return _formula(m.group("formula"))
    if m.group("escaped") is not None:
        return m.group("escaped")
    if m.group("hardbreak") is not None:
        return ""
    if m.group("label") is not None:
        return m.group("label")
    before, after = _neighbours(m.string, m.start(), m.end())
    if m.group("stars") is not None:
        # a run of asterisks between spaces is a literal asterisk, any other run is emphasis
        return m.group() if before.isspace() and after.isspace() else ""
    # underscores inside a word ("snake_case") or between spaces are literal
    if (before.isalnum() and after.isalnum()) or (before.isspace() and after.isspace()):
        return m.group()
    return ""


@lru_cache(maxsize=32768)  # the parser looks at most lines more than once
def clean(text: str) -> str:
    """One line of Markdown as clean text (heading marks, emphasis, escapes, links, LaTeX)."""
    s = _HEADING.sub("", text.strip())
    if _MARKUP.search(s):
        s = _INLINE.sub(_inline, s)
    return s.strip()


# --- detection -----------------------------------------------------------------------------

_CYRILLIC = re.compile(r"[а-яёА-ЯЁ]")


def sniff(data: bytes) -> bool:
    """A Markdown rules document in Russian: # headings, Cyrillic, and a "100.1" rule line."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    head = data[:300_000].decode("utf-8", errors="replace")
    headings = re.findall(r"(?m)^#{1,6}[ \t]+(.+)$", head)
    return (
        len(headings) >= 3
        and sum(bool(_CYRILLIC.search(h)) for h in headings) * 2 > len(headings)
        and re.search(r"(?m)^(?:#{1,6}[ \t]+)?\**100\.1\.?[ \t]", head) is not None
    )


# --- structure -----------------------------------------------------------------------------

# "100.1. Text", "100.1a Text", "105.2с Text" (Cyrillic look-alike), "702.103. Дань"
_RULE = re.compile(r"^([0-9]{3})\.([0-9]+)([^\W\d_]{0,3})(\.?)(?:\s+(.*))?$")
_SECTION = re.compile(r"^([0-9]{3})(\.?)\s+(\S.*)$")
_CHAPTER = re.compile(r"^([0-9])\.\s+(\S.*)$")
_CONTENTS = re.compile(r"^\s*(?:[-*+]\s+|#{1,6}\s+)?([0-9]{3}|[0-9])\.\s+(\S.*?)\s*$")
# a rule number that begins a sentence inside a line: "... Чародей. 302.4. Сила ..."
_EMBEDDED = re.compile(r"(?<=[.!?»…)] )([0-9]{3}\.[0-9]+\.) (?=[А-ЯЁA-Z«\"“])")
_SENTENCE_END = re.compile(r"[.!?…:;][\"»”’)\]]*$")
# a rule whose whole text is a name: "Дань", "Предвидение.", "Объединение (неоф.) (англ. Banding)"
_NAME = re.compile(r"^[^\s.,!?:;()]+(?: [^\s.,!?:;()]+){0,3}(?: ?\([^()]{1,60}\))*\.?$")
_ENGLISH_NAME = re.compile(r"\((?:[Аа]нгл)\.?:?\s*([^()]+?)\)")
_UNOFFICIAL = re.compile(r"\([Нн]еоф\.?\)\s*\([Аа]нгл\.?:?\s*([^()]+?)\)")
_RULE_NUMBER = re.compile(r"^[0-9]{3}(?:\.[0-9]+[^\W\d_]*)?\.?\s+")
_RU_OBSOLETE = re.compile(r"\s*\((?:[Уу]стар(?:ело|евшее|\.)?)\)\s*$")


def _number(section: str, rule: str, letters: str) -> str | None:
    """The canonical number, Cyrillic look-alike letters made Latin; None if not a number."""
    letters = letters.translate(numbers.HOMOGLYPHS).lower()
    if letters and any(c not in numbers.LETTERS for c in letters):
        return None
    try:
        return str(numbers.parse(f"{section}.{int(rule)}{letters}"))
    except (NumberError, ValueError):
        return None


def _key(number: str) -> tuple:
    return numbers.parse(number).key


class _Body:
    """Feeds the body's lines to a RuleTree, supplying missing section headings."""

    def __init__(self, file: str, contents: dict[str, tuple[str, int]]):
        self.file = file
        self.tree = RuleTree(file)
        self.contents = contents
        self.notes: list[str] = []

    def after_last(self, number: str) -> bool:
        last = self.tree.last
        return number not in self.tree and (last is None or _key(last.number) < _key(number))

    def line(self, raw: str, line: int) -> None:
        s = clean(raw)
        if not s:
            return
        heading = bool(_HEADING.match(raw.strip()))
        for i, piece in enumerate(self._split(s)):
            if i:
                number = piece.split()[0][:-1]
                self.notes.append(f"line {line}: rule {number} split out of the text before it")
            self._piece(piece, heading, line)

    def _split(self, s: str) -> list[str]:
        """The line, and the next rules it swallowed: "... Чародей. 302.4. Сила ..."."""
        m = _RULE.match(s)
        here = m and _number(*m.group(1, 2, 3))
        current = here or (self.tree.last.number if self.tree.last else None)
        cuts = []
        for e in _EMBEDDED.finditer(s):
            number = e.group(1)[:-1]
            if current is None or not self.after_last(number):
                continue
            n, c = numbers.parse(number), numbers.parse(current)
            if n.section == c.section and c.rule is not None and n.rule == c.rule + 1:
                cuts.append(e.start())
                current = number
        bounds = [0, *cuts, len(s)]
        return [s[a:b].strip() for a, b in itertools.pairwise(bounds)]

    def _piece(self, s: str, heading: bool, line: int) -> None:
        tree = self.tree
        m = _RULE.match(s)
        number = _number(*m.group(1, 2, 3)) if m else None
        if m and number and self.after_last(number):
            self._parents(number, line)
            tree.entry(number, m.group(5) or "", line)
            return
        if s.startswith(EXAMPLE):
            tree.example(s[len(EXAMPLE) :].strip(), line)
            return
        h = _SECTION.match(s)
        if h and (h.group(2) or heading) and self.after_last(h.group(1)):
            self._parents(h.group(1), line)
            tree.heading(h.group(1), _title(h.group(3)), line)
            return
        h = _CHAPTER.match(s)
        if h and (heading or h.group(1) in self.contents) and self.after_last(h.group(1)):
            tree.heading(h.group(1), _title(h.group(2)), line)
            return
        if number:
            self.notes.append(f"line {line}: {number} out of sequence, read as text")
        tree.continuation(s, line)

    def _parents(self, number: str, line: int) -> None:
        """Headings for the chapter and section of `number` that the body leaves out."""
        n = numbers.parse(number)
        wanted = [str(n.chapter)] + ([str(n.section)] if n.kind != "section" else [])
        for parent in wanted:
            if parent in self.tree:
                continue
            if parent in self.contents and self.after_last(parent):
                title, where = self.contents[parent]
                self.tree.heading(parent, title, where)
                self.notes.append(
                    f"line {line}: {parent} has no heading in the body;"
                    f" its title is from the contents (line {where})"
                )
            else:
                self.notes.append(f"line {line}: {number} comes without a heading for {parent}")
        if n.kind == "subrule" and str(n.parent) not in self.tree:
            self.notes.append(f"line {line}: subrule {number} comes without its rule {n.parent}")


def _title(text: str) -> str:
    t = text.strip()
    return t[:-1].rstrip() if t.endswith(".") and not t.endswith("..") else t


def effective_date(lines: list[str], file: str, end: int) -> tuple[date, int]:
    """The date the translation states near its top, and the line that states it."""
    for i, line in enumerate(lines[: min(end, 120)]):
        day = dates.stated(line, file, i + 1, langs=("ru",))
        if day:
            return day, i + 1
    raise SourceError(file, 1, "the date of the rules near the top, as in '(от 25 января 2019)'")


def _find_glossary(lines: list[str]) -> int | None:
    for i, line in enumerate(lines):
        if clean(line) == GLOSSARY:
            return i
    return None


def _body_start(lines: list[str], end: int, file: str) -> int:
    """The chapter heading above the first numbered rule (below the contents)."""
    first = None
    for i in range(end):
        m = _RULE.match(clean(lines[i]))
        if m and _number(*m.group(1, 2, 3)):
            first = i
            break
    if first is None:
        raise SourceError(file, end, "numbered rules such as '100.1. Представленные в этом ...'")
    start = first
    for j in range(first - 1, -1, -1):
        s = clean(lines[j])
        if not s:
            continue
        if not (_SECTION.match(s) or _CHAPTER.match(s)) or _LIST_ITEM.match(lines[j]):
            break
        start = j
    return start


def _contents(lines: list[str], end: int) -> dict[str, tuple[str, int]]:
    found: dict[str, tuple[str, int]] = {}
    for i in range(end):
        m = _CONTENTS.match(lines[i])
        if m and m.group(1) not in found:
            title = _title(clean(m.group(2)))
            if title:
                found[m.group(1)] = (title, i + 1)
    return found


def _titled(rules):
    """Rules whose whole text is a name get it as title, and the English name it gives."""
    out = []
    for r in rules:
        if r.kind == "rule" and r.text and "\n" not in r.text and _NAME.match(r.text):
            r = r._replace(title=_title(r.text))
        if r.title:
            m = _ENGLISH_NAME.search(r.title)
            if m:
                r = r._replace(translations=(("en", _title(m.group(1).strip())),))
        out.append(r)
    return tuple(out)


# --- glossary ------------------------------------------------------------------------------


def _blocks(lines: list[str], start: int) -> list[list[tuple[int, str]]]:
    """Paragraphs of raw lines (a heading line is a paragraph of its own)."""
    blocks: list[list[tuple[int, str]]] = []
    cur: list[tuple[int, str]] = []
    for i in range(start, len(lines)):
        s = lines[i].strip()
        if not s or _HEADING.match(s):
            if cur:
                blocks.append(cur)
                cur = []
            if s:
                blocks.append([(i + 1, lines[i])])
            continue
        cur.append((i + 1, lines[i]))
    if cur:
        blocks.append(cur)
    return blocks


_LETTER = re.compile(r"^[A-ZА-ЯЁ](?:\s*[-–—]\s*[A-ZА-ЯЁ])?$")


def _is_english(block: list[tuple[int, str]]) -> bool:
    if len(block) != 1:
        return False
    s = _RU_OBSOLETE.sub("", clean(block[0][1]))
    return bool(re.match(r"[A-Za-z]", s)) and not _CYRILLIC.search(s)


def _kinds(blocks: list[list[tuple[int, str]]]) -> list[str]:
    """ "L" letter heading, "E" English term, "R" Russian text, for each block."""
    english = [_is_english(b) for b in blocks]
    kinds = []
    for i, block in enumerate(blocks):
        letter = len(block) == 1 and _LETTER.match(clean(block[0][1]))
        if letter and (i + 1 == len(blocks) or english[i + 1]):
            # "## **B**" before "### **Banding**"; the terms "X" and "Y" have definitions
            kinds.append("L")
        else:
            kinds.append("E" if english[i] else "R")
    return kinds


def read_glossary(
    lines: list[str], start: int, file: str, marks: list[tuple[str, str]]
) -> tuple[list, list[str]]:
    """Entries from the glossary heading to the end of the file, and notes.

    `marks` are the body's unofficial translations: (English name lowercased, the text before
    its "(неоф.)" mark).
    """
    blocks = [b for b in _blocks(lines, start) if any(clean(s) for _, s in b)]
    kinds = _kinds(blocks)
    notes: list[str] = []
    entries = []
    head = None
    body: list = []
    for kind, block in zip([*kinds, "L"], [*blocks, None]):
        if kind in "LE" and head is not None:
            entries.append(_entry(head, body, file, marks, notes))
            head = None
        if block is None:  # the closing "L" only ends the last entry
            continue
        if kind == "E":
            head, body = block[0], []
        elif kind == "R":
            if head is None:
                found = clean(block[0][1])
                raise SourceError(file, block[0][0], "an English glossary term", found)
            body.append(block)
    return entries, notes


def _fold(text: str) -> str:
    return text.lower().replace("ё", "е")


def _entry(head: tuple[int, str], body: list, file: str, marks: list, notes: list[str]):
    """One glossary entry from its English term line and the blocks after it."""
    line, raw = head
    english = clean(raw)
    obsolete = bool(_RU_OBSOLETE.search(english)) or english.endswith("(Obsolete)")
    english = _RU_OBSOLETE.sub("", english)
    if not body:
        what = f"the Russian term and definition of the glossary term {english!r}"
        raise SourceError(file, line, what)
    paragraphs = [[clean(s) for _, s in b] for b in body]
    term = " ".join(x for x in paragraphs.pop(0) if x) if len(paragraphs) > 1 else ""
    # join paragraphs that a page break split in the middle of a sentence
    joined: list[str] = []
    for p in paragraphs:
        text = "\n".join(x for x in p if x)
        if joined and not _SENTENCE_END.search(joined[-1]):
            joined[-1] += " " + text
        else:
            joined.append(text)
    definition = "\n".join(joined)
    term = _title(term)
    base = _RU_OBSOLETE.sub("", term)
    obsolete = obsolete or base != term
    names = {h.lower() for h in glossary.headwords(english)}
    before = [text for name, text in marks if name in names]
    unofficial = False
    if term:
        # the body marks this English name, or exactly this Russian name, "(неоф.)"
        unofficial = bool(before) or any(_fold(t) == _fold(base) for _, t in marks)
    else:
        name = next((t for t in before if len(t.split()) <= 3), "")
        if name:
            term = base = name
            unofficial = True
            notes.append(
                f"line {line}: glossary term {english!r} has no Russian term;"
                f" took the body's unofficial {name!r}"
            )
        else:
            term = base = re.sub(r"\s*\(Obsolete\)$", "", english)
            notes.append(f"line {line}: glossary term {english!r} has no Russian term")
    return glossary.entry(
        term,
        definition,
        Source(file, line),
        obsolete=obsolete,
        english=english,
        unofficial=unofficial,
    )


def _unofficial_marks(lines: list[str], start: int, end: int) -> list[tuple[str, str]]:
    """(English name lowercased, the text before) for each "X (неоф.) (англ. Name)" of the body."""
    marks = []
    for i in range(start, end):
        s = clean(lines[i])
        for m in _UNOFFICIAL.finditer(s):
            before = _RULE_NUMBER.sub("", s[: m.start()]).rstrip(" .")
            before = re.split(r"[.,;:«»()\[\]\"“”]", before)[-1].strip()
            marks.append((m.group(1).strip().rstrip(".").lower(), before))
    return marks


# --- entry point ---------------------------------------------------------------------------


def read(path: Path, data: bytes) -> list[Edition]:
    file = Path(path).name
    lines = split_lines(decode(data, file))
    end = _find_glossary(lines)
    body_end = len(lines) if end is None else end
    start = _body_start(lines, body_end, file)
    day, dated = effective_date(lines, file, start)
    body = _Body(file, _contents(lines, start))
    for i in range(start, body_end):
        body.line(lines[i], i + 1)
    rules = _titled(body.tree.rules())
    entries: list = []
    gnotes: list[str] = []
    if end is not None:
        marks = _unofficial_marks(lines, start, body_end)
        entries, gnotes = read_glossary(lines, end + 1, file, marks)
    title = next((clean(line) for line in lines[:start] if clean(line)), "") or TITLE
    return [
        Edition(
            lang="ru",
            date=day,
            source=file,
            rules=rules,
            glossary=tuple(entries),
            title=title,
            notes=tuple(body.tree.notes + body.notes + gnotes),
            dated=dated,
        )
    ]
