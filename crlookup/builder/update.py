"""`crlookup update`: find the current rules text on Wizards' rules page, download it, add it if new.

Steps: read the rules page (`RULES_PAGE`, or the environment variable CRLOOKUP_RULES_PAGE), take
its link to the rules text (an href ending in .txt, one naming MagicCompRules first), download
that file, check that it is one English edition of the official text, and ingest it
(`crlookup.builder.ingest`) unless the library already has an edition of that id or a source of
the same bytes. `update(source=...)` skips the page: a URL is downloaded, a file used as it is.

Downloads are streamed into `<home>/downloads/.partial-<random>/` and removed when `update`
returns or fails (KeyboardInterrupt included); only a download that arrived whole, within
`MAX_FILE`, is ever read. Every failure raises `UpdateError` (one line) before the library is
touched. The network is reached through urllib, imported only here, only when needed.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from crlookup.builder import manifest
from crlookup.builder import pipeline as build
from crlookup.builder.ingest import ingest
from crlookup.core import paths
from crlookup.core.errors import SourceError, UpdateError
from crlookup.core.i18n import _
from crlookup.version import __version__

if TYPE_CHECKING:
    from collections.abc import Iterator

    from crlookup.builder.stage import Progress
    from crlookup.library.reader import Library

RULES_PAGE = "https://magic.wizards.com/en/rules"
PAGE_ENV = "CRLOOKUP_RULES_PAGE"  # another rules page (a mirror; the tests' local server)
TIMEOUT = 30.0  # seconds without an answer before a connection or a read gives up
MAX_PAGE = 5_000_000  # bytes: the rules page is well under 1 MB
MAX_FILE = 20_000_000  # bytes: a rules text is about 1 MB (2 MB in UTF-16)
USER_AGENT = f"crlookup/{__version__} (offline Comprehensive Rules lookup; Python urllib)"
DOWNLOADS = "downloads"  # under the library home: partial downloads only, never kept
STALE = 24 * 3600  # seconds after which a partial download left by a killed process is swept


@dataclass(frozen=True)
class Update:
    """What `update` did: added `edition` (with its changes against `previous`), or nothing."""

    edition: str
    source: str  # the URL downloaded or the file given
    added: bool  # False: the library already had this edition ("already up to date")
    previous: str | None = None  # the English edition the changes are counted against
    rules_added: int = 0  # rules and subrules
    rules_changed: int = 0  # changed, moved, split or merged
    rules_removed: int = 0
    kinds: dict = field(
        default_factory=dict
    )  # every kind of change (crlookup.core.alignment.KINDS)

    def to_dict(self) -> dict:
        return {
            "edition": self.edition,
            "source": self.source,
            "status": "added" if self.added else "up to date",
            "against": self.previous,
            "rules": {
                "added": self.rules_added,
                "changed": self.rules_changed,
                "removed": self.rules_removed,
            }
            if self.added
            else None,
            "kinds": self.kinds if self.added else None,
        }


def rules_page() -> str:
    return os.environ.get(PAGE_ENV) or RULES_PAGE


def update(
    source: str | None = None, root: str | None = None, progress: Progress | None = None
) -> Update:
    """Add the current rules text to the library at `root` if it is new.

    `source` is a URL (http or https) or a file path to use instead of the rules page's link.
    Raises `UpdateError`; `ingest` may raise what it raises (the library stays as it was).
    """
    root = root or paths.home()
    if source and not _is_url(source):
        path = Path(source).expanduser()
        data = _read_file(path)
        return _add(path, data, str(path), root, progress, downloaded=False)
    url = source or find_rules_text(rules_page())
    with _download(url, root) as path:
        return _add(path, path.read_bytes(), url, root, progress, downloaded=True)


# --------------------------------------------------------------------------- the page


def find_rules_text(page: str) -> str:
    """The URL of the rules text that the rules page at `page` links to."""
    body, final, charset = _fetch(page, MAX_PAGE)
    link = rules_text_link(body.decode(charset or "utf-8", "replace"), final)
    if link is None:
        raise UpdateError(
            _("the rules page has changed: no link to the rules text (.txt) on {url}").format(
                url=page
            )
        )
    return link


def rules_text_link(html: str, base: str) -> str | None:
    """The absolute URL of the page's link to a .txt file, one naming MagicCompRules first."""
    from html.parser import HTMLParser
    from urllib.parse import unquote, urljoin, urlsplit

    links: list[str] = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            links.extend(v.strip() for k, v in attrs if k == "href" and v)

    parser = Links(convert_charrefs=True)
    parser.feed(html)
    parser.close()
    found = [urljoin(base, link) for link in links]
    texts = [
        u
        for u in found
        if urlsplit(u).scheme in ("http", "https")  # never file:
        and urlsplit(u).path.lower().endswith(".txt")
    ]
    texts.sort(key=lambda u: "magiccomprules" not in unquote(u).lower())  # stable
    return texts[0] if texts else None


