"""`crlookup update` against a real HTTP server on 127.0.0.1: page, link, download, ingest.

The server is `http.server` in a thread, serving a temporary folder (and a few handlers that
misbehave on purpose); it is shut down when each test ends. The rules text it serves is a real
official edition, read from data/official-cr-archive.tar.xz. Libraries are built from the
`small_data` fixture (one section of 2010), so each build takes a second or two.
"""

from __future__ import annotations

import json
import socket
import sys
import tarfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import one_line, run

from crlookup.builder import update
from crlookup.core import paths

DATA = Path(__file__).resolve().parent.parent / "data"
NEW = "MagicCompRules-2026-08-07.txt"  # en-2026-08-07 (the newest): not in the small library
SAME = "MagicCompRules-2010-07-16.txt"  # en-2010-07-16: the small library's edition
PAGE = """<!doctype html><html><head><title>Magic: The Gathering Rules</title></head><body>
<a href="/en/news">News</a> <a href="robots.txt">robots</a>
<a href="downloads/MagicCompRules%2020260807.pdf">PDF</a>
<a href="downloads/MagicCompRules%2020260807.txt">TXT</a>
</body></html>
"""


@pytest.fixture(autouse=True)
def crlookup_home(tmp_path, monkeypatch):
    """Replaces conftest's: these tests build small libraries of their own (`small_data`),
    never the shipped one."""
    monkeypatch.setenv("CRLOOKUP_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CRLOOKUP_LANG", raising=False)
    monkeypatch.delenv(update.PAGE_ENV, raising=False)


@pytest.fixture(scope="module")
def official() -> dict[str, bytes]:
    with tarfile.open(DATA / "official-cr-archive.tar.xz") as archive:
        return {name: archive.extractfile(name).read() for name in (SAME, NEW)}


