"""The Magic Tournament Rules (MTR) and Infraction Procedure Guide (IPG) as the PDFs Wizards
publishes (a Word document printed to PDF: mtg_ipg_17apr20_en_0.pdf and its kin).

Layout: a first page with the title ("MAGIC INFRACTION PROCEDURE GUIDE", "…TOURNAMENT RULES"),
"Effective April 17, 2020" and an introduction; a contents list ("2.1. Game Play Error — Missed
Trigger ......7"); then the body: bold numbered headings, sections ("2. GAME PLAY ERRORS", in
small capitals) with an introduction, entries ("2.1. Game Play Error — Missed Trigger", "3.1.
Tiebreakers"), appendices ("APPENDIX A — PENALTY QUICK REFERENCE"). An IPG infraction has bold
sub-headings "Definition", "Examples" ("A. …", "B. …"), "Philosophy", "Additional Remedy" and
bold-labelled paragraphs "Upgrade: …", "Downgrade: …"; its penalty stands at the right margin
of the heading line. Every page repeats a footer (here the page number).

Traps, and what is done about them:

- Text comes as printed lines with no blank lines: paragraphs are rebuilt from the geometry. A
  line ends its paragraph when the gap below it is wider than 1.45 line pitches, or when the
  first word of the next line would have fitted on it (so the break was no wrap), or when the
  next line starts a list item ("• ", "A. ") further left than it (a hanging indent ends) or
  level with a one-line item, or when boldness changes (a bold line after text, text after a
  bold line, a bold label after a line that began with one). Across pages, all but the gap.
- A line that ends in "-" continues without a space (the hyphen is a real one: Word does not
  hyphenate these documents); PDFium joins such lines itself and marks the hyphen U+FFFE,
  which becomes "-" again unless the word without it occurs elsewhere in the document and
  the hyphenated one does not (then it was a soft hyphen, dropped, and noted). U+00AD (soft
  hyphen) is always dropped. A dash ("—") glued to a word at a line end continues without a
  space too.
- Section headings (and IPG section 1's entries) are printed in capitals: their titles are
  taken, in their own case, from the contents list (noted); without one, title-cased.
- The penalty on the heading line is found by the gap in front of it (wider than 8% of the
  page); the contents list is the fallback (its title is the heading without the penalty).
  Other lines with such gaps are table rows (appendix A): their cells are joined with " | ".
- Running headers and footers are the lines at the top or bottom of a page whose text, digits
  aside, recurs there on at least half the pages (and two): found, not named, and dropped
  (noted). The contents list (lines ending in dot leaders and a page number) and the front
  matter before the first section (title page, introduction) make no entries; a trademark
  line at the very end ("©") is dropped too (noted).
- A bold numbered line is a heading only in sequence (sections ascending, entries ascending
  within their section, appendix letters ascending); otherwise it is text (noted).

- A hostile PDF is refused before PDFium reads its pages (issue 47: a 1.1 KB page tree that
  names one page a million times, or a 4 MB stream that inflates to a gigabyte, each took
  half a gigabyte and minutes): at most MAX_PAGES pages (the largest real MTR or IPG has
  under 100), and its compressed streams, inflated to count them, at most MAX_STREAM bytes
  each and MAX_INFLATED in all (the 2020 IPG's 72 streams: 0.9 MB, the largest 0.1 MB).

Contract: `read` returns one `Edition` (lang "en", `document` "ipg" or "mtr" from the title on
the first page, the date of its "Effective <Month D, YYYY>", `notes` listing every repair) whose
rules are, in document order: a section `Rule(number="2", kind="section", title="Game Play
Errors", text=<its introduction>)`, an entry `Rule(number="2.1", kind="rule", title="Game Play
Error — Missed Trigger", text=…)`, an appendix `Rule(number="A", kind="appendix", title="Penalty
Quick Reference")`. An IPG infraction's `text` is its Definition, `examples` its lettered
examples (their letters "A.", "B.", the list's markers, left out) and `parts` ("penalty", "No Penalty"), then "philosophy", "additional remedy",
"upgrade" (several Upgrade paragraphs joined, without their label) and any other sub-heading or
label ("downgrade"), lower-case, each left out when missing; section 1's entries (General
Philosophy) and every MTR entry have text only. Text is paragraphs joined with "\\n", bullets as
lines starting "• ". `Source.line` is the 1-based PAGE number of the heading. `refs` stay empty:
references are resolved elsewhere. Anything unreadable (not a PDF, encrypted, cut short, pages
of images only, not an MTR or IPG, no effective date) raises `SourceError`, never another
exception.

The PDF library was chosen by measurement on the 2020 IPG (31 pages; a loaded 2-core machine):
import = a fresh `python -c "import X"` over a bare interpreter, median of 11, each library
alone in its own venv; extract = the text of all pages, median of 5; size = site-packages with
the library's own dependencies.

    library          import   extract   size     heading line of 2.1 as extracted
    pypdfium2 5.15   0.13 s   0.06 s     9.6 MB  "2.1. Game Play Error — Missed Trigger No
                                                 Penalty", with character boxes and weights
    pypdf 7.1        0.24 s   1.4-1.8 s  4.4 MB  the same line (spaces after "2.1."), no geometry
    pdfminer.six     0.23 s   2.3-2.4 s 28.5 MB  "No Penalty" a block of its own, and the
                                                 section numbers ("2.") apart from their titles
    pdfplumber 0.11  0.26 s   4.4-5.9 s 60.6 MB  the same line as pypdfium2, with geometry

All four give the same words, quotes (’ “ ”), dashes (— –), bullets and "…", with no
ligatures to repair, nothing split or run together (pypdf's layout mode runs words together:
"bythe") and the reading order right. pypdfium2 (Apache-2.0 or BSD-3-Clause; PDFium is BSD) is
chosen: 25-100 times faster, the fastest to import, and it gives the character geometry and
font weights that paragraphs, bold headings and the right-margin penalty need (the whole `read`,
geometry included, takes about 0.3 s). It is a binary wheel, imported only inside `read`.
"""

