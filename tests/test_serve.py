"""`crlookup serve` (crlookup.ui.serve): the real server on 127.0.0.1, in a process of its own,
answering as the commands answer with --json, refusing hostile input with one line of JSON,
and taking up a rebuild without a failed request."""

from __future__ import annotations

import asyncio
import http.client
import importlib
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from conftest import OFFICIAL, ROOT, Server, examples, run
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.library,  # the full library
]


@pytest.fixture(scope="module")
def server(built_home):
    current = (built_home / "current").read_text()
    found = Server(built_home, "--read-timeout", "1")
    # the shared library as it was: the server read it, it did not build another
    assert (built_home / "current").read_text() == current
    yield found
    found.stop()
    assert "Traceback" not in found.log.read_text(), found.log.read_text()[-3000:]


def error_of(status_body) -> dict:
    """The one-line JSON error of an answer."""
    _status, data, _headers = status_body
    found = json.loads(data)
    assert set(found) == {"error", "code", "suggestions"}, found
    assert "\n" not in found["error"] and "Traceback" not in found["error"]
    return found


# ------------------------------------------------------------------ as the commands answer

SAME_AS_COMMANDS = [
    ("/v1/rule/702.19b", ["rule", "702.19b"]),
    ("/v1/rule/IPG%202.1", ["rule", "IPG 2.1"]),
    ("/v1/rule/702.19?parallel=en,ru", ["rule", "702.19", "--parallel", "en,ru"]),
    ("/v1/rule/702.19b?cite=true", ["rule", "702.19b", "--cite"]),
    ("/v1/rule/100.1?edition=en-2009-07-11", ["rule", "100.1", "--edition", "en-2009-07-11"]),
    ("/v1/search?q=deathtuch&limit=3", ["search", "deathtuch", "--limit", "3"]),
    ("/v1/search?q=%E6%AD%BB%E8%A7%A6&limit=2", ["search", "死触", "--limit", "2"]),
    ("/v1/search?q=flying+reach&cards", ["search", "flying reach", "--cards"]),
    ("/v1/search?q=missed+trigger&doc=ipg", ["search", "missed trigger", "--doc", "ipg"]),
    ("/v1/define/lethal%20damage", ["define", "lethal", "damage"]),
    ("/v1/refs/702.19?depth=2", ["refs", "702.19", "--depth", "2"]),
    (
        "/v1/diff?old=en-2025-11-14&new=en-2026-08-07&section=702",
        ["diff", "en-2025-11-14", "en-2026-08-07", "--section", "702"],
    ),
    (
        "/v1/diff?old=en-2025-11-14&new=en-2026-08-07&summary=1",
        ["diff", "en-2025-11-14", "en-2026-08-07", "--summary"],
    ),
    ("/v1/history/702.19b", ["history", "702.19b"]),
    ("/v1/card?name=giant%20spidr", ["card", "giant spidr"]),
    ("/v1/card?name=Stomp", ["card", "Stomp"]),
    (
        "/v1/ask?q=Can%20I%20sacrifice%20a%20creature%20that%20is%20blocking%3F&limit=3",
        ["ask", "Can I sacrifice a creature that is blocking?", "--limit", "3"],
    ),
    ("/v1/editions", ["editions"]),
]


@pytest.mark.parametrize(("path", "command"), SAME_AS_COMMANDS)
def test_an_endpoint_answers_what_its_command_prints_with_json(server, path, command):
    status, data, headers = server.get(path)
    assert status == 200, data
    assert headers["content-type"].startswith("application/json")
    assert data.decode("utf-8") == run(*command, "--json").output  # the same bytes
    assert headers["x-crlookup-library"].startswith("library-")


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("702.19b", "rule"),
        ("cr 702.19", "rule"),
        ("IPG 2.1", "rule"),
        ("lethal damage", "define"),
        ("Giant Spider", "card"),
        ("Stomp", "card"),
        ("deathtouch trample", "search"),
        ("HCE", "rule"),  # an infraction's shorthand: its IPG entry
        ("rule 702.2c", "rule"),  # a command's name first (issue 46: went to search)
        ("APNAP", "define"),  # the rules' shorthand: its glossary term
        ("teferi hero", "card"),  # words no rule has, naming a card loosely
        ("Can a creature with defender attack?", "ask"),
    ],
)
def test_lookup_answers_whatever_was_typed_as_crlookup_anything(server, typed, command):
    status, data, headers = server.get("/v1/lookup?q=" + urllib.parse.quote(typed))
    assert status == 200 and headers["x-crlookup-command"] == command
    assert data.decode() == run(*typed.split(), "--json").output


def test_lookup_with_an_edition_and_without_words(server):
    status, data, _ = server.get("/v1/lookup?q=100.1&edition=en-2009-07-11")
    assert status == 200 and json.loads(data)["edition"] == "en-2009-07-11"
    assert error_of(server.get("/v1/lookup?q=%20"))["code"] == 2
    assert error_of(server.get("/v1/lookup?q=702.19&limit=3"))["error"].startswith("lookup:")


