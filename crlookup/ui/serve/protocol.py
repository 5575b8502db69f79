"""The server's HTTP/1.1: uvicorn's own (httptools), with the limits a server facing the open
internet needs and uvicorn lacks, each refused with one line of JSON, the connection closed:

    408  a request begun but not whole in time (`--read-timeout`): a slow client holds nothing
         (a connection idle that long, no request begun, is closed, as uvicorn's keep-alive)
    414  a request line (path and query) of more than MAX_TARGET bytes (a 1 MB query)
    431  headers of more than MAX_HEAD bytes
    400  bytes that are not HTTP/1.1 (uvicorn's own answer there is plain text)

uvicorn takes it as its `http` protocol (`crlookup.ui.serve.protocol:Protocol`), the
deadline from the settings `crlookup serve` hands the workers (crlookup.ui.serve.app.Settings).
"""

from __future__ import annotations

import http
import json
import os

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from crlookup.core.errors import BAD_INPUT, BadInput
from crlookup.core.i18n import _
from crlookup.ui.failure import Failed
from crlookup.ui.serve import ERROR_CACHE, SECURITY, SETTINGS

MAX_TARGET = 32 * 1024  # bytes: 2,000 characters of Chinese, percent-escaped, and then some
MAX_HEAD = 64 * 1024  # bytes of headers


class Protocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for a request to arrive and limits on the
    size of its line and its headers."""

    _deadline = None
    _head = 0
    _begun = False  # bytes of a request have arrived, and it has not been answered
    _refusal: bytes | None = None  # a refusal written once the answers before it are
    read_s = 10.0  # seconds to receive a request's line and headers, from the connection or the
    # last answer: the settings' read_timeout (`crlookup serve --read-timeout`), set below

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.read_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self._begun:  # idle: closed without a word, as a keep-alive connection is
            self.transport.close()
            return
        self._refuse(
            408,
            _("the request did not arrive within {seconds:g} seconds").format(seconds=self.read_s),
        )

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head = 0
        self._begun = True

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_TARGET:
            self._refuse(
                414, _("a request line of at most {count} bytes, please").format(count=MAX_TARGET)
            )

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head += len(name) + len(value) + 4
        if self._head > MAX_HEAD:
            self._refuse(431, _("headers of at most {count} bytes, please").format(count=MAX_HEAD))
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm()
        if self.parser.get_http_version() not in ("1.0", "1.1"):  # ("GET /healthz": HTTP/0.9)
            message = _("the request could not be read as HTTP/1.1")
            self._refuse(400, message)
            raise BadInput(message)
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._begun = False
        if self._refusal is not None:  # (a bad request pipelined behind this one's)
            if not self._answering():
                self._close_refused()
        elif not self.transport.is_closing() and not self.pipeline:
            self._arm()  # for the next request on this connection

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, _("the request could not be read as HTTP/1.1"))

    def _refuse(self, status: int, message: str) -> None:
        """Answer `status` with the error as JSON and close the connection, once the requests
        before it on the connection are answered (pipelined, they were dropped: issue 53),
        reading nothing more meanwhile; in a parser callback, raises BadInput to stop httptools
        reading the rest."""
        if self.transport.is_closing() or self._refusal is not None:
            return
        told = json.dumps(Failed(message, BAD_INPUT, []).to_dict(), ensure_ascii=False, indent=2)
        data = (told + "\n").encode()
        phrase = http.HTTPStatus(status).phrase
        head = (
            f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(data)}\r\nconnection: close\r\n"
        ).encode("ascii")
        # (every answer's headers: crlookup.ui.serve.app.headers_of; an error's cache)
        for name, value in (*SECURITY, (b"cache-control", ERROR_CACHE)):
            head += name + b": " + value + b"\r\n"
        self._refusal = head + b"\r\n" + data
        self._disarm()
        self.transport.pause_reading()
        if not self._answering():
            self._close_refused()
        if status in (414, 431):
            raise BadInput(message)

    def _answering(self) -> bool:
        """Whether a request before the one refused is still to be answered."""
        cycle: RequestResponseCycle | None = self.cycle  # (None before the first request)
        return bool(self.pipeline) or (cycle is not None and not cycle.response_complete)

    def _close_refused(self) -> None:
        if not self.transport.is_closing() and self._refusal is not None:
            self.transport.write(self._refusal)
            self.transport.close()


def _configured() -> None:
    settings = json.loads(os.environ.get(SETTINGS) or "{}")
    Protocol.read_s = float(settings.get("read_timeout", Protocol.read_s))


_configured()
