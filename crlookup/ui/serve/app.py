"""The server's application (Starlette), one per worker process: the endpoints answered from
the library in use, every error as one line of JSON (a page, for a browser), and the limits
that keep one client or one slow question from holding up the rest.

    Shelf        the library in use, per thread: when a build makes another current (a
                 rebuild, an ingest, an update), the next request is answered from it
    Guard        the request as a whole: a path and query of UTF-8 without control
                 characters, GET or HEAD, and the rate limit (off unless set); every
                 answer's security and cache headers (SECURITY, headers_of)
    Unexpected   an error no command expects: a 500, logged, the connection kept
    create()     the application uvicorn runs (its settings from CRLOOKUP_SERVE), with the
                 web pages (_pages: crlookup.ui.serve.pages), answered as their endpoints are

Lookups are answered on the worker's event loop (a few milliseconds each, whatever is
asked); searches and cards (up to SEARCH_SECONDS) in a pool of SEARCHERS threads; questions,
diffs and histories (the slow commands) in a pool of `ask_limit` threads, at most `ask_queue`
of them waiting; each thread with a library of its own (SQLite connections are not shared
between threads), each pool with a deadline. The library is opened read-only and never built here: `crlookup serve`
builds it, if it must, before the workers start.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import sys
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from crlookup import api
from crlookup.core.errors import (
    BAD_INPUT,
    NOT_FOUND,
    SEARCH_SECONDS,
    ArgumentError,
    Busy,
    CrlookupError,
    EditionsPending,
    LibraryDamaged,
    LibraryError,
)
from crlookup.core.i18n import _
from crlookup.ui.failure import TOO_LONG, Failed, failed, unreadable
from crlookup.ui.serve import (
    ANSWER_CACHE,
    ERROR_CACHE,
    IMMUTABLE,
    SECURITY,
    SETTINGS,
    SITE_SECURITY,
)
from crlookup.ui.serve.endpoints import (
    BY_COMMAND,
    ENDPOINTS,
    LOOKUP,
    QUICK,
    SLOW,
    Endpoint,
    openapi,
    routed,
)
from crlookup.ui.serve.pages import unprefixed
from crlookup.version import __version__

log = logging.getLogger("crlookup.serve")


class Settings(NamedTuple):
    """How a worker serves: the library home, how many slow commands run at once (and wait),
    the rate limit per client (requests a minute; 0: none) and the seconds a request may take
    to arrive (crlookup.ui.serve.protocol)."""

    root: str
    ask_limit: int = 1
    ask_queue: int = 32
    rate_limit: int = 0
    read_timeout: float = 10.0
    site: str | None = None  # the folder of a static site (`crlookup site`), served at /site/

    @classmethod
    def from_env(cls) -> Settings:
        given = json.loads(os.environ.get(SETTINGS) or "{}")
        if "root" not in given:
            from crlookup.core import paths

            given["root"] = paths.home()
        return cls(**given)


class Refusal(NamedTuple):
    """A request answered with an error: the HTTP `status`, what the command line says (its
    one line, exit code and suggestions), the headers ("Retry-After") and, for a 503, why:
    BUSY (too many at once) or LIBRARY (the library cannot answer for now)."""

    status: int
    told: Failed
    headers: dict[str, str] | None = None
    why: str = ""

    def response(self) -> Response:
        return body(self.told.to_dict(), self.status, self.headers)


BUSY, LIBRARY = "busy", "library"  # (Refusal.why)


def body(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """`data` as the command line prints it with --json (the same bytes)."""
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return Response(text, status, headers, media_type="application/json")


def refusal(e: CrlookupError) -> Refusal:
    """How the server answers what a command refuses: not found 404, bad input 400 (414: an
    argument too long); 503 for what the library lacks for now or cannot read, and a server
    too busy, with when to try again."""
    if isinstance(e, ArgumentError) and e.kind == TOO_LONG:
        return Refusal(414, failed(e))
    if isinstance(e, Busy):
        return Refusal(503, failed(e), {"Retry-After": "1"}, BUSY)
    if isinstance(e, (EditionsPending, LibraryError)):
        return Refusal(503, failed(e), {"Retry-After": "30"}, LIBRARY)
    return Refusal(404 if e.exit_code == NOT_FOUND else 400, failed(e))


# ------------------------------------------------------------------ the library in use


class Shelf:
    """The library in use: the one `current` names in the home, opened once per thread that
    answers (SQLite connections stay in their thread). A look at `current` (one stat) before
    each request sees a build switch to another; a library built by another crlookup (a
    newer one, installed since the server started) is not taken: it needs a restart."""

    def __init__(self, root: str):
        self.root = root
        self.pointer = os.path.join(root, "current")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._seen: tuple | None = None
        self.path = api.current(root)
        if self.path is None:
            raise LibraryError(
                _("no library in {home}: `crlookup serve` builds it before it serves").format(
                    home=root
                )
            )

    def look(self) -> str:
        """The path of the library in use now (a stat of `current`, unless it changed)."""
        try:
            st = os.stat(self.pointer)
            seen: tuple | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            seen = None
        if seen != self._seen:
            with self._lock:
                found = api.current(self.root)
                if found is not None and found != self.path and self._compatible(found):
                    log.info("switching to %s", found)
                    self.path = found
                self._seen = seen
        assert self.path is not None
        return self.path

    @staticmethod
    def _compatible(path: str) -> bool:
        if api.compatible(path):
            return True
        with contextlib.suppress(sqlite3.Error, ValueError, OSError):
            log.warning(
                "%s was built by crlookup %s: restart the server to use it",
                path,
                api.stamp(path).get("version"),
            )
        return False

    def library(self) -> api.Library:
        """This thread's library, the one in use (opened, and the last closed, if it changed)."""
        path = self.look()
        lib = getattr(self._local, "library", None)
        if lib is None or lib.path != path:
            new = api.Library.at(path, self.root, heals=False)
            new.waits = False  # never a build at request time: what is missing is said
            if lib is not None:
                lib.close()
            self._local.library = lib = new
        return lib


