"""Card names as they are matched: a name's key (`name_key`), and what can be a name at all
(`check_name`, `MAX_NAME`, `CONTROL`).

A key is the name as a judge types it, case, accents, apostrophes and punctuation aside
("jace the mind sculptor", "lim dul", "circle of protection red"). The card database
(crlookup.library.cards) finds cards by key; the rulings file (crlookup.sources.rulings)
checks its names by the same measure; `crlookup <anything>` asks whether words are a card's
name without opening the card features (crlookup.library.reader.Library.names_card).
"""

from __future__ import annotations

import re

MAX_NAME = 200  # the longest card name has 141 characters
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # no name has them
_APOSTROPHES = re.compile(r"['’‘`]")
_NON_WORD = re.compile(r"[\W_]+")


def name_key(text: str) -> str:
    """A name as it is matched: case-folded, without accents, apostrophes or punctuation."""
    if text.isascii():  # as most typed names are: no accents to take off (and no
        text = text.lower()  # unicodedata to import, 3 ms, for `crlookup <words>`)
    else:
        import unicodedata

        text = unicodedata.normalize("NFKD", text.casefold())
        text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
        text = text.replace("æ", "ae").replace("œ", "oe").replace("ø", "o")
    return " ".join(_NON_WORD.sub(" ", _APOSTROPHES.sub("", text)).split())


def check_name(name: str) -> str:
    """The name, stripped; CardQueryError for one that cannot name a card."""
    from crlookup.core.errors import CardQueryError
    from crlookup.core.i18n import _

    if CONTROL.search(name):
        raise CardQueryError(_("a card name without control characters, please"))
    name = name.strip()
    if len(name) > MAX_NAME:
        raise CardQueryError(
            _("a card name of at most {count} characters, please").format(count=MAX_NAME)
        )
    if not name_key(name):
        raise CardQueryError(_("expected a card name, found {found!r}").format(found=name))
    return name
