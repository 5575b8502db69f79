"""Commands while the library changes: N mixed commands, K at a time, each a fresh process,
(1) during `crlookup rebuild` on the same library home, (2) right after it, and (3) right after
first use in an empty home (the archive's older editions still being added); every output is
compared with the same command's output on the complete library before. Reports the failed
and the differing commands, and the wall times.

    CRLOOKUP_HOME=... python scripts/stress.py --commands 200 --at-once 8 [--no-first-use]

With STRESS_DIFFS=FOLDER, the first differing output of each round is written there, with the
one it was compared to.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
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
    # what a library with its older editions still to come answered wrongly (issue 32)
    ["rule", "100.1", "--edition", "en-2019-01-25"],
    ["rule", "100.1", "--edition", "2012-01-01", "--json"],
    ["history", "702.19b", "--json"],
    ["rule", "702.19", "--parallel", "en,ru"],
    ["diff", "en-2022-11-18", "en-2023-02-03", "--summary"],
    ["search", "banding", "--all-editions", "--limit", "5"],
]


def crlookup(args: list[str], home: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", **({"CRLOOKUP_HOME": home} if home else {}))
    return subprocess.run(
        [sys.executable, "-c", "from crlookup.ui.cli import main; main()", *args],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip


def load(todo: list[list[str]], at_once: int, home: str | None = None) -> list:
    with ThreadPoolExecutor(at_once) as pool:
        return list(pool.map(lambda args: crlookup(args, home), todo))


def report(what: str, todo: list, results: list, expected: dict, seconds: float) -> int:
    """Print how a round went; the number of commands that failed or answered otherwise."""
    failed = [(a, r) for a, r in zip(todo, results) if r.returncode]
    differing = [
        (a, r) for a, r in zip(todo, results) if not r.returncode and r.stdout != expected[str(a)]
    ]
    print(
        f"{what}: {len(todo)} commands, {len(failed)} failed, {len(differing)} differing, "
        f"{seconds:.1f} s"
    )
    for a, r in failed[:5]:
        print(f"  failed: {' '.join(a)}: exit {r.returncode}: {r.stderr.strip()[:200]}")
    for a, r in differing[:5]:
        print(f"  differing: {' '.join(a)}: {r.stdout[:120]!r}")
    if differing and os.environ.get("STRESS_DIFFS"):  # a folder: both outputs of the first
        a, r = differing[0]
        with open(os.path.join(os.environ["STRESS_DIFFS"], f"{what}.expected"), "w") as f:
            f.write(expected[str(a)])
        with open(os.path.join(os.environ["STRESS_DIFFS"], f"{what}.got"), "w") as f:
            f.write(r.stdout)
    return len(failed) + len(differing)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", type=int, default=200)
    ap.add_argument("--at-once", type=int, default=8)
    ap.add_argument("--no-first-use", action="store_true", help="skip round 3 (a full build)")
    args = ap.parse_args()
    crlookup(["history", "702.2"])  # a library with every edition to start from
    expected = {}
    for query in QUERIES:
        done = crlookup(query)
        if done.returncode:
            print(f"{' '.join(query)}: exit {done.returncode}: {done.stderr.strip()}")
            return 1
        expected[str(query)] = done.stdout
    todo = list(itertools.islice(itertools.cycle(QUERIES), args.commands))
    bad = 0

    start = time.monotonic()
    rebuild = subprocess.Popen(
        [sys.executable, "-c", "from crlookup.ui.cli import main; main()", "rebuild"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    results = load(todo, args.at_once)
    queries = time.monotonic() - start
    during = rebuild.poll() is None
    rebuild.wait()
    total = time.monotonic() - start
    print(
        f"`crlookup rebuild`: exit {rebuild.returncode}, {total:.1f} s, still running when the "
        f"commands ended: {during}"
    )
    bad += report("during the rebuild", todo, results, expected, queries) + rebuild.returncode

    start = time.monotonic()
    results = load(todo, args.at_once)
    bad += report("right after it", todo, results, expected, time.monotonic() - start)

    if not args.no_first_use:
        with tempfile.TemporaryDirectory(prefix="crlookup-stress-") as home:
            start = time.monotonic()
            first = crlookup(["rule", "100.1"], home)
            built = time.monotonic() - start
            results = load(todo, args.at_once, home)
            seconds = time.monotonic() - start - built
            print(f"first use: exit {first.returncode}, {built:.1f} s")
            bad += report("right after first use", todo, results, expected, seconds)
            bad += first.returncode
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