# ------------------------------------------------------------------ answering


def answered(shelf: Shelf, endpoint: Endpoint, values: dict) -> tuple[Any, str]:
    """The JSON of `endpoint` for `values`, and the library that answered. A library that
    fails to be read (a file gone, damage) while a build made another current is left for
    that one, and the command run again there; what a command refuses is a CrlookupError."""
    lib = shelf.library()
    try:
        return endpoint.answer(lib, values), lib.path
    except (LibraryError, OSError, sqlite3.Error) as e:
        if shelf.look() == lib.path:  # the library in use is damaged: said, never rebuilt here
            if isinstance(e, CrlookupError):
                raise
            log.error("%s could not be read: %s", lib.path, e)
            raise LibraryDamaged(os.path.basename(lib.path), lib.path, str(e)) from None
    lib = shelf.library()  # (its files were removed after a build switched to another)
    return endpoint.answer(lib, values), lib.path


class Pool:
    """Threads that answer what the event loop must not wait for (one request's minute was
    every other request's minute: issue 47): `limit` at once, at most `queue` waiting beyond
    them (more: Busy, 503 and Retry-After), each answered within `deadline` seconds of its
    arrival, its wait included (later: Busy; its thread ends on its own, the searches at
    SEARCH_SECONDS, and counts as busy until then)."""

    def __init__(self, name: str, limit: int, queue: int, deadline: float):
        self.limit, self.queue, self.deadline = max(1, limit), max(0, queue), deadline
        self.pool = ThreadPoolExecutor(self.limit, thread_name_prefix=f"crlookup-{name}")
        self.waiting = 0

    async def run(self, work: Callable[[], Any]) -> Any:
        if self.waiting >= self.limit + self.queue:
            raise Busy(_("too many questions at once: try again in a moment"))
        self.waiting += 1
        future = asyncio.get_running_loop().run_in_executor(self.pool, work)
        future.add_done_callback(self._done)
        try:  # (shielded: the deadline leaves the work to end, and to be counted till then)
            return await asyncio.wait_for(asyncio.shield(future), self.deadline)
        except asyncio.TimeoutError:  # (not TimeoutError itself before Python 3.11)
            raise Busy(
                _("no answer within {seconds:g} s: try again in a moment").format(
                    seconds=self.deadline
                )
            ) from None

    def _done(self, future: asyncio.Future) -> None:
        self.waiting -= 1
        if not future.cancelled():
            future.exception()  # (retrieved: an answer nobody waited for is no error)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


