"""`crlookup serve`: all of it over HTTP, for bots (docs/commands/serve.md, docs/serving.md)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from crlookup.core.errors import BAD_INPUT, NOT_FOUND
from crlookup.core.i18n import N_, _
from crlookup.ui.cli.command import Failure, command, open_library

if TYPE_CHECKING:
    import click
else:
    from crlookup.ui import click


@command()
@click.option("--host", default="127.0.0.1", show_default=True, help=N_("Address to listen on."))
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help=N_("Worker processes (one per core serves the most)."),
)
@click.option(
    "--ask-limit",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help=N_("Questions, diffs and histories answered at once by each worker."),
)
@click.option(
    "--ask-queue",
    type=click.IntRange(0, 10000),
    default=32,
    show_default=True,
    help=N_("Questions waiting per worker beyond which the server answers 503."),
)
@click.option(
    "--rate-limit",
    type=click.IntRange(0, 1_000_000),
    default=0,
    show_default=True,
    help=N_("Requests a minute one client may make, counted by each worker (0: no limit)."),
)
@click.option(
    "--read-timeout",
    type=click.FloatRange(0.1, 3600),
    default=10.0,
    show_default=True,
    help=N_("Seconds a request may take to arrive; a slower client is answered 408."),
)
@click.option(
    "--forwarded-allow-ips",
    default="127.0.0.1",
    show_default=True,
    help=N_(
        "Proxies whose X-Forwarded-For names the client (for the rate limit): addresses "
        "or networks separated by commas, '*' any, 'none' none."
    ),
)
@click.option("--access-log", is_flag=True, help=N_("Log every request."))
@click.option(
    "--site",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help=N_("Serve the static site written by `crlookup site DIR` at /site/, for phones to keep."),
)
def serve(
    host,
    port,
    workers,
    ask_limit,
    ask_queue,
    rate_limit,
    read_timeout,
    forwarded_allow_ips,
    access_log,
    site,
):
    """Serve the library over HTTP: each command's --json, for bots and sites.

    GET /v1/rule/702.19b, /v1/search?q=..., /v1/ask?q=..., /v1/card?name=... and the rest
    answer as the commands do with --json; /openapi.json describes them, /healthz says the
    library in use. The library is built first if it must be, then only read: a rebuild is
    taken up without a restart. Needs the serve extra: pip install "crlookup[serve]".

    Example: crlookup serve --port 8000 --workers 2
    """
    from crlookup.ui import serve as serving

    lacking = serving.missing()
    if lacking:
        raise Failure(
            _("serve needs {packages}: {command}").format(
                packages=", ".join(lacking), command=serving.EXTRA
            ),
            NOT_FOUND,
        )
    _check_port(host, port)
    if site is not None and not os.path.isfile(os.path.join(site, "offline.json")):
        raise Failure(
            _("{folder} holds no site: write one with `crlookup site {folder}`").format(
                folder=site
            ),
            BAD_INPUT,
        )
    lib = open_library()  # built now if it must be: a worker never builds
    lib.all_editions(None)  # every edition in (waited for): none is still to come
    root = lib.root or os.path.dirname(lib.path)
    click.echo(
        _("crlookup: serving {path} on http://{host}:{port}/ (Ctrl+C stops)").format(
            path=lib.path, host=host if ":" not in host else f"[{host}]", port=port
        ),
        err=True,
    )
    lib.close()
    serving.run(
        root,
        host,
        port,
        workers,
        ask_limit=ask_limit,
        ask_queue=ask_queue,
        rate_limit=rate_limit,
        read_timeout=read_timeout,
        forwarded_allow_ips="" if forwarded_allow_ips == "none" else forwarded_allow_ips,
        access_log=access_log,
        site=os.path.abspath(site) if site is not None else None,
    )


def _check_port(host: str, port: int) -> None:
    """`Failure` naming the address if it cannot be listened on (in use, not this machine's)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise Failure(f"serve: {host}: {e.strerror}", BAD_INPUT) from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            raise Failure(f"serve: {host}:{port}: {e.strerror}", BAD_INPUT) from None
