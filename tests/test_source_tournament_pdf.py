"""The MTR/IPG PDF parser on the 2020 IPG as Wizards published it (data/tournament/), on
PDFs the test writes by hand (an MTR-shaped one, and bad ones), and on random bytes.

Expectations come from reading the PDF (its contents list and headings), and from the 2024
IPG in JSON (data/tournament/ipg-2024-09-23/), which numbers and names the same infractions.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from datetime import date
from functools import cache
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crlookup.core.errors import SourceError
from crlookup.sources import tournament_pdf

DATA = Path(__file__).resolve().parent.parent / "data" / "tournament"
PDF = DATA / "ipg-2020-04-17" / "mtg_ipg_17apr20_en_0.pdf"

PENALTIES = {  # as printed at the right margin of each heading
    "2.1": "No Penalty",
    "2.2": "Warning",
    "2.3": "Warning",
    "2.4": "Warning",
    "2.5": "Warning",
    "2.6": "Warning",
    "3.1": "Game Loss",
    "3.2": "Match Loss",
    "3.3": "Warning",
    "3.4": "Game Loss",
    "3.5": "Warning",
    "3.6": "Warning",
    "3.7": "Warning",
    "3.8": "Warning",
    "3.9": "Warning",
    "4.1": "Warning",
    "4.2": "Match Loss",
    "4.3": "Match Loss",
    "4.4": "Match Loss",
    "4.5": "Disqualification",
    "4.6": "Disqualification",
    "4.7": "Disqualification",
    "4.8": "Disqualification",
}


@pytest.fixture(autouse=True)
def crlookup_home(tmp_path, monkeypatch) -> Path:
    """Parser tests need no built library: an empty home instead of conftest's built one."""
    monkeypatch.setenv("CRLOOKUP_HOME", str(tmp_path))
    return tmp_path


@cache
def ipg():
    [edition] = tournament_pdf.read(PDF, PDF.read_bytes())
    return edition


def entry(number: str):
    [found] = [r for r in ipg().rules if r.number == number]
    return found


def every_text(rule) -> list[str]:
    return [rule.text, *rule.examples, *(text for _, text in rule.parts)]


# -- a PDF written by hand ------------------------------------------------------------------


