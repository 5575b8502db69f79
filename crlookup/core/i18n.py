"""The interface language: every message crlookup prints goes through `_` (gettext).

The language comes from CRLOOKUP_LANG, else the locale (LC_ALL, LC_MESSAGES, LANG), else
English. Catalogs are compiled .mo files shipped in crlookup/locale and read with the standard
library's gettext (no babel import on the lookup path); `python scripts/catalogs.py` extracts,
updates and compiles them with babel.
"""

from __future__ import annotations

import gettext
import os

LANGUAGES = ("en", "ru", "pl")
DOMAIN = "crlookup"
LOCALE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "locale")


def language() -> str:
    """The interface language: one of LANGUAGES."""
    for var in ("CRLOOKUP_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        code = value.split(".")[0].split("_")[0].split("-")[0].lower()
        if code in LANGUAGES:
            return code
        if var == "CRLOOKUP_LANG" and code:
            break  # an explicit choice we have no catalog for: English
    return "en"


_translation: gettext.NullTranslations | None = None


def catalog() -> gettext.NullTranslations:
    global _translation
    if _translation is None:
        _translation = gettext.translation(
            DOMAIN, LOCALE_DIR, languages=[language()], fallback=True
        )
    return _translation


def _(message: str) -> str:
    """The message in the interface language."""
    return catalog().gettext(message)


def N_(message: str) -> str:
    """Marks a message for the catalog without translating it yet (translated when shown)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    return catalog().ngettext(singular, plural, n)


def reset() -> None:
    """Forget the loaded catalog (tests switch languages)."""
    global _translation
    _translation = None
