"""How the static site keys its pages: an address ("rule/IPG%202.1/") and the file that holds
it ("rule/IPG 2.1/index.html"), each the other's inverse. The pages' links (build.py) and the
offline copy's packs (offline.py) both name a page by its address, quoted once as links
quote it, so that the service worker finds in its cache what a link asks for."""

from __future__ import annotations

import urllib.parse


def site_path(path: str) -> str:
    """An address as the site keys it: no leading slash, its characters quoted once as links
    quote them ("/rule/IPG 2.1" and "/rule/IPG%202.1" are "rule/IPG%202.1")."""
    return urllib.parse.quote(urllib.parse.unquote(path.lstrip("/")), safe="/+,")


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
