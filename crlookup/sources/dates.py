"""Effective dates as the sources state them: an English, Russian or Chinese sentence, or the file name.

"These rules are effective as of July 11, 2009." (official files), "current as of February 1,
2009" (before July 2009), "(от 25 января 2019)" (the Russian translation), "此规则于2026年4月17日
起生效。" (the Chinese translation), and for sources that
state none, a file name starting "cr-YYYY-MM-DD-". A date that does not exist (February 30)
is a `SourceError`, never silently another day.
"""

from __future__ import annotations

import re
from datetime import date

from crlookup.core.errors import SourceError

MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ],
        1,
    )
}
RU_MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "января",
            "февраля",
            "марта",
            "апреля",
            "мая",
            "июня",
            "июля",
            "августа",
            "сентября",
            "октября",
            "ноября",
            "декабря",
        ],
        1,
    )
}
ENGLISH = re.compile(
    r"(?:effective|current) as of (" + "|".join(MONTHS) + r") (\d{1,2}), (\d{4})", re.I
)
RUSSIAN = re.compile(r"(\d{1,2})\s+(" + "|".join(RU_MONTHS) + r")\s+(\d{4})", re.I)
CHINESE = re.compile(r"于\s*(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*起?生效")
FILE_NAME = re.compile(r"^cr-(\d{4})-(\d{2})-(\d{2})(?=[-_.]|$)", re.I)


def stated(
    text: str, file: str, line: int | None, *, langs: tuple[str, ...] = ("en",)
) -> date | None:
    """The effective date `text` states in one of `langs`, or None; SourceError if no real day."""
    m = ENGLISH.search(text) if "en" in langs else None
    if m:
        year, month, day = m.group(3), MONTHS[m.group(1).capitalize()], m.group(2)
    elif "ru" in langs and (m := RUSSIAN.search(text)):
        year, month, day = m.group(3), RU_MONTHS[m.group(2).lower()], m.group(1)
    elif "zh" in langs and (m := CHINESE.search(text)):
        year, month, day = m.group(1), int(m.group(2)), m.group(3)
    else:
        return None
    return _real(int(year), month, int(day), file, line, m.group(0))


def in_file_name(file: str, why: str) -> date:
    """The date of a "cr-YYYY-MM-DD-..." file name, for sources whose content states none."""
    m = FILE_NAME.match(file)
    if not m:
        raise SourceError(
            file,
            None,
            f"an effective date: {why}, so the file name must start with 'cr-YYYY-MM-DD-'",
            file,
        )
    return _real(int(m.group(1)), int(m.group(2)), int(m.group(3)), file, None, m.group(0))


def _real(year: int, month: int, day: int, file: str, line: int | None, found: str) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise SourceError(file, line, "a real date", found) from None
