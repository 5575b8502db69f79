"""Decoding the plain-text sources: every real encoding and line end, and clear errors."""

from __future__ import annotations

import codecs
import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crlookup.core.errors import SourceError
from crlookup.sources.encoding import decode, split_lines

TEXT = "100.1. Rules “quoted” – Dandân, Æther\n100.1a Next"


@pytest.mark.parametrize(
    "data",
    [
        TEXT.encode("utf-8"),
        codecs.BOM_UTF8 + TEXT.encode("utf-8"),
        codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"),
        TEXT.encode("utf-16-le"),  # no BOM
        TEXT.encode("cp1252"),
    ],
    ids=["utf8", "utf8-bom", "utf16le", "utf16be", "utf16le-nobom", "cp1252"],
)
def test_encodings(data):
    assert decode(data) == TEXT


def test_cp437_letters_inside_words():
    # As in the 2019-01-25 file: ASCII, with cp437 bytes in Arabian Nights card names.
    data = b"Dand\x83n, Ghazb\xa0n Ogre, Jun\xa3n Efreet, Ring of Ma'r\x96f."
    assert decode(data) == "Dandân, Ghazbán Ogre, Junún Efreet, Ring of Ma'rûf."


def test_cp1252_file_keeps_its_dashes():
    # A cp1252 file (it uses curly quotes) with an en dash between letters: "601.2e–g".
    data = "See rules 601.2e–g. Don’t".encode("cp1252")
    assert decode(data) == "See rules 601.2e–g. Don’t"


def test_mac_roman_file_keeps_its_dashes_and_marks():
    # 2004-02-01's file: Mac Roman en dashes and trade marks, nothing else beyond ASCII
    data = b"See rules 409.1b and 409.1f\xd0h.\r\nthe Odyssey\xaa block, \xd2Basic Land \xd0 Mountain\xd3"
    assert (
        decode(data)
        == "See rules 409.1b and 409.1f–h.\r\nthe Odyssey™ block, “Basic Land – Mountain”"
    )
    assert decode(b"Dand\x83n and 409.1f\xd0h") == "Dandân and 409.1fÐh"  # not only Mac Roman's


def test_line_ends():
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert split_lines("a\r\n\r\nb") == ["a", "", "b"]
    assert split_lines("a\x0cb\u2028c") == ["a\x0cb\u2028c"]  # only CR and LF break lines


def test_invalid_utf8_names_the_line():
    data = "line one ä\nline two \n".encode() + b"\xff bad\n"
    with pytest.raises(SourceError) as e:
        decode(data, "x.txt")
    assert str(e.value).startswith("x.txt:3: expected valid UTF-8")


def test_undefined_cp1252_byte_outside_a_word_is_an_error():
    with pytest.raises(SourceError) as e:
        decode(b"abc\r\n\x81 def", "y.txt")
    assert str(e.value).startswith("y.txt:2: expected text in UTF-8 or cp1252")


def test_binary_is_an_error():
    with pytest.raises(SourceError) as e:
        decode(b"\x00\x01\x02\x03\xff\xfe\x00", "z.bin")
    assert "z.bin" in str(e.value)


def test_control_characters_are_an_error():
    with pytest.raises(SourceError) as e:
        decode(b"fine\nfine\nbell\x07", "c.txt")
    assert str(e.value).startswith("c.txt:3: expected text")


@given(st.binary(max_size=300))
def test_arbitrary_bytes_decode_or_raise_source_error(data):
    with contextlib.suppress(SourceError):
        assert isinstance(decode(data), str)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=200))
def test_utf16_round_trip(text):
    assert decode(codecs.BOM_UTF16_LE + text.encode("utf-16-le")) == text
    assert decode(codecs.BOM_UTF8 + text.encode("utf-8")) == text
