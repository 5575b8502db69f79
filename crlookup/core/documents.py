"""The documents a library holds: the Comprehensive Rules (CR) and the judge's other rulebooks,
the Magic Tournament Rules (MTR), the Infraction Procedure Guide (IPG) and Judging at Regular
REL (JAR); their numbers and their cross-references.

A tournament document numbers its entries at two levels and by letter for appendices:

    section   "3"      (MTR 3: Tournament Mechanics)
    entry     "3.1"    (MTR 3.1 Tiebreakers; IPG 2.1 Game Play Error — Missed Trigger)
    appendix  "C"      (MTR appendix C)

A JAR case has no number: its id is a slug of its title ("forgets-triggered-ability"). Judges
write "IPG 2.1", "ipg 2.1", "MTR C", "MTR appendix C", "CR 702.19b": `split` reads these.

References in a tournament document ("see MTR 2.12", "section 3.2", "CR 603.3b", "rule 704",
"Appendix C") are kept as `Reference`s whose targets are the document's own numbers ("2.12") or,
for another document, the number with its prefix ("CR 603.3b", "MTR 2.12"): `link` finds them.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from crlookup.core import numbers
from crlookup.core.errors import NumberError
from crlookup.core.model import Edition, Reference

#: document -> its name, as judges call it
DOCUMENTS = {
    "cr": "Comprehensive Rules",
    "mtr": "Magic Tournament Rules",
    "ipg": "Infraction Procedure Guide",
    "jar": "Judging at Regular REL",
}
#: between a table row's cells in an entry's text (the parsers of the tournament documents
#: join a table's cells so; the views show such rows in columns)
CELLS = " | "
#: document -> the prefix judges write before its numbers
PREFIX = {"cr": "CR", "mtr": "MTR", "ipg": "IPG", "jar": "JAR"}
TOURNAMENT = ("mtr", "ipg", "jar")

_DOC = r"(?P<doc>CR|MTR|IPG|JAR|Comprehensive\s+Rules|Tournament\s+Rules|Infraction\s+Procedure\s+Guide)"
# (the document's name then no letter: "CR702.19b" and "ipg2.1" as typed, not "Crab")
_SPLIT = rf"^\s*{_DOC}(?![a-z])[\s:.,-]*(?:(?:rule|section|appendix)\s+)?(?P<rest>.*?)\s*$"
_NAMES = {
    "cr": "cr",
    "comprehensive rules": "cr",
    "mtr": "mtr",
    "tournament rules": "mtr",
    "ipg": "ipg",
    "infraction procedure guide": "ipg",
    "jar": "jar",
}
_FIRST = ("cr", "mtr", "ipg", "jar", "comprehensive", "tournament", "infraction")  # _DOC's
# "rule 702.2c", "rules 601.2b", "§ 702.19": a CR number with the word for it before it
_CALLED = re.compile(r"^\s*(?:rules?|§)\s*(?P<rest>\d.*?)\s*$", re.IGNORECASE)
_SPACED = re.compile(r"^(\d{3}\.\d+)\s+([a-z]{1,2})\.?$", re.IGNORECASE)  # "702.19 b"
_ENTRY = re.compile(r"^(\d{1,2})(?:\.(\d{1,2}))?\.?$")
_APPENDIX = re.compile(r"^(?:appendix\s+)?([a-h])\.?$", re.I)


class Cited(NamedTuple):
    """A number as a judge writes it: the document named (None: none named) and the rest."""

    document: str | None
    number: str


def split(text: str) -> Cited:
    """ "IPG 2.1" -> ("ipg", "2.1"); "MTR appendix C" -> ("mtr", "C"); "CR 702.19b" -> ("cr",
    "702.19b"); "702.19b" -> (None, "702.19b"); as judges also write a CR number, "rule 702.2c"
    and "702.19 b" -> (None, "702.19b"); as typed in a hurry, "CR702.19b" and "ipg2.1" too.
    The rest is returned as written (stripped)."""
    first = text.lstrip()[:13].lower()
    if first.startswith(_FIRST):
        m = re.match(_SPLIT, text, re.IGNORECASE | re.ASCII)  # "ſ" is no "s" here
        if m and m.group("rest"):
            doc = _NAMES[" ".join(m.group("doc").lower().split())]
            return Cited(doc, _joined(m.group("rest")) if doc == "cr" else m.group("rest"))
    elif first.startswith(("rule", "§")):
        m = _CALLED.match(text)
        if m:
            return Cited(None, _joined(m.group("rest")))
    elif first[:1].isdigit() and " " in first:
        return Cited(None, _joined(text.strip()))
    return Cited(None, text.strip())


def _joined(number: str) -> str:
    """A CR number with its subrule's letter written apart ("702.19 b") as one ("702.19b")."""
    m = _SPACED.match(number)
    return f"{m.group(1)}{m.group(2).lower()}" if m else number


