"""Load a crlookup server (`crlookup serve`) as many clients at once would, and say how it held.

Each of --connections keep-alive connections sends its requests one after another (HTTP/1.1,
the next when the last is answered), the paths taken in turn from those given; the figures
are requests per second over the whole run, and the median (p50) and 99th percentile (p99)
of the latencies. A request fails if its connection breaks or it is answered 5xx (or 4xx,
where --ok says a path should be answered); a failed connection is opened again.

    python scripts/load.py --port 8000 --connections 8 --requests 4000 /v1/rule/702.19
    python scripts/load.py --port 8000 --paths-from mixed.txt --connections 16

scripts/bench.py uses `load` for the targets of issue 34; this is the same, by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Load:
    """What a run of `load` measured."""

    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)  # of the answered requests, seconds
    statuses: dict[int, int] = field(default_factory=dict)  # how many of each status
    failed: list[str] = field(default_factory=list)  # why each failed request failed
    kinds: dict[str, list[float]] = field(default_factory=dict)  # latencies by endpoint
    libraries: dict[str, int] = field(default_factory=dict)  # answers from each library
    first: dict[str, float] = field(default_factory=dict)  # its first, time.monotonic()

    @property
    def requests(self) -> int:
        return len(self.latencies) + sum(1 for f in self.failed if f.startswith("connection"))

    @property
    def per_second(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def percentile(self, p: float, kind: str | None = None) -> float:
        """The `p`th percentile of the latencies (of endpoint `kind`'s: "rule", "ask")."""
        found = self.latencies if kind is None else self.kinds.get(kind, [])
        if not found:
            return float("nan")
        ordered = sorted(found)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def summary(self) -> str:
        return (
            f"{len(self.latencies)} answered, {len(self.failed)} failed in {self.seconds:.2f} s: "
            f"{self.per_second:.0f} requests/s, p50 {self.percentile(50) * 1000:.1f} ms, "
            f"p99 {self.percentile(99) * 1000:.1f} ms; statuses {dict(sorted(self.statuses.items()))}"
            + "".join(
                f"\n  {kind}: {len(self.kinds[kind])}, p50 {self.percentile(50, kind) * 1000:.1f} "
                f"ms, p99 {self.percentile(99, kind) * 1000:.1f} ms"
                for kind in sorted(self.kinds)
            )
        )


def _kind(path: str) -> str:
    """The endpoint a path is of: "rule" for /v1/rule/702.19, "healthz" for /healthz."""
    parts = path.split("?")[0].strip("/").split("/")
    return parts[1] if parts[0] == "v1" and len(parts) > 1 else parts[0]


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, str]:
    """The status of the response and the library that answered it (X-Crlookup-Library)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length, library = 0, ""
    for line in lines[1:]:
        name, _sep, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value)
        elif name == "x-crlookup-library":
            library = value.strip()
    if length:
        await reader.readexactly(length)
    return status, library


async def _client(
    host: str, port: int, paths: list[str], todo: list[int], done: Load, ok: set[str], until
) -> None:
    """One keep-alive connection: takes the next request number from `todo` until none is left
    (or, with `until`, until it says so)."""
    reader = writer = None
    count = 0
    while (until is None and todo) or (until is not None and not until()):
        if until is None:
            i = todo.pop()
        else:
            i, count = count, count + 1
        path = paths[i % len(paths)]
        request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
        start = time.perf_counter()
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            assert reader is not None
            writer.write(request)
            status, library = await _read_response(reader)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as e:
            done.failed.append(f"connection: {path}: {type(e).__name__} {e}")
            if writer is not None:
                writer.close()
            reader = writer = None
            continue
        took = time.perf_counter() - start
        done.latencies.append(took)
        done.kinds.setdefault(_kind(path), []).append(took)
        done.statuses[status] = done.statuses.get(status, 0) + 1
        if library:
            done.libraries[library] = done.libraries.get(library, 0) + 1
            done.first.setdefault(library, time.monotonic())
        if status >= 500 or (status >= 400 and path in ok):
            done.failed.append(f"status {status}: {path}")
    if writer is not None:
        writer.close()


async def _load(host, port, paths, connections, requests, ok, until, done) -> Load:
    todo = list(range(requests - 1, -1, -1))
    start = time.perf_counter()
    clients = [_client(host, port, paths, todo, done, ok, until) for _ in range(connections)]
    await asyncio.gather(*clients)
    done.seconds = time.perf_counter() - start
    return done


def load(
    paths: list[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    connections: int = 8,
    requests: int = 1000,
    ok: set[str] | None = None,
    until: Callable[[], bool] | None = None,
    into: Load | None = None,
) -> Load:
    """`requests` requests of `paths` (in turn) over `connections` keep-alive connections (or,
    with `until`, as many as are answered until it returns True); `ok`: the paths that must be
    answered 2xx (every path, by default); `into`: the `Load` to fill (`until` can read it)."""
    try:
        import uvloop  # (the serve extra's): the client costs less of the machine it shares
    except ImportError:
        runner = asyncio.run
    else:
        runner = uvloop.run
    wanted = set(paths) if ok is None else ok
    done = Load() if into is None else into
    return runner(_load(host, port, paths, connections, requests, wanted, until, done))


def free_port() -> int:
    """A port of loopback's that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    crlookup: list[str], env: dict, workers: int, first: str = "/healthz", *options: str
) -> tuple[subprocess.Popen, int, float]:
    """`crlookup serve` (`crlookup`: the command that runs crlookup) with `workers` on a free
    port: the process, the port, and the seconds from its start to its first answer to
    `first`."""
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen(
        [*crlookup, "serve", "--port", str(port), "--workers", str(workers), *options],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{first}", timeout=5):
                return server, port, time.perf_counter() - started
        except OSError:
            if server.poll() is not None or time.perf_counter() - started > 120:
                stop_server(server)
                raise SystemExit("crlookup serve did not start") from None
            time.sleep(0.02)


def server_memory(pid: int) -> tuple[float, float]:
    """MiB of the server and its workers: the sum of their proportional set sizes (what they
    share counted once) and of their resident sets (counted in each)."""
    pss = rss = 0
    pids = [pid]
    for p in pids:  # its children, and theirs
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                pids += [int(c) for c in f.read().split()]
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    name, *value = line.split()
                    if name == "Pss:":
                        pss += int(value[0])
                    elif name == "Rss:":
                        rss += int(value[0])
        except OSError:  # (not Linux: no figure)
            continue
    return pss / 1024, rss / 1024


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="paths to request, in turn (/v1/rule/702.19)")
    parser.add_argument("--paths-from", help="a file of paths, one per line")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    paths = list(args.paths)
    if args.paths_from:
        with open(args.paths_from, encoding="utf-8") as f:
            paths += [line.strip() for line in f if line.strip()]
    if not paths:
        parser.error("no paths to request")
    found = load(
        paths,
        host=args.host,
        port=args.port,
        connections=args.connections,
        requests=args.requests,
    )
    print(found.summary())
    for reason in sorted(set(found.failed))[:10]:
        print(f"  {reason}")
    sys.exit(1 if found.failed else 0)


if __name__ == "__main__":
    main()