def test_latest_and_previous_of_an_mtr_entry_on_the_page(server):
    """The page's "previous" from MTR 3.1 was a 404 and its "latest" an older edition than the
    one shown (issue 55): they mean what the command line's mean."""
    for alias, edition in (("latest", "mtr-2026-02-27"), ("previous", "mtr-2025-11-10")):
        status, data, _ = server.get(f"/v1/rule/MTR%203.1?edition={alias}")
        assert status == 200 and json.loads(data)["edition"] == edition, alias
        status, page, _ = server.get(f"/rule/MTR%203.1?edition={alias}")
        assert status == 200 and edition in page.decode(), alias


def test_a_card_without_rulings_in_the_data_says_why_on_the_page(server):
    """It said "No official rulings." for a card newer than the rulings (issue 55)."""
    import html

    status, page, _ = server.get("/card/Bonecrusher%20Giant")
    _status, data, _ = server.get("/v1/card?name=Bonecrusher%20Giant")
    why = json.loads(data)["rulings_unavailable"]
    assert status == 200 and why and why in html.unescape(page.decode())
    assert "No official rulings." not in page.decode()


def _page_text(page: bytes) -> str:
    """A page's words as read: its tags gone, entities read, spaces collapsed."""
    import html
    import re

    body = page.decode().split("<main", 1)[-1]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def _said(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    ("command", "path"),
    [
        (["rule", "702.19"], "/rule/702.19"),
        (["refs", "613"], "/refs/613"),
        (["define", "deathtouch"], "/define/deathtouch"),
        (["card", "Giant Spider"], "/card/Giant%20Spider"),
        (["search", "deathtouch", "trample"], "/search?q=deathtouch%20trample"),
        (["diff", "en-2026-04-17", "en-2026-08-07"], "/diff/en-2026-04-17/en-2026-08-07"),
        (["rule", "IPG 2.1"], "/rule/IPG%202.1"),
    ],
)
def test_a_page_names_the_rules_its_command_names(server, command, path):
    """A sample of each kind of page against its command's text (issue 55): the same rule
    numbers, none more, none fewer; the IPG entry's paragraphs, each of them."""
    import re

    number = re.compile(r"\b\d{3}\.\d+[a-z]{0,2}\b")
    told = run(*command).output
    status, page, _ = server.get(path)
    shown = _page_text(page.decode().split("</main>")[0].encode())
    assert status == 200
    assert set(number.findall(told)) == set(number.findall(shown))
    if command[1] == "IPG 2.1":
        paragraphs = [line.strip() for line in told.splitlines()[2:] if len(line) > 60]
        assert len(paragraphs) > 10  # (a list's "•" is the page's list item)
        assert all(_said(p).removeprefix("• ") in shown for p in paragraphs)


@pytest.mark.parametrize("number", ["702.19b", "702", "509.1a"])
def test_the_history_page_tells_the_lines_the_command_line_tells(server, number):
    """The page led with "2024-07-30 702.19b changed (quotes and spacing only)", from the
    partial scraped edition the command line leaves out (issue 55): both tell
    `History.lines`, newest first on the page."""
    import re

    told = run("history", number).output.splitlines()
    steps = [line for line in told if re.match(r"\d{4}-\d\d-\d\d  ", line)]
    quiet = [_said(line) for line in told if line.startswith("    … ") and "unchanged" in line]
    status, page, _ = server.get(f"/history/{number}")
    shown = _page_text(page)
    assert status == 200 and page.decode().count("<li>") == len(steps)
    for line in steps:
        date, _edition, *said = line.split()
        assert f"{date} {' '.join(said)}" in shown, line
    for line in quiet:
        assert line in shown
    data = json.loads(run("history", number, "--json").output)
    partial = {s["date"] for s in data["steps"] if not s["main"]}
    assert partial and not any(
        f"{day} " in shown for day in partial - {s.split()[0] for s in steps}
    )


@pytest.mark.parametrize(
    "question",
    ["what happens if I draw an extra card?", "can I sacrifice a creature that is blocking?"],
)
def test_the_ask_page_says_the_shared_reasons_once_as_the_command_line(server, question):
    """The page repeated the reasons every answer shares under each of them (issue 55)."""
    told = run("ask", question).output
    status, page, _ = server.get("/ask?q=" + urllib.parse.quote(question))
    shown = _page_text(page)
    assert status == 200
    for line in told.splitlines():
        if line.startswith(("All answers: ", "Most answers: ")):
            assert shown.count(_said(line)) == 1, line
    reasons = [_said(line)[2:] for line in told.splitlines() if line.startswith("   · ")]
    for reason in set(reasons):
        assert shown.count(reason) >= reasons.count(reason), reason
    data = json.loads(run("ask", question, "--json").output)["reasons"]
    assert sum(map(len, data["own"])) == len(reasons)