class Handler(SimpleHTTPRequestHandler):
    """Files of the served folder, and three that misbehave: /cut/ closes the connection
    halfway through the body it announced, /stream/ sends its body without a Content-Length,
    /silent/ says nothing for a second."""

    body = b""

    def do_GET(self):
        if self.path.startswith("/cut/"):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(self.body)))
            self.end_headers()
            self.wfile.write(self.body[: len(self.body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if self.path.startswith("/silent/"):
            time.sleep(1)  # longer than the tests' TIMEOUT: no answer in time
            return
        if self.path.startswith("/stream/"):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            for i in range(0, len(self.body), 65536):
                self.wfile.write(self.body[i : i + 65536])
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, *args):  # quiet
        pass


class Quiet(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a client that hung up early: expected
        pass


@pytest.fixture
def server(tmp_path, official, small_data, small_home):
    """A rules page at <url>/en/rules linking to the newest text; returns the base URL.
    The served folder is `server.folder` (tests add files to it)."""
    folder = tmp_path / "www"
    (folder / "en" / "downloads").mkdir(parents=True)
    (folder / "en" / "rules").write_text(PAGE, encoding="utf-8")
    (folder / "en" / "downloads" / "MagicCompRules 20260807.txt").write_bytes(official[NEW])

    class Serving(Handler):
        body = official[NEW]

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(folder), **kwargs)

    httpd = Quiet(("127.0.0.1", 0), Serving)
    httpd.timeout = 5
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield Server(url, folder)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


class Server:
    def __init__(self, url: str, folder: Path):
        self.url, self.folder = url, folder

    def page(self, monkeypatch, path="/en/rules"):
        monkeypatch.setenv(update.PAGE_ENV, self.url + path)


def home() -> Path:
    return Path(paths.home())


def state() -> tuple:
    """What an update must not change when it fails: the library in use and the user's sources."""
    h = home()
    sources = sorted(p.name for p in (h / "sources").iterdir()) if (h / "sources").exists() else []
    return (h / "current").read_text(encoding="utf-8"), sources


def leftovers() -> list[str]:
    """Partial downloads anywhere under the home."""
    return [
        str(p) for p in home().rglob("*") if p.name.startswith(".partial") or p.suffix == ".part"
    ]


def editions() -> list[str]:
    return [e["id"] for e in json.loads(run("editions", "--json").output)]


# --------------------------------------------------------------------------- finding the link


def test_the_link_to_the_rules_text():
    base = "https://magic.wizards.com/en/rules"
    page = (
        '<a href="/robots.txt">x</a><a href=\'https://media.wizards.com/2025/downloads/'
        'MagicCompRules%2020250404.txt\'>TXT</a><a href="MagicCompRules.pdf">PDF</a>'
    )
    assert update.rules_text_link(page, base) == (
        "https://media.wizards.com/2025/downloads/MagicCompRules%2020250404.txt"
    )
    assert update.rules_text_link('<a href="../rules.TXT?x=1">', base) == (
        "https://magic.wizards.com/rules.TXT?x=1"
    )
    assert update.rules_text_link('<a href="MagicCompRules.pdf">', base) is None
    assert update.rules_text_link('<a href="file:///etc/MagicCompRules.txt">', base) is None


# --------------------------------------------------------------------------- updating


def test_update_from_the_rules_page_then_again(server, monkeypatch):
    server.page(monkeypatch)
    out = run("update").output
    assert (
        out == "en-2026-08-07: 2837 rules added, 301 changed, 5 removed (against en-2010-07-16)\n"
    )
    assert "en-2026-08-07" in editions()
    assert (home() / "sources" / "MagicCompRules-20260807.txt").read_bytes() == (
        server.folder / "en" / "downloads" / "MagicCompRules 20260807.txt"
    ).read_bytes()
    assert not (home() / update.DOWNLOADS).exists() and not leftovers()
    # again: nothing new, nothing written, nothing rebuilt
    before = state()
    again = run("update")
    assert again.output == "already up to date: en-2026-08-07\n"
    assert again.error == ""
    assert state() == before


def test_update_json(server, monkeypatch):
    server.page(monkeypatch)
    data = json.loads(run("update", "--json").output)
    assert data["edition"] == "en-2026-08-07" and data["status"] == "added"
    assert data["source"] == server.url + "/en/downloads/MagicCompRules%2020260807.txt"
    assert data["against"] == "en-2010-07-16"
    assert data["rules"] == {"added": 2837, "changed": 301, "removed": 5}
    assert sum(data["kinds"].values()) > 2837
    again = json.loads(run("update", "--json").output)
    assert again["status"] == "up to date" and again["rules"] is None


def test_update_from_a_url_skips_the_page(server, monkeypatch):
    monkeypatch.setenv(update.PAGE_ENV, server.url + "/no/such/page")
    url = server.url + "/en/downloads/MagicCompRules%2020260807.txt"
    assert run("update", "--from", url).output.startswith("en-2026-08-07: 2837 rules added")
    assert "en-2026-08-07" in editions()


def test_update_from_a_file(small_data, small_home, official, tmp_path, monkeypatch):
    monkeypatch.setenv(update.PAGE_ENV, "http://127.0.0.1:9/never-read")
    path = tmp_path / NEW
    path.write_bytes(official[NEW])
    assert run("update", "--from", str(path)).output.startswith("en-2026-08-07: 2837 rules added")
    assert run("update", "--from", str(path)).output == "already up to date: en-2026-08-07\n"


def test_an_edition_the_library_has_is_not_added(server, official, monkeypatch):
    (server.folder / SAME).write_bytes(official[SAME])
    run("editions")
    before = state()
    assert run("update", "--from", f"{server.url}/{SAME}").output == (
        "already up to date: en-2010-07-16\n"
    )
    assert state() == before and not leftovers()


# --------------------------------------------------------------------------- failures


@pytest.fixture
def built(small_home):
    """The small library, built; returns its state before the failing update."""
    return state()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_server(built, monkeypatch):
    page = f"http://127.0.0.1:{closed_port()}/en/rules"
    monkeypatch.setenv(update.PAGE_ENV, page)
    error = one_line(run("update", code=1).error)
    assert error == f"cannot download {page}: Connection refused"
    assert state() == built and not leftovers()


def test_a_server_that_does_not_answer(server, built, monkeypatch):
    monkeypatch.setattr(update, "TIMEOUT", 0.2)
    server.page(monkeypatch, "/silent/en/rules")
    error = one_line(run("update", code=1).error)
    assert error == f"cannot download {server.url}/silent/en/rules: no answer in 0.2 s"
    assert state() == built


def test_a_page_without_the_link(server, built, monkeypatch):
    (server.folder / "changed").write_text('<a href="MagicCompRules.pdf">PDF</a>', encoding="utf-8")
    server.page(monkeypatch, "/changed")
    error = one_line(run("update", code=1).error)
    assert error == (
        f"the rules page has changed: no link to the rules text (.txt) on {server.url}/changed"
    )
    assert state() == built


def test_a_missing_page_or_file(server, built, monkeypatch):
    server.page(monkeypatch, "/gone")
    error = one_line(run("update", code=1).error)
    assert error == f"cannot download {server.url}/gone: the server answered 404 File not found"
    error = one_line(run("update", "--from", f"{server.url}/gone.txt", code=1).error)
    assert error.endswith("404 File not found")
    assert state() == built and not leftovers()


def test_a_download_that_is_not_the_rules(server, built, monkeypatch):
    (server.folder / "notes.txt").write_bytes(b"just a shopping list\n")
    error = one_line(run("update", "--from", f"{server.url}/notes.txt", code=1).error)
    assert error.startswith(
        f"{server.url}/notes.txt is not a rules text: notes.txt:1: expected a "
        "Comprehensive Rules document"
    )
    assert state() == built and not leftovers()
    assert editions() == ["en-2010-07-16"]


def test_a_file_that_is_not_the_rules(built, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"just a shopping list\n")
    error = one_line(run("update", "--from", str(notes), code=2).error)
    assert error.startswith("notes.txt:1: expected a Comprehensive Rules document")
    po = tmp_path / "rules.po"
    po.write_bytes((DATA / "cr-2013-11-01-pl.po").read_bytes())
    error = one_line(run("update", "--from", str(po), code=2).error)
    assert error == (
        f"{po} is not the rules text Wizards publishes (it reads as the po format); "
        "add it with `crlookup ingest`"
    )
    error = one_line(run("update", "--from", str(tmp_path / "nope.txt"), code=2).error)
    assert error == f"{tmp_path / 'nope.txt'}: No such file or directory"
    assert state() == built and editions() == ["en-2010-07-16"]


def test_an_interrupted_download(server, built, monkeypatch, official):
    url = f"{server.url}/cut/MagicCompRules.txt"
    error = one_line(run("update", "--from", url, code=1).error)
    size = len(official[NEW])
    assert error == (
        f"cannot download {url}: the connection closed after {size // 2} of {size} bytes"
    )
    assert state() == built and not leftovers()
    assert not (home() / update.DOWNLOADS).exists()


def test_a_rules_text_cut_short_is_refused_and_the_whole_one_then_added(
    server, built, official, tmp_path
):
    """Issue 32: a server that sends the first 400,000 bytes of the text as the whole file."""
    (server.folder / "cut.txt").write_bytes(official[NEW][:400_000])
    url = f"{server.url}/cut.txt"
    error = one_line(run("update", "--from", url, code=1).error)
    assert error == (
        f"{url}: the rules text is cut short (it ends in rule 614.12, line 3102): expected the "
        "whole text, through the glossary and the credits"
    )
    assert state() == built and editions() == ["en-2010-07-16"]
    whole = tmp_path / "whole.txt"
    whole.write_bytes(official[NEW])
    assert run("update", "--from", str(whole)).output.startswith("en-2026-08-07: 2837 rules")


def test_a_glossary_cut_short_is_refused(built, official, tmp_path):
    text = official[NEW]
    cut = tmp_path / "cut.txt"
    cut.write_bytes(text[: text.rindex(b"\nCredits") - 5000])
    error = one_line(run("update", "--from", str(cut), code=2).error)
    assert error.startswith(f"{cut}: the rules text is cut short (its glossary ends without")


def test_a_partial_edition_of_yours_is_replaced_by_the_whole_text(built, official, tmp_path):
    """A cut text added with `ingest` (it reads what there is: a partial edition) is replaced
    by `update` with the whole one, rather than found "already up to date"."""
    cut = tmp_path / "cut.txt"
    cut.write_bytes(official[NEW][:400_000])
    run("ingest", str(cut))
    assert "(partial)" in run("editions").output
    whole = tmp_path / "MagicCompRules.txt"
    whole.write_bytes(official[NEW])
    assert run("update", "--from", str(whole)).output.startswith("en-2026-08-07: 2837 rules")
    found = {e["id"]: e for e in json.loads(run("editions", "--json").output)}
    assert not found["en-2026-08-07"]["partial"]
    assert sorted(p.name for p in (home() / "sources").iterdir()) == [
        "MagicCompRules.txt",
        "manifest.json",
    ]


def test_a_download_too_large(server, built, monkeypatch):
    monkeypatch.setattr(update, "MAX_FILE", 100_000)
    for path in (
        "/en/downloads/MagicCompRules%2020260807.txt",  # says its size: refused at once
        "/stream/MagicCompRules.txt",
    ):  # does not: stopped after 100 kB
        url = server.url + path
        error = one_line(run("update", "--from", url, code=1).error)
        assert error == f"cannot download {url}: larger than 0.1 MB"
    assert state() == built and not leftovers()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGALRM")
def test_ctrl_c_during_a_download_leaves_nothing(server, built, monkeypatch):
    """A Ctrl-C (KeyboardInterrupt) while the body is arriving: the partial file goes."""
    import signal

    class Slow(Handler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            self.wfile.write(b"x" * 1000)
            self.wfile.flush()
            time.sleep(2)

    httpd = Quiet(("127.0.0.1", 0), Slow)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()

    def interrupt(*_):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(KeyboardInterrupt):
            update.update(f"http://127.0.0.1:{httpd.server_address[1]}/MagicCompRules.txt")
        assert (home() / update.DOWNLOADS).exists() is False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        httpd.shutdown()
        httpd.server_close()
    assert state() == built and not leftovers()
