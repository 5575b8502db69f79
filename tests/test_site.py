"""`crlookup site` (issue 56): serve's pages written once as a static site, on a small library
of real sources (two official CR editions of 2003, the IPG of 2024 from its JSON, the JAR of
2019 from its Markdown), built once for the module; the folder checked (every entry at serve's
path, no broken link, the manifest and its icons), then served by a plain static file server
and used in Debian's Chromium: "Keep offline", then with the network off a cross-reference, a
search, an IPG entry, back and reload; a newer site replacing the kept copy; no request off
the site's origin; no JavaScript."""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from conftest import (
    CRLOOKUP,
    DATA,
    ROOT,
    SMALL_ARCHIVE,
    SMALL_CARDS,
    examples,
    free_port,
    made_once,
    one_line,
    run,
    write_archive,
    write_small_data,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from crlookup.ui.serve import pages as web
from crlookup.ui.serve.pages import label
from crlookup.ui.site import addresses, offline

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

TOURNAMENT = ("ipg-2024-09-23", "jar-2019-05-03")
PHONE = {"width": 390, "height": 844}
SHOTS = ROOT / "docs" / "images"  # the screenshots docs/site.md shows (--update-golden)


# ------------------------------------------------------------------ addresses and packs

# A name's characters, but "%": an address is read quoted or not ("IPG 2.1", "IPG%202.1"), so
# "%20" in a name is read as a space (no entry's or card's name holds "%"; a slash of one, its
# file's "%2F", is tested below)
segment = st.text(
    st.characters(codec="utf-8", exclude_characters="/\\%\x00", exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=12,
).filter(lambda s: s not in (".", ".."))


@settings(max_examples=examples(60))
@given(st.lists(segment, min_size=1, max_size=4))
def test_an_address_and_its_file_are_each_others(parts):
    address = addresses.site_path("/".join(parts)) + "/"
    assert addresses.site_path(address) == address  # quoted once, however often asked
    assert addresses.site_path(urllib.parse.unquote(address)) == address
    file = addresses.file_of(address)
    assert file == "/".join(parts) + "/index.html"
    assert addresses.address_of(file) == address


def test_addresses_as_the_links_give_them():
    assert addresses.site_path("/rule/IPG 2.1") == "rule/IPG%202.1"
    assert addresses.site_path("/rule/IPG%202.1") == "rule/IPG%202.1"
    assert addresses.site_path("/en+zh/rule/702.19b") == "en+zh/rule/702.19b"
    assert addresses.file_of("define/first%20strike/") == "define/first strike/index.html"
    slashed = addresses.site_path("/card/Fire%20%2F%2F%20Ice") + "/"  # (a link's, quoted)
    assert slashed == "card/Fire%20%252F%252F%20Ice/"
    assert addresses.file_of(slashed) == "card/Fire %2F%2F Ice/index.html"
    assert addresses.address_of(addresses.file_of(slashed)) == slashed
    assert addresses.address_of("index.html") == ""
    assert addresses.address_of("static/site.1a2b3c4d5e.css") == "static/site.1a2b3c4d5e.css"


@settings(max_examples=examples(30))
@given(st.dictionaries(st.lists(segment, min_size=1, max_size=3).map("/".join), st.binary(),
                       min_size=1, max_size=6))  # fmt: skip
def test_a_pack_holds_each_file_under_its_address(tmp_path_factory, files):
    folder = tmp_path_factory.mktemp("pack")
    paths = []
    for i, (name, data) in enumerate(sorted(files.items())):
        path = f"{i}/{name}/index.html" if i % 2 else f"{i}/{name}"  # pages and files
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
        paths.append(path)
    unpacked = offline.unpack(offline.pack(str(folder), paths))
    assert unpacked == {addresses.address_of(p): (folder / p).read_bytes() for p in paths}


# ------------------------------------------------------------------ the site of a small library


@pytest.fixture(scope="session")
def small_site(request, tmp_path_factory):
    """A small library of real sources and its site (`crlookup site --json`), made once per
    session (the first test process to ask makes it, in the session's shared folder): (home,
    the site's folder, what --json said). Read only: a test that changes the site copies it."""

    def make():
        base = tmp_path_factory.getbasetemp()
        base = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "small-site"
        base.mkdir()
        data = write_small_data(base / "data")
        write_archive(data / "official-cr-archive.tar.xz", SMALL_ARCHIVE[:2])
        shipped = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
        manifest = json.loads((data / "manifest.json").read_text(encoding="utf-8"))
        manifest["sources"].insert(0, {"file": "official-cr-archive.tar.xz", "format": "archive"})
        for name in TOURNAMENT:
            shutil.copytree(DATA / "tournament" / name, data / "tournament" / name)
            manifest["sources"] += [s for s in shipped["sources"] if s["file"].startswith(
                f"tournament/{name}")]  # fmt: skip
        (data / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        with pytest.MonkeyPatch.context() as env:
            env.setenv("CRLOOKUP_DATA", str(data))
            env.setenv("CRLOOKUP_HOME", str(base / "home"))
            said = json.loads(run("site", str(base / "public"), "--cards", "--json").output)
        return base / "home", base / "public", said

    return made_once(request.config, "small-site", make)


@pytest.fixture
def site_env(small_site, monkeypatch):
    """The small library made the one in use (its data and its home), for the commands a test
    runs; the site's folder."""
    home, folder, _said = small_site
    monkeypatch.setenv("CRLOOKUP_DATA", str(home.parent / "data"))
    monkeypatch.setenv("CRLOOKUP_HOME", str(home))
    return folder


def _page(folder: Path, address: str) -> str:
    return (folder / addresses.file_of(address)).read_text(encoding="utf-8")


def test_every_entry_is_a_page_at_serves_path(small_site, site_env):
    from crlookup import api

    home, folder, said = small_site
    assert said["editions"] == ["en-2003-07-01", "ipg-2024-09-23", "jar-2019-05-03"]
    assert said["pages"] > 2000 and said["offline_bytes"] < said["bytes"]
    lib = api.open(str(home))
    try:
        for edition, document in (("en-2003-07-01", "cr"), ("ipg-2024-09-23", "ipg"),
                                  ("jar-2019-05-03", "jar")):  # fmt: skip
            for entry in lib.entries(edition):
                number = label(entry.number, document)  # ("IPG 2.1", "IPG appendix A")
                page = _page(folder, addresses.site_path(f"rule/{number}") + "/")
                assert html.escape(entry.number, quote=False) in page, number
        rule = lib.rule("502.2", "en-2003-07-01").to_dict()
        page = _page(folder, "rule/502.2/")
        assert html.escape(rule["text"][:60], quote=False) in page  # its own words
        assert "../../rule/310/" in page  # its cross-reference, relative
        assert "../../history/502.2/" in page and "../../refs/502.2/" in page
        for address in ("history/502.2/", "refs/502.2/", "define/first%20strike/", "define/",
                        "diff/previous/latest/", "editions/", "search/", ""):  # fmt: skip
            assert (folder / addresses.file_of(address)).exists(), address
        penalty = _page(folder, "rule/IPG%202.1/")
        assert "Game Play Error" in penalty or "Missed Trigger" in penalty
    finally:
        lib.close()


def test_no_internal_link_is_broken(small_site):
    """Every href, src and form action of every page names a file of the folder."""
    _home, folder, _said = small_site
    broken = []
    for path in folder.rglob("*.html"):
        relative = path.relative_to(folder).as_posix()
        here = "http://site/" + addresses.address_of(relative)
        text = path.read_text(encoding="utf-8")
        for link in re.findall(r'(?:href|src|action)="([^"]*)"', text):
            link = html.unescape(link)
            if link.startswith(("http:", "https:", "mailto:", "data:", "#")):
                continue
            target = urllib.parse.urljoin(here, link)
            assert target.startswith("http://site/"), (relative, link)  # (relative or root)
            wanted = urllib.parse.unquote(urllib.parse.urlsplit(target).path[1:])
            file = wanted + "index.html" if wanted.endswith("/") or not wanted else wanted
            if not (folder / file).is_file():
                broken.append((relative, link))
    assert broken == []


def test_the_manifest_and_its_icons(small_site):
    _home, folder, _said = small_site
    manifest = json.loads((folder / "manifest.webmanifest").read_text(encoding="utf-8"))
    assert manifest["name"] and manifest["short_name"] == "crlookup"
    assert manifest["display"] == "standalone" and manifest["start_url"] == "./"
    purposes = set()
    for icon in manifest["icons"]:
        data = (folder / icon["src"]).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and icon["type"] == "image/png"
        width, height = struct.unpack(">II", data[16:24])  # (IHDR)
        assert icon["sizes"] == f"{width}x{height}", icon
        purposes.add(icon["purpose"])
    assert {"192x192", "512x512"} <= {i["sizes"] for i in manifest["icons"]}
    assert purposes == {"any", "maskable"}
    page = _page(folder, "rule/502.2/")
    assert 'rel="manifest" href="../../manifest.webmanifest"' in page


def test_the_offline_copy_lists_what_it_holds_and_leaves_out(small_site):
    _home, folder, said = small_site
    listed = json.loads((folder / "offline.json").read_text(encoding="utf-8"))
    assert listed["editions"] == said["editions"]
    packed = {}
    for p in listed["packs"]:
        packed.update(offline.unpack((folder / p["file"]).read_bytes()))
        assert re.fullmatch(r"offline/pack\.[0-9a-f]{12}\.gz", p["file"])
    assert len(packed) == listed["files"]
    assert packed["rule/IPG%202.1/"] == (folder / "rule/IPG 2.1/index.html").read_bytes()
    assert "pagefind/pagefind.js" in packed and "numbers.json" in packed
    words = json.loads(packed["words.json"])  # (what a misspelt word is corrected to)
    assert {"trample", "first", "strike", "penalty"} <= set(words) and words[0] == "the"
    assert not any(p.startswith("pagefind/pagefind-ui") for p in packed)  # (unused: removed)
    assert any("cards" in x for x in listed["left_out"])
    assert listed["version"] in (folder / "sw.js").read_text(encoding="utf-8")
    numbers = json.loads((folder / "numbers.json").read_text(encoding="utf-8"))
    assert numbers["502.2"] == "rule/502.2/" and numbers["IPG 2.1"] == "rule/IPG%202.1/"


def test_the_cards_are_pages_online_only(small_site):
    """--cards: every card a page at serve's address (a name's slash kept in its file's name
    as %2F), its Oracle text and rulings; the offline copy leaves them out and says so."""
    _home, folder, said = small_site
    assert said["cards"] == len(SMALL_CARDS)
    names = json.loads((folder / "cards.json").read_text(encoding="utf-8"))
    assert sorted(names) == sorted(SMALL_CARDS)
    for name in SMALL_CARDS:
        address = addresses.site_path(web.link("card", name)) + "/"
        assert html.escape(name, quote=False) in _page(folder, address), name
    assert addresses.site_path(web.link("card", "Fire // Ice")) == "card/Fire%20%252F%252F%20Ice"
    assert (folder / "card" / "Fire %2F%2F Ice" / "index.html").is_file()
    spider = _page(folder, "card/Giant%20Spider/")
    assert "Reach" in spider and "online only" in spider
    assert 'href="../../rule/' in spider  # the rules behind it, in the site
    listed = json.loads((folder / "offline.json").read_text(encoding="utf-8"))
    packed = set()
    for p in listed["packs"]:
        packed |= set(offline.unpack((folder / p["file"]).read_bytes()))
    assert not any(p.startswith("card/") for p in packed) and "cards.json" not in packed
    assert f"the cards' {len(SMALL_CARDS)} pages (online only)" in listed["left_out"]


def test_a_folder_that_holds_something_else_is_refused_before_any_work(site_env, tmp_path):
    (tmp_path / "mine.txt").write_text("not a site")
    started = time.monotonic()
    error = run("site", str(tmp_path), code=2).error
    assert one_line(error).endswith("is not empty and holds no site: not replaced")
    assert time.monotonic() - started < 5 and (tmp_path / "mine.txt").exists()


def test_a_language_asked_for_that_the_library_lacks_is_one_line(site_env, tmp_path):
    """Beside English by default: Chinese if the library has it (the small one has not, and
    its site was written); asked for, a language it lacks is an error, before any work."""
    error = run("site", str(tmp_path / "out"), "--parallel", "zh", code=1).error
    assert one_line(error).startswith("no edition in language 'zh'")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ in a real browser


class StaticServer:
    """`python -m http.server` over a folder: a plain static file server."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1",
             "--directory", str(folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(self.base + "/", timeout=5).close()
                return
            time.sleep(0.1)
        self.stop()
        pytest.fail("the static file server did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(15)


@pytest.fixture(scope="module")
def static_server(small_site):
    """A plain static file server over the small library's site."""
    server = StaticServer(small_site[1])
    yield server
    server.stop()


def test_kept_offline_every_page_and_search_work_without_a_network(
    chromium, site_env, tmp_path, request
):
    """Kept offline, the network off: pages, search, the IPG, back and reload; then a newer
    site replaces the copy. Screenshots of a phone offline (docs/site.md: --update-golden
    writes them there)."""
    folder = tmp_path / "public"  # (its own copy: a newer site is written in its place below)
    shutil.copytree(site_env, folder)
    server = StaticServer(folder)
    shots = SHOTS if request.config.getoption("--update-golden") else tmp_path
    try:
        _keep_offline(chromium, server.base, folder, shots)
    finally:
        server.stop()


def _keep_offline(chromium, base: str, folder: Path, shots: Path) -> None:
    context = chromium.new_context(viewport=PHONE)
    seen: list[str] = []
    errors: list[str] = []
    context.on("request", lambda r: seen.append(r.url))
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/rule/502.2/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # (the service worker answers now: nothing is kept yet, and the page says so)
    keep = page.locator("#keep")
    keep.wait_for(state="visible")
    assert re.fullmatch(r"Keep offline \(\d+\.\d MB\)", keep.inner_text())
    keep.click()
    page.locator("#kept").filter(has_text="Kept offline").wait_for(timeout=60_000)
    assert "ipg-2024-09-23" in page.locator("#kept").inner_text()

    context.set_offline(True)
    page.locator("main").get_by_role("link", name="310", exact=True).first.click()
    page.wait_for_url(base + "/rule/310/")
    assert "310" in page.locator("h1").inner_text()
    page.locator("#offline").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "site-offline-rule-390.png"))
    page.locator("#q").fill("first strike")
    page.locator("#suggest li").first.wait_for()
    assert "first strike" in page.locator("#suggest").inner_text().lower()
    page.screenshot(path=str(shots / "site-offline-search-390.png"))
    page.locator("#q").press("Enter")  # (words: the search page lists them all)
    page.locator("#found li").first.wait_for()
    assert "/search/" in page.url
    page.locator("#q").fill("trampel")  # misspelt: Pagefind finds nothing, then "trample"
    page.locator("#suggest li").first.wait_for()
    assert "trample" in page.locator("#suggest").inner_text().lower()
    page.goto(base + "/search/?q=frist%20strike")
    page.locator("#found li").first.wait_for()
    assert page.locator("h1").inner_text() == "Search: first strike (corrected)"
    page.goto(base + "/rule/IPG%202.1/")
    assert "2.1" in page.locator("h1").inner_text()
    page.locator("#q").fill("ipg 2.3")
    page.locator("#q").press("Enter")  # a number goes straight to its page
    page.wait_for_url(base + "/rule/IPG%202.3/")
    page.go_back()
    page.wait_for_url(base + "/rule/IPG%202.1/")
    page.reload()
    assert "2.1" in page.locator("h1").inner_text()
    page.goto(base + "/rule/no-such-page/")
    assert "no such page" in page.content()

    # a newer site (another edition): the kept copy is replaced when next online, and said.
    # (The page asks its service worker's registration for the update, as a navigation does:
    # a check the browser scheduled after the last navigation may come first, and tell the
    # page open then, which a reload would replace before the test reads it.)
    context.set_offline(False)
    page.goto(base + "/rule/IPG%202.1/")
    subprocess.run(  # (a process of its own: Playwright runs an event loop in this one)
        [*CRLOOKUP, "site", str(folder), "--document", "ipg", "--document", "jar"], check=True
    )
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())"
                  ".catch(() => null)")  # fmt: skip
    page.locator("#kept").filter(has_text="Updated offline copy").wait_for(timeout=60_000)
    context.set_offline(True)
    page.reload()
    assert "2.1" in page.locator("h1").inner_text()
    names = page.evaluate("caches.keys()")
    assert len(names) == 1  # the old copy went
    context.close()
    assert errors == []
    assert seen and all(url.startswith(base + "/") for url in seen), seen  # nothing off-site


