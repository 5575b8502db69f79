"""The static site's offline copy: its files in a few packs, and what the service worker needs.

A phone saving thousands of pages one request at a time waits on each; the packs are the
site's files in a few gzip files of about a megabyte (PACK bytes before compression), which
the service worker (sw.js) unpacks into the browser's cache as they arrive, showing the bytes
done. A pack is a gzip stream of records: a path's length (4 bytes, big-endian), the path
(UTF-8, relative to the site: "rule/702.19b/", "static/site.1a2b3c4d5e.css"), the file's
length (4 bytes) and its bytes. Each pack's name carries its contents' hash: a host may keep
it for a year. offline.json lists them, with the site's version (the hash of all of them):
a site with another version is a new copy, which the service worker saves in place of the
old one when it is next online.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import struct
from typing import Any

from crlookup.ui.site.addresses import address_of

HERE = os.path.dirname(__file__)
PACK = 6_000_000  # bytes of files per pack, before compression (about 1 MB after)
SKIPPED = ("offline.json", "sw.js", "_headers")  # (fetched as they are, never from a pack)
ONLINE = ("offline/", "card/", "cards.json")  # (the packs; the cards' pages, online only)


def files_of(folder: str) -> list[str]:
    """The files the offline copy holds, relative to `folder`, in a stable order: the site's,
    but for the cards' pages (and their names, which lead to them)."""
    found = []
    for d, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.relpath(os.path.join(d, name), folder).replace(os.sep, "/")
            if path not in SKIPPED and not path.startswith(ONLINE):
                found.append(path)
    return sorted(found)


def pack(folder: str, paths: list[str]) -> bytes:
    out = bytearray()
    for path in paths:
        with open(os.path.join(folder, path), "rb") as f:
            data = f.read()
        name = address_of(path).encode("utf-8")
        out += struct.pack(">I", len(name)) + name + struct.pack(">I", len(data)) + data
    return gzip.compress(bytes(out), compresslevel=9, mtime=0)


def unpack(data: bytes) -> dict[str, bytes]:
    """A pack's files by address (what sw.js does in the browser)."""
    raw, at, found = gzip.decompress(data), 0, {}
    while at < len(raw):
        (n,) = struct.unpack_from(">I", raw, at)
        name = raw[at + 4 : at + 4 + n].decode("utf-8")
        at += 4 + n
        (m,) = struct.unpack_from(">I", raw, at)
        found[name] = raw[at + 4 : at + 4 + m]
        at += 4 + m
    return found


def write(folder: str, editions: list[str], left_out: list[str]) -> int:
    """The packs (offline/), offline.json, sw.js and _headers into the site at `folder`; the
    offline copy's size (the bytes a phone fetches to keep it)."""
    groups: list[list[str]] = [[]]
    size = 0
    for path in files_of(folder):
        bytes_ = os.path.getsize(os.path.join(folder, path))
        if groups[-1] and size + bytes_ > PACK:
            groups.append([])
            size = 0
        groups[-1].append(path)
        size += bytes_
    os.makedirs(os.path.join(folder, "offline"))
    packs: list[dict[str, Any]] = []
    for paths in groups:
        data = pack(folder, paths)
        name = f"offline/pack.{hashlib.sha256(data).hexdigest()[:12]}.gz"
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        packs.append({"file": name, "bytes": len(data), "files": len(paths)})
    version = hashlib.sha256("".join(p["file"] for p in packs).encode()).hexdigest()[:12]
    listed: dict[str, Any] = {
        "version": version,
        "editions": editions,
        "bytes": sum(p["bytes"] for p in packs),
        "files": sum(p["files"] for p in packs),
        "packs": packs,
        "left_out": left_out,
    }
    with open(os.path.join(folder, "offline.json"), "w", encoding="utf-8") as f:
        json.dump(listed, f, ensure_ascii=False, indent=1)
    with open(os.path.join(HERE, "sw.js"), encoding="utf-8") as f:
        worker = f.read().replace("__VERSION__", version)
    with open(os.path.join(folder, "sw.js"), "w", encoding="utf-8") as f:
        f.write(worker)
    with open(os.path.join(folder, "_headers"), "w", encoding="utf-8") as f:
        f.write(HEADERS)
    return (
        listed["bytes"]
        + len(worker.encode())
        + os.path.getsize(os.path.join(folder, "offline.json"))
    )


# Cache headers for hosts that read a _headers file (Netlify, Cloudflare Pages): pages and the
# lists revalidate; what is named by its contents' hash is kept for a year (docs/site.md)
HEADERS = """/*
  Cache-Control: no-cache
  X-Content-Type-Options: nosniff
/static/*
  Cache-Control: public, max-age=31536000, immutable
/offline/*
  Cache-Control: public, max-age=31536000, immutable
/pagefind/*
  Cache-Control: no-cache
"""
