"""Extract, update and compile crlookup's message catalogs with babel.

    python scripts/catalogs.py            # extract -> update ru, pl -> compile .mo
    python scripts/catalogs.py --check    # fail if a catalog is out of date or untranslated

Messages are the `_()` / `ngettext()` calls in crlookup/ (its web pages' templates too, read
with Jinja2's extractor) and the help texts of the CLI's commands (their docstrings, which
click shows). Catalogs live in
crlookup/locale/<lang>/LC_MESSAGES/crlookup.po and ship compiled (.mo) with the package.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "crlookup"
LOCALE = PACKAGE / "locale"
LANGS = ("ru", "pl")


def template() -> Catalog:
    catalog = Catalog(project="crlookup", domain="crlookup")
    keywords = {"_": None, "N_": None, "ngettext": (1, 2)}
    for filename, lineno, message, _comments, _context in extract_from_dir(
        str(PACKAGE),
        method_map=[("**.py", "python"), ("ui/serve/templates/**.html", "jinja2")],
        options_map={
            "ui/serve/templates/**.html": {"extensions": "jinja2.ext.i18n", "trim_blocks": "true"}
        },
        keywords=keywords,
    ):
        if message and message != "":
            catalog.add(message, locations=[(f"crlookup/{filename}", lineno)])
    sys.path.insert(0, str(ROOT))
    from crlookup.ui.cli import cli

    if cli.help:
        catalog.add(
            cli.help, locations=[("crlookup/ui/cli.py", 0)], auto_comments=["help of `crlookup`"]
        )
    for name, command in sorted(cli.commands.items()):
        if command.help:
            catalog.add(
                command.help,
                locations=[("crlookup/ui/cli.py", 0)],
                auto_comments=[f"help of `crlookup {name}`"],
            )
    return catalog


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "crlookup.po"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    pot = template()
    problems = []
    for lang in LANGS:
        path = po_path(lang)
        if path.exists():
            with open(path, "rb") as f:
                catalog = read_po(f, locale=lang)
        else:
            catalog = Catalog(locale=lang, project="crlookup", domain="crlookup")
        catalog.update(pot, no_fuzzy_matching=True)
        missing = [
            m.id
            for m in catalog
            if m.id
            and (m.fuzzy or not (all(m.string) if isinstance(m.string, tuple) else m.string))
        ]  # plurals: every form
        if missing:
            problems.append(f"{lang}: {len(missing)} untranslated: {missing[:3]}")
        buf = io.BytesIO()
        write_po(buf, catalog, omit_header=False, sort_output=True, ignore_obsolete=True)
        if args.check:
            if not path.exists() or _body(path.read_bytes()) != _body(buf.getvalue()):
                problems.append(f"{lang}: {path} is out of date; run scripts/catalogs.py")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(buf.getvalue())
        with open(path.with_suffix(".mo"), "wb") as f:
            write_mo(f, catalog)
    for p in problems:
        print(p)
    sys.exit(1 if args.check and problems else 0)


def _body(po: bytes) -> bytes:
    """A .po without its header dates, which change on every write, and the Babel version
    that wrote it (CI installs the newest: a catalog is not out of date for that)."""
    return b"\n".join(
        line
        for line in po.splitlines()
        if not line.startswith((b'"POT-Creation-Date', b'"PO-Revision-Date', b'"Generated-By'))
    )


if __name__ == "__main__":
    main()
