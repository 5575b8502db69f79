"""How the static site keys its pages: an address ("rule/IPG%202.1/") and the file that holds
it ("rule/IPG 2.1/index.html"), each the other's inverse. The pages' links (build.py) and the
offline copy's packs (offline.py) both name a page by its address, quoted once as links
quote it, so that the service worker finds in its cache what a link asks for."""

from __future__ import annotations

import urllib.parse


def site_path(path: str) -> str:
    """An address as the site keys it: no leading slash, its characters quoted once as links
    quote them ("/rule/IPG 2.1" and "/rule/IPG%202.1" are "rule/IPG%202.1"). A slash quoted
    in a link ("/card/Fire%20%2F%2F%20Ice") is part of a name, which a file's name cannot
    hold: its file's name holds "%2F" ("card/Fire %2F%2F Ice/"), its address "%252F"."""
    kept = path.lstrip("/").replace("%2F", "%252F").replace("%2f", "%252F")
    return urllib.parse.quote(urllib.parse.unquote(kept), safe="/+,")


def file_of(path: str) -> str:
    """Where a page's path lies in the folder: "rule/IPG%202.1/" -> "rule/IPG 2.1/index.html"."""
    plain = urllib.parse.unquote(path)
    return plain + "index.html" if plain.endswith("/") or not plain else plain


def address_of(path: str) -> str:
    """A file's address relative to the site, as its links give it: a page's folder
    ("rule/IPG 2.1/index.html" -> "rule/IPG%202.1/", "index.html" -> "")."""
    if path == "index.html":
        return ""
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return site_path(path)
