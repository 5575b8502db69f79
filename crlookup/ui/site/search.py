"""The static site's search: Pagefind's index of the entries, and the numbers a number typed
goes straight to.

Pagefind is made for static sites: its index is cut into chunks the browser fetches as a
search needs them (a few of its files for a word, not the whole index), and the extended
build segments Chinese into words. It is fed records, not pages: each entry's own number,
title and text, in its language (the Chinese of a side-by-side page as Chinese), so that a
page's header, links and neighbours are not what it is found by. numbers.json maps each entry's
number, as judges write it ("702.19b", "IPG 2.3"), to its page.

Pagefind has no typo tolerance: words.json lists the English words the records hold, the
most frequent first, which find.js corrects a word typed that is not one of them to
("deathtuch": "deathtouch") before asking Pagefind.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from typing import Any, NamedTuple

from crlookup.core.errors import CrlookupError
from crlookup.core.i18n import _
from crlookup.ui.serve import pages as web
from crlookup.ui.site.addresses import file_of

# Pagefind's own search interfaces, which the site does not use (find.js shows the results
# with the pages' own markup, through the JS API, pagefind.js): not published, not kept offline
UNUSED = (
    "pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
    "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js",
)  # fmt: skip


class Record(NamedTuple):
    """One searchable entry: its page's path, its title (number and name), its words, the
    document it is of ("cr", "ipg", "glossary"...) and their language, and the number a judge
    types for it ("702.19b", "IPG 2.3"; None for a term, and for a side-by-side page: its
    English page has the number)."""

    url: str
    title: str
    content: str
    document: str
    lang: str
    number: str | None = None


def records_of(page, data: Any) -> list[Record]:
    """The search record of a planned page (crlookup.ui.site.build.Planned), from its JSON."""
    document, lang = page.record
    if page.command == "define":
        found = []
        for m in data.get("matches", [])[:1]:
            text = (m.get("glossary") or {}).get("text", "")
            found.append(Record(page.path, m["name"], f"{m['name']}. {text}", "glossary", lang))
        return found
    if "pairs" in data:  # a side-by-side page: found by its other language's words
        pair = next((p for p in data["pairs"] if p.get(lang)), None)
        side = pair.get(lang) if pair else None
        if not side or side.get("missing"):
            return []
        words = " ".join(
            [side.get("title") or "", side.get("text") or "", *side.get("examples", [])]
        )
        title = f"{side['number']} {side.get('title') or ''}".strip()
        return [Record(page.path, title, words, document, lang)]
    number = web.label(data["number"], data.get("document", "cr"))
    words = " ".join(
        [data.get("title") or "", data.get("text") or "", *data.get("examples", [])]
        + [v for k, v in (data.get("parts") or {}).items()]
    )
    title = f"{number} {data.get('title') or ''}".strip()
    return [Record(page.path, title, f"{number} {words}", document, lang, number)]


def write(folder: str, records: list[Record]) -> None:
    """Pagefind's index of `records` into folder/pagefind, and numbers.json."""
    _index(folder, records)
    for name in UNUSED:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(folder, "pagefind", name))
    numbers = {r.number: r.url for r in records if r.number is not None}
    with open(os.path.join(folder, "numbers.json"), "w", encoding="utf-8") as f:
        json.dump(numbers, f, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(folder, "words.json"), "w", encoding="utf-8") as f:
        json.dump(vocabulary(records), f, ensure_ascii=False, separators=(",", ":"))


_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def vocabulary(records: list[Record]) -> list[str]:
    """Every English word of `records` of three letters or more, the most frequent first (a
    tie: alphabetical): a word typed that is not one of them finds nothing (find.js)."""
    counts = Counter(
        w for r in records if r.lang == "en" for w in _WORD.findall(r.content.lower()) if len(w) > 2
    )
    return [w for w, _n in sorted(counts.items(), key=lambda c: (-c[1], c[0]))]


def _index(folder: str, records: list[Record]) -> None:
    """Pagefind's index of `records`, each written as a page of its own words (its number,
    title and text, in its language) in a folder beside the site, which Pagefind's command
    indexes at once. (Its Python API sends records one at a time, 0.1 s each: 1,000 took
    100 s, the folder of them 0.5 s; Pagefind/pagefind#976.)"""
    pages = tempfile.mkdtemp(prefix=".records-", dir=os.path.dirname(os.path.abspath(folder)))
    try:
        for r in records:
            path = os.path.join(pages, file_of(r.url))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(_page(r))
        output = os.path.join(folder, "pagefind")
        command = [sys.executable, "-m", "pagefind", "--site", pages, "--output-path", output]
        done = subprocess.run([*command, "--silent"], check=False, capture_output=True, text=True)
        if done.returncode != 0:
            said = (done.stderr or done.stdout or f"exit code {done.returncode}").strip()
            raise CrlookupError(
                _("Pagefind could not index the site: {said}").format(said=said.splitlines()[-1])
            )
    finally:
        shutil.rmtree(pages, ignore_errors=True)


def _page(r: Record) -> str:
    """A record as Pagefind reads a page: its language, its title and document (a filter), and
    its words, all of them indexed (the page's URL is its path in the folder: the record's)."""
    return (
        f'<!doctype html><html lang="{r.lang}"><head><meta charset="utf-8">'
        f'<title data-pagefind-meta="title">{html.escape(r.title)}</title>'
        f'<meta data-pagefind-filter="document[content]" content="{r.document}"></head>'
        f"<body data-pagefind-body>{html.escape(r.content)}</body></html>"
    )
