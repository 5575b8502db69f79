"""Fidelity: how faithfully the official text parser reads each edition of the archive.

For every member of data/official-cr-archive.tar.xz this reads the printed entries with a
deliberately simple reading of the raw text, independent of crlookup/sources/text.py:

- the text is decoded and split into lines (crlookup.sources.encoding: decode, split_lines);
- the body runs from the chapter heading "1. ..." before the first "100.1" line to the next
  line "Glossary";
- a numbered line is an entry: "1. The Game" (chapter), "100. General" (section),
  "100.1. ...", "100.1a ...", and the misprints "702. 37a", "119.1d.", "901.4.All"; in the
  three hard-wrapped files (2003-10-01, 2003-12-01, 2004-02-01, named below, not detected)
  only the first line of a blank-line-separated paragraph can be one;
- an entry's text is the rest of its line and the lines after it, up to the next entry or
  "Example:" line (a chapter's or section's text is its heading); lines are joined as printed
  (a hard-wrapped line keeps the space it was broken at), underscores (the `_italic_`
  markers) are dropped and whitespace is normalised.

It then compares them with the parser's entries (`crlookup.sources.archive.read_member`):
fidelity is the share of printed entries the parser gives with the same number and the same
normalised text (a number printed twice counts twice); "extra" counts the parser's entries
that are not printed so; "order" says whether the parser's numbers run as the printed ones.

    python scripts/fidelity.py [--archive PATH] [--verbose]

Prints a table per edition and a summary; exits 1 if any edition is below 0.995.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from crlookup.core.errors import SourceError

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from crlookup.core.model import Edition
from crlookup.sources import archive
from crlookup.sources.encoding import decode, split_lines

ARCHIVE = ROOT / "data" / "official-cr-archive.tar.xz"
THRESHOLD = 0.995
#: The hard-wrapped editions (../shared/corpus/README.md): line breaks inside entries.
WRAPPED = {f"MagicCompRules-{day}.txt" for day in ("2003-10-01", "2003-12-01", "2004-02-01")}

_RULE = re.compile(r"^(\d{3})\. ?(\d+[a-z]*)\.?\s*(.*)$")
_SECTION = re.compile(r"^(\d{3})\.\s+(\D.*)$")
_CHAPTER = re.compile(r"^(\d)\.\s+(\D.*)$")


class Fidelity(NamedTuple):
    """The comparison for one edition."""

    name: str
    printed: int  # entries printed in the body
    found: int  # of those, given by the parser with the same number and text
    extra: int  # parser entries not printed so
    in_order: bool  # the parser's numbers run as the printed ones
    missed: tuple[tuple[str, str], ...]  # printed (number, text) the parser does not give
    wrong: tuple[tuple[str, str], ...]  # parser (number, text) not printed
    terms: int = 0  # the parser's glossary terms (for the table; not measured)
    error: str = ""  # the SourceError, if the parser refused the file

    @property
    def fidelity(self) -> float:
        return self.found / self.printed if self.printed else 0.0


def normalise(text: str) -> str:
    return " ".join(text.replace("_", "").split())


def printed_entries(name: str, data: bytes) -> list[tuple[str, str]]:
    """(number, normalised text) of every entry printed in the body, in document order."""
    lines = split_lines(decode(data, name))
    first = next((i for i, line in enumerate(lines) if re.match(r"\s*100\.1\b", line)), None)
    if first is None:
        return []
    start = max((i for i in range(first) if _CHAPTER.match(lines[i].strip())), default=first)
    end = next((i for i in range(first, len(lines)) if lines[i].strip() == "Glossary"), len(lines))
    entries: list[tuple[str, list[str]]] = []
    collecting = False  # inside an entry's text (not in an example)
    for i in range(start, end):
        line = lines[i].lstrip()  # the trailing space a hard-wrapped line was broken at stays
        may_number = name not in WRAPPED or not lines[i - 1].strip()
        m = may_number and (_RULE.match(line) or _SECTION.match(line) or _CHAPTER.match(line))
        if m:
            number = m.group(1) + "." + m.group(2) if m.re is _RULE else m.group(1)
            entries.append((number, [m.group(m.re.groups)]))
            collecting = True
        elif line.startswith("Example:"):
            collecting = False
        elif line.strip() and collecting:
            entries[-1][1].append(lines[i] if name in WRAPPED else " " + line)
    return [(number, normalise("".join(text))) for number, text in entries]


def parser_entries(edition: Edition) -> list[tuple[str, str]]:
    """(number, normalised text) of the parser's entries; a heading's text is its title."""
    return [
        (r.number, normalise(r.title if r.kind in ("chapter", "section") else r.text))
        for r in edition.rules
    ]


def measure(name: str, data: bytes, edition: Edition | None = None) -> Fidelity:
    """Compare the printed entries of one member with the parser's (parsed here if not given)."""
    printed = printed_entries(name, data)
    if edition is None:
        try:
            edition = archive.read_member(ARCHIVE.name, name, data)
        except SourceError as e:
            return Fidelity(name, len(printed), 0, 0, False, tuple(printed[:5]), (), 0, str(e))
    parsed = parser_entries(edition)
    want, got = Counter(printed), Counter(parsed)
    lacking, surplus = want - got, got - want
    missed = [e for e in printed if e in lacking]
    wrong = [e for e in parsed if e in surplus]
    in_order = [n for n, _ in printed] == [n for n, _ in parsed]
    return Fidelity(
        name,
        len(printed),
        len(printed) - sum(lacking.values()),
        sum(surplus.values()),
        in_order,
        tuple(missed),
        tuple(wrong),
        len(edition.glossary),
    )


