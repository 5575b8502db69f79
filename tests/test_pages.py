"""The web pages of `crlookup serve` (issue 48), on a real server of the full library: each
page rendered from its endpoint's JSON, the search box, errors as pages, the static files; then
in a real browser, Debian's Chromium driven by Playwright (no browser is downloaded: .ci/run
installs the `chromium` package): links followed, editions switched, the box used for a
number, a card and a question, a citation copied, no console errors, the layout at 390 x 844
and 1280 x 800, JavaScript off, every control labelled, the themes' contrast."""

from __future__ import annotations

import hashlib
import html
import http.client
import json
import re
import shutil
import urllib.parse
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import ROOT, Server

from crlookup.core.documents import label

pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.library,  # the full library
]

PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}
SHOTS = ROOT / "docs" / "images"  # the screenshots docs/serving.md shows (--update-golden)
IN_THE_DOCS = {("rule", 390, "light"), ("ipg", 390, "dark"), ("parallel", 390, "light"),
               ("card", 390, "light"), ("history", 1280, "light")}  # fmt: skip


@pytest.fixture(scope="module")
def server(built_home):
    found = Server(built_home)
    yield found
    found.stop()
    assert "Traceback" not in found.log.read_text(), found.log.read_text()[-3000:]


def fetch(server, path: str, headers: dict | None = None) -> tuple[int, str, dict]:
    """A GET as a browser sends it (accepting HTML; no redirect followed): status, body,
    headers."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("GET", path, headers={"Accept": "text/html,*/*;q=0.8", **(headers or {})})
        r = conn.getresponse()
        data = r.read()
        found = {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()
    if found.get("content-encoding") == "gzip":
        import gzip

        data = gzip.decompress(data)
    return r.status, data.decode("utf-8"), found


def api(server, path: str) -> dict:
    status, text, _headers = fetch(server, path)
    assert status == 200, text
    return json.loads(text)


def api_error(server, path: str) -> dict:
    return json.loads(fetch(server, path, {"Accept": "*/*"})[1])


def hrefs(page: str) -> set[str]:
    return {html.unescape(h) for h in re.findall(r'href="([^"]+)"', page)}


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


# ------------------------------------------------------------------ each page, from its JSON


def rule_expected(d: dict) -> tuple[set[str], set[str]]:
    links = {f"/rule/{c['number']}" for c in d["children"]}
    links |= {f"/rule/{n}" for n in d["cited_by"] if not n.startswith("glossary:")}
    words = {d["text"][:60], d["citation"].split(" (")[0]} | {c["number"] for c in d["children"]}
    return links, words


PAGES = [
    # (the page, the JSON it is rendered from, what of that JSON the page must show)
    ("/rule/702.19", "/v1/rule/702.19?cite=true", rule_expected),
    ("/rule/702.2c", "/v1/rule/702.2c?cite=true", rule_expected),
    (
        "/rule/IPG%202.1",
        "/v1/rule/IPG%202.1?cite=true",
        lambda d: ({"/rule/MTR%204.3"}, {d["parts"]["penalty"], "IPG 2.1", d["title"]}),
    ),
    (
        "/search?q=deathtouch+trample",
        "/v1/search?q=deathtouch+trample",
        lambda d: ({f"/rule/{h['number']}" for h in d["hits"] if h["number"]}, set()),
    ),
    (
        "/search?q=missed+trigger&doc=ipg",
        "/v1/search?q=missed+trigger&doc=ipg",
        lambda d: (
            {f"/rule/{quote(label('ipg', h['number']), safe='')}" for h in d["hits"]},
            set(),
        ),
    ),
    (
        "/search?q=flying+reach&cards",  # (cards' hits: each its card's page)
        "/v1/search?q=flying+reach&cards",
        lambda d: ({f"/card/{quote(h['name'], safe='')}" for h in d["hits"]}, set()),
    ),
    (
        "/ask?q=Can+my+Giant+Spider+block+Serra+Angel%3F",
        "/v1/ask?q=Can+my+Giant+Spider+block+Serra+Angel%3F",
        lambda d: ({f"/rule/{a['number']}" for a in d["answers"]}, {d["answers"][0]["why"][0]}),
    ),
    (
        "/card/Giant%20Spider",
        "/v1/card?name=Giant%20Spider",
        lambda d: (
            {f"/rule/{r['number']}" for r in d["rules"] if r["number"]},
            {d["card"]["type_line"], *(r["text"][:50] for r in d["rulings"])},
        ),
    ),
    (
        "/card/Bonecrusher%20Giant%20%2F%2F%20Stomp",  # (slashes in a name)
        "/v1/card?name=Bonecrusher%20Giant%20%2F%2F%20Stomp",
        lambda d: ({f"/rule/{r['number']}" for r in d["rules"] if r["number"]}, {"Stomp"}),
    ),
    (
        "/history/702.19b",
        "/v1/history/702.19b",
        lambda d: (
            {  # the lines of its story (the command line's: History.lines)
                f"/rule/{d['steps'][line['step']]['number']}?edition="
                f"{d['steps'][line['step']]['edition']}"
                for line in d["lines"]
            },
            {line["said"] for line in d["lines"]},
        ),
    ),
    (
        "/diff/en-2025-11-14/en-2026-08-07?section=702",
        "/v1/diff?old=en-2025-11-14&new=en-2026-08-07&section=702",
        lambda d: (
            {
                f"/rule/{(c['new'] or c['old'])['number']}?edition="
                f"{(c['new'] or c['old'])['edition']}"
                for c in d["changes"]
            },
            set(),
        ),
    ),
    ("/editions", "/v1/editions", lambda d: (set(), {e["id"] for e in d})),
    (
        "/define/lethal%20damage",
        "/v1/define/lethal%20damage",
        lambda d: ({f"/rule/{n}" for n in d["matches"][0]["glossary"]["refs"]}, {"Lethal Damage"}),
    ),
    (
        "/refs/702.19",
        "/v1/refs/702.19",
        lambda d: ({f"/rule/{r['number']}" for r in d["cites"]}, set()),
    ),
]


@pytest.mark.parametrize(("path", "json_path", "expected"), PAGES, ids=[p[0] for p in PAGES])
def test_a_page_shows_what_its_endpoint_answers(server, path, json_path, expected):
    """A page is rendered from the JSON of its endpoint (the same dict): what that names, the
    page links to or says, so the two never disagree."""
    status, page, headers = fetch(server, path)
    assert status == 200, page
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["x-crlookup-library"].startswith("library-")
    links, words = expected(api(server, json_path))
    assert links <= hrefs(page), links - hrefs(page)
    shown = text_of(page)
    assert all(w in shown for w in words), [w for w in words if w not in shown]
    assert page.startswith("<!doctype html>") and '<html lang="' in page


@pytest.mark.parametrize(
    "path",
    [
        "/search?q=flying&cards&rulings",
        "/search?q=deathtouch&parallel=ru",
        "/search?q=deathtouch&all_editions",
        "/ask?q=can+I+block%3F&parallel=ru",
        "/ask?q=%E6%AD%BB%E8%A7%A6%E8%83%BD%E9%98%BB%E6%8C%A1%E5%90%97",  # (in Chinese)
        "/rule/MTR%202.11?annotations=true",
        "/rule/7",
        "/rule/702.19b?lang=ru",
        "/history/IPG%202.1",
        "/diff/en-2025-11-14/en-2026-08-07?summary=true",
        "/diff/ipg-2020-04-17/ipg-2024-09-23",
        "/refs/702.19?depth=3",
        "/define/APNAP",  # (a term that sends you to another)
        "/card/Teferi",  # (ambiguous: which one?)
        "/card/Fire%20%2F%2F%20Ice",
    ],
)
def test_every_shape_of_answer_is_a_page(server, path):
    """Each option changes what the JSON holds (a card search's hits are cards, a summary is
    only counts, an ambiguous name only candidates): each is shown, none is a 500."""
    status, page, _headers = fetch(server, path)
    assert status == 200, text_of(page)[-300:]
    assert "<h1>" in page


# The crawl's editions: the CR before the 2009 renumbering and after it, a Chinese one, the
# newest English, the IPG and the MTR; and entries a crawl found to be 500s (issue 53: the
# history of a rule that a later edition removed)
CRAWLED = ("en-2009-02-01", "en-2016-08-26", "zh-2025-04-04", "latest", "ipg-latest", "mtr-latest")
CRAWL_SEEDS = ["/history/100.2?edition=en-2009-02-01", "/history/718.5d?edition=en-2016-08-26",
               "/history/408.1g?edition=en-2009-02-01", "/history/723.4?edition=zh-2025-04-04"]  # fmt: skip


def test_a_crawl_of_every_kind_of_page_finds_no_500(server, library):
    """Every kind of page for a seeded sample of the entries of several editions, and every
    page those link to (one step on): none is a 500, each is a page."""
    import random
    from concurrent.futures import ThreadPoolExecutor

    from crlookup.ui.serve import pages

    draw = random.Random(53)
    seeds = list(CRAWL_SEEDS)
    for alias in CRAWLED:
        edition = library.edition(alias).id
        entries = [r for r in library.entries(edition) if r.kind != "section"]
        for r in draw.sample(entries, 4):
            number = pages.label(r.number, library.edition(edition).document)
            seeds += [pages.link(kind, number, edition=edition) for kind in ("rule", "history")]
        seeds.append(pages.link("refs", entries[0].number, edition=edition))
        seeds.append(f"/diff/previous/{edition}?summary=true")
    seeds += ["/editions", "/define/deathtouch", "/card/Blood%20Moon", "/search?q=trample"]

    def get(path: str) -> tuple[str, int, str]:
        status, page, headers = fetch(server, path)
        return path, status, page if headers["content-type"].startswith("text/html") else ""

    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(get, seeds))
        linked = {h for _p, _s, page in found for h in hrefs(page)}
        linked = sorted(h for h in linked if h.startswith("/") and not h.startswith("/static"))
        found += list(pool.map(get, sorted(set(linked) - set(seeds))[:400]))
    failed = {path: status for path, status, _page in found if status >= 500}
    assert len(found) > 150 and failed == {}, failed
    assert all(page for _p, _s, page in found), "every one a page"


# Each page's argument, and a value of each kind of option, for the sweep below
SWEPT = {"rule": ["702.19", "IPG 2.1"], "search": ["deathtouch"], "card": ["Delver of Secrets"],
         "define": ["trample"], "refs": ["702.19"], "editions": [None]}  # fmt: skip
OPTION_VALUES = {"edition": "previous", "lang": "ru", "parallel": "en,ru", "section": "702",
                 "limit": "1", "depth": "2"}  # fmt: skip


def test_each_option_of_a_page_is_answered_as_a_page(server):
    """Every option of the endpoint behind a quick page (a new one too: they are read from the
    endpoint), each value of a choice: a page, or the command's refusal, never a 500 (the IPG
    beside Russian was one)."""
    import click

    from crlookup.ui.serve import pages
    from crlookup.ui.serve.endpoints import BY_COMMAND

    asked = []
    for command, arguments in SWEPT.items():
        for p in BY_COMMAND[command].params:
            if p.where == "path" or p.required:
                continue
            kind = p.option.type
            if isinstance(p.option, click.Option) and p.option.is_flag:
                values = ["true"]
            else:
                values = list(kind.choices) if isinstance(kind, click.Choice) else []
                values = values or [OPTION_VALUES.get(p.name, "x")]
            for argument in arguments:
                base = pages.link(command, *([argument] if argument else []))
                asked += [f"{base}{'&' if '?' in base else '?'}{p.name}={v}" for v in values]
    answered = {path: fetch(server, path)[0] for path in asked}
    assert len(asked) > 25 and {s for s in answered.values() if s >= 500} == set(), answered


def test_a_rule_links_its_cross_references_and_shows_the_penalty_first(server):
    _s, page, _h = fetch(server, "/rule/702.19a?edition=en-2024-07-30")
    assert '<a href="/rule/510?edition=en-2024-07-30">510</a>' in page  # "(See rule 510, ...)"
    assert "/rule/702.19?edition=en-2024-07-30" in hrefs(page)  # the rule it is part of
    _s, page, _h = fetch(server, "/rule/613.7a?edition=en-2024-07-30")  # (in an example too)
    assert '(see rule <a href="/rule/613.7e?edition=en-2024-07-30">613.7e</a>)' in page
    _s, ipg, _h = fetch(server, "/rule/IPG%202.1")
    first = ipg.index('class="penalty"')
    assert first < ipg.index("Philosophy") and "No Penalty" in ipg[first : first + 200]


def test_another_language_side_by_side(server):
    _s, page, _h = fetch(server, "/rule/702.19?parallel=en,zh")
    assert page.count('class="pair"') == len(api(server, "/v1/rule/702.19?parallel=en,zh")["pairs"])
    assert 'lang="zh"' in page and "践踏" in page  # trample, in the Chinese


@pytest.mark.parametrize(
    ("typed", "goes_to"),
    [
        ("702.19b", "/rule/702.19b"),
        ("cr 702.19", "/rule/702.19"),
        ("IPG 2.1", "/rule/IPG%202.1"),
        ("Giant Spider", "/card/Giant%20Spider"),
        ("stomp", "/card/stomp"),  # (a face's name: its card's page)
        ("lethal damage", "/define/lethal%20damage"),
        ("deathtouch trample", "/search?q=deathtouch+trample"),
        ("Can a creature with defender attack?", "/ask?q=Can+a+creature+with+defender+attack%3F"),
        ("MTR banana", "/rule/MTR%20banana"),  # (its document kept: issue 53, /rule/banana)
        ("IPG 2.1x", "/rule/IPG%202.1x"),
    ],
)
def test_the_search_box_goes_where_crlookup_anything_goes(server, typed, goes_to):
    status, _page, headers = fetch(server, "/go?" + urllib.parse.urlencode({"q": typed}))
    assert (status, headers["location"]) == (303, goes_to)


def test_an_entry_a_tournament_document_lacks_leads_to_its_nearest_there(server):
    status, page, _headers = fetch(server, "/rule/IPG%202.1x")
    nearest = api_error(server, "/v1/rule/IPG%202.1x")["suggestions"]
    assert status == 404 and "no entry 2.1x in ipg-" in text_of(page) and nearest[0] == "2.1"
    assert {f"/go?q=IPG+{n}" for n in nearest} <= hrefs(page)  # (the IPG's, not the CR's)
    status, page, _headers = fetch(server, "/rule/MTR%20banana")
    assert status == 404 and "no entry banana in mtr-" in text_of(page)


def test_the_search_box_keeps_the_edition_and_an_empty_box_goes_home(server):
    query = urllib.parse.urlencode({"q": "100.1", "edition": "en-2004-10-01"})
    assert fetch(server, f"/go?{query}")[2]["location"] == "/rule/100.1?edition=en-2004-10-01"
    assert fetch(server, "/go?q=+")[2]["location"] == "/"


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/rule/999.9", 404, "no rule 999.9"),
        ("/rule/702.19b?edition=en-1999-01-01", 404, "1999-01-01"),
        ("/card/zzzqqqxxx", 404, "zzzqqqxxx"),
        ("/search?q=", 400, "search"),
        ("/rule/702.19b?colour=red", 400, "colour"),
        ("/nothing/here", 404, "/nothing/here"),
        ("/search?q=" + "a" * 2100, 414, "at most 2000 characters"),
    ],
)
def test_an_error_is_a_page_a_person_understands(server, path, status, says):
    found, page, headers = fetch(server, path)
    assert found == status and headers["content-type"].startswith("text/html"), page
    assert says in text_of(page) and "Traceback" not in page


def test_not_found_lists_the_nearest_as_links(server):
    _s, page, _h = fetch(server, "/rule/702.19z")
    nearest = api_error(server, "/v1/rule/702.19z")["suggestions"]
    assert nearest and {f"/go?q={n}" for n in nearest} <= hrefs(page)
    _s, page, _h = fetch(server, "/rule/702.19z?edition=en-2024-07-30")  # (in that edition)
    nearest = api_error(server, "/v1/rule/702.19z?edition=en-2024-07-30")["suggestions"]
    assert nearest and {f"/go?q={n}&edition=en-2024-07-30" for n in nearest} <= hrefs(page)
    _s, page, _h = fetch(server, "/history/702.19b?edition=en-1999-01-01")  # an edition's
    nearest = api_error(server, "/v1/history/702.19b?edition=en-1999-01-01")["suggestions"]
    assert (
        {f"/history/702.19b?edition={n}" for n in nearest}
        == hrefs(page) & {f"/history/702.19b?edition={n}" for n in nearest}
        != set()
    )
    asked = fetch(server, "/v1/nothing", {"Accept": "*/*"})
    assert asked[2]["content-type"] == "application/json"  # a bot's: JSON


def test_static_files_are_shipped_cached_and_named_by_their_contents(server):
    _s, page, _h = fetch(server, "/rule/702.19b")
    for name in ("site.css", "site.js"):
        data = (ROOT / "crlookup" / "ui" / "serve" / "static" / name).read_bytes()
        address = f"/static/{name}?v={hashlib.sha256(data).hexdigest()[:10]}"
        assert address in hrefs(page) | set(re.findall(r'src="([^"]+)"', page))
        status, body, headers = fetch(server, address)
        assert (status, body.encode()) == (200, data)
        assert headers["cache-control"] == "public, max-age=31536000, immutable"
    elsewhere = [a for a in hrefs(page) | set(re.findall(r'src="([^"]+)"', page))
                 if a.startswith(("http:", "https:", "//"))]  # fmt: skip
    assert elsewhere == ["https://magic.wizards.com/en/rules"]  # (the citation's): no CDN
    status, _body, headers = fetch(server, "/rule/702.19", {"Accept-Encoding": "gzip"})
    assert headers["content-encoding"] == "gzip" and headers["cache-control"] == "no-cache"


# ------------------------------------------------------------------ in a real browser


VIOLATIONS = """document.addEventListener('securitypolicyviolation', (e) =>
  console.error(`policy violated: ${e.violatedDirective} ${e.blockedURI}`));"""


class Tab:
    """A page in the browser, with the console's errors (the policy's violations among
    them: VIOLATIONS) and the failed requests it saw."""

    def __init__(self, browser, server, **options):
        self.context = browser.new_context(**options)
        self.page = self.context.new_page()
        self.base = f"http://127.0.0.1:{server.port}"
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else 0)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        # what the pages' Content-Security-Policy refuses, said as a console error too
        self.context.add_init_script(VIOLATIONS)

    def open(self, path: str):
        self.page.goto(self.base + path)
        return self.page

    def path(self) -> str:
        return urllib.parse.unquote(self.page.url.removeprefix(self.base))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(chromium, server):
    found = Tab(chromium, server, viewport=PHONE)
    yield found
    found.close()
    assert found.errors == []  # no console errors, on any page a test opened


def test_a_judge_follows_a_reference_and_switches_editions(tab):
    page = tab.open("/rule/702.19a")
    page.get_by_role("link", name="510", exact=True).first.click()
    assert tab.path() == "/rule/510" and "Combat Damage Step" in page.locator("h1").inner_text()
    page = tab.open("/rule/100.1")
    page.get_by_role("link", name="previous", exact=True).click()
    previous = page.locator("#edition").input_value()
    assert tab.path() == "/rule/100.1?edition=previous" and previous != ""
    page.get_by_label("Edition").fill("2004-10-01")
    page.get_by_role("button", name="Show").click()
    assert page.locator("#edition").input_value() == "en-2004-10-01"  # the one shown


@pytest.mark.parametrize(
    ("typed", "lands_on", "heading"),
    [
        ("702.19b", "/rule/702.19b", "702.19b"),
        ("Giant Spider", "/card/Giant Spider", "Giant Spider"),
        ("Can my Giant Spider block Serra Angel?", "/ask?q=", "Serra Angel"),
    ],
)
def test_the_search_box_takes_a_number_a_card_and_a_question(tab, typed, lands_on, heading):
    page = tab.open("/")
    page.get_by_label("A rule number, words, a card or a question").fill(typed)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert tab.path().startswith(lands_on) and heading in page.locator("h1").inner_text()


def test_suggestions_as_you_type(tab):
    page = tab.open("/")
    page.get_by_label("A rule number, words, a card or a question").press_sequentially("deathtouch")
    first = page.locator("#suggest a").first
    first.wait_for()
    assert first.inner_text() == "702.2 Deathtouch"  # the first hit of /v1/search
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.closest('#suggest') !== null")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert tab.path() == "/rule/702.2"


def test_a_citation_is_copied_as_crlookup_rule_cite_gives_it(chromium, server):
    tab = Tab(chromium, server, viewport=PHONE, permissions=["clipboard-read", "clipboard-write"])
    try:
        page = tab.open("/rule/702.19b")
        page.get_by_role("button", name="Copy citation").click()
        copied = page.evaluate("navigator.clipboard.readText()")
    finally:
        tab.close()
    assert copied.startswith("702.19b The controller of an attacking creature with trample")
    assert "\n\nCR 702.19b (August 7, 2026)\nhttps://magic.wizards.com/en/rules" in copied
    assert tab.errors == []


def test_the_pages_policy_lets_in_only_the_sites_own(chromium, server):
    """Chromium keeps to the Content-Security-Policy: the site's own script runs (the copy
    button, suggestions: the other tests, with no violation on any page they open), while an
    inline script, a style attribute's rules and an image from elsewhere are refused."""
    tab = Tab(chromium, server, viewport=PHONE)
    try:
        page = tab.open("/rule/702.19b")
        assert page.get_by_role("button", name="Copy citation").is_visible()  # (site.js ran)
        page.evaluate(
            """() => {
              const s = document.createElement('script');
              s.textContent = 'window.injected = true';
              document.body.append(s);
              const img = document.createElement('img');
              img.src = 'http://192.0.2.1/pixel.png';
              document.body.append(img);
            }"""
        )
        page.wait_for_timeout(300)
        assert page.evaluate("window.injected === undefined")
    finally:
        tab.close()
    refused = " ".join(tab.errors)
    assert "policy violated: script-src" in refused and "policy violated: img-src" in refused