def test_a_range_of_words_is_searched_as_words_not_a_500(server):
    """ "[a TO z]" was a 500 (issue 47: whoosh's range, with no text): read as words now."""
    for query in ("%5Ba%20TO%20z%5D", "x%3A%5B0%20TO%209%5D", "%7Ba%20TO%7D"):
        status, data, _ = server.get("/v1/search?q=" + query)
        assert status == 200 and "hits" in json.loads(data), data[:200]
    assert error_of(server.get("/v1/search?q=*"))["code"] == 2  # (refused at once)


def test_a_search_without_hits_is_answered_as_the_command_prints_it(server):
    status, data, _ = server.get("/v1/search?q=xyzzyqx")
    assert status == 200 and json.loads(data)["hits"] == []
    assert data.decode() == run("search", "xyzzyqx", "--json", code=1).output


def test_not_found_is_404_with_the_commands_error_and_the_nearest(server):
    answer = server.get("/v1/rule/702.999")
    assert answer[0] == 404
    assert answer[1].decode() == run("rule", "702.999", "--json", code=1).output
    found = error_of(answer)
    assert found["code"] == 1 and found["suggestions"] and "nearest" in found["error"]
    assert error_of(server.get("/v1/card?name=qqqqzzzz"))["code"] == 1


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/v1/search?q=x&limit=abc", 400, "limit"),
        ("/v1/search?q=x&limit=501", 400, "limit"),
        ("/v1/search?q=x&colour=red", 400, "no parameter 'colour'"),
        ("/v1/search?q=x&q=y", 400, "twice"),
        ("/v1/search", 400, "expected q"),
        ("/v1/search?q=", 400, "empty"),
        ("/v1/search?q=x&doc=cards", 400, "doc"),
        ("/v1/search?q=x&rulings=1", 400, "--rulings"),
        ("/v1/rule/702.19?parallel=en", 400, "two languages"),
        ("/v1/rule/not-a-number", 400, "not a rule number"),
        ("/v1/ask?q=" + "word%20" * 300, 400, "ask:"),
        ("/v1/diff?old=en-2025-11-14", 400, "expected new"),
        ("/v1/search?q=" + "a" * 2001, 414, "2000"),
        ("/v1/rule/702.19?edition=../../../etc/passwd", 404, "no edition"),
        ("/v1/rule/702.19?edition=%2Fetc%2Fpasswd", 404, "no edition"),
        ("/v1/rule/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", 404, "no endpoint"),
        ("/v1/rule/a%00b", 400, "control characters"),
        ("/v1/search?q=a%1B%5B31mred", 400, "control characters"),
        ("/v1/search?q=%FF%FE", 400, "not UTF-8"),
        ("/v1/rule/%C3%28", 400, "not UTF-8"),
        ("/v2/rule/702.19", 404, "no endpoint"),
        ("/v1", 404, "no endpoint"),  # (a bot's: JSON; a browser's is a page, test_pages.py)
    ],
)
def test_bad_input_is_a_4xx_with_one_line_of_json(server, path, status, says):
    answer = server.get(path)
    assert answer[0] == status, answer[1]
    found = error_of(answer)
    assert says in found["error"]
    assert found["code"] == (1 if status == 404 else 2)


def test_only_get_is_answered(server):
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/v1/rule/702.19", data=b"x" * 100_000, method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(request, timeout=30)
    assert e.value.code == 405 and e.value.headers["allow"] == "GET, HEAD"
    assert "GET" in json.loads(e.value.read())["error"]


def _status_and_error(answer: bytes) -> tuple[int, dict]:
    head, _sep, data = answer.partition(b"\r\n\r\n")
    found = json.loads(data)
    assert set(found) == {"error", "code", "suggestions"} and "\n" not in found["error"]
    return int(head.split()[1]), found


