"""The static site: serve's pages, rendered once into files at the paths serve answers them at.

A page's address is serve's for the newest edition (`/rule/702.19b`, `/rule/IPG%202.3`,
`/define/deathtouch`), written as a folder with an `index.html` (`rule/702.19b/index.html`),
which every static file server answers at `/rule/702.19b/`. Another edition's pages have its
id before them (`/en-2024-07-30/rule/702.19b`), two languages side by side theirs
(`/en+zh/rule/702.19b`): serve answers those addresses too (crlookup.ui.serve.pages.unprefixed).

Each page's links are made relative to it, so that one build works at the top of a host, in
a folder of it (a GitHub Pages project) and under serve's /site/; a link to a page the site
does not have (another edition's, a card's without --cards) is left as its text.

With --cards, every card is a page too (`/card/Giant%20Spider`), online only: 34,563 pages
of about 8 KB, more than a phone should keep, so the offline copy leaves them out and says
so (its footer, offline.json); cards.json lists their names for the search box.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterable
from html import unescape
from typing import Any, NamedTuple

from markupsafe import escape

from crlookup.core import documents
from crlookup.core.errors import BadInput, CrlookupError
from crlookup.core.i18n import _
from crlookup.ui.serve import pages as web
from crlookup.ui.serve.endpoints import BY_COMMAND
from crlookup.ui.site.addresses import file_of, site_path

HERE = os.path.dirname(__file__)
DOCUMENTS = ("cr", "ipg", "mtr", "jar")  # what a site holds unless told (--document)
PARALLEL = ("zh",)  # the languages shown beside English unless told (--parallel)
ICONS = os.path.join(HERE, "icons")
NAME = "crlookup"


class Planned(NamedTuple):
    """A page to write: at `path` (the site's, quoted: "rule/IPG%202.1/"), the `command`'s page
    for the request `params` (path) and `query`, searchable as `record` says (or not: None)."""

    path: str
    command: str
    params: dict[str, str]
    query: tuple[tuple[str, str], ...] = ()
    record: tuple[str, str] | None = None  # (document, language) of its search record


class Built(NamedTuple):
    """What `build` wrote: where, how many pages, its size and its offline copy's, in bytes,
    the editions it holds, what the offline copy leaves out, the seconds it took, and how
    many of the pages are cards'."""

    folder: str
    pages: int
    bytes: int
    offline_bytes: int
    editions: list[str]
    left_out: list[str]
    seconds: float
    cards: int = 0  # the cards' pages (--cards), online only

    def to_dict(self) -> dict:
        return self._asdict()


class Plan:
    """The pages of a site and how addresses are read in it: `editions` {value: prefix} (an
    edition's id, "latest", "previous": "" for the newest of its document, "en-2024-07-30/"
    for one with its own prefix), the pages by path."""

    def __init__(
        self,
        lib,
        documents_: Iterable[str],
        editions: Iterable[str],
        langs: Iterable[str] | None,
        cards: bool = False,
    ):
        self.lib = lib
        self.cards: list[str] = []  # the names of the cards with a page (--cards)
        self.pages: dict[str, Planned] = {}
        self.prefixes: dict[str, str] = {"latest": ""}
        self.held: list[str] = []
        self.parallel: list[str] = []
        wanted = tuple(documents_)
        newest = web.newest(lib)
        for document in wanted:
            if document not in newest:
                continue
            edition = newest[document]
            self.prefixes[edition] = ""
            self._edition(document, edition, "")
        if "cr" in wanted and "cr" in newest:
            for lang in PARALLEL if langs is None else langs:
                self._parallel(newest["cr"], lang, asked=langs is not None)
            self._diff(newest["cr"])
        for asked in editions:
            info = lib.edition(asked)
            if info.id in self.prefixes:
                continue
            self.prefixes[info.id] = info.id + "/"
            if asked not in self.prefixes:
                self.prefixes[asked] = info.id + "/"
            self._edition(info.document, info.id, info.id + "/")
        if cards:
            self._cards()
        self.add("", "home")
        if "cr" in wanted and "cr" in newest:
            self.add("define/", "glossary", {"edition": newest["cr"]})
        self.add("editions/", "editions")
        self.add("search/", "find")

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "lib"}  # (a process opens its own)

    def add(self, path: str, command: str, params=None, query=(), record=None) -> None:
        self.pages[path] = Planned(path, command, params or {}, tuple(query), record)

    def _edition(self, document: str, edition: str, prefix: str) -> None:
        info = self.lib.edition(edition)
        self.held.append(edition)
        asked = (("edition", edition),) if prefix else ()
        record = (document, info.lang) if not prefix else None
        for entry in self.lib.entries(edition):
            number = web.label(entry.number, document)
            at = prefix + site_path(web.link("rule", number)) + "/"
            self.add(at, "rule", {"number": number}, (("cite", "true"), *asked), record)
            if document == "cr":
                self.add(prefix + site_path(web.link("refs", number)) + "/", "refs",
                         {"number": number}, asked)  # fmt: skip
                self.add(prefix + site_path(web.link("history", number)) + "/", "history",
                         {"number": number}, asked)  # fmt: skip
        if document == "cr":
            for term in sorted(self.lib.headwords(edition)):
                at = prefix + site_path(web.link("define", term.lower())) + "/"
                self.add(
                    at, "define", {"term": term}, asked, ("glossary", info.lang) if record else None
                )

    def _parallel(self, edition: str, lang: str, asked: bool) -> None:
        pair = f"en+{lang}"
        try:
            found = self.lib.parallel("100.1", ("en", lang), edition)
        except CrlookupError:  # (a language the library lacks: asked for, an error; else none)
            if asked:
                raise
            return
        self.parallel.append(pair)
        self.held.extend(v for v in found.to_dict()["editions"].values() if v not in self.held)
        for entry in self.lib.entries(edition):
            at = f"{pair}/" + site_path(web.link("rule", entry.number)) + "/"
            self.add(at, "rule", {"number": entry.number}, (("parallel", f"en,{lang}"),),
                     ("cr", lang))  # fmt: skip

    def _cards(self) -> None:
        from crlookup.core.names import name_key

        for name in self.lib.card_names():  # (CardsUnavailable: none in the library)
            if not name_key(name):  # ("_____": no name `crlookup card` can be asked)
                continue
            self.cards.append(name)
            self.add(site_path(web.link("card", name)) + "/", "card", {}, (("name", name),))
        self.cards.sort(key=str.casefold)

    def _diff(self, edition: str) -> None:
        before = [e.id for e in self.lib.editions("cr") if e.lang == "en" and not e.partial]
        if len(before) < 2:
            return
        previous = before[before.index(edition) - 1]
        self.prefixes.setdefault("previous", previous + "/")
        for old, new in ((previous, edition), ("previous", "latest")):
            self.add(f"diff/{old}/{new}/", "diff", {}, (("old", old), ("new", new)))

    # ------------------------------------------------------------ addresses

    def target(self, url: str) -> str | None:
        """The site's path of the page an absolute address of serve's names (None: the site
        does not have it); a static file's path as it is."""
        path, _sep, fragment = url.partition("#")
        path, _sep, query = path.partition("?")
        parts = path.strip("/").split("/")
        if parts[0] not in web.PREFIXED and parts[0] != "":
            return site_path(path) + (f"#{fragment}" if fragment else "")  # a file's
        asked = dict(urllib.parse.parse_qsl(query))
        prefix = ""
        if "parallel" in asked:
            pair = asked.pop("parallel").replace(",", "+")
            prefix = pair + "/"
        edition = asked.pop("edition", None)
        if edition is not None:
            if edition not in self.prefixes:
                return None
            prefix += self.prefixes[edition]
        asked.pop("cite", None)
        if parts[0] == "define" and len(parts) > 1:
            path = "/define/" + urllib.parse.quote(urllib.parse.unquote(parts[1]).lower(), safe="")
        at = prefix + (site_path(path).rstrip("/") + "/" if path.strip("/") else "")
        if parts[0] == "search":
            at = "search/"
            words = asked.get("q", "")
            return at + ("?" + urllib.parse.urlencode({"q": words}) if words else "")
        if asked or at not in self.pages:
            return None
        return at + (f"#{fragment}" if fragment else "")


