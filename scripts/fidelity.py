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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--archive", type=Path, default=ARCHIVE)
    ap.add_argument("--verbose", action="store_true", help="list every difference")
    args = ap.parse_args(argv)
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