from __future__ import annotations

import re
import statistics
from datetime import date
from itertools import pairwise
from pathlib import PurePath
from typing import Any, NamedTuple

from crlookup.core import documents
from crlookup.core.errors import SourceError
from crlookup.core.model import Edition, Rule, Source
from crlookup.sources.dates import MONTHS

TITLES = {
    "ipg": "Magic: The Gathering Infraction Procedure Guide",
    "mtr": "Magic: The Gathering Tournament Rules",
}
_EFFECTIVE = re.compile(
    r"\beffective(?:\s+as\s+of)?\s+(" + "|".join(MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})", re.I
)
_SECTION = re.compile(r"^(\d{1,2})\.\s+([A-Za-z“\"(].*)$")
_ENTRY = re.compile(r"^(\d{1,2})\.(\d{1,2})\.?\s+([A-Za-z“\"(].*)$")
_APPENDIX = re.compile(r"^appendix\s+([A-Z])\b\s*[—–:.-]?\s*(.*)$", re.I)
_LEADERS = re.compile(r"^(.*?\S)\s*(?:\.\s?){4,}\s*(\d+)$")  # "2.1. Missed Trigger ......7"
_CONTENTS = re.compile(r"^(?:table of )?contents$", re.I)
_BULLETS = "•●▪◦\uf0b7"
_LABEL = re.compile(r"^(?:[" + _BULLETS + r"]|[A-Z]\.|\d{1,2}\.|[a-z]\)|\([a-z0-9]{1,3}\))\s")
_EXAMPLE = re.compile(r"^[A-Z]\.\s+")
# "Upgrade: …", "Downgrade: …": a paragraph that starts with a bold label
_PART_LABEL = re.compile(r"^([A-Z][a-z]+(?: [A-Z][a-z]+)?):\s*(.*)$", re.S)
_SUBHEADING = re.compile(r"^[A-Z][A-Za-z]*(?: [A-Za-z]+){0,3}$")
_KNOWN_PARTS = ("penalty", "philosophy", "additional remedy", "upgrade")
_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or"}
_SMALL_WORDS |= {"the", "to", "with", "vs"}
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.I)
_HYPHEN_MARK = "\ufffe"  # PDFium's mark for a hyphen at a line end it joined