def number(text: str) -> str:
    """A tournament document's number in its canonical form: "2.1", "3", "C" (appendix);
    NumberError for anything else (a JAR case's id is not a number: see `is_number`)."""
    s = text.strip()
    m = _ENTRY.match(s)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}" if m.group(2) else str(int(m.group(1)))
    m = _APPENDIX.match(s)
    if m:
        return m.group(1).upper()
    raise NumberError(
        f"not a number of a tournament document: {text!r} (expected e.g. 2.1, 3 or appendix C)"
    )


def is_number(text: str) -> bool:
    try:
        number(text)
    except NumberError:
        return False
    return True


def order(cited) -> list[str]:
    """Cited numbers in order: the CR's own order if they are all CR numbers, else `sort_key`'s."""
    cited = list(cited)
    if all(numbers.is_rule_number(n) for n in cited):
        return sorted(cited, key=numbers.sort_key)
    return sorted(cited, key=sort_key)


def sort_key(cited: str) -> tuple:
    """A key that orders any cited number: the CR's numerically ("603.3b"), then a tournament
    document's ("2.12" before "10.1", sections before their entries, appendices last), then
    another document's ("CR 603.3b", "MTR 2.12"), then anything else (a JAR case's id)."""
    doc, rest = split(cited)
    group = 0 if doc is None else 10 * (1 + list(DOCUMENTS).index(doc))
    if numbers.is_rule_number(rest) and len(rest) >= 3:  # "3" is a document's section
        return (group, 0, numbers.parse(rest).key, "")
    m = _ENTRY.match(rest)
    if m:
        return (group + 1, 0, (int(m.group(1)), int(m.group(2) or -1)), "")
    if len(rest) == 1 and rest.isalpha():
        return (group + 1, 1, (), rest.upper())
    return (group + 1, 2, (), rest)


def kind_of(number_: str) -> str:
    """ "3" -> section, "3.1" -> rule, "C" -> appendix (a JAR case's id -> rule)."""
    if number_.isdigit():
        return "section"
    if len(number_) == 1 and number_.isalpha():
        return "appendix"
    return "rule"


def sort_strings(edition: Edition) -> dict[str, str]:
    """A string per entry number that sorts like the document and whose subtree (a section's
    entries) is a contiguous range: "03", "03.0001", "Z.C"; a JAR case sorts under the section
    it stands in, by its place there."""
    out: dict[str, str] = {}
    section = "00"
    for i, r in enumerate(edition.rules):
        n = r.number
        if n in out:
            continue
        m = _ENTRY.match(n)
        if m and not m.group(2):
            section = f"{int(m.group(1)):02d}"
            out[n] = section
        elif m:
            out[n] = f"{int(m.group(1)):02d}.{int(m.group(2)):04d}"
        elif r.kind == "appendix":
            out[n] = f"Z.{n}"
        elif r.kind == "section":  # a section named, not numbered (the JAR's introduction)
            section = f"{i:02d}" if i else "00"
            out[n] = section
        else:  # a JAR case: under the section before it
            out[n] = f"{section}.{i:04d}"
    return out


# --------------------------------------------------------------------------- references