def test_every_page_works_with_javascript_off(chromium, server):
    tab = Tab(chromium, server, viewport=PHONE, java_script_enabled=False)
    try:
        page = tab.open("/rule/702.19b")
        assert not page.get_by_role("button", name="Copy citation").is_visible()
        assert "CR 702.19b" in page.locator("#citation").inner_text()  # (said, to copy by hand)
        page.get_by_label("A rule number, words, a card or a question").fill("Giant Spider")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert tab.path() == "/card/Giant Spider"
    finally:
        tab.close()


LAYOUTS = [
    ("rule", "/rule/702.19b"),
    ("section", "/rule/702"),
    ("ipg", "/rule/IPG%202.1"),
    ("parallel", "/rule/702.19?parallel=en,zh"),
    ("search", "/search?q=deathtouch"),
    ("ask", "/ask?q=Can+my+Giant+Spider+block+Serra+Angel%3F"),
    ("card", "/card/Bonecrusher%20Giant"),
    ("history", "/history/702.19b"),
    ("diff", "/diff/previous/latest"),
    ("editions", "/editions"),
    ("not-found", "/rule/702.19z"),
]


NARROW = {"width": 360, "height": 740}  # the narrowest phone the pages are made for


# WCAG 2's contrast: the ratio of the lighter colour's luminance to the darker's (+0.05 each)
CONTRAST = """([fg, bg]) => {
  const lum = (c) => {
    const [r, g, b] = c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map((v) => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def every_control_is_labelled_and_the_text_contrasts(page, path: str, scheme: str) -> None:
    """Every input, button and link has a name a screen reader says; body text, muted text
    and links stand 4.5:1 (AA) against the page's background; the page says its language."""
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll(
             'input:not([type=hidden]), button, select, textarea, a[href]')
           ].filter((el) => {
             const byLabel = el.labels && [...el.labels].some((l) => l.textContent.trim());
             const own = (el.getAttribute('aria-label') || el.textContent || '').trim();
             return !(byLabel || own);
           }).map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == [], (path, unnamed)
    for selector in ("main", ".meta", "main a"):
        found = page.locator(selector).first
        if not found.count():
            continue
        fg, bg = found.evaluate(
            """(el) => [getComputedStyle(el).color,
                        getComputedStyle(document.body).backgroundColor]"""
        )
        ratio = page.evaluate(CONTRAST, [fg, bg])
        assert ratio >= 4.5, (path, scheme, selector, fg, bg, ratio)
    assert page.evaluate("document.documentElement.lang") != ""


