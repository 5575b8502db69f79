"""`crlookup serve`: the library over HTTP, for bots, sites and many users at once.

    endpoints.py  one endpoint per command: its parameters (the command's options) and its
                  answer (the command's --json); the OpenAPI schema made from them
    app.py        the application each worker runs (Starlette): the library in use, errors
                  as JSON, the pool of slow questions, the rate limit
    protocol.py   uvicorn's HTTP/1.1 with a deadline and size limits for a request
    pages.py      the web pages for people (phones first), each rendered from its endpoint's
                  JSON with the Jinja2 templates of templates/, styled by static/

The server's packages (Starlette, uvicorn with httptools, uvloop, Jinja2) are the `serve` extra:
`pip install "crlookup[serve]"`; nothing else of crlookup imports them. Chosen by measurement
(docs/serving.md): Starlette over FastAPI, httptools over h11.
"""

from __future__ import annotations

import importlib.util
import json
import os

SETTINGS = "CRLOOKUP_SERVE"  # the environment variable that hands the workers their settings
# Every response's headers, for a site that faces the world (issue 53): the pages have no
# inline script or style and load nothing from elsewhere; no page is framed; a link out says
# only the site it is from
SECURITY = (
    (
        b"content-security-policy",
        (
            b"default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
            b"frame-ancestors 'none'; form-action 'self'"
        ),
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
# The static site's pages at /site/ (`serve --site`) search with Pagefind, which runs
# WebAssembly: compiling it is allowed there ('wasm-unsafe-eval' allows no JavaScript eval);
# its 404 page's <base href> (crlookup site --base /site/) is the site's own
SITE_SECURITY = tuple(
    (
        k,
        v.replace(
            b"default-src 'self';", b"default-src 'self'; script-src 'self' 'wasm-unsafe-eval';"
        ).replace(b"base-uri 'none'", b"base-uri 'self'"),
    )
    for k, v in SECURITY
)
# the site's files named by their contents' hash (static/, offline/) are kept for a year
IMMUTABLE = b"public, max-age=31536000, immutable"
# How long a client or a cache may keep an answer that does not say: an error not at all (a
# 503 or a 429 is over in a moment, a 404 may be found in the next edition); anything else is
# asked again each time (the library may change: a rebuild, an ingest, a new edition)
ERROR_CACHE, ANSWER_CACHE = b"no-store", b"no-cache"
PACKAGES = ("starlette", "uvicorn", "httptools", "jinja2")
EXTRA = 'pip install "crlookup[serve]"'


def missing() -> list[str]:
    """The server's packages that are not installed."""
    return [name for name in PACKAGES if importlib.util.find_spec(name) is None]


def run(
    root: str,
    host: str,
    port: int,
    workers: int = 1,
    *,
    ask_limit: int = 1,
    ask_queue: int = 32,
    rate_limit: int = 0,
    read_timeout: float = 10.0,
    forwarded_allow_ips: str = "127.0.0.1",
    access_log: bool = False,
    site: str | None = None,
) -> None:
    """Serve the library of home `root` (built, with every edition) until interrupted:
    `workers` processes, each answering every endpoint (crlookup.ui.serve.app); the client of
    a request is the X-Forwarded-For of a proxy in `forwarded_allow_ips`, else its peer; the
    static site in the folder `site` (`crlookup site`), if given, at /site/."""
    import uvicorn

    # The embedding model (`ask`) runs OpenMP, a thread per core by default: with a worker per
    # core that is a thread per core in each worker, spinning on the cores the others answer
    # on. Each worker gets its share of the cores instead (unless OMP_NUM_THREADS is set):
    # questions over 4 connections, two workers on two cores, 10-34/s -> 51-89/s.
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // workers)))
    os.environ[SETTINGS] = json.dumps(
        {
            "root": root,
            "ask_limit": ask_limit,
            "ask_queue": ask_queue,
            "rate_limit": rate_limit,
            "read_timeout": read_timeout,
            "site": site,
        }
    )
    uvicorn.run(
        "crlookup.ui.serve.app:create",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http="crlookup.ui.serve.protocol:Protocol",
        loop="auto",  # uvloop where it is installed (not on Windows)
        access_log=access_log,
        proxy_headers=True,  # the client's address from a proxy (the rate limit's client)
        forwarded_allow_ips=forwarded_allow_ips,  # the proxies trusted to say it
        server_header=False,
        timeout_graceful_shutdown=5,
    )