# --------------------------------------------------------------------------- the network


def _is_url(source: str) -> bool:
    return re.match(r"(?i)https?://", source) is not None


def _open(url: str):
    """The response to a GET of `url`; every way of not getting one is an `UpdateError`."""
    import http.client
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        return urllib.request.urlopen(request, timeout=TIMEOUT)
    except urllib.error.HTTPError as e:
        e.close()
        raise UpdateError(
            _("cannot download {url}: the server answered {status} {reason}").format(
                url=url, status=e.code, reason=e.reason
            )
        ) from None
    except urllib.error.URLError as e:
        raise UpdateError(
            _("cannot download {url}: {reason}").format(url=url, reason=_reason(e.reason))
        ) from None
    except (OSError, http.client.HTTPException, ValueError) as e:
        raise UpdateError(
            _("cannot download {url}: {reason}").format(url=url, reason=_reason(e))
        ) from None


def _reason(error) -> str:
    """A network error in words: 'Connection refused', not '[Errno 111] Connection refused'."""
    if isinstance(error, TimeoutError):
        return _("no answer in {seconds} s").format(seconds=f"{TIMEOUT:g}")
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _stream(url: str, limit: int, write) -> tuple[int, str, str | None]:
    """Download `url`, passing its body to `write` chunk by chunk; returns the size, the final
    URL (after redirects) and the charset. Too large, cut short or failing: `UpdateError`."""
    import http.client

    with _open(url) as response:
        final, charset = response.geturl(), response.headers.get_content_charset()
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.isdigit() else None
        too_large = UpdateError(
            _("cannot download {url}: larger than {limit} MB").format(
                url=url, limit=f"{limit / 1_000_000:g}"
            )
        )
        if expected is not None and expected > limit:
            raise too_large
        size = 0
        try:
            while chunk := response.read(65536):
                size += len(chunk)
                if size > limit:
                    raise too_large
                write(chunk)
        except (OSError, http.client.HTTPException) as e:
            raise UpdateError(
                _("cannot download {url}: {reason}").format(url=url, reason=_reason(e))
            ) from None
    if expected is not None and size != expected:
        raise UpdateError(
            _("cannot download {url}: the connection closed after {size} of {total} bytes").format(
                url=url, size=size, total=expected
            )
        )
    return size, final, charset


def _fetch(url: str, limit: int) -> tuple[bytes, str, str | None]:
    """The body of `url` in memory, its final URL and its charset."""
    chunks: list[bytes] = []
    _size, final, charset = _stream(url, limit, chunks.append)
    return b"".join(chunks), final, charset


@contextlib.contextmanager
def _download(url: str, root: str) -> Iterator[Path]:
    """The whole file at `url`, in a folder of its own under the library home that is removed
    on the way out, however it is left (a failure, Ctrl-C)."""
    import shutil
    import uuid

    downloads = Path(root) / DOWNLOADS
    downloads.mkdir(parents=True, exist_ok=True)
    _sweep(downloads)
    folder = downloads / f".partial-{uuid.uuid4().hex}"
    folder.mkdir()
    try:
        name = _file_name(url)
        partial = folder / f"{name}.part"
        with open(partial, "wb") as f:
            _stream(url, MAX_FILE, f.write)
        path = folder / name
        os.replace(partial, path)  # only a whole download has the file's name
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            downloads.rmdir()  # only if no other process is downloading


def _file_name(url: str) -> str:
    """The downloaded file's name, from the URL ('MagicCompRules 20250404.txt' becomes
    'MagicCompRules-20250404.txt'): the name the ingested copy keeps in sources/."""
    from urllib.parse import unquote, urlsplit

    name = re.sub(r"[^\w.-]+", "-", unquote(urlsplit(url).path.rsplit("/", 1)[-1])).strip(".-")
    return name if name.lower().endswith(".txt") else "MagicCompRules.txt"


def _sweep(downloads: Path) -> None:
    """Remove partial downloads of processes killed too hard for their cleanup to run."""
    import shutil
    import time

    for p in downloads.glob(".partial-*"):
        try:
            if time.time() - p.stat().st_mtime > STALE:
                shutil.rmtree(p, ignore_errors=True)
        except OSError:
            pass


# --------------------------------------------------------------------------- the library


def _read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise UpdateError(f"{path}: {e.strerror}", bad_input=True) from None


