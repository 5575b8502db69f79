"""Queries during a rebuild: N mixed commands, K at a time, each a fresh process, while
`crlookup rebuild` runs on the same library home; reports failures and the wall time.

    CRLOOKUP_HOME=... python scripts/stress.py --commands 200 --at-once 8
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

QUERIES = [
    ["rule", "702.19b"],
    ["rule", "702.2", "--json"],
    ["search", "deathtouch trample"],
    ["search", "--cards", "flying", "reach", "--json"],
    ["define", "lethal damage"],
    ["refs", "702.19"],
    ["card", "Giant Spider"],
    ["card", "teferi hero", "--json"],
    ["history", "702.2"],
    ["diff", "en-2024-07-30", "en-2026-08-07", "--summary"],
    ["ask", "Can my Giant Spider block Serra Angel?"],
    ["editions", "--json"],
]


def crlookup(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from crlookup.ui.cli import main; main()", *args],
        capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"), check=False,
    )  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", type=int, default=200)
    ap.add_argument("--at-once", type=int, default=8)
    args = ap.parse_args()
    crlookup(["rule", "100.1"])  # a library to start from
    start = time.monotonic()
    rebuild = subprocess.Popen(
        [sys.executable, "-c", "from crlookup.ui.cli import main; main()", "rebuild"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    todo = list(itertools.islice(itertools.cycle(QUERIES), args.commands))
    with ThreadPoolExecutor(args.at_once) as pool:
        results = list(pool.map(crlookup, todo))
    queries = time.monotonic() - start
    during = rebuild.poll() is None
    rebuild.wait()
    total = time.monotonic() - start
    failed = [(a, r.returncode, r.stderr.strip()) for a, r in zip(todo, results) if r.returncode]
    print(
        f"{len(todo)} commands, {args.at_once} at a time, during `crlookup rebuild` "
        f"(rebuild exit {rebuild.returncode}, still running when the commands ended: {during})"
    )
    print(
        f"failures: {len(failed)}; the commands took {queries:.1f} s, with the rebuild {total:.1f} s"
    )
    for a, code, error in failed[:10]:
        print(f"  {' '.join(a)}: exit {code}: {error[:200]}")
    return 1 if failed or rebuild.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
