"""The server's web pages: what a judge on the floor reads on a phone, one stable address per
page (what is pasted into a chat), rendered on the server from the JSON its endpoint answers
(crlookup.ui.serve.endpoints): the same dict, so a page and `/v1/...` never disagree, with the
same parameters, limits, pools and errors.

    /                       the search box, and where to go from it
    /go?q=...               whatever was typed, as `crlookup <anything>`: sent on to its page
    /rule/702.19b           a rule (?edition=, ?parallel=en,ru); /rule/IPG%202.1 an IPG entry
    /search?q=...           /ask?q=...            /card/Giant%20Spider    /define/lethal%20damage
    /refs/702.19            /history/702.19b      /diff/previous/latest   /editions
    /static/site.css        the style and the script, cached for a year (their address
                            changes with their contents)

Every page works without JavaScript; site.js adds search as you type and a copy button.
Jinja2 (the serve extra's) renders them, imported with this module: only by `crlookup serve`.
"""

from __future__ import annotations

import hashlib
import os
import re
import urllib.parse
from typing import TYPE_CHECKING, Any, NamedTuple

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import Response

from crlookup.core import documents, references
from crlookup.core.i18n import _, language, ngettext

if TYPE_CHECKING:
    from crlookup.ui.serve.endpoints import Endpoint

HERE = os.path.dirname(__file__)
STATIC = os.path.join(HERE, "static")
YEAR = "public, max-age=31536000, immutable"  # a static file's address names its contents
PAGE_CACHE = "no-cache"  # a page: asked again each time (the library may have changed)
# What may stand before a page's path: an edition's id, an alias, a date, two languages
_PREFIX = re.compile(r"^(?:[a-z]+(?:-[a-z]+)*-\d{4}-\d{2}-\d{2}|(?:[a-z]+-)?(?:latest|previous)"
                     r"|\d{4}-\d{2}-\d{2}|[a-z]{2}\+[a-z]{2})$")  # fmt: skip
_EDITION = re.compile(r"^[a-z]+(?:-[a-z]+)*-\d{4}-\d{2}-\d{2}")  # "en-2024-07-30", "ipg-2024-09-23"


class Page(NamedTuple):
    """A page at `path` (its parameters are its endpoint's, by name) showing what `command`
    answers (the endpoint of that command), with `template`; `extra` values the page always
    asks for (the rule's citation)."""

    path: str
    command: str
    template: str
    extra: tuple[tuple[str, Any], ...] = ()


PAGES = (
    Page("/rule/{number}", "rule", "rule.html", (("cite", True),)),
    Page("/search", "search", "search.html"),
    Page("/ask", "ask", "ask.html"),
    Page("/card/{name:path}", "card", "card.html"),  # (a name may have a slash: "Fire // Ice")
    Page("/define/{term:path}", "define", "define.html"),
    Page("/refs/{number}", "refs", "refs.html"),
    Page("/history/{number}", "history", "history.html"),
    Page("/diff/{old}/{new}", "diff", "diff.html"),
    Page("/editions", "editions", "editions.html"),
)
BY_PAGE = {p.command: p for p in PAGES}
# The pages an address may put an edition (or two languages) before (`unprefixed`), and the
# first parts of addresses that are never one
PREFIXED = frozenset(p.path.split("/")[1] for p in PAGES)
PREFIXES = PREFIXED | {"v1", "static", "go", "site", "healthz", "openapi.json"}
# The argument a page's address carries, for a link to it: its name in the request
ARGUMENT = {"search": "q", "ask": "q", "card": "name", "define": "term"}


def unprefixed(path: str) -> tuple[str, tuple[str, str]] | None:
    """A page's address with an edition or languages before it, as the static site writes
    one (crlookup.ui.site): "/en-2024-07-30/rule/702.19b" is "/rule/702.19b" with
    ("edition", "en-2024-07-30"); "/en+zh/rule/702.19b" with ("parallel", "en,zh"). None for
    any other path."""
    parts = path.split("/", 3)
    if len(parts) < 3 or parts[1] in PREFIXES or parts[2] not in PREFIXED or not parts[1]:
        return None
    first = urllib.parse.unquote(parts[1])
    if not _PREFIX.match(first):  # ("/v2/rule/702.19" is no edition's: a 404 as before)
        return None
    if "+" in first:
        return "/" + "/".join(parts[2:]), ("parallel", first.replace("+", ","))
    return "/" + "/".join(parts[2:]), ("edition", first)


