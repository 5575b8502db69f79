"""English word forms: a word without the inflection it may have (plural, past tense, -ing),
and the words that tell a verb from a noun.

Used where a name must be recognised in running text in any of its forms, not only as
written ("counters" is Counter, "tapped" is Tap, "dies" is Dies), and a word of two senses
told apart ("you exile" the action, "from exile" the zone): reading questions (crlookup.ask)
and reading cards' rules text (crlookup.card_rules).
"""

from __future__ import annotations

# the word before a word of two senses, an action's and a thing's ("counter", "exile"): a verb
# follows a subject or a modal ("I" and "a" are no words here; "to" goes either way: "go to
# exile"); a noun, an article, a preposition or a number
VERB_CUES = frozenset(
    {
        "you",
        "we",
        "they",
        "he",
        "she",
        "it",
        "can",
        "cannot",
        "could",
        "may",
        "might",
        "must",
        "will",
        "would",
        "should",
        "not",
        "don",
        "doesn",
        "didn",
        "cant",
        "won",
        "then",
        "also",
        "just",
    }
)
NOUN_CUES = frozenset(
    {
        "an",
        "the",
        "one",
        "each",
        "another",
        "any",
        "no",
        "its",
        "his",
        "her",
        "their",
        "my",
        "your",
        "in",
        "into",
        "from",
        "of",
        "with",
        "more",
        "many",
    }
)


def bases(word: str, ing: bool = False) -> set[str]:
    """The English word without an inflection it may have: plural, past tense (and with `ing`,
    the -ing form)."""
    out = {word}
    if ing and word.endswith("ing") and len(word) >= 5:
        out |= {word[:-3], word[:-3] + "e"}  # "floating", "bouncing"
        if word.endswith("ying"):
            out.add(word[:-4] + "ie")  # "dying"
        if word[-4] == word[-5]:
            out.add(word[:-4])  # "tapping"
    if word.endswith("ies"):
        out.add(word[:-3] + "y")
    if word.endswith("s") and not word.endswith("ss"):
        out |= {word[:-1], word[:-2] if word.endswith("es") else word[:-1]}
    if word.endswith("ied"):
        out.add(word[:-3] + "y")
    if word.endswith("ed"):
        out |= {word[:-1], word[:-2]}  # "saddled", "goaded"
        if len(word) > 4 and word[-3] == word[-4]:
            out.add(word[:-3])  # "tapped", "plotted"
    return out
