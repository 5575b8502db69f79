"""Rewrite the output of the documentation's console examples from what crlookup prints now.

Each ```console block of README.md and docs/**/*.md whose first line is `$ crlookup ...`
(optionally `$ VAR=value crlookup ...`) is run as tests/test_readme.py runs it, and its output
replaced: in this process, with click's CliRunner, stdout and stderr interleaved as a terminal
shows them, with CRLOOKUP_WIDTH=80 (laid out as a terminal of 80 columns), NO_COLOR and
CRLOOKUP_LANG=en. A
command ending with `| cat` is run as output that goes to a pipe: without CRLOOKUP_WIDTH, so
nothing is wrapped. Review the diff like code.

    python scripts/readme_examples.py            # every page
    python scripts/readme_examples.py docs/commands/rule.md
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from click.testing import CliRunner

from crlookup.core import i18n
from crlookup.ui.cli import cli

ROOT = Path(__file__).resolve().parent.parent
#: What every example runs with: a terminal's layout at 80 columns, no styles, messages in
#: English (whatever the locale of whoever runs it).
ENV = {"CRLOOKUP_WIDTH": "80", "NO_COLOR": "1", "CRLOOKUP_LANG": "en"}
PIPED = " | cat"
#: A console example: its first line (group 1: the variables, 2: the arguments), its output (3).
BLOCK = re.compile(r"```console\n\$ ((?:[A-Z_]+=\S+ )*)crlookup ([^\n]+)\n(.*?)```", re.DOTALL)
#: A Python example, run as a doctest.
PYCON = re.compile(r"```pycon\n(.*?)```", re.DOTALL)


def pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def run(variables: str, command: str) -> str:
    """What `[VAR=value ...] crlookup COMMAND` prints, as an example shows it: lines without
    trailing spaces."""
    env: dict[str, str | None] = dict(ENV)
    if command.endswith(PIPED):
        command = command[: -len(PIPED)]
        env["CRLOOKUP_WIDTH"] = None
    env.update(pair.split("=", 1) for pair in variables.split())
    i18n.reset()
    try:
        result = CliRunner().invoke(cli, shlex.split(command), env=env, prog_name="crlookup")
    finally:
        i18n.reset()
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise RuntimeError(f"crlookup {command} failed") from result.exception
    return "\n".join(line.rstrip() for line in result.output.splitlines())


def refresh(text: str) -> str:
    def rerun(m: re.Match) -> str:
        lines = [f"$ {m.group(1)}crlookup {m.group(2)}", *run(m.group(1), m.group(2)).splitlines()]
        return "```console\n" + "\n".join(lines) + "\n```"

    return BLOCK.sub(rerun, text)


def main(argv: list[str]) -> None:
    for page in [Path(a).resolve() for a in argv] or pages():
        text = page.read_text(encoding="utf-8")
        new = refresh(text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            print(f"rewrote {name(page)}")


if __name__ == "__main__":
    main(sys.argv[1:])