def test_without_javascript_the_pages_read_and_link(chromium, static_server):
    context = chromium.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(static_server.base + "/rule/IPG%202.1/")
    assert page.locator("#keep").is_hidden()  # (offline needs JavaScript)
    page.get_by_role("link", name="crlookup").first.click()
    page.wait_for_url(static_server.base + "/")
    assert page.locator("main").get_by_role("link").count() > 3  # the contents
    context.close()


def test_a_card_named_in_the_box_goes_to_its_page(chromium, static_server):
    """Online, the box offers the cards whose name or a face's starts with the words."""
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(static_server.base + "/rule/502.2/")
    page.locator("#q").fill("stomp")
    found = page.locator("#suggest li").first
    found.wait_for()
    assert found.inner_text() == "Bonecrusher Giant // Stomp"
    found.locator("a").click()
    page.wait_for_url(static_server.base + "/card/Bonecrusher%20Giant%20%252F%252F%20Stomp/")
    assert "Bonecrusher Giant" in page.locator("h1").inner_text()
    context.close()


@pytest.mark.library
def test_chinese_words_find_the_chinese_rules(chromium, library, tmp_path):
    """The search index of side-by-side pages from the full library's newest Chinese edition
    (the suite's small site has none): Pagefind's extended build cuts the Chinese into words,
    which find the Chinese rules, as find.js asks them (its page English, the Chinese index
    merged)."""
    from crlookup.ui.serve.endpoints import BY_COMMAND
    from crlookup.ui.site import build, search

    plan = build.Plan(library, ("cr",), (), ("zh",))
    assert plan.parallel == ["en+zh"]
    numbers = ("702.2", "702.2b", "702.19", "702.19b", "509.1", "702.9", "704.5a", "100.1")
    records = []
    endpoint = BY_COMMAND["rule"]
    for number in numbers:
        for at in (f"rule/{number}/", f"en+zh/rule/{number}/"):
            page = plan.pages[at]
            data = endpoint.answer(library, endpoint.read(page.params, list(page.query)))
            records += search.records_of(page, data)
    assert {r.lang for r in records} == {"en", "zh"}
    folder = tmp_path / "site"
    search.write(str(folder), records)
    (folder / "index.html").write_text('<!doctype html><html lang="en"><title>t</title></html>')
    server = StaticServer(folder)
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(server.base + "/")
        found = page.evaluate("""async (words) => {
          const at = location.origin + '/pagefind/';  // (absolute, as find.js gives them)
          const pf = await import(at + 'pagefind.js');
          await pf.options({ basePath: at, baseUrl: '/' });
          await pf.init();
          await pf.mergeIndex(at, { language: 'zh' });
          const out = {};
          for (const w of words) {
            const r = await pf.search(w);
            const hits = await Promise.all(r.results.map((x) => x.data()));
            out[w] = hits.map((d) => new URL(d.url, location.href).pathname);
          }
          return out;
        }""", ["死触", "践踏", "deathtouch"])  # fmt: skip
    finally:
        context.close()
        server.stop()
    assert found["死触"][0] in ("/en+zh/rule/702.2/", "/en+zh/rule/702.2b/"), found
    assert all(url.startswith("/en+zh/") for url in found["死触"] + found["践踏"]), found
    assert "/en+zh/rule/702.19/" in found["践踏"], found  # (trample)
    assert found["deathtouch"] and not any(u.startswith("/en+zh/") for u in found["deathtouch"])


