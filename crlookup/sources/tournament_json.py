"""The Magic Tournament Rules (MTR) or the Infraction Procedure Guide (IPG) as a folder of JSON
files, one a section, made by a judge app that parsed Wizards' PDFs
(data/tournament/mtr-2025-11-10/, data/tournament/ipg-2024-09-23/).

Format (UTF-8 JSON):

    mtr_index.json (ipg_index.json)
        {"title": ..., "document_type": "mtr", "metadata": {"effective_date": "November 10, 2025"},
         "sections": [{"section_number": 3, "title": "3. Tournament Rules",
                       "section_key": "mtr_section_3", ...}, ...,
                      {"section_number": "C", "title": "Appendix C—Tiebreaker Explanation",
                       "section_key": "mtr_appendix_c", ...}]}
    <section_key>.json
        {"section_number": 3, "title": ..., "metadata": {...},
         "rules": [{"number": "3.1", "title": "Tiebreakers", "content": "..."}]}
        the IPG: "infractions": [{"number": "2.1", "title": ..., "penalty": "No Penalty",
         "definition": ..., "examples": ["A. ...", ...], "philosophy": ..., "additional_remedy":
         ..., "upgrade": ...}]  (null where the PDF has no such part)

A section whose number is a letter is an appendix and holds one entry of that letter. The
section files have no introduction of their own: a section's text is "".

Traps (the converter kept the PDF's layout), each repaired by a pattern, not by the strings
below, and recorded in the edition's notes:

- Paragraphs are separated by blank lines, but the lines of a paragraph keep the PDF's line
  wraps ("awareness\\nof the trigger's existence"): a line is joined to the one before unless
  that one ends a sentence or is short (a heading, a date) or it starts a list item ("•",
  "1. "). A page break can split a paragraph mid-sentence ("has been\\n\\ncompromised."):
  a paragraph that ends without punctuation is joined to a next that starts in lower case.
- A heading run into its own text, which repeats it: "Warning Warnings are used…", "Match Loss
  A Match Loss is…", "Regular Regular tournaments…": the run-in heading starts a line of its
  own, as the PDF prints it ("Game Loss" is one already); so does a heading run into a text
  that names it, in lower case, in its first sentence ("Match Points Players earn 3 match
  points…", MTR appendix C; not "The Tournament Organizer…").
- The paragraphs after a list run into its last item where that item ends its field (the
  IPG's fields have no blank lines: "…the visible game state. Once any of the above
  obligations…", IPG 2.1): the item keeps its first sentence and those that go on speaking of
  it ("They…", "These cards…" after "Double-faced cards…"); the rest is one paragraph after it
  (its own paragraph breaks are lost). An item before a blank line is left whole (the MTR's
  hold two sentences as often as a run-in paragraph).
- A title in capitals ("DEFINITION OF PENALTIES", IPG 1.x) reads as the headings print it
  ("Definition of Penalties"). The PDF's footer of trademarks and copyrights at a field's end
  ("All trademarks are property of…", "©2025…", MTR appendix F, IPG appendix B) is dropped.
- A heading fused onto the end of the paragraph or list item before it: "…rules-documents.
  Professional" + "Professional level tournaments…" and "• Modern Eternal Constructed Formats"
  (the item "Modern", then the heading "Eternal Constructed Formats", known as a heading
  because it ends with a heading of the same entry, "Constructed Formats"); "• Lorwyn
  Eclipsed (…) The following cards are banned in Pioneer tournaments:" (a list's
  introduction): the heading starts a line of its own.
- An appendix's text repeats its heading ("Appendix C—Tiebreaker Explanation",
  "APPENDIX A — PENALTY QUICK REFERENCE"): the repeat is dropped.
- An IPG title carries its penalty ("Game Play Error — Missed Trigger No Penalty"): removed
  (the penalty is a part of its own). "Upgrade:" and "Downgrade:" paragraphs are run into the
  additional remedy or the philosophy (the JSON's "upgrade" is always null): they become the
  parts "upgrade" and "downgrade", without their label.
- Words the PDF hyphenated at a line end keep a space ("previously- unknown", "DCI-
  sanctioned"): joined, except before "and"/"or"/"to" ("pre- and post-sideboard"). A URL run
  onto the word before it ("located athttps://…") gets its space back.

Two tables flattened into runs of words are read back as tables, "cell | cell" rows (as the PDF
parser joins a table's cells), by their closed vocabulary: the IPG's Penalty Quick Reference
(appendix A: its entries' titles and categories, and the penalties) and the MTR's chart of the
Rules Enforcement Level of programs (appendix F: the levels). Not repaired (no pattern tells
them apart): MTR appendix E's table of rounds (cells wrapped across each other), lists whose
two PDF columns interleave (MTR 6.4, 6.6, 6.7), and
sentences run into a list item without a full stop.

Contract: `read` gets the folder (FOLDER = True; `sniff_folder` is True for a folder holding
mtr_index.json or ipg_index.json, `sniff` is False for any file) and returns ONE edition
(lang "en", document "mtr" or "ipg", its date from the index's metadata.effective_date, or
the section files' when the index states none). Its entries, in document order, are
`Rule`s: a section ("3", kind "section", title "Tournament Rules" without its number, text
""), its entries ("3.1", kind "rule", title "Tiebreakers", text in paragraphs joined with
"\\n", list items as lines starting "• "), and appendices ("C", kind "appendix", title
"Tiebreaker Explanation"). An IPG entry's text is its definition; its examples are
`examples` (one string each, without its letter: "A." is the list's marker; an examples field
that is one string is split at its "A.", "B.", … markers); its other fields are `parts` in the order penalty, philosophy,
additional remedy, upgrade, downgrade, then any other field the JSON has (lower case, "_" as
a space). `refs` stay empty (crlookup.core.documents links them). Each entry's source is its
section file and the line of its "number" key. Text is kept as published otherwise
(typographic quotes, dashes, ™).

Anything unreadable raises `SourceError` (file, line, what was expected) and nothing else: a
file that is not UTF-8 or not JSON (with the line of the error), JSON of another shape, a
section file the index lists but the folder lacks, an entry number that is not one ("3.1",
"C") or is used twice, no entries, no effective date.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
import reprlib
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple

from crlookup.core import documents
from crlookup.core.documents import CELLS
from crlookup.core.errors import NumberError, SourceError
from crlookup.core.model import Edition, Rule, Source
from crlookup.sources.dates import MONTHS

FOLDER = True


class _Document(NamedTuple):
    index_file: str  # the index file's name
    prefix: str  # "MTR": how notes name its entries
    title: str


DOCUMENTS = {
    "mtr": _Document("mtr_index.json", "MTR", "Magic: The Gathering Tournament Rules"),
    "ipg": _Document("ipg_index.json", "IPG", "Magic: The Gathering Infraction Procedure Guide"),
}
FOLDER_EXPECTED = "a folder holding mtr_index.json or ipg_index.json (one of them)"
INDEX_SHAPE = 'an index object {"metadata": {"effective_date": ...}, "sections": [...]}'
SECTION_SHAPE = 'a section {"section_number": 3 or "C", "title": ..., "section_key": ...}'
FILE_SHAPE = 'a section file {"section_number": ..., "rules" (or "infractions"): [...]}'
ENTRY_SHAPE = 'an entry {"number": "3.1", "title": ..., "content" (or "definition"): ...}'
DATE_SHAPE = "an effective date such as 'September 23, 2024' in metadata.effective_date"

#: The keys of a section file that list its entries, and of an entry that hold its main text.
LIST_KEYS = ("rules", "infractions")
TEXT_KEYS = ("content", "definition")
#: Keys of a section file that hold its own text (none in the known files).
INTRO_KEYS = ("introduction", "intro", "content", "text")
#: The named parts of an entry, in this order; any other part follows in the JSON's order.
PART_ORDER = ("penalty", "philosophy", "additional remedy", "upgrade", "downgrade")
#: The IPG's penalties, for a title that carries one its "penalty" field lacks.
PENALTIES = ("No Penalty", "Warning", "Game Loss", "Match Loss", "Disqualification")

_SECTION_KEY = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")
_DATE = re.compile(r"\s*(" + "|".join(MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})\s*", re.I)
_ISO_DATE = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})\s*")
_SECTION_TITLE = re.compile(r"^\s*\d{1,2}\.?\s+")  # "3. Tournament Rules"
_APPENDIX_TITLE = re.compile(r"^\s*appendix\s+[A-Za-z]\s*[—–-]*\s*", re.I)  # "Appendix C—"


def sniff(data: bytes) -> bool:
    """Never a single file: the format is a folder (`sniff_folder`)."""
    return False


def sniff_folder(path: Path) -> bool:
    """A folder holding mtr_index.json or ipg_index.json."""
    try:
        folder = Path(path)
        return any((folder / d.index_file).is_file() for d in DOCUMENTS.values())
    except (OSError, ValueError):  # an unreadable folder, a path with a NUL
        return False


def read(path: str | Path, data: bytes | None = None) -> list[Edition]:
    folder = Path(path)
    try:
        is_dir = folder.is_dir()
        found = [doc for doc, d in DOCUMENTS.items() if (folder / d.index_file).is_file()]
    except (OSError, ValueError) as e:
        raise SourceError(folder, None, FOLDER_EXPECTED, str(e)) from None
    if not is_dir:
        raise SourceError(folder, None, FOLDER_EXPECTED, "a file" if folder.exists() else "nothing")
    if len(found) != 1:
        raise SourceError(folder, None, FOLDER_EXPECTED, " and ".join(found) or "neither")
    return [_Reader(folder, found[0]).edition()]


# --- JSON files, with the lines of their keys ------------------------------------------------


class _Json(NamedTuple):
    name: str
    text: str
    value: Any


def _load(path: Path) -> _Json:
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as e:
        raise SourceError(name, None, "a readable JSON file", e.strerror or str(e)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise SourceError(
            name, line, "UTF-8 JSON", data[e.start : e.start + 20].decode("latin-1")
        ) from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        found = text[e.pos : e.pos + 40] or "the end of the file"
        raise SourceError(name, e.lineno, f"valid JSON ({e.msg})", found) from None
    except (ValueError, RecursionError) as e:  # nested too deep, a number too long
        raise SourceError(name, None, "valid JSON", str(e)) from None
    return _Json(name, text, value)


def _key_lines(text: str, key: str) -> list[tuple[int, Any]]:
    """(line, value) of each `"key": value` of valid JSON, in order. A quote inside a string is
    escaped, so `{"key":` or `, "key":` is always a real key."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    decoder = json.JSONDecoder()
    out = []
    for m in re.finditer(r'[{,]\s*"' + re.escape(key) + r'"\s*:\s*', text):
        try:
            value, _ = decoder.raw_decode(text, m.end())
        except (ValueError, RecursionError):
            continue
        out.append((bisect.bisect_left(newlines, m.end()) + 1, value))
    return out