@pytest.mark.parametrize("size", [NARROW, PHONE, DESKTOP], ids=["360x740", "390x844", "1280x800"])
def test_the_layout_fits_a_phone_and_a_desktop(chromium, server, size, tmp_path, request):
    """Every kind of page, light and dark: no page scrolls sideways; on an IPG page the penalty
    is above the fold; on a phone every control is labelled and the text contrasts (checked
    on the pages loaded here, not loaded again). Screenshots at 390 x 844 and 1280 x 800 (in
    the light theme, and those docs/serving.md shows: --update-golden writes them there)."""
    update = request.config.getoption("--update-golden")
    for scheme in ("light", "dark"):
        tab = Tab(chromium, server, viewport=size, color_scheme=scheme)
        try:
            for name, path in LAYOUTS:
                page = tab.open(path)
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= size["width"], (name, scheme, wide)
                docs = (name, size["width"], scheme) in IN_THE_DOCS
                if size is not NARROW and (scheme == "light" or docs):
                    shot = tmp_path / f"{name}-{size['width']}-{scheme}.png"
                    page.screenshot(path=str(shot))
                    if update and docs:
                        SHOTS.mkdir(exist_ok=True)
                        shutil.copy(shot, SHOTS / f"page-{shot.name}")
                if name == "ipg":
                    box = page.locator(".penalty").bounding_box()
                    assert box is not None and box["y"] + box["height"] <= size["height"]
                if size is PHONE:
                    every_control_is_labelled_and_the_text_contrasts(page, path, scheme)
                if name == "not-found":  # (the browser says so of a page answered 404)
                    said = "Failed to load resource: the server responded with a status of 404"
                    assert tab.errors == [f"{said} (Not Found)"]
                    tab.errors.clear()
        finally:
            tab.close()
        assert tab.errors == [], (scheme, tab.errors)


def test_keyboard_alone_reaches_the_box_and_the_links(tab):
    page = tab.open("/rule/702.19")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("702.2c")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert tab.path() == "/rule/702.2c"


def test_screenshots_in_the_docs_are_the_tests_own():
    """docs/serving.md shows screenshots the layout test took (--update-golden writes them)."""
    doc = (ROOT / "docs" / "serving.md").read_text(encoding="utf-8")
    shown = re.findall(r"\]\((images/page-[^)]+\.png)\)", doc)
    assert shown and all((ROOT / "docs" / s).exists() for s in shown)
    assert all(Path(s).stem.removeprefix("page-").split("-")[0] in dict(LAYOUTS) for s in shown)
