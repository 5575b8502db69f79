"""The documentation shows real output and stays whole: every `$ crlookup ...` console example
of README.md and docs/**/*.md is run and compared (scripts/readme_examples.py, which these
tests run the examples with, rewrites them), the Python example runs as a doctest, README.md
stays short, every link leads somewhere, and every command has its page."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.library  # the full library

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "readme_examples", ROOT / "scripts" / "readme_examples.py"
)
assert _spec is not None and _spec.loader is not None
examples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(examples)

PAGES = {examples.name(page): page.read_text(encoding="utf-8") for page in examples.pages()}
README = PAGES["README.md"]
EXAMPLES = [
    (page, m.group(1), m.group(2), m.group(3))
    for page, text in PAGES.items()
    for m in examples.BLOCK.finditer(text)
]


def test_the_pages_have_examples():
    assert len(EXAMPLES) >= 40
    assert sum(page == "README.md" for page, *_ in EXAMPLES) >= 4
    # every command's page shows it at work, but those whose output depends on the machine
    # or the network (doctor, rebuild, update, ingest, export, browse)
    shown = {page for page, *_ in EXAMPLES}
    for command in ("anything", "rule", "search", "ask", "card", "define", "refs", "diff"):
        assert f"docs/commands/{command}.md" in shown, command
    assert {"docs/commands/history.md", "docs/commands/editions.md"} <= shown


@pytest.mark.parametrize(
    "variables, command, expected",
    [e[1:] for e in EXAMPLES],
    ids=[f"{page}: {variables}{command}" for page, variables, command, _ in EXAMPLES],
)
def test_example(variables, command, expected):
    assert examples.run(variables, command).splitlines() == expected.splitlines()


def test_a_piped_example_is_not_wrapped():
    """`| cat` runs the example as output that is not a terminal's: one paragraph per line."""
    piped = examples.run("", "rule 119.1a --edition en-2019-01-25 | cat").splitlines()
    laid_out = examples.run("", "rule 119.1a --edition en-2019-01-25").splitlines()
    assert len(piped) == 2 and len(laid_out) > 2
    assert all(len(line) <= 80 for line in laid_out)


PYTHON = [(page, block) for page, text in PAGES.items() for block in examples.PYCON.findall(text)]


def test_there_is_a_python_example():
    assert PYTHON and all(len(block.splitlines()) >= 10 for _, block in PYTHON)


@pytest.mark.parametrize("page, block", PYTHON, ids=[page for page, _ in PYTHON])
def test_the_python_example_runs_as_shown(page, block):
    """The "From Python" example, run as a doctest on the real library."""
    import doctest

    test = doctest.DocTestParser().get_doctest(block, {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False) == (0, len(test.examples))


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 250


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_pages_read_at_100_columns(page):
    """Prose and tables fit 100 columns (a code block shows what it shows)."""
    outside_code = re.sub(r"```.*?```", "", PAGES[page], flags=re.S)
    assert [line for line in outside_code.splitlines() if len(line) > 100] == []


#: A markdown link: [text](target), the target without its title.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(text: str) -> set[str]:
    outside_code = re.sub(r"```.*?```", "", text, flags=re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", outside_code, re.M)}


def _links(page: str) -> list[tuple[str, str]]:
    """The page's links inside the tree: (the file linked, relative to the root; the anchor)."""
    found = []
    for target in LINK.findall(PAGES[page]):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        file = (ROOT / page).parent / path if path else ROOT / page
        found.append((file.resolve().relative_to(ROOT).as_posix(), anchor))
    return found


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_link_leads_somewhere(page):
    """Every link of every page names a file of the tree, and a heading of it if it names one."""
    for file, anchor in _links(page):
        assert (ROOT / file).exists(), f"{page}: {file}"
        if anchor and file.endswith(".md"):
            assert anchor in _anchors(PAGES[file]), f"{page}: {file}#{anchor}"


def test_the_readme_links_the_documentation():
    linked = {file for file, _ in _links("README.md")}
    assert "docs/README.md" in linked
    assert {f for f in linked if f.startswith("docs/")} >= {
        "docs/how-ask-works.md",
        "docs/troubleshooting.md",
        "docs/data.md",
        "docs/architecture.md",
    }


def test_the_index_lists_every_page():
    linked = {file for file, _ in _links("docs/README.md")}
    pages = {page for page in PAGES if page.startswith("docs/") and page != "docs/README.md"}
    assert pages - linked == set()


#: A command documented on another command's page.
ON_THE_PAGE_OF = {"rebuild": "doctor"}


def test_every_command_has_its_page():
    from crlookup.ui.cli import cli

    for command, c in cli.commands.items():
        if c.hidden:
            continue
        page = f"docs/commands/{ON_THE_PAGE_OF.get(command, command)}.md"
        assert page in PAGES, command
        assert f"crlookup {command}" in PAGES[page], command
    assert "docs/commands/anything.md" in PAGES  # the hidden one: `crlookup <anything>`


def test_ci_runs_the_readme_test_command():
    command = README.split("<!-- test-command")[1].split("\n")[1].strip()
    ci = (ROOT / ".ci" / "run").read_text()
    assert command in ci
    # lint and format beside the tests, with the ruff the test extra pins
    assert "ruff check crlookup tests scripts" in ci
    assert "ruff format --check crlookup tests scripts" in ci
    # and types, with the mypy the test extra pins and the settings of pyproject.toml
    assert "\nmypy\n" in ci
    assert "mypy==" in (ROOT / "pyproject.toml").read_text()