def measure_archive(path: Path = ARCHIVE) -> list[Fidelity]:
    found, _skipped = archive.members(path)
    return [measure(name, data) for name, data in found]


def why(result: Fidelity, limit: int = 3) -> str:
    """The first differences, for a failure message."""
    if result.error:
        return result.error
    parts = [f"missing {n} {t[:70]!r}" for n, t in result.missed[:limit]]
    parts += [f"parsed {n} {t[:70]!r}" for n, t in result.wrong[:limit]]
    if not result.in_order:
        parts.append("numbers out of the printed order")
    return "; ".join(parts)


# --- the tournament documents ----------------------------------------------------------------
#
# Each shipped edition of the MTR, the IPG and the JAR is read again, as simply as its format
# allows and without crlookup/sources: the JSON's fields, the annotated MTR's bold lines under
# its "===== MTR 3.1 ..." headings (annotations, "++...++", left out), the PDF's text split at
# its numbered headings (lines that repeat on most pages, the page headers and footers, left
# out), the JAR's "###" cases. An entry is the same when its words (letters and digits; not
# punctuation, bullets, dashes or the "|" of a table) are the parser's, as many times each, for
# the same number (the JAR's cases: the same title); the differences are listed, with the
# words one side has more of. The same walk of each source gives the starts of the paragraphs
# it marks: each must start one of the parser's lines, and another edition's must not lie
# inside one (a paragraph run in).

TOURNAMENT = ROOT / "data" / "tournament"
_WORDS = re.compile(r"[A-Za-z0-9]+")


def words(*texts: str) -> Counter:
    return Counter(words_in_order(*texts))


def words_in_order(*texts: str) -> list[str]:
    return [w.casefold() for t in texts for w in _WORDS.findall(t)]


def _start(text: str) -> str:
    """A paragraph's start as compared: its first six words (letters and digits, casefolded)."""
    return " ".join(words_in_order(text)[:6])


class Printed(NamedTuple):
    """An entry as read again from its source: its words, and the starts of the paragraphs
    the source marks (`_start`)."""

    words: Counter
    starts: list[str]


def _entry(out: dict[str, Printed], key: str) -> Printed:
    return out.setdefault(key, Printed(Counter(), []))


# the PDF's footer of trademarks that the conversion kept at a field's end (from the first
# "All trademarks are property of" or "©" line to the end)
_FOOTER = re.compile(r"(?m)^(?:All trademarks are property of|.*©).*(?:\n.*)*\Z")


def _json_entries(folder: Path) -> dict[str, Printed]:
    """Its entries' fields; the paragraphs it marks: a blank line before, or a list's "•"
    (not the PDF's wrapped lines, which only the parser joins), of its text fields."""
    import json

    out: dict[str, Printed] = {}
    for path in sorted(folder.glob("*_section_*.json")) + sorted(folder.glob("*_appendix_*.json")):
        root = json.loads(path.read_text(encoding="utf-8"))
        for entry in root.get("rules") or root.get("infractions") or []:
            found = _entry(out, str(entry["number"]))
            title, penalty = entry.get("title") or "", entry.get("penalty") or ""
            if penalty and title.endswith(" " + penalty):  # (the README: the title carries it)
                entry = {**entry, "title": title[: -len(penalty) - 1]}
            for key, value in entry.items():
                if key == "number":
                    continue
                for text in value if isinstance(value, list) else [value or ""]:
                    if not isinstance(text, str):
                        continue
                    # the README's traps: an appendix repeats its heading; "Upgrade:" labels;
                    # a URL run onto the word before it
                    text = re.sub(r"(?i)^\s*appendix\s+[a-h]\b[^\n]*\n", "", text)
                    text = re.sub(r"\b(?:Upgrade|Downgrade):", "", text)
                    if key == "examples":  # "A. …": the list's marker
                        text = re.sub(r"^[A-Z]\.\s+", "", text)
                    text = _FOOTER.sub("", text)
                    found.words.update(words(re.sub(r"(?<=[a-z])(?=https?://)", " ", text)))
                if key in ("title", "penalty") or not isinstance(value, str):
                    continue
                for block in re.split(r"\n\s*\n", _FOOTER.sub("", value)):
                    lines = [line for line in block.split("\n") if line.strip()]
                    found.starts.extend(_start(line) for k, line in enumerate(lines)
                                        if k == 0 or line.lstrip().startswith("•"))  # fmt: skip
    return out


