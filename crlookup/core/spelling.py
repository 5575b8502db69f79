"""Spelling: the word of an edition that a word the edition never uses was most likely meant as."""

from __future__ import annotations

from collections.abc import Mapping


def nearest(word: str, vocabulary: Mapping[str, int], cutoff: float) -> str | None:
    """The word of `vocabulary` (folded words, with how often the rules use each) nearest to
    `word`, folded: scoring at least `cutoff` (rapidfuzz's ratio, 0 to 100), the more used of
    two as near; None if there is none.

    It starts with the same letter as `word`: a typo seldom changes a word's first letter, and
    a word the rules lack, read without its first letter, is another word ("уходит", leaves,
    is not "ходит", moves; "rearrange" is not "arrange").
    """
    from rapidfuzz import fuzz, process

    same_start = [w for w in vocabulary if w[:1] == word[:1]]
    choices = process.extract(word, same_start, scorer=fuzz.ratio, limit=5, score_cutoff=cutoff)
    if not choices:
        return None
    return max(choices, key=lambda c: (c[1], vocabulary[c[0]]))[0]
