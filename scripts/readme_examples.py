"""Rewrite the output of README.md's console examples from what crlookup prints now.

Each ```console block starting with `$ crlookup ...` (optionally `VAR=value crlookup ...`) is
run as tests/test_readme.py runs it (80 columns, NO_COLOR) and its output replaced. Review
the diff like code.

    python scripts/readme_examples.py
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from crlookup.core import i18n
from crlookup.ui.cli import cli

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"(```console\n\$ ((?:[A-Z_]+=\S+ )*)crlookup ([^\n]+)\n)(.*?)```", re.DOTALL)


def rerun(m: re.Match) -> str:
    variables = dict(pair.split("=", 1) for pair in m.group(2).split())
    i18n.reset()
    result = CliRunner().invoke(
        cli, shlex.split(m.group(3)), env={"COLUMNS": "80", "NO_COLOR": "1", **variables}
    )
    i18n.reset()
    shown = "\n".join(line.rstrip() for line in (result.stdout + result.stderr).splitlines())
    return f"{m.group(1)}{shown}\n```"


def main() -> None:
    text = README.read_text(encoding="utf-8")
    README.write_text(BLOCK.sub(rerun, text), encoding="utf-8")


if __name__ == "__main__":
    main()