def test_the_site_says_where_it_is_published(site_env, tmp_path):
    """--base: the 404 page, which a host answers at any address, links from there."""
    out = tmp_path / "project"
    said = run("site", str(out), "--document", "jar", "--base", "/crlookup/").output
    assert said.startswith(f"{out}: ") and said.count("\n") == 1  # (no bar off a terminal)
    missing = (out / "404.html").read_text(encoding="utf-8")
    assert '<base href="/crlookup/">' in missing  # (its links are relative to that)
    assert re.search(r'href="static/site\.[0-9a-f]+\.css"', missing) and 'href=""' in missing
    assert (out / "rule" / "JAR 1" / "index.html").is_file() and not (
        out / "rule" / "100.1"
    ).exists()


def test_screenshots_in_the_docs_are_the_tests_own():
    """docs/site.md shows the screenshots the offline test took (--update-golden writes them)."""
    doc = (ROOT / "docs" / "site.md").read_text(encoding="utf-8")
    shown = re.findall(r"\]\((images/site-offline-[^)]+\.png)\)", doc)
    assert len(shown) == 2 and all((ROOT / "docs" / s).exists() for s in shown)


def test_serve_serves_the_site_at_site(site_env):
    """`crlookup serve --site DIR`: the same files at /site/, so that at a venue a phone keeps
    the offline copy from the laptop; hashed files kept for a year, Pagefind's WebAssembly
    allowed there only; serve's own pages as they were."""
    from conftest import Server

    home = Path(os.environ["CRLOOKUP_HOME"])
    server = Server(home, "--site", str(site_env))
    try:
        status, page, headers = server.get("/site/rule/502.2/")
        assert status == 200 and page == (site_env / "rule/502.2/index.html").read_bytes()
        policy = headers["content-security-policy"]
        assert "script-src 'self' 'wasm-unsafe-eval'" in policy and "base-uri 'self'" in policy
        assert headers["cache-control"] == "no-cache"
        css = next(p.name for p in (site_env / "static").glob("site.*.css"))
        status, _body, headers = server.get(f"/site/static/{css}")
        assert status == 200 and "immutable" in headers["cache-control"]
        status, _body, headers = server.get("/site/manifest.webmanifest")
        assert headers["content-type"] == "application/manifest+json"
        status, _body, headers = server.get("/site/sw.js")
        assert status == 200 and "javascript" in headers["content-type"]
        status, _body, _headers = server.get("/site/rule/502.2")  # (to its folder, once)
        assert status == 200
        status, body, _headers = server.get("/card/Fire%20%252F%252F%20Ice")  # the site's
        assert status == 200 and b"Fire // Ice" in body  # (address of a card: serve's too)
        status, _body, headers = server.get("/rule/502.2")  # serve's own page
        assert status == 200 and "wasm-unsafe-eval" not in headers["content-security-policy"]
    finally:
        server.stop()
    assert "Traceback" not in server.log.read_text()


def test_serve_refuses_a_folder_without_a_site(site_env, tmp_path):
    error = run("serve", "--site", str(tmp_path), code=2).error
    assert one_line(error) == f"{tmp_path} holds no site: write one with `crlookup site {tmp_path}`"