# Threads per worker answering searches and cards: one, as Python runs one at a time (a
# second one took the event loop's turns too: rule lookups' p99 beside two worst-case
# searches 388 ms with two, 201 with one); a search ends within SEARCH_SECONDS
SEARCHERS = 1
SEARCH_QUEUE = 64  # searches waiting per worker beyond them
SLOW_SECONDS = 60.0  # a slow command's deadline (the longest diff, 2003 to 2026: 2 s)
# How often a thread that computes gives the others their turn (Python's default: 5 ms). A
# lookup on the event loop gives its turn up at each read of the library and waited that
# long each time to have it back: beside a search running to its deadline, lookups' p99
# was 201 ms at 5 ms, 50 ms at 1 ms (scripts/bench.py --only serve)
SWITCH_SECONDS = 0.001


class Pools(NamedTuple):
    """Where the endpoints that are not QUICK are answered, by their cost."""

    search: Pool
    slow: Pool

    @classmethod
    def of(cls, settings: Settings) -> Pools:
        return cls(
            Pool("search", SEARCHERS, SEARCH_QUEUE, SEARCH_SECONDS + 5),
            Pool("slow", settings.ask_limit, settings.ask_queue, SLOW_SECONDS),
        )

    async def answer(self, shelf: Shelf, endpoint: Endpoint, values: dict, then=None) -> Any:
        """`answered`, on the event loop if the endpoint is QUICK, else in its pool; with
        `then`, what `then(data, library)` makes of it there (a page, rendered)."""

        def work() -> Any:
            data, path = answered(shelf, endpoint, values)
            return (data, path) if then is None else then(data, shelf.library())

        if endpoint.cost == QUICK:
            return work()
        pool = self.slow if endpoint.cost == SLOW else self.search
        return await pool.run(work)

    def shutdown(self) -> None:
        for pool in self:
            pool.shutdown()


def _handler(endpoint: Endpoint, shelf: Shelf, pools: Pools):
    async def handle(request: Request) -> Response:
        target = endpoint
        try:
            query = urllib.parse.parse_qsl(  # (UTF-8: the guard let it in)
                request.scope["query_string"].decode("utf-8"), keep_blank_values=True
            )
            values = endpoint.read(request.path_params, query)
            if endpoint is LOOKUP:  # the command it goes to, then answered as that one
                given = values
                target, values = await pools.search.run(lambda: routed(shelf.library(), **given))
            data, path = await pools.answer(shelf, target, values)
        except CrlookupError as e:
            return refusal(e).response()
        command = target.command
        if command == "search" and isinstance(data, dict) and "card" in data:
            command = "card"  # (words no rule has, naming a card loosely)
        headers = {"X-Crlookup-Library": os.path.basename(path), "X-Crlookup-Command": command}
        return body(data, headers=headers)

    return handle


# ------------------------------------------------------------------ the request as a whole


CLIENTS = 100_000  # client addresses a worker keeps a bucket for (the least recently seen go)