_CR_NUM = r"\d{3}(?:\.\d+[a-z]*)?(?!\w|\.\d)"
_DOC_NUM = r"\d{1,2}(?:\.\d{1,2})?(?!\d)"
_NAMED = (  # a document by its name: "section 4 of the Magic Tournament Rules"
    r"Magic\s+Tournament\s+Rules|Tournament\s+Rules|MTR|Infraction\s+Procedure\s+Guide|IPG"
    r"|Judging\s+at\s+Regular\s+REL|JAR"
)
_OTHER = (
    rf"\b(?:[Ss]ections?\s+(?P<of_num>{_DOC_NUM})|[Aa]ppendix\s+(?P<of_app>[A-H]))"
    rf"\s+of\s+(?:the\s+)?(?P<of_doc>{_NAMED})\b"
    rf"|\b(?P<doc>MTR|IPG|JAR)\s+(?:section\s+|appendix\s+)?(?P<num>{_DOC_NUM}|[A-H]\b)"
    rf"|\b(?:CR|Comprehensive\s+Rules?)\s+(?:rule\s+)?(?P<cr>{_CR_NUM})"
    rf"|\b[Rr]ules?\s+(?P<rule>{_CR_NUM})"
    rf"|\b[Ss]ections?\s+(?P<own>{_DOC_NUM})"
    rf"|\b[Aa]ppendix\s+(?P<appendix>[A-H])\b"
    rf"|(?<![\w.])(?P<bare>\d{{3}}\.\d+[a-z]*)(?!\w|\.\d)"
)  # compiled where it is used (re keeps it): a lookup never needs it


_BY_NAME = {
    "magic tournament rules": "mtr",
    "tournament rules": "mtr",
    "infraction procedure guide": "ipg",
    "judging at regular rel": "jar",
}


def find(text: str, document: str) -> list[Reference]:
    """The references in a tournament document's text: targets are this document's numbers, or
    another document's with its prefix ("CR 603.3b")."""
    out = []
    for m in re.finditer(_OTHER, text):
        whole = m.group().strip()
        if m.group("doc") or m.group("of_doc"):
            named = m.group("doc") or m.group("of_doc")
            doc = _BY_NAME.get(" ".join(named.lower().split()), named.lower())
            n = number(m.group("num") or m.group("of_num") or m.group("of_app"))
            target = n if doc == document else f"{PREFIX[doc]} {n}"
        elif m.group("cr") or m.group("rule") or m.group("bare"):
            raw = m.group("cr") or m.group("rule") or m.group("bare")
            try:
                target = f"CR {numbers.parse(raw)}"
            except NumberError:
                continue
        else:
            target = number(m.group("own") or m.group("appendix"))
        out.append(Reference(whole, target))
    return out


def link(edition: Edition) -> Edition:
    """The edition with each entry's references found (in its text, examples and parts) and
    resolved: its own numbers against the edition, another document's as written."""
    have = {r.number for r in edition.rules}
    rules = []
    for r in edition.rules:
        found: list[Reference] = []
        for t in (r.text, *r.examples, *(text for _name, text in r.parts)):
            for ref in find(t, edition.document):
                if ref.first == r.number or any(f.first == ref.first for f in found):
                    continue
                own = " " not in ref.first
                if own and ref.first not in have and edition.partial:
                    # a partial edition's reference to what it lacks (the annotated MTR's
                    # appendices C-F): the document's, found in the edition that has it
                    ref = ref._replace(first=f"{PREFIX[edition.document]} {ref.first}")
                    own = False
                resolved = (ref.first,) if (ref.first in have or not own) else ()
                found.append(ref._replace(targets=resolved))
        rules.append(r._replace(refs=tuple(found)))
    return edition._replace(rules=tuple(rules))


def document_of(edition: str) -> str:
    """The document of an edition, from its id ("ipg-2024-09-23": the IPG; "en-…": the CR)."""
    head = edition.split("-", 1)[0]
    return head if head in TOURNAMENT else "cr"


def names(title: str) -> tuple[str, ...]:
    """What an entry is named by: its title, and for a title "Category — Name" (the IPG's
    "Game Play Error — Hidden Card Error") the name too."""
    head, dash, name = title.rpartition(" — ")
    return (title, name.strip()) if dash and head.strip() and name.strip() else (title,)


def label(document: str, number_: str) -> str:
    """How a judge writes an entry: "IPG 2.1", "MTR appendix C", "CR 702.19b"."""
    if document != "cr" and kind_of(number_) == "appendix":
        return f"{PREFIX[document]} appendix {number_}"
    return f"{PREFIX.get(document, document.upper())} {number_}"