_LINK = re.compile(r'<a ([^>]*?)href="(/[^"]*)"([^>]*)>(.*?)</a>', re.S)
_ATTRIBUTE = re.compile(r'(?<!<base )\b(href|src|action)="(/[^"]*)"')  # (<base>: as it is)


def relative(html: str, here: str, plan: Plan) -> str:
    """`html` of the page at `here` with its addresses relative to it; a link to a page the
    site does not have left as its text."""
    up = "../" * here.count("/")

    def anchor(m: re.Match) -> str:
        found = plan.target(unescape(m.group(2)))
        if found is None:
            return f'<span class="absent" {m.group(1)}{m.group(3)}>{m.group(4)}</span>'.replace(
                " >", ">"
            )
        return f'<a {m.group(1)}href="{up}{escape(found)}"{m.group(3)}>{m.group(4)}</a>'

    def attribute(m: re.Match) -> str:
        url = unescape(m.group(2))
        found = plan.target(url) if m.group(1) != "action" else plan.target(url.split("?")[0])
        if found is None:  # (a form: sent to the page it is on)
            found = here
        return f'{m.group(1)}="{up}{escape(found)}"'

    return _ATTRIBUTE.sub(attribute, _LINK.sub(anchor, html))


# ------------------------------------------------------------------ writing


