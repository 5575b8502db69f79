"""docs/architecture.md stays true: every module it names exists, and a query never writes the
library home."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run

pytestmark = pytest.mark.library  # the full library

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = ROOT / "crlookup"


def named_paths() -> list[str]:
    """The files and folders the page names: `builder/stages/index.py`, `sources/`, ..."""
    found = set(re.findall(r"`((?:[a-z_]+/)*[a-z_]+(?:\.py|/))`", DOC))
    listing = DOC.split("```")[1]  # the tree
    found |= set(re.findall(r"^  ([a-z_]+(?:/|\.py))", listing, re.M))
    return sorted(p for p in found if not p.startswith(("tests/", "docs/")))


def test_the_page_names_many_modules():
    assert len(named_paths()) > 25


@pytest.mark.parametrize("path", named_paths())
def test_every_module_it_names_exists(path):
    assert (PACKAGE / path).exists(), path


def test_every_module_of_the_tree_is_named():
    """A module added without a word in the map fails here (the sources' parsers, ask's parts
    and browse's widgets are named by their folder)."""
    tree = DOC.split("```")[1]
    named = set(re.findall(r"[a-z_0-9]+", tree)) | {
        Path(p).stem for p in re.findall(r"`([a-z_0-9/.]+)`", DOC)
    }
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "sources" or relative.parts[:2] in (
            ("features", "ask"),
            ("ui", "browse"),
            ("ui", "cli"),
            ("ui", "render"),
        ):
            continue  # named by their folder (the command line's and its views': by command)
        if path.name in ("__init__.py", "__main__.py", "version.py"):
            continue
        assert path.stem in named, relative


def _snapshot(home: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(home)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(home.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def test_queries_never_write_the_home(built_home):
    """Issue 28: a built library's home is unchanged, file by file, after every kind of query
    (an older edition's lexicon and vectors, a Russian question, the cards among them)."""
    before = _snapshot(built_home)
    commands = [
        ["rule", "702.19b"],
        ["rule", "702.19", "--parallel", "en,ru"],
        ["search", "deathtouch", "trample"],
        ["search", "пробивной удар", "--parallel", "en"],
        ["define", "lethal damage"],
        ["define", "adapt", "--lang", "ru"],
        ["refs", "702.19", "--depth", "2"],
        ["diff", "en-2022-11-18", "en-2026-08-07", "--section", "702.2"],
        ["history", "702.2"],
        ["ask", "Can a creature with defender attack?", "--edition", "en-2014-02-01"],
        ["ask", "Can a creature with defender attack?", "--edition", "en-2005-10-01"],
        ["ask", "Может ли существо с защитником атаковать?"],
        ["ask", "Can my Giant Spider block Serra Angel?", "--lang", "ru"],
        ["card", "Giant Spider"],
        ["card", "Giant Spider", "--edition", "en-2008-10-01"],
        ["search", "--cards", "flying", "reach"],
        ["editions"],
        ["export", "en-2019-01-25"],
    ]
    for args in commands:
        assert run(*args).code == 0, args
    assert _snapshot(built_home) == before
