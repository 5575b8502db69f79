"""Commands while the library changes: N mixed commands, K at a time, each a fresh process,
(1) during `crlookup rebuild` on the same library home, (2) right after it, and (3) right after
first use in an empty home (the archive's older editions still being added); every output is
compared with the same command's output on the complete library before. Reports the failed
and the differing commands, and the wall times. (4) `crlookup serve` on the home, loaded while
`crlookup rebuild` runs twice: the failed requests, rule lookups' p50 and p99 during it, and
how soon after each rebuild made its library current the server answered from it. (5) A soak:
`crlookup serve` answering 40,000 requests of every kind, each with words never seen before,
its resident memory read after each tenth: it must level off (at most SOAK_GROWTH_MIB more
over the second half), not grow with every new word.

    CRLOOKUP_HOME=... python scripts/stress.py --commands 200 --at-once 8 [--rounds ...]
    CRLOOKUP_HOME=... python scripts/stress.py --rounds soak

CI-sized: CRLOOKUP_DATA naming a small data folder (the suite's `small_data`); the suite runs
round 4 so (tests/test_serve.py).

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
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

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


# What bots ask of a server, in turn (the small library of the suite has each); a rule must be
# answered 200, the others anything but 5xx.
SERVED = [
    "/v1/rule/702.2",
    "/v1/rule/702.19b",
    "/v1/search?q=deathtouch+trample&limit=5",
    "/v1/card?name=Giant%20Spider",
    "/v1/refs/702.19",
    "/v1/history/702.19b",
    "/v1/ask?q=Can%20my%20Giant%20Spider%20block%20Serra%20Angel%3F&limit=3",
    "/v1/editions",
]
CRLOOKUP = [sys.executable, "-c", "from crlookup.ui.cli import main; main()"]
ROUNDS = ("rebuild", "after", "first-use", "serve", "soak")
SOAK_SAMPLES = 10  # the server's memory is read after each tenth of the soak's requests
# The soak's verdict: the memory the server gained over the second half of 40,000 requests, at
# most (a cache without bound grows with each new word: issue 53, the analyzer's stems: +6.9
# MiB before they were bounded, +4.0 after, 2026-12-01; what still grows is caches with bounds,
# filling: the rules' numbers parsed, SQLite's pages, 2 MB a connection)
SOAK_GROWTH_MIB = 5.0
SOAK_REQUESTS = 40_000


def crlookup(args: list[str], home: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", **({"CRLOOKUP_HOME": home} if home else {}))
    return subprocess.run([*CRLOOKUP, *args], capture_output=True, text=True, env=env, check=False)


def at_once(todo: list[list[str]], count: int, home: str | None = None) -> list:
    """Each command of `todo`, `count` at a time, each a process of its own."""
    with ThreadPoolExecutor(count) as pool:
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


@dataclass
class Served:
    """How a server held while the library was rebuilt under it (round 4)."""

    load: object  # load.Load: every request, during and after the rebuilds
    rebuilds: list[int] = field(default_factory=list)  # each rebuild's exit code
    libraries: list[str] = field(default_factory=list)  # current before, then after each
    switched: list[float | None] = field(default_factory=list)  # s from a rebuild making its
    # library current to the first answer from it (None: not within `patience`)

    @property
    def bad(self) -> int:
        """The failed requests and rebuilds, and the switches not seen."""
        return (
            len(self.load.failed)
            + sum(1 for code in self.rebuilds if code)
            + sum(1 for s in self.switched if s is None)
        )

    def summary(self) -> str:
        seen = ", ".join("not seen" if s is None else f"{s:.2f} s" for s in self.switched)
        return (
            f"serve during {len(self.rebuilds)} `crlookup rebuild`s: {self.load.summary()}\n"
            f"  the first answer from each new library, after it was made current: {seen}"
        )


def _current(home: str) -> str:
    with open(os.path.join(home, "current"), encoding="utf-8") as f:
        return f.read().strip()


def serve_round(
    home: str, *, workers: int = 2, connections: int = 8, rebuilds: int = 2, patience=30.0
) -> Served:
    """(4) `crlookup serve --workers W` on `home`, SERVED over `connections` keep-alive
    connections while `crlookup rebuild` runs `rebuilds` times, one after the other, and until
    the server has answered from the last one's library (or `patience` seconds after it)."""
    from load import Load, load, start_server, stop_server  # (scripts/load.py)

    env = dict(os.environ, CRLOOKUP_HOME=home)
    server, port, _first = start_server(CRLOOKUP, env, workers, "/healthz", "--rate-limit", "0")
    done = Served(Load(), libraries=[_current(home)])
    over = threading.Event()

    def rebuild() -> None:
        try:
            for _ in range(rebuilds):
                before, changed = _current(home), None
                running = subprocess.Popen(
                    [*CRLOOKUP, "rebuild"], env=env,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                while running.poll() is None or changed is None:  # when `current` changes
                    if changed is None and _current(home) != before:
                        changed = time.monotonic()
                    if running.poll() is not None and changed is None:
                        changed = time.monotonic()  # (failed, or as quick as one look)
                    time.sleep(0.005)
                name = _current(home)
                done.rebuilds.append(running.returncode)
                done.libraries.append(name)
                while name not in done.load.first:  # (answered by any worker)
                    if time.monotonic() - changed > patience:
                        break
                    time.sleep(0.01)
                seen = done.load.first.get(name)
                done.switched.append(None if seen is None else max(0.0, seen - changed))
        finally:
            over.set()

    rebuilding = threading.Thread(target=rebuild)
    try:
        rebuilding.start()
        rules = {p for p in SERVED if p.startswith("/v1/rule/")}
        load(
            SERVED, port=port, connections=connections, ok=rules, until=over.is_set, into=done.load
        )
        rebuilding.join()
    finally:
        over.set()
        stop_server(server)
    return done


@dataclass
class Soaked:
    """How a server's memory held over a long mixed run (round 5)."""

    load: object  # load.Load: every request
    memory: list[tuple[int, float]] = field(default_factory=list)  # (requests, MiB resident)

    @property
    def growth(self) -> float:
        """MiB the server gained over the second half of the run."""
        half = self.memory[len(self.memory) // 2][1] if self.memory else 0.0
        return self.memory[-1][1] - half if self.memory else 0.0

    @property
    def bad(self) -> int:
        return len(self.load.failed) + int(self.growth > SOAK_GROWTH_MIB)

    def summary(self) -> str:
        read = ", ".join(f"{mib:.0f}" for _n, mib in self.memory)
        return (
            f"soak: {self.load.summary()}\n  resident MiB after each tenth: {read}; "
            f"over the second half {self.growth:+.1f} MiB (at most {SOAK_GROWTH_MIB:g})"
        )


def soak_paths(count: int, seed: int = 53) -> list[str]:
    """`count` requests of every kind, each with words never seen before (made up, seeded):
    searches (one in three under a rule number), card names, questions, terms, rule numbers
    and whatever-was-typed, in turn."""
    import random
    import urllib.parse

    draw = random.Random(seed)
    q = urllib.parse.quote

    def word() -> str:
        return "".join(
            draw.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(draw.randint(4, 10))
        )

    def number() -> str:
        return f"{draw.randint(100, 732)}.{draw.randint(1, 40)}"

    kinds = [
        lambda: f"/v1/search?q={q(word() + ' ' + word())}&limit=3",
        lambda: f"/v1/search?q={q(number() + ' ' + word())}&limit=3",
        lambda: f"/v1/card?name={q(word() + ' ' + word())}",
        lambda: f"/v1/rule/{number()}{draw.choice(['', 'a', 'c', 'zz'])}",
        lambda: f"/v1/define/{q(word())}",
        lambda: f"/v1/lookup?q={q(word() + ' ' + word() + ' ' + word())}",
        lambda: f"/v1/search?q={q(word())}&all_editions=true&limit=3",
        lambda: f"/v1/rule/{number()}",
        lambda: f"/v1/card?name={q(word())}",
        lambda: f"/v1/ask?q={q(f'Can my {word()} block a {word()} with {word()}?')}",
    ]
    return [kinds[i % len(kinds)]() for i in range(count)]


def soak_round(home: str, *, requests: int = SOAK_REQUESTS, connections: int = 4) -> Soaked:
    """(5) `crlookup serve --workers 1` on `home`, `requests` requests of soak_paths over
    `connections` keep-alive connections, the server's resident memory read after each tenth:
    it should level off, not grow with each new word."""
    from load import Load, load, server_memory, start_server, stop_server  # (scripts/load.py)

    env = dict(os.environ, CRLOOKUP_HOME=home)
    server, port, _first = start_server(CRLOOKUP, env, 1, "/healthz", "--rate-limit", "0")
    done = Soaked(Load())
    paths = soak_paths(requests)
    started = time.monotonic()
    try:
        step = max(1, requests // SOAK_SAMPLES)
        for at in range(0, requests, step):
            load(paths[at : at + step], port=port, connections=connections, requests=step,
                 ok=set(), into=done.load)  # fmt: skip
            done.memory.append((at + step, server_memory(server.pid)[1]))
        done.load.seconds = time.monotonic() - started  # (each load set its own part's)
    finally:
        stop_server(server)
    return done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", type=int, default=200)
    ap.add_argument("--at-once", type=int, default=8)
    ap.add_argument("--soak-requests", type=int, default=SOAK_REQUESTS, help="the soak round's")
    ap.add_argument(
        "--rounds",
        default=",".join(ROUNDS),
        help=f"which rounds, of {','.join(ROUNDS)} (first-use: a full build in an empty home)",
    )
    args = ap.parse_args()
    rounds = set(args.rounds.split(","))
    if rounds - set(ROUNDS):
        ap.error(f"no such round: {', '.join(sorted(rounds - set(ROUNDS)))}")
    bad = 0
    if rounds & {"rebuild", "after", "first-use"}:
        bad += command_rounds(rounds, args.commands, args.at_once)
    if "serve" in rounds:
        from crlookup.core.paths import home as default_home

        served = serve_round(os.environ.get("CRLOOKUP_HOME") or default_home())
        print(served.summary())
        for reason in sorted(set(served.load.failed))[:5]:
            print(f"  {reason}")
        bad += served.bad
    if "soak" in rounds:
        from crlookup.core.paths import home as default_home

        soaked = soak_round(
            os.environ.get("CRLOOKUP_HOME") or default_home(), requests=args.soak_requests
        )
        print(soaked.summary())
        for reason in sorted(set(soaked.load.failed))[:5]:
            print(f"  {reason}")
        bad += soaked.bad
    return 1 if bad else 0


def command_rounds(rounds: set[str], commands: int, count: int) -> int:
    """Rounds 1-3: the commands that failed or answered otherwise."""
    crlookup(["history", "702.2"])  # a library with every edition to start from
    expected = {}
    for query in QUERIES:
        done = crlookup(query)
        if done.returncode:
            print(f"{' '.join(query)}: exit {done.returncode}: {done.stderr.strip()}")
            return 1
        expected[str(query)] = done.stdout
    todo = list(itertools.islice(itertools.cycle(QUERIES), commands))
    bad = 0

    if "rebuild" in rounds:
        start = time.monotonic()
        rebuild = subprocess.Popen(
            [*CRLOOKUP, "rebuild"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        results = at_once(todo, count)
        queries = time.monotonic() - start
        during = rebuild.poll() is None
        rebuild.wait()
        total = time.monotonic() - start
        print(
            f"`crlookup rebuild`: exit {rebuild.returncode}, {total:.1f} s, still running when "
            f"the commands ended: {during}"
        )
        bad += report("during the rebuild", todo, results, expected, queries)
        bad += rebuild.returncode

    if "after" in rounds:
        start = time.monotonic()
        results = at_once(todo, count)
        bad += report("right after it", todo, results, expected, time.monotonic() - start)

    if "first-use" in rounds:
        with tempfile.TemporaryDirectory(prefix="crlookup-stress-") as home:
            start = time.monotonic()
            first = crlookup(["rule", "100.1"], home)
            built = time.monotonic() - start
            results = at_once(todo, count, home)
            seconds = time.monotonic() - start - built
            print(f"first use: exit {first.returncode}, {built:.1f} s")
            bad += report("right after first use", todo, results, expected, seconds)
            bad += first.returncode
    return bad


if __name__ == "__main__":
    sys.exit(main())