def build(
    lib,
    folder: str,
    *,
    document_names: Iterable[str] = DOCUMENTS,
    editions: Iterable[str] = (),
    langs: Iterable[str] | None = None,
    base: str = "/",
    cards: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Built:
    """Write the site of `lib` into `folder` (made anew: written beside it, then put in its
    place): the newest edition of each of `document_names`, the CR's beside `langs` (None:
    those of PARALLEL the library has; a language asked for that it lacks, NotFound), and
    `editions` under their own prefixes, and with `cards` every card's page (online only);
    `base` the address the site is published at (its 404 page's links, which a host answers
    at any address, start there)."""
    from crlookup.ui.site import offline, search

    started = time.monotonic()
    folder = os.path.abspath(folder)
    _replaceable(folder)  # (before the work, and again before the folder is replaced)
    plan = Plan(lib, document_names, editions, langs, cards)
    site = _site_pages(plan)
    parent = os.path.dirname(folder)
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".site-", dir=parent)
    try:
        records: list[search.Record] = []
        planned = list(plan.pages.values())
        total = len(planned) + 1
        for done, found in _written(plan, site, planned, work):
            records.extend(found)
            if progress:
                progress(done, total)
        missing = site.html(
            "error.html", status=404, message=_("no such page in this site"), nearest=[],
            why="", base=base,
        )  # fmt: skip
        _write(work, "404.html", relative(missing, "", plan).encode("utf-8"))
        for name, found in site.files.items():
            _write(work, "static/" + web.hashed(name, site.files), found.data)
        for name in sorted(os.listdir(ICONS)):
            if name.endswith(".png"):
                shutil.copy(os.path.join(ICONS, name), os.path.join(work, name))
        _write(work, "manifest.webmanifest", manifest().encode("utf-8"))
        search.write(work, records)
        if plan.cards:
            _write(work, "cards.json", json.dumps(plan.cards, ensure_ascii=False).encode())
        if progress:
            progress(total - 1, total)
        leaves = left_out(plan)
        copy = offline.write(work, plan.held, leaves)
        size = sum(
            os.path.getsize(os.path.join(d, f)) for d, _dirs, files in os.walk(work) for f in files
        )
        _replace(work, folder)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    if progress:
        progress(total, total)
    return Built(
        folder,
        len(planned) + 1,
        size,
        copy,
        list(plan.held),
        leaves,
        round(time.monotonic() - started, 1),
        len(plan.cards),
    )


# Pages are written by a process per core (each with the library open for itself) from this
# many on: the full library's 14,192 pages took 58 s in one process on two cores
POOL_FROM = 1000
CHUNK = 200  # pages a process is handed at a time


def _written(plan: Plan, site: web.Pages, planned: list[Planned], work: str):
    """Each planned page rendered and written into `work`: (pages done, their search
    records), a chunk at a time, in order."""
    chunks = [planned[i : i + CHUNK] for i in range(0, len(planned), CHUNK)]
    workers = min(os.cpu_count() or 1, len(chunks), 8)
    done = 0
    if workers < 2 or len(planned) < POOL_FROM:
        for chunk in chunks:
            done += len(chunk)
            yield done, _write_pages(plan, site, chunk, work)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    spawn = multiprocessing.get_context("spawn")  # (no open library is carried over: a fork's)
    with ProcessPoolExecutor(
        workers,
        mp_context=spawn,
        initializer=_start,
        initargs=(plan.lib.root or os.path.dirname(plan.lib.path), plan),
    ) as pool:
        for chunk, found in zip(chunks, pool.map(_write_chunk, chunks, [work] * len(chunks))):
            done += len(chunk)
            yield done, found


_WORKER: list = []  # a writing process's (plan, pages), set by _start


def _start(root: str, plan: Plan) -> None:
    from crlookup import api

    plan.lib = api.open(root, heal=False)
    _WORKER[:] = [plan, _site_pages(plan)]


def _site_pages(plan: Plan) -> web.Pages:
    """serve's pages as the site renders them (its footer says if the cards are online only)."""
    site = web.Pages(site=True)
    site.env.globals["cards"] = bool(plan.cards)
    return site


def _write_chunk(chunk: list[Planned], work: str) -> list:
    plan, site = _WORKER
    return _write_pages(plan, site, chunk, work)