def test_hostile_requests_are_refused_in_one_line_and_the_server_keeps_serving(server):
    megabyte = b"GET /v1/search?q=" + b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    assert _status_and_error(server.raw(megabyte))[0] == 414
    headers = b"".join(b"X-%d: %s\r\n" % (i, b"v" * 1000) for i in range(100))
    big_head = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n"
    assert _status_and_error(server.raw(big_head))[0] == 431
    assert _status_and_error(server.raw(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"))[0] == 400
    raw_bytes = "GET /v1/rule/702.19é HTTP/1.1\r\nHost: x\r\n\r\n".encode("latin-1")
    assert _status_and_error(server.raw(raw_bytes))[0] == 400
    for old in (b"GET /healthz\r\n\r\n", b"GET /healthz HTTP/0.9\r\n\r\n"):  # (issue 47: 200)
        assert _status_and_error(server.raw(old)) == (
            400,
            {"error": "the request could not be read as HTTP/1.1", "code": 2, "suggestions": []},
        )
    assert server.get("/healthz")[0] == 200


def test_a_bad_request_pipelined_behind_a_good_one_leaves_its_answer(server):
    """Two requests sent at once, the second no HTTP/1.1: the first is answered, then the
    second refused, in order (the refusal closed the connection at once, and the first's
    answer was never sent: issue 53)."""
    good = b"GET /v1/rule/702.19b HTTP/1.1\r\nHost: x\r\n\r\n"
    for bad in (b"GET /healthz HTTP/0.9\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc"):
        answer = server.raw(good + good + bad)
        assert answer.count(b"HTTP/1.1 200 OK") == 2, answer[:300]
        last = answer.rindex(b"HTTP/1.1 ")
        assert answer.index(b"HTTP/1.1 200") < last and answer[last:].startswith(b"HTTP/1.1 400")
        assert b"702.19b" in answer[:last] and _status_and_error(answer[last:])[0] == 400
        refused = answer[last:].split(b"\r\n\r\n")[0].lower()  # (headers as every answer's)
        assert b"x-content-type-options: nosniff" in refused
        assert b"cache-control: no-store" in refused and b"content-security-policy: " in refused


HEADED = [
    # (a request of each kind of answer, its Accept, its status, its Cache-Control)
    ("/v1/rule/702.19b", "*/*", 200, "no-cache"),
    ("/v1/rule/702.999", "*/*", 404, "no-store"),
    ("/v1/search?q=", "*/*", 400, "no-store"),
    ("/v1/nothing", "*/*", 404, "no-store"),
    ("/rule/702.19b", "text/html", 200, "no-cache"),
    ("/rule/702.999", "text/html", 404, "no-store"),
    ("/nothing", "text/html", 404, "no-store"),
    ("/v1/rule/702.19%00", "text/html", 400, "no-store"),
    ("/go?q=702.19b", "text/html", 303, "no-cache"),
    ("/healthz", "*/*", 200, "no-cache"),
    ("/openapi.json", "*/*", 200, "no-cache"),
]


@pytest.mark.parametrize(("path", "accept", "status", "cache"), HEADED)
def test_every_answer_has_the_headers_a_public_site_needs(server, path, accept, status, cache):
    """A policy for what a page may load (nothing from elsewhere, no inline script, no
    frame), no sniffing of types, no address sent to another site, and how long to keep it:
    an error not at all, an answer asked again each time (issue 53: none of these were said)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", path, headers={"Accept": accept})
    r = conn.getresponse()
    r.read()
    conn.close()
    assert r.status == status
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "object-src 'none'" in policy and "unsafe-inline" not in policy
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers.get_all("cache-control") == [cache]


def varies(vary: str) -> set[str]:
    return {v.strip() for v in vary.split(",")}


def test_an_answer_that_depends_on_accept_says_so(server):
    """What a browser and a bot are answered differently (an unknown path, a refused request)
    says `Vary: Accept`, and each gets its own: a page, or a line of JSON (a browser's request
    with a NUL in it was answered JSON: issue 53)."""
    for path in ("/nothing/here", "/v1/rule/702.19%00", "/v1/rule/%ff"):
        kinds = set()
        for accept in ("text/html,*/*;q=0.8", "application/json"):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("GET", path, headers={"Accept": accept})
            r = conn.getresponse()
            r.read()
            conn.close()
            assert "Accept" in varies(r.headers["vary"]), path
            kinds.add(r.headers["content-type"].split(";")[0])
        assert kinds == {"text/html", "application/json"}, path
    status, _data, headers = server.get("/v1/rule/702.19b")  # JSON whatever is accepted
    assert status == 200 and "Accept" not in varies(headers.get("vary", ""))


def test_a_static_file_is_kept_a_year_only_at_its_contents_address(server):
    from crlookup.ui.serve.pages import statics

    version = statics()["site.css"].version
    assert server.get(f"/static/site.css?v={version}")[2]["cache-control"].endswith("immutable")
    for other in ("/static/site.css?v=0123456789", "/static/site.css"):  # (an old page's)
        status, data, headers = server.get(other)
        assert (status, headers["cache-control"]) == (200, "no-cache") and data


def asgi(app, path: str, accept: str) -> list[dict]:
    """What the application sends for a GET of `path` (an error it let out is raised)."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    where, _sep, query = path.partition("?")
    scope = {"type": "http", "method": "GET", "path": where, "raw_path": where.encode(),
             "query_string": query.encode(), "headers": [(b"accept", accept.encode())],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "scheme": "http",
             "http_version": "1.1", "root_path": "", "asgi": {"version": "3.0"}}  # fmt: skip
    asyncio.run(app(scope, receive, send))
    return sent


def test_an_unexpected_error_is_a_500_and_leaves_the_connection_open(built_home, monkeypatch):
    """An error no command expects is answered (a page for a browser, JSON for a bot) and goes
    no further: uvicorn closed the connection of each 500 that the application raised again
    (Starlette's handler of errors does, once it has answered: issue 53)."""
    from crlookup import api
    from crlookup.ui.serve.app import Settings, create

    def broken(*_args, **_kwargs):
        raise RuntimeError("a bug")

    switching = sys.getswitchinterval()
    try:
        app = create(Settings(str(built_home)))
    finally:
        sys.setswitchinterval(switching)
    monkeypatch.setattr(api.Library, "rule", broken)
    for path, accept, kind, says in [
        ("/v1/rule/702.19b", "*/*", b"application/json", b'"internal error: RuntimeError"'),
        ("/rule/702.19b", "text/html", b"text/html", b"internal error: RuntimeError"),
    ]:
        sent = asgi(app, path, accept)  # (nothing raised)
        start = dict(sent[0]["headers"])
        assert sent[0]["status"] == 500 and start[b"content-type"].startswith(kind)
        assert says in b"".join(m.get("body", b"") for m in sent[1:])
        assert (
            "Accept" in varies(start[b"vary"].decode()) and start[b"cache-control"] == b"no-store"
        )


def test_a_library_that_cannot_answer_is_not_called_busy():
    """A 503's page says why: too many at once ("Busy"), or a library that cannot answer for
    now (damaged, or being built: its page was titled "Busy" too: issue 53)."""
    from crlookup.core.errors import Busy, LibraryDamaged
    from crlookup.ui.serve.app import refusal
    from crlookup.ui.serve.pages import Pages

    site = Pages()
    for error, heading in [
        (Busy("too many questions at once"), "Busy: try again in a moment"),
        (LibraryDamaged("library.sqlite", "/x", "damaged"), "The library cannot answer for now"),
    ]:
        told = refusal(error)
        page = site.failed(told.status, told.told.message, [], told.headers, why=told.why)
        assert told.status == 503 and f"<h1>{heading}</h1>" in page.body.decode()


def test_a_trailing_slash_is_read_as_without_it(server):
    """`/v1/rule/702.19b/` was a 307 with an empty body (issue 47)."""
    assert server.get("/v1/rule/702.19b/")[:2] == server.get("/v1/rule/702.19b")[:2]
    assert server.get("/v1/search/?q=trample")[0] == 200
    assert server.get("/healthz/")[0] == 200
    status, _data, _headers = answer = server.get("/v1/nothing/")
    assert status == 404 and "no endpoint /v1/nothing" in error_of(answer)["error"]


def test_a_slow_client_is_answered_408_and_holds_nothing(server):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as slow:
        slow.sendall(b"GET /v1/rule/702.19 HTTP/1.1\r\nHo")  # and then nothing (a slow loris)
        assert server.get("/v1/rule/702.19")[0] == 200  # meanwhile, others are answered
        answer = b""
        while chunk := slow.recv(65536):
            answer += chunk
    assert _status_and_error(answer)[0] == 408
    assert time.monotonic() - started < 8  # (--read-timeout 1 here)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as idle:
        assert idle.recv(65536) == b""  # connected, and nothing sent: closed without a word
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as kept:
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while chunk := kept.recv(65536):
            answer += chunk
        # kept alive, then idle: closed, without a stray 408 that a client would misread
        assert answer.startswith(b"HTTP/1.1 200") and answer.count(b"HTTP/1.1 ") == 1


def test_closed_connections_leave_the_server_serving(server):
    for path in ("/v1/ask?q=Can%20a%20creature%20with%20defender%20attack%3F", "/v1/history/702.2"):
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        # closed before the answer: the server answers the next ones all the same
    s = socket.create_connection(("127.0.0.1", server.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.sendall(b"GET /v1/editions HTTP/1.1\r\nHost: x\r\n\r\n")
    s.close()  # reset, not closed
    assert server.get("/v1/rule/702.19")[0] == 200
    assert server.get("/v1/ask?q=Can%20a%20creature%20with%20defender%20attack%3F")[0] == 200


def test_a_lookup_is_not_held_up_by_a_slow_command(server):
    done: dict[str, float] = {}

    def fetch(name: str, path: str) -> None:
        assert server.get(path)[0] == 200
        done[name] = time.monotonic()

    slow = threading.Thread(
        target=fetch, args=("diff", "/v1/diff?old=en-2003-03-15&new=en-2026-08-07")
    )
    slow.start()
    time.sleep(0.2)  # the diff under way (it takes seconds)
    fetch("rule", "/v1/rule/702.19b")
    slow.join()
    assert done["rule"] < done["diff"]


def test_health_and_schema(server, built_home):
    status, data, _ = server.get("/healthz")
    health = json.loads(data)
    assert status == 200 and health["ok"] and health["editions"] > 120
    # the library's id (its folder's name in the home), not where the home is (issue 53)
    assert (built_home / health["library"]).is_dir() and str(built_home) not in data.decode()
    schema = json.loads(server.get("/openapi.json")[1])
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    for endpoint in ("rule/{number}", "search", "define/{term}", "refs/{number}", "diff",
                     "history/{number}", "card", "ask", "editions", "lookup"):  # fmt: skip
        assert f"/v1/{endpoint}" in paths, endpoint
    search = {p["name"]: p for p in paths["/v1/search"]["get"]["parameters"]}
    assert search["q"]["required"] and search["q"]["schema"]["maxLength"] == 2000
    assert search["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 500,
                                         "default": 10}  # fmt: skip
    assert search["doc"]["schema"]["enum"] == ["cr", "mtr", "ipg", "jar", "all"]
    assert "as_json" not in search and "pager" not in search  # how the CLI shows: not here
    assert paths["/v1/rule/{number}"]["get"]["responses"]["404"]["content"]


def test_serve_says_how_to_install_what_it_lacks(monkeypatch):
    from crlookup.ui import serve

    monkeypatch.setattr(serve, "missing", lambda: ["starlette", "uvicorn"])
    found = run("serve", code=1)
    assert 'pip install "crlookup[serve]"' in found.error and "starlette" in found.error


def test_serve_on_a_port_in_use_is_one_line(server):
    found = run("serve", "--port", str(server.port), code=2)
    assert "Traceback" not in found.error and str(server.port) in found.error


def test_sigterm_under_load_stops_within_the_graceful_timeout(built_home):
    """SIGTERM while the costliest searches, a question and a diff are in flight: the server is
    gone within its graceful timeout (5 s) and a second; what could be answered in time was,
    the rest closed cleanly (issue 47: 57 s, a blocked worker, and the question unanswered)."""
    server = Server(built_home)
    answers: dict[str, object] = {}

    def fetch(name: str, path: str) -> None:
        try:
            answers[name] = server.get(path, timeout=30)[0]
        except (OSError, http.client.HTTPException) as e:  # (closed: no answer)
            answers[name] = type(e).__name__

    worst = "/v1/search?q=th*+in*+st*&all_editions=true&limit=500"
    asked = {
        "search": worst,
        "waiting search": worst,
        "ask": "/v1/ask?q=Can%20I%20sacrifice%20a%20creature%20that%20is%20blocking%3F",
        "diff": "/v1/diff?old=en-2003-03-15&new=en-2026-08-07",
    }
    assert server.get(asked["ask"])[0] == 200  # (the model loaded: the next takes a second)
    clients = [threading.Thread(target=fetch, args=item) for item in asked.items()]
    for t in clients:
        t.start()
    time.sleep(1)
    started = time.monotonic()
    server.process.terminate()
    server.process.wait(30)
    stopped = time.monotonic() - started
    for t in clients:
        t.join()
    assert stopped < 5 + 1, (stopped, answers)
    assert answers["ask"] == 200, answers
    # the search that came first is answered (by its deadline, 5 s: 400); the one waiting for
    # the search thread may be closed (which came first, the test cannot choose)
    assert {answers["search"], answers["waiting search"]} & {200, 400}, answers
    assert all(a in (200, 400, 503) or isinstance(a, str) for a in answers.values()), answers
    assert "Traceback" not in server.log.read_text()


# ------------------------------------------------------------------ a rebuild, and the limits


def test_a_rebuild_is_taken_up_without_a_failed_request(small_data, monkeypatch):
    """scripts/stress.py's serve round, CI-sized (issue 47: on the full library, the switch to
    the new library was not seen within 400 s of a loaded machine): two rebuilds one after the
    other under load, each library answered from soon after its rebuild, no request failed."""
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    stress = importlib.import_module("stress")
    run("rule", "702.2")  # the small library built
    home = os.environ["CRLOOKUP_HOME"]
    served = stress.serve_round(home, workers=2, connections=4, rebuilds=2, patience=30)
    first, *rebuilt = served.libraries
    assert served.rebuilds == [0, 0] and served.load.failed == [], served.summary()
    assert None not in served.switched, served.summary()  # each new library answered
    assert len(set(served.libraries)) == 3 and set(rebuilt) <= set(served.load.libraries)
    assert not os.path.exists(os.path.join(home, first))  # the one it opened first, removed
    assert served.load.kinds["rule"] and served.load.kinds["ask"]  # (every kind was asked)


def test_the_soak_round_reads_the_servers_memory_as_it_answers(small_data, monkeypatch):
    """scripts/stress.py's soak (issue 53), CI-sized: requests of every kind with words never
    seen before, none failing, the server's memory read after each tenth of them (the full
    library's run, 40,000 requests: docs/speed.md)."""
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    stress = importlib.import_module("stress")
    run("rule", "702.2")  # the small library built
    soaked = stress.soak_round(os.environ["CRLOOKUP_HOME"], requests=300, connections=2)
    assert soaked.load.failed == [] and len(soaked.load.latencies) == 300, soaked.summary()
    assert len(soaked.memory) == stress.SOAK_SAMPLES and all(m > 20 for _n, m in soaked.memory)
    kinds = set(soaked.load.kinds)
    assert {"search", "card", "rule", "define", "lookup", "ask"} <= kinds, kinds


def test_your_manifest_damaged_under_a_server_leaves_it_answering(small_home):
    """Issue 47, the home fuzz's remaining class: sources/manifest.json damaged while serving.
    The server answers from its library as before (it never reads the manifest); one started
    on the damaged manifest says so in one line, makes it again, and answers the same."""
    run("ingest", str(OFFICIAL / "MagicCompRules-2003-03-15.txt"), "--id", "mine-2003")
    manifest = small_home / "sources" / "manifest.json"
    path = "/v1/rule/100.1?edition=mine-2003"
    server = Server(small_home)
    try:
        before = server.get(path)
        manifest.write_bytes(b'{"sources": [{"file": "MagicComp')
        after, health = server.get(path), server.get("/healthz")
    finally:
        server.stop()
    assert before[0] == after[0] == health[0] == 200 and after[1] == before[1]
    again = Server(small_home)
    try:
        status, data, _headers = again.get(path)
    finally:
        again.stop()
    assert (status, data) == (200, before[1])
    said = [line for line in again.log.read_text().splitlines() if line.startswith("crlookup:")]
    assert len(said) == 2 and said[1].startswith("crlookup: serving "), said  # one line before
    assert said[0].startswith(
        "crlookup: library damaged (sources/manifest.json: not a valid source manifest ("
    ), said
    assert json.loads(manifest.read_text(encoding="utf-8"))["sources"][0]["editions"] == [
        "mine-2003"
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc: Linux")
def test_each_worker_runs_the_model_on_its_share_of_the_cores(small_home, monkeypatch):
    """The embedding model's OpenMP threads: a worker per core runs one each (a thread per core
    in each worker spun on the others' cores: questions 10-34/s -> 51-89/s on two workers),
    unless OMP_NUM_THREADS says otherwise."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)  # (the suite's own: conftest)
    server = Server(small_home, "--workers", "2", "--rate-limit", "0")
    try:
        pid = server.process.pid
        workers = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        found = set()
        for worker in workers:
            environ = Path(f"/proc/{worker}/environ").read_bytes().split(b"\0")
            found |= {v.decode() for v in environ if v.startswith(b"OMP_NUM_THREADS=")}
    finally:
        server.stop()
    assert found == {f"OMP_NUM_THREADS={max(1, (os.cpu_count() or 1) // 2)}"}, workers


def test_a_rate_limit_answers_429_with_when_to_try_again(small_data, tmp_path):
    run("rule", "702.2")
    server = Server(tmp_path / "home", "--rate-limit", "5")
    try:
        statuses = [server.get("/v1/rule/702.2") for _ in range(8)]
    finally:
        server.stop()
    assert [s for s, _, _ in statuses[:5]] == [200] * 5
    status, _data, headers = statuses[-1]
    assert status == 429 and int(headers["retry-after"]) >= 1
    assert "requests a minute" in error_of(statuses[-1])["error"]


def test_x_forwarded_for_names_the_client_only_from_a_trusted_proxy(small_data, tmp_path):
    """A forged X-Forwarded-For is a new client only if its sender is a proxy the server
    trusts (issue 47: loopback always was; now `--forwarded-allow-ips`, loopback by default)."""
    run("rule", "702.2")

    def statuses(*options: str) -> list[int]:
        server = Server(tmp_path / "home", "--rate-limit", "2", *options)
        try:
            out = []
            for i in range(4):
                request = urllib.request.Request(
                    f"http://127.0.0.1:{server.port}/v1/rule/702.2",
                    headers={"X-Forwarded-For": f"203.0.113.{i}"},
                )
                try:
                    with urllib.request.urlopen(request, timeout=30) as r:
                        out.append(r.status)
                except urllib.error.HTTPError as e:
                    out.append(e.code)
            return out
        finally:
            server.stop()

    assert statuses() == [200] * 4  # four clients, through the proxy on this machine
    assert statuses("--forwarded-allow-ips", "none") == [200, 200, 429, 429]  # one: the peer


def test_the_rate_limiters_table_stays_bounded_and_keeps_its_clients(monkeypatch):
    """Past 100,000 client addresses (IPv6, a forged X-Forwarded-For) the table was rebuilt on
    every request, for good (issue 47): it keeps at most CLIENTS, forgets the least recently
    seen first and any unseen for a minute (a full bucket again); a client pushed out by more
    than CLIENTS others within the minute starts afresh (the price of the bound)."""
    from crlookup.ui.serve import app

    monkeypatch.setattr(app, "CLIENTS", 1000)
    clock = [1000.0]
    monkeypatch.setattr(app.time, "monotonic", lambda: clock[0])
    guard = app.Guard(None, rate=5)
    assert [guard._allowed("limited") for _ in range(6)] == [True] * 5 + [False]
    for i in range(5000):  # many addresses, each once, within the minute
        guard._allowed(f"2001:db8::{i:x}")
        assert len(guard.buckets) <= 1000
    assert "limited" not in guard.buckets  # the least recently seen went first
    assert [guard._allowed("limited") for _ in range(6)] == [True] * 5 + [False]
    for i in range(20):  # after a minute unseen: forgotten
        guard._allowed(f"10.0.0.{i}")
    clock[0] += 61
    guard._allowed("again")
    assert list(guard.buckets) == ["again"]


def test_slow_commands_wait_their_turn_and_beyond_the_queue_are_refused():
    from crlookup.core.errors import Busy
    from crlookup.ui.serve.app import Pool, refusal

    slow = Pool("slow", limit=1, queue=1, deadline=30)
    release = threading.Event()

    async def main():
        first = asyncio.ensure_future(slow.run(release.wait))
        second = asyncio.ensure_future(slow.run(lambda: "second"))
        await asyncio.sleep(0.05)
        with pytest.raises(Busy) as busy:
            await slow.run(lambda: "third")
        release.set()
        return await first, await second, busy.value

    first, second, busy = asyncio.run(main())
    assert (first, second) == (True, "second")
    refused = refusal(busy)
    assert refused.status == 503 and refused.headers == {"Retry-After": "1"}


def test_an_answer_past_its_deadline_is_503_and_its_thread_counts_till_it_ends():
    from crlookup.core.errors import Busy
    from crlookup.ui.serve.app import Pool

    pool = Pool("search", limit=1, queue=0, deadline=0.1)
    release = threading.Event()

    async def main():
        started = time.monotonic()
        with pytest.raises(Busy, match=r"no answer within 0\.1 s"):
            await pool.run(release.wait)
        took = time.monotonic() - started
        with pytest.raises(Busy, match="too many"):  # (the late one still runs)
            await pool.run(lambda: "next")
        release.set()
        await asyncio.sleep(0.05)
        assert pool.waiting == 0
        return took, await pool.run(lambda: "next")

    took, after = asyncio.run(main())
    assert took < 1 and after == "next" and pool.waiting == 0
    pool.shutdown()


def test_the_costliest_search_holds_up_no_lookup(server):
    """A client asking for the costliest search the limits let through (stopped at its 5 s
    deadline: 400) beside rule lookups one after another (issue 47: `q=*` on the event loop
    held every lookup of its worker for a minute). The p99 target, 100 ms, is scripts/bench.py's
    (two such clients; this test shares the machine with the suite): the bound here fails by
    seconds. A second such search waits its turn or is refused (503): the Pool's tests."""
    from crlookup.core.errors import SEARCH_SECONDS

    worst = "/v1/search?q=th*+in*+st*&all_editions=true&limit=500"
    answers: list[tuple[int, float, str]] = []

    def ask_worst() -> None:
        started = time.monotonic()
        status, data, _headers = server.get(worst, timeout=30)
        answers.append((status, time.monotonic() - started, json.loads(data).get("error", "")))

    costly = [threading.Thread(target=ask_worst)]
    for t in costly:
        t.start()
    time.sleep(0.5)
    latencies = []
    while any(t.is_alive() for t in costly):
        started = time.monotonic()
        assert server.get("/v1/rule/702.19b")[0] == 200
        latencies.append(time.monotonic() - started)
    for t in costly:
        t.join()
    latencies.sort()
    assert len(latencies) > 20
    assert latencies[int(len(latencies) * 0.99) - 1] < 0.5, latencies[-5:]
    # it ended within the search's deadline: answered, or stopped there (400)
    assert all(took < SEARCH_SECONDS + 1 for _status, took, _error in answers), answers
    assert {status for status, _took, _error in answers} <= {200, 400}, answers


# ------------------------------------------------------------------ any input, read


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=200), st.binary(max_size=200))
def test_the_guard_reads_any_bytes_without_failing(path, query):
    from crlookup.ui.serve.app import Guard

    scope = {"type": "http", "method": "GET", "raw_path": b"/" + path, "path": "/",
             "query_string": query, "client": ("127.0.0.1", 1)}  # fmt: skip
    refused = Guard(None)._check(scope)
    if refused is None:  # let in: UTF-8 without control characters, escapes and all
        text = urllib.parse.unquote_to_bytes(b"/" + path).decode("utf-8")
        assert not any(ord(c) < 32 for c in text)
    else:
        assert refused.status == 400 and "\n" not in refused.told.message


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q", "limit", "doc", "cards", "x", ""]), st.text())))
def test_an_endpoint_reads_any_query_as_values_or_bad_input(query):
    from crlookup.core.errors import BadInput
    from crlookup.ui.serve.endpoints import ENDPOINTS

    search = next(e for e in ENDPOINTS if e.command == "search")
    try:
        values = search.read({}, query)
    except BadInput as e:
        assert "\n" not in str(e)
    else:
        assert 1 <= values["limit"] <= 500 and values["document"] in {
            "cr",
            "mtr",
            "ipg",
            "jar",
            "all",
        }
        assert isinstance(values["cards"], bool) and values["words"].strip()