class Line(NamedTuple):
    """A printed line with what the parser needs of its geometry (PDF points, y upwards)."""

    page: int  # 1-based
    text: str  # stripped
    top: float  # baseline of its first character
    bottom: float  # baseline of its last character (lower when PDFium joined a hyphen)
    x0: float  # left of its first character
    x1: float  # right of its last character
    lead: float  # width of its first word
    bold: bool  # its first character and the last of its first cell are bold
    lead_bold: bool  # its first character is bold
    cells: tuple[str, ...] = ()  # a line starting bold, split at wide gaps (table row, penalty)


class _Para(NamedTuple):
    text: str
    first: Line
    lines: int
    bold: bool


class _Heading(NamedTuple):
    kind: str  # "section", "rule" or "appendix"
    number: str
    title: str  # as printed, without its number (and penalty)
    penalty: str
    line: Line


def sniff(data: bytes) -> bool:
    return data.startswith(b"%PDF-")


def read(path: PurePath, data: bytes) -> list[Edition]:
    file = PurePath(path).name
    if not sniff(data):
        raise SourceError(file, 1, "a PDF (a file starting with '%PDF-')", _show(data[:20]))
    end = data.rfind(b"%%EOF")
    if end < 0 or end < len(data) - 1024:
        raise SourceError(
            file,
            None,
            "a complete PDF ending in '%%EOF' (this one is cut short)",
            _show(data[-20:]),
        )
    _check_inflated(data, file)
    return [parse(_extracted(data, file), file)]


READ_SECONDS = 60  # the longest PDFium may take over a PDF (the 2020 IPG: 0.2 s)
READ_BYTES = 1 << 30  # the most memory its process may take (the 2020 IPG: about 60 MB)

# The child that reads a PDF: PDFium in a process of its own, its memory limited; the pages'
# lines pickled back (or the SourceError)
_CHILD = """
import pickle, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
from crlookup.sources import tournament_pdf as pdf
from crlookup.core.errors import SourceError
data = sys.stdin.buffer.read()
try:
    import pypdfium2 as pdfium
    found = pdf._extract(pdfium, data, sys.argv[1])
except ImportError:
    found = SourceError(sys.argv[1], None, "the PDF reader pypdfium2 installed", "none")
except SourceError as e:
    found = e
except MemoryError:
    found = SourceError(sys.argv[1], None, "a PDF read in at most 1 GB", "more")
sys.stdout.buffer.write(pickle.dumps(found))
"""


def _extracted(data: bytes, file: str) -> list[list[Line]]:
    """`_extract`, in a process of its own with at most READ_BYTES of memory and READ_SECONDS
    of time (PDFium is C: a hostile page, one text object of millions of characters, took
    minutes in it and could not be stopped in this process); without `resource` (Windows),
    here."""
    import pickle
    import subprocess
    import sys

    try:
        import resource  # noqa: F401 (the child's limit)
    except ImportError:
        import pypdfium2 as pdfium  # type: ignore[import-untyped]

        return _extract(pdfium, data, file)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, file, str(READ_BYTES)],
            input=data, capture_output=True, timeout=READ_SECONDS, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise SourceError(
            file, None, f"a PDF read within {READ_SECONDS} s", "more time (a hostile page?)"
        ) from None
    try:
        found = pickle.loads(done.stdout)  # (what our own child wrote)
    except Exception:  # noqa: BLE001 - the child died: its memory, a crash of PDFium
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["died"]
        raise SourceError(file, None, "a PDF that can be read", reason[0][:200]) from None
    if isinstance(found, SourceError):
        raise found
    return found


def _show(raw: bytes) -> str:
    return raw.decode("latin-1")


MAX_PAGES = 300
MAX_STREAM = 16 * 1024 * 1024  # bytes a compressed stream may inflate to
MAX_INFLATED = 64 * 1024 * 1024  # and all of them together
_STREAM = re.compile(rb"stream\r?\n")


