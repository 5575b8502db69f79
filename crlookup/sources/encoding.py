"""Bytes to text for the plain-text sources: encodings and line ends as they really occur.

Wizards' text files come as UTF-8 with or without a BOM, UTF-16LE/BE with a BOM, cp1252,
and ASCII with a few cp437 bytes in accented card names (Dandân, Junún); line ends are CRLF,
LF, bare CR, or a mix. Nothing is silently replaced: a byte that fits no encoding is a
`SourceError` naming its line.
"""

from __future__ import annotations

import codecs
import re

from crlookup.core.errors import SourceError

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
# cp1252 typographic punctuation: its presence marks a file as cp1252 as a whole.
_CP1252_MARKS = re.compile(rb"[\x91-\x94\x97]")
_MULTIBYTE_UTF8 = re.compile(rb"[\xc2-\xf4][\x80-\xbf]+")
# Mac Roman's typographic marks: – — “ ” ‘ ’ … • ™
_MAC_ROMAN_MARKS = {bytes([b]) for b in (0xD0, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xC9, 0xA5, 0xAA)}


def split_lines(text: str) -> list[str]:
    """Split on CRLF, LF and bare CR (only those: no form feeds or Unicode separators)."""
    return _LINE_BREAK.split(text)


def _line_of(text_before: str) -> int:
    return len(_LINE_BREAK.findall(text_before)) + 1


def _decode_error(file, data: bytes, pos: int, codec: str, what: str) -> SourceError:
    before = data[:pos].decode(codec, errors="replace")
    return SourceError(file, _line_of(before), what, data[pos : pos + 4].hex(" "))


def decode(data: bytes, file="<bytes>") -> str:
    """Decode a text source; raises SourceError for bytes that fit no encoding."""
    if data.startswith(codecs.BOM_UTF8):
        text = _strict(data[3:], "utf-8", file, "UTF-8 text (the file starts with a UTF-8 BOM)")
    elif data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        codec = "utf-32-le" if data.startswith(codecs.BOM_UTF32_LE) else "utf-32-be"
        text = _strict(data[4:], codec, file, "UTF-32 text")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        codec = "utf-16-le" if data.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
        text = _strict(data[2:], codec, file, "UTF-16 text (the file starts with a UTF-16 BOM)")
    elif b"\x00" in data:
        utf16 = _utf16_without_bom(data)
        if utf16 is None:
            pos = data.index(b"\x00")
            raise _decode_error(file, data, pos, "latin-1", "text, not binary data")
        text = _strict(data, utf16, file, "UTF-16 text")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            if _MULTIBYTE_UTF8.search(data):
                raise _decode_error(file, data, e.start, "utf-8", "valid UTF-8") from None
            text = _decode_8bit(data, file)
    m = _CONTROL.search(text)
    if m:
        raise SourceError(
            file, _line_of(text[: m.start()]), "text", f"control character U+{ord(m.group()):04X}"
        )
    return text


def _strict(data: bytes, codec: str, file, what: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as e:
        raise _decode_error(file, data, e.start, codec, what) from None


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 without a BOM: mostly-ASCII text has a NUL in every other byte."""
    sample = data[:4000]
    if len(sample) < 4 or len(sample) % 2:
        return None
    even = sample[0::2].count(0) / (len(sample) / 2)
    odd = sample[1::2].count(0) / (len(sample) / 2)
    if even > 0.8 and odd < 0.05:
        return "utf-16-be"
    if odd > 0.8 and even < 0.05:
        return "utf-16-le"
    return None


def _decode_8bit(data: bytes, file) -> str:
    """Mac Roman, cp1252, or ASCII with stray cp437 letters inside words.

    A file whose only bytes beyond ASCII are Mac Roman's dashes, curly quotes, ellipsis,
    bullet and trade mark (2004-02-01: "409.1f\xd0h" is 409.1f–h, "Odyssey\xaa" Odyssey™) is
    Mac Roman: in cp1252 those bytes are letters ("Ð", "ª") no rules text uses that way.
    A file using cp1252's curly quotes or em dash is cp1252 throughout. Otherwise a byte
    between two letters whose cp1252 reading is not a letter (0x83 "ƒ", 0xA0 no-break
    space, 0xA3 "£", 0x96 "–") is a cp437 letter: "Dand\\x83n" is Dandân, "Ma'r\\x96f" Ma'rûf.
    """
    high = set(re.findall(rb"[\x80-\xff]", data))
    if high and high <= _MAC_ROMAN_MARKS:
        return data.decode("mac_roman")
    whole_cp1252 = bool(_CP1252_MARKS.search(data))
    out: list[str] = []
    last = 0
    for m in re.finditer(rb"[\x80-\xff]", data):
        i = m.start()
        byte = data[i : i + 1]
        try:
            ch = byte.decode("cp1252")
        except UnicodeDecodeError:
            ch = None
        if not whole_cp1252 and _inside_word(data, i) and not _latin_letter(ch):
            ch = byte.decode("cp437")
        if ch is None:
            raise _decode_error(file, data, i, "cp1252", "text in UTF-8 or cp1252")
        out.append(data[last:i].decode("ascii"))
        out.append(ch)
        last = i + 1
    out.append(data[last:].decode("ascii"))
    return "".join(out)


def _inside_word(data: bytes, i: int) -> bool:
    def letter(j: int) -> bool:
        return 0 <= j < len(data) and (chr(data[j]).isalpha() or data[j] >= 0x80)

    return letter(i - 1) and letter(i + 1)


def _latin_letter(ch: str | None) -> bool:
    return ch is not None and ch.isalpha() and ch != "ƒ"
