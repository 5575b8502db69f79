"""Chinese text as crlookup finds words in it: written without spaces, cut into character pairs.

Chinese has no spaces between words, so a whitespace tokenizer takes a sentence for one word.
crlookup reads a run of Chinese characters as its overlapping pairs ("阻挡生物" is 阻挡, 挡生,
生物), as CJK search engines do (Lucene's CJKAnalyzer): every word of two characters or more
is found as the pairs it is made of, in order, without a dictionary to load or to keep up with
the game's new words; the index also holds each character, so that a word of one character
(磨, mill) is found inside a run (measured against the jieba segmenter: docs/speed.md#chinese).
Anything else (Latin words, rule numbers) is a word as usual: "deathtouch 死触" is deathtouch,
死触; "702.19b" stays one token.

Used by the index's Chinese analyzer (crlookup.library.index). Where texts are compared word
by word (what changed from one edition to the next: crlookup.core.alignment), a Chinese
character is a word of its own (`words`, `joined`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

HAN_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# a Chinese run, or a word of letters and digits ("702.19b", "deathtouch", "X")
_WORD = rf"[^\W{HAN_CHARS}]+"
# The patterns, compiled when first used (the three take 14 ms, which a lookup in English
# would pay at every start): HAN (a Chinese run) is a name of this module all the same.
_PATTERNS = {
    "HAN": f"[{HAN_CHARS}]+",
    "_PIECE": rf"[{HAN_CHARS}]+|{_WORD}(?:\.{_WORD})*",
    "_WORDS": rf"[{HAN_CHARS}]|[^\s{HAN_CHARS}]+",
}


@functools.cache
def _compiled(name: str) -> re.Pattern:
    return re.compile(_PATTERNS[name])


def __getattr__(name: str) -> re.Pattern:
    if name in _PATTERNS:
        return _compiled(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# HAN_CHARS as (first, last) pairs: whether a text has Chinese is asked of every query that
# goes to a command (crlookup <anything>), where compiling HAN would cost 4 ms
_HAN_RANGES = (("\u3400", "\u4dbf"), ("\u4e00", "\u9fff"), ("\uf900", "\ufaff"))


def has_chinese(text: str) -> bool:
    return not text.isascii() and any(
        first <= c <= last for c in text for first, last in _HAN_RANGES
    )


def pairs(run: str) -> list[str]:
    """A run of Chinese characters as its overlapping pairs; a single character as itself."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def tokens(text: str, characters: bool = False) -> Iterator[tuple[str, int, int, int]]:
    """(token, position, start, end) in order: a Chinese run's pairs, and every other word
    whole. With `characters` (as the index is written), each Chinese character too, at the
    position of the pair it begins (the run's last, of the pair it ends), so that a word of
    one character is found where it is written inside a run, and every token keeps the
    position it has in a query (a query is read as pairs only: 践踏 is found as 践踏, not 践
    and 踏)."""
    pos = 0
    han = _compiled("HAN")
    for m in _compiled("_PIECE").finditer(text):
        piece, at = m.group(), m.start()
        if not han.fullmatch(piece):
            yield piece, pos, at, m.end()
            pos += 1
            continue
        if len(piece) == 1:
            yield piece, pos, at, at + 1
            pos += 1
            continue
        for i in range(len(piece) - 1):
            yield piece[i : i + 2], pos, at + i, at + i + 2
            if characters:
                yield piece[i], pos, at + i, at + i + 1
            pos += 1
        if characters:  # at the last pair's place: a run takes as many places either way
            yield piece[-1], pos - 1, at + len(piece) - 1, at + len(piece)


def words(text: str) -> list[str]:
    """The words of `text` as texts are compared: split at spaces, and each Chinese character
    a word of its own ("规则702.19b" is 规, 则, 702.19b); a text without Chinese, `split()`."""
    if not has_chinese(text):
        return text.split()
    return _compiled("_WORDS").findall(text)


def joined(pieces: list[str]) -> str:
    """Words of `words` put back together: a space between two words, none beside a Chinese
    character."""
    out = ""
    han = _compiled("HAN")
    for piece in pieces:
        if out and not (han.match(piece) or han.match(out[-1])):
            out += " "
        out += piece
    return out