def _check_inflated(data: bytes, file: str) -> None:
    """SourceError if a compressed (Flate) stream of the PDF inflates to more than MAX_STREAM
    bytes, or all of them to more than MAX_INFLATED: each inflated a megabyte at a time and
    counted, never held. (A stream that is not Flate, an image, counts as its own length.)"""
    import zlib

    total = 0
    at = 0
    while (found := _STREAM.search(data, at)) is not None:
        end = data.find(b"endstream", found.end())
        if end < 0:
            break
        size, rest = 0, data[found.end() : end]
        inflating = zlib.decompressobj()
        try:
            while rest and not inflating.eof and size <= MAX_STREAM:
                out = inflating.decompress(rest, 1 << 20)
                if not out and inflating.unconsumed_tail == rest:
                    break  # (bytes after its end: no progress)
                size, rest = size + len(out), inflating.unconsumed_tail
        except zlib.error:
            size = end - found.end()
        total += size
        if size > MAX_STREAM or total > MAX_INFLATED:
            raise SourceError(
                file,
                None,
                f"a PDF whose streams inflate to at most {MAX_STREAM >> 20} MB each and "
                f"{MAX_INFLATED >> 20} MB in all",
                f"a stream at byte {found.end():,} inflating past "
                f"{(MAX_STREAM if size > MAX_STREAM else MAX_INFLATED) >> 20} MB",
            )
        at = end + len(b"endstream")


# -- the PDF library, at the boundary: every failure of it becomes a SourceError ------------


def _extract(pdfium: Any, data: bytes, file: str) -> list[list[Line]]:
    """Every page's printed lines with their geometry, in PDFium's reading order."""
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        code = getattr(e, "err_code", None)
        if code in (pdfium.raw.FPDF_ERR_PASSWORD, pdfium.raw.FPDF_ERR_SECURITY):
            raise SourceError(
                file, None, "a PDF that opens without a password", "an encrypted PDF"
            ) from None
        raise SourceError(file, None, "a PDF that can be read", str(e)) from None
    except Exception as e:  # noqa: BLE001 - PDFium's binding may raise others on odd bytes
        raise SourceError(
            file, None, "a PDF that can be read", f"{type(e).__name__}: {e}"
        ) from None
    count = len(doc)  # (counted from the page tree: no page read yet)
    if count > MAX_PAGES:
        doc.close()
        raise SourceError(file, None, f"a PDF of at most {MAX_PAGES} pages", f"{count:,} pages")
    try:
        return [_page_lines(pdfium, doc[i], i + 1) for i in range(len(doc))]
    except Exception as e:  # noqa: BLE001 - whatever PDFium raises on a damaged page
        raise SourceError(
            file, None, "a PDF whose pages can be read", f"{type(e).__name__}: {e}"
        ) from None
    finally:
        doc.close()


MAX_OBJECTS = 10_000  # what a page may hold (the 2020 IPG's pages: at most 440)


def _page_lines(pdfium: Any, page: Any, number: int) -> list[Line]:
    import ctypes

    raw = pdfium.raw
    width = page.get_width()
    objects = raw.FPDFPage_CountObjects(page)
    if objects > MAX_OBJECTS:  # (before its text is read: that took minutes)
        raise ValueError(f"page {number} holds {objects:,} objects (at most {MAX_OBJECTS:,})")
    textpage = page.get_textpage()
    try:
        if textpage.count_chars() <= 0:
            return []
        text = textpage.get_text_range()
        x, y = ctypes.c_double(), ctypes.c_double()
        left, right = ctypes.c_double(), ctypes.c_double()
        bottom, top = ctypes.c_double(), ctypes.c_double()

        def char(ti: int) -> int:
            return raw.FPDFText_GetCharIndexFromTextIndex(textpage, ti)

        def box(ti: int) -> tuple[float, float]:
            """(left, right) of the character at text index `ti`."""
            raw.FPDFText_GetCharBox(textpage, char(ti), left, right, bottom, top)
            return left.value, right.value

        def baseline(ti: int) -> float:
            raw.FPDFText_GetCharOrigin(textpage, char(ti), x, y)
            return y.value

        def is_bold(ti: int) -> bool:
            ci = char(ti)
            if raw.FPDFText_GetFontWeight(textpage, ci) >= 600:
                return True
            size = raw.FPDFText_GetFontInfo(textpage, ci, None, 0, None)
            if size <= 0:
                return False
            name = ctypes.create_string_buffer(size)
            raw.FPDFText_GetFontInfo(textpage, ci, name, size, None)
            return bool(_BOLD_NAME.search(name.value.decode("latin-1")))

        lines = []
        for start, printed in _split_lines(text):
            stripped = printed.strip()
            if not stripped:
                continue
            first = start + len(printed) - len(printed.lstrip())
            last = start + len(printed.rstrip()) - 1
            word_end = first + len(stripped.split()[0]) - 1
            x0 = box(first)[0]
            bold = is_bold(first)
            cells, head_end = _cells(printed, start, box, width * 0.08) if bold else ((), last)
            both = bold and is_bold(head_end)
            lines.append(
                Line(
                    page=number,
                    text=stripped,
                    top=baseline(first),
                    bottom=baseline(last),
                    x0=x0,
                    x1=box(last)[1],
                    lead=box(word_end)[1] - x0,
                    bold=both,
                    lead_bold=bold,
                    cells=cells,
                )
            )
        return lines
    finally:
        textpage.close()
        page.close()