def headers_of(message: dict, path: str = "/") -> list[tuple[bytes, bytes]]:
    """A response's headers with SECURITY's, and Cache-Control: an error's always ERROR_CACHE,
    another's its own or ANSWER_CACHE; under /site/ (the static site), SITE_SECURITY's, and
    its files named by their contents' hash IMMUTABLE."""
    headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
    given = [v for k, v in message.get("headers", []) if k.lower() == b"cache-control"]
    site = in_site(path)
    if message["status"] >= 400:
        headers.append((b"cache-control", ERROR_CACHE))
    elif site and path.startswith(("/site/static/", "/site/offline/")):
        headers.append((b"cache-control", IMMUTABLE))
    else:
        headers.append((b"cache-control", given[0] if given else ANSWER_CACHE))
    return headers + list(SITE_SECURITY if site else SECURITY)


def in_site(path: str) -> bool:
    """Whether a request's path is the static site's (`serve --site`: its files as they are)."""
    return path == "/site" or path.startswith("/site/")


def wants_html(scope) -> bool:
    """Whether a request asks for a page (a browser's Accept has text/html), not JSON."""
    return any(k == b"accept" and b"text/html" in v.lower() for k, v in scope.get("headers", ()))


class Guard:
    """What every request must be before an endpoint reads it: GET or HEAD, a path and query
    that are UTF-8 (percent-escapes of bytes that are no character: 400) without control
    characters; and, if set, at most `rate` requests a minute from one client address (each
    worker counts its own: behind N workers a client gets about N times as many). The client
    is the peer's address, or the X-Forwarded-For of a proxy `--forwarded-allow-ips` names
    (uvicorn reads it: loopback by default)."""

    def __init__(self, app, rate: int = 0, shaped: Callable[..., Response] | None = None):
        self.app = app
        self.rate = rate
        self.shaped = shaped  # shaped(request, refusal): a page for a browser (else JSON)
        # client: (tokens, when), least recently seen first; at most CLIENTS of them
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        asked = scope["path"]

        async def headed(message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=headers_of(message, asked))
            await send(message)

        if in_site(asked):  # (the site's files, at their own addresses: "/site/rule/702.19b/")
            refused = self._check(scope)
            if refused is not None:
                return await refused.response()(scope, receive, headed)
            return await self.app(scope, receive, headed)
        if len(scope["path"]) > 1 and scope["path"].endswith("/"):  # "/v1/rule/702.19b/"
            # answered as without it (Starlette answered a 307 with an empty body)
            scope = dict(scope, path=scope["path"].rstrip("/") or "/")
            scope["raw_path"] = (scope.get("raw_path") or b"").rstrip(b"/") or b"/"
        moved = unprefixed(scope["path"])
        if moved is not None:  # "/en-2024-07-30/rule/702.19b": "/rule/702.19b?edition=..."
            path, (name, value) = moved
            query = scope["query_string"]
            added = urllib.parse.urlencode({name: value}).encode()
            raw = scope.get("raw_path") or scope["path"].encode()
            scope = dict(scope, path=path, query_string=query + b"&" + added if query else added)
            scope["raw_path"] = b"/" + b"/".join(raw.split(b"/", 3)[2:])
        refused = self._check(scope)
        if refused is not None:
            answer = (
                refused.response() if self.shaped is None else self.shaped(Request(scope), refused)
            )
            return await answer(scope, receive, headed)
        return await self.app(scope, receive, headed)

    def _check(self, scope) -> Refusal | None:
        if scope["method"] not in ("GET", "HEAD"):
            told = Failed(
                _("{method}: the server answers GET requests only").format(method=scope["method"]),
                BAD_INPUT,
                [],
            )
            return Refusal(405, told, {"Allow": "GET, HEAD"})
        raw = scope.get("raw_path") or scope["path"].encode()
        try:
            path = urllib.parse.unquote_to_bytes(raw).decode("utf-8")
            query = urllib.parse.unquote_to_bytes(scope["query_string"].replace(b"+", b" ")).decode(
                "utf-8"
            )
        except UnicodeDecodeError:
            return Refusal(400, Failed(_("the request is not UTF-8: {target}").format(
                target=ascii(raw[:60])), BAD_INPUT, []))  # fmt: skip
        if unreadable(path + query):
            told = Failed(
                _("the request has control characters: {target}").format(
                    target=ascii((path + "?" + query)[:60])
                ),
                BAD_INPUT,
                [],
            )
            return Refusal(400, told)
        if (
            self.rate
            and scope["path"] != "/healthz"  # (a proxy's health checks are not a client's)
            and not self._allowed((scope.get("client") or ("?",))[0])
        ):
            told = Failed(
                _("more than {count} requests a minute: try again in a moment").format(
                    count=self.rate
                ),
                NOT_FOUND,
                [],
            )
            return Refusal(429, told, {"Retry-After": str(max(1, round(60 / self.rate)))})
        return None

    def _allowed(self, client: str) -> bool:
        """A token bucket per client: `rate` a minute, as many at once. The same few steps
        whatever the number of clients (issue 47: past 100,000 addresses the whole table was
        rebuilt on every request): a client unseen for a minute has a full bucket again and is
        forgotten, and past CLIENTS the least recently seen one is."""
        now = time.monotonic()
        buckets = self.buckets
        tokens, when = buckets.pop(client, (float(self.rate), now))
        tokens = min(float(self.rate), tokens + (now - when) * self.rate / 60)
        while buckets:  # the oldest first: forgotten once a minute has refilled them
            oldest = next(iter(buckets))
            if now - buckets[oldest][1] < 60 and len(buckets) < CLIENTS:
                break
            del buckets[oldest]
        allowed = tokens >= 1
        buckets[client] = (tokens - 1 if allowed else tokens, now)
        return allowed