def query_of(request: Request) -> list[tuple[str, str]]:
    """A request's query parameters, in order, empty ones kept (UTF-8: the guard let it in)."""
    return urllib.parse.parse_qsl(
        request.scope["query_string"].decode("utf-8"), keep_blank_values=True
    )


def here(request: Request) -> str:
    """The request's path as a link to it: encoded ("/card/Blood%20Moon", "/rule/MTR%204.3";
    the slashes of "Fire // Ice" kept, as its page's address reads them)."""
    return urllib.parse.quote(request.url.path)


def values_of(page: Page, endpoint: Endpoint, request: Request) -> dict[str, Any]:
    """The endpoint's values for a request of `page`: its path's parameters and its query's,
    read as the endpoint reads them (`BadInput` for what it would refuse)."""
    query = query_of(request)
    where = {p.name: p.where for p in endpoint.params}
    path: dict[str, str] = {}
    for name, value in request.path_params.items():
        # (the static site's address of a name with a slash: "/card/Fire%20%252F%252F%20Ice",
        # its file's name holding "%2F", crlookup.ui.site.addresses)
        value = value.replace("%2F", "/")
        if where.get(name) == "path":
            path[name] = value
        else:  # (the card's name, the diff's editions: a query parameter of the endpoint)
            query.append((name, value))
    values = endpoint.read(path, query)
    for name, value in page.extra:
        values[name] = value
    return values


# ------------------------------------------------------------------ addresses


def link(command: str, *arguments: str, **query: Any) -> str:
    """The address of a page: `link("rule", "702.19b", edition="en-2024-07-30")`; a query
    parameter that is None or False is left out."""
    page = BY_PAGE[command]
    path = page.path
    for argument in arguments:
        if "{" not in path:
            query = {ARGUMENT.get(command, "q"): argument, **query}
            break
        start, end = path.index("{"), path.index("}")
        path = path[:start] + urllib.parse.quote(argument, safe="") + path[end + 1 :]
    given = {k: ("true" if v is True else v) for k, v in query.items() if v not in (None, False)}
    return path + ("?" + urllib.parse.urlencode(given) if given else "")


def rule_link(number: str, document: str = "cr", edition: str | None = None) -> str:
    """The address of an entry cited by number: "702.19c" of a CR edition, "MTR 4.3" (a
    tournament document's, as judges write it), "glossary:Trample" (a glossary term)."""
    if number.startswith("glossary:"):
        return link("define", label(number), edition=edition)
    own = " " not in number  # an entry of the same document: the same edition ("MTR 4.3": not)
    return link("rule", label(number, document), edition=edition if own else None)


def parent(number: str) -> str | None:
    """The CR entry above `number` (702.19 above 702.19b, 702 above 702.19), or None."""
    from crlookup.core import numbers
    from crlookup.core.errors import NumberError

    try:
        above = numbers.parse(number).parent
    except NumberError:
        return None
    return str(above) if above is not None else None


def label(number: str, document: str = "cr") -> str:
    """An entry's number as shown: "702.19b", "IPG 2.1", "Trample" (a glossary term)."""
    if number.startswith("glossary:"):
        return number.split(":", 1)[1]
    if document != "cr" and " " not in number:
        return documents.label(document, number)
    return number


def linked(text: str, edition: str | None = None) -> Markup:
    """`text`, escaped, with its cross-references ("See rule 510.1c", "rules 601.2e–g") as
    links to the rules they name (crlookup.core.references: what the library resolves)."""
    out, at = [], 0
    for start, end, ref in references.spans(text):
        out.append(escape(text[at:start]))
        out.append(Markup('<a href="{}">{}</a>').format(rule_link(ref.first, "cr", edition),
                                                       text[start:end]))  # fmt: skip
        at = end
    out.append(escape(text[at:]))
    return Markup("").join(out)


def paragraphs(text: str, edition: str | None = None, cite: bool = True) -> Markup:
    """`text` as paragraphs (a line each), its lines that begin "• " as a list (the
    tournament documents' bullets), the cross-references as links when `cite` (the CR's)."""
    out: list[Markup] = []
    items: list[Markup] = []
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        shown = (
            linked(line.lstrip("•").strip(), edition) if cite else escape(line.lstrip("•").strip())
        )
        if line.startswith("•"):
            items.append(Markup("<li>{}</li>").format(shown))
            continue
        if items:
            out.append(Markup("<ul>{}</ul>").format(Markup("").join(items)))
            items = []
        out.append(Markup("<p>{}</p>").format(shown))
    if items:
        out.append(Markup("<ul>{}</ul>").format(Markup("").join(items)))
    return Markup("").join(out)