def _split_lines(text: str) -> list[tuple[int, str]]:
    """(start index, line) for each line of PDFium's text (lines end in CR LF)."""
    out, start = [], 0
    for m in re.finditer(r"\r\n|\r|\n", text):
        out.append((start, text[start : m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return out


def _cells(printed: str, start: int, box: Any, wide: float) -> tuple[tuple[str, ...], int]:
    """The line split where the gap between two characters is wider than `wide` points (none
    if it has no such gap), and the text index of the last character of its first cell."""
    cells: list[str] = []
    cell_start, head_end = 0, start
    previous: float | None = None  # the right edge of the character before
    for k, ch in enumerate(printed):
        if ch.isspace():
            continue
        left, right = box(start + k)
        if previous is not None and left - previous > wide:
            cells.append(printed[cell_start:k].strip())
            cell_start = k
        if not cells:
            head_end = start + k
        previous = right
    cells.append(printed[cell_start:].strip())
    return (tuple(cells) if len(cells) > 1 else ()), head_end


# -- the parser: printed lines to entries (no PDF library below this line) ------------------


def parse(pages: list[list[Line]], file: str) -> Edition:
    """One edition from the printed lines of every page."""
    notes: list[str] = []
    if not any(pages):
        raise SourceError(
            file,
            1,
            "a PDF with text, an MTR or IPG as Wizards publishes it",
            f"{len(pages)} pages of images only (a scan?)",
        )
    document = _document(pages, file)
    day = _effective_date(pages, file)
    pages = _drop_running_lines(pages, notes)
    pages, contents = _drop_contents(pages, notes)
    lines = [line for page in pages for line in page]
    _unmark_hyphens(lines, notes)
    headings = _headings(lines, contents, notes)
    if not headings:
        raise SourceError(
            file,
            None,
            "numbered bold headings such as '2.1. Game Play Error — Missed Trigger' or "
            "'3.1. Tiebreakers'",
            lines[0].text if lines else "no text but running headers and the contents",
        )
    metrics = _metrics(lines)
    first = headings[0][1]
    if first:
        last_page = lines[first - 1].page
        pages_shown = "page 1" if last_page == 1 else f"pages 1-{last_page}"
        notes.append(
            f"{pages_shown}: the front matter before {headings[0][0].number} "
            f"({first} lines: title, introduction) is no entry"
        )
    rules = []
    for k, (heading, at) in enumerate(headings):
        last = k + 1 == len(headings)
        body = lines[at + 1 : len(lines) if last else headings[k + 1][1]]
        rules.append(_entry(heading, body, document, metrics, file, notes, last=last))
    found = {r.number for r in rules}
    missing = [n for n in contents if n not in found]
    if missing:
        notes.append(
            f"{len(missing)} entries of the contents are missing from the body "
            f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}): partial"
        )
    return Edition(
        lang="en",
        date=day,
        source=file,
        rules=tuple(rules),
        title=TITLES[document],
        partial=bool(missing),
        notes=tuple(notes),
        document=document,
    )


def _document(pages: list[list[Line]], file: str) -> str:
    """ "ipg" or "mtr", from the title block of the first page with text."""
    page = next(p for p in pages if p)
    block = []
    for line in page[:8]:
        block.append(line.text)
        if _EFFECTIVE.search(line.text):
            break
    title = " ".join(" ".join(block).casefold().split())
    if "infraction procedure guide" in title:
        return "ipg"
    if "tournament rules" in title:
        return "mtr"
    raise SourceError(
        file,
        page[0].page,
        "an MTR or IPG: a first page titled 'Magic Tournament Rules' or 'Magic Infraction "
        "Procedure Guide'",
        page[0].text,
    )


def _effective_date(pages: list[list[Line]], file: str) -> date:
    for page in pages:
        for line in page:
            m = _EFFECTIVE.search(line.text)
            if m:
                month = MONTHS[m.group(1).capitalize()]
                try:
                    return date(int(m.group(3)), month, int(m.group(2)))
                except ValueError:
                    raise SourceError(
                        file, line.page, "a real effective date", m.group(0)
                    ) from None
    raise SourceError(
        file, 1, "the effective date ('Effective April 17, 2020') on the first page", None
    )


def _key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.split())).casefold()


