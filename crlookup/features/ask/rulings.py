"""A card's ruling read as a question (crlookup.features.rulings says why): its best answers
are the rules it applies. (The rulings of the cards a question names are evidence for its
answers: semantic.py weighs them.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crlookup.library.reader import Library

PER_RULING = 3  # the rules kept for a ruling, best first


def link(lib: Library, texts: list[str], edition: str, progress=None) -> list[list[str]]:
    """Each ruling's rules in `edition`, best first (`PER_RULING` of them): read as `ask`
    reads a question, through the same stages (crlookup.features.ask.pipeline), its reading
    embedded with the others' in batches. `progress(done, total)` is told as it goes."""
    import numpy as np

    from crlookup.features.ask.embedding import load_model
    from crlookup.features.ask.pipeline import candidates, place
    from crlookup.features.ask.prepare import lexicon, vectors
    from crlookup.features.ask.question import understand
    from crlookup.features.ask.ranking import Linear, load_weights
    from crlookup.features.ask.semantic import RULING_WORDS, reading

    lex = lexicon(lib, edition)
    model = lib.memo(("ask", "model"), load_model)
    entries = vectors(lib, edition)
    # the weights the shipped links were made and measured with (tests/test_rulings.py): a
    # ruling is no judge's question (learned on those, its first link was right for 23 of
    # the 40 labelled, not 24; one of its three for 29, not 32)
    learned = lib.memo(("ask", "ruling weights"), lambda: Linear(load_weights()))
    out: list[list[str]] = []
    batch = 64
    for start in range(0, len(texts), batch):
        # a ruling is read as a question is, and a question has at most MAX_WORDS words
        questions = [  # (a ruling is not read with the rulings of the cards it names)
            understand(lex, " ".join(t.split()[:RULING_WORDS]), lib)._replace(card_rulings=())
            for t in texts[start : start + batch]
        ]
        embedded = np.atleast_2d(model.query([reading(lex, q) for q in questions]))
        for q, v in zip(questions, embedded):
            placed = place(lex, q, candidates(lib, lex, q, entries @ v), learned, PER_RULING)
            out.append([lex.numbers[p.i] for p in placed])
        if progress:
            progress(min(start + batch, len(texts)), len(texts))
    return out