def marked(snippet: str) -> Markup:
    """A search hit's snippet, its matched words (between \\x01 and \\x02) in <mark>."""
    parts = re.split("[\x01\x02]", snippet)
    return Markup("").join(
        Markup("<mark>{}</mark>").format(p) if i % 2 else escape(p) for i, p in enumerate(parts)
    )


# ------------------------------------------------------------------ rendering


class Static(NamedTuple):
    """A static file, held in memory: its bytes, type and the version its address carries."""

    data: bytes
    media_type: str
    version: str


def statics(*folders: str) -> dict[str, Static]:
    """The static files of STATIC (and of `folders`: the static site's own), by name."""
    kinds = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
    found = {}
    for folder in (STATIC, *folders):
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
            kind = kinds.get(os.path.splitext(name)[1], "application/octet-stream")
            found[name] = Static(data, kind, hashlib.sha256(data).hexdigest()[:10])
    return found


def hashed(name: str, files: dict[str, Static]) -> str:
    """A static file's name in the static site, its version in it: "site.1a2b3c4d5e.css"."""
    stem, ext = os.path.splitext(name)
    return f"{stem}.{files[name].version}{ext}"


def environment(files: dict[str, Static], site: bool = False) -> Environment:
    """The templates, with the interface's messages (crlookup.core.i18n) and the helpers;
    with `site`, as the static site writes them (crlookup.ui.site): its static files at
    addresses of their own, its search box and its offline copy."""
    env = Environment(
        loader=FileSystemLoader(os.path.join(HERE, "templates")),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # (shipped with the package: read once per worker)
    )
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=_, ngettext=ngettext, newstyle=True
    )  # (the i18n extension's: mypy cannot see it)
    env.globals.update(
        link=link,
        rule_link=rule_link,
        label=label,
        parent=parent,
        static=(
            (lambda name: f"/static/{hashed(name, files)}")
            if site
            else (lambda name: f"/static/{name}?v={files[name].version}")
        ),
        lang=language(),
        site=site,
        cards=False,  # (the static site's: whether it has the cards' pages, online only)
    )
    from crlookup.ui.render.card import RULES_FOUND  # (what the "→" under a ruling is)
    from crlookup.ui.render.diff import KIND_LABELS  # (the kinds of change, as named)
    from crlookup.ui.render.text import EXAMPLE_LABELS, spaced

    env.globals["example_label"] = lambda lang: spaced(EXAMPLE_LABELS.get(lang, "Example:"))
    env.globals["rules_found"] = lambda: _(RULES_FOUND)

    env.filters.update(
        linked=linked,
        paragraphs=paragraphs,
        marked=marked,
        long_date=long_date,
        change=lambda kind: _(KIND_LABELS[kind]) if kind in KIND_LABELS else kind,
    )
    return env


def long_date(day: str) -> str:
    """A date as the interface's language writes it ("August 7, 2026")."""
    from datetime import date

    from babel.dates import format_date

    return format_date(date.fromisoformat(day), format="long", locale=language())


