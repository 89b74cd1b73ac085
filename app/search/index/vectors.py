"""Paper vectors by meaning, derived from the catalog with no model download: each paper's
TF-IDF over the index's terms, reduced to `vector_fit.DIMENSIONS` by a truncated SVD of the
whole catalog (latent semantic analysis), centred and of unit length, so that the cosine of
two papers is the dot product of their vectors. Related papers blend it with their lexical score
(similar.py); measured on bench/recommend.py (docs/discover.md).

Fitted when a generation is built (vector_fit.py); an update projects every paper again with
the generation's model, without a new fit. Kept in files of the generation: `vectors.npy`
(float32, one row per document number, zeros for a deleted document; memory-mapped by every
worker) and `vectors-model.npz` (`terms`, `idf`, `directions`, `mean`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from app.search.index.held_files import mapped_array

VECTORS_FILE = "vectors.npy"  # float32, memory-mapped: the workers share one copy
MODEL_FILE = "vectors-model.npz"


@dataclass(frozen=True)
class Model:
    """What turns a paper's terms into its vector: the terms, their IDF, the directions
    (terms × dimensions, a projection is U·S) and the mean taken away."""

    terms: list[str]
    idf: np.ndarray
    directions: np.ndarray
    mean: np.ndarray

    @cached_property
    def columns(self) -> dict[str, int]:
        return {term: i for i, term in enumerate(self.terms)}

    def project(self, terms: Iterable[str]) -> np.ndarray:
        """The vector of a text given by its analyzed terms (a pasted abstract), made as the
        papers' are: sublinear TF-IDF over the model's terms, on its directions, centred, of
        unit length; zeros when it has none of the model's terms."""
        counts = Counter(self.columns[term] for term in terms if term in self.columns)
        if not counts:
            return np.zeros(self.directions.shape[1], np.float32)
        columns = np.fromiter(counts.keys(), np.int64, len(counts))
        tf = np.fromiter(counts.values(), np.float32, len(counts))
        projected = unit_rows(((1 + np.log(tf)) * self.idf[columns]
                                @ self.directions[columns])[None, :])
        return unit_rows(np.subtract(projected, self.mean, out=projected))[0]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """The rows at unit length, in place (an empty row stays empty)."""
    norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))[:, None]
    vectors /= np.where(norms > 0, norms, 1)
    return vectors


def read_model(directory: Path) -> Model | None:
    """The generation's model, or None where it has none."""
    try:
        with np.load(directory / MODEL_FILE) as found:
            return Model(str(found["terms"]).split("\n"), found["idf"], found["directions"],
                         found["mean"])
    except (OSError, KeyError, ValueError):
        return None


def read_vectors(directory: Path, documents: int) -> np.ndarray | None:
    """The generation's unit vectors (float32, one row per document number), memory-mapped,
    or None where it has none that fit."""
    try:
        vectors = mapped_array(directory / VECTORS_FILE)
    except (OSError, ValueError):
        return None
    return vectors if vectors.shape[:1] == (documents,) else None