_WIKI_HEADING = re.compile(r"^=+\s*MTR\s+([0-9A-Z.]+?)\.?\s+(.*?)\s*=+\s*$")
_WIKI_WORDS = re.compile(r"^\s+[*-]\s+(?!\*\*)(.*)$|^[|^](.*)$|^={2,4}\s*(.*?)\s*=+$")
_WIKI_PARAGRAPH = re.compile(r"^\s+[*-]\s+(?!\*\*)(.*)$|^[|^](.*)$|^\*\*(.+?)\*\*")


def _wiki_text(markup: str) -> str:
    """A span's English: its Chinese and the wiki links' markup left out."""
    english = re.sub(r"[\u3000-\u9fff\uff00-\uffef].*$", "", markup)
    linked = re.sub(r"\[\[([^]|]*)\|([^]]*)\]\]", r"\2", english)
    return re.sub(r"\[\[([^]]*)\]\]", r"\1", linked)


def _wiki_entries(folder: Path) -> dict[str, Printed]:
    """The bold lines under each "===== MTR 3.1 ..." heading, and its list items, table rows
    and headings ("=== Regular ==="), annotations ("++...++") left out; a paragraph: each bold
    line, list item and table row."""
    out: dict[str, Printed] = {}
    for path in sorted(folder.glob("*.md")):
        number, inside = None, False
        for line in path.read_text(encoding="utf-8").splitlines():
            m = _WIKI_HEADING.match(line)
            if m:
                number = m.group(1)
                title = re.sub(r"[\u3000-\u9fff\uff00-\uffef].*$", "", m.group(2)).strip()
                _entry(out, number).words.update(words(title))
                continue
            stripped = line.lstrip()
            opens = stripped.startswith("++")
            if opens:
                inside = True
            if not inside and number is not None:
                item = _WIKI_WORDS.match(line)
                spans = [next((g for g in item.groups() if g), "")] if item else []
                for bold in spans + re.findall(r"\*\*(.+?)\*\*", line):
                    out[number].words.update(words(_wiki_text(bold)))
                item = _WIKI_PARAGRAPH.match(line)
                start = (
                    _start(_wiki_text(next((g for g in item.groups() if g), ""))) if item else ""
                )
                if start:
                    out[number].starts.append(start)
            if inside and "++" in stripped[2 if opens else 0 :]:  # "…\\ ++\\": it ends
                inside = False
    return out


_PDF_HEADING = re.compile(r"^(\d{1,2})\.(?:(\d{1,2})\.)?\s+(\S.*)$")
_PDF_APPENDIX = re.compile(r"^APPENDIX\s+([A-H])\b", re.IGNORECASE)
_PDF_EXAMPLE = re.compile(r"^[A-H]\.\s+")  # an example's letter: its marker


