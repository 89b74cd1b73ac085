"""Paper vectors by meaning, derived from the catalog with no model download: each paper's
TF-IDF over the index's terms, reduced to `DIMENSIONS` by a truncated SVD of the whole catalog
(latent semantic analysis), centred and of unit length, so that the cosine of two papers is
the dot product of their vectors. Related papers blend it with their lexical score
(similar.py); measured on bench/recommend.py (docs/discover.md).

Fitted when a generation is built, from the posting arrays of the text field (the analyzer's
terms and frequencies: nothing is analyzed again); an update projects every paper again with
the generation's model, without a new fit. Kept in files of the generation: `vectors.npy`
(float32, one row per document number, zeros for a deleted document; memory-mapped by every
worker) and `vectors-model.npz` (`terms`, `idf`, `directions`, `mean`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from whoosh.searching import Searcher

from app.search.arrays import deleted_docs, field_arrays
from app.search.whoosh_adapter import open_index

VECTORS_FILE = "vectors.npy"  # float32, memory-mapped: the workers share one copy
MODEL_FILE = "vectors-model.npz"
DIMENSIONS = 64  # 32-128 measured alike, 256 worse (docs/discover.md)
# ... and at most the square root of the papers: a small catalog's few directions are its
# themes, where as many directions as papers would only write each paper again.
MIN_DF = 2
MAX_DF_SHARE = 0.5  # words in half the papers ("learn", "model") carry no meaning
OVERSAMPLE, POWER_STEPS, SEED = 10, 4, 0


@dataclass(frozen=True)
class Model:
    """What turns a paper's terms into its vector: the terms, their IDF, the directions
    (terms × dimensions, a projection is U·S) and the mean taken away."""

    terms: list[str]
    idf: np.ndarray
    directions: np.ndarray
    mean: np.ndarray


def _meaningful(term: str) -> bool:
    return len(term) > 2 and not term.isdigit() and term == term.lower()  # no acronym marker


def _postings(searcher: Searcher) -> tuple[list[tuple[object, int]], np.ndarray]:
    """The text field's arrays of each segment with its offset, and which documents live."""
    live = np.ones(searcher.doc_count_all(), dtype=bool)
    fields = []
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        live[[doc + offset for doc in deleted_docs(reader)]] = False
        arrays = field_arrays(reader, "text")
        if arrays is not None:
            fields.append((arrays, offset))
    return fields, live


def _vocabulary(fields: list[tuple[object, int]], papers: int) -> tuple[list[str], np.ndarray]:
    """The terms in `MIN_DF` papers or more and at most `MAX_DF_SHARE` of them, and IDFs."""
    df: dict[str, int] = {}
    for arrays, _ in fields:
        lengths = np.diff(arrays.starts)
        for term, i in arrays.terms.items():
            if _meaningful(term):
                df[term] = df.get(term, 0) + int(lengths[i])
    kept = sorted(t for t, n in df.items() if MIN_DF <= n <= MAX_DF_SHARE * papers)
    return kept, np.array([np.log(papers / df[t]) for t in kept], dtype=np.float32)


def _tfidf(fields: list[tuple[object, int]], live: np.ndarray, terms: list[str],
           idf: np.ndarray) -> sp.csr_matrix:
    """Unit rows of sublinear TF-IDF, one per document number (empty where deleted)."""
    column = {term: i for i, term in enumerate(terms)}
    rows, cols, values = [], [], []
    for arrays, offset in fields:
        local = np.array([column.get(term, -1) for term in arrays.terms], dtype=np.int64)
        cols_of = np.repeat(local, np.diff(arrays.starts))
        docs = np.asarray(arrays.ids, dtype=np.int64) + offset
        keep = (cols_of >= 0) & live[docs]
        tf = np.asarray(arrays.weights, dtype=np.float32)[keep]
        rows.append(docs[keep])
        cols.append(cols_of[keep])
        values.append((1 + np.log(np.maximum(tf, 1))) * idf[cols_of[keep]])
    matrix = sp.csr_matrix((np.concatenate(values or [np.zeros(0, np.float32)]),
                            (np.concatenate(rows or [np.zeros(0, np.int64)]),
                             np.concatenate(cols or [np.zeros(0, np.int64)]))),
                           shape=(len(live), len(terms)), dtype=np.float32)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1 / np.where(norms > 0, norms, 1)) @ matrix)


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1)).astype(np.float32)


def _fit(matrix: sp.csr_matrix, terms: list[str], idf: np.ndarray, live: np.ndarray) -> Model:
    """The top singular directions by a randomized SVD (Halko, Martinsson and Tropp, 2011: a
    Gaussian sketch, power steps, an exact SVD of the small projected matrix)."""
    k = max(1, min(DIMENSIONS, int(np.sqrt(live.sum())), min(matrix.shape) - 1))
    rng = np.random.default_rng(SEED)
    basis, _ = np.linalg.qr(matrix @ rng.standard_normal(
        (matrix.shape[1], k + OVERSAMPLE), dtype=np.float32))
    for _ in range(POWER_STEPS):
        basis, _ = np.linalg.qr(matrix.T @ basis)
        basis, _ = np.linalg.qr(matrix @ basis)
    _, _, vt = np.linalg.svd(np.asarray((matrix.T @ basis).T), full_matrices=False)
    directions = np.ascontiguousarray(vt[:k].T, dtype=np.float32)
    projected = _unit_rows(np.asarray(matrix @ directions))
    return Model(terms, idf, directions, projected[live].mean(axis=0) if live.any()
                 else np.zeros(k, np.float32))


def _vectors(matrix: sp.csr_matrix, model: Model) -> np.ndarray:
    vectors = _unit_rows(_unit_rows(np.asarray(matrix @ model.directions)) - model.mean)
    vectors[np.diff(matrix.indptr) == 0] = 0  # no term: no meaning, not minus the mean
    return vectors


def write_vectors(directory: Path, refit: bool = True) -> None:
    """Fit the generation's model and write its vectors, or (`refit` False, after an update)
    project its papers with the model it has."""
    model = None if refit else _read_model(directory)
    ix = open_index(directory)
    try:
        with ix.searcher() as searcher:
            fields, live = _postings(searcher)
    finally:
        ix.close()
    if model is None:
        terms, idf = _vocabulary(fields, int(live.sum()))
        if not terms:
            return
        model = _fit(_tfidf(fields, live, terms, idf), terms, idf, live)
    vectors = _vectors(_tfidf(fields, live, model.terms, model.idf), model)
    tmp = directory / f".{VECTORS_FILE}.tmp.npy"
    np.save(tmp, vectors)
    os.replace(tmp, directory / VECTORS_FILE)
    tmp = directory / f".{MODEL_FILE}.tmp.npz"
    np.savez(tmp, terms=np.array("\n".join(model.terms)),
             idf=model.idf, directions=model.directions, mean=model.mean)
    os.replace(tmp, directory / MODEL_FILE)


def _read_model(directory: Path) -> Model | None:
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
        # A plain array over the mapping, as arrays.py maps postings (numpy's memmap runs
        # Python code on every slice).
        vectors = np.asarray(np.load(directory / VECTORS_FILE, mmap_mode="r"))
    except (OSError, ValueError):
        return None
    return vectors if vectors.shape[:1] == (documents,) else None