class _Lines:
    """The lines of one key's values, handed out in document order."""

    def __init__(self, text: str, key: str):
        self.found = _key_lines(text, key)
        self.at = 0

    def next(self, value: Any) -> int:
        """The line of the next `"key": value`; 1 if there is none."""
        for i in range(self.at, len(self.found)):
            if self.found[i][1] == value and type(self.found[i][1]) is type(value):
                self.at = i + 1
                return self.found[i][0]
        return 1


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {reprlib.repr(value)}"


def _text(file: str, line: int, key: str, value: Any) -> str:
    """A text field: a string, a list of strings (paragraphs), or null ("")."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n\n".join(value)
    raise SourceError(file, line, f'"{key}": a text (a string)', _shown(value))


def _part_name(key: str) -> str:
    """ "additional_remedy" -> "additional remedy"; "additionalRemedy" too."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).replace("_", " ").replace("-", " ")
    return " ".join(spaced.lower().split())


def _parse_date(value: Any, file: str, line: int) -> date | None:
    """The date a metadata.effective_date states; None for null; SourceError for anything
    that is not the text of a real date ("September 23, 2024", or "2024-09-23")."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise SourceError(file, line, DATE_SHAPE, _shown(value))
    if m := _DATE.fullmatch(value):
        year, month, day = int(m.group(3)), MONTHS[m.group(1).capitalize()], int(m.group(2))
    elif m := _ISO_DATE.fullmatch(value):
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    else:
        raise SourceError(file, line, DATE_SHAPE, value)
    try:
        return date(year, month, day)
    except ValueError:
        raise SourceError(file, line, "a real date", value) from None


# --- the edition ------------------------------------------------------------------------------


class _Reader:
    """Reads the index, then each section file it lists, into the edition's entries."""

    def __init__(self, folder: Path, doc: str):
        self.folder = folder
        self.doc = doc
        self.spec = DOCUMENTS[doc]
        self.notes: list[str] = []
        self.clean = _Cleaner(self.notes)
        self.rules: list[Rule] = []
        self.seen: dict[str, str] = {}  # number -> the file it came from
        self.dates: list[tuple[date, str]] = []  # the dates the section files state
        self.stripped: list[str] = []  # the entries whose title lost its penalty
        self.inferred: list[str] = []  # ... a penalty only the title gave
        self.read_entries = 0  # the entries the section files hold

    def edition(self) -> Edition:
        index = _load(self.folder / self.spec.index_file)
        root = index.value
        if not isinstance(root, dict):
            raise SourceError(index.name, 1, INDEX_SHAPE, _shown(root))
        sections = root.get("sections")
        sections_line = next(iter(_key_lines(index.text, "sections")), (1, None))[0]
        if not isinstance(sections, list) or not sections:
            raise SourceError(index.name, sections_line, INDEX_SHAPE, _shown(sections))
        kind = root.get("document_type")
        if kind is not None and kind != self.doc:
            self.notes.append(
                f"{index.name}: document_type {reprlib.repr(kind)}, read as the "
                f"{self.spec.prefix} (the index file's name)"
            )
        day = self.stated_date(index, root)
        if day is not None:
            self.notes.append(f"effective date {day.isoformat()} from {index.name}")
        keys = _Lines(index.text, "section_key")
        for item in sections:
            key = item.get("section_key") if isinstance(item, dict) else None
            self.section(index, item, keys.next(key) if isinstance(key, str) else sections_line)
        day = self.settle_date(index, day)
        if not self.read_entries:
            raise SourceError(
                index.name, sections_line, "at least one entry (3.1, C, ...) in the section files"
            )
        if self.stripped:
            self.notes.append(
                f"{self.spec.prefix} {', '.join(self.stripped)}: removed the penalty the JSON "
                "appended to the title (it is the part 'penalty')"
            )
        if self.inferred:
            self.notes.append(
                f"{self.spec.prefix} {', '.join(self.inferred)}: the penalty field is empty; "
                "the penalty the title ended with became the part 'penalty'"
            )
        self.notes.extend(self.clean.summary())
        self.rules = [
            self.level_table(self.penalty_table(r)) if r.kind == "appendix" else r
            for r in self.rules
        ]
        return Edition(
            lang="en",
            date=day,
            source=self.folder.name,
            rules=tuple(self.rules),
            title=self.spec.title,
            notes=tuple(self.notes),
            document=self.doc,
        )

    def penalty_table(self, rule: Rule) -> Rule:
        """The IPG's Penalty Quick Reference, flattened by the conversion into a run of words
        ("Game Play Errors Missed Trigger None Looking at Extra Cards Warning ..."), as the
        table it is: a line per category, then a row per infraction, "infraction | penalty" (as
        crlookup.sources.tournament_pdf joins a table's cells).
        Read with the edition's own words: its entries' titles (the infractions), their
        categories and the penalties; left as it was, and noted, if any word is none of them."""
        if self.doc != "ipg" or "penalty" not in rule.title.lower():
            return rule
        titles = [r.title for r in self.rules if r.kind == "rule" and " — " in r.title]
        categories = {t.split(" — ")[0] for t in titles} | {f"{t.split(' — ')[0]}s" for t in titles}
        infractions = {t.split(" — ", 1)[1] for t in titles} | set(titles)
        words = rule.text.replace("\n", " ").split()
        if words[:2] == ["Infraction", "Penalty"]:
            words = words[2:]
        kinds = dict.fromkeys(categories, "category") | dict.fromkeys(infractions, "infraction")
        kinds |= dict.fromkeys((*PENALTIES, "None"), "penalty")  # (the table's "None")
        lines: list[str] = []
        row = ""
        at = 0
        while at < len(words):
            name = _phrase_at(words, at, kinds)
            if name is None:
                self.notes.append(
                    f"{self.spec.prefix} {rule.number}: not read as a table (no infraction, "
                    f"category or penalty at {' '.join(words[at : at + 4])!r})"
                )
                return rule
            what, size = kinds[name], len(name.split())
            if what == "category" and not row:
                lines.append(name)
            elif what == "infraction" and not row:
                row = name
            elif what == "penalty" and row:
                lines.append(f"{row}{CELLS}{name}")
                row = ""
            else:  # a category or infraction where a penalty was due, or the reverse
                self.notes.append(
                    f"{self.spec.prefix} {rule.number}: not read as a table ({what} {name!r} "
                    "out of place)"
                )
                return rule
            at += size
        rows = sum(CELLS in line for line in lines)
        self.notes.append(
            f"{self.spec.prefix} {rule.number}: the table the conversion ran together read as "
            f"{rows} rows of infraction and penalty"
        )
        return rule._replace(text="\n".join([f"Infraction{CELLS}Penalty", *lines]))

    def level_table(self, rule: Rule) -> Rule:
        """The MTR's chart of the Rules Enforcement Level of each program, run together by the
        conversion ("Program Rules Enforcement Level Eternal Weekend Competitive Friday Night
        Magic Regular ..."), as a table: "program | level" rows. A row ends at a level (the
        longest that is there: "Regular (Competitive recommended)")."""
        head = "Program Rules Enforcement Level "
        paragraphs = rule.text.split("\n")
        at = next((i for i, p in enumerate(paragraphs) if p.startswith(head)), None)
        if self.doc != "mtr" or at is None:
            return rule
        words = paragraphs[at][len(head) :].split()
        rows, program = [], []
        i = 0
        while i < len(words):
            level = _phrase_at(words, i, LEVELS)
            if level is None:
                program.append(words[i])
                i += 1
                continue
            if not program:
                self.notes.append(
                    f"{self.spec.prefix} {rule.number}: not read as a table (a level with no "
                    f"program before it at {' '.join(words[i : i + 4])!r})"
                )
                return rule
            rows.append(f"{' '.join(program)}{CELLS}{level}")
            program = []
            i += len(level.split())
        if program or not rows:
            self.notes.append(
                f"{self.spec.prefix} {rule.number}: not read as a table ({' '.join(program)!r} "
                "has no level)"
            )
            return rule
        self.notes.append(
            f"{self.spec.prefix} {rule.number}: the chart the conversion ran together read as "
            f"{len(rows)} rows of program and Rules Enforcement Level"
        )
        table = [f"Program{CELLS}Rules Enforcement Level", *rows]
        return rule._replace(text="\n".join([*paragraphs[:at], *table, *paragraphs[at + 1 :]]))

    def stated_date(self, file: _Json, root: dict) -> date | None:
        metadata = root.get("metadata")
        if not isinstance(metadata, dict) or "effective_date" not in metadata:
            return None
        line = next(iter(_key_lines(file.text, "effective_date")), (1, None))[0]
        return _parse_date(metadata["effective_date"], file.name, line)

    def settle_date(self, index: _Json, day: date | None) -> date:
        """The index's date, else the section files' (noted); SourceError if none states one."""
        stated = sorted({d for d, _ in self.dates})
        if day is None:
            if not stated:
                raise SourceError(index.name, 1, DATE_SHAPE + " (of the index or a section file)")
            day = stated[0]
            self.notes.append(
                f"effective date {day.isoformat()} from {self.dates[0][1]}: the index states none"
            )
        others = [f"{f} ({d.isoformat()})" for d, f in self.dates if d != day]
        if others:
            self.notes.append(f"section files stating another date: {', '.join(others)}")
        return day

    def number(self, value: Any, file: str, line: int, what: str) -> str:
        """A number as the tournament documents write it ("3", "3.1", "C"), canonical."""
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise SourceError(file, line, what, _shown(value))
        try:
            return documents.number(str(value))
        except NumberError:
            raise SourceError(file, line, what, str(value)) from None

    def section(self, index: _Json, item: Any, line: int) -> None:
        if not isinstance(item, dict):
            raise SourceError(index.name, line, SECTION_SHAPE, _shown(item))
        number = self.number(
            item.get("section_number"), index.name, line, 'a "section_number" (3, or "C")'
        )
        if documents.kind_of(number) == "rule":
            raise SourceError(index.name, line, 'a "section_number" (3, or "C")', number)
        key = item.get("section_key")
        if not isinstance(key, str) or not _SECTION_KEY.fullmatch(key):
            raise SourceError(index.name, line, 'a "section_key" naming a file', _shown(key))
        path = self.folder / f"{key}.json"
        if not path.is_file():
            raise SourceError(
                index.name, line, f"the section file {key}.json the index lists", "no such file"
            )
        heading = _text(index.name, line, "title", item.get("title")).strip()
        file = _load(path)
        root = file.value
        if not isinstance(root, dict):
            raise SourceError(file.name, 1, FILE_SHAPE, _shown(root))
        list_key = next((k for k in LIST_KEYS if k in root), None)
        entries = root.get(list_key) if list_key else None
        if not isinstance(entries, list):
            found = _shown(entries) if list_key else "keys " + ", ".join(list(map(str, root))[:8])
            raise SourceError(file.name, 1, FILE_SHAPE, found)
        day = self.stated_date(file, root)
        if day is not None:
            self.dates.append((day, file.name))
        own = root.get("section_number")
        own_line = next(iter(_key_lines(file.text, "section_number")), (1, None))[0]
        if own is not None and str(own) != str(item.get("section_number")):
            self.notes.append(
                f"{file.name}: section_number {own!r}, the index says {number}: read as {number}"
            )
        if not heading:
            heading = _text(file.name, own_line, "title", root.get("title")).strip()
        lines = _Lines(file.text, "number")
        if documents.kind_of(number) == "section":
            title = _SECTION_TITLE.sub("", heading, count=1)
            intro = next((k for k in INTRO_KEYS if isinstance(root.get(k), str)), None)
            label = f"{self.spec.prefix} {number}"
            text = self.clean.text(root[intro], label) if intro else ""
            self.add(Rule(number, "section", text, Source(file.name, own_line), title=title), file)
            for entry in entries:
                self.entry(file, entry, lines, number)
        else:
            title = _APPENDIX_TITLE.sub("", heading, count=1)
            for entry in entries:
                self.entry(file, entry, lines, number, appendix=(heading, title))
            if not entries:
                self.notes.append(f"{file.name}: appendix {number} holds no entry; its text is ''")
                self.add(
                    Rule(number, "appendix", "", Source(file.name, own_line), title=title), file
                )

    def add(self, rule: Rule, file: _Json) -> None:
        first = self.seen.get(rule.number)
        if first is not None:
            raise SourceError(
                file.name, rule.source.line, "each number once", f"{rule.number} (also in {first})"
            )
        self.seen[rule.number] = file.name
        self.rules.append(rule)

    def entry(
        self,
        file: _Json,
        item: Any,
        lines: _Lines,
        section: str,
        appendix: tuple[str, str] | None = None,
    ) -> None:
        if not isinstance(item, dict):
            raise SourceError(file.name, 1, ENTRY_SHAPE, _shown(item))
        raw = item.get("number")
        line = lines.next(raw)
        expected = f'"number": "{section}"' if appendix else f'"number": "{section}.N"'
        number = self.number(raw, file.name, line, expected)
        if appendix and number != section:
            raise SourceError(file.name, line, expected + " (the appendix's letter)", number)
        if not appendix and documents.kind_of(number) != "rule":
            raise SourceError(file.name, line, expected, number)
        if not appendix and number.split(".")[0] != section:
            self.notes.append(f"{file.name}: entry {number} stands in section {section}")
        label = f"{self.spec.prefix} {number}"
        title = _as_printed(" ".join(_text(file.name, line, "title", item.get("title")).split()))
        if appendix:
            title = title or appendix[1]
        main = next((k for k in TEXT_KEYS if k in item), None)
        repeats = (appendix[0], f"Appendix {number} {title}", title) if appendix else ()
        raw_text = _text(file.name, line, main, item[main]) if main else ""
        text, moved = _run_in_parts(self.clean.text(raw_text, label, repeats))
        parts: dict[str, list[str]] = {}
        penalty = " ".join(_text(file.name, line, "penalty", item.get("penalty")).split())
        title, penalty = self.without_penalty(title, penalty, label)
        if penalty:
            parts["penalty"] = [penalty]
        self.moved(label, main or "text", moved, parts)
        for key, value in item.items():
            if key in ("number", "title", "penalty", "examples", main):
                continue
            name = _part_name(key)
            if not isinstance(value, (str, list, type(None))) or not name:
                self.notes.append(f"{file.name}: {label}: ignored {key!r} ({_shown(value)})")
                continue
            part, moved = _run_in_parts(self.clean.text(_text(file.name, line, key, value), label))
            if part:
                parts.setdefault(name, []).append(part)
            self.moved(label, name, moved, parts)
        order = [p for p in PART_ORDER if p in parts] + [p for p in parts if p not in PART_ORDER]
        kind = "appendix" if appendix else "rule"
        self.read_entries += 1
        self.add(
            Rule(
                number,
                kind,
                text,
                Source(file.name, line),
                title=title,
                examples=self.examples(file, line, item.get("examples"), label),
                parts=tuple((p, "\n".join(parts[p])) for p in order),
            ),
            file,
        )

    def without_penalty(self, title: str, penalty: str, label: str) -> tuple[str, str]:
        """The title without the penalty the converter appended to it, and the penalty (the
        title's own when the penalty field is empty and the title reads "Category — Name
        Penalty")."""
        number = label.split(" ", 1)[1]
        if penalty:
            stripped = title
            while stripped.casefold().endswith(" " + penalty.casefold()):
                stripped = stripped[: -len(penalty)].rstrip()
            if stripped != title:
                self.stripped.append(number)
            return stripped, penalty
        if self.doc == "ipg" and re.search(r"\s[—–]\s", title):
            for known in PENALTIES:
                if title.casefold().endswith(" " + known.casefold()):
                    self.inferred.append(number)
                    return title[: -len(known)].rstrip(), title[-len(known) :]
        return title, penalty

    def moved(
        self, label: str, field: str, moved: list[tuple[str, str]], parts: dict[str, list[str]]
    ) -> None:
        """Files the "Upgrade:"/"Downgrade:" paragraphs found run into a field."""
        for name, text in moved:
            parts.setdefault(name, []).append(text)
        for name in dict.fromkeys(n for n, _ in moved):
            count = sum(n == name for n, _ in moved)
            self.notes.append(
                f"{label}: moved {count} '{name.capitalize()}:' paragraph"
                f"{'s' if count > 1 else ''} out of the {field} into the part '{name}'"
            )

    def examples(self, file: _Json, line: int, value: Any, label: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            pieces = _split_examples(value)
            if len(pieces) > 1:
                self.notes.append(f"{label}: split its examples at their letters (A., B., ...)")
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            pieces = value
        else:
            raise SourceError(file.name, line, '"examples": a list of texts', _shown(value))
        out = (self.clean.text(p, f"{label} example") for p in pieces)
        return tuple(_MARKER.sub("", e, count=1) for e in out if e)


_MARKER = re.compile(r"^[A-Z]\.\s+")  # an example's letter: the list's marker, not its text


_SMALL_WORDS = frozenset(
    ("a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to")
)


def _as_printed(title: str) -> str:
    """A title the conversion kept in capitals ("DEFINITION OF PENALTIES", IPG 1.1) as the
    document's headings print it: "Definition of Penalties"."""
    if not title.isupper():
        return title
    words = title.casefold().split(" ")
    return " ".join(
        w if k and w in _SMALL_WORDS else w[:1].upper() + w[1:] for k, w in enumerate(words)
    )


def _split_examples(text: str) -> list[str]:
    """ "A. One. B. Two." -> ["A. One.", "B. Two."]: split at the letters in sequence only."""
    starts = []
    pos = 0
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        m = re.compile(rf"(?:^|(?<=\s)){letter}\.\s").search(text, pos)
        if m is None:
            break
        starts.append(m.start())
        pos = m.end()
    cuts = sorted({0, *starts, len(text)})
    pieces = (text[a:b].strip() for a, b in itertools.pairwise(cuts))
    return [p for p in pieces if p]


_RUN_IN_PART = re.compile(r"(?:^|(?<=[.!?”\")]\s)|(?<=\n))(Upgrade|Downgrade):\s*")


def _run_in_parts(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text without its "Upgrade:"/"Downgrade:" paragraphs, and those as (name, text)."""
    found = list(_RUN_IN_PART.finditer(text))
    if not found:
        return text, []
    moved = []
    for m, after in zip(found, [*found[1:], None]):
        end = after.start() if after else len(text)
        moved.append((m.group(1).lower(), text[m.end() : end].strip()))
    return text[: found[0].start()].strip(), [(n, t) for n, t in moved if t]


# --- text repairs ---------------------------------------------------------------------------

_BLANK = re.compile(r"\n[ \t]*\n")
_ITEM = re.compile(r"^(?:•|\d{1,2}\.\s+\S)")  # a list item: "• Standard", "1. Match points"
_END = re.compile(r"[.!?:;][”\"’)\]]*$")  # a line that ends a sentence (not "players’")


def _phrase_at(words: list[str], at: int, phrases) -> str | None:
    """The longest of `phrases` that the words from `at` spell ("Unsporting Conduct — Minor"
    before "Unsporting Conduct"), if any."""
    here = [p for p in phrases if " ".join(words[at : at + len(p.split())]) == p]
    return max(here, key=lambda p: len(p.split()), default=None)


# the Rules Enforcement Levels, as the MTR's chart of programs names them (appendix F)
LEVELS = ("Regular (Competitive recommended)", "Regular", "Competitive", "Professional")
SHORT = 50  # a line this short that ends no sentence is a heading or a date, not a wrap
_WORD = r"[A-Z][\w’'-]*"  # a capitalised word of a heading
_HEADING = re.compile(rf"{_WORD}(?: {_WORD}){{1,4}}")  # "Constructed Formats"
# "Warning Warnings are used", "Match Loss A Match Loss is": a heading run into its text
# (a sentence follows the repeat: not "Unsporting Conduct Unsporting Conduct — Minor", a table)
_RUN_IN = re.compile(rf"^({_WORD}(?: {_WORD}){{0,3}}) (?:(?:A|An|The) )?\1[\w’'-]* [a-z]")
# "Match Points Players earn 3 match points…": a heading run into a text that names it later
# (lower case: in its first sentence), not repeated at once
_RUN_IN_NAMED = re.compile(
    rf"^(?!(?:The|A|An) )({_WORD}(?: {_WORD}){{1,3}}) ((?:A|An|The|[A-Z][a-z]+) [a-z][^.]*)"
)
# a sentence's end inside a line: ". " before a capital or an opening quote
_SENTENCE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][”\"’)]))\s+(?=[A-Z“\"])")
# a sentence that goes on speaking of the one before: a pronoun ("They must", "These will"),
# or "These cards" (the noun: the item's own, or a paragraph's start, "These criteria…")
_BACK_REFERENCE = re.compile(
    r"^(?:(?:They|It|Its|Their|He|She)\b"
    r"|(?:This|These|That|Those|Such) (?!(?:is|are|was|were|will|must|may|can|do|does|has|have)\b)(\w+)"
    r"|(?:This|These|That|Those)\b)"
)
# the PDF's footer: "All trademarks are property of…", "©2025 Wizards…"
_LEGAL = re.compile(r"©|^All trademarks are property of\b")
# "...rules-documents. Professional": a heading at the end of the paragraph before its own
# (after a full stop: not "(Competitive recommended) World Championship Professional", a table)
_TRAILING = re.compile(rf"^(.*?[.!?][”\"’)]?)\s+({_WORD}(?: {_WORD}){{0,3}})$")
# "• Lorwyn Eclipsed (...) The following cards are banned in Pioneer tournaments:"
_LIST_INTRO = re.compile(r"^(•.*?\S)\s+((?:The|These) following\b[^:•]*:)$")
_URL = re.compile(r"(?<=[a-z])(?=https?://)")  # "athttps://"
# "previously- unknown": a word hyphenated at a line end; not "pre- and post-sideboard"
_BROKEN_HYPHEN = re.compile(r"(\w[\w-]*)- (?!(?:and|or|nor|to)\b)(\w+)")


def _squash(text: str) -> str:
    return re.sub(r"\W", "", text).casefold()


class _Cleaner:
    """Turns a JSON text field into paragraphs joined with "\\n", repairing what the PDF
    conversion left (see the module's docstring); notes each repair."""

    def __init__(self, notes: list[str]):
        self.notes = notes
        self.wraps = 0

    def summary(self) -> list[str]:
        if not self.wraps:
            return []
        return [f"joined {self.wraps} lines the PDF wrapped inside paragraphs"]

    def text(self, raw: str, label: str, repeats: tuple[str, ...] = ()) -> str:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
        blocks = [b for b in (self.lines(block) for block in _BLANK.split(raw)) if b]
        blocks = self.page_breaks(blocks, label)
        if repeats and blocks and _squash(blocks[0][0]) in {_squash(h) for h in repeats if h}:
            self.notes.append(
                f"{label}: dropped its heading repeated in its text ({blocks[0][0]!r})"
            )
            blocks[0] = blocks[0][1:]
            blocks = [b for b in blocks if b]
        headings = [b[0] for b in blocks if len(b) == 1 and _HEADING.fullmatch(b[0])]
        out: list[list[str]] = []
        for i, block in enumerate(blocks):
            block = self.run_in(block, label)
            if i + 1 < len(blocks):
                block = self.trailing(block, label)
                block = self.fused(block, headings, label)
            block = self.list_intros(block, label)
            out.append(self.folded(block, label) if i + 1 == len(blocks) else block)
        lines = self.legal(self.inline([line for block in out for line in block], label), label)
        return "\n".join(lines)

    def lines(self, block: str) -> list[str]:
        """The block's lines with the PDF's wraps joined; list items start with "• "."""
        out: list[str] = []
        previous = ""  # the raw line before, as the PDF broke it
        for raw in block.split("\n"):
            line = " ".join(raw.split())
            if not line:
                continue
            if line.startswith("•"):
                line = "• " + line[1:].lstrip()
            joins = (
                bool(out)
                and not _ITEM.match(line)
                and not _END.search(previous)
                and len(previous) >= SHORT
            )
            if joins:
                out[-1] += " " + line
                self.wraps += 1
            else:
                out.append(line)
            previous = line
        return out

    def page_breaks(self, blocks: list[list[str]], label: str) -> list[list[str]]:
        """Joins a paragraph that ends mid-sentence to the next, which starts in lower case."""
        out: list[list[str]] = []
        for block in blocks:
            last = out[-1][-1] if out else ""
            if last and not _END.search(last) and block[0][:1].islower():
                self.notes.append(
                    f"{label}: joined a paragraph broken mid-sentence ('…{last[-30:]}' + "
                    f"'{block[0][:30]}…')"
                )
                out[-1][-1] = f"{last} {block[0]}"
                out[-1].extend(block[1:])
            else:
                out.append(list(block))
        return out

    def run_in(self, block: list[str], label: str) -> list[str]:
        first = block[0]
        m = _RUN_IN.match(first) or _RUN_IN_NAMED.match(first) if not _ITEM.match(first) else None
        if m is None or (m.re is _RUN_IN_NAMED and m.group(1).casefold() not in m.group(2)):
            return block
        heading = m.group(1)
        rest = first[len(heading) :].lstrip()
        self.notes.append(
            f"{label}: split the heading {heading!r} from the text it ran into ('{first[:50]}…')"
        )
        return [heading, rest, *block[1:]]

    def trailing(self, block: list[str], label: str) -> list[str]:
        last = block[-1]
        m = _TRAILING.match(last) if not _ITEM.match(last) else None
        if m is None:
            return block
        self.notes.append(
            f"{label}: the heading {m.group(2)!r} ended the paragraph before it; "
            "it starts a line of its own"
        )
        return [*block[:-1], m.group(1), m.group(2)]

    def fused(self, block: list[str], headings: list[str], label: str) -> list[str]:
        """ "• Modern Eternal Constructed Formats" (a list's last item, then a heading that ends
        like one of the entry's headings) -> "• Modern", "Eternal Constructed Formats"."""
        last = block[-1]
        if not last.startswith("• "):
            return block
        words = last[2:].split(" ")
        for heading in headings:
            known = heading.split(" ")
            if len(known) >= len(words) or words[-len(known) :] != known:
                continue
            start = len(words) - len(known)
            while start > 1 and re.fullmatch(_WORD, words[start - 1]):
                start -= 1
            item, found = " ".join(words[:start]), " ".join(words[start:])
            self.notes.append(f"{label}: split {item!r} from the heading {found!r}")
            return [*block[:-1], "• " + item, found]
        return block

    def list_intros(self, block: list[str], label: str) -> list[str]:
        out = []
        for line in block:
            m = _LIST_INTRO.match(line)
            if m:
                self.notes.append(
                    f"{label}: the list's introduction {m.group(2)!r} ended the item before it; "
                    "it starts a line of its own"
                )
                out += [m.group(1), m.group(2)]
            else:
                out.append(line)
        return out

    def folded(self, block: list[str], label: str) -> list[str]:
        """A list's item that ends its field holds the paragraphs after it (the conversion
        joined every line up to the next item or the field's end, where the IPG's fields have
        no blank lines; an item before a blank line is kept whole: the MTR's can hold two
        sentences, "Each untapped permanent… Players are permitted…"): the item ends with its first
        sentence and the sentences that go on speaking of it ("They must…", "These cards…"
        after "Double-faced cards…"); what follows is a paragraph (one: nothing tells its own
        paragraphs apart)."""
        last = block[-1]
        if not last.startswith("• "):
            return block
        sentences = _SENTENCE.split(last)
        item = sentences[0]
        for at, sentence in enumerate(sentences[1:], 1):
            m = _BACK_REFERENCE.match(sentence)
            noun = m and (m.group(1) or "").rstrip("s").casefold()
            if m and (not m.group(1) or noun in item.casefold()):
                item += " " + sentence
                continue
            rest = " ".join(sentences[at:])
            self.notes.append(
                f"{label}: the paragraph after a list ran into its last item ('…{item[-30:]}' + "
                f"'{rest[:30]}…'): it starts a line of its own"
            )
            return [*block[:-1], item, rest]
        return block

    def legal(self, lines: list[str], label: str) -> list[str]:
        """The PDF's footer of trademarks and copyrights at a field's end: not the text."""
        keep = len(lines)
        while keep and _LEGAL.search(lines[keep - 1]):
            keep -= 1
        if keep < len(lines):
            self.notes.append(
                f"{label}: dropped {len(lines) - keep} lines of the PDF's footer of trademarks "
                f"('{lines[keep][:40]}…')"
            )
        return lines[:keep]

    def inline(self, lines: list[str], label: str) -> list[str]:
        """Puts back a URL's space and joins words hyphenated at a line end."""
        urls = [
            line[max(0, m.start() - 10) : m.start() + 10]
            for line in lines
            for m in _URL.finditer(line)
        ]
        broken = [m.group() for line in lines for m in _BROKEN_HYPHEN.finditer(line)]
        if urls:
            shown = ", ".join(f"'…{u}…'" for u in urls)
            self.notes.append(f"{label}: put back the space before a URL: {shown}")
        if broken:
            shown = ", ".join(map(repr, broken))
            self.notes.append(f"{label}: joined words hyphenated at a line end: {shown}")
        return [_BROKEN_HYPHEN.sub(r"\1-\2", _URL.sub(" ", line)) for line in lines]