def make_pdf(pages, *, encrypted: bool = False) -> bytes:
    """A PDF with Helvetica text: `pages` lists, for each page, (x, y, text, bold) tuples, or
    None for a page that is one blue rectangle and no text (a scan, as far as text goes)."""
    bodies: list[bytes] = [b"", b""]  # the catalog and the page tree, filled in at the end
    for font in (b"Helvetica", b"Helvetica-Bold"):
        bodies.append(
            b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>" % font
        )
    kids = []
    for page in pages:
        if page is None:
            stream = b"0 0 1 rg 72 72 200 200 re f"
        else:
            ops = []
            for x, y, text, bold in page:
                escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                font = b"F2" if bold else b"F1"
                ops.append(
                    b"BT /%s 11 Tf %d %d Td (%s) Tj ET" % (font, x, y, escaped.encode("cp1252"))
                )
            stream = b"\n".join(ops)
        bodies.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        bodies.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>" % len(bodies)
        )
        kids.append(b"%d 0 R" % len(bodies))
    bodies[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    bodies[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    trailer = b"/Size %d /Root 1 0 R" % (len(bodies) + 1 + encrypted)
    if encrypted:  # the standard handler with a user password (whose hash is made up)
        bodies.append(
            b"<< /Filter /Standard /V 1 /R 2 /P -4 /O <%s> /U <%s> >>" % (b"ab" * 32, b"cd" * 32)
        )
        trailer += b" /Encrypt %d 0 R /ID [<%s> <%s>]" % (len(bodies), b"01" * 16, b"01" * 16)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(bodies, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n" % (trailer, xref)
    return bytes(out)


def text_page(*lines: str, top: int = 720, footer: str | None = None):
    """A page of one-line paragraphs; "**…" lines are bold; "…  >>  …" puts the part after
    ">>" at the right margin of the same line."""
    out = []
    y = top
    for line in lines:
        bold = line.startswith("**")
        line = line.removeprefix("**")
        left, _, right = line.partition(" >> ")
        out.append((54 if bold else 90, y, left, bold))
        if right:
            out.append((480, y, right, bold))
        y -= 28
    if footer:
        out.append((540, 40, footer, False))
    return out


MTR_PAGES = [
    text_page(
        "MAGIC: THE GATHERING TOURNAMENT RULES",
        "Effective November 10, 2025",
        "Introduction to the rules of tournaments.",
        footer="1",
    ),
    text_page(
        "**CONTENTS",
        "1. Tournament Fundamentals .............................. 3",
        "1.1 Tournament Types .............................. 3",
        "3. Tournament Rules .............................. 3",
        "3.1 Tiebreakers .............................. 3",
        "Appendix A — Changes From Previous Versions ......... 4",
        footer="2",
    ),
    text_page(
        "**1. TOURNAMENT FUNDAMENTALS",
        "This section covers the basics.",
        "**1.1 Tournament Types",
        "Tournaments come in several types.",
        "**3. TOURNAMENT RULES",
        "**3.1 Tiebreakers",
        "The following tiebreakers are used.",
        "• Match points",
        footer="3",
    ),
    text_page(
        "**APPENDIX A — CHANGES FROM PREVIOUS VERSIONS",
        "Section 3.1 was updated.",
        footer="4",
    ),
]


@cache
def mtr():
    [edition] = tournament_pdf.read(Path("mtr.pdf"), make_pdf(MTR_PAGES))
    return edition


# -- the 2020 IPG ---------------------------------------------------------------------------


def test_the_edition():
    edition = ipg()
    assert edition.lang == "en"
    assert edition.date == date(2020, 4, 17)
    assert edition.document == "ipg"
    assert edition.id == "ipg-2020-04-17"
    assert edition.title == "Magic: The Gathering Infraction Procedure Guide"
    assert edition.source == PDF.name
    assert not edition.partial
    assert edition.glossary == ()


def test_counts_and_order():
    rules = ipg().rules
    kinds = [r.kind for r in rules]
    assert kinds.count("section") == 4
    assert kinds.count("rule") == 5 + 6 + 9 + 8  # 1.1–1.5, 2.1–2.6, 3.1–3.9, 4.1–4.8
    assert kinds.count("appendix") == 2
    expected = []
    for section, count in ((1, 5), (2, 6), (3, 9), (4, 8)):
        expected += [str(section)] + [f"{section}.{k}" for k in range(1, count + 1)]
    assert [r.number for r in rules] == [*expected, "A", "B"]


def test_the_contents_list_makes_no_entries():
    """Every number once (the contents list repeats them all), none from its leader lines."""
    numbers = [r.number for r in ipg().rules]
    assert len(numbers) == len(set(numbers))
    for rule in ipg().rules:
        assert "....." not in rule.title
        assert not any("....." in text for text in every_text(rule))
    assert any("contents list" in note for note in ipg().notes)


def test_section_titles_from_small_capitals():
    titles = {r.number: r.title for r in ipg().rules if r.kind != "rule"}
    assert titles == {
        "1": "General Philosophy",
        "2": "Game Play Errors",
        "3": "Tournament Errors",
        "4": "Unsporting Conduct",
        "A": "Penalty Quick Reference",
        "B": "Changes from Previous Versions",
    }
    assert entry("1.1").title == "Definition of Penalties"
    assert entry("1.4").title == "Backing Up"


def test_section_introductions():
    assert entry("2").text.startswith("Game Play Errors are caused by incorrect or inaccurate")
    assert entry("2").text.count("\n") == 2  # three paragraphs
    assert entry("4").text.startswith("Unsporting conduct is disruptive behavior")
    assert entry("1").text.startswith("Judges are neutral arbiters")


def test_missed_trigger():
    rule = entry("2.1")
    assert rule.kind == "rule"
    assert rule.title == "Game Play Error — Missed Trigger"
    assert rule.source.line == 7  # the page
    assert rule.source.file == PDF.name
    parts = dict(rule.parts)
    assert parts["penalty"] == "No Penalty"
    assert [name for name, _ in rule.parts] == [
        "penalty",
        "philosophy",
        "additional remedy",
        "upgrade",
    ]
    assert rule.text.startswith(
        "A triggered ability triggers, but the player controlling the ability doesn’t "
        "demonstrate awareness of the trigger’s existence by the first time"
    )
    assert "Philosophy" not in rule.text and "Examples" not in rule.text
    assert rule.examples[0] == (
        "Knight of Infamy (a 2/1 creature with exalted) attacks alone. Its controller says "
        "“Take two.”"
    )
    assert len(rule.examples) == 4  # "A." to "D.": the list's markers, left out
    assert parts["philosophy"].startswith("Triggered abilities are common and invisible")
    assert parts["upgrade"].startswith("If the triggered ability is usually considered")
    assert rule.refs == ()


def test_bullets_and_wrapped_lines():
    text = entry("2.1").text
    bullets = [line for line in text.split("\n") if line.startswith("• ")]
    assert len(bullets) == 4
    assert bullets[0].startswith("• A triggered ability that requires its controller to choose")
    assert bullets[0].endswith("before they next pass priority.")
    # a paragraph that runs from page 7 onto page 8, its page number between
    assert (
        "Triggered abilities that do nothing except create one or more copies of a spell or "
        "ability (such as storm or cipher) automatically resolve, but awareness of the "
        "resulting objects must be demonstrated" in text
    )


def test_game_rule_violation_and_looking_at_extra_cards():
    assert entry("2.5").title == "Game Play Error — Game Rule Violation"
    assert dict(entry("2.5").parts)["penalty"] == "Warning"
    assert entry("2.2").title == "Game Play Error — Looking at Extra Cards"
    assert dict(entry("2.2").parts)["penalty"] == "Warning"
    remedy = dict(entry("2.5").parts)["additional remedy"]
    assert remedy.startswith("First, consider a simple backup (see section 1.4).")
    assert remedy.count("\n• ") == 5


def test_every_infraction_has_its_penalty():
    for number, penalty in PENALTIES.items():
        rule = entry(number)
        assert rule.parts[0] == ("penalty", penalty), number
        assert not rule.title.endswith(penalty), number
        assert rule.text and rule.examples, number


def test_tournament_errors():
    tardiness = dict(entry("3.1").parts)
    assert entry("3.1").title == "Tournament Error — Tardiness"
    assert tardiness["upgrade"].startswith("A player not in their seat 10 minutes")
    assert tardiness["downgrade"] == (
        "A player who arrives at their seat before 1 minute has elapsed in the round receives "
        "a Warning."
    )
    assert [name for name, _ in entry("3.2").parts] == ["penalty", "philosophy", "downgrade"]
    assert entry("3.2").text.count("\n• ") == 3
    # three Upgrade paragraphs, one part
    assert dict(entry("3.5").parts)["upgrade"].count("\n") == 2
    assert len(entry("3.9").examples) == 3
    assert entry("3.9").title == "Tournament Error — Insufficient Shuffling"


def test_unsporting_conduct():
    assert entry("4.1").title == "Unsporting Conduct — Minor"
    assert entry("4.2").title == "Unsporting Conduct — Major"
    assert dict(entry("4.2").parts)["upgrade"].startswith("If the offense was committed")
    assert entry("4.8").text.count("\n• ") == 2
    assert entry("4.8").examples[-1].startswith("A player realizes")  # G., across a page
    assert len(entry("4.8").examples) == 7
    assert [name for name, _ in entry("4.7").parts] == ["penalty"]


def test_section_1_has_text_only():
    for number in ("1.1", "1.2", "1.3", "1.4", "1.5"):
        assert entry(number).parts == () and entry(number).examples == ()
    text = entry("1.1").text
    assert text.startswith("Warning\nWarnings are used in situations of incorrect play")
    assert "\nGame Loss\nA Game Loss ends the current game" in text
    assert "\nDisqualification\n" in text


def test_appendices():
    table = entry("A").text.split("\n")
    assert table[0] == "Infraction | Penalty"
    assert "Missed Trigger | None" in table
    assert "Unsporting Conduct — Major | Match Loss" in table
    assert len(table) == 1 + 3 + 23  # header, three groups, the infractions
    changes = entry("B").text.split("\n")
    assert changes[0] == "April 24, 2020"
    assert "2.4: Revamped section to accommodate the London Mulligan." in changes
    assert not any("trademark" in line for line in changes)  # the notice at the end


def test_no_running_footers_or_front_matter_in_any_text():
    """The page number is the footer of every page: no line is a bare number, none ends in
    one; the title page and the contents list are in no entry."""
    assert any("header/footer" in note for note in ipg().notes)
    for rule in ipg().rules:
        for text in every_text(rule):
            for line in text.split("\n"):
                assert not re.fullmatch(r"\d+", line.strip()), rule.number
                assert not re.search(r"[a-z] \d{1,2}$", line), (rule.number, line)
            assert "INFRACTION PROCEDURE GUIDE" not in text
            assert "Effective April 17, 2020" not in text
            assert "CONTENTS" not in text and "Framework of this Document" not in text


def test_hyphens_and_characters():
    remedy = dict(entry("2.3").parts)["additional remedy"]
    assert remedy.count("previously-unknown cards") == 3  # two at a line end, a real hyphen
    assert "enters-the-battlefield" in dict(entry("2.1").parts)["additional remedy"]
    for rule in ipg().rules:
        for text in every_text(rule):
            assert "\ufffe" not in text and "\xad" not in text and "\r" not in text
            assert "  " not in text and "\n\n" not in text
    assert "less disruptive option—a forced mulligan—that" in dict(entry("2.4").parts)["philosophy"]


def test_notes_list_the_repairs():
    notes = "\n".join(ipg().notes)
    assert "previously-unknown at a line end keeps its hyphen" in notes
    assert "the title of 2, printed in capitals" in notes
    assert "front matter" in notes


def test_pages_as_lines():
    assert entry("1").source.line == 3
    assert entry("3.5").source.line == 18
    assert entry("A").source.line == 30
    assert entry("B").source.line == 31


def test_numbers_and_titles_match_the_2024_ipg():
    """Most infraction numbers and titles of 2020 are those of 2024 (whose titles carry the
    penalty glued on: stripped here); the overlap is measured, not assumed."""
    later = {}
    for n in range(1, 5):
        data = json.loads((DATA / "ipg-2024-09-23" / f"ipg_section_{n}.json").read_text("utf-8"))
        for infraction in data["infractions"]:
            title, penalty = infraction["title"], infraction["penalty"] or ""
            if penalty and title.endswith(" " + penalty):
                title = title[: -len(penalty) - 1]
            later[infraction["number"]] = title.casefold()
    ours = {r.number: r.title.casefold() for r in ipg().rules if r.kind == "rule"}
    same = {number for number, title in ours.items() if later.get(number) == title}
    assert len(later) == 28
    assert len(same) / len(set(ours) | set(later)) >= 0.9, sorted(set(ours) - same)
    assert len(same) == 28  # the measured overlap: every 2020 number and title is in 2024


# -- the MTR-shaped PDF ---------------------------------------------------------------------


def test_an_mtr_pdf():
    edition = mtr()
    assert edition.document == "mtr"
    assert edition.title == "Magic: The Gathering Tournament Rules"
    assert edition.date == date(2025, 11, 10)
    assert [(r.number, r.kind, r.title) for r in edition.rules] == [
        ("1", "section", "Tournament Fundamentals"),
        ("1.1", "rule", "Tournament Types"),
        ("3", "section", "Tournament Rules"),
        ("3.1", "rule", "Tiebreakers"),
        ("A", "appendix", "Changes From Previous Versions"),
    ]
    rules = {r.number: r for r in edition.rules}
    assert rules["1"].text == "This section covers the basics."
    assert rules["3"].text == ""
    assert rules["3.1"].text == "The following tiebreakers are used.\n• Match points"
    assert rules["3.1"].parts == () and rules["3.1"].examples == ()
    assert rules["A"].text == "Section 3.1 was updated."
    assert [r.source.line for r in edition.rules] == [3, 3, 3, 3, 4]


def test_a_penalty_at_the_right_margin_of_a_handmade_ipg():
    pages = [
        text_page("MAGIC INFRACTION PROCEDURE GUIDE", "Effective January 1, 2030", footer="1"),
        text_page(
            "**2. GAME PLAY ERRORS",
            "Errors of play.",
            "**2.1. Game Play Error — Missed Trigger >> No Penalty",
            "**Definition",
            "A trigger is forgotten.",
            "**Examples",
            "A. A player forgets a trigger.",
            "B. Another player forgets another.",
            "**Philosophy",
            "Triggers are invisible.",
            "**Upgrade: If it is detrimental, the penalty is a Warning.",
            footer="2",
        ),
    ]
    [edition] = tournament_pdf.read(Path("ipg.pdf"), make_pdf(pages))
    rule = edition.rules[1]
    assert (rule.number, rule.title) == ("2.1", "Game Play Error — Missed Trigger")
    assert rule.text == "A trigger is forgotten."
    assert rule.examples == ("A player forgets a trigger.", "Another player forgets another.")
    assert rule.parts == (
        ("penalty", "No Penalty"),
        ("philosophy", "Triggers are invisible."),
        ("upgrade", "If it is detrimental, the penalty is a Warning."),
    )


def test_running_headers_are_dropped_wherever_they_are():
    pages = [[(54, 760, "Magic Tournament Rules — page 1", False), *page] for page in MTR_PAGES[1:]]
    pages.insert(0, MTR_PAGES[0])
    [edition] = tournament_pdf.read(Path("mtr.pdf"), make_pdf(pages))
    assert [r.number for r in edition.rules] == [r.number for r in mtr().rules]
    for rule in edition.rules:
        assert "page" not in rule.text
    assert any("'magic tournament rules — page #'" in note for note in edition.notes)


def test_the_library_is_imported_only_when_a_pdf_is_read():
    code = (
        "import sys, crlookup.sources.tournament_pdf as t\n"
        "assert 'pypdfium2' not in sys.modules, 'imported at import time'\n"
        "assert t.sniff(b'%PDF-1.7')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- bad input --------------------------------------------------------------------------------


def test_sniff():
    assert tournament_pdf.sniff(PDF.read_bytes())
    assert tournament_pdf.sniff(b"%PDF-1.4\n")
    assert not tournament_pdf.sniff(b"")
    assert not tournament_pdf.sniff(b"100.1. These Magic rules")
    assert not tournament_pdf.sniff(b" %PDF-1.4")


def fails(data: bytes, name: str = "x.pdf") -> SourceError:
    with pytest.raises(SourceError) as caught:
        tournament_pdf.read(Path(name), data)
    assert caught.value.file == name
    return caught.value


def test_a_pdf_that_is_no_mtr_or_ipg():
    other = make_pdf([text_page("Quarterly Report", "Effective April 1, 2020", "Sales rose.")])
    error = fails(other)
    assert "an MTR or IPG" in error.expected
    assert error.found == "Quarterly Report"


def test_an_encrypted_pdf():
    error = fails(make_pdf([text_page("MAGIC TOURNAMENT RULES")], encrypted=True))
    assert "without a password" in error.expected
    assert error.found == "an encrypted PDF"


def test_a_truncated_pdf():
    data = PDF.read_bytes()
    error = fails(data[: len(data) // 2])
    assert "complete PDF" in error.expected
    # cut short but closed by an end marker all the same: PDFium cannot read it
    assert "PDF" in fails(data[: len(data) // 2] + b"\n%%EOF\n").expected


def test_an_image_only_pdf():
    error = fails(make_pdf([None, None]))
    assert "with text" in error.expected
    assert error.line == 1


def test_no_effective_date():
    pages = [text_page("MAGIC INFRACTION PROCEDURE GUIDE", "Introduction")]
    error = fails(make_pdf(pages))
    assert "effective date" in error.expected
    impossible = [text_page("MAGIC INFRACTION PROCEDURE GUIDE", "Effective February 30, 2020")]
    assert "real effective date" in fails(make_pdf(impossible)).expected


def test_no_headings():
    pages = [text_page("MAGIC TOURNAMENT RULES", "Effective May 1, 2020", "No rules at all.")]
    assert "numbered bold headings" in fails(make_pdf(pages)).expected


def test_not_a_pdf_and_nothing():
    assert "starting with '%PDF-'" in fails(b"hello").expected
    assert "starting with '%PDF-'" in fails(b"").expected
    assert "PDF" in fails(b"%PDF-1.4\n%%EOF\n").expected


@settings(max_examples=examples(60), deadline=None)
@given(st.binary(max_size=3000), st.booleans())
def test_random_bytes_raise_only_source_errors(tail, closed):
    data = b"%PDF-1.4\n" + tail + (b"\n%%EOF\n" if closed else b"")
    with contextlib.suppress(SourceError):
        tournament_pdf.read(Path("random.pdf"), data)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_copies_of_the_real_file_raise_only_source_errors(draw):
    """Cut anywhere (then closed by an end marker or not), or with bytes overwritten: either
    an edition or a SourceError."""
    data = bytearray(PDF.read_bytes())
    how = draw.draw(st.sampled_from(["cut", "cut and closed", "overwritten"]))
    if how == "overwritten":
        for _ in range(draw.draw(st.integers(1, 20))):
            at = draw.draw(st.integers(0, len(data) - 1))
            data[at] = draw.draw(st.integers(0, 255))
    else:
        data = data[: draw.draw(st.integers(0, len(data) - 1))]
        if how == "cut and closed":
            data += b"\n%%EOF\n"
    try:
        editions = tournament_pdf.read(PDF, bytes(data))
    except SourceError:
        return
    assert len(editions) == 1


# -- hostile PDFs (issue 47: half a gigabyte and minutes each, before) -------------------------


def raw_pdf(*objects: bytes) -> bytes:
    """A PDF of these objects (1 the catalogue), with its cross-reference table."""
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % at for at in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return out


def one_page(content: bytes) -> bytes:
    import zlib

    packed = zlib.compress(content, 9)
    return raw_pdf(
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    )


def test_a_page_tree_naming_one_page_a_million_times_is_refused_before_its_pages_are_read():
    levels = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(6):  # six levels of ten kids: 1.1 KB
        kids = b" ".join([b"%d 0 R" % (3 + level)] * 10)
        levels.append(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, 10 ** (6 - level)))
    levels.append(b"<< /Type /Page /Parent 7 0 R /MediaBox [0 0 612 792] >>")
    started = time.monotonic()
    error = fails(raw_pdf(*levels))
    assert (error.expected, error.found) == ("a PDF of at most 300 pages", "1,000,000 pages")
    assert time.monotonic() - started < 10


def test_a_stream_that_inflates_past_the_limit_is_refused_before_it_is_read():
    text = b"BT /F1 12 Tf 72 712 Td (" + b"A" * 60 + b") Tj ET\n"
    bomb = one_page(text * (17 * 1024 * 1024 // len(text)))  # 17 MB inflated, 40 KB packed
    error = fails(bomb)
    assert "inflate to at most 16 MB each and 64 MB in all" in error.expected
    assert "inflating past 16 MB" in error.found


def test_a_page_of_too_many_objects_is_refused_before_its_text_is_read():
    text = b"".join(b"BT /F1 12 Tf 72 %d Td (AAAA) Tj ET\n" % (i % 700) for i in range(12_000))
    error = fails(one_page(text))
    assert error.found == "ValueError: page 1 holds 12,000 objects (at most 10,000)"


def test_a_pdf_read_past_its_deadline_is_one_line(monkeypatch):
    monkeypatch.setattr(tournament_pdf, "READ_SECONDS", 0.01)
    error = fails(PDF.read_bytes())
    assert error.expected == "a PDF read within 0.01 s"


def test_mutated_copies_of_the_real_file_take_bounded_time_and_memory():
    """Bytes of the real IPG overwritten, runs of it repeated or dropped (a seeded draw of 24):
    each an edition or one line, within the deadline, PDFium's process within its memory."""
    import random
    import resource

    draw = random.Random(47)
    data = PDF.read_bytes()
    for _ in range(24):
        copy = bytearray(data)
        at, size = draw.randrange(len(data)), draw.randrange(1, 4096)
        how = draw.choice(["overwrite", "repeat", "drop"])
        if how == "overwrite":
            copy[at : at + size] = bytes(draw.randrange(256) for _ in range(size))[: len(copy) - at]
        elif how == "repeat":
            copy[at:at] = copy[at : at + size] * draw.randrange(2, 50)
        else:
            del copy[at : at + size]
        started = time.monotonic()
        try:
            [edition] = tournament_pdf.read(PDF, bytes(copy))
            assert edition.rules
        except SourceError as e:
            assert "\n" not in str(e)
        assert time.monotonic() - started < tournament_pdf.READ_SECONDS + 5
    used = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    assert used < tournament_pdf.READ_BYTES