def _pdf_entries(path: Path) -> dict[str, Printed]:
    """The PDF's text split at its numbered headings (lines that repeat on most pages, the
    page headers and footers, left out); a paragraph: a list's "•" or an example's letter,
    and the line after one that ends a sentence well short of the page's text width."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    pages = [p.get_textpage().get_text_range().replace("\r", "") for p in pdf]
    seen = Counter(line.strip() for page in pages for line in set(page.splitlines()))
    furniture = {line for line, n in seen.items() if n >= len(pages) // 2 and line}
    width = max(len(line.strip()) for page in pages for line in page.splitlines())
    out: dict[str, Printed] = {}
    number, before = None, ""
    for page in pages:
        for line in page.splitlines():
            line = line.strip()
            if not line or line in furniture or re.search(r"\.{5,}\s*\d+$|^\d+$", line):
                continue  # a page's furniture, a contents line, a page number
            m, a = _PDF_HEADING.match(line), _PDF_APPENDIX.match(line)
            heading = bool(a) or bool(m and (m.group(2) or m.group(3)[:1].isupper()))
            if a:
                number = a.group(1).upper()
                line = re.sub(r"^APPENDIX\s+[A-H]\W*", "", line, flags=re.IGNORECASE)
            elif heading and m:
                number = f"{int(m.group(1))}.{int(m.group(2))}" if m.group(2) else m.group(1)
            if heading:
                out[number or ""], before = Printed(Counter(), []), ""
            if number is None:
                continue
            # ("Upgrade:" labels a part: the README's traps)
            text = re.sub(r"\b(?:Upgrade|Downgrade):", "", m.group(3) if m else line)
            out[number].words.update(words(_PDF_EXAMPLE.sub("", text)))
            if heading:
                continue
            marked = re.match(r"^(?:•|[A-H]\.\s)", line)
            after_end = re.search(r"[.:]$", before) and len(before) < 0.8 * width
            if (marked or after_end) and line[:1].isupper() | bool(marked):
                out[number].starts.append(_start(_PDF_EXAMPLE.sub("", line)))
            before = line
    return out


def _jar_entries(path: Path) -> dict[str, Printed]:
    """Its "##" parts and "###" cases by title; the text under the converter's Korean heading
    (the README's trap) is the introduction; a Korean part after the English one is no part of
    it. A paragraph: a line after a blank one, or a list's item."""
    out: dict[str, Printed] = {}
    title, before = None, ""
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:  # (the first: the PDF's URL)
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            if not title.isascii():
                title = None if out else "Introduction"
            if title is not None:
                out[title] = Printed(words(title) if out else Counter(), [])
        elif title == "Resources" and not line.isascii():
            title = None  # the Korean translation follows, headed by no "#"
        elif title is not None:
            out[title].words.update(words(line))
            item = re.match(r"^\s*(?:[-*+]|\d+\.)\s", line)
            if line.strip() and (not before.strip() or item):
                out[title].starts.append(_start(re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", line)))
        before = line
    return out


def _parsed_starts(edition: Edition, by_title: bool = False) -> dict[str, list[str]]:
    """The parser's paragraphs: each line of an entry's text, example and part."""
    out: dict[str, list[str]] = {}
    for r in edition.rules:
        lines = [line for t in (r.text, *r.examples, *(t for _n, t in r.parts))
                 for line in t.split("\n")]  # fmt: skip
        out.setdefault(r.title if by_title else r.number, []).extend(
            _start(line) for line in lines if _start(line)
        )
    return out


def _within(edition: Edition) -> dict[str, str]:
    """Each entry's words in one string, to find a paragraph's start inside a paragraph."""
    return {
        r.number: " "
        + " ".join(words_in_order(r.text, *r.examples, *(t for _n, t in r.parts)))
        + " "
        for r in edition.rules
    }


def _parsed(edition: Edition, by_title: bool = False) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for r in edition.rules:
        key = r.title if by_title else r.number
        texts = [r.title, r.text, *r.examples, *(t for _n, t in r.parts)]
        out[key] = out.get(key, Counter()) + words(*texts)
    return out


class Compared(NamedTuple):
    edition: str
    printed: int
    same: int
    differences: list[str]  # "2.1: +words / -words" (+ the parser's more, - the source's)
    paragraphs: int = 0  # the paragraph starts the source marks
    run_in: tuple[str, ...] = ()  # "2.1: 'once any of the above'": one the parser runs in
    neighbour: tuple[str, ...] = ()  # ... one the edition before or after starts, run in here

    @property
    def share(self) -> float:
        return self.same / self.printed if self.printed else 1.0


def compare_tournament() -> list[Compared]:
    """Each shipped tournament edition, its entries read again and compared with the parser's."""
    from crlookup.sources import read

    out = []
    read_editions: dict[str, list] = {"mtr": [], "ipg": [], "jar": []}
    for folder in sorted(p for p in TOURNAMENT.iterdir() if p.is_dir()):
        if folder.name.startswith(("mtr-2025", "ipg-2024")):
            source, read_again = folder, _json_entries(folder)
        elif folder.name.endswith("-annotated"):
            source, read_again = folder, _wiki_entries(folder)
        elif folder.name.startswith("ipg-2020"):
            source = next(folder.glob("*.pdf"))
            read_again = _pdf_entries(source)
        else:
            source = next(folder.glob("*.md"))
            read_again = _jar_entries(source)
        data = None if source.is_dir() else source.read_bytes()
        editions = [e for e in read(source, data) if e.lang == "en"]
        parsed = _parsed(editions[0], by_title=folder.name.startswith("jar"))
        printed = {k: v.words for k, v in read_again.items() if v.words}  # (a heading of nothing)
        same, differences = 0, []
        for key, want in printed.items():
            got = parsed.get(key)
            if got == want:
                same += 1
                continue
            if got is None:
                differences.append(f"{key}: not among the parser's entries")
                continue
            more, fewer = got - want, want - got
            differences.append(
                f"{key}: +{' '.join(sorted(more.elements())[:8]) or '-'}"
                f" / -{' '.join(sorted(fewer.elements())[:8]) or '-'}"
            )
        marked = {k: v.starts for k, v in read_again.items() if k in parsed}
        starts = _parsed_starts(editions[0], by_title=folder.name.startswith("jar"))
        run_in = tuple(
            f"{key}: {start!r}"
            for key, wanted in marked.items()
            for start in wanted
            if start and not _kept(start, starts.get(key, []))
        )
        paragraphs = sum(map(len, marked.values()))
        out.append(Compared(editions[0].id, len(printed), same, differences, paragraphs, run_in))
        read_editions[folder.name.split("-")[0]].append((editions[0], marked))
    return [c._replace(neighbour=_neighbour(c.edition, read_editions)) for c in out]


def _kept(start: str, starts: list[str]) -> bool:
    """A start the parser has, or splits into a heading and its text ("warning" + "warnings
    are used…" for "Warning Warnings are used…")."""
    return any(start == s or start.startswith(s + " ") for s in starts)


def _neighbour(edition: str, read_editions: dict) -> tuple[str, ...]:
    """The paragraphs another edition of the same document starts (its source's own marks)
    whose words this edition has inside one of its paragraphs: a paragraph run in, or an edit."""
    mine = next(e for es in read_editions.values() for e, _m in es if e.id == edition)
    inside = _within(mine)
    starts = _parsed_starts(mine)
    found = []
    for other, marked in read_editions[edition.split("-")[0]]:
        if other.id == edition:
            continue
        for key, wanted in marked.items():
            for start in wanted:
                if (
                    len(start.split()) == 6
                    and not _kept(start, starts.get(key, []))
                    and (f" {start} " in inside.get(key, ""))
                ):
                    found.append(f"{key}: {start!r} ({other.id} starts it)")
    return tuple(dict.fromkeys(found))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--archive", type=Path, default=ARCHIVE)
    ap.add_argument("--verbose", action="store_true", help="list every difference")
    ap.add_argument(
        "--tournament", action="store_true", help="the MTR, IPG and JAR editions instead"
    )
    args = ap.parse_args(argv)
    if args.tournament:
        for c in compare_tournament():
            print(f"{c.edition:<18} {c.printed:>4} entries, {c.same:>4} the same: {c.share:.3f}")
            for d in c.differences[: None if args.verbose else 5]:
                print("    " + d)
            kept = c.paragraphs - len(c.run_in)
            print(f"{'':<18} {c.paragraphs:>4} paragraphs its source marks, {kept:>4} the parser's")
            for d in c.run_in[: None if args.verbose else 5]:
                print("    run in: " + d)
            print(f"{'':<18} {len(c.neighbour):>4} paragraphs another edition starts, run in here")
            for d in c.neighbour[: None if args.verbose else 5]:
                print("    " + d)
        return 0
    results = measure_archive(args.archive)
    print(f"{'edition':<12} {'printed':>7} {'found':>7} {'fidelity':>8} {'extra':>5} order  terms")
    for r in results:
        day = r.name[len("MagicCompRules-") : -len(".txt")]
        flag = "" if r.fidelity >= THRESHOLD else "  BELOW"
        order = "yes" if r.in_order else "NO"
        print(
            f"{day:<12} {r.printed:>7} {r.found:>7} {r.fidelity:>8.4f} {r.extra:>5} {order:<5} "
            f"{r.terms:>6}{flag}"
        )
        if r.fidelity < 1 or r.extra or not r.in_order:
            print("    " + why(r, limit=1000 if args.verbose else 3))
    figures = [r.fidelity for r in results]
    below = [r for r in results if r.fidelity < THRESHOLD]
    print(
        f"\n{len(results)} editions, {sum(r.printed for r in results)} printed entries: "
        f"fidelity min {min(figures):.4f}, median {statistics.median(figures):.4f}; "
        f"{sum(f < 1 for f in figures)} below 1.0, {len(below)} below {THRESHOLD}; "
        f"{sum(r.extra for r in results)} extra entries; "
        f"{sum(not r.in_order for r in results)} out of order"
    )
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