class Unexpected:
    """An error the server did not expect: logged with its traceback and answered 500 (a page
    for a browser, a JSON line for a bot: `answer`), the connection kept for the client's
    next request. (Starlette's own handler of errors raises the error again once it has
    answered, and uvicorn then closed the connection: issue 53.)"""

    def __init__(self, app, answer: Callable[[Request, Exception], Response]):
        self.app, self.answer = app, answer

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def sending(message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as e:  # (whatever it is: a 500, and the server goes on)
            if started:  # (half an answer sent: only closing the connection can say so)
                raise
            log.exception("%s %s", scope["method"], scope["path"])
            await self.answer(Request(scope), e)(scope, receive, send)


# ------------------------------------------------------------------ the application


def create(settings: Settings | None = None) -> Guard:
    """The application one worker serves (uvicorn's factory)."""
    settings = settings or Settings.from_env()
    sys.setswitchinterval(SWITCH_SECONDS)
    shelf = Shelf(settings.root)
    pools = Pools.of(settings)
    schema = openapi(__version__)

    async def healthz(request: Request) -> Response:
        try:
            lib = shelf.library()
            count = len(lib.editions(None))
        except (CrlookupError, OSError, sqlite3.Error) as e:
            told = Failed(_("the library could not be read: {reason}").format(reason=e), 1, [])
            return Refusal(503, told).response()
        # (the library's id, as X-Crlookup-Library names it: not where it lies on the disk)
        library = os.path.basename(lib.path)
        found = {"ok": True, "library": library, "editions": count, "version": __version__}
        return body(found)

    async def schema_of(request: Request) -> Response:
        return body(schema)

    def shaped(request: Request, told: Refusal) -> Response:
        """An error of a request no endpoint answered: a page for a browser, JSON for a bot."""
        if wants_html(request.scope):
            answer = site.failed(told.status, told.told.message, [], told.headers, why=told.why)
        else:
            answer = told.response()
        answer.headers["Vary"] = "Accept"
        return answer

    async def no_such(request: Request, e: Exception) -> Response:
        status = e.status_code if isinstance(e, HTTPException) else 500
        if status == 404 and wants_html(request.scope):
            told = Failed(_("no page {path}").format(path=request.url.path[:80]), NOT_FOUND, [])
        elif status == 404:
            import difflib

            paths = [x.path for x in (*ENDPOINTS, LOOKUP)]
            asked = request.url.path[:80]
            told = Failed(
                _("no endpoint {path}; the endpoints: {paths}").format(
                    path=asked, paths=", ".join(paths)
                ),
                NOT_FOUND,
                difflib.get_close_matches(asked, paths, n=3, cutoff=0),  # the nearest
            )
        else:  # (a method other than GET is refused by the guard: 405)
            told = Failed(str(getattr(e, "detail", "")) or "error", BAD_INPUT, [])
        return shaped(request, Refusal(status, told))

    def failure(request: Request, e: Exception) -> Response:  # (Unexpected logs it)
        told = Failed(_("internal error: {kind}").format(kind=type(e).__name__), NOT_FOUND, [])
        return shaped(request, Refusal(500, told))

    def warm() -> None:
        """The slow thread's library opened and ask's model loaded, before the first question."""
        with contextlib.suppress(CrlookupError, OSError, sqlite3.Error):
            shelf.library().ask("Can a creature with defender attack?")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        shelf.library()
        pools.slow.pool.submit(warm)
        yield
        pools.shutdown()

    routes: list[BaseRoute] = [
        Route(e.path, _handler(e, shelf, pools), name=e.command) for e in (*ENDPOINTS, LOOKUP)
    ]
    routes += [Route("/healthz", healthz), Route("/openapi.json", schema_of)]
    from crlookup.ui.serve import pages as web

    site = web.Pages()  # (a browser's 404 is a page too)
    routes += _pages(shelf, pools, site)
    if settings.site:  # the static site (crlookup.ui.site), as its files are
        import mimetypes

        from starlette.routing import Mount
        from starlette.staticfiles import StaticFiles

        mimetypes.add_type("application/manifest+json", ".webmanifest")
        mimetypes.add_type("application/wasm", ".wasm")
        routes.append(Mount("/site", StaticFiles(directory=settings.site, html=True), name="site"))
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: no_such},
        lifespan=lifespan,
        middleware=[
            Middleware(GZipMiddleware, minimum_size=1000),
            Middleware(Unexpected, answer=failure),
        ],
    )
    return Guard(app, settings.rate_limit, shaped)


