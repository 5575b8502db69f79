"""README.md shows real output: every `$ crlookup ...` console example is run and compared."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from crlookup.ui.cli import cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
EXAMPLES = [
    (m.group(1) or "", m.group(2), m.group(3))
    for m in re.finditer(
        r"```console\n\$ ((?:[A-Z_]+=\S+ )*)crlookup ([^\n]+)\n(.*?)```", README, re.S
    )
]


def test_readme_has_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("env, command, expected", EXAMPLES, ids=[e + c for e, c, _ in EXAMPLES])
def test_readme_example(env, command, expected):
    from crlookup.core import i18n

    variables = dict(pair.split("=", 1) for pair in env.split())
    i18n.reset()
    result = CliRunner().invoke(
        cli, shlex.split(command), env={"COLUMNS": "80", "NO_COLOR": "1", **variables}
    )
    i18n.reset()
    shown = result.stdout + result.stderr
    assert [line.rstrip() for line in shown.splitlines()] == expected.splitlines()


PYTHON = re.findall(r"```pycon\n(.*?)```", README, re.S)


def test_the_python_example_runs_as_shown():
    """The "From Python" example, run as a doctest on the real library."""
    import doctest

    assert PYTHON and all(len(block.splitlines()) >= 10 for block in PYTHON)
    for block in PYTHON:
        test = doctest.DocTestParser().get_doctest(block, {}, "README", "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.summarize(verbose=False) == (0, len(test.examples))


def test_ci_runs_the_readme_test_command():
    command = README.split("<!-- test-command")[1].split("\n")[1].strip()
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert command in ci
    # lint and format beside the tests, with the ruff the test extra pins
    assert "ruff check crlookup tests scripts" in ci
    assert "ruff format --check crlookup tests scripts" in ci
    # and types, with the mypy the test extra pins and the settings of pyproject.toml
    assert "\nmypy\n" in ci
    assert "mypy==" in (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