def _check(path: Path, data: bytes, where: str, downloaded: bool):
    """The one English edition of the official text in `data`, or `UpdateError`."""
    from crlookup import sources

    bad = not downloaded
    try:
        fmt = sources.detect(path, data)
        if fmt != "text" and downloaded:
            raise UpdateError(
                _(
                    "{url} is not the rules text Wizards publishes (it reads as the {format} "
                    "format)"
                ).format(url=where, format=fmt)
            )
        if fmt != "text":
            raise UpdateError(
                _(
                    "{file} is not the rules text Wizards publishes (it reads as the {format} "
                    "format); add it with `crlookup ingest`"
                ).format(file=where, format=fmt),
                bad_input=True,
            )
        found = sources.read(path, data, fmt)
    except SourceError as e:
        if downloaded:
            raise UpdateError(
                _("{url} is not a rules text: {reason}").format(url=where, reason=e)
            ) from None
        raise UpdateError(str(e), bad_input=True) from None
    if len(found) != 1 or found[0].lang != "en":
        raise UpdateError(
            _("{source}: expected one English edition, found {found}").format(
                source=where, found=", ".join(e.id for e in found) or "none"
            ),
            bad_input=bad,
        )
    short = cut_short(found[0])
    if short:  # a download cut off, a file half copied: never added as if it were the rules
        raise UpdateError(
            _(
                "{source}: the rules text is cut short ({how}, line {line}): expected the "
                "whole text, through the glossary and the credits"
            ).format(source=where, how=short[0], line=short[1]),
            bad_input=bad,
        )
    return found[0]


def cut_short(edition) -> tuple[str, int] | None:
    """How an official text's edition shows it is not whole, and the last line read (the
    parser reads what there is, noting what is missing): None if it is whole."""
    last = max((r.source.line or 0 for r in edition.rules), default=0)
    last = max([last, *((g.source.line or 0) for g in edition.glossary if g.source)])
    if edition.partial:
        number = edition.rules[-1].number if edition.rules else "?"
        return _("it ends in rule {number}").format(number=number), last
    if not edition.glossary:
        return _("it has no glossary"), last
    if any("cut short" in note for note in edition.notes):
        return _("its glossary ends without the credits"), last
    return None


def _add(path: Path, data: bytes, where: str, root: str, progress, downloaded: bool) -> Update:
    """Ingest the checked file unless the library has it; count what changed."""
    import hashlib

    edition = _check(path, data, where, downloaded)
    lib = build.open_library(root, progress)
    try:
        editions = lib.editions()
        there = next((e for e in editions if e.id == edition.id), None)
        replacing = there.id if there and there.partial and _users(root, there.id) else None
        if there is not None and replacing is None:
            return Update(edition.id, where, added=False)
        digest = hashlib.sha256(data).hexdigest()
        for f in manifest.source_files(root):  # the same bytes, ingested under another --id
            if f.format != manifest.CARDS and f.stat()[0] == len(data) and f.sha256() == digest:
                return Update((f.editions or (edition.id,))[0], where, added=False)
        english = [
            e for e in editions if e.lang == "en" and e.date <= edition.date and e.id != replacing
        ]
        complete = [e for e in english if not e.partial] or english
        previous = complete[-1].id if complete else None
    finally:
        lib.close()
    ingest(str(path), {}, root, progress, replacing=replacing)
    if previous is None:
        return Update(edition.id, where, added=True)
    lib = build.open_library(root)
    try:
        return _changes(lib, previous, edition.id, where)
    finally:
        lib.close()


def _users(root: str, edition: str) -> bool:
    """Whether `edition` is the user's own, added alone from a file (`ingest`, `update`)."""
    return any(f.editions == (edition,) for f in manifest.source_files(root) if f.origin == "user")


def _changes(lib: Library, old: str, new: str, where: str) -> Update:
    """The rules and subrules of `new` added, changed and removed since `old`."""
    from crlookup.core import numbers
    from crlookup.core.alignment import number_of
    from crlookup.features import diff
    from crlookup.library import alignments

    matches = alignments.stored(lib, old, new) or alignments.align_editions(lib, old, new)
    if lib.edition(new).partial:  # sections a partial edition lacks were not removed
        present = {n.split(".")[0] for n in lib.numbers(new)}
        matches = [
            m
            for m in matches
            if not (m.kind == "removed" and number_of(m).split(".")[0] not in present)
        ]
    rules = [m for m in matches if numbers.parse(number_of(m)).kind in ("rule", "subrule")]
    kinds = diff.summary(rules)["total"]
    return Update(
        new,
        where,
        added=True,
        previous=old,
        rules_added=kinds["added"],
        rules_changed=sum(kinds[k] for k in ("changed", "moved", "split", "merged")),
        rules_removed=kinds["removed"],
        kinds=kinds,
    )