def _pages(shelf: Shelf, pools: Pools, site) -> list[Route]:
    """The web pages (crlookup.ui.serve.pages, `site`): each rendered from its endpoint's
    JSON, where that endpoint is answered; errors as pages, the nearest rules as links."""
    from crlookup.ui.serve import pages as web

    def refused(e: CrlookupError, request: Request) -> Response:
        told = refusal(e)
        return site.failed(
            told.status, told.told.message, told.told.suggestions, told.headers, request, told.why
        )

    def page_of(page: web.Page):
        endpoint = BY_COMMAND[page.command]

        async def handle(request: Request) -> Response:
            try:
                values = web.values_of(page, endpoint, request)

                def then(data: Any, lib: api.Library) -> Response:
                    shown = site.page(page, request, values, data, lib)
                    shown.headers["X-Crlookup-Library"] = os.path.basename(lib.path)
                    return shown

                return await pools.answer(shelf, endpoint, values, then)
            except CrlookupError as e:
                return refused(e, request)

        return handle

    async def home(request: Request) -> Response:
        try:
            return site.home(shelf.library())
        except CrlookupError as e:
            return refused(e, request)

    async def go(request: Request) -> Response:
        """The search box: whatever was typed, sent on to the page of the command it goes to."""
        try:
            query = web.query_of(request)
            if not dict(query).get("q", "").strip():
                return RedirectResponse("/", 303)
            values = LOOKUP.read({}, query)
            target, found = await pools.search.run(lambda: routed(shelf.library(), **values))
        except CrlookupError as e:
            return refused(e, request)
        return RedirectResponse(web.address(target.command, found, **values), 303)

    routes = [Route(p.path, page_of(p), name=f"page-{p.command}") for p in web.PAGES]
    return [*routes, Route("/", home), Route("/go", go), Route("/static/{name}", site.static)]
