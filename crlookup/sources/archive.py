"""An archive of official editions: official-cr-archive.tar.xz, one MagicCompRules file per edition.

Layout: a tar file (xz-compressed, or plain), whose members are named
`MagicCompRules-YYYY-MM-DD.txt`, each an official text file as Wizards published it (read by
`crlookup.sources.text`, traps and all), or `MagicCompRules-zh-YYYY-MM-DD.txt`, a translation
in the same layout (cr-zh-archive.tar.xz: the Chinese editions; its term list
`translatedterms-zh.txt` is no edition, skipped and noted). Each member is one edition,
`en-YYYY-MM-DD` (or `zh-YYYY-MM-DD`) after its name: the archive names editions by the date Wizards filed them under, which is sometimes a
few days from the date the text states ("effective as of July 30, 2024" in 2024-08-02's
file). The edition's date stays the stated one, so editions sort by when they took effect, and
the difference is noted. A member whose text states a date far from its name's (more than
MISFILED days) is another edition's file: it is named after the date it states, and noted.

Contract: every member whose name fits is one edition; a member of any other name (another
file, a folder, a path such as "../x") is skipped and named in the first edition's notes; a
member that is not a Comprehensive Rules text raises `SourceError` naming the archive and the
member; a file that is not a tar archive at all raises `SourceError`.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from crlookup.core.errors import SourceError
from crlookup.core.model import Edition
from crlookup.sources import text

# "MagicCompRules-2026-04-17.txt" (English), "MagicCompRules-zh-2026-04-17.txt" (a translation)
MEMBER = re.compile(r"^MagicCompRules-(?:([a-z]{2})-)?(\d{4})-(\d{2})-(\d{2})\.txt$")
_XZ = b"\xfd7zXZ\x00"
# days between a member's name and the date its text states beyond which the member is another
# edition's file (MagicCompRules-2006-06-01.txt states June 1, 2004 and is the Fifth Dawn
# edition: sunburst, no bushido); a filing date is within 11 days of the stated one
MISFILED = 60
MAX_MEMBER = 20_000_000  # bytes: a CR text file is under 1 MB; anything far larger is not one


def sniff(data: bytes) -> bool:
    return data.startswith(_XZ) or (len(data) > 262 and data[257:262] == b"ustar")


def members(
    path: str | Path, data: bytes | None = None
) -> tuple[list[tuple[str, bytes]], list[str]]:
    """The archive's edition files as (name, bytes) in name order, and the names skipped."""
    import io
    import lzma
    import tarfile

    path = Path(path)
    try:
        source = io.BytesIO(data) if data is not None else open(path, "rb")  # noqa: SIM115
    except OSError as e:
        raise SourceError(path, None, "a readable file", e.strerror) from None
    found: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    try:
        with source, tarfile.open(fileobj=source, mode="r:*") as tar:
            for member in tar:
                name = member.name
                if not (member.isfile() and MEMBER.match(name) and member.size <= MAX_MEMBER):
                    skipped.append(name)
                    continue
                member_file = tar.extractfile(member)
                assert member_file is not None  # a regular file (isfile above) can be read
                found.append((name, member_file.read()))
    except (tarfile.TarError, lzma.LZMAError, EOFError, OSError) as e:
        raise SourceError(
            path, None, "a tar archive of MagicCompRules-YYYY-MM-DD.txt files", str(e)
        ) from None
    if not found:
        raise SourceError(
            path,
            None,
            "members named MagicCompRules-YYYY-MM-DD.txt (or MagicCompRules-zh-YYYY-MM-DD.txt)",
            ", ".join(skipped[:3]) or "none",
        )
    return sorted(found), skipped


def read_member(archive: str, name: str, data: bytes) -> Edition:
    """The edition of one member: the official text, named after the member."""
    from datetime import date

    named = MEMBER.match(name)
    assert named is not None, f"{name}: not a member that members() returns"
    lang, y, m, d = named.groups()
    filed = date(int(y), int(m), int(d))
    try:
        [edition] = text.read(PurePosixPath(name), data)
    except SourceError as e:
        raise SourceError(f"{archive}:{name}", e.line, e.expected, e.found) from None
    if edition.lang != (lang or "en"):
        raise SourceError(
            f"{archive}:{name}",
            1,
            f"the rules in the language its name says ({lang or 'en'})",
            f"the rules in {edition.lang}",
        )
    notes = list(edition.notes)
    if abs((edition.date - filed).days) > MISFILED:  # another edition's file, under this name
        notes.append(
            f"misfiled: the archive names it {filed.isoformat()}, but the text states "
            f"{edition.date.isoformat()} (twice, with the sets and copyright of that year): it is "
            f"that edition, and is named after it"
        )
        return edition._replace(notes=tuple(notes))
    if edition.date != filed:
        notes.append(
            f"filed as {filed.isoformat()}; the text states it takes effect {edition.date.isoformat()}"
        )
    return edition._replace(given_id=f"{edition.lang}-{filed.isoformat()}", notes=tuple(notes))


def read(path: Path, data: bytes) -> list[Edition]:
    found, skipped = members(path, data)
    editions = [read_member(Path(path).name, name, raw) for name, raw in found]
    if skipped:
        first = editions[0]
        note = (
            f"{len(skipped)} archive members skipped (not MagicCompRules-YYYY-MM-DD.txt): "
            + ", ".join(skipped[:5])
        )
        editions[0] = first._replace(notes=(*first.notes, note))
    return editions