def _write_pages(plan: Plan, site: web.Pages, chunk: list[Planned], work: str) -> list:
    from crlookup.ui.site import search

    records = []
    for page in chunk:
        data, html = render(site, plan, page)
        _write(work, file_of(page.path), html.encode("utf-8"))
        if page.record is not None:
            records.extend(search.records_of(page, data))
    return records


def render(site: web.Pages, plan: Plan, page: Planned) -> tuple[Any, str]:
    """The JSON and the page's HTML (its links relative) of a planned page."""
    here = page.path
    if page.command == "home":
        html = site.html("home.html", newest=web.newest(plan.lib), contents=contents(plan))
        return None, relative(html, here, plan)
    if page.command == "glossary":
        edition = page.params["edition"]
        terms = sorted(plan.lib.headwords(edition), key=str.casefold)
        html = site.html("glossary.html", terms=terms, edition_shown=edition)
        return None, relative(html, here, plan)
    if page.command == "find":
        return None, relative(site.html("find.html"), here, plan)
    endpoint = BY_COMMAND[page.command]
    values = endpoint.read(page.params, list(page.query))
    data = endpoint.answer(plan.lib, values)
    shown = web.BY_PAGE[page.command]
    address = "/" + urllib.parse.unquote(here.rstrip("/"))
    moved = web.unprefixed(address)
    template, context = web.shown(
        shown, urllib.parse.quote(moved[0] if moved else address), list(page.query), values, data,
        plan.lib,
    )  # fmt: skip
    return data, relative(site.html(template, **context), here, plan)


def contents(plan: Plan) -> list[tuple[str, list[tuple[str, str]]]]:
    """The top of each document the site holds: the CR's chapters, the others' sections."""
    found = []
    for document, edition in web.newest(plan.lib).items():
        if plan.prefixes.get(edition) != "":
            continue
        top = [e for e in plan.lib.entries(edition) if e.kind in ("chapter", "section", "appendix")]
        if document == "cr":
            top = [e for e in top if e.kind == "chapter"]
        name = documents.PREFIX.get(document, "CR") if document != "cr" else "CR"
        found.append(
            (f"{name} · {edition}", [(web.label(e.number, document), e.title) for e in top])
        )
    order = {d: i for i, d in enumerate(DOCUMENTS)}
    return sorted(found, key=lambda f: order.get(f[0].split(" ")[0].lower(), 9))


def left_out(plan: Plan) -> list[str]:
    """What the offline copy does not hold (offline.json)."""
    cards = (
        _("the cards' {count:,} pages (online only)").format(count=len(plan.cards))
        if plan.cards
        else _("the cards (`crlookup site --cards` makes their pages, online only)")
    )
    return [
        cards,
        _("questions (`crlookup ask`)"),
        _("editions other than {editions}").format(editions=", ".join(plan.held)),
    ]


def manifest() -> str:
    """The web app manifest: what a phone installs (its name, icons, standalone)."""
    icons = [
        {"src": f"icon-{n}.png", "sizes": f"{n}x{n}", "type": "image/png", "purpose": "any"}
        for n in (192, 512)
    ] + [{"src": "icon-maskable-512.png", "sizes": "512x512", "type": "image/png",
          "purpose": "maskable"}]  # fmt: skip
    return json.dumps(
        {
            "name": _("crlookup: the Magic rules, offline"),
            "short_name": NAME,
            "description": _("The Comprehensive Rules, the IPG, the MTR and the JAR, offline."),
            "start_url": "./",
            "scope": "./",
            "display": "standalone",
            "background_color": "#ffffff",
            "theme_color": "#8a1c1c",
            "icons": icons,
        },
        ensure_ascii=False,
        indent=2,
    )


def _write(root: str, relative_path: str, data: bytes) -> None:
    path = os.path.join(root, relative_path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def _replaceable(folder: str) -> None:
    """Refuse a folder that holds something other than a site (BadInput): nothing of it is
    replaced."""
    held = os.path.isdir(folder) and os.listdir(folder)
    if held and not os.path.exists(os.path.join(folder, "offline.json")):
        raise BadInput(
            _("{folder} is not empty and holds no site: not replaced").format(folder=folder)
        )


def _replace(work: str, folder: str) -> None:
    """`work` in `folder`'s place: the old site, if any, moved aside first and then removed
    (a failed build leaves it as it was)."""
    old = None
    if os.path.exists(folder):
        _replaceable(folder)
        old = tempfile.mkdtemp(prefix=".site-old-", dir=os.path.dirname(folder))
        os.rmdir(old)
        os.rename(folder, old)
    os.rename(work, folder)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
