"""`crlookup site OUTDIR`: the web pages as a static site, for any static host and for a phone
to keep offline (docs/site.md).

    build.py      the site: which pages (the newest editions, the glossary, histories, the
                  diff), each rendered with serve's templates (crlookup.ui.serve.pages) at
                  the path serve answers it at, its links made relative to it
    search.py     the search index (Pagefind, made for static sites: its Python API, fed
                  the entries themselves), and the numbers a number typed goes straight to
    offline.py    the offline copy: the site's files in a few gzip packs the service worker
                  (static/sw.js) unpacks into the browser's cache, and its manifest
    static/       the site's own scripts: search in the browser (find.js), "Keep offline"
                  (offline.js), the service worker (sw.js)
    icons/        the app's icons (scripts/site_icons.py renders them from icon.svg)

Pagefind (`pip install "crlookup[site]"`) and Jinja2 are imported by this package only.
"""