class Pages:
    """The pages of one worker: its templates and static files; a page rendered from the
    JSON of its endpoint, as the server answered it (crlookup.ui.serve.app)."""

    def __init__(self, site: bool = False) -> None:
        folders = () if not site else (os.path.join(os.path.dirname(HERE), "site", "static"),)
        self.files = statics(*folders)
        self.env = environment(self.files, site)

    def html(self, template: str, **context: Any) -> str:
        context.setdefault("edition", None)
        context.setdefault("switch", None)
        context.setdefault("q", "")
        return self.env.get_template(template).render(**context)

    def render(self, template: str, code: int = 200, **context: Any) -> Response:
        return Response(
            self.html(template, **context),
            code,
            {"Cache-Control": PAGE_CACHE},
            media_type="text/html; charset=utf-8",
        )

    def static(self, request: Request) -> Response:
        """A static file; cached for a year only at the address of its contents (`static`):
        asked for by another version's (an old page's), it is asked again each time."""
        found = self.files.get(request.path_params["name"])
        if found is None:
            return self.failed(404, _("no such file"), [])
        kept = YEAR if dict(query_of(request)).get("v") == found.version else PAGE_CACHE
        return Response(found.data, headers={"Cache-Control": kept}, media_type=found.media_type)

    def failed(
        self,
        status: int,
        message: str,
        suggestions: list[str],
        headers: dict | None = None,
        request: Request | None = None,
        why: str = "",
    ) -> Response:
        """An error as a page: what the command says, the nearest that exist as links (an
        edition: this page in it; a rule, a term: where the search box sends it); `why` a
        503's cause (crlookup.ui.serve.app.Refusal: "busy", "library")."""
        query = query_of(request) if request is not None else []
        edition = dict(query).get("edition")
        # the document of the entry asked for: its nearest are its ("MTR banana": MTR 1.1)
        asked_for = request.path_params.get("number", "") if request is not None else ""
        document = documents.split(asked_for).document if asked_for else None
        nearest = []
        for found in suggestions:
            if request is not None and _EDITION.match(found):
                kept = [(k, v) for k, v in query if k != "edition"] + [("edition", found)]
                nearest.append((found, f"{here(request)}?{urllib.parse.urlencode(kept)}"))
                continue
            named = found
            if document not in (None, "cr") and documents.is_number(found):
                named = documents.label(document, found)
            asked = {"q": named, **({"edition": edition} if edition else {})}
            nearest.append((named, f"/go?{urllib.parse.urlencode(asked)}"))
        shown = self.render(
            "error.html", status, status=status, message=message, nearest=nearest, q="", why=why
        )
        shown.headers.update(headers or {})
        return shown

    def page(self, page: Page, request: Request, values: dict, data: Any, lib) -> Response:
        """`page` showing `data`, its endpoint's JSON for `values`, read from `lib` (in its
        thread)."""
        template, context = shown(page, here(request), query_of(request), values, data, lib)
        return self.render(template, **context)

    def home(self, lib) -> Response:
        """The search box, where to start, and the newest edition of each document."""
        return self.render("home.html", newest=newest(lib))


def newest(lib) -> dict[str, str]:
    """The newest complete English edition of each document: {document: id}."""
    found: dict[str, str] = {}
    for e in lib.editions(None):
        if e.lang == "en" and not e.partial:
            found[e.document] = e.id  # (oldest first: the last is the newest)
    return found


def shown(
    page: Page, path: str, query: list[tuple[str, str]], values: dict, data: Any, lib
) -> tuple[str, dict[str, Any]]:
    """The template and context of `page` at `path` (as linked to) with `query`, showing
    `data`, its endpoint's JSON for `values`, read from `lib`: what serve renders for a
    request, and the static site for a page it writes (crlookup.ui.site)."""
    asked = dict(query)
    template = page.template
    if page.command == "rule" and isinstance(data, dict) and "pairs" in data:
        template = "parallel.html"
    switch = None
    edition = data.get("edition") if isinstance(data, dict) else None
    if isinstance(edition, str):  # (an id of the library's: the JSON names the one it read)
        info = lib.edition(edition)
        switch = {
            "path": path,
            "hidden": [(k, v) for k, v in query if k != "edition"],
            "editions": switcher(lib, info.document, info.lang),
            "current": edition,
            "document": info.document,
            "lang": info.lang,
        }
    q = asked.get("q", "") if page.command in ("search", "ask") else ""
    before: dict[str, str | None] = {}
    if page.command == "editions":  # each edition's one before (its document, language)
        last: dict[tuple[str, str], str] = {}
        for e in sorted(data, key=lambda e: e["date"]):
            key = (e["document"], e["lang"])
            before[e["id"]] = last.get(key) if not e["partial"] else None
            if not e["partial"]:
                last[key] = e["id"]
    context = {
        "data": data,
        "values": values,
        "edition": asked.get("edition"),
        "switch": switch,
        "q": q,
        "before": before,
    }
    return template, context


def address(command: str, values: dict[str, Any], words: str, edition: str | None) -> str:
    """Where the search box sends `words`: the page of the `command` that `crlookup
    <anything>` runs for them with `values` (crlookup.ui.serve.endpoints.routed: a number to
    its rule, a question to ask, a card's name to the card, other words to a search)."""
    argument = values.get("number") or values.get("words") or words
    if command not in BY_PAGE:
        command, argument = "search", words
    if command == "rule":  # its address as judges write it: "702.19" (not "cr 702.19"), "IPG 2.1"
        cited = documents.split(argument)
        argument = cited.number
        if cited.document not in (None, "cr"):  # (its document kept: "MTR banana" is no CR rule)
            if documents.is_number(cited.number):
                argument = documents.number(cited.number)
            argument = f"{documents.PREFIX[cited.document]} {argument}"
    return link(command, argument, edition=edition)


def switcher(lib, document: str, lang: str) -> list[str]:
    """The editions a page can switch to: those of its document and language, newest first."""
    return [e.id for e in reversed(lib.editions(document)) if e.lang == lang]
