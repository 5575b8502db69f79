"""Record what a set of commands print, or compare it with a record: a change that should not
change behaviour (a refactoring) leaves every byte of every answer as it was.

Each command runs in this process (click's CliRunner) against the library of CRLOOKUP_HOME
(built first if need be), as a terminal of 80 columns without styles, messages in English;
stdout, stderr and the exit code are recorded. The commands cover every command: its --json,
its output for people (laid out at 80 columns, and unwrapped as for a pipe), its errors.

    python scripts/same_output.py --write before.json     # on the tree before the change
    python scripts/same_output.py --compare before.json   # on the tree after it: exit 1 if any differs
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: Each line is one command's arguments; each is run three ways (--json added, laid out at 80
#: columns, unwrapped) unless it already says --json, or its way is given ("json:", "text:").
COMMANDS = r"""
rule 702.19b
rule 702.19
rule 702.19.
rule 702
rule 119.1a --edition 2019-03-01 --cite
rule 702.2b --parallel en,zh --edition en-2026-04-17
rule 702.19 --parallel en,ru
rule 702.999
rule 502.9b --edition latest
rule 702.19 --edition 2005-01-01
rule "IPG 2.1"
rule "IPG 2.1" --annotations
rule "MTR C"
rule "MTR 3.1" --cite
rule "JAR extra cards"
rule 100.1 --lang ru
rule 702.19 --edition ru-latest
rule abc
rule 702.19 --edition xx-2020-01-01
rule 702.19 --parallel en
search deathtuch trampel --limit 2
search deathtouch trample
search "first strike" --all-editions --limit 3
search 死触 --limit 2
search mulligan --section 103
search "hidden card" --doc ipg --limit 3
search deathtouch --parallel ru --limit 2
search --cards flying reach --limit 2
search --cards --rulings "enters tapped" --limit 3
search qqqqzzzz
search --cards --all-editions flying
define deathtouch
define lethal damage
define ward --lang ru
define 死触 --lang zh
define deathtouch --lang zh
define nosuchtermatall
refs 702.19 --depth 2
refs 103.4
refs 999.1
diff previous latest --summary
diff en-2022-11-18 en-2026-08-07 --section 702.2
diff ipg-2020-04-17 ipg-2024-09-23 --section 1
diff en-2003-07-01 nope
history 702.19b
history 702.2 --all
history "IPG 2.1"
history 999.9
editions
editions --unresolved en-2009-07-11
card "Giant Spider"
card Stomp
card teferi
card "teferi hero"
card "giant spidr"
card "Blood Moon"
card "Giant Spider" --edition en-2008-10-01
card zzzzzzzzzzzz
ask "Can my Giant Spider block his Serra Angel?" --limit 3
ask "Can my Giant Spider block his Serra Angel?" --brief --limit 3
ask "Can a creature with defender attack?"
ask "What is the penalty for a missed trigger at Competitive REL?"
ask "Может ли существо с защитником атаковать?" --limit 3
ask "威慑的生物能只用一个生物挡吗" --limit 3
ask "Can a creature with defender attack?" --parallel ru --limit 2
ask "Can a creature with defender attack?" --lang ru --limit 2
ask ""
702.2c
"IPG 2.1"
deathtouch
"Giant Spider"
Stomp
"first strike damage step"
"Can my Giant Spider block his Serra Angel?" --brief --limit 3
"teferi hero"
rul 702.19
text:export en-2019-01-25
text:--help
text:rule --help
text:search --help
text:ask --help
text:card --help
text:define --help
text:refs --help
text:diff --help
text:history --help
text:editions --help
text:export --help
text:ingest --help
text:update --help
text:doctor --help
text:rebuild --help
text:browse --help
text:serve --help
"""


def commands() -> list[tuple[str, list[str], dict]]:
    """(name, arguments, environment) of every run."""
    import shlex

    out = []
    for line in COMMANDS.strip().splitlines():
        way, rest = line.split(":", 1) if line.startswith(("json:", "text:")) else ("", line)
        args = shlex.split(rest)
        if "--json" in args or way == "json":
            out.append((f"{rest} [json]", [*args, "--json"] if "--json" not in args else args, {}))
            continue
        if way != "text":
            out.append((f"{rest} --json", [*args, "--json"], {}))
        out.append((f"{rest} [80 columns]", args, {"CRLOOKUP_WIDTH": "80"}))
        if way != "text":
            out.append((f"{rest} [piped]", args, {}))
    return out


def record() -> dict:
    from click.testing import CliRunner

    from crlookup import api
    from crlookup.core import i18n
    from crlookup.ui.cli import cli

    api.open().close()  # built first, if need be: not part of any command's output
    found = {}
    for name, args, env in commands():
        i18n.reset()
        result = CliRunner().invoke(
            cli, args, env={"NO_COLOR": "1", "CRLOOKUP_LANG": "en", **env}, prog_name="crlookup"
        )
        crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
        found[name] = {
            "code": result.exit_code,
            "stdout": result.stdout,
            "stderr": result.stderr,
            **({"exception": repr(result.exception)} if crashed else {}),
        }
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE", help="record the outputs into FILE")
    group.add_argument("--compare", metavar="FILE", help="compare the outputs with FILE")
    args = ap.parse_args()
    found = record()
    if args.write:
        Path(args.write).write_text(
            json.dumps(found, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        print(f"{len(found)} outputs written to {args.write}")
        return
    before = json.loads(Path(args.compare).read_text(encoding="utf-8"))
    differ = [n for n in before if before[n] != found.get(n)]
    new = [n for n in found if n not in before]
    for name in differ:
        print(f"differs: {name}")
        for part in ("code", "stdout", "stderr", "exception"):
            if before[name].get(part) != found.get(name, {}).get(part):
                print(f"  {part}: {before[name].get(part)!r:.300}")
                print(f"  now:  {found.get(name, {}).get(part)!r:.300}")
    for name in new:
        print(f"not in the record: {name}")
    print(f"{len(before) - len(differ)} of {len(before)} outputs the same")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