def _edges(page: list[Line]) -> set[int]:
    """The lines that may be running headers or footers: the first and last two in reading
    order and the two highest and lowest on the page."""
    by_height = sorted(range(len(page)), key=lambda i: page[i].top)
    return {0, 1, len(page) - 2, len(page) - 1, *by_height[:2], *by_height[-2:]} & set(
        range(len(page))
    )


def _drop_running_lines(pages: list[list[Line]], notes: list[str]) -> list[list[Line]]:
    printed = [p for p in pages if p]
    seen: dict[str, int] = {}
    for page in printed:
        for key in {_key(page[i].text) for i in _edges(page)}:
            seen[key] = seen.get(key, 0) + 1
    least = max(2, (len(printed) + 1) // 2)
    running = {k for k, n in seen.items() if n >= least}
    if not running:
        return pages
    out, dropped = [], 0
    for page in pages:
        edges = _edges(page)
        kept = [
            line for i, line in enumerate(page) if i not in edges or _key(line.text) not in running
        ]
        dropped += len(page) - len(kept)
        out.append(kept)
    shown = ", ".join(repr(k) for k in sorted(running))
    notes.append(f"dropped {dropped} running header/footer lines ({shown}: '#' a number)")
    return out


def _drop_contents(
    pages: list[list[Line]], notes: list[str]
) -> tuple[list[list[Line]], dict[str, str]]:
    """The pages without the contents list, and its titles by number ("2.1", "A")."""
    contents: dict[str, str] = {}
    out, dropped, where = [], 0, set()
    for page in pages:
        listed = [m.group(1) for line in page if (m := _LEADERS.match(line.text))]
        if not listed:
            out.append(page)
            continue
        for label in listed:
            entry = _ENTRY.match(label)
            section = _SECTION.match(label)
            appendix = _APPENDIX.match(label)
            if entry:
                contents[f"{entry.group(1)}.{entry.group(2)}"] = entry.group(3).strip()
            elif section:
                contents[section.group(1)] = section.group(2).strip()
            elif appendix and appendix.group(2):
                contents[appendix.group(1).upper()] = appendix.group(2).strip()
        kept = [
            line for line in page if not (_LEADERS.match(line.text) or _CONTENTS.match(line.text))
        ]
        dropped += len(page) - len(kept)
        where.add(page[0].page)
        out.append(kept)
    if dropped:
        pages_shown = ", ".join(str(p) for p in sorted(where))
        notes.append(f"page {pages_shown}: the contents list ({dropped} lines) makes no entries")
    return out, contents


def _unmark_hyphens(lines: list[Line], notes: list[str]) -> None:
    """PDFium's U+FFFE (a hyphen at a line end, lines joined) back to "-", or dropped if the
    word is written elsewhere without it; U+00AD dropped. In place."""
    marked = [i for i, line in enumerate(lines) if _HYPHEN_MARK in line.text or "\xad" in line.text]
    if not marked:
        return
    words = {w.casefold() for line in lines for w in re.findall(r"[\w’'-]+", line.text)}
    for i in marked:
        line = lines[i]

        def repair(m: re.Match[str], page: int = line.page) -> str:
            before, after = m.group(1), m.group(2)
            joined, hyphenated = (before + after).casefold(), f"{before}-{after}".casefold()
            if joined in words and hyphenated not in words:
                notes.append(
                    f"page {page}: {before}-{after} at a line end read as {before + after}"
                )
                return before + after
            notes.append(f"page {page}: {before}-{after} at a line end keeps its hyphen")
            return f"{before}-{after}"

        text = re.sub(r"(\w+)" + _HYPHEN_MARK + r"(\w+)", repair, line.text)
        text = text.replace(_HYPHEN_MARK, "-").replace("\xad", "")
        lines[i] = line._replace(text=text)


class _Metrics(NamedTuple):
    pitch: float  # the usual distance between two baselines of a paragraph
    right: float  # the right margin
    space: float  # the width of a space


def _metrics(lines: list[Line]) -> _Metrics:
    steps = [
        a.bottom - b.top
        for a, b in pairwise(lines)
        if a.page == b.page and 0 < a.bottom - b.top < 40
    ]
    pitch = statistics.median(steps) if steps else 14.0
    ends = sorted(line.x1 for line in lines if len(line.text) > 40) or [
        max(line.x1 for line in lines)
    ]
    right = ends[min(len(ends) - 1, int(len(ends) * 0.95))]
    return _Metrics(pitch, right, pitch * 0.25)


# -- headings ---------------------------------------------------------------------------------


def _headings(
    lines: list[Line], contents: dict[str, str], notes: list[str]
) -> list[tuple[_Heading, int]]:
    """The headings in sequence, each with the index of its line."""
    any_bold = any(line.bold for line in lines)
    out: list[tuple[_Heading, int]] = []
    section, entry, appendix = 0, 0, ""
    for i, line in enumerate(lines):
        if any_bold and not line.bold:
            continue
        heading = _heading(line, contents, notes)
        if heading is None:
            continue
        if heading.kind == "appendix":
            fits = heading.number > appendix
            if fits:
                appendix = heading.number
        elif appendix:
            fits = False
        elif heading.kind == "section":
            fits = int(heading.number) > section
            if fits:
                section, entry = int(heading.number), 0
        else:
            major, minor = map(int, heading.number.split("."))
            fits = major == section and minor > entry
            if fits:
                entry = minor
        if fits:
            out.append((heading, i))
        else:
            notes.append(
                f"page {line.page}: bold {line.text[:40]!r} is out of sequence, read as text"
            )
    return out


def _heading(line: Line, contents: dict[str, str], notes: list[str]) -> _Heading | None:
    cells = line.cells or (line.text,)
    head = cells[0]
    penalty = " ".join(cells[1:])
    if m := _ENTRY.match(head):
        kind, number, printed = "rule", f"{m.group(1)}.{m.group(2)}", m.group(3)
    elif m := _SECTION.match(head):
        kind, number, printed = "section", m.group(1), m.group(2)
    elif (m := _APPENDIX.match(head)) and m.group(2):
        kind, number, printed = "appendix", m.group(1).upper(), m.group(2)
    else:
        return None
    printed = " ".join(printed.split())
    listed = contents.get(number, "")
    if not penalty and listed and kind == "rule":
        rest = printed[len(listed) :].strip()
        if printed.casefold().startswith(listed.casefold()) and rest:
            penalty, printed = rest, printed[: len(listed)]
            notes.append(
                f"page {line.page}: the penalty of {number} ({rest!r}) is told from its title by "
                "the contents list (no gap before it)"
            )
    return _Heading(kind, number, _title(number, printed, listed, line.page, notes), penalty, line)


def _title(number: str, printed: str, listed: str, page: int, notes: list[str]) -> str:
    if any(c.islower() for c in printed):
        return printed
    if listed and listed.casefold() == printed.casefold():
        notes.append(f"page {page}: the title of {number}, printed in capitals, is the contents'")
        return listed
    notes.append(f"page {page}: the title of {number}, printed in capitals, title-cased")
    return _title_case(printed)


def _title_case(text: str) -> str:
    words = text.casefold().split()
    return " ".join(
        w if k and w in _SMALL_WORDS else w[:1].upper() + w[1:] for k, w in enumerate(words)
    )


# -- entries ----------------------------------------------------------------------------------


def _entry(
    heading: _Heading,
    body: list[Line],
    document: str,
    metrics: _Metrics,
    file: str,
    notes: list[str],
    *,
    last: bool = False,
) -> Rule:
    paras = _paragraphs(body, metrics)
    if last and paras and "©" in paras[-1].text:
        notes.append(f"page {paras[-1].first.page}: the trademark notice at the end is no text")
        paras.pop()
    source = Source(file, heading.line.page)
    infraction = (
        document == "ipg"
        and heading.kind == "rule"
        and (bool(heading.penalty) or (bool(paras) and _subheading(paras[0]) == "definition"))
    )
    if not infraction:
        text = "\n".join(p.text for p in paras)
        return Rule(heading.number, heading.kind, text, source, title=heading.title)
    if not heading.penalty:
        notes.append(f"page {heading.line.page}: {heading.number} has no penalty on its heading")
    buckets: dict[str, list[str]] = {}
    examples: list[str] = []
    current = "definition"
    for para in paras:
        name = _subheading(para)
        if name:
            current = name
            continue
        label = _PART_LABEL.match(para.text) if para.first.lead_bold else None
        if label:
            current = label.group(1).casefold()
            buckets.setdefault(current, []).append(label.group(2))
        elif current == "examples":
            if _EXAMPLE.match(para.text) or not examples:
                examples.append(_EXAMPLE.sub("", para.text, count=1))
            else:
                examples[-1] += "\n" + para.text
        else:
            buckets.setdefault(current, []).append(para.text)
    text = "\n".join(buckets.pop("definition", []))
    buckets.pop("examples", None)
    parts = [("penalty", heading.penalty)] if heading.penalty else []
    order = {name: k for k, name in enumerate(_KNOWN_PARTS)}
    named = sorted(buckets.items(), key=lambda kv: order.get(kv[0], len(order)))
    parts += [(name, "\n".join(paragraphs)) for name, paragraphs in named]
    return Rule(
        heading.number,
        heading.kind,
        text,
        source,
        title=heading.title,
        examples=tuple(examples),
        parts=tuple(parts),
    )


def _subheading(para: _Para) -> str:
    """The name of a sub-heading paragraph ("definition", "additional remedy"), or ""."""
    if para.lines == 1 and para.bold and _SUBHEADING.match(para.text):
        return para.text.casefold()
    return ""


def _paragraphs(lines: list[Line], metrics: _Metrics) -> list[_Para]:
    paras: list[_Para] = []
    group: list[Line] = []
    for line in lines:
        if group and _breaks(group[-1], line, metrics):
            paras.append(_para(group))
            group = []
        group.append(line)
    if group:
        paras.append(_para(group))
    return paras


def _breaks(a: Line, b: Line, metrics: _Metrics) -> bool:
    """Whether line `b` starts a paragraph after line `a`."""
    if a.page == b.page and a.bottom - b.top > 1.45 * metrics.pitch:
        return True
    if a.cells or b.cells:
        return True  # a table row or heading is a paragraph of its own
    if b.bold and not a.bold:
        return True  # a bold line (a sub-heading) after text
    if a.bold and not b.lead_bold:
        return True  # text after a bold line
    if b.lead_bold and a.lead_bold and not a.bold:
        return True  # a bold label after a line that started with one ("2.4: …")
    if a.x1 + metrics.space + b.lead < metrics.right - 2:
        return True  # b's first word would have fitted on a: no wrap
    if _LABEL.match(b.text):
        if b.x0 < a.x0 - 4:
            return True  # a list item after a hanging indent
        if _LABEL.match(a.text) and abs(b.x0 - a.x0) <= 4:
            return True  # a list item after a one-line item
    return False


def _para(lines: list[Line]) -> _Para:
    text = ""
    for line in lines:
        piece = documents.CELLS.join(line.cells) if line.cells else line.text
        piece = " ".join(piece.split())
        piece = re.sub(r"^[" + _BULLETS + r"]\s*", "• ", piece)
        if not text:
            text = piece
        elif text.endswith("-") and text[-2:-1].isalpha():
            text += piece  # a hyphenated word broken at its hyphen
        elif text.endswith(("—", "–")) and not text[-2:-1].isspace():
            text += piece
        else:
            text += " " + piece
    return _Para(text, lines[0], len(lines), all(line.bold for line in lines))
